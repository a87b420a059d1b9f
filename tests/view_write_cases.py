"""Writes through views, as NumPy code does them (sstad reads this source)."""
import numpy as np


def slice_then_write(y):
    y = y.copy()
    z = y[1:]
    z[0] = 5.0 * z[1]
    return y


def strided_in_place(y):
    y = y.copy()
    z = y[::2]
    z *= 2.0
    return y * z[0]


def rows_in_a_loop(A):
    A = A.copy()
    for i in range(A.shape[0]):
        row = A[i]
        row[1:] = row[1:] * row[0]
    return A


def transpose_in_a_loop(A):
    A = A.copy()
    t = A.T
    for i in range(t.shape[0]):
        t[i] = t[i] * (i + 1.0)
    return A


def reshaped(x):
    y = x * 1.0
    z = y.reshape(2, 3)
    z[0, 1] = z[1, 2] * 3.0
    w = y[2:]
    return np.sum(y * np.arange(6.0)) + np.sum(w)


def view_sees_a_later_write(x):
    y = x * 1.0
    v = y[1:4]
    y[2] = 10.0 * y[0]
    return np.sum(v ** 2)


def write_in_a_branch(x, flag):
    y = x * 1.0
    head = y[:3]
    if flag > 0.0:
        head[1] = head[0] * head[2]
    else:
        y[0] = 2.0 * y[5]
    return np.sum(np.sin(y)) + np.sum(head)


def swapped_axes(A):
    A = A * 1.0
    s = np.swapaxes(A, 0, 1)
    s[1] = s[0] * s[2]
    return A


def one_of_two_slices(x):
    y = x.copy()
    z = y[::2] if np.sum(x) > 0.5 else y[1:]
    z[0] *= 3.0
    return np.sum(np.sin(y))


def one_of_two_rows(A, i, j):
    A = A * 1.0
    r = A[i] if np.sum(A) > 0.0 else A[j]
    r[1] = r[0] * 5.0
    return A


def reshape_of_a_row(A):
    """A row is one block of memory: NumPy's reshape of it is a view, and the write reaches A."""
    B = A * 1.0
    r = B[1].reshape(2, 2)
    r[0, 1] = r[1, 0] * 3.0
    return np.sum(B * B)


def reshape_of_a_transpose(A):
    B = A * 1.0
    flat = np.reshape(B.T, (12,))
    flat[1] = 100.0                      # ERR reshape of a view
    return np.sum(B * B) + np.sum(flat)


def reshape_in_fortran_order(A):
    B = A * 1.0
    C = np.reshape(B, (4, 3), order="F")
    C[0, 1] = 100.0                      # ERR reshape of a view
    return np.sum(B * B) + np.sum(C)
