"""Shape speculation (passes/shape_speculation.py): ``unbroadcast`` assumed away behind a
check; a call whose arrays break the assumption reruns without it, with the same results."""
import sys
from pathlib import Path

import numpy as np
import pytest

import sstad
from fd import check_gradient
from sstad.api import Compiled

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import lstm  # noqa: E402


def gate(x, w):
    """``w[b:]`` has x's length when ``w`` has 2b values, and broadcasts when it has b + 1."""
    b = x.shape[0]
    return np.sum(np.tanh(x * w[b:] + w[:b]) * x)


def gate_logged(x, w, log):
    b = x.shape[0]
    log[0] = 1.0                    # writes into an argument: a call must not run twice
    return np.sum(np.tanh(x * w[b:] + w[:b]) * x)


def gate_scaled(s, x, w):
    return gate(s * x, w)


X = np.array([0.3, -0.7, 0.5])
PLAIN = (X, np.array([0.2, -0.4, 0.9, 0.6, -0.1, 0.3]))      # w[b:] of length 3
BROADCASTING = (X, np.array([0.2, -0.4, 0.9, 0.6]))          # w[b:] of length 1


def unspeculated(args, backend):
    compiled = Compiled(sstad.grad(gate, argnums=(0, 1)), args)
    assert "same_shape" not in compiled.source("python")
    return compiled.run(backend, compiled.leaves(args))


def speculating(jitted):
    return ["same_shape" in c.source("python") for c in jitted._compiled.values()]


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("order", [(PLAIN, BROADCASTING), (BROADCASTING, PLAIN)], ids=["plain-first", "broadcasting-first"])
def test_a_failed_check_reruns_without_speculation(backend, order):
    grad = sstad.jit(sstad.grad(gate, argnums=(0, 1)), backend=backend)
    first, second = order
    results = [grad(*first)]
    assert speculating(grad) == [first is PLAIN]         # a broadcasting first call switched at once
    results += [grad(*second), grad(*first)]
    assert speculating(grad) == [False]
    rng = np.random.default_rng(0)
    for args, got in zip((first, second, first), results):
        for g, ref in zip(got, unspeculated(args, "python")):
            np.testing.assert_allclose(g, ref, rtol=1e-14 if backend == "numba" else 0, atol=0)
        check_gradient(gate, args, got, rng)
    assert results[0][1].shape == first[1].shape and results[1][1].shape == second[1].shape


def test_the_dump_shows_the_checks_and_no_unbroadcast():
    text = sstad.dump(sstad.grad(gate, argnums=(0, 1)), *PLAIN, emit="python")
    assert "rt.broadcast.same_shape(x, x_1)" in text and "rt.unbroadcast(" not in text


def test_no_speculation_where_a_call_could_not_rerun():
    text = sstad.dump(sstad.grad(gate_logged, argnums=(0, 1)), *PLAIN, np.zeros(1), emit="python")
    assert "same_shape" not in text and "rt.unbroadcast(" in text


@pytest.mark.parametrize("args", [PLAIN, BROADCASTING], ids=["plain", "broadcasting"])
def test_second_derivatives_through_speculated_code(args):
    second = sstad.jit(sstad.grad(sstad.grad(gate_scaled)), backend="python")
    first = sstad.jit(sstad.grad(gate_scaled), backend="python")
    h = 1e-5
    expected = (first(0.8 + h, *args) - first(0.8 - h, *args)) / (2 * h)
    assert second(0.8, *args) == pytest.approx(expected, rel=1e-7)


def test_the_lstm_gradient_has_no_unbroadcast():
    rng = np.random.default_rng(1)
    layers, b, c = 2, 3, 4
    args = (rng.standard_normal((2 * layers, 4 * b)), rng.standard_normal((3, b)),
            rng.standard_normal((2 * layers, b)), rng.standard_normal((c, b)))
    grad_fn = sstad.grad(lstm.lstm_objective, argnums=(0, 1))
    text = sstad.dump(grad_fn, *args, emit="numba")
    assert "rt.unbroadcast(" not in text and "same_shape" in text
    grads = sstad.jit(grad_fn, backend="python")(*args)
    check_gradient(lambda m, e: lstm.lstm_objective(m, e, args[2], args[3]), args[:2], grads, rng)


def test_zeros_like_with_a_shape_of_its_own_is_not_shaped_like_its_argument():
    x = np.array([0.3])
    got = sstad.jit(sstad.grad(zeros_of_another_shape), backend="python")(x)
    np.testing.assert_allclose(got, 8 * np.cos(0.6), rtol=1e-14)


def zeros_of_another_shape(x):
    t = np.zeros_like(x, shape=(4,)) + 2.0          # 4 values, whatever x's length
    return np.sum(np.sin(x * t))
