"""Segment sizes under a tape budget (sstad/ad/checkpointing.py): the first segment holds
up to ``STORED`` bytes and its tapes are kept, the later ones hold ``SEGMENT`` bytes and
run again.  Both sizes are shrunk here so that loops of a few iterations have a kept
first segment and several rerun ones; every gradient is then the unbudgeted one, bit
for bit (a rerun repeats the same operations on the same values), and the one finite
differences give."""
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import sstad
import store_cases as sc
from fd import check_gradient
from sstad.ad import checkpointing
from test_tape_budget import PROGRAMS, X, W, matrix_for, while_break

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from tape_budget import euler  # noqa: E402  (the benchmark's Euler loop)

rng = np.random.default_rng(17)
BUDGET = 10 ** 6        # room to keep a segment: the sizes below decide


@pytest.fixture(autouse=True)
def small_segments(monkeypatch, tmp_path):
    """A first segment of about 3 iterations of a 5-element state, later ones of about 1;
    an empty disk cache (its key has sstad's source, not these values)."""
    monkeypatch.setattr(checkpointing, "STORED", 600)
    monkeypatch.setattr(checkpointing, "SEGMENT", 200)
    monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path))


def same(a, b):
    """The same gradients, bit for bit (a tuple of them, or one)."""
    a, b = (t if isinstance(t, tuple) else (t,) for t in (a, b))
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert np.array_equal(u, v), (u, v)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_kept_and_rerun_segments_match_no_budget_bit_for_bit(fn):
    grads = sstad.grad(fn, argnums=(0, 1), tape_budget=BUDGET)(X.copy(), W)
    check_gradient(fn, (X.copy(), W), grads, rng)
    same(grads, sstad.grad(fn, argnums=(0, 1), tape_budget=None)(X.copy(), W))


@pytest.mark.parametrize("policy", ["store", "recompute"])
@pytest.mark.parametrize("fn", [matrix_for, sc.in_place_write, while_break], ids=lambda f: f.__name__)
def test_every_policy_with_a_kept_segment(fn, policy):
    grads = sstad.grad(fn, argnums=(0, 1), policy=policy, tape_budget=BUDGET)(X.copy(), W)
    check_gradient(fn, (X.copy(), W), grads, rng)
    same(grads, sstad.grad(fn, argnums=(0, 1), policy=policy, tape_budget=None)(X.copy(), W))


@pytest.mark.parametrize("fn", [pytest.param(matrix_for, marks=pytest.mark.slow), sc.in_place_write, while_break,
                                sc.written_row], ids=lambda f: f.__name__)
def test_numba_kept_segment(fn):
    grads = sstad.jit(sstad.grad(fn, argnums=(0, 1), tape_budget=BUDGET))(X.copy(), W)
    same(grads, sstad.jit(sstad.grad(fn, argnums=(0, 1), tape_budget=None))(X.copy(), W))


def test_the_first_segment_is_kept_not_rerun():
    """With room in the budget the backward sweep reads the first segment's kept tapes;
    under a budget of less than four later segments no segment is kept."""
    y0, k = np.ones(4), np.linspace(0.5, 1.5, 4)
    text = sstad.dump(sstad.grad(euler, argnums=1, tape_budget=BUDGET), y0, k, 10, emit="python")
    assert "kept_tape_y" in text and "is_first" in text
    small = sstad.dump(sstad.grad(euler, argnums=1, tape_budget=700), y0, k, 10, emit="python")
    assert "ck_start" in small and "kept_" not in small


def test_one_compiled_gradient_over_trip_counts():
    """One numba gradient, called for 0 steps to many segments (one, the first kept and
    one rerun, many reruns), and again for a short loop after a long one: each call
    starts from empty tapes."""
    y0, k = np.linspace(0.5, 1.5, 8), np.linspace(-1.0, 1.0, 8)
    budgeted = sstad.jit(sstad.grad(euler, argnums=(0, 1), tape_budget=BUDGET))
    plain = sstad.jit(sstad.grad(euler, argnums=(0, 1), tape_budget=None))
    for steps in (1, 2, 3, 4, 5, 9, 40, 3, 200, 2):
        same(budgeted(y0, k, steps), plain(y0, k, steps))
    check_gradient(lambda y0, k: euler(y0, k, 40), (y0, k), budgeted(y0, k, 40), rng)


def test_peak_memory_with_a_kept_segment(monkeypatch):
    """5000 steps of a 64-element state tape 3.2 MB without a budget.  The kept first
    segment (100 kB) and one later one (20 kB) with the checkpoints stay under 400 kB."""
    monkeypatch.setattr(checkpointing, "STORED", 100_000)
    monkeypatch.setattr(checkpointing, "SEGMENT", 20_000)
    y0, k = np.ones(64), np.linspace(0.5, 1.5, 64)
    budgeted = sstad.grad(euler, argnums=1, tape_budget=400_000)
    budgeted(y0, k, 10)
    tracemalloc.start()
    try:
        budgeted(y0, k, 5000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 100_000 < peak < 400_000, peak


def raises_mid_loop(x, w):
    h = x.copy()
    for i in range(12):
        h = np.sin(h * w) + h
        assert np.max(h) < 1e3, "diverged"
    return np.sum(h * h)


def test_an_exception_mid_loop_leaves_nothing_behind():
    g = sstad.jit(sstad.grad(raises_mid_loop, argnums=(0, 1), tape_budget=BUDGET))
    with pytest.raises(AssertionError, match="diverged"):
        g(X * 1e3, W)
    same(g(X.copy(), W), sstad.grad(raises_mid_loop, argnums=(0, 1), tape_budget=None)(X.copy(), W))


def test_a_gradient_that_calls_a_gradient():
    """Reentrancy: the outer loop's body calls a checkpointed gradient of its own (a new
    process loading it from the disk cache: tests/test_compile_scaling.py)."""
    inner = sstad.grad(sc.while_euler, argnums=0, tape_budget=BUDGET)

    def outer(x, w):
        h = x.copy()
        for i in range(6):
            h = h + 0.1 * inner(h, w)
        return np.sum(h * h)
    got = sstad.jit(sstad.grad(outer, argnums=1, tape_budget=BUDGET))(X.copy(), W)
    want = sstad.grad(outer, argnums=1, tape_budget=None)(X.copy(), W)
    assert got == pytest.approx(want, rel=1e-12)
