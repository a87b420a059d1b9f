"""Loop fusion (sstad/passes/loop_fusion.py): runs of elementwise statements inside loops
written as one loop over the index by the numba backend.  Each fused gradient is checked
against finite differences and against the same gradient compiled without loop fusion,
bit for bit."""
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import sstad
from sstad.passes.loop_fusion import fusing_loops
from sstad.passes.shape_speculation import speculating
from sstad.testing import check_grads

FUSED_LOOP = re.compile(r"^\s*for i(_\d+)? in range\(n(_\d+)?\):$", re.M)
OVERLAP_CHECK = "regions updated in one loop overlap"


def numba_text(f, *args):
    with speculating():
        return sstad.dump(f, *args, emit="numba")


def fused_and_unfused(f, args, monkeypatch, tmp_path):
    """The results of ``sstad.jit(f)`` compiled with and without loop fusion (each in a
    cache of its own, so neither reads the other's compiled code)."""
    results = []
    for on in (True, False):
        monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path / str(on)))
        with fusing_loops(on):
            results.append(sstad.jit(f)(*args))
    return results


def assert_same_bits(a, b):
    for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        assert np.array_equal(np.asarray(x), np.asarray(y)), np.max(np.abs(np.asarray(x) - np.asarray(y)))


def accumulate(x, s):
    """A value read twice (``a``), an accumulation into an array the function allocates
    (``g += ...``) and a value read after the run (``b``)."""
    w = np.cos(x) * s
    g = np.zeros_like(x)
    total = 0.0
    for t in range(4):
        a = x * w + t
        b = a * a - a / (1.0 + w * w)
        g += b * 0.5
        total = total + np.sum(g * x) + np.sum(b)
    return total


def windows(w, x, k):
    """The gradient adds into two windows of ``dw``: ``[:4]`` and ``[k:k + 4]``, which
    overlap for k < 4 (the loop's prologue finds out, and the call reruns unfused)."""
    total = 0.0
    for t in range(3):
        a = x * w[:4]
        b = x * w[k:k + 4]
        total = total + np.sum(a * b * a + b)
    return total


def test_accumulation_fuses_and_matches(monkeypatch, tmp_path):
    rng = np.random.default_rng(0)
    x, s = rng.standard_normal(6), 0.7
    grad = sstad.grad(accumulate, argnums=(0, 1))
    assert FUSED_LOOP.search(numba_text(accumulate, x, s)) and FUSED_LOOP.search(numba_text(grad, x, s))
    assert numba_text(grad, x, s) == numba_text(grad, x, s)        # the same text: the disk cache finds it
    for f in (accumulate, grad):
        fused, unfused = fused_and_unfused(f, (x, s), monkeypatch, tmp_path)
        assert_same_bits(fused, unfused)
    check_grads(accumulate, (x, s), modes="rev")


@pytest.mark.parametrize("k", [4, 1])
def test_overlapping_windows(k, monkeypatch, tmp_path):
    rng = np.random.default_rng(1)
    w, x = rng.standard_normal(8), rng.standard_normal(4)
    grad = sstad.grad(windows, argnums=0)
    text = numba_text(grad, w, x, k)
    assert FUSED_LOOP.search(text) and OVERLAP_CHECK in text
    reruns = []
    rerun = sstad.api.Jitted._without_speculation
    monkeypatch.setattr(sstad.api.Jitted, "_without_speculation",
                        lambda self, *a: reruns.append(1) or rerun(self, *a))
    fused, unfused = fused_and_unfused(grad, (w, x, k), monkeypatch, tmp_path)
    assert len(reruns) == (k < 4)       # overlapping windows: the prologue's check fails once
    assert_same_bits(fused, unfused)
    check_grads(lambda w, x: windows(w, x, k), (w, x), modes="rev")


def test_division_by_zero_as_numpy(monkeypatch, tmp_path):
    """Division in the loop is NumPy's (inf, nan), as on arrays, not Python's error."""
    def divide(x):
        y = np.zeros_like(x)
        for t in range(2):
            a = x * x
            y += a / (a - a) + a
            y /= a - a
        return y
    x = np.array([0.0, 1.0, -2.0])
    assert FUSED_LOOP.search(numba_text(divide, x))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = divide(x)
    fused, unfused = fused_and_unfused(divide, (x,), monkeypatch, tmp_path)
    assert np.array_equal(fused, unfused, equal_nan=True) and np.array_equal(fused, expected, equal_nan=True)


def test_overlapping_views_do_not_fuse():
    """``v += u`` with ``u``, ``v`` shifted views of one array: no loop over the index."""
    def shift_add(x):
        y = x * 1.0
        for t in range(3):
            u = y[1:]
            v = y[:-1]
            v += u * u + u
        return np.sum(y * x)
    x = np.linspace(0.1, 0.9, 7)
    assert not FUSED_LOOP.search(numba_text(shift_add, x))
    assert np.allclose(sstad.jit(shift_add)(x), shift_add(x), rtol=1e-15, atol=0)
    check_grads(shift_add, (x,), modes="rev")


def test_arguments_are_not_written_in_a_loop():
    """An argument may share memory with another argument: updates of it stay unfused."""
    def update(g, x):
        for t in range(2):
            a = x * x
            g += a * a + a
        return g
    x = np.linspace(0.1, 0.9, 5)
    text = numba_text(update, x.copy(), x)
    assert FUSED_LOOP.search(text) and not re.search(r"\bg(_\d+)?\[i", text)
    g, h = x.copy(), x.copy()
    assert np.array_equal(sstad.jit(update)(g, g), update(h, h))


def sigmoid_chain(x, w):
    """``g`` is made before ``tanh`` ends a run; the gradient's runs read it."""
    total = 0.0
    for t in range(3):
        e = np.exp(x * w + t)
        g = 1.0 / (1.0 + e)
        h = np.tanh(g * x)
        total = total + np.sum((g * h + g * g) * x)
    return total


def test_cheap_values_are_recomputed_in_the_run(monkeypatch, tmp_path):
    """A run recomputes ``g = 1 / (1 + e)`` from ``e`` (``rematerialize``): no array is
    allocated for ``g`` outside the loop, and the result is the same, bit for bit."""
    x, w = np.linspace(-1.0, 1.0, 7), 0.5
    grad = sstad.grad(sigmoid_chain, argnums=(0, 1))
    text = numba_text(grad, x, w)
    assert re.search(r"= 1\.0 \+ e(_\d+)?\[i(_\d+)?\]", text)
    assert not re.search(r"^\s*g(_\d+)? = 1\.0 / ", text, re.M)
    fused, unfused = fused_and_unfused(grad, (x, w), monkeypatch, tmp_path)
    assert_same_bits(fused, unfused)
    check_grads(sigmoid_chain, (x, w), modes="rev")


def written_between(x):
    """``a`` is made from ``y`` before ``y[0]`` is written: the run reads ``a`` as made."""
    y = x * 1.0
    total = 0.0
    for t in range(3):
        a = y * 2.0
        b = np.exp(a)
        y[0] = np.sum(b) * 1e-3
        c = a * b + a
        total = total + np.sum(c * c - a)
    return total


def written_in_run(x):
    """``a`` is updated in the run itself, after a statement of the run read it."""
    total = 0.0
    for t in range(3):
        a = x * 2.0
        b = np.exp(a)
        c = a * b + a
        a += c
        total = total + np.sum(c * a - a)
    return total


@pytest.mark.parametrize("f", [written_between, written_in_run])
def test_values_written_later_are_not_recomputed(f, monkeypatch, tmp_path):
    x = np.linspace(0.1, 0.9, 7)
    fused, unfused = fused_and_unfused(f, (x,), monkeypatch, tmp_path)
    assert_same_bits(fused, unfused)
    assert np.allclose(fused, f(x.copy()), rtol=1e-14, atol=0)
    check_grads(f, (x,), modes="rev")


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def lstm_args(c):
    rng = np.random.default_rng(2)
    layers, b = 2, 14
    return (rng.standard_normal((2 * layers, 4 * b)), rng.standard_normal((3, b)),
            rng.standard_normal((2 * layers, b)), rng.standard_normal((c, b)))


def test_lstm_backward_layer_body_is_one_loop():
    """The LSTM gradient's backward layer body: the adjoint arithmetic, the cotangent
    rows it reads and zeroes and the additions into ``dmain_params`` and ``dstate`` in
    one loop (the replayed state writes and their restores between them are gone:
    ``passes/restores.py``); what stays an array is the value read after it."""
    import lstm
    text = numba_text(sstad.grad(lstm.lstm_objective, argnums=(0, 1)), *lstm_args(5))
    body = text[text.index("for k_1 in range("):]
    body = body[:body.index("\n            # lstm.py:25")]
    assert len(FUSED_LOOP.findall(body)) == 1
    assert body.count("np.empty(") == 1 and "np.copy(" not in body


@pytest.mark.slow
def test_lstm_allocations_per_step(monkeypatch, tmp_path):
    """Numba's allocation count per layer and time step of the LSTM gradient (forward
    and backward sweeps): 73 without loop fusion, 42.5 with it, 37.5 with the replayed
    state writes and their restores dropped too (``passes/restores.py``)."""
    import lstm
    from numba.core.runtime import _nrt_python, rtsys
    monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path))
    f = sstad.jit(sstad.grad(lstm.lstm_objective, argnums=(0, 1)))
    f(*lstm_args(5))
    _nrt_python.memsys_enable_stats()
    counts = []
    for c in (9, 17):
        args = lstm_args(c)
        before = rtsys.get_allocation_stats().alloc
        f(*args)
        counts.append(rtsys.get_allocation_stats().alloc - before)
    assert (counts[1] - counts[0]) / (8 * 2) <= 40
