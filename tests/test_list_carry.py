"""Reverse mode of loops that carry a run-time list to the next iteration.

A loop that replaces its list by one its body makes (``kept = fresh``) holds another
Python list every iteration: the backward loop recomputes iteration ``j`` on a copy of the
list it started from, and carries the adjoint list of the list it made back to the
iteration before.  A loop that appends to its list (it grows) keeps one list.  Every
value is checked against NumPy, every gradient against finite differences, on both
backends and under every policy.
"""
import numpy as np
import pytest

import list_carry_cases as lc
import sstad
from fd import check_gradient
from sstad.errors import UnsupportedSyntaxError
from sstad.testing import check_grads

BACKENDS = ["python", "numba"]
X = np.linspace(0.1, 0.9, 4)
rng = np.random.default_rng(3)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", lc.CASES, ids=lambda f: f.__name__)
def test_gradient_matches_finite_differences(f, backend):
    assert sstad.jit(f, backend=backend)(X, 3) == pytest.approx(f(X, 3), rel=1e-13)
    check_grads(f, (X, 3), modes="rev", backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_reported_case_compiles_to_the_right_gradient(backend):
    """The IndexError of tests/allocation_cases.py: the backward loop read the adjoint of
    an append it had dropped."""
    g = sstad.jit(sstad.grad(lc.list_kept_across_steps), backend=backend)(X, 3)
    check_gradient(lc.list_kept_across_steps, (X, 3), (g,), rng)


@pytest.mark.parametrize("policy", ["store", "recompute", "auto"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", lc.CASES, ids=lambda f: f.__name__)
def test_every_policy(f, backend, policy):
    g = sstad.jit(sstad.grad(f, policy=policy), backend=backend)(X, 3)
    check_gradient(f, (X, 3), (g,), rng)


@pytest.mark.parametrize("f, steps", [(lc.first_list_read_after_the_loop, 0), (lc.rebuilt_longer_each_step, 0),
                                      (lc.first_list_read_after_the_loop, 1), (lc.appended_then_replaced, 1),
                                      (lc.several_appends_first_and_last, 4), (lc.rebuilt_or_copied, 5),
                                      (lc.appended_first_read_after, 0), (lc.appended_first_read_after, 1),
                                      (lc.written_first_read_after, 0), (lc.written_first_read_after, 1),
                                      (lc.popped_first_read_after, 0), (lc.popped_first_read_after, 1)])
def test_trip_counts(f, steps):
    """No iteration: the loop's result is its initial list, which gets its adjoint.  One:
    the first iteration's list is the initial list, changed by the body."""
    g = sstad.grad(f)(X, steps)
    check_gradient(f, (X, steps), (g,), rng)


def test_a_list_swapped_with_another_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="replaces the list") as err:
        sstad.grad(lc.swapped)(X, 3)
    assert "list_carry_cases.py" in str(err.value)


def test_a_list_replaced_on_some_steps_only_is_refused():
    """An `if` choosing between the carried list and a new one: refused at the `if`."""
    with pytest.raises(UnsupportedSyntaxError, match="chosen by an `if`") as err:
        sstad.grad(lc.rebuilt_on_some_steps)(X, 3)
    assert "list_carry_cases.py:" in str(err.value) and "if t % 2 == 0" in str(err.value)


def test_a_second_derivative_is_refused_at_the_loop():
    first = sstad.grad(lc.scaled_kept)
    check_gradient(lc.scaled_kept, (0.7, 3), (first(0.7, 3),), rng)
    with pytest.raises(UnsupportedSyntaxError, match="replaces it by a new one") as err:
        sstad.grad(first)(0.7, 3)
    assert "list_carry_cases.py:" in str(err.value) and "for t in range(steps)" in str(err.value)
