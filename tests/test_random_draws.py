"""Random numbers inside compiled code.  np.random's functions, a Generator's or
RandomState's methods and Python's random module are refused at their line: a call on
constants ran once, at compile time (``np.random.seed(0)`` did nothing at run time, a
``np.random.normal()`` was one constant), Numba draws from a generator of its own, and
reverse mode could draw again for the derivative.  What stays possible, an ``@numba.njit``
helper that draws, is an extern call whose result a loop's backward sweep now reads from
a tape rather than calling it again (runtime/extern.py), where the gradient was that of
other noise, silently."""
import random

import numba
import numpy as np
import pytest

import sstad
from sstad.errors import UnsupportedSyntaxError

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
RNG = np.random.default_rng(0)


def drawn_by_np_random(mu):
    eps = np.random.standard_normal(mu.shape)
    return np.sum((mu + eps) ** 2)


def seeded_inside(mu):
    np.random.seed(0)
    return np.sum(mu ** 2)


def drawn_by_a_global_generator(mu):
    return np.sum(mu * RNG.normal(size=3))


def drawn_by_the_random_module(mu):
    return np.sum(mu) * random.random()


@pytest.mark.parametrize("fn", [drawn_by_np_random, seeded_inside, drawn_by_a_global_generator,
                                drawn_by_the_random_module], ids=lambda f: f.__name__)
def test_random_generators_are_refused_at_the_line_with_what_to_do(fn):
    with pytest.raises(UnsupportedSyntaxError, match=r"(?s)test_random_draws.py:\d+:\d+: `[\w.]+` uses a random "
                                                     r"generator's hidden state.*pass them in"):
        sstad.jit(fn, backend="python")(np.ones(3))


@numba.njit
def noise(n):
    return np.random.standard_normal(n)


def mc_loss(mu):
    total = 0.0
    draws = np.zeros((3, mu.shape[0]))
    for k in range(3):
        eps = noise(mu.shape[0])
        draws[k] = eps
        total += np.sum(np.tanh(mu + eps) ** 2)
    return total, draws


def mc_loss_scaled_in_place(mu):
    total = 0.0
    draws = np.zeros((3, mu.shape[0]))
    for k in range(3):
        eps = noise(mu.shape[0])
        eps *= 0.5
        draws[k] = eps
        total += np.sum(np.tanh(mu + eps) ** 2)
    return total, draws


def mc_loss_nested(mu):
    total = 0.0
    draws = np.zeros((3, mu.shape[0]))
    for k in range(3):
        for _ in range(1):
            eps = noise(mu.shape[0])
            draws[k] = eps
            total += np.sum(np.tanh(mu + eps) ** 2)
    return total, draws


def check_against_the_draws(fn, backend):
    mu = np.array([0.3, -0.2, 0.5])
    (value, draws), grad = sstad.jit(sstad.value_and_grad(fn, has_aux=True), backend=backend)(mu)
    assert value == pytest.approx(sum(np.sum(np.tanh(mu + e) ** 2) for e in draws), rel=1e-12)
    want = sum(2 * np.tanh(mu + e) * (1 - np.tanh(mu + e) ** 2) for e in draws)
    np.testing.assert_allclose(grad, want, rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_gradient_is_that_of_the_draws_the_value_used(backend):
    check_against_the_draws(mc_loss, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_inner_loop_that_draws_runs_once(backend):
    """Under "auto" the inner loop's forward sweep moves into the outer forward loop, its
    results stored: it draws once, and the gradient is that of those draws."""
    check_against_the_draws(mc_loss_nested, backend)


@pytest.mark.parametrize("fn, policy", [(mc_loss_scaled_in_place, "auto"), (mc_loss_nested, "recompute"),
                                        (mc_loss, "recompute")], ids=["in_place", "nested", "recompute"])
def test_draws_the_derivative_would_make_again_are_refused(fn, policy):
    """A draw written in place is not kept on a tape, an inner loop recomputed runs again
    in every backward iteration, and "recompute" keeps nothing: each would draw other
    noise for the gradient, silently.  Refused at the call instead."""
    with pytest.raises(UnsupportedSyntaxError, match=r"(?s)test_random_draws.py:\d+:\d+: `[\w.]*noise` draws random "
                                                     r"numbers.*other draws.*pass them in"):
        sstad.value_and_grad(fn, has_aux=True, policy=policy)(np.array([0.3, -0.2, 0.5]))


def mc_loss_scaled_copy(mu):
    total = 0.0
    draws = np.zeros((3, mu.shape[0]))
    for k in range(3):
        eps = noise(mu.shape[0])
        eps = eps * 0.5
        draws[k] = eps
        total += np.sum(np.tanh(mu + eps) ** 2)
    return total, draws


def test_the_way_out_scaling_a_copy_gives_the_gradient_of_the_draws():
    check_against_the_draws(mc_loss_scaled_copy, "python")


@numba.njit
def shifted(x, s):
    return x + s


def pure_helper_nested(mu):
    total = 0.0
    for k in range(3):
        for i in range(2):
            y = mu + shifted(np.ones_like(mu), 0.1 * (k + i))
            y *= 2.0
            total += np.sum(np.tanh(y) ** 2)
    return total


def test_a_helper_that_does_not_draw_may_run_again():
    mu = np.array([0.3, -0.2, 0.5])
    grad = sstad.grad(pure_helper_nested)(mu)
    u = [2 * (mu + 1 + 0.1 * (k + i)) for k in range(3) for i in range(2)]
    want = sum(4 * np.tanh(v) * (1 - np.tanh(v) ** 2) for v in u)
    np.testing.assert_allclose(grad, want, rtol=1e-12)
