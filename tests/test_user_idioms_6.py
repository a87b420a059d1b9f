"""Idioms the sixth batch of user programs met beyond its own programs, each failing before
its fix: ``with np.errstate(...)`` around a computation (was "`with` is not supported")."""
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
