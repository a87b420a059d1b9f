"""sstad.jit raises glibc's malloc thresholds once per process, so a gradient's tape reuses
the pages the previous call freed; a user's own allocator settings are left alone."""
import os
import subprocess
import sys

import pytest

CODE = "from sstad.backend import heap; print(heap.keep_freed_memory(), heap.keep_freed_memory())"


def run(env):
    out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_set_once_per_process():
    env = {k: v for k, v in os.environ.items() if k not in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_",
                                                             "GLIBC_TUNABLES")}
    assert run(env) == ["True", "False"]


def test_the_users_settings_are_left_alone():
    assert run({**os.environ, "MALLOC_TRIM_THRESHOLD_": "1000000"}) == ["False", "False"]
