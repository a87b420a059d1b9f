"""NumPy's booleans add as logical or and multiply as logical and (``True + True`` is
``True``), also where the numba backend fuses a chain of them into one loop over
elements, which Numba would otherwise compute on Python bools (``True + True == 2``)."""
import numpy as np
import pytest

import sstad


def pairs_then_scale(a):
    return (a[1:] + a[:-1]) * 1.5


def product_plus(a, b):
    return (a * b + a) * 2.0


def ufunc_chain(a, b):
    return np.add(a, b) * np.multiply(a, b) + 0.5


def elementwise_sum(a, b):
    return np.sum(a[0] + b[0]) + np.sum((a + b) * 3)


A = np.array([[True, False, True], [True, True, False], [False, True, True]])
B = A.T.copy()


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("fn, args", [(pairs_then_scale, (A,)), (product_plus, (A, B)),
                                      (ufunc_chain, (A, B)), (elementwise_sum, (A, B))],
                         ids=["pairs", "product", "ufuncs", "sums"])
def test_boolean_arithmetic_is_numpys(fn, args, backend):
    want = fn(*args)
    got = sstad.jit(fn, backend=backend)(*args)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)
