"""A function with a `while` loop and an `if`, for the `sstad dump` tests."""
import numpy as np


def damped(x, tol):
    steps = 0
    while np.abs(x).max() > tol:
        if steps % 2 == 0:
            x = 0.5 * x
        else:
            x = x - 0.25 * x
        steps += 1
    return x, steps


def smooth(x, n):
    s = 0.0
    for i in range(n):
        if s < 10.0:
            s = s + np.sum(np.sin(x) * x)
    return s


def scalar_smooth(x, n):
    s = x
    for i in range(n):
        if s < 10.0:
            s = s * x + np.sin(s)
    return s
