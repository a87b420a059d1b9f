"""Writes through a view of a view (``row = y[1]; part = row[1:3]``, ``y[1][1:3]``,
``y[1:3][:, 1:3]``) reach the base every time, as in NumPy: after one write, the views of
the base *and their views* are made again, so a second write through the inner view is not
lost.  Values against Python, derivatives against central finite differences."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
X = np.random.default_rng(21).normal(size=(3, 4))


def named_row_then_part(x):
    y = x.copy()
    row = y[1]
    part = row[1:3]
    part += x[0, :2] ** 2
    part *= 2.0
    return np.sum(y ** 2)


def unnamed_row(x):
    y = x.copy()
    part = y[1][1:3]
    part += np.sin(x[2, :2])
    part *= x[0, 0]
    return np.sum(y * x)


def writes_between(x):
    y = x.copy()
    row = y[1]
    part = row[1:3]
    part += 1.0
    row[0] = x[2, 3] ** 2
    part *= 2.0
    return np.sum(y ** 2) + np.sum(row * part[0]) + np.sum(part)


def block_items(x):
    y = x.copy()
    rows = y[1:3]
    part = rows[:, 1:3]
    part[0, 0] = x[0, 0] * 5.0
    part[1, 1] = x[0, 1] * 6.0
    return np.sum(y * x)


CASES = [named_row_then_part, unnamed_row, writes_between, block_items]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_write_through_a_view_of_a_view(fn, backend):
    np.testing.assert_array_equal(sstad.jit(fn, backend=backend)(X), fn(X))
    check_grads(fn, (X,), backend=backend, order=2 if backend == "python" else 1)
