"""Softmax, log-softmax and cross-entropy along the last axis: one block per row, its
maximum and its sum of exponentials reduced in shared memory."""
import functools
import math

import numba
import numpy as np
from numba import cuda

from sstad.kernels.launch import BLOCK, MAX_BLOCKS, empty, strided_view


@functools.lru_cache(maxsize=None)
def _row_stats(dtype):
    """The row kernel: each row's max and sum of exp(x - max) reduced in shared memory."""
    nbtype = numba.from_dtype(np.dtype(dtype))

    def kernel(x, out, labels, mode):
        """mode 0: out = softmax(x); 1: out = log_softmax(x); 2: out[r] = -log_softmax(x)[r, labels[r]]."""
        shared = cuda.shared.array(BLOCK, nbtype)
        t = cuda.threadIdx.x
        n = x.shape[1]
        row = cuda.blockIdx.x
        while row < x.shape[0]:
            m = -np.inf
            for j in range(t, n, BLOCK):
                v = x[row, j]
                m = v if v > m or v != v else m
            shared[t] = m
            cuda.syncthreads()
            s = BLOCK // 2
            while s > 0:
                if t < s:
                    a = shared[t]
                    b = shared[t + s]
                    shared[t] = a if a > b or a != a else b
                cuda.syncthreads()
                s //= 2
            m = shared[0]
            cuda.syncthreads()
            acc = 0.0
            for j in range(t, n, BLOCK):
                acc += math.exp(x[row, j] - m)
            shared[t] = acc
            cuda.syncthreads()
            s = BLOCK // 2
            while s > 0:
                if t < s:
                    shared[t] += shared[t + s]
                cuda.syncthreads()
                s //= 2
            total = shared[0]
            cuda.syncthreads()
            if mode == 0:
                for j in range(t, n, BLOCK):
                    out[row, j] = math.exp(x[row, j] - m) / total
            elif mode == 1:
                for j in range(t, n, BLOCK):
                    out[row, j] = x[row, j] - m - math.log(total)
            elif t == 0:
                out[row, 0] = m + math.log(total) - x[row, labels[row]]
            row += cuda.gridDim.x
    return cuda.jit(kernel)


def _launch(x, mode, labels=None):
    rows = 1
    for n in x.shape[:-1]:
        rows *= n
    x2 = strided_view(x, lambda a: a.reshape(rows, x.shape[x.ndim - 1]))
    out = empty((rows, 1) if mode == 2 else x2.shape, x.dtype)
    if labels is None:
        labels = empty((1,), np.int64)
    if rows:
        _row_stats(x.dtype)[min(rows, MAX_BLOCKS), BLOCK](x2, out, labels, mode)
    shape = tuple(x.shape[:-1]) if mode == 2 else tuple(x.shape)
    return strided_view(out, lambda a: a.reshape(shape))


def softmax(x):
    """``softmax(x, axis=-1)`` of a C-contiguous device array."""
    return _launch(x, 0)


def log_softmax(x):
    return _launch(x, 1)


def cross_entropy(logits, labels):
    """Per row: ``-log_softmax(logits)[r, labels[r]]`` (labels: int device array)."""
    return _launch(logits, 2, labels)


@numba.njit(cache=True)
def log_softmax_cpu(x):
    out = np.empty_like(x)
    for r in range(x.shape[0]):
        m = x[r].max()
        out[r] = x[r] - m - np.log(np.exp(x[r] - m).sum())
    return out


@numba.njit(cache=True)
def softmax_cpu(x):
    return np.exp(log_softmax_cpu(x))


@numba.njit(cache=True)
def cross_entropy_cpu(x, labels):
    lp = log_softmax_cpu(x)
    out = np.empty(x.shape[0], x.dtype)
    for r in range(x.shape[0]):
        out[r] = -lp[r, labels[r]]
    return out
