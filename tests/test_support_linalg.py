"""``np.linalg.matrix_rank`` of a stack of matrices ``(k, n, n)`` and with ``hermitian=True``
under Numba (whose np.linalg.matrix_rank takes one matrix and ``tol`` only): the rank of
each matrix, as NumPy counts it, on both backends."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


def ranks(a):
    return np.linalg.matrix_rank(a)


def ranks_with_options(a, t):
    return (np.linalg.matrix_rank(a, tol=t), np.linalg.matrix_rank(a, rtol=0.1),
            np.linalg.matrix_rank(a, hermitian=True), np.linalg.matrix_rank(a[0], hermitian=True),
            np.linalg.matrix_rank(a[0], 0.3, True))


def rank_weighted(a):
    r = np.linalg.matrix_rank(a)
    return np.sum(a) * r[0] + np.sum(a ** 2) * r[1]


def deficient_stack():
    r = np.random.default_rng(0)
    a = r.normal(size=(3, 4, 4))
    a[1, 3] = a[1, 0] + 2.0 * a[1, 1]                       # rank 3
    a[2] = np.outer(a[2, 0], a[2, 1])                       # rank 1
    a[2, 1, 1] += 1e-3                                      # rank 2, with a small singular value
    return a


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_rank_of_each_matrix_of_a_stack(backend):
    a = deficient_stack()
    for stack in (a, a.astype(np.float32), np.round(a * 3).astype(np.int64), a.reshape(3, 1, 4, 4)):
        got = sstad.jit(ranks, backend=backend)(stack)
        assert got.dtype == np.int64 and got.tolist() == ranks(stack).tolist()
    symmetric = a + np.swapaxes(a, 1, 2)
    for stack in (a, symmetric):
        for t in (1e-2, 0.5):
            got = sstad.jit(ranks_with_options, backend=backend)(stack, t)
            want = ranks_with_options(stack, t)
            assert [np.asarray(g).tolist() for g in got] == [np.asarray(w).tolist() for w in want]
    assert ranks(a).tolist() == [4, 3, 2]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rank_in_a_differentiated_function_is_a_constant_factor(backend):
    check_grads(rank_weighted, (np.random.default_rng(1).normal(size=(2, 3, 3)),), backend=backend)
