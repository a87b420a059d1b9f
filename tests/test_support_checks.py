"""Checks and prints inside a compiled or differentiated function, each refused before:
``raise E("...")`` on a run-time path raises when taken (both backends, primal and
derivative code) and leaves the derivatives alone when not; ``assert`` likewise."""
import numpy as np
import pytest

import sstad
from refusals import refused_at
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


# --- raise (was: "`raise` on a path that depends on run-time values is not supported") ----

def root_sum(x):
    if np.any(x < 0):
        raise ValueError("negative")
    return np.sum(np.sqrt(x))


def by_mode(x, mode):
    if mode > 0:
        y = np.sin(x)
    elif mode < 0:
        y = np.cos(x)
    else:
        raise KeyError("no such mode")                 # the other paths keep going
    return np.sum(y ** 2)


def checked_step(x):
    return x * 2.0 if x[0] < 10.0 else fail(x)


def fail(x):
    raise RuntimeError(f"step {x.shape[0]} diverged")     # the message shows what it cannot format


def until_small(x):
    k = 0
    while np.max(np.abs(x)) > 0.1:
        x = x * 0.5
        k += 1
        if k > 50:
            raise ArithmeticError("no convergence")
    return np.sum(x * x) + x[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_raise_not_taken_leaves_values_and_derivatives_alone(backend):
    x = np.array([0.1, 0.9, 0.4])
    check_grads(root_sum, (x,), backend=backend)
    check_grads(by_mode, (x, 1), backend=backend)
    check_grads(by_mode, (x, -2), backend=backend)
    check_grads(until_small, (x,), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_raise_taken_raises_its_exception(backend):
    x = np.array([0.1, -0.9, 0.4])
    for f, args, kind, message in [(root_sum, (x,), ValueError, "negative"),
                                   (by_mode, (x, 0), KeyError, "no such mode"),
                                   (until_small, (np.array([np.inf]),), ArithmeticError, "no convergence")]:
        forward = sstad.jit(sstad.pushforward(f), backend=backend)
        for compiled, arguments in [(sstad.jit(f, backend=backend), args),
                                    (sstad.jit(sstad.grad(f), backend=backend), args),
                                    (forward, args + (np.ones_like(args[0]),) + (0,) * (len(args) - 1))]:
            with pytest.raises(kind, match=message):
                compiled(*arguments)
    with pytest.raises(RuntimeError, match=r"step \{x.shape\[0\]\} diverged"):     # run-time values unformatted
        sstad.jit(sstad.grad(lambda_free_sum), backend=backend)(np.array([11.0, 0.0, 1.0]))


def lambda_free_sum(x):
    return np.sum(checked_step(x))


class BadInput(ValueError):
    pass


def raises_own_class(x):
    if x[0] < 0:
        raise BadInput("negative")                     # ERR own
    return x[0]


def test_a_users_exception_class_is_refused_at_its_line():
    refused_at(raises_own_class, (np.ones(2),), r"raising `BadInput` at run time", "# ERR own")


# --- assert (checked at run time already: here under the derivative too) ------------------

def three_vector(x):
    assert x.shape[0] == 3, "needs three entries"
    return np.sum(x ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_assert_checks_in_the_compiled_derivative(backend):
    check_grads(three_vector, (np.array([0.1, 0.9, 0.4]),), backend=backend)
    for compiled in (sstad.jit(three_vector, backend=backend), sstad.jit(sstad.grad(three_vector), backend=backend)):
        with pytest.raises(AssertionError, match="needs three entries"):
            compiled(np.ones(4))


# --- print (was: "print() is not supported in compiled code") -----------------------------

def noisy_loss(x, w):
    y = np.tanh(x * w)
    print("y is", y)
    s = np.sum(y ** 2)
    print(f"s = {s:.4f}, first {y[0]!r}", x.shape, "done")
    return s


def noisy_loop(x, w):
    s = 0.0
    for k in range(x.shape[0]):
        s = s + np.tanh(x[k] * w) ** 2
        print(f"step {k}: s = {s:.4f}")
    return s


def printed(capfd):
    return [line for line in capfd.readouterr().out.splitlines() if line]


def numbers(line):
    words = [word.strip(",:") for word in line.replace("(", " ").replace(")", " ").split()]
    return [float(word) for word in words if word.replace(".", "").replace("-", "").isdigit()]


def prints_as_python(f, args, compiled, backend, capfd):
    """``compiled(*args)`` prints what ``f(*args)`` prints: the same lines under Python,
    the same numbers under Numba (which spaces its items and ignores format specs)."""
    capfd.readouterr()
    f(*args)
    expected = printed(capfd)
    compiled(*args)
    lines = printed(capfd)
    if backend == "python":
        assert lines == expected
    else:
        assert len(lines) == len(expected)
        for got, want in zip(lines, expected):
            assert numbers(got)[:len(numbers(want))] == pytest.approx(numbers(want), abs=1e-4), (got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_print_prints_the_primal_values_once_per_call(backend, capfd):
    x, w = np.array([0.1, 0.9, 0.4]), 1.3
    check_grads(noisy_loss, (x, w), backend=backend)
    check_grads(noisy_loop, (x, w), backend=backend)
    prints_as_python(noisy_loss, (x, w), sstad.jit(noisy_loss, backend=backend), backend, capfd)
    prints_as_python(noisy_loss, (x, w), sstad.jit(sstad.grad(noisy_loss), backend=backend), backend, capfd)
    prints_as_python(noisy_loop, (x, w), sstad.jit(noisy_loop, backend=backend), backend, capfd)


@pytest.mark.parametrize("backend", BACKENDS)
def test_print_in_a_loop_prints_once_per_iteration_under_grad(backend, capfd):
    """The backward loop recomputes each iteration's forward statements, but not its
    prints; nor do the reruns of a checkpointed loop (a tape budget of 1 byte)."""
    x, w = np.array([0.1, 0.9, 0.4]), 1.3
    prints_as_python(noisy_loop, (x, w), sstad.jit(sstad.grad(noisy_loop), backend=backend), backend, capfd)
    prints_as_python(noisy_states, (x, w), sstad.jit(sstad.grad(noisy_states, tape_budget=1), backend=backend),
                     backend, capfd)


def noisy_states(x, w):
    h = x * 1.0
    for k in range(4):
        h = np.tanh(h * w)
        print("step", k, "norm", np.sum(h * h))
    return np.sum(h)


def prints_to_a_file(x):
    print(x, flush=True)
    print(x, end=" ", sep=",", file=open)              # ERR file
    return x


def test_print_to_a_file_is_refused_at_its_line():
    refused_at(prints_to_a_file, (1.0,), r"print\(\.\.\., file=\.\.\.\) is not supported", "# ERR file")
