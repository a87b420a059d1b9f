"""Compiled results have NumPy's types: ``np.sum`` of float64 gives ``np.float64``, not a
Python float (Numba returns float64, int64 and bool scalars as Python numbers, which
NumPy's promotion takes as weak: ``x32 * np.sum(y64)`` stays float32 with a Python float,
float64 with NumPy's result)."""
import numpy as np
import pytest

import sstad
from result_type_cases import all_positive, loss, mean_and_count, python_number, total, where_largest

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
ARRAYS = [np.arange(1.0, 4.0), np.arange(1.0, 4.0, dtype=np.float32), np.arange(1, 4)]
X32 = np.ones(2, dtype=np.float32)


def types_of(value):
    return tuple(map(types_of, value)) if isinstance(value, tuple) else type(value)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [total, where_largest, all_positive, mean_and_count, python_number])
def test_scalar_results_have_numpys_types(fn, backend):
    for a in ARRAYS:
        got, want = sstad.jit(fn, backend=backend)(a), fn(a)
        assert types_of(got) == types_of(want), (a.dtype, got, want)
        first = got[0] if isinstance(got, tuple) else got
        expected = want[0] if isinstance(want, tuple) else want
        assert (X32 * first).dtype == (X32 * expected).dtype


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_gradient_of_a_number_is_numpys_float(backend):
    value, grad = sstad.jit(sstad.value_and_grad(loss), backend=backend)(0.5)
    assert type(value) is np.float64 and type(grad) is np.float64
