"""A list literal a loop appends to: ``xs = [x0]`` then ``xs.append(x)`` in the body (a
trajectory, a three-term recurrence ``P = [1, x]``).  The literal becomes a run-time list
just before the loop.  Was: refused ("a list literal on one path and a run-time list on
another"), with a hint to start from ``[]``."""
import numpy as np
import pytest

import sstad
from refusals import refused_at
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


def trajectory(x0, a):
    xs = [x0]
    x = x0
    for _ in range(5):
        x = a * np.sin(x) + 0.1
        xs.append(x)
    return np.sum(np.array(xs) ** 2 * np.arange(6)[:, None])


def legendre_recursion(x):
    P = [np.ones_like(x), x]
    for n in range(1, 4):
        P.append(((2 * n + 1) * x * P[n] - n * P[n - 1]) / (n + 1))
    return np.sum(np.stack(P, axis=-1) ** 2 * np.arange(1.0, 6.0))


def losses_until_converged(w, lr):
    losses = [np.sum(w ** 2)]
    while losses[-1] > 1e-3 and len(losses) < 50:
        w = w - lr * 2.0 * w
        losses.append(np.sum(w ** 2))
    return sum(losses) + len(losses)


def numbers_then_nested_reads(x):
    history = [0.0, 1.0]
    for k in range(3):
        total = 0.0
        for h in history:
            total += h * x[k]
        history.append(total + x[0] * history[-1])
    return history[-1] + history[2] ** 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_trajectory_from_its_first_state(backend):
    check_grads(trajectory, (np.array([0.3, -1.2, 2.0]), 0.9), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_three_term_recurrence(backend):
    check_grads(legendre_recursion, (np.linspace(-0.9, 0.8, 5),), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_loop_appends_to_a_literal(backend):
    w = np.array([1.0, -0.5])
    assert sstad.jit(losses_until_converged, backend=backend)(w, 0.2) == pytest.approx(losses_until_converged(w, 0.2))
    check_grads(losses_until_converged, (w, 0.2), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_literal_of_numbers_read_by_an_inner_loop(backend):
    check_grads(numbers_then_nested_reads, (np.array([0.5, -1.0, 2.0]),), backend=backend)


def appended_in_a_branch(x):
    xs = [x]
    if x[0] > 0:
        xs.append(2.0 * x)                                     # ERR branch
    return np.sum(xs[-1])


def test_literal_grown_in_one_branch_is_still_refused_with_what_to_write():
    refused_at(appended_in_a_branch, (np.ones(2),), r"(?s)list literal on one path.*`xs = \[\]`", "# ERR branch")
