"""np.linalg.norm of integer and boolean arrays: NumPy casts them to float64 first, and so
does the compiled code (Numba's norm takes floats only: it failed to compile)."""
import numpy as np
import pytest

from sstad.testing import check_grads


def weighted_by_integer_norms(x, idx, A_int):
    mask = x > 0
    return (np.linalg.norm(idx) * x.sum() + np.linalg.norm(A_int, 1) * x[0] + np.linalg.norm(idx, np.inf) * x[1]
            + np.sum(np.linalg.norm(A_int, axis=1) * x) + np.linalg.norm(A_int) * x[2] + np.linalg.norm(mask) * x[0]
            + np.sum(np.linalg.norm(A_int, axis=0, keepdims=True)) * x[1])


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_norms_of_integer_arrays(backend):
    r = np.random.default_rng(3)
    check_grads(weighted_by_integer_norms, (r.normal(size=3), np.array([0, 2, 1]), r.integers(-2, 3, size=(3, 3))),
                backend=backend)
