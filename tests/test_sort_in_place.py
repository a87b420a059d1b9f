"""``a.sort()`` sorts in place, as NumPy's method does (a trimmed mean, a CRPS estimate by
sorted samples): the array and every view of it see the sorted values, and the derivative
is ``np.sort``'s."""
import numpy as np
import pytest

from sstad.testing import check_grads


def trimmed_mean(samples, cut=1):
    s = samples.copy()
    s.sort()
    return s[cut:len(s) - cut].mean()


def sort_a_row_then_the_columns(X):
    Y = X.copy()
    row = Y[1]
    row.sort()                                  # through a view: Y's second row is sorted
    Y.sort(axis=0)                              # and row, a view of Y, sees this too
    return np.sum(Y * np.arange(Y.size).reshape(Y.shape)) + np.sum(X[1] * row)


CASES = [(trimmed_mean, (np.random.default_rng(5).normal(size=7),)),
         (sort_a_row_then_the_columns, (np.random.default_rng(6).normal(size=(3, 4)),))]


@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_sort_method_in_place(fn, args):
    check_grads(fn, args, backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_sort_method_in_place_on_numba(fn, args):
    check_grads(fn, args, backend="numba")
