"""A number where NumPy takes an array (``np.atleast_1d(x[0, 0])``, ``np.stack([a, b])`` of
numbers, ``np.cumsum`` of a number): value, dtype and shape as NumPy's on both backends
(Numba's functions take arrays only), and derivatives against finite differences."""
import numpy as np
import pytest

import scalar_argument_cases as cases
import sstad
from sstad.testing import check_grads

A = np.array([[1.5, 2.0, 3.0], [4.0, 0.5, 2.0], [3.0, 1.0, 5.0]])


@pytest.mark.parametrize("fn", cases.CASES, ids=[f.__name__ for f in cases.CASES])
def test_each_on_python(fn):
    got, want = sstad.jit(fn, backend="python")(A), fn(A)
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_all_on_numba():
    for fn in cases.CASES:
        got, want = sstad.jit(fn, backend="numba")(A), fn(A)
        assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype, fn.__name__
        np.testing.assert_allclose(got, want, rtol=1e-14, err_msg=fn.__name__)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_derivatives(backend):
    check_grads(cases.every_one, (A,), backend=backend)
