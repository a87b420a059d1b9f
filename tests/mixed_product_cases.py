"""Products of arrays of different dtypes, as NumPy promotes them (tests/test_mixed_dtype_products.py)."""
import numpy as np


def weighted_positions(v):
    return 0.1 * v @ np.arange(v.shape[0])             # float @ int


def every_product(a, i, j, f32):
    return (np.sum(a @ i) + np.dot(i, a[0]) + np.inner(a[0], i) + np.vdot(j, a[0])
            + np.sum(np.dot(f32, a)) + np.sum(np.matmul(f32, a)))


def integer_products(i, j, m):
    return i @ j, m @ m, np.dot(m, i), np.inner(i, j), np.vdot(m, m), (i > 1) @ (j > 2), (m > 2) @ (m > 3)
