"""Gradients of functions written the way a user writes them, against the function itself.

Each case gives `(name, func, args, reference_gradient)`; the gradient is taken with respect
to the first argument and checked against the reference before it is timed.

`peer_cases()` gives the same functions (at sizes other tools can run) to the side-by-side
table of `peers.py`; the versions a peer needs of its own sit next to each function.
"""
import numpy as np


def sin_x_times_x(x):
    return np.sum(np.sin(x) * x)


def sin_x_times_x_grad(x):
    return np.cos(x) * x + np.sin(x)


def sin_x_times_x_xp(ops, x):
    """JAX / PyTorch / autograd."""
    return ops.xp.sum(ops.xp.sin(x) * x)


def loop_sum_of_squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i]
    return s


def loop_sum_of_squares_jax(ops, x):
    """JAX: a Python loop would be unrolled at trace time; fori_loop is its loop."""
    return ops.jax.lax.fori_loop(0, x.shape[0], lambda i, s: s + x[i] * x[i], 0.0)


def loop_sum_of_squares_xp(ops, x):
    """PyTorch / autograd: the user's loop as it is."""
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i]
    return s


def decay_ode(k, y0):
    """Explicit Euler on y' = -k y + sin(t) until t = 1, a `while` loop."""
    y = y0
    t = 0.0
    dt = 1e-4
    while t < 1.0:
        y = y + dt * (-k * y + np.sin(t))
        t = t + dt
    return y


def decay_ode_jax(ops, k, y0):
    """JAX: reverse mode cannot go through lax.while_loop, so the trip count (which does
    not depend on k or y0) is counted in Python at trace time and the loop is a fori_loop."""
    jnp, lax = ops.xp, ops.jax.lax
    dt = 1e-4
    steps, t = 0, 0.0
    while t < 1.0:
        t, steps = t + dt, steps + 1

    def body(i, carry):
        y, t = carry
        return y + dt * (-k * y + jnp.sin(t)), t + dt
    return lax.fori_loop(0, steps, body, (y0, jnp.float64(0.0)))[0]


def decay_ode_xp(ops, k, y0):
    """PyTorch / autograd run the user's function itself: np.sin only sees the float t."""
    return decay_ode(k, y0)


def _central(f, x, *rest, eps=1e-6):
    return (f(x + eps, *rest) - f(x - eps, *rest)) / (2 * eps)


def cases():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 1_000_000)
    v = rng.uniform(-1, 1, 100_000)
    return [
        ("sum(sin(x)*x) 1e6", sin_x_times_x, (x,), sin_x_times_x_grad(x)),
        ("loop x[i]*x[i] 1e5", loop_sum_of_squares, (v,), 2 * v),
        ("euler while 1e4 steps", decay_ode, (0.7, 1.0), _central(decay_ode, 0.7, 1.0)),
    ]


def peer_cases():
    from peers import Case
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 1_000_000)
    v = rng.uniform(-1, 1, 10_000)
    return [
        Case("sum(sin(x)*x) 1e6", sin_x_times_x, (x,), (0,), jax=sin_x_times_x_xp,
             torch=sin_x_times_x_xp, autograd=sin_x_times_x_xp,
             numpy_grad=lambda x: (sin_x_times_x_grad(x),)),
        Case("loop x[i]*x[i] 1e4", loop_sum_of_squares, (v,), (0,), jax=loop_sum_of_squares_jax,
             torch=loop_sum_of_squares_xp, autograd=loop_sum_of_squares_xp,
             numpy_grad=lambda x: (2 * x,)),
        Case("euler while 1e4 steps", decay_ode, (0.7, 1.0), (0,), jax=decay_ode_jax,
             torch=decay_ode_xp, autograd=decay_ode_xp),
    ]
