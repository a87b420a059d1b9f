"""np.linalg of integer, boolean and mixed-precision arrays, as NumPy computes them
(tests/test_linalg_dtypes.py)."""
import numpy as np


def every_routine(A, b):
    q, r = np.linalg.qr(A)
    return (np.linalg.inv(A), np.linalg.det(A), np.linalg.solve(A, b), np.linalg.slogdet(A)[1],
            np.linalg.eigvalsh(A), np.linalg.pinv(A), np.linalg.cholesky(A), np.linalg.svd(A)[1],
            np.abs(r), np.linalg.lstsq(A, b)[0], np.linalg.eigh(A)[0], np.trace(A),
            np.linalg.matrix_power(A, 3))


def weighted_inverse(A, w):
    """An integer matrix (a graph's Laplacian plus the identity) and float weights."""
    return np.sum(np.linalg.inv(A) * w) + np.linalg.det(A) * np.sum(w) + np.linalg.solve(A, w[0]) @ w[1]


def mixed_precision_solve(A32, b):
    return np.sum(np.linalg.solve(A32, b) ** 2)
