"""Forward mode: jvp against central finite differences, and the dot-product test
<u, J v> (jvp) == <J^T u, v> (vjp), for every rule case and every corpus program, on
both backends."""
import copy
import functools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import sstad
from sstad.errors import BackendError
from corpus import CORPUS
from fd import derivative_off_kinks, inner, random_like
from test_reverse_corpus import DIFFERENTIABLE
from test_rules import CASES, PYTHON_ONLY

# The Numba variants compile ~300 functions: they run in `make test-slow`; `make test`
# checks compiled forward mode through the higher-order and custom-rule tests.
BACKENDS = ("python", pytest.param("numba", marks=pytest.mark.slow))


@functools.cache
def compiled(fn, backend):
    return sstad.jit(sstad.pushforward(fn), backend=backend), sstad.jit(sstad.pullback(fn), backend=backend)


def check_jvp(fn, static, values, rng, backend, rel=1e-5, abs_=1e-6):
    """jvp vs vjp (to rounding) and vs finite differences (to truncation error)."""
    if backend == "numba":
        try:
            sstad.jit(fn, backend="numba")(*static, *copy.deepcopy(values))
        except BackendError as exc:     # forward mode returns the primal value too
            pytest.skip(f"Numba cannot compile the function itself: {str(exc).splitlines()[0][-80:]}")
    target = lambda *v: fn(*static, *v)                                   # noqa: E731
    out = target(*copy.deepcopy(values))
    cotangent, direction = random_like(out, rng), random_like(values, rng)
    values, expected = derivative_off_kinks(target, values, direction, cotangent, rng)
    if expected is None:
        return False
    push, pull = compiled(fn, backend)
    primal_dirs = tuple(random_like(s, rng) for s in static)
    value, tangent = push(*static, *copy.deepcopy(values), *primal_dirs, *direction)
    forward = inner(cotangent, tangent)
    reverse = inner(pull(*static, *copy.deepcopy(values), cotangent)[len(static):], direction)
    assert forward == pytest.approx(reverse, rel=1e-9, abs=1e-9), "jvp and vjp disagree"
    assert forward == pytest.approx(expected, rel=rel, abs=abs_), "jvp and finite differences disagree"
    return True


def split(fn):
    if isinstance(fn, functools.partial):
        return fn.func, fn.args
    return fn, ()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("label, fn, make_args", CASES, ids=[c[0] for c in CASES])
def test_rule_jvp(label, fn, make_args, backend):
    target, static = split(fn)
    assert check_jvp(target, static, make_args(), np.random.default_rng(1), backend)


@pytest.mark.parametrize("label, fn, make_args", PYTHON_ONLY, ids=[c[0] for c in PYTHON_ONLY])
def test_rule_jvp_python_only(label, fn, make_args):
    target, static = split(fn)
    assert check_jvp(target, static, make_args(), np.random.default_rng(1), "python")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", DIFFERENTIABLE)
@settings(max_examples=3, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2 ** 32 - 1))
def test_corpus_jvp(name, backend, data, seed):
    fn, strategy = CORPUS[name]
    args = data.draw(strategy, label="args")
    assume(check_jvp(fn, (), args, np.random.default_rng(seed), backend, rel=1e-4, abs_=1e-5))
