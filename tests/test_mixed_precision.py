"""sstad.optim.mixed_precision: float32 master weights, float16 compute, dynamic loss
scaling; what works on which backend."""
import numpy as np
import pytest

import sstad
from sstad import optim
from sstad.errors import BackendError


def params32():
    return {"W": np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(3, 2), "b": np.zeros(2, np.float32)}


def loss(p, x, scale):
    return np.sum(np.tanh(x @ p["W"] + p["b"]) ** 2) * scale


def x_data(dtype):
    return np.linspace(-2.0, 2.0, 12).reshape(4, 3).astype(dtype)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_an_overflow_skips_the_step_and_halves_the_scale(bad):
    mp = optim.mixed_precision(optim.adam(0.1, backend="python"), "float16", init_scale=1024.0)
    params = params32()
    state = mp.init(params)
    grads = {"W": np.ones((3, 2), np.float16), "b": np.array([1.0, bad], np.float16)}
    new_params, new_state = mp.update(grads, state, params)
    assert new_state.loss_scale == 512.0 and new_state.skipped == 1 and new_state.good_steps == 0
    assert new_state.inner.count == 0
    for k in params:
        assert np.array_equal(new_params[k], params[k])
    grads["b"][1] = 1.0
    new_params, new_state = mp.update(grads, new_state, new_params)
    assert new_state.inner.count == 1 and new_state.loss_scale == 512.0 and new_state.good_steps == 1
    assert not np.array_equal(new_params["W"], params["W"])


def test_the_scale_grows_after_n_clean_steps_and_stays_finite_in_float16():
    mp = optim.mixed_precision(optim.sgd(0.1, backend="python"), "float16", init_scale=2.0 ** 13,
                               growth_interval=3)
    params = params32()
    state = mp.init(params)
    grads = {"W": np.ones((3, 2), np.float16), "b": np.ones(2, np.float16)}
    scales = []
    for _ in range(10):
        params, state = mp.update(grads, state, params)
        scales.append(state.loss_scale)
    assert scales == [2.0 ** 13] * 2 + [2.0 ** 14] * 3 + [2.0 ** 15] * 5   # 2**15: float16's largest
    assert state.skipped == 0 and state.inner.count == 10


def test_a_finite_step_is_the_optimizer_step_on_the_unscaled_gradients():
    opt = optim.adam(0.01, backend="python")
    mp = optim.mixed_precision(opt, "float16", init_scale=256.0)
    params = params32()
    grads16 = {"W": np.full((3, 2), 3.0, np.float16), "b": np.array([-1.5, 0.25], np.float16)}
    ours, state = mp.update(grads16, mp.init(params), params)
    unscaled = {k: grads16[k].astype(np.float32) / np.float32(256.0) for k in grads16}
    theirs, inner = opt.update(unscaled, opt.init(params), params)
    for k in params:
        assert ours[k].dtype == np.float32 and np.array_equal(ours[k], theirs[k])
    assert state.inner.count == inner.count == 1


def test_float16_compute_on_the_python_backend():
    mp = optim.mixed_precision(optim.sgd(0.1, backend="python"), "float16", init_scale=2.0 ** 12)
    params = params32()
    state = mp.init(params)
    p16 = mp.cast(params)
    assert p16["W"].dtype == np.float16
    value, grads = sstad.jit(sstad.value_and_grad(loss), backend="python")(p16, x_data(np.float16),
                                                                             state.loss_scale)
    assert value.dtype == np.float16 and grads["W"].dtype == np.float16
    exact = sstad.grad(loss)({k: v.astype(np.float64) for k, v in params.items()}, x_data(np.float64), 1.0)
    unscaled, finite = mp.unscale((grads["W"].astype(np.float32),), state.loss_scale)
    assert finite
    np.testing.assert_allclose(unscaled[0], exact["W"], rtol=2e-2, atol=2e-3)   # float16: 11-bit mantissa


def test_float16_on_the_numba_backend_is_a_clear_error():
    f = sstad.jit(sstad.value_and_grad(loss), backend="numba")
    p16 = {k: v.astype(np.float16) for k, v in params32().items()}
    with pytest.raises(BackendError, match="Numba cannot compile .* float16"):
        f(p16, x_data(np.float16), 1.0)


def test_the_update_compiles_with_numba():
    mp = optim.mixed_precision(optim.sgd(0.1, backend="numba"), "float16", init_scale=4.0)
    params = params32()
    grads = {"W": np.ones((3, 2), np.float16), "b": np.array([np.nan, 1.0], np.float16)}
    same, state = mp.update(grads, mp.init(params), params)
    assert state.skipped == 1 and state.loss_scale == 2.0 and np.array_equal(same["W"], params["W"])
    grads["b"][0] = 2.0
    new, state = mp.update(grads, state, params)
    np.testing.assert_array_equal(new["b"], np.float32(-0.1) * np.array([1.0, 0.5], np.float32))


def test_bfloat16_holds_params_and_gradients_and_sstad_differentiates_it_on_python():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    mp = optim.mixed_precision(optim.sgd(0.5, backend="python"), "bfloat16", init_scale=2.0)
    params = params32()
    p16 = mp.cast(params)
    assert p16["W"].dtype == ml_dtypes.bfloat16
    grads = {k: np.ones_like(v) for k, v in p16.items()}
    new, state = mp.update(grads, mp.init(params), params)
    assert np.array_equal(new["b"], np.full(2, -0.25, np.float32)) and state.inner.count == 1
    value, g = sstad.jit(sstad.value_and_grad(loss), backend="python")(p16, x_data(ml_dtypes.bfloat16), 1.0)
    exact = sstad.grad(loss)({k: v.astype(np.float64) for k, v in p16.items()}, x_data(np.float64), 1.0)
    assert g["W"].dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(g["W"].astype(np.float64), exact["W"], rtol=3e-2, atol=3e-2)   # 8-bit mantissa
    with pytest.raises(BackendError, match="Numba has no bfloat16 type"):
        sstad.jit(sstad.value_and_grad(loss), backend="numba")(p16, x_data(ml_dtypes.bfloat16), 1.0)


def test_master_weights_must_be_float32_or_wider():
    mp = optim.mixed_precision(optim.sgd(0.1, backend="python"))
    with pytest.raises(TypeError, match="master weights must be float32 or float64, not float16"):
        mp.init({"w": np.ones(2, np.float16)})
    with pytest.raises(ValueError, match="growth_interval must be a positive int"):
        optim.mixed_precision(optim.sgd(0.1), growth_interval=0)
