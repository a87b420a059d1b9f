"""Programs whose expression reads an array, then calls a function that writes into it,
then uses what it read: Python reads the written values (an array is one object)."""
import numpy as np


def _triple_first_row(A):
    A[0] = A[0] * 3.0
    return 1.0


def _triple_if_positive(A):
    if A[0, 0] > 0:
        A[0] = A[0] * 3.0
    return 1.0


def _scale_rows(A):
    for i in range(A.shape[0]):
        A[i] = A[i] * (i + 2.0)
    return 1.0


def _rebind_only(A):
    if A[0, 0] > 0:
        A = A * 3.0          # a new array: the caller's is not written
    return np.sum(A)


def whole_array(A):
    B = A.copy()
    return B * _triple_first_row(B)


def view_of_it(A):
    B = A.copy()
    return B[0] * _triple_first_row(B)


def view_of_a_view(A):
    B = A.copy()
    return B.T[1:] * _triple_first_row(B)


def numpy_call_argument(A):
    B = A.copy()
    return np.maximum(B, 0.5 * _triple_first_row(B)) * B


def written_under_an_if(A):
    B = A.copy()
    return B * _triple_if_positive(B)


def written_in_a_loop(A):
    B = A.copy()
    return B[1] * _scale_rows(B)


def conditional_expression(A):
    B = A.copy()
    return B * (_triple_first_row(B) if A[1, 1] > 0 else 2.0)


def rebound_not_written(A):
    B = A.copy()
    return B * _rebind_only(B)


def else_reads_the_old_array(A):
    B = A.copy()
    if A[0, 0] > 0:
        B[0] = B[0] * 3.0
        r = B * 2.0
    else:
        r = B * 5.0
    return r + B


CASES = [whole_array, view_of_it, view_of_a_view, numpy_call_argument, written_under_an_if, written_in_a_loop,
         conditional_expression, rebound_not_written, else_reads_the_old_array]
