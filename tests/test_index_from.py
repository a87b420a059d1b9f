"""np.diag_indices_from, np.triu_indices_from and np.tril_indices_from
(runtime/composites_index.py): NumPy's index arrays of an array's shape, known only at run
time, and writes through them differentiated; an array NumPy refuses is refused."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


def indices_from(A, C, k):
    return np.diag_indices_from(A) + np.triu_indices_from(A) + np.triu_indices_from(A, k) \
        + np.tril_indices_from(A, k=k) + np.diag_indices_from(C)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n, m, k", [(0, 0, 0), (3, 3, 1), (3, 5, -1), (5, 2, 2)])
def test_index_arrays_match_numpy(n, m, k, backend):
    A, C = np.ones((n, m)), np.ones((n, n, n))
    fn = indices_from if n == m else rectangular_indices_from    # diag_indices_from needs equal sides
    got, want = sstad.jit(fn, backend=backend)(A, C, k), fn(A, C, k)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w)


def rectangular_indices_from(A, C, k):
    return np.triu_indices_from(A) + np.triu_indices_from(A, k) + np.tril_indices_from(A, k=k) \
        + np.diag_indices_from(C)


def ridge_inverse(A):
    B = A @ A.T
    B[np.diag_indices_from(B)] += 1.0
    L = np.linalg.cholesky(B)
    return np.sum(L[np.tril_indices_from(L, -1)] ** 2) + np.sum(np.linalg.inv(B)[np.triu_indices_from(B)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_and_reads_through_them_have_derivatives(backend):
    check_grads(ridge_inverse, (np.random.default_rng(2).normal(size=(3, 3)),), backend=backend)


def test_diag_indices_from_unequal_sides_is_refused_at_run_time():
    with pytest.raises((AssertionError, sstad.errors.RunTimeRefusal), match="all dimensions of input must be of equal length"):
        sstad.jit(ridge_inverse_rectangular, backend="python")(np.ones((2, 3)))


def ridge_inverse_rectangular(A):
    A = A.copy()
    A[np.diag_indices_from(A)] += 1.0
    return A.sum()
