"""User rules: custom_vjp, custom_jvp, stop_gradient, in both modes and both backends."""
import numpy as np
import pytest

import custom_cases as cc
import sstad
from fd import directional_derivative

BACKENDS = ("python", "numba")
X = np.array([-1.0, 0.5, 2.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_user_rule_is_used_not_the_derivative_of_the_body(backend):
    g = sstad.jit(sstad.grad(cc.relu_loss), backend=backend)(X)
    np.testing.assert_allclose(g, [0.02, 2.0, 2.0])       # 0.01 * 2 on the negative side
    _, t = sstad.jit(sstad.pushforward(cc.relu_loss), backend=backend)(X, np.ones(3))
    assert t == pytest.approx(4.02)                       # forward mode transposes the same rule


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_custom_rule_inside_a_loop(backend):
    g = sstad.jit(sstad.grad(cc.relu_in_a_loop), backend=backend)(X, 3)
    expected = sum(np.where(X - 0.5 * i > 0, 1.0, 0.01) for i in range(3))
    np.testing.assert_allclose(g, expected)


def test_a_deliberately_wrong_rule_changes_the_gradient():
    np.testing.assert_allclose(sstad.grad(cc.wrong_loss)(X), 3.0 * X)


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_jvp_in_forward_and_reverse(backend):
    w, v = 0.7, np.array([0.3, -1.0, 2.0])
    _, t = sstad.jit(sstad.pushforward(cc.sin_loss), backend=backend)(X, w, v, 0.5)
    expected = directional_derivative(cc.sin_loss, (X, w), (v, 0.5), 1.0)
    assert t == pytest.approx(expected, rel=1e-6)
    gx, gw = sstad.jit(sstad.grad(cc.sin_loss, argnums=(0, 1)), backend=backend)(X, w)
    assert float(np.dot(gx, v) + gw * 0.5) == pytest.approx(t, rel=1e-12)   # reverse transposes the jvp


@pytest.mark.parametrize("backend", BACKENDS)
def test_stop_gradient(backend):
    np.testing.assert_allclose(sstad.jit(sstad.grad(cc.stopped), backend=backend)(X), X)
    assert sstad.stop_gradient(2.5) == 2.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_user_primitive_with_its_rule_in_one_place(backend):
    w, v = 0.7, np.array([0.3, -1.0, 2.0])
    gx, gw = sstad.jit(sstad.grad(cc.softclip_loss, argnums=(0, 1)), backend=backend)(X, w)
    expected = directional_derivative(cc.softclip_loss, (X, w), (v, 0.5), 1.0)
    assert float(np.dot(gx, v) + gw * 0.5) == pytest.approx(expected, rel=1e-6)
    _, t = sstad.jit(sstad.pushforward(cc.softclip_loss), backend=backend)(X, w, v, 0.5)
    assert t == pytest.approx(expected, rel=1e-6)


def peak_bytes(fn, *args):
    import tracemalloc
    tracemalloc.start()
    try:
        result = fn(*args)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_remat_recomputes_instead_of_keeping_tapes():
    x = np.linspace(-1.0, 1.0, 20000)
    taped = sstad.jit(sstad.grad(cc.chain_taped), backend="python")
    remat = sstad.jit(sstad.grad(cc.chain_remat), backend="python")
    taped(x[:10]), remat(x[:10])                    # compile outside the measurement
    g_taped, peak_taped = peak_bytes(taped, x)
    g_remat, peak_remat = peak_bytes(remat, x)
    np.testing.assert_allclose(g_remat, g_taped, rtol=1e-13)
    tape = 50 * x.nbytes                            # one relax() call's tape
    assert peak_taped > 3.5 * tape                  # four calls' tapes at once
    assert peak_remat < 2.0 * tape                  # one at a time
    assert sstad.jit(sstad.grad(cc.chain_remat), backend="numba")(x[:10]) == pytest.approx(g_taped[:10])
