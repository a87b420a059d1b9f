"""The CUDA tests run under Numba's CUDA simulator (chosen in tests/conftest.py) unless
``NUMBA_ENABLE_CUDASIM=0`` asks for a GPU."""
import os
import sys

if "numba.cuda" in sys.modules and os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    from numba.cuda.core import config as _config
    if not _config.ENABLE_CUDASIM:
        raise RuntimeError("numba.cuda was imported before the test session could choose the simulator: "
                           "run the CUDA tests on their own (pytest tests/cuda)")
