"""What the cuda backend's generated host code calls (``cu.*``): each array primitive as
kernel launches on device arrays (``sstad.kernels``); host scalars stay Python numbers.

Views (basic indexing, transpose, reshape, ...) are device views of the same memory;
a reduction to a scalar, or reading one element, copies that one value back to the
host (the only transfers besides the arguments and the results).
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from sstad.kernels import elementwise, gather, gemm, reduce, softmax
from sstad.kernels.launch import as_device, empty, is_device_array, strided_view

_ERROR = []        # one device flag: a kernel found an index out of bounds


def error_flag():
    if not _ERROR:
        _ERROR.append(cuda.to_device(np.zeros(1, np.int32)))
    return _ERROR[0]


def take_error():
    """Was an index out of bounds since the last call?  (Reads one int; clears it.)"""
    if not _ERROR:
        return False
    flag = _ERROR[0].copy_to_host()
    if flag[0]:
        _ERROR[0].copy_to_device(np.zeros(1, np.int32))
    return bool(flag[0])


def to_host(x):
    return x.copy_to_host() if is_device_array(x) else x


def elementwise_op(expr, ranks, operands, dtype):
    return elementwise.launch(expr, ranks, operands, dtype)


def inplace(x, expr, ranks, operands):
    """``x`` updated in place by ``expr`` (``v0`` is ``x``): ``x += v`` and the like."""
    elementwise.launch(expr, ranks, [x, *operands], x.dtype, out=x)
    return x


def view(x, fn, contiguous_retry=False):
    """The device view ``fn(x)``; a reshape of a non-contiguous array copies first."""
    try:
        return strided_view(x, fn)
    except ValueError:
        if not contiguous_retry:
            raise
        return strided_view(reduce.contiguous(x), fn)


def item(x, fn):
    """One element, read back to the host: ``fn`` indexes a 0-d view."""
    return strided_view(x, fn).copy_to_host()[()]


def assign(x, fn, value):
    """``x[index] = value`` (``fn`` gives the view ``x[index]``), in place."""
    target = strided_view(x, fn)
    if target.ndim == 0:
        target = strided_view(target, lambda a: a[None])
    _fill(target, value)
    return x


def add_into(x, fn, value):
    """``x[index] += value`` where no index repeats (basic indexing)."""
    target = strided_view(x, fn)
    if target.ndim == 0:
        target = strided_view(target, lambda a: a[None])
    ranks = (target.ndim, None if np.ndim(value) == 0 and not is_device_array(value) else value.ndim)
    elementwise.launch("v0 + v1", ranks, [target, value], target.dtype, out=target)
    return x


def _fill(target, value):
    rank = None if not is_device_array(value) else value.ndim
    elementwise.launch("v0", (rank,), [value], target.dtype, out=target)


def take_rows(x, idx):
    return gather.take_rows(reduce.contiguous(x), as_device(idx), error_flag())


def scatter_add(x, idx, values):
    """``np.add.at(x, idx, values)`` along the first axis (atomics)."""
    if not x.is_c_contiguous():
        raise ValueError("scatter-add into a non-contiguous device array")
    shape = (idx.shape[0],) + tuple(x.shape[1:])
    full = empty(shape, x.dtype)
    _fill(full, values)
    gather.index_add_rows(x, as_device(idx), full, error_flag())
    return x


def full(shape, value, dtype):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    out = empty(shape, dtype)
    if out.size:
        _fill(out, value)
    return out


def full_like(x, value, dtype=None):
    return full(tuple(x.shape), value, dtype or x.dtype)


def copy(x, dtype=None):
    out = empty(tuple(x.shape), dtype or x.dtype)
    if out.size:
        _fill(out, x)
    return out


def _scalar(x, scalar):
    return x.copy_to_host()[()] if scalar else x


def reduction(x, op, axis, keepdims, dtype, scalar):
    """``np.sum``/``max``/``min``/``mean`` on the device; a host scalar when ``scalar``."""
    if op == "mean":
        return _scalar(reduce.mean(x, axis, keepdims, dtype), scalar)
    return _scalar(reduce.reduce(x, op, axis, keepdims, dtype), scalar)


def logsumexp(x, axis, keepdims, scalar):
    return _scalar(reduce.logsumexp(reduce.contiguous(x), axis, keepdims), scalar)


def softmax_last(x, log):
    x = reduce.contiguous(x)
    return softmax.log_softmax(x) if log else softmax.softmax(x)


def unbroadcast(g, like_shape):
    """``g`` summed down to ``like_shape`` (the adjoint of broadcasting)."""
    if not is_device_array(g):
        return g
    if tuple(g.shape) == tuple(like_shape):
        return g
    lead = g.ndim - len(like_shape)
    stretched = tuple(lead + k for k, n in enumerate(like_shape) if n == 1 and g.shape[lead + k] != 1)
    axes = tuple(range(lead)) + stretched
    if not like_shape:
        return reduce.reduce(g, "sum").copy_to_host()[()]
    out = reduce.reduce(g, "sum", axes, True)
    return strided_view(out, lambda a: a.reshape(tuple(like_shape)))


def matmul(a, b):
    return gemm.matmul(a, b)


def diag(v, k):
    """``np.diag``: a 1-d array onto the k-th diagonal of a zero matrix, or a 2-d array's
    k-th diagonal (a copy)."""
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        out = full((n, n), 0, v.dtype)
        assign(out, lambda a: _diagonal(a, k), v)
        return out
    return copy(strided_view(v, lambda a: _diagonal(a, k)))


def _diagonal(a, k):
    """The k-th diagonal of a 2-d array as a writable view."""
    corner = a[max(-k, 0):, max(k, 0):]
    n = max(0, min(corner.shape))
    return np.lib.stride_tricks.as_strided(corner, (n,), (a.strides[0] + a.strides[1],))


def concatenate(arrays, axis):
    axis = axis % arrays[0].ndim
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = empty(tuple(shape), np.result_type(*[a.dtype for a in arrays]))
    start = 0
    for a in arrays:
        stop = start + a.shape[axis]
        assign(out, lambda o, s=start, e=stop: o[(slice(None),) * axis + (slice(s, e),)], a)
        start = stop
    return out


def shape_of(x):
    return tuple(x.shape) if is_device_array(x) else np.shape(x)

