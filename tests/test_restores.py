"""Undone writes (sstad/passes/restores.py): the reverse sweep's replayed in-place writes
and their restores, dropped where nothing between them sees the array.  Each gradient is
checked against finite differences on both backends and against the same gradient
compiled without the pass, bit for bit; where something reads the array between the
write and its restore (directly, through a view, through a list), the pair stays."""
import numpy as np
import pytest

import sstad
from sstad.passes.restores import dropping_undone_writes
from sstad.testing import check_grads

BACKENDS = ["python", "numba"]


def restores(f, args, on=True):
    """How many restores (``keep`` writes) the compiled gradient of ``f`` holds."""
    with dropping_undone_writes(on):
        return sstad.dump(sstad.grad(f, argnums=0), *args, emit="ir").count("keep=True")


def gradients(f, args, backend, monkeypatch, tmp_path):
    """The gradient of ``f`` compiled with and without the pass (each in a cache of its own)."""
    out = []
    for on in (True, False):
        monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path / f"{backend}{on}"))
        with dropping_undone_writes(on):
            out.append(sstad.jit(sstad.grad(f, argnums=0), backend=backend)(*args))
    return out


def rows(w, s0):
    """Rows of a state written in place in a loop, as an LSTM writes ``state[2 * i]``:
    the nested pairs ``s[i] = h; s[i + 1] = g; ...; s[i + 1] = old; s[i] = old``."""
    s = s0.copy()
    total = 0.0
    for t in range(3):
        for i in range(2):
            h = np.tanh(s[2 * i] * w[i])
            g = s[2 * i + 1] * h + w[i]
            s[2 * i] = h
            s[2 * i + 1] = g
        total = total + np.sum(s[1] * s[3])
    return total


def columns32(w, s0):
    """Columns (strided regions) of a float32 state, one written with a scalar."""
    s = s0.copy()
    total = np.float32(0.0)
    for t in range(3):
        for i in range(2):
            s[:, i] = np.sin(s[:, i] * w[i])
            s[1:3, i + 2] = np.sum(s[:, i]) * w[i, 0]
        total = total + np.sum(s * s)
    return total


def reads_between(w, s0):
    """The body reads the whole state after its write: the reverse sweep reads the
    written value between the replayed write and the restore."""
    s = s0.copy()
    total = 0.0
    for t in range(3):
        for i in range(2):
            s[i] = np.tanh(s[i] * w[i])
            total = total + np.sum(s * s)
    return total


def view_between(w, s0):
    """As ``reads_between``, the read through a strided view taken before the loop."""
    s = s0.copy()
    v = s[:, 1:5:2]
    total = 0.0
    for t in range(3):
        for i in range(2):
            s[i] = np.tanh(s[i] * w[i])
            total = total + np.sum(v * v)
    return total


def list_between(w, s0):
    """The state also sits in a list the body reads it from after the write."""
    s = s0.copy()
    total = 0.0
    for t in range(3):
        for i in range(2):
            held = [s, s]
            s[i] = np.tanh(s[i] * w[i])
            total = total + np.sum(held[1][i] * w[i])
    return total


def args64(rows_, cols):
    rng = np.random.default_rng(3)
    return rng.standard_normal((2, cols)) * 0.5, rng.standard_normal((rows_, cols)) * 0.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_replayed_writes_dropped(backend, monkeypatch, tmp_path):
    args = args64(4, 5)
    assert restores(rows, args, on=False) >= 2 and restores(rows, args) == restores(rows, args, on=False) - 2
    with_pass, without = gradients(rows, args, backend, monkeypatch, tmp_path)
    assert np.array_equal(with_pass, without)
    check_grads(rows, args, modes="rev", backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_columns_and_a_scalar_write(backend, monkeypatch, tmp_path):
    w, s0 = (a.astype(np.float32) for a in args64(4, 4))
    assert restores(columns32, (w, s0)) < restores(columns32, (w, s0), on=False)
    with_pass, without = gradients(columns32, (w, s0), backend, monkeypatch, tmp_path)
    assert with_pass.dtype == np.float32 and np.array_equal(with_pass, without)
    check_grads(columns32, (w, s0), modes="rev", backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [reads_between, view_between, list_between])
def test_pairs_with_a_read_between_stay(f, backend, monkeypatch, tmp_path):
    args = args64(2, 5)
    assert restores(f, args) == restores(f, args, on=False) >= 1
    with_pass, without = gradients(f, args, backend, monkeypatch, tmp_path)
    assert np.array_equal(with_pass, without)
    check_grads(f, args, modes="rev", backend=backend)
