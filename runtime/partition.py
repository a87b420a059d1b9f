"""``np.argpartition`` as a primitive and ``np.partition`` over it: the values taken by
those indices, so the gradient flows back to where each value came from, as for
``np.sort``.  The order statistics over sorted values: ``np.median``, ``np.quantile``,
``np.percentile``.

NumPy leaves the order within each side of ``kth`` undefined; under Numba, which has no
``argpartition`` along an axis, the indices are those of a full (stable) sort, which is
one valid partition for every ``kth``.
"""
import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime.composites import check_axis, composite
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
    if s.dtype.kind != "f" and s.dtype.kind != "c":      # NumPy averages integers and booleans in float64
        s = s.astype(np.float64)
    n = s.shape[ax]
    m = 0.5 * (np.take(s, (n - 1) // 2, axis=ax) + np.take(s, n // 2, axis=ax))
    m = np.where(np.any(np.isnan(x), axis=ax), np.nan, m)
    if keepdims:
        return np.reshape(m, (1,) * np.ndim(a)) if flat else np.expand_dims(m, ax)
    return m


def _position(n, q, method, name):
    """Where quantile ``q`` falls among ``n`` sorted values (a float: between two of them).
    The continuous methods of Hyndman and Fan put it at n q + alpha + q (1 - alpha - beta) - 1."""
    if method == "linear":
        return (n - 1) * q
    if method == "midpoint":
        return 0.5 * (np.floor((n - 1) * q) + np.ceil((n - 1) * q))
    if method == "lower":
        return np.floor((n - 1) * q)
    if method == "higher":
        return np.ceil((n - 1) * q)
    if method == "nearest":
        return np.round((n - 1) * q)
    if method == "interpolated_inverted_cdf":
        alpha, beta = 0.0, 1.0
    elif method == "hazen":
        alpha, beta = 0.5, 0.5
    elif method == "weibull":
        alpha, beta = 0.0, 0.0
    elif method == "median_unbiased":
        alpha, beta = 1 / 3, 1 / 3
    elif method == "normal_unbiased":
        alpha, beta = 3 / 8, 3 / 8
    else:
        raise NotImplementedError(f"{name}: method={method!r} is not supported; use 'linear' (the default), "
                                  "'lower', 'higher', 'nearest', 'midpoint', 'hazen', 'weibull', "
                                  "'median_unbiased', 'normal_unbiased' or 'interpolated_inverted_cdf'")
    return n * q + (alpha + q * (1 - alpha - beta)) - 1


def _result_dtype(s, q):
    """NumPy's dtype of a quantile of ``s`` at ``q``: ``s``'s float with a Python number
    (weak), else the two dtypes' common one; float64 for integers."""
    probe = np.zeros(1, s.dtype) * (q if np.ndim(q) == 0 else np.ravel(q)[:1])
    return probe.dtype


def _quantile(a, q, axis, method, keepdims, name):
    """``np.quantile`` of ``a`` at ``q`` (in [0, 1]) as NumPy computes it: the sorted values
    either side of each position, interpolated as NumPy's ``_lerp``; NaN where a slice
    holds a NaN.  The gradient flows to those two values (and to ``q``, by their gap)."""
    if axis is None:
        x = np.ravel(a)
    elif np.ndim(np.asarray(axis)) != 0:
        raise NotImplementedError(f"{name}: axis= of several axes is not supported; "
                                  "move them together and reshape them into one first")
    else:
        x = np.moveaxis(a, check_axis(axis, np.ndim(a), name), 0)
    s = np.sort(x, axis=0)
    n = s.shape[0]
    position = _position(n, q, method, name)
    below = np.floor(position)
    t = (position - below).astype(_result_dtype(s, q))
    if np.ndim(q) > 0:
        lo = np.clip(below, 0, n - 1).astype(np.intp)
        hi = np.clip(below + 1, 0, n - 1).astype(np.intp)
        t = np.reshape(t, np.shape(t) + (1,) * (np.ndim(s) - 1))
    else:
        lo = int(min(max(below, 0), n - 1))
        hi = int(min(max(below + 1, 0), n - 1))
    low, high = s[lo], s[hi]
    gap = high - low
    result = np.where(t >= 0.5, high - gap * (1 - t), low + gap * t)
    result = np.where(np.isnan(s[n - 1]), np.nan, result)
    if keepdims:
        if axis is None:
            return np.reshape(result, np.shape(q) + (1,) * np.ndim(a))
        return np.expand_dims(result, np.ndim(q) + check_axis(axis, np.ndim(a), name))
    return result


def _refuse_quantile_args(name, out, weights):
    if out is not None:
        raise NotImplementedError(f"{name}: out= is not supported; use the returned array")
    if weights is not None:
        raise NotImplementedError(f"{name}: weights= is not supported; repeat the values or "
                                  "compute the weighted quantile from np.sort and np.cumsum")


@composite(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """np.quantile (``q`` in [0, 1], a number or an array of them)."""
    _refuse_quantile_args("np.quantile", out, weights)
    q = q * 1.0 if np.ndim(q) == 0 else np.asarray(q) * 1.0     # a Python number stays weak, as in NumPy
    assert np.all((q >= 0.0) & (q <= 1.0)), "np.quantile: Quantiles must be in the range [0, 1]"
    return _quantile(a, q, axis, method, keepdims, "np.quantile")


@composite(np.percentile)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """np.percentile: np.quantile at ``q / 100``."""
    _refuse_quantile_args("np.percentile", out, weights)
    q = q / 100.0 if np.ndim(q) == 0 else np.asarray(q) / 100.0
    assert np.all((q >= 0.0) & (q <= 1.0)), "np.percentile: Percentiles must be in the range [0, 100]"
    return _quantile(a, q, axis, method, keepdims, "np.percentile")
