"""Building nested loops costs in proportion to the code built, not 2 ** depth.

``Builder.loop`` finds a loop's carried values by running its body to a fixpoint; a
nested loop is rebuilt each time its enclosing body runs.  Each loop site starts from
what it settled on last time, so one run usually suffices."""
import numpy as np
import pytest

import nest_cases as nc
import sstad
from sstad.frontend.builder import Builder


@pytest.fixture
def apply_calls(monkeypatch):
    count = [0]
    original = Builder.apply

    def counting(self, *args, **kwargs):
        count[0] += 1
        return original(self, *args, **kwargs)
    monkeypatch.setattr(Builder, "apply", counting)

    def measure(fn):
        count[0] = 0
        sstad.dump(fn, 0.3, emit="ir", after="lowering")
        return count[0]
    return measure


def test_lowering_grows_linearly_with_nesting(apply_calls):
    counts = [apply_calls(getattr(nc, f"nest{d}")) for d in range(1, 6)]
    steps = {b - a for a, b in zip(counts, counts[1:])}
    assert len(steps) == 1, counts                       # the same cost per level


def test_reverse_mode_grows_with_the_code_it_builds(apply_calls):
    """The backward loop of each level recomputes the levels inside it (or, every other
    level, reads the tapes of the level inside, whose forward sweep moved into its own),
    so the derivative's size grows by a little more per level; its building cost follows
    it (once it doubled per level: 43, 99, 211, 435, 883, steps growing 2x a level)."""
    counts = [apply_calls(sstad.grad(getattr(nc, f"nest{d}"))) for d in range(1, 6)]
    steps = [b - a for a, b in zip(counts, counts[1:])]
    assert all(b < 1.5 * a for a, b in zip(steps, steps[1:])), counts   # no faster than quadratic
    lines = len(sstad.dump(sstad.grad(nc.nest5), 0.3, emit="ir", after="lowering").splitlines())
    assert counts[-1] < 2 * lines, (counts, lines)


def test_nested_loops_still_differentiate():
    from sstad.testing import check_grads
    check_grads(nc.nest3, (0.3,), backend="python")
    assert np.isfinite(sstad.grad(nc.nest5)(0.3))
