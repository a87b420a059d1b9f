"""Primitive calls bind NumPy's parameters one way, and every rule sees every parameter.

Each case once gave a silently wrong gradient (a rule dropped a positional or keyword
parameter) or was refused; derivatives are checked against finite differences in both
modes.  A parameter value a rule does not handle is refused at the user's line."""
import inspect
import re

import numpy as np
import pytest

import binder_cases as bc
import sstad
from sstad.errors import AliasingError, SstadError
from sstad.runtime.primitive import PRIMITIVES
from sstad.testing import check_grads

rng = np.random.default_rng(3)


def line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return next(start + i for i, line in enumerate(lines) if line.rstrip().endswith(f"# ERR {marker}"))


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(bc.SMOOTH))
def test_every_parameter_reaches_the_rule(name, backend):
    fn, shape = bc.SMOOTH[name]
    x = rng.uniform(-1.0, 1.0, shape)       # distinct values: sort has no ties
    check_grads(fn, (x,), backend=backend)


@pytest.mark.parametrize("name", sorted(bc.REFUSED))
def test_an_unhandled_parameter_is_refused_at_the_users_line(name):
    fn, shown = bc.REFUSED[name]
    with pytest.raises(SstadError) as info:
        sstad.grad(fn)(np.ones((3, 4)))
    message = str(info.value)
    assert shown in message
    marker = "stable" if "stable" in shown else "keyword"
    assert re.search(rf"binder_cases\.py:{line_of(fn, marker)}\b", message), message


def test_rules_name_parameters_as_numpy_does():
    """A rule's keyword parameters are NumPy's parameter names, so none can be dropped by
    a misspelling; its leading parameters are no more than NumPy's positional ones."""
    from sstad.frontend.source import function_node
    checked = 0
    for prim in PRIMITIVES.values():
        if prim.vjp is None or prim.signature is None:
            continue
        node, _ = function_node(prim.vjp)
        names = [a.id for a in node.args.args]
        k = names.index("out")
        known = set(prim.signature.parameters)
        assert set(names[k + 2:]) <= known, (prim.name, names[k + 2:], known)
        assert k <= len(prim.signature.parameters), prim.name
        checked += 1
    assert checked > 60


@pytest.mark.parametrize("fn", [bc.write_through_chosen_transpose, bc.write_through_chosen_alias])
def test_a_write_through_an_array_chosen_at_a_join_is_refused(fn):
    """NumPy writes through to ``y`` or to another array, depending on the path: with no
    single base, the write is refused at the user's line, never lost."""
    with pytest.raises(AliasingError) as info:
        sstad.jit(fn, backend="python")(np.arange(4.0).reshape(2, 2) if "transpose" in fn.__name__
                                        else np.arange(4.0), 1.0)
    assert re.search(rf"binder_cases\.py:{line_of(fn, 'view')}\b", str(info.value))


@pytest.mark.parametrize("flag", [1.0, -1.0])
def test_a_write_through_one_of_two_slices_of_one_base_reaches_it(flag):
    y = np.arange(4.0)
    np.testing.assert_array_equal(sstad.jit(bc.write_through_chosen_view, backend="python")(y, flag),
                                  bc.write_through_chosen_view(y, flag))


def test_a_write_into_a_fresh_array_after_a_join_compiles():
    y = np.arange(4.0)
    np.testing.assert_allclose(sstad.jit(bc.write_into_fresh_join, backend="python")(y, 1.0),
                               bc.write_into_fresh_join(y, 1.0))


def test_a_lambda_is_differentiated():
    f = lambda x: np.sum(np.sin(x) * x)  # noqa: E731
    x = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_allclose(sstad.grad(f)(x), np.cos(x) * x + np.sin(x), rtol=1e-12)
