"""Numerical composites: linspace, polyval, interp, convolve, correlate, vander, gradient, polyfit."""
import numpy as np

from sstad.runtime.composites import check_axis, composite, static_range


@composite(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """np.linspace, differentiable in ``start`` and ``stop`` (scalars or arrays), as NumPy computes it."""
    if dtype is not None and dtype != float and dtype != np.float64 and dtype != np.float32:
        raise NotImplementedError(f"np.linspace: dtype={dtype!r} is not supported (only float dtypes)")
    if device is not None and device != "cpu":
        raise ValueError(f"np.linspace: device={device!r}; only 'cpu' is accepted")
    div = num - 1 if endpoint else num
    delta = stop - start
    # NumPy counts in result_type(start, stop, float(num)): float32 endpoints stay float32
    y = np.arange(num).astype((start * 0.0 + stop * 0.0).dtype)
    y = np.reshape(y, (-1,) + (1,) * np.ndim(delta))
    if div > 0:
        step = delta / div
        y = y * step
    else:
        step = delta * np.nan                      # one sample or none: the step is undefined
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y[-1] = stop
    if axis != 0:
        y = np.moveaxis(y, 0, axis)
    if dtype is not None:
        y = y.astype(dtype)
    if retstep:
        return y, step
    return y


@composite(np.polyval)
def polyval(p, x):
    """np.polyval: Horner's scheme over the coefficients, highest power first."""
    y = np.zeros_like(x) if np.ndim(x) > 0 else np.zeros_like(np.full(1, x))[0]   # x's dtype, as NumPy
    for pv in p:
        y = y * x + pv
    return y


@composite(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    """np.interp: piecewise-linear interpolation, differentiable in ``x``, ``xp`` and ``fp``."""
    if period is not None:
        raise NotImplementedError("np.interp: period= is not supported")
    xp, fp = np.asarray(xp).astype(np.float64), np.asarray(fp).astype(np.float64)   # as NumPy computes
    shape = np.shape(x)
    if np.ndim(x) == 0:
        j = np.sum(xp <= x) - 1
    else:
        x = np.ravel(x)                                    # (Numba gathers with 1-d indices only)
        j = np.sum(xp <= x[:, None], axis=1) - 1            # the segment [xp[j], xp[j + 1]] of x
    j = np.minimum(np.maximum(j, 0), len(xp) - 2)
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    y = slope * (x - xp[j]) + fp[j]
    y = np.where(x < xp[0], fp[0] if left is None else left, y)
    y = np.where(x > xp[-1], fp[-1] if right is None else right, y)
    return np.reshape(y, shape) if len(shape) > 1 else y


@composite(np.convolve)
def convolve(a, v, mode="full"):
    """np.convolve of two vectors: each output is a window of zero-padded ``a`` times reversed ``v``."""
    if mode != "full" and mode != "same" and mode != "valid":
        raise ValueError(f"np.convolve: mode must be 'full', 'same' or 'valid', not {mode!r}")
    if np.ndim(a) != 1 or np.ndim(v) != 1:
        raise ValueError("np.convolve: a and v must be 1-d arrays")
    n, m = len(a), len(v)
    zeros = np.zeros(m - 1, a.dtype)
    padded = np.concatenate((zeros, a, zeros))
    windows = np.arange(n + m - 1)[:, None] + np.arange(m)[None, :]
    full = np.reshape(padded[np.ravel(windows)], (n + m - 1, m)) @ v[::-1]
    if mode == "full":
        return full
    short, long = min(n, m), max(n, m)
    if mode == "same":
        return full[(short - 1) // 2:(short - 1) // 2 + long]
    return full[short - 1:long]


@composite(np.correlate)
def correlate(a, v, mode="valid"):
    """np.correlate of two real vectors: np.convolve with ``v`` reversed (NumPy's own
    identity, in every mode and whichever input is longer)."""
    if mode != "full" and mode != "same" and mode != "valid":
        raise ValueError(f"np.correlate: mode must be 'full', 'same' or 'valid', not {mode!r}")
    if np.ndim(a) != 1 or np.ndim(v) != 1:
        raise ValueError("np.correlate: a and v must be 1-d arrays")
    return np.convolve(a, v[::-1], mode)


@composite(np.vander)
def vander(x, N=None, increasing=False):
    """np.vander: the columns are powers of ``x``, each the one before times ``x`` (no
    ``x ** 0``, whose derivative at 0 would be 0 * inf)."""
    if np.ndim(x) != 1:
        raise ValueError("np.vander: x must be a one-dimensional array or sequence")
    n = len(x) if N is None else N
    columns = np.broadcast_to(x[:, None], (len(x), n)).copy()
    columns[:, :1] = 1
    powers = np.cumprod(columns, axis=1)
    return powers if increasing else powers[:, ::-1]


@composite(np.gradient)
def gradient(f, *varargs, axis=None, edge_order=1):
    """np.gradient with uniform spacings (none, one number, or one per axis): central
    differences inside, one-sided differences at the two ends (``edge_order=1``)."""
    if edge_order != 1:
        raise NotImplementedError("np.gradient: only edge_order=1 is supported")
    ndim = np.ndim(f)
    axes = static_range(ndim) if axis is None else (tuple(axis) if np.ndim(axis) else (axis,))
    axes = tuple(check_axis(a, ndim, "np.gradient") for a in axes)
    if len(varargs) != 0 and len(varargs) != 1 and len(varargs) != len(axes):
        raise TypeError("np.gradient: invalid number of arguments")
    outs = ()
    for k in static_range(len(axes)):
        h = 1.0 if len(varargs) == 0 else (varargs[0] if len(varargs) == 1 else varargs[k])
        if np.ndim(h) != 0:
            raise NotImplementedError("np.gradient: coordinate arrays are not supported (give uniform spacings)")
        outs = outs + (one_sided_ends(np.moveaxis(f * 1.0, axes[k], 0), h, axes[k]),)
    return outs[0] if len(outs) == 1 else outs


def one_sided_ends(m, h, axis):
    """The derivative along the first axis of ``m`` (then moved back to ``axis``)."""
    assert len(m) >= 2, "np.gradient: at least 2 items along each axis are required (edge_order + 1)"
    inner = (m[2:] - m[:-2]) / (2.0 * h)
    first, last = (m[1:2] - m[:1]) / h, (m[-1:] - m[-2:-1]) / h
    return np.moveaxis(np.concatenate((first, inner, last)), 0, axis)


@composite(np.polyfit)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """np.polyfit: least squares on the Vandermonde matrix, its columns scaled to unit norm
    first as NumPy does (the same coefficients, differentiable through np.linalg.lstsq)."""
    if full or cov:
        raise NotImplementedError("np.polyfit: full=True and cov= are not supported; take the residuals "
                                  "from np.polyval(p, x) - y")
    if deg < 0:
        raise ValueError("np.polyfit: expected deg >= 0")
    if np.ndim(x) != 1:
        raise TypeError("np.polyfit: expected 1D vector for x")
    lhs = np.vander(x * 1.0, deg + 1)
    rhs = y * 1.0
    if w is not None:
        lhs = lhs * w[:, None]
        rhs = rhs * w if np.ndim(rhs) == 1 else rhs * w[:, None]
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    c = np.linalg.lstsq(lhs / scale, rhs, rcond=rcond)[0]
    return c / scale if np.ndim(c) == 1 else c / scale[:, None]

