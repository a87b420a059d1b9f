"""np.einsum as people write it (sstad reads this source)."""
import numpy as np


def batched_quadratic(a, b):
    return np.sum(np.sin(np.einsum('ij,nj->ni', a, b)))


def implicit_output(a, b):
    return np.sum(np.sin(np.einsum('ij,jk', a, b)))


def trace_and_column_sums(a):
    return np.einsum('ii->', a) + np.sum(np.einsum('ij->j', a) ** 2)


def three_operands(a, b, c):
    return np.sum(np.einsum('ij,jk,k->i', a, b, c) ** 2)


def diagonal(a):
    return np.sum(np.sin(np.einsum('ii->i', a)))


def tensordot_pairs(a, b):
    return np.sum(np.sin(np.tensordot(a, b, axes=([1], [0]))))


def tensordot_count(a, b):
    return np.sum(np.sin(np.tensordot(a, b, 1)))
