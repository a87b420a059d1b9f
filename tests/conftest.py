import atexit
import glob
import os
import shutil
import tempfile
import zlib

import pytest
from hypothesis import HealthCheck, settings


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _session_cache():
    """A cache for this run, removed when it ends.  A run that was killed cannot remove
    its own: the next run removes the caches of runs that are gone."""
    for old in glob.glob(os.path.join(tempfile.gettempdir(), "sstad_test_cache_*")):
        pid = old.rsplit("_", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    path = os.path.join(tempfile.gettempdir(), f"sstad_test_cache_{os.getpid()}")
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


# The cuda backend's tests (tests/cuda/, the examples in docs/gpu.md) run on Numba's CUDA
# simulator unless NUMBA_ENABLE_CUDASIM=0 asks for a GPU.  numba.cuda reads the variable
# once, when it is first imported (sstad imports it only when the cuda backend runs), and
# Numba's CPU compiler does not read it.
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

# The tests compile into a cache of their own; set SSTAD_CACHE_DIR to keep compiled code
# between runs instead.
if not os.environ.get("SSTAD_CACHE_DIR"):
    os.environ["SSTAD_CACHE_DIR"] = _session_cache()

_PROFILE = dict(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("default", **_PROFILE)
# CI draws the same examples every run, so a red CI is a regression, not a new draw.
settings.register_profile("ci", derandomize=True, **_PROFILE)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default"))


# --- the fast suite's sample of the large families of Numba cases --------------------
# A family below checks each of its cases on both backends; compiling every case with
# Numba is most of the fast suite's time.  `make test` (CI) runs the python backend on
# every case and Numba on a stable quarter of them (chosen by a hash of the test's id,
# so the same ones every run); the rest are marked slow and run under `make test-slow`.
NUMBA_SAMPLED = {
    "test_list_carry.py", "test_rules.py", "test_reverse_corpus.py", "test_call_forms.py", "test_corpus.py",
    "test_restores.py", "test_linalg_dtypes.py", "test_broadcast_proofs.py", "test_fuzz_regressions.py",
    "test_scalar_arguments.py", "test_special.py", "test_reverse.py", "test_reduction_spread.py",
    "test_linalg_rules.py", "test_list_lengths.py", "test_adjoint_arithmetic.py",
}
NUMBA_SAMPLE = 4          # one case in this many


def _numba_case(item):
    callspec = getattr(item, "callspec", None)
    return callspec is not None and any(isinstance(v, str) and v == "numba" for v in callspec.params.values())


@pytest.hookimpl(tryfirst=True)         # before `-m "not slow"` deselects
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in NUMBA_SAMPLED and _numba_case(item) \
                and zlib.crc32(item.nodeid.encode()) % NUMBA_SAMPLE:
            item.add_marker(pytest.mark.slow)
