"""Idioms found by running gradient tests written for other AD tools, in our own words.

Each function is written the way such suites write it; every derivative is checked
against central finite differences (``check_grads``: reverse and forward mode, and the
compiled value against plain Python), grouped by the kind of defect it once had.
"""
import numpy as np
import pytest
import scipy.special as sc

import sstad
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
rng = np.random.default_rng(11)


# --- run-time lists made inside a branch (their adjoint was created too late: zero) -----

def list_made_in_each_branch(x):
    if x[0] < 1.0:
        hs = []
        for i in range(3):
            hs.append(x * (i + 1.0))
    else:
        hs = []
        hs.append(np.sin(x))
        hs.append(x * x)
        hs.append(x)
    return np.sum(hs[1] * hs[2])


def appended_twice_in_branch(x):
    if x[0] < 1.0:
        hs = []
        hs.append(x * 2.0)
        hs.append(np.cos(x))
    else:
        hs = []
        hs.append(x)
        hs.append(x * x)
    return np.sum(hs[0] * hs[1])


def power_loop_inside_if(a):
    if a < 20.0:
        for i in range(3):
            a = a * a
    return a


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [list_made_in_each_branch, appended_twice_in_branch])
@pytest.mark.parametrize("first", [0.5, 1.5])
def test_list_made_in_a_branch(fn, first, backend):
    check_grads(fn, (np.array([first, -0.7, 0.3]),), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_loop_tape_made_in_a_branch_second_order(backend):
    """The reverse sweep's tape of a loop inside an ``if`` is such a list: its second
    derivative was 0."""
    check_grads(power_loop_inside_if, (1.3,), order=3, backend=backend)


# --- np.array of nested sequences whose items are arrays (a crash inside the rule) ------

def array_of_array_rows(x):
    return np.array([[2.0 * x, x + 1.0], [np.sin(x), x * x]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_array_of_nested_rows_of_arrays(backend):
    check_grads(array_of_array_rows, (rng.normal(size=(3, 2)),), backend=backend)


# --- Jacobian transforms under sstad.jit (they were compiled as user code and refused) ---

def sin_of_quadratic(x):
    return np.sin(np.sum(x * x * np.arange(1.0, 4.0)))


def rolled_sines(a):
    return np.roll(np.sin(a), 1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_jit_of_hessian_and_jacobians(backend):
    x = rng.normal(size=3)
    w = np.arange(1.0, 4.0)
    s = np.sum(x * x * w)
    hess = np.cos(s) * 2 * np.diag(w) - np.sin(s) * np.outer(2 * w * x, 2 * w * x)
    assert np.allclose(sstad.jit(sstad.hessian(sin_of_quadratic), backend=backend)(x), hess)
    jac = np.roll(np.diag(np.cos(x)), 1, axis=0)
    assert np.allclose(sstad.jit(sstad.jacrev(rolled_sines), backend=backend)(x), jac)
    assert np.allclose(sstad.jit(sstad.jacfwd(rolled_sines), backend=backend)(x), jac)


# --- reductions of a Python number (the rules and keepdims assumed an array) -----------

def statistics_of_a_number(x):
    return (np.mean(x) + np.sum(x, keepdims=True) * np.prod(x) + np.max(x) + np.var(x)
            + 3.0 * np.std(x, ddof=0))


def std_over_one_element(x):
    return np.std(x, axis=0, keepdims=True) + np.std(x[:, :1], axis=1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_of_a_number(backend):
    check_grads(statistics_of_a_number, (1.3,), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_std_with_zero_spread_has_zero_derivative(backend):
    """One element per slice: the standard deviation is 0 whatever x is (it gave NaN)."""
    check_grads(std_over_one_element, (rng.normal(size=(1, 3)),), backend=backend)


# --- np.einsum in NumPy's other spellings, in reverse mode ------------------------------

def einsum_forms(a, b):
    batched = np.einsum("...ij,...jk->...ik", a, b)
    implicit = np.einsum("ij,jk", a[0], b[0])
    sublists = np.einsum(a[1], [0, 1], b[1], [1, 2], [2, 0])
    return np.sum(batched * batched) + np.sum(implicit) + np.sum(sublists * sublists)


def einsum_broadcast_batch(a, b):
    return np.einsum("...ij,...j->...i", a, b)


@pytest.mark.parametrize("backend", BACKENDS)
def test_einsum_ellipsis_implicit_and_sublists(backend):
    check_grads(einsum_forms, (rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 2))), backend=backend)
    check_grads(einsum_broadcast_batch, (rng.normal(size=(2, 3, 4)), rng.normal(size=4)), backend=backend)


# --- functions other suites call, defined over primitives (they were refused) -----------

def numpy_real_valued_spellings(x, y):
    return (np.fabs(x) + np.real(x) * np.conj(y) + np.imag(x) + np.angle(x - 0.1)
            + np.logaddexp2(x, y) + np.copysign(x, y) * y)


def append_and_matrix_power(a, v):
    grown = np.append(a, v)
    return np.sum(grown * grown) + np.sum(np.linalg.matrix_power(a.reshape(2, 2), 3))


def scipy_special_compositions(x, y):
    return (sc.ndtr(x) + sc.gamma(y) + sc.rgamma(y) * sc.gammasgn(y) + sc.beta(y, y + 0.5)
            + sc.betaln(y, 1.5) + sc.entr(y) + sc.expm1(x) + sc.log1p(y))


@pytest.mark.parametrize("backend", BACKENDS)
def test_numpy_real_valued_spellings(backend):
    check_grads(numpy_real_valued_spellings, (rng.normal(size=4), rng.normal(size=4)), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_append_and_matrix_power(backend):
    check_grads(append_and_matrix_power, (rng.normal(size=4), 0.5), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scipy_special_compositions(backend):
    check_grads(scipy_special_compositions, (rng.normal(size=3), rng.uniform(0.5, 2.0, size=3)), backend=backend)


# --- a list used as a stack: append, then pop (it was refused) --------------------------

def push_then_pop(a):
    pending = []
    squared = a * a
    pending.append(a)
    top = pending.pop()
    return squared * top * top


def fill_then_drain(x):
    pending = []
    for i in range(x.shape[0]):
        pending.append(x[i] * (i + 1.0))
    y = 1.0
    while pending:
        y = y * np.sin(pending.pop()) + 0.5
    return y


def push_two_pop_one(x):
    pending = []
    y = 0.0
    for i in range(x.shape[0]):
        pending.append(x[i] * 2.0)
        pending.append(np.cos(x[i]))
        y = y + pending.pop() * y + x[i]
    while len(pending) > 1:
        y = y + pending.pop() * pending.pop()
    return y + sum(pending)


def depth_first_over_arrays(x, w):
    pending = []
    pending.append(x)
    total = np.zeros_like(x)
    steps = 0
    while pending and steps < 7:
        h = pending.pop()
        total = total + np.tanh(h)
        if np.sum(h) > -3.0:
            pending.append(w @ h * 0.5)
            if steps % 2 == 0:
                pending.append(h * h)
        steps += 1
    if pending:
        total = total + pending.pop()
    return np.sum(total * total)


def literal_popped(x):
    items = [x, 2.0 * x, x * x]
    last = items.pop()
    return last + items[-1] * len(items)


@pytest.mark.parametrize("backend", BACKENDS)
def test_stack_pop_straight_line(backend):
    check_grads(push_then_pop, (1.5,), order=2, backend=backend)
    check_grads(literal_popped, (rng.normal(size=3),), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [fill_then_drain, push_two_pop_one])
def test_stack_pop_in_loops(fn, backend):
    check_grads(fn, (np.array([0.3, -0.4, 1.1]),), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_stack_of_arrays_depth_first(backend):
    check_grads(depth_first_over_arrays, (rng.normal(size=3), rng.normal(size=(3, 3))), backend=backend)


def test_pop_at_an_index_is_refused():
    def pop_first(x):
        items = []
        items.append(x)
        return items.pop(0)
    with pytest.raises(sstad.errors.UnsupportedSyntaxError, match="last item only"):
        sstad.jit(pop_first)(1.0)


# --- scipy.stats distributions' methods and scipy.special inverses (they were refused) ---

import scipy.stats as stats  # noqa: E402


def normal_and_student(x, loc, scale):
    return (stats.norm.logpdf(x, loc, scale) + stats.norm.pdf(x, loc=loc, scale=scale)
            + stats.norm.cdf(x, loc, scale) + stats.norm.logcdf(x, loc, scale) + stats.norm.sf(x, loc)
            + stats.norm.logsf(x, scale=scale) + stats.t.logpdf(x, scale + 1.0, loc, scale)
            + stats.t.pdf(x, 3.0, loc=loc))


def counts_and_positive_densities(x, a, b):
    return (stats.gamma.logpdf(x, a, scale=b) + stats.gamma.pdf(x + 0.5, a, 0.1, b)
            + stats.beta.logpdf(x / 4.0, a, b) + stats.beta.pdf(x / 4.0, a, b, loc=-0.1)
            + stats.poisson.logpmf(np.array([0.0, 1.0, 3.0]), a + b) + stats.poisson.pmf(2.0, a))


FULL_COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]])


def multivariate_densities(x, mean, cov, alpha):
    points = np.stack([x, 2.0 * x])
    return (stats.multivariate_normal.logpdf(x, mean, cov)
            + np.sum(stats.multivariate_normal.logpdf(points, mean, FULL_COV))
            + stats.multivariate_normal.pdf(x, cov=2.0) + stats.multivariate_normal.logpdf(x)
            + stats.dirichlet.logpdf(np.array([0.2, 0.3, 0.5]), alpha)
            + stats.dirichlet.pdf(np.array([0.2, 0.3, 0.5]), alpha))


def inverse_error_functions(y):
    return sc.erfinv(y) * sc.erfcinv(y + 1.0) + sc.erfcinv(0.5 * y + 0.6)


def log_normal_cdf(x):
    return sc.log_ndtr(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_normal_and_student_t(backend):
    args = (rng.normal(size=(4, 3)), rng.normal(size=(1, 3)), rng.normal(size=(4, 1)) ** 2 + 1.1)
    check_grads(normal_and_student, args, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gamma_beta_poisson(backend):
    args = (rng.uniform(0.5, 2.0, 3), rng.uniform(1.5, 3.0, 3), rng.uniform(1.5, 3.0, 3))
    check_grads(counts_and_positive_densities, args, backend=backend)
    outside = sstad.jit(counts_and_positive_densities, backend=backend)(-np.ones(3), np.ones(3), np.ones(3))
    assert np.all(outside == -np.inf)


@pytest.mark.parametrize("backend", BACKENDS)
def test_multivariate_normal_and_dirichlet(backend):
    """SciPy reads the covariance's lower triangle only: so must the gradient."""
    args = (rng.normal(size=3), rng.normal(size=3), FULL_COV + np.triu(rng.normal(size=(3, 3)), 1),
            rng.uniform(1.2, 2.0, 3))
    check_grads(multivariate_densities, args, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_erfinv_erfcinv_log_ndtr(backend):
    check_grads(inverse_error_functions, (np.linspace(-0.95, 0.95, 5),), order=2, backend=backend)
    far = np.array([-60.0, -25.0, -20.0, -19.9, -3.0, 0.0, 0.5, 7.0])
    check_grads(log_normal_cdf, (far,), backend=backend)
    assert np.allclose(sstad.jit(log_normal_cdf, backend=backend)(far), sc.log_ndtr(far), rtol=1e-14, atol=0)
    y = np.concatenate([np.linspace(-0.999, 0.999, 41), [-1.0, 1.0]])
    t = np.concatenate([np.logspace(-300, -1, 30), np.linspace(0.1, 1.99, 30), [0.0, 2.0]])
    got = sstad.jit(lambda y, t: (sc.erfinv(y), sc.erfcinv(t)), backend=backend)(y, t)
    assert np.allclose(got[0], sc.erfinv(y), rtol=1e-14, atol=0)
    assert np.allclose(got[1], sc.erfcinv(t), rtol=1e-14, atol=0)


# --- assert on data inside compiled code (it was refused) ------------------------------

def checked_growth(x, n):
    assert len(x) == 3
    for i in range(n):
        assert x[i] > -5.0, "entries must exceed -5"
        x = x * 1.5
    assert np.all(np.isfinite(x))
    return np.sum(np.sin(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_assert_checks_at_run_time(backend):
    check_grads(checked_growth, (np.array([0.3, -0.2, 1.0]), 2), backend=backend)
    compiled = sstad.jit(checked_growth, backend=backend)
    with pytest.raises(AssertionError, match="entries must exceed -5"):
        compiled(np.array([-6.0, 1.0, 2.0]), 2)
    with pytest.raises(AssertionError, match=r"test_external_idioms.py:\d+: assert len\(x\) == 3"):
        compiled(np.ones(4), 2)


# --- gradients of integer-array reads mixed with slices and integers, under Numba --------

def rows_by_list(x):
    return x[[0, 1, 2], :, :]


def integer_slice_and_list(x):
    return x[3, 2:, [1, 3]]


def repeated_rows(x):
    return x[[0, 2, 0], 1:, :] * x[1, :, [0, 0, 2]]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [rows_by_list, integer_slice_and_list, repeated_rows])
def test_list_index_mixed_with_slices(fn, backend):
    check_grads(fn, (rng.normal(size=(5, 4, 4)),), backend=backend)


# --- n-d boolean masks: the reverse sweep's scatter under Numba (it failed to compile), a
# --- mask of the leading axes only (ravelled: an IndexError; assigned through np.where: wrong
# --- elements, silently)

def squares_where_positive(x):
    return np.sum(x[x > 0.0] ** 2)


def rows_chosen_by_a_mask(x, w):
    return np.sum(np.sin(x[w > 0.0]) * x[w > 0.0])


def zero_where_leading_mask(x, w):
    y = x * 1.0
    y[w > 0.0] = 0.0
    return y


def relu_of_a_matrix(x):
    y = x.copy()
    y[y < 0.0] = 0.0                 # the reverse sweep restores the old values: an array
    return np.sum(y * x)


def doubled_rows(x, w):
    y = x * 1.0
    y[w > 0.0] = x[w > 0.0] * 2.0
    return y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [squares_where_positive, relu_of_a_matrix], ids=lambda f: f.__name__)
def test_gradient_of_a_2d_mask(fn, backend):
    check_grads(fn, (rng.normal(size=(3, 4)),), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mask_of_the_leading_axes_written_with_rows(backend):
    check_grads(doubled_rows, (rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 4))), backend=backend)


def test_mask_of_the_leading_axes():
    x, w = rng.normal(size=(4, 4, 4)), rng.normal(size=(4, 4))
    assert np.array_equal(sstad.jit(zero_where_leading_mask, backend="python")(x, w), zero_where_leading_mask(x, w))
    check_grads(rows_chosen_by_a_mask, (rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 4))), backend="python")
