"""np.triu_indices, np.tril_indices and np.diag_indices (runtime/composites_index.py):
the same index arrays as NumPy for sizes known only at run time, and fancy assignment
through them differentiated in both modes."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


def index_arrays(x, k):
    n = x.shape[0]
    return (np.triu_indices(n) + np.triu_indices(n, 1) + np.triu_indices(n, k, n + 1)
            + np.triu_indices(n, k=-k, m=n - 1) + np.tril_indices(n) + np.tril_indices(n, -1)
            + np.tril_indices(n, k, n + 2) + np.diag_indices(n) + np.diag_indices(n, 3))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize("k", [-2, 0, 1, 6])
def test_index_arrays_match_numpy(n, k, backend):
    x = np.ones(n)
    got = sstad.jit(index_arrays, backend=backend)(x, k)
    want = index_arrays(x, k)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w)


def triangular_factors(icf, x):
    """ADBench's GMM factors: icf[:, d:] fills each strictly lower triangle column by column."""
    k, d = icf.shape[0], x.shape[0]
    cols, rows = np.triu_indices(d, 1)
    Ls = np.zeros((k, d, d))
    Ls[:, rows, cols] = icf[:, d:]
    diag = np.diag_indices(d)
    Ls[:, diag[0], diag[1]] = np.exp(icf[:, :d])
    return np.sum((Ls @ x) ** 2)


def factor_per_component(icf, x):
    d = x.shape[0]
    lower = np.tril_indices(d, -1)
    total = 0.0
    for ik in range(icf.shape[0]):
        Q = np.diag(np.exp(icf[ik, :d]))
        Q[lower] = icf[ik, d:]
        total += np.sum((Q @ x) ** 2)
    return total


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [triangular_factors, factor_per_component])
def test_fancy_assignment_through_triangle_indices(fn, backend):
    rng = np.random.default_rng(3)
    check_grads(fn, (rng.normal(size=(2, 6)) * 0.5, rng.normal(size=3)), modes=("rev", "fwd"), backend=backend)
