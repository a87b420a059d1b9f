"""Reductions (sum, max, min; mean and logsumexp from them) as tree reductions in
shared memory.

``reduce(x, op, axis, keepdims, dtype)`` views the (contiguous) input as
``(outer, n, inner)`` with the reduced axes in the middle.  With ``inner == 1`` (full
reductions, the last axes) and ``n > SHORT_ROW``, each block reduces a chunk of one row
in shared memory, and a second launch combines the blocks' partial results; otherwise
one thread per output element walks ``n`` (reads coalesced along ``inner``).  Reduced axes that are not
adjacent are first moved last by one copy.  ``max``/``min`` propagate NaN as NumPy does.
"""
import functools
import math
import re

import numba
import numpy as np
from numba import cuda

from sstad.kernels import elementwise
from sstad.kernels.launch import BLOCK, MAX_BLOCKS, SIMULATOR, empty, strided_view

OPS = ("sum", "max", "min")
SHORT_ROW = 64      # rows this short are reduced by one thread each: a block would idle


# how two partial results combine (written into the kernels' text: no device calls)
_COMBINE = {"sum": "{a} + {b}",
            "max": "{a} if {a} > {b} or {a} != {a} else {b}",
            "min": "{a} if {a} < {b} or {a} != {a} else {b}"}


def _define(text, op, **names):
    """Compile the kernel text ``text`` with ``COMBINE(a, b)`` spelled for ``op``."""
    body = re.sub(r"COMBINE\((\w+(?:\[[^\]]*\])?), (\w+(?:\[[^\]]*\])?)\)",
                  lambda m: "(" + _COMBINE[op].format(a=m.group(1), b=m.group(2)) + ")", text)
    namespace = {"cuda": cuda, "np": np, **names}
    exec(compile(body, f"<sstad {op} reduction>", "exec"), namespace)
    return namespace["kernel"]


def identity(op, dtype):
    dtype = np.dtype(dtype)
    if op == "sum":
        return dtype.type(0)
    if dtype.kind == "f":
        return dtype.type(-np.inf if op == "max" else np.inf)
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:
        return dtype.type(op == "min")
    return dtype.type(info.min if op == "max" else info.max)


@functools.lru_cache(maxsize=None)
def tree_kernel(op, dtype):
    """Kernel ``(x (rows, n), out (rows, blocks), identity)``: block b of row r reduces
    x[r, b*BLOCK::BLOCK*blocks] into out[r, b]."""
    return cuda.jit(_define(_TREE, op, BLOCK=BLOCK, nbtype=numba.from_dtype(np.dtype(dtype))))


_TREE = """
def kernel(x, out, ident):
    shared = cuda.shared.array(BLOCK, nbtype)
    t = cuda.threadIdx.x
    row = cuda.blockIdx.y
    while row < x.shape[0]:
        acc = ident
        j = cuda.blockIdx.x * BLOCK + t
        while j < x.shape[1]:
            acc = COMBINE(acc, x[row, j])
            j += BLOCK * cuda.gridDim.x
        shared[t] = acc
        cuda.syncthreads()
        s = BLOCK // 2
        while s > 0:
            if t < s:
                shared[t] = COMBINE(shared[t], shared[t + s])
            cuda.syncthreads()
            s //= 2
        if t == 0:
            out[row, cuda.blockIdx.x] = shared[0]
        cuda.syncthreads()
        row += cuda.gridDim.y
"""


@functools.lru_cache(maxsize=None)
def column_kernel(op):
    """Kernel ``(x (outer, n, inner), out (outer, inner), identity)``: one thread per output."""
    return cuda.jit(_define(_COLUMN, op))


_COLUMN = """
def kernel(x, out, ident):
    i = cuda.grid(1)
    while i < out.size:
        o = i // out.shape[1]
        k = i - o * out.shape[1]
        acc = ident
        for j in range(x.shape[1]):
            acc = COMBINE(acc, x[o, j, k])
        out[o, k] = acc
        i += cuda.gridsize(1)
"""


def _rows(x, op, dtype):
    """Reduce each row of the contiguous 2-d device array ``x``: shape (rows,)."""
    rows, n = x.shape
    ident = identity(op, dtype)
    gy = min(rows, MAX_BLOCKS)
    if SIMULATOR:
        blocks = max(1, min(math.ceil(n / BLOCK), MAX_BLOCKS // gy))
    else:
        blocks = max(1, min(math.ceil(n / (8 * BLOCK)), 1024))
    partial = empty((rows, blocks), dtype)
    tree_kernel(op, np.dtype(dtype))[(blocks, gy), BLOCK](x, partial, ident)
    if blocks > 1:
        out = empty((rows, 1), dtype)
        tree_kernel(op, np.dtype(dtype))[(1, gy), BLOCK](partial, out, ident)
        partial = out
    return strided_view(partial, lambda a: a.reshape(rows))


def normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(sorted(int(a) % ndim for a in axes))


def contiguous(x, dtype=None):
    """``x`` itself when it is C-contiguous of ``dtype``, else a contiguous copy."""
    dtype = np.dtype(dtype or x.dtype)
    if x.is_c_contiguous() and x.dtype == dtype:
        return x
    return elementwise.launch("v0", (x.ndim,), [x], dtype)


def reduce(x, op, axis=None, keepdims=False, dtype=None):
    """``np.<op>(x, axis, keepdims=keepdims)`` on a device array (``op``: sum, max, min);
    a device array, or a 0-d device array for a full reduction."""
    dtype = np.dtype(dtype or x.dtype)
    axes = normalize_axes(axis, x.ndim)
    kept = [a for a in range(x.ndim) if a not in axes]
    out_shape = tuple(x.shape[a] for a in kept)
    if keepdims:
        out_shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
    if axes and axes != tuple(range(axes[0], axes[-1] + 1)):          # not adjacent: move last
        order = tuple(kept) + axes
        x = contiguous(strided_view(x, lambda a: a.transpose(order)), dtype)
        axes = tuple(range(len(kept), x.ndim))
    x = contiguous(x, dtype)
    if x.size == 0 or not axes:
        return _empty_reduce(x, op, axes, out_shape, dtype)
    outer = math.prod(x.shape[:axes[0]])
    n = math.prod(x.shape[a] for a in axes)
    inner = math.prod(x.shape[axes[-1] + 1:])
    if inner == 1 and n > SHORT_ROW:
        flat = _rows(strided_view(x, lambda a: a.reshape(outer, n)), op, dtype)
    else:
        flat = empty((outer, inner), dtype)     # one thread per output element
        column_kernel(op)[min(MAX_BLOCKS, math.ceil(flat.size / BLOCK)), BLOCK](
            strided_view(x, lambda a: a.reshape(outer, n, inner)), flat, identity(op, dtype))
    return strided_view(flat, lambda a: a.reshape(out_shape))


def _empty_reduce(x, op, axes, out_shape, dtype):
    if x.size == 0 and op != "sum":
        raise ValueError(f"zero-size array to reduction operation {op} which has no identity")
    if not axes:
        return contiguous(x, dtype)
    out = empty(out_shape, dtype)
    return elementwise.launch("v0", (None,), [identity(op, dtype)], dtype, out=out) if out.size else out


def mean(x, axis=None, keepdims=False, dtype=None):
    dtype = np.dtype(dtype or (x.dtype if x.dtype.kind == "f" else np.float64))
    total = reduce(x, "sum", axis, keepdims, dtype)
    count = math.prod(x.shape[a] for a in normalize_axes(axis, x.ndim))
    return elementwise.launch("v0 / v1", (total.ndim, None), [total, count], dtype, out=total)


def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` along ``axis``: the maximum, then the sum of ``exp(x - max)``
    (a fused elementwise kernel), then ``max + log(sum)``; rows of -inf give -inf."""
    m = reduce(x, "max", axis, True)
    shifted = elementwise.launch("math.exp(v0 - v1) if v1 != -math.inf else 0.0",
                                 (x.ndim, m.ndim), [x, m], x.dtype)
    s = reduce(shifted, "sum", axis, True)
    out = elementwise.launch("v1 + math.log(v0) if v1 != -math.inf else v1",
                             (s.ndim, m.ndim), [s, m], x.dtype)
    if keepdims:
        return out
    shape = tuple(n for a, n in enumerate(out.shape) if a not in normalize_axes(axis, x.ndim))
    return strided_view(out, lambda a: a.reshape(shape))


# --- the CPU twins -------------------------------------------------------------------

_ROWS_CPU = """
def kernel(x, ident):
    out = np.empty(x.shape[0], x.dtype)
    for r in range(x.shape[0]):
        acc = ident
        for j in range(x.shape[1]):
            acc = COMBINE(acc, x[r, j])
        out[r] = acc
    return out
"""


def _twin(op):
    return numba.njit(_define(_ROWS_CPU, op))


_TWINS = {op: _twin(op) for op in OPS}


def reduce_cpu(x, op, axis=None, keepdims=False, dtype=None):
    """The CPU twin of :func:`reduce`: reduced axes moved last, then a sequential loop."""
    dtype = np.dtype(dtype or x.dtype)
    axes = normalize_axes(axis, x.ndim)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.ascontiguousarray(np.transpose(x, tuple(kept) + axes), dtype)
    rows = _TWINS[op](moved.reshape(math.prod(x.shape[a] for a in kept), -1), identity(op, dtype))
    shape = tuple(1 if a in axes else s for a, s in enumerate(x.shape)) if keepdims else \
        tuple(x.shape[a] for a in kept)
    return rows.reshape(shape)
