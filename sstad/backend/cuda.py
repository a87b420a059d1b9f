"""The cuda backend: ``sstad.jit(f, backend="cuda")``.

The same IR as the other backends (primal or derivative), written as host Python:
control flow and scalars run on the host, each array primitive is a kernel launch from
``sstad.kernels`` and each chain of elementwise operations one generated kernel
(``cuda_emit``).  Arguments are copied to the device once per call (device arrays, from
Numba or CuPy, are taken as they are); values stay on the device between operations, and
loop tapes are host lists of device arrays.  Results come back as NumPy arrays, or stay
on the device with ``backend=CudaBackend(device_results=True)``.

``numba.cuda`` is imported at the first compilation, not with sstad, so that
``NUMBA_ENABLE_CUDASIM=1`` (Numba's CUDA simulator) can be set up to then.
"""
from __future__ import annotations

import abc
import linecache
import math

import numpy as np

from sstad.backend.base import Backend, register
from sstad.backend.loader import content_key
from sstad.errors import BackendError

_HINT = ("run it with backend='numba', or keep this part outside the function compiled "
         "for the GPU; docs/gpu.md lists what runs on the device")


class DeviceArray(abc.ABC):
    """Arrays in GPU memory: Numba device arrays (also the simulator's) and anything with
    ``__cuda_array_interface__`` (CuPy).  Checked by duck typing, so that sstad need not
    import ``numba.cuda`` to recognise them."""

    @classmethod
    def __subclasshook__(cls, other):
        if hasattr(other, "__cuda_array_interface__") or other.__name__ == "FakeCUDAArray":
            return True
        return NotImplemented


class CudaBackend(Backend):
    name = "cuda"
    fuse = True
    array_types = (DeviceArray,)

    def __init__(self, device_results=False):
        self.device_results = device_results

    def emit(self, module):
        from numba import cuda
        if not cuda.is_available():
            raise BackendError("backend='cuda' needs an NVIDIA GPU and its driver; numba.cuda finds none",
                               module.entry.loc, "use backend='numba', or set NUMBA_ENABLE_CUDASIM=1 before "
                               "Python starts to run it on Numba's CUDA simulator (slow)")
        from sstad.backend import cuda_emit
        found = cuda_emit.first_unsupported(module)
        if found:
            stmt, reason = found
            raise BackendError(f"the cuda backend cannot run this: {reason}", stmt.loc, _HINT)
        return cuda_emit.emit_module(module, self)

    def load(self, source, module, label):
        from sstad import runtime as rt
        from sstad.backend import cuda_ops
        filename = f"<sstad cuda {label} {content_key(source)[:8]}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = {"__name__": f"sstad_cuda_{label}", "cu": cuda_ops, "np": np, "math": math, "rt": rt}
        exec(compile(source, filename, "exec"), namespace)
        return namespace[module.entry.name]

    def call(self, fn, leaves):
        from sstad.backend import cuda_ops
        from sstad.kernels.launch import as_device
        args = [as_device(v) if isinstance(v, (np.ndarray, DeviceArray)) else v for v in leaves]
        out = fn(*args)
        if cuda_ops.take_error():
            raise IndexError("an index was out of bounds in a CUDA kernel (gather or scatter-add)")
        if self.device_results:
            return out
        if isinstance(out, tuple):
            return tuple(cuda_ops.to_host(v) for v in out)
        return cuda_ops.to_host(out)

CUDA = register(CudaBackend())
