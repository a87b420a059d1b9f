"""np.float_power, scipy.special.ndtri and np.squeeze without axis, from their documented
signatures: ``float_power(x1, x2, /, out=None, *, where=True, dtype=None, ...)``,
``ndtri(y)``, ``squeeze(a, axis=None)``."""
import numpy as np
import pytest
import scipy.special as sc

import sstad
from sstad.errors import SstadError
from sstad.testing import check_grads

RNG = np.random.default_rng(7)


def float_power(x1, x2):
    return np.sum(np.sin(np.float_power(x1, x2)))


def float_power_int_exponent(x):
    return np.sum(np.float_power(x, 3))


def float_power_of_a_constant_base(x):
    return np.sum(np.float_power(2, x))


def float_power_keyword_form(x):
    return np.sum(np.float_power(x, 1.5, dtype=None, out=None))


@pytest.mark.parametrize("s1,s2", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (3, 1)), ((), (3,)), ((3,), ())])
def test_float_power_broadcasts_and_differentiates_both_arguments(s1, s2):
    x1 = RNG.uniform(0.5, 2.0, s1) if s1 else 1.3
    x2 = RNG.uniform(-1.5, 1.5, s2) if s2 else -0.7
    check_grads(float_power, (x1, x2), backend="python")


@pytest.mark.parametrize("fn", [float_power_int_exponent, float_power_of_a_constant_base, float_power_keyword_form])
def test_float_power_forms(fn):
    check_grads(fn, (RNG.uniform(0.5, 2.0, (2, 3)),), backend="python")


def test_float_power_computes_in_float64():
    x = np.array([1.5, 2.5], np.float32)
    out = sstad.jit(float_power_int_exponent, backend="python")(x)
    assert out.dtype == np.float64 and out == np.sum(np.float_power(x, 3))
    assert sstad.grad(float_power_int_exponent)(x).dtype == np.float32


def float_power_where(x):
    return np.sum(np.float_power(x, 2.0, where=x > 0))


def test_float_power_refuses_where_at_the_users_line():
    with pytest.raises(SstadError, match=r"test_float_power_ndtri.py:\d+.*np.float_power: where= is not supported"):
        sstad.jit(float_power_where, backend="python")(np.ones(3))


def ndtri(y):
    return np.sum(np.cos(sc.ndtri(y)))


def test_ndtri_values_match_scipy_in_the_tails():
    y = np.array([1e-300, 1e-10, 0.01, 0.3, 0.5, 0.9, 1 - 1e-10])
    np.testing.assert_allclose(sstad.jit(lambda y: sc.ndtri(y), backend="python")(y), sc.ndtri(y), rtol=1e-14)


def test_ndtri_derivative_is_sqrt_2pi_exp_half_square():
    y = np.array([1e-8, 0.02, 0.4, 0.5, 0.97])
    expected = -np.sin(sc.ndtri(y)) * np.sqrt(2 * np.pi) * np.exp(sc.ndtri(y) ** 2 / 2)
    np.testing.assert_allclose(sstad.grad(ndtri)(y), expected, rtol=1e-12)


@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_ndtri_both_modes_second_order(shape):
    y = RNG.uniform(0.05, 0.95, shape) if shape else 0.35
    check_grads(ndtri, (y,), order=2, backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn,args", [(ndtri, (np.array([0.02, 0.4, 0.9]),)),
                                     (float_power, (np.array([0.5, 1.5]), np.array([[1.2], [-0.4]])))])
def test_on_numba(fn, args):
    check_grads(fn, args, backend="numba")


def squeeze_all(x):
    return np.sum(np.squeeze(x) ** 2)


def squeeze_method(x):
    return np.sum(x.squeeze() ** 2)


@pytest.mark.parametrize("fn", [squeeze_all, squeeze_method])
def test_squeeze_without_axis_is_refused_saying_what_to_write(fn):
    # compilation is per rank: which axes have length 1 is a fact of the shape, known at run time
    with pytest.raises(SstadError, match=r"test_float_power_ndtri.py:\d+:.*np.squeeze without `axis` is not "
                                         r"supported.*np.squeeze\(x, axis=1\)"):
        sstad.jit(fn, backend="python")(np.ones((3, 1)))
