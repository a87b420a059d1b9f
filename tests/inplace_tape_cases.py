"""In-place writes inside loops whose tapes reverse mode keeps small (sstad reads this source)."""
import numpy as np


def triangular_fill(icf, x):
    """ADBench GMM's pattern: per component a fresh matrix, its strict lower part filled
    by two nested loops, then read."""
    K, d = icf.shape[0], x.shape[0]
    total = 0.0
    for k in range(K):
        Q = np.diag(np.exp(icf[k, :d]))
        idx = d
        for j in range(d):
            for i in range(j + 1, d):
                Q[i, j] = icf[k, idx]
                idx += 1
        total = total + np.sum(np.tanh(Q @ x))
    return total


def same_element_rewritten(w, x):
    """Every inner iteration writes Q[0, j]: only the last write of each survives."""
    total = 0.0
    for k in range(2):
        Q = np.zeros((2, 3))
        for j in range(3):
            for i in range(w.shape[0]):
                Q[0, j] = w[i] * x[j] + k
        total = total + np.sum(np.sin(Q @ np.ones(3)))
    return total


def read_then_written(w):
    """The inner loop reads what it wrote before (a recurrence down a column)."""
    total = 0.0
    for k in range(2):
        Q = np.ones((3, 3)) * w[k]
        for j in range(3):
            for i in range(1, 3):
                Q[i, j] = Q[i - 1, j] * w[i + k] + 0.5
        total = total + np.sum(Q * Q)
    return total


def initial_value_read_too(w):
    """The matrix is read before the fill (its old content matters to the backward sweep)."""
    total = 0.0
    for k in range(2):
        Q = np.diag(w[:3] * (k + 1.0))
        before = np.sum(Q * Q)
        for j in range(3):
            for i in range(j + 1, 3):
                Q[i, j] = w[i + j] * w[k]
        total = total + before * np.sum(np.cos(Q))
    return total


# Loops over the rows of an array: the adjoint of the array the loop reads row by row.

def squares_by_counter(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i]
    return s


def previous_element(x):
    """x[i - 1]: the index is not the counter, so the adjoint keeps accumulating."""
    s = 0.0
    for i in range(1, x.shape[0]):
        s = s + x[i] * x[i - 1]
    return s


def counter_and_next(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + np.sin(x[i]) * x[i + 1]
    return s


def rows_in_a_branch(x):
    """Rows read on one path only: the rows of the other path still get zero."""
    s = 0.0
    for i in range(len(x)):
        if x[i, 0] > 0:
            s = s + np.sum(x[i] * x[i])
        else:
            s = s + 1.0
    return s


def read_before_and_after(x):
    s = np.sum(x * x)
    for i in range(x.shape[0]):
        s = s + np.tanh(x[i]) * s
    return s + x[0]


def read_before_only(x):
    t = np.cos(x)
    s = 0.0
    for i in range(x.shape[0]):
        s = s * 0.5 + x[i] * x[i]
    return s + np.sum(t)


def rows_in_an_inner_loop(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(w.shape[0]):
            s = s + x[i, j] * w[j] + x[i, 0] * x[i, 1]
    return s


def stops_early(x):
    s = 0.0
    for i in range(x.shape[0]):
        if s > 1.0:
            break
        s = s + x[i] * x[i]
    return s
