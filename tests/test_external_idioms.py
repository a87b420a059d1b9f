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
