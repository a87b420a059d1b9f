"""Passes that leave out arrays and lists the derivative code would make: ``sum(-x)`` as
``-sum(x)`` (``simplify``), ``(zeros_like(a) + s) * b`` as ``s * b`` behind a shape check
(``shape_speculation``), copies of arrays nothing else reads (``copies``) and lists made
once per loop instead of once per iteration (``hoist_lists``).  Each checked by finite
differences and against the code compiled without the pass where that can be switched."""
import re

import numpy as np
import pytest

import allocation_cases as ac
import list_carry_cases as lcc
import sstad
from sstad.passes.shape_speculation import speculating
from sstad.testing import check_grads


def log_softmax_loss_by_hand(x, target):
    """The gradient of ``ac.log_softmax_loss`` in both arguments, derived by hand."""
    y = 1.5 * x
    softmax = np.exp(y) / np.sum(np.exp(y))
    t = np.broadcast_to(target, y.shape)
    dtarget = y - np.log(np.sum(np.exp(y)))
    return 1.5 * (t - np.sum(t) * softmax), np.sum(dtarget, keepdims=True) if target.shape != y.shape else dtarget


def code(f, *args):
    text = sstad.dump(f, *args, emit="python")
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def test_sum_of_negation_is_negated_sum():
    x, target = np.linspace(-1.0, 1.0, 6), np.linspace(0.0, 1.0, 6)
    text = code(sstad.grad(ac.log_softmax_loss), x, target)
    assert not re.search(r"np\.sum\(\(?-", text) and re.search(r"= -d_t", text), text
    check_grads(ac.log_softmax_loss, (x, target), modes="rev")


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_other_reductions_of_a_negation_keep_it(backend):
    x = np.array([0.3, -0.8, 0.5, 1.1])
    assert sstad.jit(ac.negated_reductions, backend=backend)(x) == pytest.approx(ac.negated_reductions(x), rel=1e-14)
    check_grads(ac.negated_reductions, (x,), modes="rev", backend=backend)


def test_spread_sum_cotangent_multiplies_directly_behind_a_check():
    x, target = np.linspace(-1.0, 1.0, 6), np.linspace(0.0, 1.0, 6)
    with speculating():
        text = code(sstad.grad(ac.log_softmax_loss, argnums=(0, 1)), x, target)
    assert "zeros_like" not in text, text
    for backend in ("python", "numba"):
        g = sstad.jit(sstad.grad(ac.log_softmax_loss, argnums=(0, 1)), backend=backend)(x, target)
        for a, b in zip(g, log_softmax_loss_by_hand(x, target)):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    check_grads(ac.log_softmax_loss, (x, target), modes="rev")


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_spread_cotangent_with_a_real_broadcast_is_right(backend):
    """``target`` (``c``) of shape (1,) broadcasts: the checks fail and the call reruns
    unspeculated.  ``spread_times_smaller`` has no other check than the product's: without
    it, ``3 * c`` sums to a quarter of the value."""
    x, target = np.linspace(-1.0, 1.0, 6), np.array([0.5])
    g = sstad.jit(sstad.grad(ac.log_softmax_loss, argnums=(0, 1)), backend=backend)(x, target)
    for a, b in zip(g, log_softmax_loss_by_hand(x, target)):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    q, c = np.linspace(0.1, 0.4, 4), np.array([0.7])
    assert sstad.jit(ac.spread_times_smaller, backend=backend)(q, c) == pytest.approx(
        ac.spread_times_smaller(q, c), rel=1e-14)
    check_grads(ac.spread_times_smaller, (q, c), modes="rev", backend=backend)


def test_copy_of_an_unread_new_array_is_left_out():
    x = np.linspace(0.1, 0.9, 5)
    assert "np.copy(" not in code(ac.copied_fresh, x)
    assert "np.copy(" in code(ac.copied_still_read, x)
    for f in (ac.copied_fresh, ac.copied_still_read, ac.copied_view):
        for backend in ("python", "numba"):
            given = x.copy()
            assert sstad.jit(f, backend=backend)(given) == pytest.approx(f(x), rel=1e-14)
            np.testing.assert_array_equal(given, x)         # (a copy of a view left out writes into x)
        check_grads(f, (x,), modes="rev")


def test_backward_tapes_of_an_inner_loop_are_made_once():
    w, x = np.linspace(0.5, 1.0, 3), np.linspace(-0.5, 0.5, 4)
    text = code(sstad.grad(ac.rows_per_step), w, x, 4)
    loops = text[text.index("for k"):] if "for k" in text else text
    # the inner loop's forward sweep runs in the outer forward loop, its tapes one list each,
    # made before it: the backward loops make no list (a new list prints as [item][:0])
    assert "[:0]" not in loops and "start" in loops, text
    for backend in ("python", "numba"):
        g = sstad.jit(sstad.grad(ac.rows_per_step), backend=backend)(w, x, 4)
        np.testing.assert_allclose(g, sstad.grad(ac.rows_per_step)(w, x, 4), rtol=1e-13)
    check_grads(ac.rows_per_step, (w, x, 4), modes="rev")


@pytest.mark.parametrize("f", [ac.per_step_lists, lcc.list_kept_across_steps, ac.lists_of_lists,
                               ac.rows_of_a_table])
def test_lists_of_user_loops(f):
    x = np.linspace(0.1, 0.9, 4)
    for backend in ("python", "numba"):
        assert sstad.jit(f, backend=backend)(x, 3) == pytest.approx(f(x, 3), rel=1e-14)
    if f not in (ac.lists_of_lists, ac.rows_of_a_table):     # (reverse mode refuses lists of lists)
        check_grads(f, (x, 3), modes="rev")


def test_only_lists_no_iteration_keeps_are_made_once():
    x = np.linspace(0.1, 0.9, 4)
    emptied = lambda f: re.findall(r"del \w+\[:\]", code(f, x, 3))     # noqa: E731
    assert emptied(ac.per_step_lists)
    assert not emptied(lcc.list_kept_across_steps) and not emptied(ac.lists_of_lists)
    assert not emptied(ac.rows_of_a_table)
