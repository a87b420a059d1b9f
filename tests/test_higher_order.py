"""Derivatives of any order and transforms composed in any order, with jit on both
backends, against finite differences of the order below."""
import numpy as np
import pytest

import higher_order_cases as hc
import sstad

BACKENDS = ("python", "numba")
SLOW_ON_NUMBA = ("python", pytest.param("numba", marks=pytest.mark.slow))     # a minute of compiling each


def central(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("backend", SLOW_ON_NUMBA)
def test_fourth_derivative_through_a_while_loop(backend):
    d = [hc.grow_until]
    for _ in range(4):
        d.append(sstad.grad(d[-1]))
    x = 0.7
    d3 = sstad.jit(d[3], backend=backend)
    d4 = sstad.jit(d[4], backend=backend)
    assert d4(x) == pytest.approx(central(d3, x), rel=1e-6)
    # forward over reverse (x3) agrees with reverse (x4)
    assert sstad.jit(sstad.pushforward(d[3]), backend=backend)(x, 1.0)[1] == pytest.approx(d4(x), rel=1e-12)


@pytest.mark.parametrize("backend", SLOW_ON_NUMBA)
def test_hessian_and_hvp_match_finite_differences_of_the_gradient(backend):
    x = np.array([0.3, -0.5, 1.1, 0.4])
    g = sstad.jit(sstad.grad(hc.branchy_sum), backend=backend)
    fd = np.stack([central(lambda t: g(x + t * e), 0.0) for e in np.eye(4)], axis=-1)
    hess = sstad.hessian(hc.branchy_sum, backend=backend)(x)
    np.testing.assert_allclose(hess, fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-12, atol=1e-12)
    v = np.array([1.0, -2.0, 0.5, 3.0])
    hv = sstad.jit(sstad.pushforward(sstad.grad(hc.branchy_sum)), backend=backend)(x, v)[1]
    np.testing.assert_allclose(hv, hess @ v, rtol=1e-12)
    np.testing.assert_allclose(sstad.hvp(hc.branchy_sum, (x,), (v,)), hess @ v, rtol=1e-12)
    # reverse over reverse gives the same Hessian
    np.testing.assert_allclose(sstad.jacrev(sstad.grad(hc.branchy_sum), backend=backend)(x), hess, rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_jacobians_forward_and_reverse_agree(backend):
    x, w = np.array([0.3, -0.5, 1.1]), 0.8
    jf = sstad.jacfwd(hc.vector_out, backend=backend)(x, w)
    jr = sstad.jacrev(hc.vector_out, backend=backend)(x, w)
    fd = np.stack([central(lambda t: hc.vector_out(x + t * e, w), 0.0) for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(jf, jr, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jf, fd, rtol=1e-7, atol=1e-9)
    assert sstad.jacfwd(hc.vector_out, argnums=1)(x, w).shape == (3,)


@pytest.mark.parametrize("backend", BACKENDS)
def test_transforms_compose_with_jit_in_both_orders(backend):
    x = 0.7
    inner_jit = sstad.jit(hc.grow_until, backend=backend)
    expected = sstad.grad(hc.grow_until)(x)
    assert sstad.grad(inner_jit)(x) == pytest.approx(expected, rel=1e-13)          # grad(jit(f))
    assert sstad.jit(sstad.grad(hc.grow_until), backend=backend)(x) == pytest.approx(expected, rel=1e-13)
    second = sstad.jit(sstad.grad(sstad.grad(hc.grow_until)), backend=backend)(x)  # jit(grad(grad(f)))
    assert second == pytest.approx(central(sstad.grad(hc.grow_until), x), rel=1e-6)
    jac = sstad.jacfwd(sstad.grad(hc.grow_until), backend=backend)(x)              # jacfwd(grad(f))
    assert float(np.asarray(jac)) == pytest.approx(second, rel=1e-12)
