"""np.add.at's values broadcast against ``x[indices]`` (NumPy's rule): a number
(``np.add.at(degree, edges, 1)``, a mesh's vertex degrees), a row added at every index, a
column per index.  Under Numba the scatter loop read ``values[k]`` for the k-th index
whatever their shape: a number did not compile, and a row was read past its end (a wrong
value, silently)."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


def vertex_degree_weighted(x, idx):
    degree = np.zeros(4)
    np.add.at(degree, idx, 1)
    return np.sum(degree * x ** 2)


def row_at_every_index(x, idx, v):
    M = np.zeros((4, 3))
    np.add.at(M, idx, v * x[0])
    return np.sum(M * x)


def column_per_index(x, idx, c):
    M = np.zeros((4, 3))
    np.add.at(M, idx, c[:, None] * x[0, 0])
    return np.sum(M * x)


def pairs_of_indices(x, rows, cols, v):
    M = np.zeros((4, 3, 2))
    np.add.at(M, (rows, cols), v * x[0, 0])
    return np.sum(M * x)


def _cases():
    r = np.random.default_rng(0)
    idx = np.array([0, 2, 2, 3, 0])
    return [(vertex_degree_weighted, (r.normal(size=4), idx)),
            (row_at_every_index, (r.normal(size=(4, 3)), idx, np.array([1.0, 2.0, 3.0]))),
            (column_per_index, (r.normal(size=(4, 3)), idx, np.arange(5.0))),
            (pairs_of_indices, (r.normal(size=(4, 3, 2)), np.array([0, 1, 1, 3]), np.array([2, 0, 0, 1]),
                                np.array([0.5, -1.0])))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(4), ids=[c[0].__name__ for c in _cases()])
def test_values_broadcast_as_numpys(case, backend):
    fn, args = _cases()[case]
    assert sstad.jit(fn, backend=backend)(*args) == pytest.approx(fn(*args), rel=1e-12)
    check_grads(fn, args, backend=backend)
