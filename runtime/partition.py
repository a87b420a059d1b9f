"""``np.argpartition`` as a primitive and ``np.partition`` over it: the values taken by
those indices, so the gradient flows back to where each value came from, as for
``np.sort``.

NumPy leaves the order within each side of ``kth`` undefined; under Numba, which has no
``argpartition`` along an axis, the indices are those of a full (stable) sort, which is
one valid partition for every ``kth``.
"""
import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime.composites import composite
from sstad.runtime.primitive import Slot, emit_call, lowering, numpy_primitive, text_of

def _given(params):
    pos, kw = params["layout"]
    return dict(zip(("a", "kth", "axis", "kind", "order"), pos), **kw)


def _argpartition_infer(avals, params):
    """Indices of ``a``'s rank (1-d with ``axis=None``); not run on stand-ins, whose
    length-1 axes would put every ``kth`` out of bounds."""
    a, axis = avals[0], _given(params).get("axis", -1)
    if not isinstance(a, A.Array):
        raise TypeError("np.argpartition takes an array of at least one dimension")
    return A.Array(np.dtype(np.intp), 1 if axis is None else a.ndim)


numpy_primitive("argpartition", np.argpartition, _argpartition_infer)


@lowering("numba", "argpartition")
def _argpartition_numba(args, params, avals):
    given = _given(params)
    axis = given.get("axis", -1)
    if isinstance(axis, Slot) or set(given) - {"a", "kth", "axis", "kind"}:
        return emit_call("np.argpartition")(args, params, avals)       # Numba says what it lacks
    a = text_of(given["a"], args)
    if axis is None:
        return f"np.argsort(np.ravel({a}), kind='mergesort')"
    if not isinstance(avals[0], A.Array) or avals[0].ndim == 1:
        return f"np.argsort({a}, kind='mergesort')"
    return f"rt.argsort_axis({a}, {axis % avals[0].ndim})"


@composite(np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """np.partition: ``a``'s values at ``np.argpartition``'s indices."""
    if order is not None:
        raise NotImplementedError("np.partition: order= (fields of structured arrays) is not supported")
    if axis is None:
        flat = np.ravel(a)
        return np.take_along_axis(flat, np.argpartition(flat, kth, kind=kind), 0)
    return np.take_along_axis(a, np.argpartition(a, kth, axis, kind), axis)


@composite(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """np.median: the middle sorted value (the mean of the two middle ones), NaN where the
    values hold a NaN; the gradient flows to those middle values."""
    if out is not None:
        raise NotImplementedError("np.median: out= is not supported; use the returned array")
    flat = axis is None
    x = np.ravel(a) if flat else a
    ax = 0 if flat else axis
    s = np.sort(x, axis=ax)
    n = s.shape[ax]
    m = 0.5 * (np.take(s, (n - 1) // 2, axis=ax) + np.take(s, n // 2, axis=ax))
    m = np.where(np.any(np.isnan(x), axis=ax), np.nan, m)
    if keepdims:
        return np.reshape(m, (1,) * np.ndim(a)) if flat else np.expand_dims(m, ax)
    return m
