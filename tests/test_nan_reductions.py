"""nansum, nanmean, nanmax, nanmin (runtime/composites_nan.py): NaN entries are left out
of the value and get a zero gradient."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

RNG = np.random.default_rng(31)


def nansum(x): return np.nansum(x, axis=1)
def nanmean(x): return np.nanmean(x, axis=0, keepdims=True)
def nanmax(x): return np.nanmax(x, axis=1)
def nanmin(x): return np.nanmin(x)


@pytest.mark.parametrize("fn", [nansum, nanmean, nanmax, nanmin], ids=lambda f: f.__name__)
def test_values_and_gradients(fn):
    x = RNG.normal(size=(4, 5))
    check_grads(fn, (x,), backend="python")
    x[1, 2] = x[3, 0] = np.nan
    assert np.array_equal(sstad.jit(fn, backend="python")(x), fn(x), equal_nan=True)
    g = sstad.grad(lambda a: np.sum(fn(a)))(x)
    assert g[1, 2] == 0.0 and g[3, 0] == 0.0 and np.all(np.isfinite(g))


def all_nan_row(x): return np.nanmax(x, axis=1) + np.nanmean(x, axis=1)


def test_a_row_of_nans_gives_nan_as_numpy_does():
    x = RNG.normal(size=(2, 3))
    x[0] = np.nan
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        expected = all_nan_row(x)
    with np.errstate(all="ignore"):
        assert np.array_equal(sstad.jit(all_nan_row, backend="python")(x), expected, equal_nan=True)


@pytest.mark.slow
def test_numba():
    x = RNG.normal(size=(3, 4))
    x[0, 1] = np.nan
    f = lambda a: np.nansum(a, axis=0) + np.nanmax(a, axis=0)   # noqa: E731
    assert np.array_equal(sstad.jit(f)(x), f(x))
    check_grads(f, (RNG.normal(size=(3, 4)),), backend="numba")
