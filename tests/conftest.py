import os

from hypothesis import HealthCheck, settings

_PROFILE = dict(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("default", **_PROFILE)
# CI draws the same examples every run, so a red CI is a regression, not a new draw.
settings.register_profile("ci", derandomize=True, **_PROFILE)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default"))
