"""An item of np.concatenate / np.stack written as a list literal (NeRF's
``np.concatenate([deltas, [1e10]])``) is the array NumPy makes of it.

Was: the derivative rule of concatenate failed on the literal ("a tuple has no attribute
`shape`", in both modes), and a literal of several rows beside an argument was refused by
the shape check of the trial call (its stand-ins had one row)."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


def far_sample_appended(t):
    deltas = np.diff(t)
    deltas = np.concatenate([deltas, [1e10]])
    return np.sum((1.0 - np.exp(-0.3 * deltas)) * t)


def literal_first_and_flattened(x):
    padded = np.concatenate([[0.0], x, (2.0, 3.0)])
    flat = np.concatenate([np.outer(x, x), [[1.0, 2.0, 0.5]]], axis=None)
    return np.sum(padded ** 2 * np.arange(len(padded))) + np.sum(flat ** 3)


def literal_rows_beside_a_matrix(x):
    A = np.concatenate([np.outer(x, x), [[1.0], [2.0], [x[0]]]], axis=1)
    B = np.stack([x, [1.0, 2.0, 3.0]], axis=1)
    return np.sum(A ** 2) + np.sum(np.sin(B.T) * np.vstack([x, [0.5, x[2], 1.0]]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [far_sample_appended, literal_first_and_flattened, literal_rows_beside_a_matrix],
                         ids=lambda f: f.__name__)
def test_literal_items_are_arrays(fn, backend):
    x = np.array([0.3, 1.2, 2.0])
    check_grads(fn, (x,), backend=backend)


def integers_joined_with_a_float_literal(k):
    return np.concatenate([k, [1.5]])


def test_literal_item_promotes_as_in_numpy():
    k = np.arange(3)
    got = sstad.jit(integers_joined_with_a_float_literal)(k)
    np.testing.assert_array_equal(got, integers_joined_with_a_float_literal(k))
    assert got.dtype == np.float64
