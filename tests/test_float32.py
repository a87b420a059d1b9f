"""float32 stays float32 end to end, as NumPy keeps it (NEP 50), on both backends:
Numba would promote a float32 array combined with a Python number or an int to float64."""
import numpy as np
import pytest

import float32_cases as fc
import sstad
from sstad.testing import check_grads

rng = np.random.default_rng(2)
F32 = np.float32
MLP_ARGS = [rng.normal(size=s).astype(F32) for s in [(4, 8), (8,), (8, 2), (2,), (5, 4), (5, 2)]]
BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_float32_mlp_and_its_gradient_stay_float32(backend):
    value = sstad.jit(fc.mlp, backend=backend)(*MLP_ARGS)
    grads = sstad.jit(sstad.grad(fc.mlp, argnums=(0, 1, 2, 3)), backend=backend)(*MLP_ARGS)
    assert isinstance(value, np.float32) and value == pytest.approx(fc.mlp(*MLP_ARGS), rel=1e-5)
    assert all(g.dtype == F32 for g in grads)
    check_grads(fc.mlp, MLP_ARGS, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_numbers_and_ints_do_not_promote_float32(backend):
    x = rng.uniform(0.0, 1.0, 6).astype(F32)
    value = sstad.jit(fc.scaled, backend=backend)(x)
    assert isinstance(value, np.float32)
    assert value == pytest.approx(fc.scaled(x), rel=1e-6)
    assert sstad.jit(sstad.grad(fc.scaled), backend=backend)(x).dtype == F32


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_of_float32_numbers_keeps_its_dtype(backend):
    """Numba's trace of float32 is float64; the list holds float32 as NumPy's does."""
    x = np.ones(3)
    assert sstad.jit(fc.traces_in_a_list, backend=backend)(x) == fc.traces_in_a_list(x)
