"""Idioms the sixth batch of user programs met beyond its own programs, each failing before
its fix: ``with np.errstate(...)`` around a computation (was "`with` is not supported"),
``np.fill_diagonal`` (an in-place write, as NT-Xent masks its similarities) and
``np.put_along_axis``."""
import numpy as np
import pytest

import sstad
from refusals import refused_at
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


def log_where_positive(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(x)
        ratio = x[1:] / x[:-1]
    return np.sum(np.where(np.isfinite(logs), logs, 0.0) * x) + np.sum(ratio ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_errstate_block_is_compiled_as_it_stands(backend):
    check_grads(log_where_positive, (np.array([0.5, 1.5, 2.0]),), backend=backend)
    with np.errstate(divide="ignore"):
        expected = log_where_positive(np.array([0.0, 1.5, 2.0]))
    assert sstad.jit(log_where_positive, backend=backend)(np.array([0.0, 1.5, 2.0])) == expected


def other_context_manager(x):
    with np.printoptions(precision=3):                         # ERR with
        y = x * 2.0
    return np.sum(y)


def test_other_context_managers_are_still_refused_at_their_line():
    refused_at(other_context_manager, (np.ones(2),), r"`with` is not supported", "# ERR with")


# --- np.fill_diagonal (was: "call to `np.fill_diagonal` is not supported: ... unexpected
#     result of type NoneType") ---------------------------------------------------------------

def nt_xent_fill_diagonal(z, temperature):
    z = z / np.linalg.norm(z, axis=1, keepdims=True)
    sim = z @ z.T / temperature
    np.fill_diagonal(sim, -np.inf)
    n = len(z)
    positives = sim[np.arange(n), (np.arange(n) + n // 2) % n]
    top = sim.max(axis=1)
    return -np.mean(positives - top - np.log(np.sum(np.exp(sim - top[:, None]), axis=1)))


def diagonals_of_every_shape(a, d):
    wide = np.outer(a[:2], a) * 1.0
    tall = np.outer(a, a[:2]) * 1.0
    square = np.outer(a, a)
    np.fill_diagonal(wide, d[0])
    np.fill_diagonal(tall, d[:2])
    top = square[:2]                                          # a view: the write reaches square
    np.fill_diagonal(top, 0.5)
    return np.sum(wide ** 2) + np.sum(np.sin(tall)) + np.sum(square ** 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fill_diagonal_in_place(backend):
    r = np.random.default_rng(3)
    check_grads(nt_xent_fill_diagonal, (r.normal(size=(4, 3)), 0.5), backend=backend)
    check_grads(diagonals_of_every_shape, (np.array([0.5, -1.0, 2.0]), np.array([0.3, 0.7])), backend=backend)


def fill_diagonal_wrapped(a):
    m = np.outer(a, a)
    np.fill_diagonal(m, 0.0, wrap=True)                        # ERR wrap
    return np.sum(m)


def test_fill_diagonal_wrap_is_refused_at_its_line():
    refused_at(fill_diagonal_wrapped, (np.ones(2),), r"wrap=True\) is not supported", "# ERR wrap")


# --- np.put_along_axis (was: "call to `np.put_along_axis` is not supported: ... unexpected
#     result of type NoneType") ---------------------------------------------------------------

def scatter_best_scores(scores, values):
    """Write each row's value at its best column (a one-hot target, as a ranking loss builds)."""
    target = np.zeros_like(scores)
    best = np.argmax(scores, axis=1)[:, None]
    np.put_along_axis(target, best, values[:, None], axis=1)
    columns = np.full((1, scores.shape[1]), 0.25) * values[0]
    np.put_along_axis(target, np.array([[2, 0, 1]]), columns, axis=0)
    return np.sum((scores - target) ** 2 * np.arange(1.0, scores.shape[1] + 1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_put_along_axis_in_place(backend):
    r = np.random.default_rng(4)
    check_grads(scatter_best_scores, (r.normal(size=(4, 3)), r.normal(size=4)), backend=backend)


def put_along_flat(a, v):
    np.put_along_axis(a, np.array([0, 2]), v, axis=None)       # ERR put
    return np.sum(a)


def test_put_along_axis_none_is_refused_at_its_line():
    refused_at(put_along_flat, (np.ones(3), np.ones(2)), r"axis=None\) is not supported", "# ERR put")
