"""Gradients of functions written the way a user writes them, against the function itself.

Each case gives `(name, func, args, reference_gradient)`; the gradient is taken with respect
to the first argument and checked against the reference before it is timed.
"""
import numpy as np


def sin_x_times_x(x):
    return np.sum(np.sin(x) * x)


def sin_x_times_x_grad(x):
    return np.cos(x) * x + np.sin(x)


def loop_sum_of_squares(x):
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
