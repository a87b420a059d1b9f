"""np.meshgrid and np.lib.stride_tricks.sliding_window_view (runtime/composites_shape.py),
and ``sorted()`` of a tuple or list literal of numbers: values equal to NumPy's and
Python's, derivatives against central finite differences (Numba slow)."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import sstad
from sstad.errors import SstadError
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
R = np.random.default_rng(12)
A, B, C = np.linspace(-1.0, 1.0, 4), np.array([0.1, 0.5, 0.7]), np.array([2.0, 3.0])
V = R.normal(size=7)
M = R.normal(size=(4, 5))


def grid_xy(a, b): return np.meshgrid(a, b)
def grid_ij(a, b): return np.meshgrid(a, b, indexing="ij")
def grid_sparse(a, b): return np.meshgrid(a, b, sparse=True)
def grid_three(a, b): return np.meshgrid(a, b, C)
def grid_three_ij(a, b): return np.meshgrid(a, b, C, indexing="ij", copy=False)
def grid_one(a, b): return np.meshgrid(a)


def gaussian_on_a_grid(a, b):
    xs, ys = np.meshgrid(a, b)
    return np.sum(np.exp(-(xs - 0.3) ** 2 * ys))


GRIDS = [grid_xy, grid_ij, grid_sparse, grid_three, grid_three_ij, grid_one, gaussian_on_a_grid]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", GRIDS, ids=[f.__name__ for f in GRIDS])
def test_meshgrid(fn, backend):
    want, got = fn(A, B), sstad.jit(fn, backend=backend)(A, B)
    if isinstance(want, tuple):                       # the grids themselves: exact
        assert len(got) == len(want)
        for w, g in zip(want, got):
            assert np.shape(w) == np.shape(g) and np.array_equal(w, g)
    else:                                             # a sum: Numba may add in another order
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    check_grads(fn, (A, B), backend=backend)


def test_meshgrid_refuses_an_unknown_indexing():
    with pytest.raises(SstadError, match="Valid values for `indexing`"):
        sstad.jit(lambda a: np.meshgrid(a, a, indexing="ji"), backend="python")(A)


def windows_1d(x): return sliding_window_view(x, 3)
def windows_tuple(x): return np.lib.stride_tricks.sliding_window_view(x, (2,))
def windows_2d(x): return sliding_window_view(x, (2, 3))
def windows_axis(x): return sliding_window_view(x, 3, axis=1)
def windows_negative_axis(x): return sliding_window_view(x, 2, axis=-2)
def windows_axes_swapped(x): return sliding_window_view(x, (3, 2), axis=(1, 0))
def moving_average(x): return np.sum(sliding_window_view(x, 3).mean(axis=-1) ** 2)


WINDOWS = [(windows_1d, V), (windows_tuple, V), (windows_2d, M), (windows_axis, M), (windows_negative_axis, M),
           (windows_axes_swapped, M), (moving_average, V)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, x", WINDOWS, ids=[w[0].__name__ for w in WINDOWS])
def test_sliding_window_view(fn, x, backend):
    want, got = fn(x), sstad.jit(fn, backend=backend)(x)
    assert np.shape(got) == np.shape(want)
    if np.ndim(want):
        assert np.array_equal(got, want)                # the windows: exact
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    check_grads(fn, (x,), backend=backend)


def test_a_window_longer_than_the_axis_is_refused_at_run_time():
    with pytest.raises(SstadError, match="window shape cannot be larger than input array shape"):
        sstad.jit(lambda x: sliding_window_view(x, 8), backend="python")(V)


def ranked(x):
    vals = sorted([x[0], x[1], x[2]])
    hi = sorted((x[0] * 2.0, x[3]), reverse=True)
    return vals[0] * 2.0 + vals[2] + hi[0] * 3.0 - hi[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_sorted_of_a_literal(backend):
    x = np.array([0.3, -1.0, 2.0, 0.1])
    assert sstad.jit(ranked, backend=backend)(x) == ranked(x)
    check_grads(ranked, (x,), backend=backend, order=2 if backend == "python" else 1)


@pytest.mark.parametrize("fn", [lambda x: sorted(x)[0], lambda x: sorted([x[0], x[1]], key=abs)[0]],
                         ids=["array", "key"])
def test_sorted_of_anything_else_is_refused_with_np_sort_suggested(fn):
    with pytest.raises(SstadError, match="sort an array with np.sort"):
        sstad.grad(fn)(V)
