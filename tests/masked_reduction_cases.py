"""Reductions with NumPy's ``where=`` and ``initial=`` (tests/test_masked_reductions.py)."""
import numpy as np
M = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])


def sum_where(x):
    return np.sum(x, where=M)


def sum_where_data_initial(x):
    return np.sum(x, axis=0, where=x > 1.0, initial=0.5)     # 0.5: cast to an integer array's dtype


def prod_rows_keepdims(x):
    return np.prod(x, axis=1, where=M, keepdims=True)


def masked_mse(x):
    return np.mean((x - 1.0) ** 2, where=M)


def mean_where_broadcast(x):
    return np.mean(x, axis=1, where=M[0])


def mean_method_keepdims(x):
    return x.mean(axis=0, where=M, keepdims=True)


def var_where(x):
    return np.var(x, axis=1, where=M)


def std_where_ddof(x):
    return np.std(x, where=M, ddof=1)


def sum_initial(x):
    return np.sum(x, initial=2.0)


def sum_method_axes(x):
    return x.sum(where=M, axis=(0, 1))


def any_where(x):
    return np.any(x > 1.5, axis=0, where=M)


def all_where(x):
    return np.all(x > 0.2, where=M)


SMOOTH = [sum_where, sum_where_data_initial, prod_rows_keepdims, masked_mse, mean_where_broadcast,
          mean_method_keepdims, var_where, std_where_ddof, sum_initial, sum_method_axes]
LOGICAL = [any_where, all_where]
