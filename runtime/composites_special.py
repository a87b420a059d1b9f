"""Functions defined by others over primitives: NumPy's spellings
(``fabs``, ``real``, ``conj``, ``angle``, ``logaddexp2``, ``append``, ``matrix_power``) and
``scipy.special`` functions that are compositions of those with rules (``ndtr``,
``gamma``, ``beta``, ``entr``, ...).  Like every composite they are inlined, so both
modes, every order and both backends follow from their bodies."""
import numpy as np
import scipy.special as sc

from sstad.runtime.composites import composite, static_range
from sstad.runtime.complex_parts import imag_part, real_part
from sstad.runtime.composites_elementwise import plain_ufunc_call

LN2 = 0.6931471805599453
INV_SQRT2 = 0.7071067811865476
SQRT2 = 1.4142135623730951
HALF_LOG_2PI = 0.9189385332046727


def real_only(name, x):
    if np.atleast_1d(x).dtype.kind == "c":
        raise NotImplementedError(f"np.{name} of complex values is not supported")


@composite(np.fabs)
def fabs(x, out=None, *, where=None, dtype=None):
    """np.fabs: the absolute value, as a float."""
    plain_ufunc_call("fabs", out, where, dtype)
    return np.abs(x) * 1.0


def is_complex(x):
    return np.atleast_1d(x).dtype.kind == "c"


@composite(np.real)
def real(val):
    """np.real: the real part (of real values, the values)."""
    return real_part(val) if is_complex(val) else val


@composite(np.real_if_close)
def real_if_close(a, tol=100):
    """np.real_if_close of real values: the values (of complex ones the result's type would
    depend on the values)."""
    real_only("real_if_close", a)
    return a


@composite(np.conj, np.conjugate)
def conj(x, out=None, *, where=None, dtype=None):
    """np.conj: the complex conjugate (of real values, a copy)."""
    plain_ufunc_call("conj", out, where, dtype)
    if is_complex(x):
        return real_part(x) - 1j * imag_part(x)
    return x * 1.0


@composite(np.imag)
def imag(val):
    """np.imag: the imaginary part (of real values, zeros)."""
    return imag_part(val) if is_complex(val) else np.zeros_like(val) * 1.0


@composite(np.angle)
def angle(z, deg=False):
    """np.angle: the argument arctan2(imag, real); of real values 0 or pi (a step:
    derivative 0)."""
    half_turn = 180.0 if deg else np.pi
    if is_complex(z):
        return np.arctan2(imag_part(z), real_part(z)) * (half_turn / np.pi)
    return np.where(z < 0, half_turn, 0.0) + np.zeros_like(z) * 1.0


@composite(np.logaddexp2)
def logaddexp2(x1, x2, out=None, *, where=None, dtype=None):
    """np.logaddexp2: log2(2**x1 + 2**x2), through logaddexp."""
    plain_ufunc_call("logaddexp2", out, where, dtype)
    return np.logaddexp(x1 * LN2, x2 * LN2) / LN2


@composite(np.append)
def append(arr, values, axis=None):
    """np.append: the values after arr, flattened both if axis is None."""
    arr, values = np.asarray(arr), np.asarray(values)
    if axis is None:
        return np.concatenate((flat(arr), flat(values)))
    return np.concatenate((arr, values), axis=axis)


def flat(v):
    """np.ravel, also of a number (which Numba's np.ravel does not take)."""
    return np.full(1, v) if np.ndim(v) == 0 else np.ravel(v)


@composite(np.linalg.matrix_power)
def matrix_power(a, n):
    """np.linalg.matrix_power for a compile-time integer n (of stacks too): repeated
    products, of the inverse for n < 0."""
    base = a if n >= 0 else np.linalg.inv(a)
    result = np.zeros_like(base) + np.eye(base.shape[-1], dtype=base.dtype)    # integers stay integers
    for _ in static_range(abs(n)):
        result = result @ base
    return result


@composite(sc.ndtr)
def ndtr(x):
    """scipy.special.ndtr: the standard normal CDF, erfc(-x / sqrt 2) / 2."""
    return 0.5 * sc.erfc(-x * INV_SQRT2)


@composite(sc.ndtri)
def ndtri(x):
    """scipy.special.ndtri: the inverse of ndtr, -sqrt(2) erfcinv(2x) (erfcinv keeps the
    precision of a small x; its derivative is sqrt(2 pi) exp(ndtri(x)**2 / 2))."""
    return -SQRT2 * sc.erfcinv(2.0 * x)


def gamma_sign(x):
    """The sign of Gamma(x): -1 on (-1, 0), (-3, -2), ..., else 1."""
    return np.where((x < 0) & (np.floor(x) % 2 != 0), -1.0, 1.0)


@composite(sc.gammasgn)
def gammasgn(x):
    """scipy.special.gammasgn (a step: derivative 0)."""
    return gamma_sign(x) + np.zeros_like(x) * 0.0


@composite(sc.gamma)
def gamma(x):
    """scipy.special.gamma: sign * exp(gammaln)."""
    return gamma_sign(x) * np.exp(sc.gammaln(x))


@composite(sc.rgamma)
def rgamma(x):
    """scipy.special.rgamma: 1 / Gamma, sign * exp(-gammaln)."""
    return gamma_sign(x) * np.exp(-sc.gammaln(x))


@composite(sc.betaln)
def betaln(a, b):
    """scipy.special.betaln: log |B(a, b)|."""
    return sc.gammaln(a) + sc.gammaln(b) - sc.gammaln(a + b)


@composite(sc.beta)
def beta(a, b):
    """scipy.special.beta: Gamma(a) Gamma(b) / Gamma(a + b)."""
    sign = gamma_sign(a) * gamma_sign(b) * gamma_sign(a + b)
    return sign * np.exp(sc.gammaln(a) + sc.gammaln(b) - sc.gammaln(a + b))


@composite(sc.expm1)
def expm1(x):
    """scipy.special.expm1 of real values."""
    return np.expm1(x)


@composite(sc.log1p)
def log1p(x):
    """scipy.special.log1p of real values."""
    return np.log1p(x)


@composite(sc.entr)
def entr(x):
    """scipy.special.entr: -x log x for x > 0, 0 at 0, -inf below."""
    positive = x > 0
    safe = np.where(positive, x, 1.0)
    return np.where(positive, -safe * np.log(safe), np.where(x == 0, 0.0, -np.inf))


if hasattr(sc, "softplus"):                 # SciPy 1.15 and later
    @composite(sc.softplus)
    def softplus(x):
        """scipy.special.softplus: log(1 + exp(x)) of real values, without overflow."""
        real_only("softplus", x)
        return np.logaddexp(0.0, x)


@composite(sc.log_ndtr)
def log_ndtr(x):
    """scipy.special.log_ndtr: log of the standard normal CDF.  log1p(-ndtr(-x)) above 0,
    log(ndtr(x)) down to -20, and below that the asymptotic series
    -x^2/2 - log(-x sqrt(2 pi)) + log(1 - 1/x^2 + 3/x^4 - ...) (ndtr underflows near -38).
    Each branch sees only inputs in its own range, so no branch's derivative is inf."""
    tail = x < -20.0
    middle = np.where(tail, -20.0, x)
    far = np.where(tail, x, -20.0)
    upper = middle > 0
    above, below = np.where(upper, middle, 0.0), np.where(upper, 0.0, middle)
    near = np.where(upper, np.log1p(-0.5 * sc.erfc(above * INV_SQRT2)),
                    np.log(0.5 * sc.erfc(-below * INV_SQRT2)))
    r = 1.0 / (far * far)
    series = 1.0 + r * (-1.0 + r * (3.0 + r * (-15.0 + r * (105.0 + r * (-945.0 + r * 10395.0)))))
    asymptotic = -0.5 * far * far - np.log(-far) - HALF_LOG_2PI + np.log(series)
    return np.where(tail, asymptotic, near)
