"""Gradient buckets: many arrays packed into one flat device buffer (one all-reduce
instead of many) and unpacked back, one copy kernel per array."""
import numba
import numpy as np
from numba import cuda

from sstad.kernels.launch import BLOCK, empty, grid, strided_view


@cuda.jit
def _copy(src, dst, offset, direction):
    """direction 0: dst[offset + i] = src[i] (pack); 1: src[i] = dst[offset + i] (unpack)."""
    i = cuda.grid(1)
    while i < src.size:
        if direction == 0:
            dst[offset + i] = src[i]
        else:
            src[i] = dst[offset + i]
        i += cuda.gridsize(1)


def offsets(arrays):
    """Where each array starts in the bucket, and the bucket's length."""
    starts, total = [], 0
    for a in arrays:
        starts.append(total)
        total += a.size
    return starts, total


def _flat(a):
    if not a.is_c_contiguous():
        raise ValueError("bucket arrays must be C-contiguous")
    return strided_view(a, lambda v: v.reshape(-1))


def pack(arrays, bucket=None):
    """The arrays (C-contiguous, one dtype) copied into one flat device buffer."""
    starts, total = offsets(arrays)
    bucket = empty((total,), arrays[0].dtype) if bucket is None else bucket
    for a, start in zip(arrays, starts):
        if a.size:
            _copy[grid(a.size), BLOCK](_flat(a), bucket, start, 0)
    return bucket


def unpack(bucket, arrays):
    """Copy the bucket's contents back into ``arrays`` (in place)."""
    starts, _ = offsets(arrays)
    for a, start in zip(arrays, starts):
        if a.size:
            _copy[grid(a.size), BLOCK](_flat(a), bucket, start, 1)
    return arrays


@numba.njit(cache=True)
def pack_cpu(flats, total):
    out = np.empty(total, flats[0].dtype)
    k = 0
    for a in flats:
        for i in range(a.size):
            out[k] = a[i]
            k += 1
    return out

