"""np.ix_, scipy.linalg.cho_factor and scipy.stats.norm.ppf / isf, from their documented
signatures, against NumPy/SciPy values and finite differences (both modes)."""
import numpy as np
import pytest
import scipy.linalg as sla
import scipy.stats as st

import sstad
from sstad.errors import SstadError
from sstad.testing import check_grads

R = np.random.default_rng(11)
A = np.array([[4.0, 1.0, 2.0], [1.5, 5.0, 1.0], [2.5, 1.2, 6.0]])


def sub_matrix(a, rows, cols):
    return np.sum(np.sin(a[np.ix_(rows, cols)]))


def three_axes(a, i, j, k):
    mesh = np.ix_(i, j, k)
    return np.sum(a[mesh] ** 2) + mesh[2].shape[2] * 1.0


def ix_of_a_mask(a, mask):
    return np.sum(a[np.ix_(mask, mask)])


def test_ix_selects_an_open_mesh():
    check_grads(sub_matrix, (R.normal(size=(4, 5)), np.array([0, 2, 2]), np.array([4, 1])), backend="python")
    check_grads(three_axes, (R.normal(size=(3, 4, 5)), np.array([0, 2]), np.array([3, 1, 1]), np.array([4])),
                backend="python")


def test_ix_of_a_boolean_mask_is_refused_saying_what_to_pass():
    with pytest.raises(SstadError, match=r"test_added_functions.py:\d+:.*np.nonzero\(mask\)\[0\]"):
        sstad.jit(ix_of_a_mask, backend="python")(np.ones((3, 3)), np.array([True, False, True]))


def cho_factor_entries(a, lower):
    c, low = sla.cho_factor(a, lower)
    return np.sum(np.sin(c)) + float(low)


def cho_factor_then_solve(a, b):
    return np.sum(sla.cho_solve(sla.cho_factor(a, lower=True), b) ** 2)


@pytest.mark.parametrize("lower", [False, True])
def test_cho_factor_keeps_the_other_triangle_as_scipy_does(lower):
    # SciPy's c holds a's own entries outside the factor's triangle; compared by check_value
    check_grads(cho_factor_entries, (A, lower), backend="python")


def test_cho_factor_then_cho_solve():
    check_grads(cho_factor_then_solve, (A @ A.T, R.normal(size=(3, 2))), backend="python")


def norm_quantiles(q, loc, scale):
    return np.sum(np.sin(st.norm.ppf(q, loc, scale))) + np.sum(st.norm.isf(q, scale=scale))


def test_norm_ppf_and_isf_match_scipy_and_differentiate():
    q = np.array([1e-12, 0.1, 0.5, 0.93])
    np.testing.assert_allclose(sstad.jit(norm_quantiles, backend="python")(q, 0.5, 2.0),
                               norm_quantiles(q, 0.5, 2.0), rtol=1e-13)
    check_grads(norm_quantiles, (q[1:], 0.5, 2.0), backend="python")


def norm_ppf_edges(q, scale):
    return st.norm.ppf(q, 0.0, scale)


def test_norm_ppf_outside_its_domain_is_what_scipy_gives():
    q = np.array([-0.1, 0.0, 0.3, 1.0, 1.2])
    for scale in (1.0, -1.0):
        np.testing.assert_array_equal(sstad.jit(norm_ppf_edges, backend="python")(q, scale), st.norm.ppf(q, 0.0, scale))


@pytest.mark.slow
def test_on_numba():
    check_grads(norm_quantiles, (np.array([0.1, 0.5, 0.93]), 0.5, 2.0), backend="numba")
    check_grads(cho_factor_then_solve, (A @ A.T, R.normal(size=(3, 2))), backend="numba")
    check_grads(sub_matrix, (R.normal(size=(4, 5)), np.array([0, 2, 2]), np.array([4, 1])), backend="numba")


# --- ufunc methods: reduce, accumulate, outer, at ---------------------------------------

def ufunc_reductions(x):
    return (np.sum(np.sin(np.add.reduce(x))) + np.multiply.reduce(x, axis=1).sum()
            + np.maximum.reduce(x, axis=None) + np.sum(np.minimum.reduce(x, 1, keepdims=True))
            + np.sum(np.logaddexp.reduce(x, axis=1)) + np.logaddexp.reduce(x[0]))


def ufunc_scans(x):
    return np.sum(np.sin(np.add.accumulate(x))) + np.sum(np.cos(np.multiply.accumulate(x, axis=1)))


def ufunc_outer(x, y):
    return np.sum(np.sin(np.subtract.outer(x, y))) + np.sum(np.multiply.outer(x, y[0]) ** 2)


def stiffness_by_add_at(log_k, load):
    n = log_k.shape[0]
    K = np.zeros((n + 1, n + 1))
    k = np.exp(log_k)
    idx = np.arange(n)
    np.add.at(K, (idx, idx), k)
    np.add.at(K, (idx + 1, idx + 1), k)
    np.subtract.at(K, (idx, idx + 1), k)
    np.subtract.at(K, (idx + 1, idx), k)
    return load[1:] @ np.linalg.solve(K[1:, 1:], load[1:])


def scatter_repeated(x, idx):
    out = np.zeros(3)
    np.add.at(out, idx, x)
    return np.sum(out ** 2)


UFUNC_CASES = [
    (ufunc_reductions, lambda: (R.uniform(0.5, 1.5, (3, 4)),)),
    (ufunc_scans, lambda: (R.uniform(0.5, 1.5, (3, 4)),)),
    (ufunc_outer, lambda: (R.normal(size=3), R.normal(size=(2, 2)))),
    (stiffness_by_add_at, lambda: (R.normal(size=4) * 0.2, np.linspace(0.1, 1.0, 5))),
    (scatter_repeated, lambda: (R.normal(size=5), np.array([0, 2, 2, 1, 0]))),
]


@pytest.mark.parametrize("fn,make_args", UFUNC_CASES, ids=[c[0].__name__ for c in UFUNC_CASES])
def test_ufunc_methods(fn, make_args):
    check_grads(fn, make_args(), backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn,make_args", UFUNC_CASES, ids=[c[0].__name__ for c in UFUNC_CASES])
def test_ufunc_methods_on_numba(fn, make_args):
    check_grads(fn, make_args(), backend="numba")


def reduce_with_where(x):
    return np.add.reduce(x, where=x > 0)


def test_a_ufunc_method_parameter_it_does_not_take_is_refused_by_name():
    with pytest.raises(SstadError, match=r"test_added_functions.py:\d+:.*np.add.reduce: where= is not supported"):
        sstad.jit(reduce_with_where, backend="python")(np.ones(3))


def max_reduce_with_dtype(x):
    return np.maximum.reduce(x, 0, np.float32)


def logaddexp_reduce_with_dtype(x):
    return np.logaddexp.reduce(x, dtype=np.float32)


@pytest.mark.parametrize("fn, name", [(max_reduce_with_dtype, "maximum"), (logaddexp_reduce_with_dtype, "logaddexp")])
def test_dtype_of_a_reduce_that_takes_none_is_refused_by_name(fn, name):
    """NumPy accepts dtype= (positional third or keyword); these reductions do not cast."""
    with pytest.raises(SstadError, match=rf"test_added_functions.py:\d+:.*np.{name}.reduce: dtype= is not supported"):
        sstad.jit(fn, backend="python")(np.ones(3))
