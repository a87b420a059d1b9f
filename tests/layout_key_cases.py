"""Functions whose statements differ only in where a constant sits among the arguments
(tests/test_layout_keys.py)."""
import numpy as np


def rows_mirrored(x):
    a = np.array([x, 0])
    b = np.array([0, x])
    return a[0] + 10 * b[0]


def diagonal_of_phases(phi):
    U = np.array([[np.sin(phi), 0], [0, np.cos(phi)]])
    return U[0, 0] + 3 * U[1, 1]
