"""Reverse mode of loops stores the body's intermediates or recomputes them (``policy=``);
every policy gives the derivative finite differences give, and "store" leaves no
recomputed forward primitive in the backward loop."""
import re

import numpy as np
import pytest

import sstad
import store_cases as sc
from fd import check_gradient, directional_derivative

POLICIES = ["store", "recompute", "auto"]
rng = np.random.default_rng(7)
X = np.array([0.3, -0.8, 0.5, 1.1, -0.2])
W = 0.7


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("fn", sc.PROGRAMS, ids=lambda f: f.__name__)
def test_every_policy_matches_finite_differences(fn, policy):
    grads = sstad.grad(fn, argnums=(0, 1), policy=policy)(X.copy(), W)
    check_gradient(fn, (X.copy(), W), grads, rng)


@pytest.mark.parametrize("fn", [sc.nested, sc.in_place_write, sc.branch_in_body], ids=lambda f: f.__name__)
def test_stored_residuals_under_numba(fn):
    grads = sstad.jit(sstad.grad(fn, argnums=(0, 1), policy="store"), backend="numba")(X.copy(), W)
    check_gradient(fn, (X.copy(), W), grads, rng)


@pytest.mark.parametrize("policy", ["store", "recompute"])
def test_second_derivative_through_a_storing_loop(policy):
    def dfdw(w):
        return sstad.grad(sc.for_tanh, argnums=1, policy=policy)(X.copy(), w)
    second = sstad.grad(sstad.grad(sc.for_tanh, argnums=1, policy=policy), argnums=1, policy=policy)(X.copy(), W)
    expected = directional_derivative(dfdw, (W,), (1.0,), 1.0)
    assert second == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("outer", ["store", "auto"])
def test_second_derivative_through_a_stored_nested_loop(outer):
    """Under "store" a nested loop's tapes are one list each, grown by every outer
    iteration and read at where that iteration started: a list of arrays, which a second
    derivative differentiates as any other."""
    def dfdw(w):
        return sstad.grad(sc.nested, argnums=1, policy="store")(X.copy(), w)
    second = sstad.grad(sstad.grad(sc.nested, argnums=1, policy="store"), argnums=1, policy=outer)(X.copy(), W)
    assert second == pytest.approx(directional_derivative(dfdw, (W,), (1.0,), 1.0), rel=1e-6)


def test_a_stored_nested_loop_tapes_one_list_per_tape():
    text = sstad.dump(sstad.grad(sc.nested, argnums=(0, 1), policy="store", tape_budget=None), X, W)
    assert "list[list[" not in text, text


def emitted(fn, policy):
    """The emitted gradient's code, without its comments (which quote the user's lines);
    without a tape budget, whose segments' rerun is one more copy of each forward loop."""
    text = sstad.dump(sstad.grad(fn, argnums=(0, 1), policy=policy, tape_budget=None), X, W, emit="python")
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def test_store_leaves_no_recomputation_in_the_backward_loop():
    assert emitted(sc.for_tanh, "recompute").count("np.tanh(") == 2
    assert emitted(sc.for_tanh, "store").count("np.tanh(") == 1
    assert emitted(sc.scalar_reads, "store").count("np.exp(") == 1


def test_store_runs_an_inner_loop_forward_once():
    """Under "store" the inner loop's forward sweep, with its tapes, runs in the outer
    forward loop: two loops forward, two backward; recomputing adds the inner loop's
    forward sweep inside the outer backward loop."""
    assert emitted(sc.nested, "store").count("for ") == 4
    assert emitted(sc.nested, "recompute").count("for ") == 5


def test_auto_runs_an_inner_loop_forward_once():
    """Under "auto" too the inner loop's forward sweep moves into the outer forward loop,
    where its tapes can be one list each: the outer backward loop reruns nothing."""
    assert emitted(sc.nested, "auto").count("for ") == 4


NESTED = [sc.nested, sc.nested_tanh, sc.nested_in_place]


@pytest.mark.parametrize("budget", [None, "auto", 2000], ids=["no_budget", "default", "segments"])
@pytest.mark.parametrize("fn", NESTED, ids=lambda f: f.__name__)
def test_a_hoisted_inner_loop_gives_the_recomputed_gradient(fn, budget):
    """Equal bit for bit to recomputing (the same operations in the same order), and to
    finite differences; a budget of 2000 bytes makes the outer loop's segments run the
    hoisted inner loop again."""
    grads = sstad.grad(fn, argnums=(0, 1), tape_budget=budget)(X.copy(), W)
    check_gradient(fn, (X.copy(), W), grads, rng)
    again = sstad.grad(fn, argnums=(0, 1), policy="recompute", tape_budget=None)(X.copy(), W)
    assert all(np.array_equal(a, b) for a, b in zip(grads, again))


def test_the_lstm_benchmark_under_every_budget():
    """The ADBench LSTM's layer loop, hoisted, on a small instance: recomputing matches
    finite differences, and the hoisted gradient equals it bit for bit under every budget, and compiled under the default one (to 1e-13: Numba's
    fused loops round differently from NumPy's)."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
    from lstm import lstm_objective
    r = np.random.default_rng(3)
    b, layers, c = 3, 2, 12
    args = (r.normal(size=(2 * layers, 4 * b)), r.normal(size=(3, b)), r.normal(size=(2 * layers, b)),
            r.normal(size=(c, b)))
    expected = sstad.grad(lstm_objective, argnums=(0, 1), policy="recompute", tape_budget=None)(*args)
    check_gradient(lambda m, e: lstm_objective(m, e, args[2], args[3]), args[:2], expected, rng)
    for budget, backend in ((None, "python"), ("auto", "python"), (3000, "python"), ("auto", "numba")):
        got = sstad.jit(sstad.grad(lstm_objective, argnums=(0, 1), tape_budget=budget), backend=backend)(*args)
        for a, e in zip(got, expected):
            if backend == "python":
                assert np.array_equal(a, e)
            else:
                np.testing.assert_allclose(a, e, rtol=1e-13, atol=1e-15)


def test_auto_keeps_matrix_products_and_remakes_elementwise_arrays():
    """A fresh array per iteration costs more than an elementwise operation on it, less
    than a matrix product (docs/performance.md, "Store or recompute")."""
    def vector_per_step(x, w):
        s = 0.0
        for i in range(3):
            s = s + np.sum(np.sin(x * (w + s)))
        return s

    def product_per_step(x, w):
        a = np.outer(x, x) * 0.1
        h = x * w
        for i in range(3):
            h = np.tanh(a @ h)
        return np.sum(h)
    array_tape = "[np.empty((0,), np.float64)][:0]"         # an empty typed list of arrays
    assert array_tape not in emitted(vector_per_step, "auto")   # x * (w + s) is remade
    assert array_tape in emitted(vector_per_step, "store")
    assert emitted(product_per_step, "auto").count(" @ ") == emitted(product_per_step, "store").count(" @ ")
    assert emitted(product_per_step, "recompute").count(" @ ") > emitted(product_per_step, "auto").count(" @ ")
    for fn in (vector_per_step, product_per_step):
        grads = sstad.grad(fn, argnums=(0, 1))(X.copy(), W)
        check_gradient(fn, (X.copy(), W), grads, rng)


def test_auto_keeps_library_functions_of_a_loop_rerun_in_a_backward_loop():
    """``nested_tanh``'s inner loop is rerun in each iteration of the outer backward loop:
    under "auto" its ``np.tanh`` results go on tapes emptied per outer iteration, so the
    inner backward loop reads them instead of calling ``np.tanh`` again; the outer loop
    (whose tapes would live through the whole call) still remakes its ``np.exp``."""
    auto, recompute = emitted(sc.nested_tanh, "auto"), emitted(sc.nested_tanh, "recompute")
    assert auto.count("np.tanh(") == recompute.count("np.tanh(") - 1
    assert auto.count("np.exp(") == recompute.count("np.exp(")
    exp = re.search(r"(\w+) = np\.exp\(", auto).group(1)
    assert f".append({exp})" not in auto, auto      # (stored, it moves to the forward loop: same count)
    for backend in ("python", "numba"):
        grads = sstad.jit(sstad.grad(sc.nested_tanh, argnums=(0, 1)), backend=backend)(X.copy(), W)
        check_gradient(sc.nested_tanh, (X.copy(), W), grads, rng)


def test_an_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="policy='fast'"):
        sstad.grad(sc.for_tanh, policy="fast")
