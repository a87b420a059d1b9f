"""``scipy.special`` functions as primitives, with their rules.

A call such as ``scipy.special.gammaln(x)`` in the user's code is library code: sstad never
compiles SciPy's source.  On compile-time numbers it runs at compile time (a constant);
otherwise the frontend maps it through :data:`SCIPY` to a primitive of this module.
Generated code calls the functions below as ``rt.special.NAME``: under the python backend
they call SciPy itself; under Numba, which cannot call SciPy, their Numba overloads (scalar
kernels in the style of :mod:`sstad.runtime.helpers`) compute the same values to about
1e-13 relative (``digamma`` and ``polygamma`` near their zeros to about 1e-15 absolute).

Every rule is ordinary NumPy over primitives, so it can be differentiated again:
``gammaln' = digamma``, ``digamma' = polygamma(1, .)``, ``polygamma(n, .)' = polygamma(n + 1, .)``.
"""
import math

import numpy as np
import scipy.special as sc
from numba import types
from numba.extending import overload, register_jitable
from numba.np.numpy_support import as_dtype
from numba.np.unsafe.ndarray import to_fixed_tuple

from sstad.runtime import abstract as A
from sstad.runtime.primitive import emit_call, literal, numpy_primitive, text_of

SCIPY = {}     # id(scipy.special function) -> translate(*args, **kwargs) -> (primitive, args, kwargs)


# --- what generated code calls (SciPy under Python; overloads below under Numba) --------
def expit(x):
    """``scipy.special.expit(x)``."""
    return sc.expit(x)


def logit(x):
    """``scipy.special.logit(x)``."""
    return sc.logit(x)


def erf(x):
    """``scipy.special.erf(x)``."""
    return sc.erf(x)


def erfc(x):
    """``scipy.special.erfc(x)``."""
    return sc.erfc(x)


def erfinv(x):
    """``scipy.special.erfinv(x)``."""
    return sc.erfinv(x)


def erfcinv(x):
    """``scipy.special.erfcinv(x)``."""
    return sc.erfcinv(x)


def gammaln(x):
    """``scipy.special.gammaln(x)``: log |Gamma(x)|."""
    return sc.gammaln(x)


def digamma(x):
    """``scipy.special.digamma(x)``."""
    return sc.digamma(x)


def polygamma(n, x):
    """``scipy.special.polygamma(n, x)``: the n-th derivative of digamma."""
    return sc.polygamma(n, x)


def xlogy(x, y):
    """``scipy.special.xlogy(x, y)``: x * log(y), 0 where x == 0."""
    return sc.xlogy(x, y)


def xlog1py(x, y):
    """``scipy.special.xlog1py(x, y)``: x * log1p(y), 0 where x == 0."""
    return sc.xlog1py(x, y)


def multigammaln(a, d):
    """``scipy.special.multigammaln(a, d)``."""
    return sc.multigammaln(a, d)


def logsumexp(a, b, axis=None, keepdims=False):
    """``scipy.special.logsumexp(a, axis, b=b, keepdims)``; ``b`` is 1.0 when the call
    has none, and ``axis`` is None or a sorted tuple of axes."""
    return sc.logsumexp(a, axis=axis, b=b, keepdims=keepdims)


def softmax(x, axis=None):
    """``scipy.special.softmax(x, axis)``."""
    return sc.softmax(x, axis=axis)


def log_softmax(x, axis=None):
    """``scipy.special.log_softmax(x, axis)``."""
    return sc.log_softmax(x, axis=axis)


# --- primitives and how they are printed -------------------------------------------
ELEMENTWISE = {"expit": expit, "logit": logit, "erf": erf, "erfc": erfc, "erfinv": erfinv,
               "erfcinv": erfcinv, "gammaln": gammaln,
               "digamma": digamma, "polygamma": polygamma, "xlogy": xlogy, "xlog1py": xlog1py,
               "multigammaln": multigammaln}


def _multigammaln_infer(avals, params):
    """float64 of ``a``'s rank (SciPy refuses the prototypes' small ``a``)."""
    a = avals[0] if avals else None
    f64 = np.dtype(np.float64)
    return A.Array(f64, a.ndim) if isinstance(a, A.Array) else A.Scalar(f64)


for _name, _fn in ELEMENTWISE.items():
    numpy_primitive("special." + _name, _fn, emit=emit_call("rt.special." + _name), elementwise=True,
                    infer=_multigammaln_infer if _name == "multigammaln" else None)


def _emit_reduction(name):
    """``rt.special.NAME(x, ..., axes)``, then ``keepdims`` as ``np.expand_dims`` (as
    reduce.py does), so that the Numba overload has one result rank per signature."""
    names = ("a", "b", "axis", "keepdims") if name == "logsumexp" else ("x", "axis")

    def emit(args, params, avals):
        pos, kw = params["layout"]
        bound = dict(zip(names, pos), **kw)
        axis, keepdims = bound.get("axis"), bound.get("keepdims", False)
        operands = [text_of(bound[n], args) for n in names[:-2 if name == "logsumexp" else -1]]
        text = f"rt.special.{name}({', '.join(operands)}, {literal(axis)})"
        if keepdims and isinstance(avals[0], A.Array):      # (of a number: the number)
            if axis is None:
                return f"np.full({literal((1,) * avals[0].ndim)}, {text})"
            for ax in axis:
                text = f"np.expand_dims({text}, {ax})"
        return text
    return emit


for _name, _fn in (("logsumexp", logsumexp), ("softmax", softmax), ("log_softmax", log_softmax)):
    numpy_primitive("special." + _name, _fn, emit=_emit_reduction(_name))


# --- calls as users write them -> primitives -----------------------------------------
def _ndim(value):
    """Rank of a frontend value (an IR atom carries its abstract type) or a number."""
    t = getattr(value, "type", None)
    return t.ndim if isinstance(t, A.Array) else 0


def _static(value, what):
    if hasattr(value, "type"):
        raise TypeError(f"`{what}` must be a compile-time constant")
    return value


def _axes(axis, ndim):
    """None, or the sorted tuple of non-negative axes; TypeError for NumPy's refusals."""
    axis = _static(axis, "axis")
    if axis is None:
        return None
    many = isinstance(axis, tuple)
    axes = axis if many else (axis,)
    if not all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in axes):
        raise TypeError(f"axis must be an integer or a tuple of integers, not {axis!r}")
    if many and not axes:
        raise TypeError("axis=() is not supported")
    for a in axes:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise TypeError(f"axis {a} is out of range for an array of rank {ndim}")
    axes = tuple(sorted({int(a) % max(ndim, 1) for a in axes}))
    if len(axes) != len(axis if many else (axis,)):
        raise TypeError(f"repeated axis in {axis!r}")
    return None if ndim == 0 or len(axes) == ndim else axes


def _by_position(name, fn, nin):
    def translate(*args, **kwargs):
        if kwargs:
            raise TypeError(f"keyword arguments ({', '.join(kwargs)}) to this ufunc are not supported")
        if len(args) != nin:
            raise TypeError(f"takes {nin} argument{'s' if nin > 1 else ''}, not {len(args)}")
        return name, list(args), {}
    SCIPY[id(fn)] = translate


for _name, _nin in (("expit", 1), ("logit", 1), ("erf", 1), ("erfc", 1), ("erfinv", 1), ("erfcinv", 1),
                    ("gammaln", 1),
                    ("digamma", 1), ("xlogy", 2), ("xlog1py", 2)):
    _by_position("special." + _name, getattr(sc, _name), _nin)


def _polygamma(n, x):
    return "special.polygamma", [n, x], {}


def _multigammaln(a, d):
    if hasattr(d, "type") and not (isinstance(d.type, A.Scalar) and d.type.dtype.kind in "iu"):
        raise TypeError("d must be an integer")
    return "special.multigammaln", [a, d], {}


def _logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    if _static(return_sign, "return_sign"):
        raise TypeError("return_sign=True is not supported: its sign output has no derivative; "
                        "compute the sign outside the compiled function")
    if _ndim(a) == 0 and _static(keepdims, "keepdims"):
        raise TypeError("keepdims=True of a number: SciPy returns shape (1,) here; pass np.atleast_1d(a)")
    if b is not None and _ndim(b) > _ndim(a):
        raise TypeError("b has more dimensions than a: broadcast a first (np.broadcast_to)")
    return ("special.logsumexp", [a, 1.0 if b is None else b],
            {"axis": _axes(axis, _ndim(a)), "keepdims": bool(_static(keepdims, "keepdims"))})


def _softmax_like(name):
    def translate(x, axis=None):
        return name, [x], {"axis": _axes(axis, _ndim(x))}
    return translate


for _fn, _translate in ((sc.polygamma, _polygamma), (sc.multigammaln, _multigammaln),
                        (sc.logsumexp, _logsumexp), (sc.softmax, _softmax_like("special.softmax")),
                        (sc.log_softmax, _softmax_like("special.log_softmax"))):
    _translate.__qualname__ = _fn.__name__      # Python's binding errors name SciPy's function
    SCIPY[id(_fn)] = _translate


# --- reverse-mode rules ---------------------------------------------------------------
from sstad.runtime.broadcast import unbroadcast  # noqa: E402
from sstad.runtime.primitive import defvjp  # noqa: E402

TWO_OVER_SQRT_PI = 1.1283791670955126
SQRT_PI_OVER_2 = 0.886226925452758


@defvjp("special.expit")
def _(x, out, dout):
    return (dout * out * (1.0 - out),)


@defvjp("special.logit")
def _(x, out, dout):
    return (dout / (x * (1.0 - x)),)


@defvjp("special.erf")
def _(x, out, dout):
    return (dout * TWO_OVER_SQRT_PI * np.exp(-(x * x)),)


@defvjp("special.erfc")
def _(x, out, dout):
    return (-(dout * TWO_OVER_SQRT_PI * np.exp(-(x * x))),)


@defvjp("special.erfinv")
def _(x, out, dout):
    return (dout * SQRT_PI_OVER_2 * np.exp(out * out),)


@defvjp("special.erfcinv")
def _(x, out, dout):
    return (-(dout * SQRT_PI_OVER_2 * np.exp(out * out)),)


@defvjp("special.gammaln", "math.lgamma")
def _(x, out, dout):
    return (dout * digamma(x),)


@defvjp("math.gamma")
def _(x, out, dout):
    return (dout * out * digamma(x),)


@defvjp("special.digamma")
def _(x, out, dout):
    return (dout * polygamma(1, x),)


@defvjp("special.polygamma")
def _(n, x, out, dout):
    return (None, dout * polygamma(n + 1, x))


@defvjp("special.xlogy")
def _(x, y, out, dout):
    return (unbroadcast(dout * np.log(y), x), unbroadcast(dout * x / y, y))


@defvjp("special.xlog1py")
def _(x, y, out, dout):
    return (unbroadcast(dout * np.log1p(y), x), unbroadcast(dout * x / (1.0 + y), y))


@defvjp("special.multigammaln")
def _(a, d, out, dout):
    g = digamma(a)
    for j in range(1, d):
        g = g + digamma(a - 0.5 * j)
    return (dout * g, None)


def keep_axes(v, axis, keepdims):
    """A reduced value with its reduced axes put back as length 1 (it broadcasts)."""
    if axis is not None and not keepdims:
        for ax in axis:
            v = np.expand_dims(v, ax)
    return v


@defvjp("special.logsumexp")
def _(a, b, out, dout, axis=None, keepdims=False):
    weight = np.exp(a - keep_axes(out, axis, keepdims)) * keep_axes(dout, axis, keepdims)
    return (unbroadcast(weight * b, a), unbroadcast(weight, b))


@defvjp("special.softmax")
def _(x, out, dout, axis=None):
    return (out * (dout - np.sum(dout * out, axis=axis, keepdims=True)),)


@defvjp("special.log_softmax")
def _(x, out, dout, axis=None):
    return (dout - np.exp(out) * np.sum(dout, axis=axis, keepdims=True),)


# --- Numba: scalar kernels (float64 in, float64 out) ------------------------------------
EULER = 0.5772156649015329
POSROOT = 1.4616321449683623          # digamma's positive zero, and its value there
POSROOT_VALUE = -9.2412655217294275e-17
NEGROOT = -0.504083008264455409       # the zero of digamma closest to 0 from below
NEGROOT_VALUE = 7.2897639029768949e-17
# Hurwitz zeta(k + 1, root) for k = 1..120: digamma's Taylor coefficients at a zero (within
# 0.3 of the negative zero, 0.6 of the way to a pole, 120 terms reach 1e-26).
POSROOT_ZETA = sc.zeta(np.arange(2, 122, dtype=np.float64), POSROOT)
NEGROOT_ZETA = sc.zeta(np.arange(2, 122, dtype=np.float64), NEGROOT)
# B_2k / (2k)! for k = 1..12: the asymptotic series of digamma and polygamma.
BERNOULLI = np.array([1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
                      43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730])
B2K_OVER_FACT = BERNOULLI / np.array([math.factorial(2 * k) for k in range(1, 13)], dtype=np.float64)
B2K_OVER_2K = BERNOULLI / np.arange(2.0, 26.0, 2.0)


@register_jitable
def _expit(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@register_jitable
def _logit(x):
    # log(x / (1 - x)) loses digits near 0.5, where SciPy (and this) use log1p.
    if x == 1.0:
        return math.inf          # (Numba's division by zero raises)
    if x < 0.3 or x > 0.65:
        return math.log(x / (1.0 - x))
    s = 2.0 * (x - 0.5)
    return math.log1p(s) - math.log1p(-s)


@register_jitable
def _erf(x):
    return math.erf(x)


@register_jitable
def _erfc(x):
    return math.erfc(x)


@register_jitable
def _erfinv_central(y):
    """erf(x) = y for |y| <= 0.5: Giles' single-precision guess, then Newton steps."""
    w = -math.log((1.0 - y) * (1.0 + y)) - 2.5
    p = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * w
    x = p * y
    for _ in range(4):
        x -= (math.erf(x) - y) / (TWO_OVER_SQRT_PI * math.exp(-x * x))
    return x


@register_jitable
def _erfcinv_tail(t):
    """erfc(x) = t for 0 < t <= 0.5: Newton steps on log erfc (erfc underflows long
    before its logarithm loses digits), from log erfc(x) ~ -x^2 - log(x sqrt(pi))."""
    w = -math.log(t)
    x = math.sqrt(max(w - math.log(1.7724538509055159 * math.sqrt(w)), 0.05))
    for _ in range(40):
        e = math.erfc(x)
        step = (math.log(e) + w) * e / (-TWO_OVER_SQRT_PI * math.exp(-x * x))
        x -= step
        if abs(step) <= 1e-16 * x:
            break
    return x


@register_jitable
def _erfinv(y):
    if not abs(y) < 1.0:
        return math.copysign(math.inf, y) if abs(y) == 1.0 else math.nan
    if abs(y) <= 0.5:
        return _erfinv_central(y)
    return math.copysign(_erfcinv_tail(1.0 - abs(y)), y)      # 1 - |y| is exact here


@register_jitable
def _erfcinv(t):
    if not 0.0 < t < 2.0:
        return math.inf if t == 0.0 else (-math.inf if t == 2.0 else math.nan)
    if t < 0.5:
        return _erfcinv_tail(t)
    if t > 1.5:
        return -_erfcinv_tail(2.0 - t)
    return _erfinv_central(1.0 - t)


@register_jitable
def _gammaln(x):
    if math.isnan(x):
        return x
    if x == -math.inf:
        return -math.inf                       # SciPy's value
    if x <= 0.0 and x == math.floor(x):
        return math.inf
    return math.lgamma(x)


@register_jitable
def _taylor_at_root(x, root, value, zetas):
    """digamma near a zero: sum_k (-1)^(k+1) zeta(k + 1, root) (x - root)^k."""
    dz = x - root
    res = value
    coeff = -1.0
    for k in range(zetas.shape[0]):
        coeff *= -dz
        term = coeff * zetas[k]
        res += term
        if abs(term) < 1e-17 * abs(res):
            break
    return res


@register_jitable
def _digamma_positive(x):
    """digamma for x > 0: the recurrence up to 10, then the asymptotic series."""
    if abs(x - POSROOT) < 0.5:
        return _taylor_at_root(x, POSROOT, POSROOT_VALUE, POSROOT_ZETA)
    y = 0.0
    while x < 10.0:
        y -= 1.0 / x
        x += 1.0
    z2 = 1.0 / (x * x)
    series = 0.0
    power = z2
    for k in range(B2K_OVER_2K.shape[0]):
        term = B2K_OVER_2K[k] * power                  # B_2k / (2k x^2k)
        series += term
        if abs(term) < 1e-17 * abs(math.log(x)):
            break
        power *= z2
    return y + math.log(x) - 0.5 / x - series


@register_jitable
def _digamma(x):
    if math.isnan(x) or x == math.inf:
        return x
    if x == -math.inf:
        return math.nan
    if x == 0.0:
        return math.copysign(math.inf, -x)
    if x < 0.0:
        if x == math.floor(x):
            return math.nan
        if abs(x - NEGROOT) < 0.3:
            return _taylor_at_root(x, NEGROOT, NEGROOT_VALUE, NEGROOT_ZETA)
        # reflection: psi(x) = psi(1 - x) - pi / tan(pi x), with tan of the fraction only
        r = x - math.trunc(x)
        return _digamma_positive(1.0 - x) - math.pi / math.tan(math.pi * r)
    return _digamma_positive(x)


@register_jitable
def _polygamma(n, x):
    if n != math.floor(n) or n < 0.0 or math.isnan(x) or math.isnan(n):
        return math.nan
    if n == 0.0:
        return _digamma(x)
    sign = 1.0 if int(n) % 2 == 1 else -1.0          # (-1)^(n + 1)
    if x == math.inf:
        return 0.0
    if x == -math.inf or (x <= 0.0 and x == math.floor(x)):
        return sign * math.inf
    # psi_n(x) = (-1)^(n+1) n! [sum_k 1/(x+k)^(n+1) + 1/(n x^n) + 1/(2 x^(n+1))
    #            + sum_k B_2k/(2k)! (2k+n-1)!/n! / x^(2k+n)]
    y = 0.0
    shift = 20.0 + 2.0 * n
    while x < shift:
        y += x ** (-n - 1.0)
        x += 1.0
    inv = 1.0 / x
    y += inv ** n / n + 0.5 * inv ** (n + 1.0)
    ratio = n + 1.0                      # (2k + n - 1)! / n! for k = 1
    power = inv ** (n + 2.0)
    for k in range(B2K_OVER_FACT.shape[0]):
        term = B2K_OVER_FACT[k] * ratio * power
        y += term
        if abs(term) < 1e-17 * abs(y):
            break
        ratio *= (2.0 * k + n + 2.0) * (2.0 * k + n + 3.0)
        power *= inv * inv
    return sign * math.exp(math.lgamma(n + 1.0)) * y


@register_jitable
def _xlogy(x, y):
    if x == 0.0 and not math.isnan(y):
        return 0.0
    return x * math.log(y)


@register_jitable
def _xlog1py(x, y):
    if x == 0.0 and not math.isnan(y):
        return 0.0
    return x * math.log1p(y)


@register_jitable
def _multigammaln(a, d):
    if not a > 0.5 * (d - 1):
        raise ValueError("multigammaln: the condition a > 0.5 * (d - 1) is not met")
    res = d * (d - 1) * 0.25 * math.log(math.pi)
    for j in range(d):
        res += _gammaln(a - 0.5 * j)
    return res


# --- Numba overloads: the kernels over scalars and (broadcast) arrays ---------------------
def _prototype(t):
    """A small NumPy value of Numba type ``t`` (to ask SciPy for the result dtype)."""
    if isinstance(t, types.Array):
        return np.full((1,) * t.ndim, 2, as_dtype(t.dtype))
    return as_dtype(t).type(2)


def _result_type(fn, *numba_types, weak=()):
    """The scalar type SciPy's ``fn`` returns for arguments of these Numba types (those
    at positions ``weak`` as Python numbers when scalars, as the emitted code has them)."""
    protos = [_prototype(t) for t in numba_types]
    for k in weak:
        if not isinstance(numba_types[k], types.Array):
            protos[k] = protos[k].item()
    with np.errstate(all="ignore"):
        return np.asarray(fn(*protos)).dtype.type


def _elementwise_1(fn, kernel):
    @overload(fn)
    def _numba(x):
        out = _result_type(fn, x)
        if isinstance(x, types.Array):
            def impl(x):
                result = np.empty(x.shape, out)
                for idx in np.ndindex(x.shape):
                    result[idx] = kernel(np.float64(x[idx]))
                return result
            return impl
        if isinstance(x, (types.Number, types.Boolean)):
            return lambda x: out(kernel(np.float64(x)))


def _elementwise_2(fn, kernel):
    @overload(fn)
    def _numba(x, y):
        out = _result_type(fn, x, y)
        x_array, y_array = isinstance(x, types.Array), isinstance(y, types.Array)
        if x_array and y_array:
            def impl(x, y):
                bx, by = np.broadcast_arrays(x, y)
                result = np.empty(bx.shape, out)
                for idx in np.ndindex(bx.shape):
                    result[idx] = kernel(np.float64(bx[idx]), np.float64(by[idx]))
                return result
            return impl
        if x_array:
            def impl(x, y):
                result = np.empty(x.shape, out)
                for idx in np.ndindex(x.shape):
                    result[idx] = kernel(np.float64(x[idx]), np.float64(y))
                return result
            return impl
        if y_array:
            def impl(x, y):
                result = np.empty(y.shape, out)
                for idx in np.ndindex(y.shape):
                    result[idx] = kernel(np.float64(x), np.float64(y[idx]))
                return result
            return impl
        return lambda x, y: out(kernel(np.float64(x), np.float64(y)))


for _fn, _kernel in ((expit, _expit), (logit, _logit), (erf, _erf), (erfc, _erfc), (erfinv, _erfinv),
                     (erfcinv, _erfcinv), (gammaln, _gammaln),
                     (digamma, _digamma)):
    _elementwise_1(_fn, _kernel)
for _fn, _kernel in ((polygamma, _polygamma), (xlogy, _xlogy), (xlog1py, _xlog1py)):
    _elementwise_2(_fn, _kernel)


@overload(multigammaln)
def _numba_multigammaln(a, d):
    if isinstance(a, types.Array):
        def impl(a, d):
            result = np.empty(a.shape, np.float64)
            for idx in np.ndindex(a.shape):
                result[idx] = _multigammaln(np.float64(a[idx]), d)
            return result
        return impl
    return lambda a, d: np.float64(_multigammaln(np.float64(a), d))


# --- Numba overloads: reductions along a static set of axes -------------------------------
@register_jitable
def _offsets(shape, axis, ndim):
    """Strides that map an index of the input to the flat index of its reduced group,
    the number of groups, and the shape of the kept axes."""
    reduced = np.zeros(ndim, np.bool_)
    if axis is None:
        reduced[:] = True
    else:
        for a in axis:
            reduced[a] = True
    strides = np.zeros(ndim, np.int64)
    groups = 1
    for d in range(ndim - 1, -1, -1):
        if not reduced[d]:
            strides[d] = groups
            groups *= shape[d]
    kept = np.empty(ndim, np.int64)
    k = 0
    for d in range(ndim):
        if not reduced[d]:
            kept[k] = shape[d]
            k += 1
    return strides, groups, kept[:k]


@register_jitable
def _group(idx, strides):
    g = 0
    for d in range(len(idx)):
        g += idx[d] * strides[d]
    return g


@register_jitable
def _group_max(x, strides, groups, weights, reset):
    """Per group, the largest entry whose weight is not 0 (NaN if any is NaN); with
    ``reset``, a non-finite maximum becomes 0, as SciPy shifts in logsumexp."""
    m = np.full(groups, -np.inf)
    for idx in np.ndindex(x.shape):
        if weights[idx] != 0.0:
            g = _group(idx, strides)
            v = np.float64(x[idx])
            if v > m[g] or math.isnan(v):
                m[g] = v
    if reset:
        for g in range(groups):
            if not np.isfinite(m[g]):
                m[g] = 0.0
    return m


def _weights(b, shape):
    """``b`` broadcast to ``shape`` (Numba only)."""


@overload(_weights)
def _numba_weights(b, shape):
    if isinstance(b, types.Array):
        return lambda b, shape: np.broadcast_to(b, shape)
    return lambda b, shape: np.full(shape, np.float64(b))


@register_jitable
def _log_of_sum(s):
    return math.log(s) if s > 0.0 else (-math.inf if s == 0.0 else math.nan)


@overload(logsumexp)
def _numba_logsumexp(a, b, axis=None):
    out = _result_type(logsumexp, a, b, weak=(1,))
    if not isinstance(a, types.Array):
        return lambda a, b, axis=None: out(np.float64(a) + _log_of_sum(np.float64(b)))
    ndim = a.ndim
    kept = ndim - len(axis) if isinstance(axis, types.BaseTuple) else 0

    def groups_of(a, b, axis):
        w = _weights(b, a.shape)
        strides, groups, shape = _offsets(a.shape, axis, ndim)
        m = _group_max(a, strides, groups, w, True)
        s = np.zeros(groups)
        for idx in np.ndindex(a.shape):
            if w[idx] != 0.0:                  # SciPy leaves out terms of weight 0
                g = _group(idx, strides)
                s[g] += np.float64(w[idx]) * math.exp(np.float64(a[idx]) - m[g])
        result = np.empty(groups, out)
        for g in range(groups):
            result[g] = _log_of_sum(s[g]) + m[g]
        return result, shape
    groups_of = register_jitable(groups_of)
    if kept == 0:
        return lambda a, b, axis=None: groups_of(a, b, axis)[0][0]

    def impl(a, b, axis=None):
        result, shape = groups_of(a, b, axis)
        return result.reshape(to_fixed_tuple(shape, kept))
    return impl


def _softmax_overload(fn, log):
    @overload(fn)
    def _numba(x, axis=None):
        out = _result_type(fn, x)
        ndim = x.ndim

        def impl(x, axis=None):
            strides, groups, _ = _offsets(x.shape, axis, ndim)
            m = _group_max(x, strides, groups, np.ones(x.shape), log)
            s = np.zeros(groups)
            for idx in np.ndindex(x.shape):
                g = _group(idx, strides)
                s[g] += math.exp(np.float64(x[idx]) - m[g])
            result = np.empty(x.shape, out)
            for idx in np.ndindex(x.shape):
                g = _group(idx, strides)
                shifted = np.float64(x[idx]) - m[g]
                result[idx] = shifted - _log_of_sum(s[g]) if log else math.exp(shifted) / s[g]
            return result
        return impl


_softmax_overload(softmax, False)
_softmax_overload(log_softmax, True)
