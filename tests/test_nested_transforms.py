"""``sstad.grad(f)`` inside a function that is itself compiled or differentiated."""
import numpy as np
import pytest

import nested_transform_cases as nc
import sstad
from sstad.testing import check_grads

X = np.array([0.3, -0.2, 0.5])
W = np.array([1.0, 2.0, -0.5])


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("fn", [nc.gradient_penalty, nc.value_and_slope])
def test_a_transform_inside_compiled_code(fn, backend):
    assert sstad.jit(fn, backend=backend)(X, W) == pytest.approx(fn(X, W), rel=1e-12)
    check_grads(fn, (X, W), backend=backend)
