"""Programs for the higher-order tests (sstad reads source from files)."""
import numpy as np


def grow_until(x):
    """A data-dependent while loop with a branch-free body."""
    s = x
    k = 0
    while s < 10.0 and k < 50:
        s = s * 1.5 + np.sin(s)
        k += 1
    return s * x


def branchy_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s = s + np.sin(x[i]) * x[i] ** 2
        else:
            s = s + np.exp(x[i]) * x[0]
    y = x.copy()
    y[0] = s
    return np.sum(y * y * x)


def vector_out(x, w):
    return np.tanh(w * x) * np.sum(x ** 2)
