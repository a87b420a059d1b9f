import os

from hypothesis import HealthCheck, settings

_PROFILE = dict(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("default", **_PROFILE)
settings.register_profile("ci", **_PROFILE)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
