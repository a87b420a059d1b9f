"""Functions whose results are NumPy scalars (tests/test_result_types.py)."""
import numpy as np


def total(a):
    return np.sum(a)


def where_largest(a):
    return np.argmax(a)


def all_positive(a):
    return np.all(a > 0)


def mean_and_count(a):
    return np.mean(a), np.count_nonzero(a > 1)


def python_number(a):
    return 2.0 * len(a)           # a Python float in NumPy too


def loss(w):
    return np.sum(np.sin(w) * w)
