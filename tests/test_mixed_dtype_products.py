"""``@``, np.matmul, dot, inner and vdot of operands whose dtypes differ (a float vector
times np.arange, float32 weights times float64 data) or are integers or booleans: NumPy
promotes them, while Numba's products take float or complex arrays of one dtype only.
Values, dtypes and derivatives as NumPy's, on both backends."""
import numpy as np
import pytest

import sstad
from mixed_product_cases import every_product, integer_products, weighted_positions
from sstad.testing import check_grads

BACKENDS = ["python", "numba"]
R = np.random.default_rng(0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_floats_times_integers_and_float32(backend):
    check_grads(weighted_positions, (R.normal(size=4),), backend=backend)
    args = (R.normal(size=(3, 3)), np.arange(3), np.arange(3) + 1, R.normal(size=3).astype(np.float32))
    check_grads(every_product, args, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_and_boolean_products_keep_their_dtype(backend):
    args = (np.arange(4), np.arange(4) + 2, np.arange(16).reshape(4, 4))
    got, want = sstad.jit(integer_products, backend=backend)(*args), integer_products(*args)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)
