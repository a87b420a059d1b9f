"""np.quantile and np.percentile (runtime/partition.py) with NumPy's parameters, the running
np.maximum/minimum/fmax/fmin.accumulate and np.bincount (runtime/composites_ufunc.py): values
bit-identical to NumPy's, derivatives against central finite differences (reverse,
forward, second order on Python; Numba slow), and the parameters they refuse, by name."""
import numpy as np
import pytest

import sstad
from sstad.errors import SstadError
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
R = np.random.default_rng(3)
V = R.normal(size=7)
M = R.normal(size=(5, 4))
METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "weibull", "median_unbiased",
           "normal_unbiased", "interpolated_inverted_cdf"]


def same_as_numpy(fn, args, backend):
    want, got = fn(*args), sstad.jit(fn, backend=backend)(*args)
    assert np.shape(got) == np.shape(want)
    assert np.array_equal(got, want), (got, want)


def q_scalar(x): return np.quantile(x, 0.3)
def q_positional_all(x): return np.quantile(x, [0.25, 0.75], 0, None, False, "linear", True)
def q_list_axis(x): return np.quantile(x, [0.1, 0.5, 0.9], axis=0)
def q_tuple_last_axis(x): return np.quantile(x, (0.0, 0.35, 1.0), axis=-1)
def q_keepdims_flat(x): return np.quantile(x, [0.2, 0.6], keepdims=True)
def q_keepdims_axis(x): return np.quantile(x, 0.4, axis=1, keepdims=True)
def q_2d_q(x): return np.quantile(x, np.array([[0.1, 0.2], [0.7, 0.95]]), axis=0)
def p_scalar(x): return np.percentile(x, 70)
def p_axis_keepdims(x): return np.percentile(x, [30.0, 50.0], axis=-1, keepdims=True)
def p_overwrite(x): return np.percentile(x, 10, axis=0, overwrite_input=True)
def q_of_q(x, q): return np.quantile(x, q)
def q_of_qs(x, q): return np.quantile(x, q, axis=1)


CASES = [(q_scalar, (V,)), (q_positional_all, (M,)), (q_list_axis, (M,)), (q_tuple_last_axis, (M,)),
         (q_keepdims_flat, (M,)), (q_keepdims_axis, (M,)), (q_2d_q, (M,)), (p_scalar, (V,)),
         (p_axis_keepdims, (M,)), (p_overwrite, (M,)), (q_of_q, (V, 0.37)), (q_of_qs, (M, np.array([0.37, 0.81])))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_quantile_parameters(fn, args, backend):
    same_as_numpy(fn, args, backend)
    check_grads(fn, args, backend=backend, order=2 if backend == "python" else 1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods(method, backend):
    def f(x):
        return np.quantile(x, [0.0, 0.13, 0.5, 0.77, 1.0], axis=1, method=method)
    same_as_numpy(f, (M,), backend)
    check_grads(f, (M,), backend=backend)


def test_a_nan_makes_its_slice_nan():
    x = M.copy()
    x[2, 1] = np.nan
    f = lambda x: np.quantile(x, [0.3, 0.6], axis=0)          # noqa: E731
    np.testing.assert_array_equal(sstad.jit(f, backend="python")(x), f(x))


@pytest.mark.parametrize("call, message", [
    (lambda x: np.quantile(x, 0.5, method="inverted_cdf"), "method='inverted_cdf' is not supported"),
    (lambda x: np.quantile(x, 0.5, weights=np.ones(7)), "weights= is not supported"),
    (lambda x: np.percentile(x, 50, out=np.zeros(())), "out= is not supported"),
    (lambda x: np.quantile(x, 0.5, axis=(0, 1)), "axis= of several axes is not supported"),
    (lambda x: np.quantile(x, 0.5, axis=2), "axis 2 is out of bounds"),
], ids=["method", "weights", "out", "axes", "axis"])
def test_refused_parameters_are_named(call, message):
    x = V if "weights" in message or "out=" in message else M
    with pytest.raises(SstadError, match=message):
        sstad.grad(lambda x: np.sum(call(x)))(x)


@pytest.mark.parametrize("fn, message", [(lambda x: np.quantile(x, 1.5), r"Quantiles must be in the range \[0, 1\]"),
                                         (lambda x: np.percentile(x, -1.0), r"Percentiles must be in the range")])
def test_q_out_of_range_is_refused_at_run_time(fn, message):
    with pytest.raises(SstadError, match=message):
        sstad.jit(fn, backend="python")(V)


# --- running maxima and minima ------------------------------------------------------------------

def running_max(x): return np.maximum.accumulate(x)
def running_min_rows(x): return np.minimum.accumulate(x, axis=1)
def running_max_last(x): return np.maximum.accumulate(x, -1)
def running_fmax_fmin(x): return np.fmax.accumulate(x, axis=0) + np.fmin.accumulate(x, axis=0)
def drawdown(x):
    equity = np.cumsum(x)
    return np.max(np.maximum.accumulate(equity) - equity)


SCANS = [(running_max, V), (running_min_rows, M), (running_max_last, M), (running_fmax_fmin, M), (drawdown, V)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, x", SCANS, ids=[c[0].__name__ for c in SCANS])
def test_running_extremes(fn, x, backend):
    same_as_numpy(fn, (x,), backend)
    check_grads(fn, (x,), backend=backend, order=2 if backend == "python" else 1)


def test_running_max_ties_share_the_cotangent_as_np_maximum():
    g = sstad.grad(lambda x: np.sum(np.maximum.accumulate(x)))(np.array([1.0, 1.0, 0.5]))
    np.testing.assert_allclose(g, [2.0, 1.0, 0.0])     # x0: 1 + half of the tie's 2; x1: the other half


def test_running_max_refuses_dtype_by_name():
    with pytest.raises(SstadError, match="maximum.accumulate: dtype= is not supported"):
        sstad.grad(lambda x: np.sum(np.maximum.accumulate(x, dtype=np.float64)))(V)


# --- np.bincount -------------------------------------------------------------------------------

IDX = np.array([0, 2, 2, 5, 1, 0])


def bin_weights(w, i): return np.bincount(i, weights=w) ** 2
def bin_weights_positional(w, i): return np.bincount(i, w, 8) * 2.0
def bin_counts(w, i): return np.bincount(i) * w[0]
def bin_counts_minlength(w, i): return np.bincount(i, minlength=9) * w[0]
def bin_empty(w, i): return np.bincount(i[:0], minlength=3) * w[0]


BINS = [bin_weights, bin_weights_positional, bin_counts, bin_counts_minlength, bin_empty]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", BINS, ids=[f.__name__ for f in BINS])
def test_bincount(fn, backend):
    args = (np.arange(6.0) + 0.5, IDX)
    want, got = fn(*args), sstad.jit(fn, backend=backend)(*args)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    check_grads(fn, args, backend=backend, order=2 if backend == "python" else 1)


def test_bincount_of_float32_weights_is_float64_as_numpy():
    w = np.arange(6.0, dtype=np.float32)
    got = sstad.jit(lambda w: np.bincount(IDX, weights=w), backend="python")(w)
    assert got.dtype == np.float64 and np.array_equal(got, np.bincount(IDX, weights=w))


def test_bincount_of_a_negative_index_is_refused_at_run_time():
    with pytest.raises(SstadError, match="must have no negative elements"):
        sstad.jit(lambda i: np.bincount(i), backend="python")(np.array([1, -1]))


# --- sorting a vector along its one axis (Numba's np.sort takes no axis) -----------------------

def median_of_vector(x): return np.median(x)
def sort_axis0(x): return np.sort(x, axis=0) * np.arange(7.0)
def sort_kind(x): return np.sort(x, axis=-1, kind="stable") * np.arange(7.0)
def argsort_axis0(x): return x[np.argsort(x, axis=0)] * np.arange(7.0)
def expand_number(x): return np.sum(np.expand_dims(np.sum(x), 0) * x) + np.sum(np.expand_dims(x[0] * 2.0, (0, 1)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [median_of_vector, sort_axis0, sort_kind, argsort_axis0, expand_number])
def test_one_axis_named(fn, backend):
    check_grads(fn, (V,), backend=backend)
