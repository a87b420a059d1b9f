"""Bessel functions (runtime/bessel.py): values against SciPy, derivatives against finite
differences (check_grads: forward and reverse), on both backends.  Under Numba the
generated code calls SciPy's own C functions, so values agree bit for bit."""
import numpy as np
import pytest
import scipy.special as sc

import sstad
from sstad.errors import SstadTypeError
from sstad.testing import check_grads

RNG = np.random.default_rng(17)


def i0(x): return sc.i0(x)
def i1(x): return sc.i1(x)
def i0e(x): return sc.i0e(x)
def i1e(x): return sc.i1e(x)
def j0(x): return sc.j0(x)
def j1(x): return sc.j1(x)
def y0(x): return sc.y0(x)
def y1(x): return sc.y1(x)
def k0(x): return sc.k0(x)
def k1(x): return sc.k1(x)
def k0e(x): return sc.k0e(x)
def k1e(x): return sc.k1e(x)
def numpy_i0(x): return np.i0(x)
def iv(x): return sc.iv(2, x)
def ive(x): return sc.ive(1.5, x)
def jv(x): return sc.jv(3, x)
def jv_half(x): return sc.jv(0.5, x)
def yv(x): return sc.yv(1.5, x)
def yn(x): return sc.yn(2, x)
def kv(x): return sc.kv(0.7, x)
def kve(x): return sc.kve(2, x)


# x > 0 where the function is real and smooth there (y*, k*, non-integer orders); the
# others also on negative values (i0e and ive have a kink at 0)
POSITIVE = [y0, y1, k0, k1, k0e, k1e, yv, yn, kv, kve, jv_half, ive]
ANYWHERE = [i0, i1, i1e, j0, j1, numpy_i0, iv, jv]
ALL = POSITIVE + ANYWHERE + [i0e]


def point(fn, shape=(5,)):
    if fn in ANYWHERE:
        return RNG.uniform(-4.0, 4.0, size=shape)
    return RNG.uniform(0.3, 4.0, size=shape)


@pytest.mark.parametrize("fn", ALL, ids=lambda f: f.__name__)
def test_derivatives_match_finite_differences(fn):
    check_grads(fn, (point(fn),), backend="python")


@pytest.mark.parametrize("fn", [i1, j1, y1, k1e, iv, ive, kv], ids=lambda f: f.__name__)
def test_second_derivatives(fn):
    check_grads(fn, (point(fn, (3,)),), order=2, backend="python")


def all_of_them(x):
    """Every Bessel function at once (one Numba compilation)."""
    p = np.abs(x) + 0.5
    return (sc.i0(x) + sc.i1(x) + sc.i0e(p) + sc.i1e(x) + sc.j0(x) + sc.j1(x) + sc.y0(p) + sc.y1(p)
            + sc.k0(p) + sc.k1(p) + sc.k0e(p) + sc.k1e(p) + np.i0(x) + sc.iv(2, x) + sc.ive(1.5, p)
            + sc.jv(3, x) + sc.yv(0.5, p) + sc.yn(2, p) + sc.kv(1.5, p) + sc.kve(2, p))


def a_few(x):
    """One of each kind of C function: of x, of an order and x, of an integer order and x."""
    return sc.j1(x) + sc.iv(1.5, np.abs(x)) + sc.yn(2, np.abs(x) + 0.5)


@pytest.mark.parametrize("fn", [a_few, pytest.param(all_of_them, marks=pytest.mark.slow)],
                         ids=lambda f: f.__name__)
def test_numba_values_are_scipys_and_derivatives_match(fn):
    x = RNG.uniform(0.2, 3.0, size=4) * np.array([1.0, -1.0, 1.0, -1.0])
    assert np.array_equal(sstad.jit(fn)(x), fn(x))
    check_grads(fn, (x,), backend="numba")


@pytest.mark.slow
@pytest.mark.parametrize("fn", [i1, j1, y1, iv, kve], ids=lambda f: f.__name__)
def test_numba_second_derivatives(fn):
    check_grads(fn, (point(fn, (3,)),), order=2, backend="numba")


def loop_over_orders(x):
    s = 0.0
    for n in range(3):
        s = s + sc.jv(n, x) * sc.iv(n, x)
    return s


def matrix_and_number(x):
    return np.sum(sc.j0(x) * sc.i1(2.0)) + sc.y1(x[0, 0] + 2.0)


@pytest.mark.parametrize("fn, x", [(loop_over_orders, 1.3), (matrix_and_number, RNG.uniform(0.5, 2.0, (2, 3)))],
                         ids=["run-time-integer-order", "matrix-and-number"])
def test_orders_and_shapes(fn, x):
    check_grads(fn, (x,), backend="python")


def float_order_at_run_time(v, x):
    return sc.jv(v, x)


def yn_of_a_fraction(x):
    return sc.yn(1.5, x)


def keyword_out(x):
    return sc.j0(x, out=np.empty(3))


@pytest.mark.parametrize("fn, args, words", [
    (float_order_at_run_time, (1.5, 2.0), "no derivative with respect to the order"),
    (yn_of_a_fraction, (2.0,), "integer order"),
    (keyword_out, (np.ones(3),), "keyword arguments (out)"),
])
def test_refusals_name_the_line(fn, args, words):
    with pytest.raises(SstadTypeError, match=r"test_bessel\.py:\d+") as info:
        sstad.grad(fn, argnums=len(args) - 1)(*args) if np.ndim(args[-1]) == 0 else sstad.jit(fn)(*args)
    assert words in str(info.value)


def test_emitted_code_calls_the_runtime():
    text = sstad.dump(sstad.grad(lambda x: sc.j1(x)), 1.0, emit="python")
    assert "rt.bessel.j0(x)" in text and "rt.bessel.jv(2, x)" in text
