"""Fancy indexing with several index arrays, as people write it (sstad reads this source)."""
import numpy as np


def cross_entropy(logits, labels):
    n = logits.shape[0]
    m = np.max(logits, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(logits - m), axis=1)) + m[:, 0]
    return np.mean(lse - logits[np.arange(n), labels])


def upper_triangle(A):
    return np.sum(A[np.triu_indices(3)] ** 2)


def fill_lower_triangles(Q, v):
    Q = Q * 1.0
    rows = np.array([1, 2, 2])
    cols = np.array([0, 0, 1])
    Q[:, rows, cols] = v
    return np.sum(np.sin(Q))
