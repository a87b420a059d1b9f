"""Functions for tests/test_take_modes.py."""
import numpy as np

FAR = np.array([0, 13, -14, 25, -1])


def wrap_flat(x):
    return np.take(x, FAR, mode="wrap") ** 2


def clip_flat(x):
    return np.sin(np.take(x, FAR, mode="clip"))


def wrap_along_an_axis(x):
    return np.take(x, FAR, axis=1, mode="wrap") * x[:, :1]


def clip_along_an_axis(x):
    return np.take(x, [-2, 5, 1], axis=0, mode="clip") ** 2


def one_index(x):
    return np.take(x, 27, mode="wrap") * x.take(-5, mode="clip")


def misspelt(x):
    return np.take(x, FAR, mode="wrapped")


CASES = [wrap_flat, clip_flat, wrap_along_an_axis, clip_along_an_axis, one_index]
