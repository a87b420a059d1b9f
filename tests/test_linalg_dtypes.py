"""NumPy's linalg takes integer and boolean arrays (computing in float64) and mixed
precisions (computing in the wider), and np.trace and np.linalg.matrix_power keep
integers integers; Numba's routines take one float dtype only.  Values and dtypes as
NumPy's, and derivatives against finite differences, on both backends."""
import numpy as np
import pytest

import sstad
from linalg_dtype_cases import every_routine, mixed_precision_solve, weighted_inverse
from sstad.testing import check_grads

BACKENDS = ["python", "numba"]
A = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32])
def test_values_and_dtypes_as_numpy(backend, dtype):
    args = (A.astype(dtype), np.array([1, 2, 3]))
    got, want = sstad.jit(every_routine, backend=backend)(*args), every_routine(*args)
    for k, (g, w) in enumerate(zip(got, want)):
        assert np.asarray(g).dtype == np.asarray(w).dtype, k
        np.testing.assert_allclose(g, w, rtol=1e-5 if dtype == np.float32 else 1e-12, err_msg=str(k))


@pytest.mark.parametrize("backend", BACKENDS)
def test_derivatives_beside_an_integer_matrix(backend):
    w = np.random.default_rng(0).normal(size=(3, 3))
    check_grads(weighted_inverse, (A, w), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_derivatives_of_float32_with_float64(backend):
    b = np.random.default_rng(1).normal(size=3)
    check_grads(mixed_precision_solve, (A.astype(np.float64) + 0.5, b), backend=backend)
    out = sstad.jit(sstad.grad(mixed_precision_solve, argnums=(0, 1)), backend=backend)(A.astype(np.float32), b)
    assert out[0].dtype == np.float32 and out[1].dtype == np.float64
