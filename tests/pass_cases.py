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
