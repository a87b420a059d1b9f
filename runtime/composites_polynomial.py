"""``numpy.polynomial``'s series evaluation: ``polyval chebval legval hermval hermeval
lagval``, each by the recurrence NumPy itself runs (Horner's scheme, Clenshaw's).

The coefficients get two trailing zeros first: the series is the same, and every length
(1 and 2 included, which NumPy branches on) runs one loop, whose bound is read at run time."""
import numpy as np
import numpy.polynomial as P

from sstad.runtime.composites import composite


def series_operands(c, x, tensor, name):
    """NumPy's preparation: ``c`` at least 1-d and float, shaped to broadcast over ``x`` when
    ``tensor``; padded with two zero coefficients."""
    c = np.asarray(c)
    if np.ndim(c) == 0:
        c = np.reshape(c, (1,))
    if c.dtype.kind == "b" or c.dtype.kind == "i" or c.dtype.kind == "u":
        c = c.astype(np.float64)
    if c.dtype.kind == "c":
        raise NotImplementedError(f"np.polynomial.{name} of complex coefficients is not supported")
    x = np.asarray(x) if np.ndim(x) > 0 else x
    if tensor and np.ndim(x) > 0:
        c = np.reshape(c, np.shape(c) + (1,) * np.ndim(x))
    return np.concatenate((c, np.zeros((2,) + np.shape(c)[1:], dtype=c.dtype))), x


@composite(P.polynomial.polyval)
def polyval(x, c, tensor=True):
    """numpy.polynomial.polynomial.polyval: Horner's scheme, lowest power first in ``c``."""
    c, x = series_operands(c, x, tensor, "polynomial.polyval")
    c0 = c[-1] + x * 0
    for i in range(2, len(c) + 1):
        c0 = c[-i] + c0 * x
    return c0


@composite(P.chebyshev.chebval)
def chebval(x, c, tensor=True):
    """numpy.polynomial.chebyshev.chebval: Clenshaw's recurrence, T_{k+1} = 2x T_k - T_{k-1}."""
    c, x = series_operands(c, x, tensor, "chebyshev.chebval")
    x2 = 2 * x
    c0 = c[-2] + x * 0
    c1 = c[-1] + x * 0
    for i in range(3, len(c) + 1):
        tmp = c0
        c0 = c[-i] - c1
        c1 = tmp + c1 * x2
    return c0 + c1 * x


@composite(P.legendre.legval)
def legval(x, c, tensor=True):
    """numpy.polynomial.legendre.legval: Clenshaw's recurrence with Bonnet's coefficients."""
    c, x = series_operands(c, x, tensor, "legendre.legval")
    nd = len(c)
    c0 = c[-2] + x * 0
    c1 = c[-1] + x * 0
    for i in range(3, len(c) + 1):
        tmp = c0
        nd = nd - 1
        c0 = c[-i] - c1 * ((nd - 1) / nd)
        c1 = tmp + c1 * x * ((2 * nd - 1) / nd)
    return c0 + c1 * x


@composite(P.hermite.hermval)
def hermval(x, c, tensor=True):
    """numpy.polynomial.hermite.hermval (physicists' H_k): Clenshaw's recurrence."""
    c, x = series_operands(c, x, tensor, "hermite.hermval")
    x2 = x * 2
    nd = len(c)
    c0 = c[-2] + x * 0
    c1 = c[-1] + x * 0
    for i in range(3, len(c) + 1):
        tmp = c0
        nd = nd - 1
        c0 = c[-i] - c1 * (2 * (nd - 1))
        c1 = tmp + c1 * x2
    return c0 + c1 * x2


@composite(P.hermite_e.hermeval)
def hermeval(x, c, tensor=True):
    """numpy.polynomial.hermite_e.hermeval (probabilists' He_k): Clenshaw's recurrence."""
    c, x = series_operands(c, x, tensor, "hermite_e.hermeval")
    nd = len(c)
    c0 = c[-2] + x * 0
    c1 = c[-1] + x * 0
    for i in range(3, len(c) + 1):
        tmp = c0
        nd = nd - 1
        c0 = c[-i] - c1 * (nd - 1)
        c1 = tmp + c1 * x
    return c0 + c1 * x


@composite(P.laguerre.lagval)
def lagval(x, c, tensor=True):
    """numpy.polynomial.laguerre.lagval: Clenshaw's recurrence."""
    c, x = series_operands(c, x, tensor, "laguerre.lagval")
    nd = len(c)
    c0 = c[-2] + x * 0
    c1 = c[-1] + x * 0
    for i in range(3, len(c) + 1):
        tmp = c0
        nd = nd - 1
        c0 = c[-i] - (c1 * (nd - 1)) / nd
        c1 = tmp + (c1 * ((2 * nd - 1) - x)) / nd
    return c0 + c1 * (1 - x)
