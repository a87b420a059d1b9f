"""Launch configuration, device arrays and strided views, on a GPU or the simulator.

Under ``NUMBA_ENABLE_CUDASIM=1`` every CUDA thread is a Python thread: blocks are small
(``BLOCK`` threads) and grids capped at ``MAX_BLOCKS``; every kernel is written with
grid-stride loops, so any grid computes the same result.
"""
import math

import numpy as np
from numba import cuda

SIMULATOR = cuda.to_device.__module__.startswith("numba.cuda.simulator")
BLOCK = 8 if SIMULATOR else 256           # threads per block (a power of two)
TILE = 4 if SIMULATOR else 16           # GEMM tile edge
MAX_BLOCKS = 8 if SIMULATOR else 65535


def grid(n, block=BLOCK):
    """Blocks for ``n`` elements with grid-stride loops: enough to cover them, capped."""
    return max(1, min(MAX_BLOCKS, math.ceil(n / block)))


def is_device_array(x):
    """A Numba device array (on a GPU or simulated) or an array with a CUDA array interface."""
    if SIMULATOR:
        return type(x).__name__ == "FakeCUDAArray"
    return cuda.is_cuda_array(x)


def as_device(x):
    """``x`` on the device: Numba device arrays as they are, other CUDA arrays (CuPy)
    without a copy, NumPy arrays copied once."""
    if type(x).__name__ == "FakeCUDAArray" or isinstance(x, _device_types()):
        return x
    if not SIMULATOR and cuda.is_cuda_array(x):
        return cuda.as_cuda_array(x)
    return cuda.to_device(np.ascontiguousarray(x))


def _device_types():
    if SIMULATOR:
        return ()
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    return (DeviceNDArray,)


def empty(shape, dtype):
    return cuda.device_array(tuple(int(s) for s in shape), dtype=np.dtype(dtype))


def strided_view(x, view):
    """The device view ``view(a)`` of ``x``, where ``view`` is a NumPy function that
    returns a view of its argument (basic indexing, transpose, broadcast_to, reshape of
    a contiguous array).  ``ValueError`` when it is not a view, or has negative strides."""
    if SIMULATOR:
        v = view(x._ary)
        _check_view(v, x._ary)
        return type(x)(v)
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    # the same view of a stand-in with x's shape and strides (its memory is never read)
    probe = np.lib.stride_tricks.as_strided(np.empty(1, x.dtype), x.shape, x.strides)
    v = view(probe)
    _check_view(v, probe)
    start = v.__array_interface__["data"][0] - probe.__array_interface__["data"][0]
    extent = _extent(v)
    data = x.gpu_data.view(start, start + extent) if extent else x.gpu_data.view(0, 0)
    return DeviceNDArray(v.shape, v.strides, x.dtype, gpu_data=data)


def _check_view(v, base):
    if v.size and not np.may_share_memory(v, base):
        raise ValueError("not a view of the array")
    if any(s < 0 for s in v.strides):
        raise ValueError("views with negative strides are not supported on the device")


def _extent(a):
    """Bytes from the first element of ``a`` to the end of its last."""
    if a.size == 0:
        return 0
    return sum((n - 1) * s for n, s in zip(a.shape, a.strides)) + a.dtype.itemsize
