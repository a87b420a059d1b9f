"""``y[idx] = v`` with an index array that repeats a place: NumPy keeps the last write
there, so only that item of ``v`` has a derivative (the earlier ones are overwritten).
Reverse mode gave every repeated item the place's cotangent.  Against central finite
differences, second order on Python, Numba slow."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
R = np.random.default_rng(31)


def written_twice(x, idx):
    y = np.zeros(4)
    y[idx] = x
    y[idx] += 1.0
    return np.sum(y ** 2)


def rows_written_twice(x, idx):
    y = np.ones((4, 3))
    y[idx] = x * 2.0
    return np.sum(y ** 3)


def one_value_broadcast(x, idx):
    y = np.ones((4, 3))
    y[idx, 1] = x[0]
    return np.sum(y ** 3)


def pairs_of_index_arrays(x, r, c):
    y = np.zeros((3, 3))
    y[r, c] = x
    return np.sum(np.sin(y))


def no_repeats(x, idx):
    y = np.zeros(6)
    y[idx] = x
    return np.sum(y ** 2)


CASES = [(written_twice, (R.normal(size=5), np.array([0, 2, 2, 3, 0]))),
         (rows_written_twice, (R.normal(size=(3, 3)), np.array([1, 1, 3]))),
         (one_value_broadcast, (R.normal(size=2), np.array([1, 1, 3]))),
         (pairs_of_index_arrays, (R.normal(size=4), np.array([0, 1, 0, 2]), np.array([1, 1, 1, 0]))),
         (no_repeats, (R.normal(size=3), np.array([5, 0, 2])))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_only_the_last_write_to_a_place_has_a_derivative(fn, args, backend):
    check_grads(fn, args, backend=backend, order=2 if backend == "python" else 1)


def many_writes_in_half_precision(v, w, idx):
    y = np.zeros(5, dtype=v.dtype)
    y[idx] = v
    return np.sum(y * w)


def test_the_last_write_is_found_among_more_items_than_the_dtype_counts_exactly():
    """3000 float16 items (float16 counts integers exactly only to 2048): item numbers
    kept in the values' dtype made later items tie with earlier ones."""
    n = 3000
    v = np.linspace(0.1, 1.0, n).astype(np.float16)
    w = np.arange(1, 6).astype(np.float16)
    idx = np.tile(np.arange(5), n // 5)             # each place written 600 times: the last wins
    want = np.zeros(n)
    want[-5:] = np.arange(1, 6)
    got = sstad.jit(sstad.grad(many_writes_in_half_precision), backend="python")(v, w, idx)
    assert got.dtype == np.float16 and np.array_equal(got.astype(np.float64), want)
