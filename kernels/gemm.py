"""Matrix products: a tiled shared-memory GEMM, and cuBLAS through CuPy when installed.

``matmul(a, b)`` takes 1-d and 2-d device arrays with any strides (transposed views
included) with NumPy's rules for 1-d operands.  ``method``: ``"own"`` (the tiled
kernel), ``"cublas"`` (CuPy's ``matmul``, zero-copy through the CUDA array interface)
or ``"auto"`` (cuBLAS when CuPy imports and this is not the simulator; the default, also
set by ``$SSTAD_CUDA_GEMM``).
"""
import functools
import importlib.util
import math
import os

import numba
import numpy as np
from numba import cuda

from sstad.kernels.launch import MAX_BLOCKS, SIMULATOR, TILE, empty, strided_view


@functools.lru_cache(maxsize=None)
def tiled_kernel(dtype):
    """``C = A @ B``: a TILE x TILE block per output tile, both operands staged through
    shared memory one TILE-wide strip at a time."""
    nbtype = numba.from_dtype(np.dtype(dtype))

    def kernel(A, B, C, zero):
        sa = cuda.shared.array((TILE, TILE), nbtype)
        sb = cuda.shared.array((TILE, TILE), nbtype)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        m, k, n = A.shape[0], A.shape[1], B.shape[1]
        bi = cuda.blockIdx.y
        while bi * TILE < m:
            bj = cuda.blockIdx.x
            while bj * TILE < n:
                row = bi * TILE + ty
                col = bj * TILE + tx
                acc = zero
                for t0 in range(0, k, TILE):
                    sa[ty, tx] = A[row, t0 + tx] if row < m and t0 + tx < k else zero
                    sb[ty, tx] = B[t0 + ty, col] if t0 + ty < k and col < n else zero
                    cuda.syncthreads()
                    for kk in range(TILE):
                        acc += sa[ty, kk] * sb[kk, tx]
                    cuda.syncthreads()
                if row < m and col < n:
                    C[row, col] = acc
                bj += cuda.gridDim.x
            bi += cuda.gridDim.y
    return cuda.jit(kernel)


@numba.njit(cache=True)
def matmul_cpu(A, B):
    """The CPU twin: the same sums in the same order (tile by tile along k)."""
    m, k, n = A.shape[0], A.shape[1], B.shape[1]
    C = np.zeros((m, n), A.dtype)
    for i in range(m):
        for j in range(n):
            acc = A.dtype.type(0)
            for t in range(k):
                acc += A[i, t] * B[t, j]
            C[i, j] = acc
    return C


def cupy_available():
    if SIMULATOR:
        return False
    return importlib.util.find_spec("cupy") is not None


def gemm(A, B, out=None, method="auto"):
    """``A @ B`` for 2-d device arrays into a new (or the given) device array."""
    method = method if method != "auto" else os.environ.get("SSTAD_CUDA_GEMM", "auto")
    dtype = np.result_type(A.dtype, B.dtype)
    m, n = A.shape[0], B.shape[1]
    if method == "cublas" or (method == "auto" and cupy_available()):
        import cupy
        c = cupy.matmul(cupy.asarray(A), cupy.asarray(B))
        result = cuda.as_cuda_array(c)
        if out is None:
            return result
        out.copy_to_device(result)
        return out
    if method not in ("own", "auto"):
        raise ValueError(f"method must be 'auto', 'own' or 'cublas', not {method!r}")
    out = empty((m, n), dtype) if out is None else out
    if A.dtype != dtype or B.dtype != dtype:
        from sstad.kernels.reduce import contiguous
        A, B = contiguous(A, dtype), contiguous(B, dtype)
    blocks = (min(MAX_BLOCKS, max(1, math.ceil(n / TILE))), min(MAX_BLOCKS, max(1, math.ceil(m / TILE))))
    if SIMULATOR:
        blocks = (min(blocks[0], 2), min(blocks[1], 4))
    tiled_kernel(dtype)[blocks, (TILE, TILE)](A, B, out, dtype.type(0))
    return out


def matmul(a, b, method="auto"):
    """``np.matmul(a, b)`` for 1-d and 2-d device arrays (two 1-d operands give a host
    scalar)."""
    if a.ndim > 2 or b.ndim > 2:
        raise ValueError("matmul on the device takes 1-d and 2-d operands")
    A = strided_view(a, lambda x: x[None, :]) if a.ndim == 1 else a
    B = strided_view(b, lambda x: x[:, None]) if b.ndim == 1 else b
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} do not match")
    C = gemm(A, B, method=method)
    if a.ndim == 1 and b.ndim == 1:
        return C[0, 0]
    if a.ndim == 1:
        return strided_view(C, lambda x: x[0])
    if b.ndim == 1:
        return strided_view(C, lambda x: x[:, 0])
    return C
