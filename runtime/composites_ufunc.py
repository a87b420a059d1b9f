"""Methods of NumPy's ufuncs: ``np.add.reduce``, ``np.logaddexp.reduce``,
``np.multiply.accumulate``, ``np.maximum.accumulate``, ``np.subtract.outer``, ``np.add.at``, written over the
reductions, scans and broadcasting they are (``np.add.reduce`` is ``np.sum`` along axis
0 by default).  Registered per ufunc and method (:func:`sstad.runtime.composites.key_of`
keys a ufunc's method by the ufunc and its name); a method of another ufunc, or a
parameter these do not handle, is refused by name."""
import numpy as np
import scipy.special as sc

from sstad.runtime.composites import check_axis, composite
from sstad.runtime.index import index_add


def _plain(name, out, where=True, initial=None, dtype=None):
    """Refuse the parameters these methods do not handle (``dtype`` only where the
    method's reduction takes none)."""
    if out is not None:
        raise NotImplementedError(f"np.{name}: out= is not supported; use the returned array")
    if np.ndim(where) > 0 or not where:
        raise NotImplementedError(f"np.{name}: where= is not supported; use np.where on the input")
    if initial is not None:
        raise NotImplementedError(f"np.{name}: initial= is not supported; combine it with the result")
    if dtype is not None:
        raise NotImplementedError(f"np.{name}: dtype= is not supported; convert with .astype first")


@composite(np.add.reduce)
def add_reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """np.add.reduce: np.sum along ``axis`` (0 by default)."""
    _plain("add.reduce", out, where, initial)
    return np.sum(array, axis=axis, dtype=dtype, keepdims=keepdims)


@composite(np.multiply.reduce)
def multiply_reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """np.multiply.reduce: np.prod along ``axis`` (0 by default)."""
    _plain("multiply.reduce", out, where, initial)
    return np.prod(array, axis=axis, dtype=dtype, keepdims=keepdims)


@composite(np.maximum.reduce)
def maximum_reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """np.maximum.reduce: np.max along ``axis`` (0 by default)."""
    _plain("maximum.reduce", out, where, initial, dtype)
    return np.max(array, axis=axis, keepdims=keepdims)


@composite(np.minimum.reduce)
def minimum_reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """np.minimum.reduce: np.min along ``axis`` (0 by default)."""
    _plain("minimum.reduce", out, where, initial, dtype)
    return np.min(array, axis=axis, keepdims=keepdims)


@composite(np.logaddexp.reduce)
def logaddexp_reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """np.logaddexp.reduce: log(sum(exp(array))) along ``axis`` (0 by default), as
    scipy.special.logsumexp computes it."""
    _plain("logaddexp.reduce", out, where, initial, dtype)
    return sc.logsumexp(array, axis=axis, keepdims=keepdims)


@composite(np.add.accumulate)
def add_accumulate(array, axis=0, dtype=None, out=None):
    """np.add.accumulate: np.cumsum along ``axis`` (0 by default)."""
    _plain("add.accumulate", out)
    return np.cumsum(array, axis=axis, dtype=dtype)


@composite(np.multiply.accumulate)
def multiply_accumulate(array, axis=0, dtype=None, out=None):
    """np.multiply.accumulate: np.cumprod along ``axis`` (0 by default)."""
    _plain("multiply.accumulate", out)
    return np.cumprod(array, axis=axis, dtype=dtype)


def _running(ufunc, name):
    label = f"np.{name}"

    def accumulate(array, axis=0, dtype=None, out=None):
        """The running ``ufunc`` along ``axis``: each step one ``ufunc`` of the last result
        and the next slice, so ties share the cotangent as ``ufunc`` itself does."""
        _plain(name, out, dtype=dtype)
        x = np.asarray(array)
        if np.ndim(x) == 0:
            raise TypeError(f"np.{name}: cannot accumulate on a scalar")
        y = np.moveaxis(x, check_axis(axis, np.ndim(x), label), 0)
        m = y[0]
        steps = []
        steps.append(m)
        for i in range(1, y.shape[0]):
            m = ufunc(m, y[i])
            steps.append(m)
        if np.ndim(x) == 1:
            return np.array(steps)
        return np.moveaxis(np.stack(steps), 0, axis)
    return accumulate


for _ufunc in (np.maximum, np.minimum, np.fmax, np.fmin):
    composite(_ufunc.accumulate)(_running(_ufunc, f"{_ufunc.__name__}.accumulate"))


def _outer(ufunc):
    name = f"{ufunc.__name__}.outer"

    def outer(A, B, out=None, *, where=True, dtype=None):
        """``ufunc(A[..., None, ...], B)``: every pair of an item of A and an item of B."""
        _plain(name, out, where)
        if dtype is not None:
            raise NotImplementedError(f"np.{name}: dtype= is not supported; convert with .astype")
        a = np.asarray(A)
        return ufunc(np.reshape(a, np.shape(a) + (1,) * np.ndim(B)), B)
    return outer


for _ufunc in (np.add, np.subtract, np.multiply, np.divide, np.power, np.maximum, np.minimum,
               np.logaddexp, np.hypot, np.arctan2):
    composite(_ufunc.outer)(_outer(_ufunc))


@composite(np.add.at)
def add_at(a, indices, b=None):
    """np.add.at: ``a[indices] += b`` in place, repeated indices adding up."""
    if b is None:
        raise TypeError("np.add.at needs the values b")
    index_add(a, indices, b)


@composite(np.subtract.at)
def subtract_at(a, indices, b=None):
    """np.subtract.at: ``a[indices] -= b`` in place, repeated indices adding up."""
    if b is None:
        raise TypeError("np.subtract.at needs the values b")
    index_add(a, indices, -b)


@composite(np.bincount)
def bincount(x, /, weights=None, minlength=0):
    """np.bincount: how often each non-negative integer occurs in ``x`` (the sum of its
    ``weights``, in float64, when given), a scatter-add into zeros."""
    if np.ndim(x) != 1:
        raise ValueError("np.bincount: object too deep for desired array (x must be 1-d)")
    assert np.all(x >= 0), "np.bincount: 'list' argument must have no negative elements"
    n = minlength if x.shape[0] == 0 else max(np.max(x) + 1, minlength)
    if weights is None:
        counts = np.zeros(n, dtype=np.intp)
        index_add(counts, x, np.ones(x.shape[0], dtype=np.intp))
        return counts
    total = np.zeros(n)
    index_add(total, x, np.asarray(weights).astype(np.float64))
    return total
