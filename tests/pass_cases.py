"""Programs for the pass tests (sstad reads source from files)."""
import numpy as np


def repeated(x):
    a = np.cos(x) * 2.0
    b = np.cos(x) * 2.0
    return np.sum(a + b)


def repeated_then_written(x):
    a = x * 2.0
    b = x * 2.0          # equal to a now, but b is written below: must stay its own array
    b[0] = 100.0
    return np.sum(a) + np.sum(b)


def folded(x):
    k = 2.0 * 3.0 + 1.0
    return x * k


def carried_fresh_and_written(x, n):
    out = np.zeros(n)
    for i in range(n):
        x = np.sin(x) * 0.5          # a fresh array each iteration: taped without a copy
        out[i] = np.sum(x)           # only written: not taped at all
    return np.sum(out * out)


def carried_view(a, n):
    row = a[0]
    acc = np.zeros(a.shape[1])
    for i in range(n):
        acc[0] = acc[0] + np.sum(row * row)
        row = a[(i + 1) % a.shape[0]]     # a view: must be copied onto the tape
        a[(i + 2) % a.shape[0]] = a[(i + 2) % a.shape[0]] * 0.5
    return np.sum(acc)


def sin_times_x(x):
    return np.sum(np.sin(x) * x)


def outer_sum(x, col):
    return np.sum(np.sin(x) * col) + np.sum(col * col)       # (3,) with (2, 1): a real broadcast


def fusion_hazards(x, n):
    p = x.copy()
    for i in range(n):
        a = np.sin(p) * 2.0       # read once, below, after p is rebound: must not move past it
        p = p + 1.0
        b = a + 1.0
        q = np.cos(p) * 3.0       # read once, but after an in-place write into p
        p[0] = 5.0
        p = p * b + q
    return np.sum(p)
