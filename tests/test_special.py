"""scipy.special on active values: primitives with rules (runtime/special.py).

Values against SciPy itself, derivatives against finite differences (check_grads: forward
and reverse), on both backends.  Numba cannot call SciPy, so under the numba backend these
also test the kernels of runtime/special.py against SciPy.
"""
import numba
import numpy as np
import pytest
import scipy.special as sc

import sstad
from sstad.errors import SstadTypeError
from sstad.runtime import special
from sstad.testing import check_grads

RNG = np.random.default_rng(7)


def normal(*shape):
    return RNG.normal(size=shape)


def uniform(lo, hi, *shape):
    return RNG.uniform(lo, hi, size=shape)


# --- the calls, as users write them -------------------------------------------------
def expit(x):
    return sc.expit(x)


def logit(p):
    return sc.logit(p)


def erf(x):
    return sc.erf(x)


def erfc(x):
    return sc.erfc(x)


def gammaln(x):
    return sc.gammaln(x)


def digamma(x):
    return sc.digamma(x)


def psi(x):
    return sc.psi(x)


def trigamma(x):
    return sc.polygamma(1, x)


def tetragamma(x):
    return sc.polygamma(2, x)


def xlogy(x, y):
    return sc.xlogy(x, y)


def xlogy_scalar(y):
    return sc.xlogy(2.5, y)


def xlog1py(x, y):
    return sc.xlog1py(x, y)


def multigammaln(a):
    return sc.multigammaln(a, 3)


def multigammaln_sum(a):
    return np.sum(sc.multigammaln(a, 2) * a)


def logsumexp_all(x):
    return sc.logsumexp(x)


def logsumexp_axis0(x):
    return sc.logsumexp(x, axis=0)


def logsumexp_positional_axis(x):
    return sc.logsumexp(x, 1)


def logsumexp_last_keepdims(x):
    return sc.logsumexp(x, axis=-1, keepdims=True)


def logsumexp_axes(x):
    return sc.logsumexp(x, axis=(0, 2))


def logsumexp_axes_keepdims(x):
    return sc.logsumexp(x, axis=(2, 0), keepdims=True)


def logsumexp_all_keepdims(x):
    return sc.logsumexp(x, keepdims=True)


def logsumexp_weighted(x, b):
    return sc.logsumexp(x, axis=1, b=b)


def logsumexp_weighted_positional(x, b):
    return sc.logsumexp(x, None, b)


def softmax_all(x):
    return sc.softmax(x)


def softmax_rows(x):
    return sc.softmax(x, axis=1)


def softmax_axes(x):
    return sc.softmax(x, axis=(0, 2))


def log_softmax_last(x):
    return sc.log_softmax(x, axis=-1)


def log_softmax_all(x):
    return sc.log_softmax(x)


def mixture(x, w):
    """A mixture log-likelihood with several special functions."""
    logits = sc.log_softmax(w)
    return sc.logsumexp(logits[:, None] + sc.xlogy(x, sc.expit(x)) - sc.gammaln(x + 1.0), axis=0).sum()


CASES = [
    ("expit", expit, lambda: (normal(3, 4) * 3,)),
    ("logit", logit, lambda: (uniform(0.05, 0.95, 5),)),
    ("erf", erf, lambda: (normal(4, 2),)),
    ("erfc", erfc, lambda: (normal(7),)),
    ("gammaln", gammaln, lambda: (uniform(0.2, 6.0, 3, 2),)),
    ("gammaln negative", gammaln, lambda: (np.array([-2.5, -1.3, -0.4, 0.7]),)),
    ("gammaln scalar", gammaln, lambda: (2.7,)),
    ("digamma", digamma, lambda: (uniform(0.2, 12.0, 6),)),
    ("digamma negative", digamma, lambda: (np.array([-3.7, -1.5, -0.25, 1.46]),)),
    ("psi", psi, lambda: (uniform(0.5, 3.0, 4),)),
    ("polygamma 1", trigamma, lambda: (uniform(0.3, 30.0, 5),)),
    ("polygamma 2", tetragamma, lambda: (uniform(0.3, 30.0, 2, 2),)),
    ("xlogy broadcast", xlogy, lambda: (normal(3, 1), uniform(0.1, 3.0, 4))),
    ("xlogy scalar x", xlogy_scalar, lambda: (uniform(0.1, 3.0, 4),)),
    ("xlogy scalar y", xlogy, lambda: (normal(3), 1.7)),
    ("xlog1py", xlog1py, lambda: (normal(2, 3), uniform(-0.9, 3.0, 2, 3))),
    ("multigammaln", multigammaln, lambda: (uniform(1.5, 6.0, 4),)),
    ("multigammaln scalar", multigammaln, lambda: (2.3,)),
    ("multigammaln sum", multigammaln_sum, lambda: (uniform(1.0, 6.0, 3),)),
    ("logsumexp", logsumexp_all, lambda: (normal(3, 4) * 2,)),
    ("logsumexp axis=0", logsumexp_axis0, lambda: (normal(3, 4),)),
    ("logsumexp axis positional", logsumexp_positional_axis, lambda: (normal(3, 4),)),
    ("logsumexp axis=-1 keepdims", logsumexp_last_keepdims, lambda: (normal(2, 3, 4),)),
    ("logsumexp axis=(0, 2)", logsumexp_axes, lambda: (normal(2, 3, 4),)),
    ("logsumexp axis=(2, 0) keepdims", logsumexp_axes_keepdims, lambda: (normal(2, 3, 4),)),
    ("logsumexp keepdims", logsumexp_all_keepdims, lambda: (normal(2, 3),)),
    ("logsumexp b", logsumexp_weighted, lambda: (normal(3, 4), uniform(0.2, 2.0, 3, 4))),
    ("logsumexp b broadcast", logsumexp_weighted, lambda: (normal(3, 4), uniform(0.2, 2.0, 4))),
    ("logsumexp b positional", logsumexp_weighted_positional, lambda: (normal(5), uniform(0.2, 2.0, 5))),
    ("softmax", softmax_all, lambda: (normal(3, 4),)),
    ("softmax axis=1", softmax_rows, lambda: (normal(3, 4),)),
    ("softmax axis=(0, 2)", softmax_axes, lambda: (normal(2, 3, 2),)),
    ("log_softmax axis=-1", log_softmax_last, lambda: (normal(3, 4),)),
    ("log_softmax", log_softmax_all, lambda: (normal(6),)),
    ("mixture", mixture, lambda: (uniform(0.5, 3.0, 3, 5), normal(3))),
]
IDS = [c[0] for c in CASES]
FAST_NUMBA = {"gammaln", "digamma negative", "xlogy broadcast", "logsumexp axis=(2, 0) keepdims",
              "softmax axis=1", "multigammaln", "mixture"}


def _params():
    out = []
    for name, fn, make in CASES:
        out.append(pytest.param(fn, make, "python", id=f"{name}-python"))
        marks = () if name in FAST_NUMBA else (pytest.mark.slow,)
        out.append(pytest.param(fn, make, "numba", id=f"{name}-numba", marks=marks))
    return out


PARAMS = _params()


@pytest.mark.parametrize("fn, make, backend", PARAMS)
def test_value_matches_scipy(fn, make, backend):
    args = make()
    expected = fn(*args)
    got = sstad.jit(fn, backend=backend)(*args)
    assert np.shape(got) == np.shape(expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("fn, make, backend", PARAMS)
def test_derivatives_match_finite_differences(fn, make, backend):
    check_grads(fn, make(), modes=("fwd", "rev"), backend=backend)


# --- higher order: each rule is differentiable again ---------------------------------
HIGHER = [("gammaln", gammaln, lambda: (uniform(0.5, 4.0, 3),), 3),
          ("digamma", digamma, lambda: (uniform(0.5, 4.0, 3),), 2),
          ("expit", expit, lambda: (normal(4),), 2),
          ("logit", logit, lambda: (uniform(0.2, 0.8, 3),), 2),
          ("erf", erf, lambda: (normal(3),), 2),
          ("xlogy", xlogy, lambda: (normal(3), uniform(0.5, 2.0, 3)), 2),
          ("logsumexp axis=(0, 2)", logsumexp_axes, lambda: (normal(2, 3, 2),), 2),
          ("logsumexp b", logsumexp_weighted, lambda: (normal(2, 3), uniform(0.5, 2.0, 2, 3)), 2),
          ("softmax axis=1", softmax_rows, lambda: (normal(2, 3),), 2),
          ("log_softmax", log_softmax_all, lambda: (normal(4),), 2),
          ("multigammaln", multigammaln, lambda: (uniform(1.5, 4.0, 2),), 2)]


@pytest.mark.parametrize("fn, make, order", [pytest.param(f, m, o, id=n) for n, f, m, o in HIGHER])
def test_higher_order_python(fn, make, order):
    check_grads(fn, make(), order=order, modes=("fwd", "rev"), backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn, make, order", [pytest.param(f, m, o, id=n) for n, f, m, o in HIGHER])
def test_higher_order_numba(fn, make, order):
    check_grads(fn, make(), order=order, modes=("fwd", "rev"), backend="numba")


def test_polygamma_order_follows_the_derivative():
    """d^k/dx^k gammaln = polygamma(k - 1, x): the fourth derivative, by nested grad."""
    def f(x):
        return sc.gammaln(x)
    d4 = sstad.grad(sstad.grad(sstad.grad(sstad.grad(f))))
    for x in (0.3, 1.7, 9.5):
        np.testing.assert_allclose(d4(x), sc.polygamma(3, x), rtol=1e-12)


# --- float32 stays float32 ----------------------------------------------------------
F32 = [("expit", expit, lambda: (normal(3, 4).astype(np.float32),)),
       ("gammaln", gammaln, lambda: (uniform(0.5, 5.0, 4).astype(np.float32),)),
       ("digamma", digamma, lambda: (uniform(0.5, 5.0, 4).astype(np.float32),)),
       ("erf", erf, lambda: (normal(5).astype(np.float32),)),
       ("logsumexp axis=0", logsumexp_axis0, lambda: (normal(3, 4).astype(np.float32),)),
       ("softmax axis=1", softmax_rows, lambda: (normal(3, 4).astype(np.float32),)),
       ("log_softmax axis=-1", log_softmax_last, lambda: (normal(3, 4).astype(np.float32),))]


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("fn, make", [pytest.param(f, m, id=n) for n, f, m in F32])
def test_float32(fn, make, backend):
    args = make()
    expected = fn(*args)
    got = sstad.jit(fn, backend=backend)(*args)
    assert got.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)
    check_grads(fn, args, modes=("fwd", "rev"), backend=backend)

    def total(x):
        return np.sum(fn(x))
    assert sstad.jit(sstad.grad(total), backend=backend)(*args).dtype == np.float32


# --- the Numba kernels over their whole domain ----------------------------------------
GRID = np.concatenate([np.linspace(-30.3, 30.7, 2001), np.geomspace(1e-8, 1e8, 400),
                       -np.geomspace(1e-6, 25.0, 200) + 1e-3,
                       [0.0, -0.0, 1.4616321449683623, -0.504083008264455409, np.inf, -np.inf, np.nan]])


@numba.njit
def _numba_unary(kind, x):
    if kind == 0:
        return special.expit(x)
    if kind == 1:
        return special.erf(x)
    if kind == 2:
        return special.erfc(x)
    if kind == 3:
        return special.gammaln(x)
    return special.digamma(x)


@pytest.mark.parametrize("kind, name", list(enumerate(["expit", "erf", "erfc", "gammaln", "digamma"])))
def test_numba_kernels_match_scipy(kind, name):
    expected = getattr(sc, name)(GRID)
    got = _numba_unary(kind, GRID)
    # digamma and gammaln have zeros (digamma one per negative unit interval, gammaln at 1,
    # 2 and between negative integers) where no formula keeps relative accuracy: an
    # absolute 1e-15 there.  erfc: Numba's libm erfc is the more accurate in the far tail
    # (SciPy's is off by 5e-14 relative near 1e-120, and flushes subnormals to 0).
    rtol = 1e-13 if name == "erfc" else 2e-14
    atol = 1e-15 if name in ("digamma", "gammaln") else 1e-300
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    assert np.array_equal(np.isnan(got), np.isnan(expected))


@numba.njit
def _numba_polygamma(n, x):
    return special.polygamma(n, x)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_numba_polygamma_matches_scipy(n):
    grid = GRID[(GRID != np.round(GRID)) & (GRID > -20)]
    with np.errstate(all="ignore"):
        expected = sc.polygamma(n, grid)
    np.testing.assert_allclose(_numba_polygamma(n, grid), expected, rtol=5e-14 if n < 6 else 1e-12, atol=1e-15)
    poles = np.array([0.0, -1.0, -3.0, np.inf])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_numba_polygamma(n, poles), sc.polygamma(n, poles))


@numba.njit
def _numba_binary(kind, x, y):
    if kind == 0:
        return special.xlogy(x, y)
    return special.xlog1py(x, y)


@pytest.mark.parametrize("kind, name", [(0, "xlogy"), (1, "xlog1py")])
def test_numba_xlogy_matches_scipy(kind, name):
    x = np.array([0.0, 0.0, 0.0, 2.0, -1.5, 3.0, 0.0])
    y = np.array([0.0, np.nan, 5.0, 0.3, 7.0, -2.0, -1.0])
    with np.errstate(all="ignore"):
        expected = getattr(sc, name)(x, y)
    np.testing.assert_allclose(_numba_binary(kind, x, y), expected, rtol=1e-15)
    np.testing.assert_allclose(_numba_binary(kind, x[:, None], y), getattr(sc, name)(x[:, None], y), rtol=1e-15)


@numba.njit
def _numba_reductions(x, b, axis):
    return special.logsumexp(x, b, axis), special.softmax(x, axis), special.log_softmax(x, axis)


@pytest.mark.parametrize("axis", [None, (0,), (1,), (2,), (0, 2), (1, 2)])
def test_numba_reductions_match_scipy(axis):
    x = normal(3, 4, 5) * 4
    b = uniform(0.1, 2.0, 4, 5)
    lse, soft, log_soft = _numba_reductions(x, b, axis)
    np.testing.assert_allclose(lse, sc.logsumexp(x, axis=axis, b=b), rtol=1e-14)
    np.testing.assert_allclose(soft, sc.softmax(x, axis=axis), rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(log_soft, sc.log_softmax(x, axis=axis), rtol=1e-13)


def test_numba_logsumexp_edge_values_match_scipy():
    f = numba.njit(lambda a, b: special.logsumexp(a, b, None))
    for a, b in [([1000.0, 1.0], [0.0, 1.0]), ([-np.inf, -np.inf], 1.0), ([1.0, 2.0], [1.0, -3.0]),
                 ([np.inf, -np.inf], 1.0), ([np.nan, 1.0], 1.0), ([1.0, 2.0], [0.0, 0.0])]:
        a = np.array(a)
        b = np.array(b) if isinstance(b, list) else b
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(f(a, b), sc.logsumexp(a, b=b))


# --- what is refused, at the user's line ----------------------------------------------
def return_sign(x):
    return sc.logsumexp(x, return_sign=True)


def ufunc_out(x):
    return sc.expit(x, out=x)


def run_time_axis(x, k):
    return sc.softmax(x, axis=k)


def repeated_axis(x):
    return sc.logsumexp(x, axis=(0, -2))


@pytest.mark.parametrize("fn, args, words", [
    (return_sign, (np.ones(3),), ["return_sign", "scipy.special.logsumexp"]),
    (ufunc_out, (np.ones(3),), ["keyword", "out", "scipy.special.expit"]),
    (run_time_axis, (np.ones((2, 3)), 1), ["axis", "compile-time constant"]),
    (repeated_axis, (np.ones((2, 3)),), ["repeated axis"]),
])
def test_refusals_name_the_line(fn, args, words):
    with pytest.raises(SstadTypeError) as err:
        sstad.jit(fn, backend="python")(*args)
    text = str(err.value)
    assert "test_special.py:" in text
    for word in words:
        assert word in text


def test_multigammaln_domain_error_on_both_backends():
    a = np.array([0.4, 2.0])
    with pytest.raises(ValueError, match="0.5"):
        sstad.jit(multigammaln, backend="python")(a)
    with pytest.raises(ValueError, match="0.5"):
        sstad.jit(multigammaln, backend="numba")(a)


def test_constant_arguments_are_folded():
    """On compile-time numbers a SciPy function runs at compile time (no primitive)."""
    def f(x):
        return x * sc.gammaln(4.5) + sc.logsumexp([1.0, 2.0], b=[0.5, 2.0])
    code = [line for line in sstad.dump(f, 1.0, emit="python").splitlines() if not line.strip().startswith("#")]
    assert not any("gammaln" in line or "logsumexp" in line for line in code)
    assert sstad.jit(f)(2.0) == pytest.approx(f(2.0), rel=1e-15)


def test_emitted_code_calls_the_runtime_kernel():
    text = sstad.dump(sstad.grad(lambda x: np.sum(sc.gammaln(x))), np.ones(3), emit="numba")
    assert "rt.special.digamma(" in text


def test_scipy_special_primitives_have_rules():
    from sstad.runtime.primitive import PRIMITIVES
    from sstad.runtime import bessel
    names = [n for n in PRIMITIVES if n.startswith("special.")]
    assert len(names) == 15 + len(bessel.ONE + bessel.ORDER)
    assert all(PRIMITIVES[n].vjp is not None for n in names)


def unknown_keyword(x):
    return sc.softmax(x, axes=0)


def test_a_call_scipy_would_refuse_is_refused_with_its_message():
    with pytest.raises(SstadTypeError) as err:
        sstad.jit(unknown_keyword, backend="python")(np.ones(3))
    assert "softmax() got an unexpected keyword argument 'axes'" in str(err.value)
