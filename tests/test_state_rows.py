"""A `for` loop's state kept on a list (a user's trajectory, or a tape of states that a
checkpointed loop's segment rerun keeps) is filled into the rows of one array made
before the loop (numba backend, `loop_fusion.kept_rows`) instead of a new array per step.
Each case is checked against NumPy, against finite differences, and against the code
compiled without loop fusion, bit for bit; a state whose length changes falls back."""
import re
import sys
from pathlib import Path

import numpy as np

import sstad
from sstad.testing import check_grads

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from test_loop_fusion import assert_same_bits, fused_and_unfused, numba_text  # noqa: E402

ROWS = re.compile(r"^\s*rows(_\d+)? = np\.empty\(\(max\(", re.M)


def trajectory(y0, k, n):
    """Explicit Euler keeping every state, as a user plots a trajectory."""
    y = y0.copy()
    states = []
    for i in range(n):
        states.append(y)
        y = y + 0.1 * (-k * y + np.cos(0.1 * i))
    return np.sum(np.stack(states) ** 2) + np.sum(y)


def test_a_kept_state_fills_rows_of_one_array(monkeypatch, tmp_path):
    y0, k = np.linspace(0.5, 1.5, 9), np.linspace(0.2, 2.0, 9)
    text = numba_text(trajectory, y0, k, 12)
    assert ROWS.search(text), text
    assert np.allclose(sstad.jit(trajectory)(y0, k, 12), trajectory(y0, k, 12), rtol=1e-14, atol=0)
    fused, unfused = fused_and_unfused(trajectory, (y0, k, 12), monkeypatch, tmp_path)
    assert_same_bits(fused, unfused)
    check_grads(trajectory, (y0, k, 12))


def test_a_checkpointed_loop_reruns_its_segments_into_rows(monkeypatch, tmp_path):
    """Under a 64 kB tape budget the Euler loop's 5000 steps are rerun in segments, each
    rerun a `for` loop whose states are its tape."""
    from tape_budget import euler       # the explicit-Euler `while` loop of the benchmark
    y0, k = np.linspace(0.5, 1.5, 16), np.linspace(0.2, 2.0, 16)
    grad = sstad.grad(euler, argnums=1, tape_budget=64_000)
    assert ROWS.search(numba_text(grad, y0, k, 5000))
    fused, unfused = fused_and_unfused(grad, (y0, k, 5000), monkeypatch, tmp_path)
    assert_same_bits(fused, unfused)
    assert_same_bits(fused, sstad.jit(sstad.grad(euler, argnums=1, tape_budget=None))(y0, k, 5000))
    check_grads(euler, (y0, k, 50), modes="rev")


def grow(y0, k):
    y = y0.copy()
    states = []
    for i in range(4):
        states.append(y)
        y = y + 0.1 * (-k * y + 1.0)
    total = np.sum(y)
    for i in range(4):
        total = total + np.sum(states[i] * states[i])
    return total


def test_a_state_that_changes_length_falls_back():
    """The state starts with one value and broadcasts to k's length: the check that the
    rows rely on fails, and the call runs again without them."""
    y0, k = np.array([1.0]), np.linspace(0.2, 2.0, 6)
    assert ROWS.search(numba_text(grow, y0, k))
    assert np.allclose(sstad.jit(grow)(y0, k), grow(y0, k), rtol=1e-14, atol=0)
    check_grads(grow, (y0, k))
