"""A memory budget for loop tapes (``tape_budget=``, sstad/ad/checkpointing.py): under a
budget small enough to split every loop into many segments, each gradient is the one
finite differences give and the one without a budget (to rounding); peak memory stays
under the budget, and grows with it, not with the trip count."""
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import sstad
import store_cases as sc
from fd import check_gradient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from tape_budget import euler  # noqa: E402  (the benchmark's Euler loop)

rng = np.random.default_rng(13)
X = np.array([0.3, -0.8, 0.5, 1.1, -0.2])
W = 0.7
# 5 float64 per iteration (40 bytes + a header): one or a few iterations per segment
TINY = [100, 700]


def matrix_for(x, w):
    a = np.outer(x, x) * 0.1 + np.eye(x.shape[0]) * w
    h = x.copy()
    for i in range(9):
        h = np.tanh(a @ h) + 0.1 * i        # a @ h: a stored residual under "auto"
    return np.sum(h * h)


def nested_while(x, w):
    h = x.copy()
    for t in range(4):
        s = 0.0
        while s < 1.0:
            h = np.sin(h * w) + 0.3 * h
            s = s + 0.3
    return np.sum(h * h)


def while_break(x, w):
    h = x.copy()
    t = 0
    while t < 100:
        h = np.cos(h * w) * h + 0.2
        if np.sum(h) > 4.0:
            break
        t = t + 1
    return np.sum(h * h)


def early_return(x, w):
    h = x.copy()
    for i in range(12):
        h = h * w + np.sin(h)
        if np.max(h) > 2.5:
            return np.sum(h * h)
    return np.sum(h)


def row_writes(x, w):
    y = x.copy()
    for i in range(x.shape[0]):
        y[i] = np.sin(w * y[i - 1]) + y[i]
    for i in range(x.shape[0]):
        y[i] = y[i] * np.cos(y[(i + 1) % x.shape[0]])
    return np.sum(y * y)


PROGRAMS = sc.PROGRAMS + [matrix_for, nested_while, while_break, early_return, row_writes]


@pytest.mark.parametrize("budget", TINY)
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_many_segments_match_finite_differences_and_no_budget(fn, budget):
    grads = sstad.grad(fn, argnums=(0, 1), tape_budget=budget)(X.copy(), W)
    check_gradient(fn, (X.copy(), W), grads, rng)
    plain = sstad.grad(fn, argnums=(0, 1), tape_budget=None)(X.copy(), W)
    np.testing.assert_allclose(grads[0], plain[0], rtol=1e-12, atol=1e-14)
    assert grads[1] == pytest.approx(plain[1], rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("policy", ["store", "recompute"])
@pytest.mark.parametrize("fn", [matrix_for, sc.nested, sc.in_place_write, while_break],
                         ids=lambda f: f.__name__)
def test_every_policy_under_a_budget(fn, policy):
    grads = sstad.grad(fn, argnums=(0, 1), policy=policy, tape_budget=300)(X.copy(), W)
    check_gradient(fn, (X.copy(), W), grads, rng)


@pytest.mark.parametrize("fn", [matrix_for, sc.in_place_write, while_break,
                                pytest.param(row_writes, marks=pytest.mark.slow),
                                pytest.param(sc.nested, marks=pytest.mark.slow)],
                         ids=lambda f: f.__name__)
def test_numba_segments(fn):
    grads = sstad.jit(sstad.grad(fn, argnums=(0, 1), tape_budget=300))(X.copy(), W)
    plain = sstad.grad(fn, argnums=(0, 1), tape_budget=None)(X.copy(), W)
    np.testing.assert_allclose(grads[0], plain[0], rtol=1e-12, atol=1e-14)
    assert grads[1] == pytest.approx(plain[1], rel=1e-12, abs=1e-14)


def test_euler_checkpointed_equals_taped():
    y0, k = np.linspace(0.5, 1.5, 8), np.linspace(-1.0, 1.0, 8)
    for budget in (50, 1000, 20000):
        g = sstad.grad(euler, argnums=(0, 1), tape_budget=budget)(y0, k, 200)
        h = sstad.grad(euler, argnums=(0, 1), tape_budget=None)(y0, k, 200)
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=0)
    check_gradient(lambda y0, k: euler(y0, k, 200), (y0, k), g, rng)


def _peak(fn, *args):
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_peak_memory_stays_under_the_budget():
    """5000 steps of a 64-element state tape 3.2 MB of data (and a header each) without
    a budget; under 1 MB the peak stays under 1 MB.  Fails if checkpointing stops."""
    y0, k = np.ones(64), np.linspace(0.5, 1.5, 64)
    budgeted = sstad.grad(euler, argnums=1, tape_budget=1_000_000)
    plain = sstad.grad(euler, argnums=1, tape_budget=None)
    budgeted(y0, k, 10), plain(y0, k, 10)                 # compiled before measuring
    under = _peak(budgeted, y0, k, 5000)
    over = _peak(plain, y0, k, 5000)
    assert over > 3_000_000
    assert under < 1_000_000


def test_peak_memory_grows_with_the_budget_not_the_steps():
    y0, k = np.ones(64), np.linspace(0.5, 1.5, 64)
    budgeted = sstad.grad(euler, argnums=1, tape_budget=200_000)
    budgeted(y0, k, 10)
    short, long = _peak(budgeted, y0, k, 1000), _peak(budgeted, y0, k, 8000)
    assert long < 200_000 and long < 1.5 * short


def peak_rss_growth(steps, budgets):
    """Peak RSS growth over one numba gradient call of the benchmark's 64-element Euler
    loop per budget, in a fresh process (native code allocates outside tracemalloc)."""
    script = textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        from tape_budget import memory_row
        for budget in %r:
            memory_row(%d, budget)
    """ % (str(ROOT / "benchmarks"), budgets, steps))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return list(map(int, out.stdout.split()[-len(budgets):]))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_numba_peak_memory_under_a_budget():
    """200000 steps tape about 130 MB without a budget; under 4 MB the peak stays small."""
    under, over = peak_rss_growth(200_000, [4_000_000, None])
    assert over > 100_000_000, over
    assert under < 8_000_000, under


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_a_million_steps_under_100_mb():
    """The issue's case: 10^6 Euler steps, 650 MB of tapes, under a 100 MB budget."""
    under, over = peak_rss_growth(1_000_000, [100_000_000, None])
    assert over > 600_000_000, over
    assert under < 100_000_000, under


def test_no_budget_below_it_keeps_one_segment():
    """Under the budget the forward loop's tapes serve the backward loop: nothing runs
    twice (the rerun is there, as the else branch of the last segment's test)."""
    y0, k = np.ones(4), np.linspace(0.5, 1.5, 4)
    text = sstad.dump(sstad.grad(euler, argnums=1, tape_budget=10 ** 9), y0, k, 10, emit="python")
    assert "ck_start" in text and "is_last" in text
    scalar_only = sstad.dump(sstad.grad(sc.scalar_reads, tape_budget=100), X, W, emit="python")
    assert "ck_start" not in scalar_only           # no array on a tape: no budget needed


def test_second_derivative_through_a_budgeted_loop():
    """grad of grad: the inner gradient is taken without a budget (its checkpointing
    bookkeeping has no derivative), so the answer is the unbudgeted one."""
    def f(x, w):
        return sc.while_euler(x, w)
    outer = sstad.grad(lambda w: sstad.grad(f, argnums=1, tape_budget=100)(X.copy(), w))
    plain = sstad.grad(lambda w: sstad.grad(f, argnums=1, tape_budget=None)(X.copy(), w))
    assert outer(W) == pytest.approx(plain(W), rel=1e-12)


@pytest.mark.parametrize("bad", [0, -5, "big", True])
def test_a_bad_budget_is_refused(bad):
    with pytest.raises(ValueError, match="tape_budget"):
        sstad.grad(euler, tape_budget=bad)



def zero_trips(x, w):
    y = x.copy()
    t = 5.0
    while t < w:                      # w < 5: never entered
        y[0] = y[0] * w
        y = np.sin(y)
        t = t + 1.0
    return np.sum(y * x)


def test_a_loop_that_never_runs():
    grads = sstad.grad(zero_trips, argnums=(0, 1), tape_budget=100)(X.copy(), W)
    np.testing.assert_allclose(grads[0], 2 * X, rtol=1e-15)
    assert grads[1] == 0.0


def test_pullback_under_a_budget():
    def trajectory(x, w):
        h = x.copy()
        for i in range(7):
            h = np.tanh(h * w) + 0.1 * h
        return h
    dout = np.linspace(-1.0, 1.0, X.shape[0])
    budgeted = sstad.pullback(trajectory, tape_budget=100)(X.copy(), W, dout)
    plain = sstad.pullback(trajectory, tape_budget=None)(X.copy(), W, dout)
    np.testing.assert_allclose(budgeted[0], plain[0], rtol=1e-12)
    assert budgeted[1] == pytest.approx(plain[1], rel=1e-12)
