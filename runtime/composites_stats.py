"""Statistics composites: var/std with ddof, average, ptp, cov, corrcoef, trapezoid."""
import numpy as np

from sstad.runtime.composites import check_axis, composite


def refuse_reduction_args(name, dtype, out, mean):
    if out is not None:
        raise NotImplementedError(f"np.{name}: out= is not supported; use the returned array")
    if dtype is not None:
        raise NotImplementedError(f"np.{name}: dtype= is not supported; convert with .astype first")
    if mean is not None:
        raise NotImplementedError(f"np.{name}: mean= is not supported; it is computed")


def count(a, reduced):
    """How many elements of ``a`` each element of ``reduced`` (a sum with keepdims) covers."""
    if np.ndim(a) == 0:
        return 1
    return a.size // reduced.size


def selected(a, where, axis, keepdims, total):
    """How many entries of ``a`` the mask ``where`` selects in each slice, in the dtype
    of a mean of ``total`` (float32 stays float32; integers count in float64)."""
    n = np.sum(np.broadcast_to(where, np.shape(a)), axis=axis, keepdims=keepdims)
    return n.astype((total / 1.0).dtype)


# np.sum, prod, mean, any and all with where= (and initial= for sum and prod), as NumPy
# defines them: the entries ``where`` leaves out count as the reduction's identity, a mean
# divides by the entries selected.  (Not registered composites: the compiler calls them
# for these keywords.)
def _refuse_out(out):
    if out is not None:
        raise NotImplementedError("out= is not supported; use the returned array")


def masked_sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _refuse_out(out)
    total = np.sum(np.where(where, a, 0), axis=axis, dtype=dtype, keepdims=keepdims)
    return total if initial is None else total + np.asarray(initial).astype(total.dtype)   # NumPy casts it


def masked_prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _refuse_out(out)
    product = np.prod(np.where(where, a, 1), axis=axis, dtype=dtype, keepdims=keepdims)
    return product if initial is None else product * np.asarray(initial).astype(product.dtype)


def masked_mean(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _refuse_out(out)
    total = np.sum(np.where(where, a, 0), axis=axis, dtype=dtype, keepdims=keepdims)
    return total / selected(a, where, axis, keepdims, total)


def masked_any(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _refuse_out(out)
    return np.any(np.logical_and(a, where), axis=axis, keepdims=keepdims)


def masked_all(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _refuse_out(out)
    return np.all(np.logical_or(a, np.logical_not(where)), axis=axis, keepdims=keepdims)


MASKED = {"sum": masked_sum, "prod": masked_prod, "mean": masked_mean, "any": masked_any, "all": masked_all}


@composite(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """np.var: the sum of squared deviations from the mean over ``n - ddof``, as NumPy computes it."""
    refuse_reduction_args("var", dtype, out, mean)
    if correction is not None:
        if ddof != 0:
            raise ValueError("np.var: ddof and correction can't be provided simultaneously")
        ddof = correction
    if where is not None:
        total = np.sum(np.where(where, a, 0), axis=axis, keepdims=True)
        n = selected(a, where, axis, True, total)
        centred = np.where(where, a - total / n, 0)
        return np.sum(squares(centred), axis=axis, keepdims=keepdims) / \
            np.maximum(selected(a, where, axis, keepdims, total) - ddof, 0)
    total = np.sum(a, axis=axis, keepdims=True)
    n = count(a, total)
    return np.sum(squares(a - total / n), axis=axis, keepdims=keepdims) / max(n - ddof, 0)


def squares(centred):
    """``|centred|^2``: NumPy's variance of complex numbers is real."""
    if np.atleast_1d(centred).dtype.kind == "c":
        return np.real(centred * np.conj(centred))
    return centred * centred


@composite(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """np.std: the square root of np.var.  Where the variance is 0 (a constant slice,
    one element) the derivative is 0, as for ``np.linalg.norm`` at 0, not ``inf * 0``."""
    refuse_reduction_args("std", dtype, out, mean)
    v = np.var(a, axis, ddof=ddof, keepdims=keepdims, correction=correction, where=where)
    spread = v > 0.0
    return np.where(spread, np.sqrt(np.where(spread, v, 1.0)), 0.0)


@composite(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """np.average: the mean, or sum(a * w) / sum(w); ``returned`` adds the sum of weights."""
    if weights is None:
        avg = np.mean(a, axis=axis, keepdims=keepdims)
        scale = np.zeros_like(avg) + count(a, np.sum(a, axis=axis, keepdims=True))
    else:
        w = weights
        if np.ndim(w) != np.ndim(a):
            if axis is None:
                raise TypeError("np.average: axis must be specified when shapes of a and weights differ")
            if np.ndim(w) != 1 or np.ndim(np.asarray(axis)) != 0:
                raise TypeError("np.average: 1D weights expected when shapes of a and weights differ")
            axis = check_axis(axis, np.ndim(a), "np.average")
            w = np.reshape(w, (1,) * axis + (-1,) + (1,) * (np.ndim(a) - 1 - axis))
        scale = np.sum(w, axis=axis, keepdims=keepdims)
        avg = np.sum(a * w, axis=axis, keepdims=keepdims) / scale
        scale = np.zeros_like(avg) + scale
    if returned:
        return avg, scale
    return avg


@composite(np.ptp)
def ptp(a, axis=None, out=None, keepdims=False):
    """np.ptp: the range of values, max minus min."""
    if out is not None:
        raise NotImplementedError("np.ptp: out= is not supported; use the returned array")
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


@composite(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """np.cov: variables in rows (columns if ``rowvar`` is False), observations weighted
    by ``fweights`` (integer counts) and ``aweights`` (importance) as NumPy does.

    One difference: a 2-d input with a single variable gives a (1, 1) array where NumPy
    squeezes to a scalar (sstad fixes ranks at compile time)."""
    if fweights is not None and np.asarray(fweights).dtype.kind != "i" and np.asarray(fweights).dtype.kind != "u":
        raise TypeError("np.cov: fweights must be integer")
    if dtype is not None:
        raise NotImplementedError("np.cov: dtype= is not supported; convert with .astype first")
    if np.ndim(m) > 2 or y is not None and np.ndim(y) > 2:
        raise ValueError("np.cov: m and y must have at most 2 dimensions")
    X = np.atleast_2d(m).astype(np.float64)
    if not rowvar and np.ndim(m) != 1:
        X = np.swapaxes(X, 0, 1)
    if y is not None:
        Y = np.atleast_2d(y).astype(np.float64)
        if not rowvar and np.ndim(y) != 1:
            Y = np.swapaxes(Y, 0, 1)
        X = np.concatenate((X, Y), axis=0)
    if ddof is None:
        ddof = 1 if not bias else 0
    if fweights is None and aweights is None:
        X = X - np.mean(X, axis=1, keepdims=True)
        c = np.dot(X, np.swapaxes(X, 0, 1)) * (1.0 / (X.shape[1] - ddof))
    else:
        c = _weighted_cov(X, fweights, aweights, ddof)
    if np.ndim(m) == 1 and y is None:
        return np.reshape(c, ())                   # a 0-d array, as NumPy's squeeze gives
    return c


def _weighted_cov(X, fweights, aweights, ddof):
    """np.cov's weighted estimate: frequency weights times importance weights, the
    normalisation NumPy documents for each combination."""
    f = np.ones(X.shape[1]) if fweights is None else np.asarray(fweights).astype(np.float64)
    a = np.ones(X.shape[1]) if aweights is None else np.asarray(aweights).astype(np.float64)
    w = f * a
    w_sum = np.sum(w)
    X = X - np.sum(X * w, axis=1, keepdims=True) / w_sum
    if ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * np.sum(w * a) / w_sum
    return np.dot(X * w, np.swapaxes(X, 0, 1)) / fact


@composite(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """np.corrcoef: the covariance scaled by the standard deviations, clipped to [-1, 1]."""
    c = np.cov(x, y, rowvar, dtype=dtype)
    if np.ndim(c) == 0:
        return c / c
    stddev = np.sqrt(np.diag(c))
    c = c / stddev[:, None] / stddev[None, :]
    return np.clip(c, -1, 1)


@composite(np.trapezoid, getattr(np, "trapz", None))
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """np.trapezoid (np.trapz): the trapezoidal rule along ``axis``, at points ``x`` or spacing ``dx``."""
    axis = check_axis(axis, np.ndim(y), "np.trapezoid")
    y = np.moveaxis(y, axis, -1)
    if x is None:
        d = dx
    elif np.ndim(x) == 1:
        d = np.diff(x)
    else:
        d = np.moveaxis(np.diff(x, axis=axis), axis, -1)
    return np.sum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)


def extremum(a, largest, axis=None, keepdims=False, initial=None, where=None, out=None):
    """``np.max`` (``largest``) or ``np.min`` with ``initial=`` and ``where=``, as NumPy
    defines them: the extremum of ``initial`` and of the entries ``where`` selects along
    ``axis`` (None or a tuple); ``initial`` alone where a slice is empty.  ``initial`` is
    already of ``a``'s dtype.  (Not a registered composite: the compiler calls it for these keywords.)"""
    if out is not None:
        raise NotImplementedError("out= is not supported; use the returned array")
    if initial is None:
        raise ValueError(f"reduction operation '{'maximum' if largest else 'minimum'}' does not have an identity, so to use a where "
                         "mask one has to specify 'initial'")
    if where is not None:
        a = np.where(where, a, initial)
    count = np.size(a)
    if axis is not None:
        count = 1
        for k in axis:
            count = count * a.shape[k]
    if count == 0:
        return np.zeros_like(np.sum(a, axis=axis, keepdims=keepdims)) + initial
    if largest:
        return np.maximum(np.max(a, axis=axis, keepdims=keepdims), initial)
    return np.minimum(np.min(a, axis=axis, keepdims=keepdims), initial)
