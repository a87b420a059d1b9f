"""The CUDA tests run under Numba's CUDA simulator unless a GPU is to be used.

``numba.cuda`` decides between the simulator and the driver once, when it is first
imported, from ``NUMBA_ENABLE_CUDASIM``; nothing else in the suite imports it (sstad
imports it only when the cuda backend runs, the kernels only when imported), and
Numba's CPU compiler does not read the variable.  So this conftest, collected before
the tests in this folder, sets it for the rest of the session: the CUDA tests run in
the same ``pytest`` process as the others.  ``NUMBA_ENABLE_CUDASIM=0`` in the
environment runs them on a real GPU instead.
"""
import os
import sys

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
if "numba.cuda" in sys.modules and os.environ["NUMBA_ENABLE_CUDASIM"] == "1":
    from numba.cuda.core import config as _config
    if not _config.ENABLE_CUDASIM:
        raise RuntimeError("numba.cuda was imported before tests/cuda/conftest.py could choose "
                           "the simulator: run the CUDA tests on their own (pytest tests/cuda)")
