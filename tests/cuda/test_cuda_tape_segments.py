"""A checkpointed loop whose first segment's tapes are kept (sstad/ad/checkpointing.py),
on backend="cuda" (the simulator): the kept, rerun and last segments' tapes on the
device give the unbudgeted gradient bit for bit."""
import numpy as np
import pytest

import sstad
from sstad.ad import checkpointing


def _tanh_steps(x, n):
    for _ in range(n):
        x = np.tanh(x) * 1.5
    return np.sum(x * x)


@pytest.mark.parametrize("n", [1, 2, 7, 12])
def test_kept_first_segment_on_the_device(monkeypatch, tmp_path, n):
    monkeypatch.setattr(checkpointing, "STORED", 300)       # about 2 states of 6, then 1 a segment
    monkeypatch.setattr(checkpointing, "SEGMENT", 100)
    monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path))   # its key has sstad's source, not these
    x = np.random.default_rng(5).standard_normal(6)
    budgeted = sstad.jit(sstad.grad(_tanh_steps, tape_budget=10 ** 6), backend="cuda")(x, n)
    plain = sstad.jit(sstad.grad(_tanh_steps, tape_budget=None), backend="cuda")(x, n)
    assert np.array_equal(budgeted, plain)
