"""Freed memory kept in the process for the next call (glibc's ``malloc``).

A gradient holds its tape until the backward sweep reads it: on the GMM at 10k points,
25 arrays of 800 kB.  By default glibc's ``malloc`` maps blocks that large straight from
the kernel, and gives the top of the heap back once more than twice its threshold is
free, so every call faulted in and zeroed its tape's pages again (6 of the gradient's
27 ms).  With both thresholds raised, freed blocks stay in the heap and the next call
reuses them, as the caching allocators of JAX and PyTorch do on their own.  The cost:
up to :data:`KEEP` bytes of freed memory stay with the process.

Nothing changes where the C library has no ``mallopt`` (not glibc), or where the user
chose the allocator's settings (``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_`` or
``GLIBC_TUNABLES`` in the environment).
"""
import ctypes
import os

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3     # glibc's malloc.h
MMAP = 32 << 20        # the largest threshold glibc accepts on 64-bit: bigger blocks are mapped
KEEP = 256 << 20       # free memory at the top of the heap kept for the next call

_done = False


def keep_freed_memory():
    """Raise glibc's thresholds once per process (see the module docstring); True if set.

    Example::

        from sstad.backend import heap
        heap.keep_freed_memory()
    """
    global _done
    if _done:
        return False
    _done = True
    if any(name in os.environ for name in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES")):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP)) and bool(mallopt(M_TRIM_THRESHOLD, KEEP))
