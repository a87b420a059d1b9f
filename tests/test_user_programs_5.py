"""Programs of a fifth batch (tests/user_programs_5.py): an EKF, L-BFGS inside the objective,
masked attention, a 1-d CNN, adaptive Heun steps, tax brackets, a Vandermonde fit, a
backtest, CRPS, IRLS, pharmacokinetics, EM, Kepler's equation, a biquad, LQR, GloVe, a
binomial tree, IDM traffic, 2-d heat, a blur with Sobel edges, Horn-Schunck optical flow,
Levenberg-Marquardt and a particle filter.  Each against NumPy (the value under
``sstad.jit``) and central finite differences (reverse and forward mode), on both backends;
Numba runs are slow.

Below them, what these programs needed, each with a check that failed before: np.correlate,
np.select, np.piecewise, np.vander, np.gradient, np.polyfit, np.nonzero, np.einsum's
``optimize=``, np.pad's mirror modes, ``astype`` of a NumPy scalar, ``callable``, starred
unpacking, slices of run-time lists, a list empty in a loop's first round, a list literal of
one item; the refusals they met, asserted clear; and a defect found in reverse mode
(len of a list an outer loop grows), fixed meanwhile, kept as a regression."""

import numpy as np
import pytest

import sstad
import user_programs_5 as up
from program_registry import batch_checks
from refusals import refused_at
from sstad.errors import RunTimeRefusal
from sstad.testing import check_grads

args_of, test_on_python, test_on_numba = batch_checks(up.PROGRAMS, seed=5)
BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


# --- np.correlate (was: no derivative rule) -------------------------------------------------

def correlate_modes(a, v):
    return (np.correlate(a, v) ** 2).sum() + np.sum(np.correlate(a, v, "same") * np.arange(max(len(a), len(v)))) \
        + np.sum(np.correlate(a, v, mode="full") ** 3)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n, m", [(7, 3), (6, 4), (3, 5)])
def test_correlate_in_every_mode_and_either_input_longer(n, m, backend):
    r = np.random.default_rng(n + m)
    check_grads(correlate_modes, (r.normal(size=n), r.normal(size=m)), backend=backend)


# --- np.select (was: no derivative rule) ----------------------------------------------------

def select_bands(x, a):
    return np.select([x < -1.0, x < 1.0, x < 2.0], [a * x, x ** 2, np.sin(x)], default=a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_select_first_true_condition_wins(backend):
    x = np.array([-2.0, -0.5, 0.5, 1.5, 3.0])
    np.testing.assert_array_equal(sstad.jit(select_bands, backend=backend)(x, 0.7), select_bands(x, 0.7))
    check_grads(select_bands, (x, 0.7), backend=backend)


def select_integer_condition(x):
    return np.sum(np.select([x.astype(np.int64)], [x]))      # ERR select


def test_select_of_a_non_boolean_condition_is_refused_at_its_line():
    refused_at(select_integer_condition, (np.ones(3),), r"condlist: should be boolean", "# ERR select")


# --- np.piecewise (was: refused, "cannot take a Closure") ------------------------------------

def piecewise_sqrt(x, c):
    return np.sum(np.piecewise(x, [x < 0.0, x > 2.0], [0.0, lambda v: c * v, lambda v: np.sqrt(v)]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_piecewise_with_a_number_and_an_otherwise_function(backend):
    x = np.array([-1.0, 0.5, 1.5, 3.0, 4.0])
    assert sstad.jit(piecewise_sqrt, backend=backend)(x, 2.0) == piecewise_sqrt(x, 2.0)
    check_grads(piecewise_sqrt, (x, 2.0), backend=backend)


def piecewise_extra_argument(x, a):
    return np.sum(np.piecewise(x, [x < 0.0], [lambda v, s: s * v, lambda v, s: v ** 2 / s], a))


@pytest.mark.parametrize("backend", BACKENDS)
def test_piecewise_passes_extra_arguments_to_the_functions(backend):
    check_grads(piecewise_extra_argument, (np.array([-1.0, 0.5, 2.0]), 3.0), backend=backend)


def test_piecewise_branches_see_only_their_items():
    """sqrt only sees 0 <= x <= 2, so its NaN slope at the negative items never meets them."""
    x = np.array([-1.0, 0.0 + 1e-3, 4.0])
    g = sstad.grad(piecewise_sqrt)(x, 2.0)
    np.testing.assert_allclose(g, [0.0, 0.5 / np.sqrt(1e-3), 2.0])


def callable_dispatch(x, f):
    return f(x) if callable(f) else f * x


def test_callable_is_known_at_compile_time():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(sstad.jit(callable_dispatch)(x, np.sin), np.sin(x))
    np.testing.assert_allclose(sstad.jit(callable_dispatch)(x, 3.0), 3.0 * x)


# --- np.vander (was: no derivative rule) ----------------------------------------------------

def vander_weighted(x, n):
    return np.sum(np.vander(x, n) * np.arange(1.0, n + 1)) + np.sum(np.vander(x, increasing=True) ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_vander_at_zero_and_both_orders(backend):
    x = np.array([-1.0, 0.0, 0.5, 2.0])
    check_grads(vander_weighted, (x, 4), backend=backend)
    check_grads(vander_weighted, (x, 1), backend=backend)
    check_grads(vander_weighted, (x, 0), backend=backend)     # no columns: cumprod's rule of an empty axis
    ints = np.array([1, 2, 3])
    np.testing.assert_array_equal(sstad.jit(vander_of, backend=backend)(ints), np.vander(ints))
    assert sstad.jit(vander_of, backend=backend)(ints).dtype == np.vander(ints).dtype


def vander_of(x):
    return np.vander(x)


# --- np.gradient (was: refused, its trial call on a 1 x 1 stand-in failing in NumPy) ----------

def image_gradients(f):
    gy, gx = np.gradient(f)
    return np.sum(gy ** 2 * np.arange(f.shape[1])) + np.sum(np.sin(gx))


def spaced_gradient(f, h):
    return np.sum(np.gradient(f, h) ** 3)


def gradient_forms(f):
    return np.gradient(f, 0.5, 2.0), np.gradient(f, axis=1), np.gradient(f, 0.3, axis=(-1, 0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_central_inside_one_sided_at_the_ends(backend):
    r = np.random.default_rng(3)
    f = r.normal(size=(4, 5))
    check_grads(image_gradients, (f,), backend=backend)
    check_grads(spaced_gradient, (r.normal(size=6), 0.7), backend=backend)
    for got, want in zip(sstad.jit(gradient_forms, backend=backend)(f), gradient_forms(f)):
        np.testing.assert_allclose(got, want, rtol=1e-13)
    ints = np.arange(5) ** 2                                   # NumPy differentiates integers in float64
    got = sstad.jit(gradient_of, backend=backend)(ints)
    np.testing.assert_array_equal(got, np.gradient(ints))
    assert got.dtype == np.gradient(ints).dtype


def gradient_of(f):
    return np.gradient(f)


def test_gradient_of_one_item_is_refused_at_run_time():
    with pytest.raises(RunTimeRefusal, match="at least 2 items"):
        sstad.jit(spaced_gradient)(np.ones(1), 1.0)


# --- np.polyfit (was: no derivative rule), np.nonzero (was: refused, a tuple result) and
#     .astype / .item of a NumPy scalar (was: "method `.astype` of a value of type f32") ----

def quadratic_fit(x, y, w):
    return np.sum(np.polyfit(x, y, 2) ** 2) + np.sum(np.polyfit(x, y, 3, w=w) ** 2)


def positive_part_moments(A):
    i, j = np.nonzero(A > 0)
    return np.sum(A[i, j] ** 2 * (i + 1) * (j + 2)) + np.sum(A[0][np.nonzero(A[0])[0]] ** 3)


def positive_by_where(A):
    """np.where with only a condition: the indices np.nonzero gives."""
    i, j = np.where(A > 0)
    return np.sum(A[i, j] ** 2 * (i + 1)) + np.sum(A[0][np.where(A[0] < 0)] ** 3)


def scalar_methods(x):
    return np.sum(x ** 2).astype(np.float64) * np.prod(x).item()


def total_in_float32(x):
    return np.sum(x).astype(np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_polyfit_nonzero_and_scalar_methods(backend):
    r = np.random.default_rng(6)
    t, y = np.linspace(0.0, 1.0, 7), r.normal(size=7)
    check_grads(quadratic_fit, (t, y, r.uniform(0.5, 1.5, size=7)), backend=backend)
    A = r.normal(size=(3, 4))
    A[0, 1] = 0.0
    check_grads(positive_part_moments, (A,), backend=backend)
    check_grads(positive_by_where, (A,), backend=backend)
    assert sstad.jit(positive_by_where, backend=backend)(A) == pytest.approx(positive_by_where(A), rel=1e-14)
    check_grads(scalar_methods, (np.array([1.0, 2.0, -0.5]),), backend=backend)
    assert type(sstad.jit(total_in_float32, backend=backend)(np.ones(3))) is np.float32


# --- np.einsum(..., optimize=True) (was: refused in reverse mode, "with `...` or keywords") --

def chained_contraction(a, b, c):
    return np.einsum("ij,jk,kl->il", a, b, c, optimize=True).sum() + np.einsum("ij,ij->", a, a, optimize="greedy")


@pytest.mark.parametrize("backend", BACKENDS)
def test_einsum_optimize_is_only_an_order(backend):
    r = np.random.default_rng(7)
    check_grads(chained_contraction, (r.normal(size=(2, 3)), r.normal(size=(3, 4)), r.normal(size=(4, 2))),
                backend=backend)


# --- np.pad's mirror modes (was: only 'constant' and 'edge') ---------------------------------

def padded(x, mode):
    return np.pad(x, ((1, 2), (0, 3)), mode=mode)


def padded_energy(x, mode):
    return np.sum(np.pad(x, 2, mode=mode) ** 2 * np.arange(9.0)[:, None])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
def test_pad_mirror_modes(mode, backend):
    x = np.random.default_rng(1).normal(size=(5, 4))
    np.testing.assert_array_equal(sstad.jit(padded, backend=backend)(x, mode), padded(x, mode))
    check_grads(padded_energy, (x, mode), backend=backend)


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
def test_pad_wider_than_the_axis_is_refused_at_run_time(mode):
    with pytest.raises(RunTimeRefusal, match=rf"np\.pad\(mode='[a-z' ]*{mode}[a-z' ]*\): a pad width .*not supported"):
        sstad.jit(padded_energy)(np.ones((2, 2)) if mode == "reflect" else np.ones((1, 1)), mode)


# --- starred unpacking (was: "cannot unpack 4 values into 2") --------------------------------

def lstsq_starred(A, y):
    x, *_ = np.linalg.lstsq(A, y, rcond=None)
    first, *middle, last = (y[0], y[1], 2.0 * y[2], y[3])
    return np.sum(x ** 2) + first * last + sum(middle)


@pytest.mark.parametrize("backend", BACKENDS)
def test_starred_unpacking_of_a_static_sequence(backend):
    r = np.random.default_rng(2)
    check_grads(lstsq_starred, (r.normal(size=(5, 3)), r.normal(size=5)), backend=backend)


def starred_of_an_array(y):
    head, *rest = y                                            # ERR starred
    return head


def test_starred_unpacking_of_an_array_is_refused_at_its_line():
    refused_at(starred_of_an_array, (np.ones(3),), r"(?s)starred unpacking.*index the items", "# ERR starred")


# --- a list empty in an enclosing loop's first round (L-BFGS's history) ----------------------
# Was "cannot infer the type of `rho`": the inner loop was refused in the outer loop's first
# trial round, before the round's append gave the list its items' type.

def _correction(q, history):
    for i in range(len(history)):
        rho = 1.0 / (history[i] @ history[i])
        q = q - rho * (history[i] @ q) * history[i]
    return q


def history_in_a_loop(x):
    history = []
    for _ in range(3):
        d = _correction(x * 1.0, history)
        history.append(d + 0.5)
    return np.sum(np.sum(history, axis=0) ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_list_filled_later_in_the_same_loop(backend):
    check_grads(history_in_a_loop, (np.array([1.0, 2.0, -0.5]),), backend=backend)


def read_before_any_append(x):
    history = []
    q = x.copy()
    for i in range(len(history)):                              # ERR empty
        rho = 1.0 / (history[i] @ history[i])
        q = q - rho * history[i]
    history.append(q)
    return np.sum(history[0])


def test_list_never_appended_before_its_loop_is_refused_with_what_to_do():
    refused_at(read_before_any_append, (np.ones(2),), r"(?s)cannot infer the type of `rho`.*still empty",
               "# ERR empty")


# --- a run-time list sliced (was: "a list takes one integer index") ---------------------------

def sliced_lists(x, a, b):
    gains = []
    for k in range(4):
        gains.append(x * (k + 1.0))
    backwards = gains[::-1]
    every_other = gains[1:-1:2]
    window = gains[a:b]
    return np.sum(backwards[0] * 2.0 + backwards[3]) + np.sum(every_other[0] ** 3) \
        + np.sum(np.stack(window) ** 2) + len(window)


def empty_slice(x):
    vals = []
    for v in x:
        vals.append(v * v)
    return len(vals[5:]) + x[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("a, b", [(0, 2), (-3, 4), (1, -1), (-1, 9)])
def test_run_time_list_slices_follow_pythons_rules(a, b, backend):
    check_grads(sliced_lists, (np.array([1.0, 2.0, -1.5]), a, b), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_empty_slice_of_a_run_time_list(backend):
    check_grads(empty_slice, (np.array([1.0, 2.0, -1.5]),), backend=backend)


# --- a list literal a loop appends to (was: refused naming sstad's internal literal_index,
#     whose trial call on stand-ins failed for a literal of one item; then refused with a
#     hint to start from []; now made a run-time list before the loop) ----------------------

def literal_list_appended_in_a_loop(x):
    s_list = [x[0]]
    total = 0.0
    for _ in range(2):
        for i in range(len(s_list)):
            total += s_list[i] * x[1]
        s_list.append(x[0] + total)
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_list_literal_grown_in_a_loop(backend):
    check_grads(literal_list_appended_in_a_loop, (np.array([1.0, 2.0]),), backend=backend)


def one_item_literal(x, i):
    return np.sum([x * 2.0][i] ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_literal_of_one_item_at_a_run_time_index(backend):
    x = np.array([1.0, -2.0])
    check_grads(one_item_literal, (x, -1), backend=backend)
    with pytest.raises(IndexError):
        sstad.jit(one_item_literal, backend=backend)(x, 1)
