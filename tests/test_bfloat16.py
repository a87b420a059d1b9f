"""bfloat16 (ml_dtypes) arguments: differentiated like any float on the python backend
(ml_dtypes' floats have NumPy kind "V", so every float test in the compiler asks
``abstract.is_float``); Numba has no bfloat16, which is a clear error."""
import ml_dtypes
import numpy as np
import pytest

import sstad
from sstad.errors import BackendError
from sstad.runtime.abstract import is_float, is_inexact
from sstad.testing import check_grads

BF16 = ml_dtypes.bfloat16
W = np.array([[0.5, -0.25, 0.75], [0.125, 1.0, -0.5]])
X = np.array([[1.0, 2.0], [0.5, -1.0], [0.25, 0.75], [-1.5, 0.5]])


def mlp(w, x):
    h = np.tanh(x @ w)
    return np.sum(h * h)


def running(w, x):
    s = w[0, 0] * 0.0
    for i in range(x.shape[0]):
        s = s + np.sin(x[i, 0] * w[0, i % 3]) ** 2
    return s


def test_is_float_knows_ml_dtypes_floats():
    assert is_float(BF16) and is_float(ml_dtypes.float8_e4m3fn) and is_float(np.float16)
    assert not is_float(ml_dtypes.int4) and not is_float(np.int8) and not is_float(np.complex64)
    assert is_inexact(np.complex64) and is_inexact(BF16) and not is_inexact(np.bool_)


@pytest.mark.parametrize("fn", [mlp, running])
def test_reverse_mode_on_bfloat16_matches_float64_of_the_rounded_inputs(fn):
    w, x = W.astype(BF16), X.astype(BF16)
    g = sstad.jit(sstad.grad(fn), backend="python")(w, x)
    exact = sstad.grad(fn)(w.astype(np.float64), x.astype(np.float64))
    assert g.dtype == BF16 and g.shape == W.shape
    np.testing.assert_allclose(g.astype(np.float64), exact, rtol=3e-2, atol=2e-2)


@pytest.mark.parametrize("fn", [mlp, running])
def test_forward_mode_on_bfloat16_gives_the_tangent(fn):
    w, x = W.astype(BF16), X.astype(BF16)
    v = np.ones_like(W)
    _, t = sstad.jit(sstad.pushforward(fn), backend="python")(w, x, v.astype(BF16), np.zeros_like(x))
    _, exact = sstad.pushforward(fn)(w.astype(np.float64), x.astype(np.float64), v, np.zeros_like(X))
    assert abs(float(exact)) > 0.1
    np.testing.assert_allclose(float(t), exact, rtol=3e-2)


def test_numba_has_no_bfloat16_a_clear_error_at_the_function():
    with pytest.raises(BackendError, match=r"test_bfloat16.py:\d+.*Numba has no bfloat16 type") as info:
        sstad.jit(sstad.grad(mlp), backend="numba")(W.astype(BF16), X.astype(BF16))
    assert "backend='python'" in str(info.value)


def test_check_grads_refuses_bfloat16_finite_differences():
    with pytest.raises(ValueError, match="bfloat16 are too coarse"):
        check_grads(mlp, (W.astype(BF16), X.astype(BF16)), backend="python")
