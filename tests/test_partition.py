"""np.partition and np.argpartition (runtime/partition.py): values as NumPy's where NumPy
defines them, gradients against finite differences (check_grads), on both backends."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

RNG = np.random.default_rng(29)


def partition_vector(x): return np.partition(x, 2)
def partition_rows(x): return np.partition(x, 1, axis=0)
def partition_flat(x): return np.partition(x, (1, 3), axis=None)
def partition_keyword(x): return np.partition(x, kth=-2, axis=1)
def by_argpartition(x): return x[np.argpartition(x, 2)[:3]] * 2.0
def smallest_two(x): return np.sum(np.partition(x, 1, axis=0)[:2] ** 2, axis=0)
def largest_two(x): return np.sum(np.partition(x, -2, axis=1)[:, -2:] ** 3)


@pytest.mark.parametrize("fn, shape", [(partition_vector, (6,)), (partition_rows, (4, 3)), (partition_flat, (2, 3)),
                                       (partition_keyword, (3, 5)), (by_argpartition, (6,)),
                                       (smallest_two, (5, 3)), (largest_two, (3, 5))],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_python_backend(fn, shape):
    x = RNG.normal(size=shape)
    assert np.array_equal(sstad.jit(fn, backend="python")(x), fn(x))
    check_grads(fn, (x,), backend="python")


def median_and_partition(x):
    return np.median(x, axis=0) + np.sum(np.partition(x, -2, axis=1)[:, -2:] ** 3)


@pytest.mark.slow
@pytest.mark.parametrize("fn, shape", [(smallest_two, (5, 3)), (median_and_partition, (4, 4))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_numba(fn, shape):
    """Under Numba the sides of kth come in sorted order: compare what NumPy defines."""
    x = RNG.normal(size=shape)
    np.testing.assert_allclose(sstad.jit(fn)(x), fn(x), rtol=1e-14)
    check_grads(fn, (x,), backend="numba")


def kth_too_large(x): return np.partition(x, 7)


def test_numpy_refusal_is_reported():
    with pytest.raises(Exception, match="out of bounds"):
        sstad.jit(kth_too_large, backend="python")(np.ones(4))


def median_all(x): return np.median(x)
def median_rows(x): return np.median(x, axis=1)
def median_kept(x): return np.median(x, axis=0, keepdims=True)
def median_all_kept(x): return np.median(x, keepdims=True)


@pytest.mark.parametrize("fn", [median_all, median_rows, median_kept, median_all_kept], ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(4, 5), (3, 4)], ids=["odd-rows", "even-rows"])
def test_median(fn, shape):
    x = RNG.normal(size=shape)
    with_nan = x.copy()
    with_nan[1, 2] = np.nan              # NumPy's median of values holding a NaN is NaN
    jitted = sstad.jit(fn, backend="python")
    assert np.array_equal(jitted(x), fn(x)) and np.array_equal(jitted(with_nan), fn(with_nan), equal_nan=True)
    check_grads(fn, (x,), backend="python")
