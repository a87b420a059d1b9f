"""Idioms a batch of user programs found crashing or refused: each against NumPy and
central finite differences (reverse and forward mode)."""
import math

import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

PARAMS = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, -0.5]), "c": np.array([5.0, 0.2])}
PTS = ((0.0, 1.0), (1.0, 3.0), (2.0, 2.5))


# --- a comprehension's `if` decided while compiling (over a dict's items or a tuple): a list
#     literal, as without the `if` (it crashed inside sstad); one decided at run time over
#     static items: a run-time list typed by its first item

def _but_one_key(p):
    return sum([np.sum(v ** 2) for k, v in p.items() if k != "c"])


def _but_one_position(a, b, c):
    return sum(np.sum(np.sin(v)) for i, v in enumerate((a, b, c)) if i != 1)


def _positive_ones(a, b, c):
    return sum(np.sum(v ** 2) for v in (a, b, c) if np.sum(v) > 0.0)


# --- math.lgamma and math.gamma (no derivative rule), pow() (no rule), divmod (refused),
#     `xs, ys = zip(*pairs)` (a Zip could not be unpacked)

def _log_gamma(a):
    return math.lgamma(a + 1.0) * a + math.gamma(a * 0.5)


def _powers(x):
    return pow(x[0], 3) + pow(x[1], 0.5) * pow(x[0], x[1])


def _halves(x):
    q, r = divmod(x.shape[0] + 3, 2)
    return np.sum(x * x) * q + r


def _line_fit(w):
    xs, ys = zip(*PTS)
    return sum((w[0] + w[1] * xi - yi) ** 2 for xi, yi in zip(xs, ys))


CASES = [
    (_but_one_key, (PARAMS,)),
    (_but_one_position, (PARAMS["a"], PARAMS["b"], PARAMS["c"])),
    (_positive_ones, (PARAMS["a"], PARAMS["b"], PARAMS["c"])),
    (_log_gamma, (1.3,)),
    (_powers, (np.array([1.3, 0.7]),)),
    (_halves, (np.array([1.3, 0.7]),)),
    (_line_fit, (np.array([0.3, 0.8]),)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f.__name__.strip("_") for f, _ in CASES])
def test_idiom(fn, args):
    check_grads(fn, args, backend="python")
    assert np.allclose(sstad.jit(fn, backend="python")(*args), fn(*args))


def test_idioms_compiled():
    for fn, args in (CASES[0], CASES[3], CASES[6]):
        check_grads(fn, args, backend="numba")
        assert np.allclose(sstad.jit(fn)(*args), fn(*args))


def test_pow_with_a_modulus_is_refused_at_its_line():
    def f(x):
        return pow(3, 2, 5) * np.sum(x)
    with pytest.raises(sstad.errors.UnsupportedSyntaxError, match="pow\\(\\) is supported with a base and an exponent"):
        sstad.jit(f, backend="python")(np.ones(2))


# --- a recursive function that returns a tuple (refused: its result's type is guessed as one
#     value in the first pass over its body, which could not be unpacked or indexed)

def _halving(x, n):
    if n == 0:
        return x, 1.0
    a, b = _halving(x * 0.5, n - 1)
    return a + x, b * 2.0


def _halving_indexed(x, n):
    if n == 0:
        return x, 1.0
    r = _halving_indexed(x * 0.5, n - 1)
    return r[0] + x, r[1] * 2.0


def _recursive_pair(x):
    a, b = _halving(x, 3)
    c, d = _halving_indexed(x * 2.0, 2)
    return np.sum(np.sin(a)) * b + np.sum(c) * d


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_recursive_function_returning_a_tuple(backend):
    x = np.array([1.0, 2.0])
    check_grads(_recursive_pair, (x,), backend=backend)
    assert np.isclose(sstad.jit(_recursive_pair, backend=backend)(x), _recursive_pair(x))


# --- lambdas made in a comprehension that read its variable after it ended (Python's late
#     binding; "name `k` is not defined" before): refused at the read, the default-argument
#     form (`k=k`) works

def _late_binding(x):
    fs = [lambda z: z * k for k in (1.0, 2.0, 3.0)]
    return sum(g(x) for g in fs)


def _early_binding(x):
    fs = [lambda z, k=k: z * k for k in (1.0, 2.0, 3.0)]
    return sum(np.sum(g(x) ** 2) for g in fs)


def test_a_comprehension_variable_read_after_it_ended_is_refused_with_the_fix():
    with pytest.raises(sstad.errors.UnsupportedSyntaxError,
                       match=r"(?s)test_user_programs_12_fixes.py:\d+:\d+: `k` is the variable of a comprehension "
                             r"that has ended.*k=k") as caught:
        sstad.jit(_late_binding, backend="python")(1.0)
    assert "z * k" in str(caught.value)
    check_grads(_early_binding, (np.array([0.5, -1.0]),), backend="python")
