"""Whole functions with control flow on backend="cuda" (the simulator), primal and
gradient, against the python backend (the same IR under NumPy); against the numba
backend in make test-slow (Numba's compile of these gradients takes minutes here).
Tiny sizes: every simulated thread is a Python thread."""
import sys
import pathlib

import numpy as np
import pytest
from numba import cuda

import corpus
import sstad
from sstad.backend.cuda import CudaBackend
from sstad.errors import BackendError

sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "benchmarks"))
import mlp  # noqa: E402

rng = np.random.default_rng(3)


def mlp_args(b=6, i=4, h=5, o=3):
    return (rng.standard_normal((i, h)), rng.standard_normal(h) * 0.1, rng.standard_normal((h, o)),
            rng.standard_normal(o) * 0.1, rng.standard_normal((b, i)), np.eye(o)[rng.integers(0, o, b)])


CASES = [
    ("nested_if", corpus.nested_if, (rng.standard_normal((3, 4)),), (0,)),
    ("flip_if_negative", corpus.flip_if_negative, (np.array([-0.5, 1.5, 2.0]),), None),
    ("row_spread", corpus.row_spread, (rng.standard_normal((3, 4)),), (0,)),
    ("normalize_rows", corpus.normalize_rows, (rng.random((3, 4)) + 0.5,), None),
    ("mlp", mlp.mlp_loss, mlp_args(), (0, 1, 2, 3)),
]


def _close(got, want):
    for g, w in zip(np.atleast_1d(got) if not isinstance(got, tuple) else got,
                    np.atleast_1d(want) if not isinstance(want, tuple) else want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name, fn, args, argnums", CASES, ids=[c[0] for c in CASES])
def test_primal_and_gradient_match_the_python_backend(name, fn, args, argnums):
    _close(sstad.jit(fn, backend="cuda")(*args), sstad.jit(fn, backend="python")(*args))
    if argnums is not None:
        g = sstad.grad(fn, argnums=argnums)
        _close(sstad.jit(g, backend="cuda")(*args), sstad.jit(g, backend="python")(*args))


def test_while_loop_reads_back_only_its_condition():
    def damp(x, rate, tol):
        while np.max(np.abs(x)) > tol:
            x = x * rate
        return x
    x = rng.standard_normal(5) * 4
    np.testing.assert_allclose(sstad.jit(damp, backend="cuda")(x, 0.5, 0.1), damp(x, 0.5, 0.1), rtol=1e-14)


def _tanh_steps(x, n):
    for _ in range(n):
        x = np.tanh(x) * 1.5
    return np.sum(x * x)


def test_loop_tape_lives_on_the_device():
    run = _tanh_steps
    x = rng.standard_normal(6)
    g = sstad.grad(run)
    np.testing.assert_allclose(sstad.jit(g, backend="cuda")(x, 3), sstad.jit(g, backend="python")(x, 3),
                               rtol=1e-12)


def test_checkpointed_loop_runs_on_the_device():
    """A tape budget of two states: segments are rerun from checkpoints held on the device."""
    run = _tanh_steps
    x = rng.standard_normal(6)
    g = sstad.grad(run, tape_budget=400)
    np.testing.assert_allclose(sstad.jit(g, backend="cuda")(x, 7), sstad.grad(run, tape_budget=None)(x, 7),
                               rtol=1e-12)


def test_device_arrays_in_and_results_kept_on_the_device():
    x = rng.standard_normal((3, 4))
    on_device = sstad.jit(corpus.flip_if_negative, backend=CudaBackend(device_results=True))
    out = on_device(cuda.to_device(x[0]))
    assert not isinstance(out, np.ndarray)
    np.testing.assert_allclose(out.copy_to_host(), corpus.flip_if_negative(x[0]), rtol=1e-14)


def uses_sort(x):
    y = x * 2.0
    return np.sort(y)


def test_an_unsupported_primitive_is_an_error_at_the_users_line():
    with pytest.raises(BackendError, match=r"test_cuda_backend.py:\d+.*no CUDA kernel for `sort`") as info:
        sstad.jit(uses_sort, backend="cuda")(np.ones(3))
    assert "return np.sort(y)" in str(info.value)


def gathers(x, idx):
    return np.sum(x[idx] * 2.0)


def test_gather_and_its_gradient_scatter_add():
    x, idx = rng.standard_normal(5), np.array([0, 3, 3, -1])
    assert sstad.jit(gathers, backend="cuda")(x, idx) == pytest.approx(gathers(x, idx), rel=1e-14)
    g = sstad.grad(gathers)
    np.testing.assert_allclose(sstad.jit(g, backend="cuda")(x, idx), sstad.jit(g, backend="python")(x, idx),
                               rtol=1e-14)
    with pytest.raises(IndexError, match="out of bounds"):
        sstad.jit(gathers, backend="cuda")(x, np.array([5]))


@pytest.mark.slow
@pytest.mark.parametrize("name, fn, args, argnums", CASES, ids=[c[0] for c in CASES])
def test_primal_and_gradient_match_the_numba_backend(name, fn, args, argnums):
    _close(sstad.jit(fn, backend="cuda")(*args), sstad.jit(fn, backend="numba")(*args))
    if argnums is not None:
        g = sstad.grad(fn, argnums=argnums)
        _close(sstad.jit(g, backend="cuda")(*args), sstad.jit(g, backend="numba")(*args))
