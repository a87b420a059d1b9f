"""``sstad.grad(lambda w: loss(w, x))`` inside compiled code: the nested function is
lifted (compiled from its source as a function of its own, reading the enclosing arrays
and numbers as captured parameters), so every transform of it works and is
differentiated again; what cannot be lifted is refused saying what to write instead."""
import numpy as np
import pytest

import sstad
from sstad.errors import UnsupportedSyntaxError
from sstad.testing import check_grads

W = np.linspace(-0.5, 0.5, 6).reshape(3, 2)
X = np.arange(6.0).reshape(2, 3) / 6
OFFSET = np.ones(2)


def loss(w, x, lam):
    return np.sum(np.tanh(x @ w + OFFSET) ** 2) + lam * np.sum(w ** 2)


def step_lambda(w, x, lam):
    g = sstad.grad(lambda v: loss(v, x, lam))(w)          # an array and a run-time number
    return np.sum((w - 0.1 * g) ** 2)


def step_nested_def(w, x):
    def inner(v):
        return loss(v, x, 0.5) * scale + np.sum(v * OFFSET)
    scale = 2.0                                            # a constant, bound before the call
    value, g = sstad.value_and_grad(inner)(w)
    return value + np.sum(g * g)


def step_pushforward(w, x):
    value, tangent = sstad.pushforward(lambda v: loss(v, x, 0.1))(w, np.ones_like(w))
    return value * tangent


def step_argnums(w, x):
    gw, gx = sstad.grad(lambda v, y: loss(v, y, 0.1) * np.sum(x), argnums=(0, 1))(w, x)
    return np.sum(gw) + np.sum(gx ** 2)


CASES = [(step_lambda, (W, X, 0.3)), (step_nested_def, (W, X)), (step_pushforward, (W, X)),
         (step_argnums, (W, X))]


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_transform_of_a_closure_is_compiled_and_differentiated_again(fn, args):
    check_grads(fn, args, backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn,args", CASES[:2], ids=[c[0].__name__ for c in CASES[:2]])
def test_on_numba(fn, args):
    check_grads(fn, args, backend="numba")


def step_reads_offset(w):
    return sstad.grad(lambda v: np.sum(v * OFFSET))(w)


def test_globals_are_still_read_from_the_module():
    global OFFSET
    f = sstad.jit(step_reads_offset, backend="python")
    saved = OFFSET
    try:
        np.testing.assert_array_equal(f(W), np.ones((3, 2)))
        OFFSET = np.full(2, 3.0)
        np.testing.assert_array_equal(f(W), np.full((3, 2), 3.0))
    finally:
        OFFSET = saved


def step_reads_a_run_time_list(w, x):
    rows = []
    rows.append(x)
    return sstad.grad(lambda v: loss(v, rows[0], 0.1))(w)


def step_with_default(w, x):
    def inner(v, k=2.0):
        return loss(v, x, 0.1) * k
    return sstad.grad(inner)(w)


@pytest.mark.parametrize("fn,why,written", [
    (step_reads_a_run_time_list, "it reads `rows` from here, a value of type list[", "def f(v, rows)"),
    (step_with_default, "it has default values", "def f(v, k, x)"),
])
def test_what_cannot_be_lifted_says_what_to_write(fn, why, written):
    with pytest.raises(UnsupportedSyntaxError) as info:
        sstad.jit(fn, backend="python")(W, X)
    message = str(info.value)
    assert "test_transform_of_closure.py:" in message and why in message
    assert f"define `f` at module level taking those as parameters, `{written}`" in message
