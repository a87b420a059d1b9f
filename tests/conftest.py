import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

# The tests compile into a cache of their own, removed when the run ends; set
# SSTAD_CACHE_DIR to keep compiled code between runs instead.
if not os.environ.get("SSTAD_CACHE_DIR"):
    os.environ["SSTAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="sstad_test_cache_")
    atexit.register(shutil.rmtree, os.environ["SSTAD_CACHE_DIR"], ignore_errors=True)

_PROFILE = dict(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("default", **_PROFILE)
# CI draws the same examples every run, so a red CI is a regression, not a new draw.
settings.register_profile("ci", derandomize=True, **_PROFILE)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default"))
