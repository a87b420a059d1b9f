"""``where=`` and ``initial=`` of NumPy's reductions (``np.mean(err ** 2, where=valid)``),
once refused: values, dtypes and shapes against NumPy on float64, float32 and int64
arrays, derivatives against finite differences."""
import numpy as np
import pytest

import sstad
from masked_reduction_cases import LOGICAL, SMOOTH
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
X = np.arange(1.0, 13.0).reshape(3, 4) ** 0.7 / 2
INPUTS = [X, X.astype(np.float32), (3 * X).astype(np.int64)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", SMOOTH + LOGICAL, ids=lambda f: f.__name__)
def test_values_as_numpys(fn, backend):
    for x in INPUTS:
        got, want = np.asarray(sstad.jit(fn, backend=backend)(x)), np.asarray(fn(x))
        assert got.dtype == want.dtype and got.shape == want.shape, (x.dtype, got, want)
        np.testing.assert_allclose(got, want, rtol=1e-6 if x.dtype == np.float32 else 1e-13)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", SMOOTH, ids=lambda f: f.__name__)
def test_derivatives(fn, backend):
    check_grads(fn, (X,), backend=backend)
