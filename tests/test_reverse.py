"""Reverse mode: the API (argnums, pytrees, has_aux, weights, vjp), control flow,
in-place updates, closures, conventions at kinks, dtypes, both backends."""
import numpy as np
import pytest

import reverse_cases as rc
import sstad
from fd import check_gradient
from sstad.errors import SstadError

BACKENDS = ["python", "numba"]
rng = np.random.default_rng(1)


def compiled(transform, backend):
    return sstad.jit(transform, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_newton_while_loop_converges_to_the_exact_derivative(backend):
    g = compiled(sstad.grad(rc.newton_sqrt), backend)(2.0)
    assert g == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", [
    (rc.nested_break, (np.array([[0.1, 0.5, 0.2], [0.3, 0.05, 0.9]]), 0.4)),
    (rc.early_return, (np.array([0.5, 0.2, -0.7, 0.3]),)),
    (rc.early_return, (np.array([0.5, 0.2, 0.7]),)),
    (rc.inplace_in_loop, (np.array([0.5, -0.2, 0.7, 0.1]), 0.8)),
    (rc.augmented_arrays, (np.array([[0.5, -0.2], [0.7, 0.1]]), np.array([0.3, -0.4]))),
    (rc.closure_and_lambda, (np.array([0.5, -0.2, 0.7]),)),
])
def test_control_flow_and_in_place_updates(backend, fn, args):
    n = len(args)
    grads = compiled(sstad.grad(fn, argnums=tuple(range(n))), backend)(*args)
    check_gradient(fn, args, grads, rng)


def test_in_place_updates_leave_the_arguments_alone():
    x = np.array([0.5, -0.2, 0.7, 0.1])
    before = x.copy()
    sstad.grad(rc.inplace_in_loop)(x, 0.8)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dict_of_arrays_parameters_give_a_dict_of_gradients(backend):
    params = {"W": np.array([[0.5, -1.0], [2.0, 0.25]]), "b": np.array([0.1, -0.2])}
    x = np.array([0.3, 0.7])
    g = compiled(sstad.grad(rc.dict_params), backend)(params, x)
    assert set(g) == {"W", "b"} and g["W"].shape == (2, 2)
    check_gradient(lambda p: rc.dict_params(p, x), (params,), (g,), rng)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tuple_parameters_and_argnums(backend):
    wb, x = (np.array([0.5, 2.0]), 0.3), np.array([1.0, -1.0])
    g_wb, g_x = compiled(sstad.grad(rc.tuple_params, argnums=(0, 1)), backend)(wb, x)
    assert isinstance(g_wb, tuple) and isinstance(g_wb[1], float)
    check_gradient(rc.tuple_params, (wb, x), (g_wb, g_x), rng)
    g_y = compiled(sstad.grad(rc.two_args, argnums=1), backend)(np.array([1.0, 2.0]), np.array([0.3, 0.4]))
    np.testing.assert_allclose(g_y, np.array([1.0, 2.0]) * np.cos([0.3, 0.4]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_and_grad_and_has_aux(backend):
    x = np.array([1.0, 2.0])
    (value, n), g = compiled(sstad.value_and_grad(rc.with_aux, has_aux=True), backend)(x)
    assert value == pytest.approx(5.0) and n == 2
    np.testing.assert_allclose(g, 2 * x)
    g, n = compiled(sstad.grad(rc.with_aux, has_aux=True), backend)(x)
    np.testing.assert_allclose(g, 2 * x)
    assert n == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_weights_are_gradients_of_global_arrays(backend):
    x = np.array([0.3, -0.6])
    dx, dW, db = compiled(sstad.grad(rc.uses_globals, weights=("W", "b")), backend)(x)
    h = 1 - np.tanh(rc.W @ x + rc.b) ** 2
    np.testing.assert_allclose(dW, np.outer(h, x))
    np.testing.assert_allclose(db, h)
    np.testing.assert_allclose(dx, rc.W.T @ h)


def test_vjp_of_a_vector_function():
    x = np.array([1.0, 2.0, 3.0])
    out, pull = sstad.vjp(rc.not_scalar, x)
    np.testing.assert_allclose(out, 2 * x)
    (dx,) = pull(np.array([1.0, 0.0, -1.0]))
    np.testing.assert_allclose(dx, [2.0, 0.0, -2.0])


def test_grad_of_a_non_scalar_is_a_clear_error():
    with pytest.raises(SstadError, match="scalar float output"):
        sstad.grad(rc.not_scalar)(np.ones(3))


def test_weights_must_name_globals_the_function_reads():
    with pytest.raises(SstadError, match="global array named `V`"):
        sstad.grad(rc.uses_globals, weights=("V",))(np.ones(2))


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_nan_from_an_untaken_branch(backend):
    assert compiled(sstad.grad(rc.untaken_sqrt), backend)(-4.0) == 0.0
    assert compiled(sstad.grad(rc.untaken_sqrt), backend)(4.0) == pytest.approx(0.25)


@pytest.mark.parametrize("backend", BACKENDS)
def test_conventions_at_kinks(backend):
    assert compiled(sstad.grad(rc.abs_at_zero), backend)(0.0) == 0.0          # d|x| at 0
    gx, gy = compiled(sstad.grad(rc.max_tie, argnums=(0, 1)), backend)(1.0, 1.0)
    assert (gx, gy) == (0.5, 0.5)                                             # ties share


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_stays_float32(backend):
    g = compiled(sstad.grad(rc.float32_loss), backend)(np.array([1.0, 2.0], np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [1.0, 2.0])


def test_gradient_code_is_readable():
    text = sstad.dump(sstad.grad(rc.inplace_in_loop, argnums=(0, 1)), np.ones(3), 0.5, emit="python")
    assert "def inplace_in_loop_grad(x, w):" in text
    assert "# reverse_cases.py:" in text and "tape_" in text and "dw" in text


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", [
    (rc.shared_cotangents, (np.array([0.5, -0.2, 0.7]), 1.3)),
    (rc.copy_by_identity, (np.array([0.5, -0.2, 0.7]),)),
])
def test_in_place_adjoint_updates_never_touch_shared_arrays(backend, fn, args):
    grads = compiled(sstad.grad(fn, argnums=tuple(range(len(args)))), backend)(*args)
    check_gradient(fn, args, grads, rng)


def test_simplify_folds_scalar_identities_only():
    args = (0.5, np.ones(3))
    before = sstad.dump(sstad.grad(rc.weighted_sum), *args, after="lowering")
    after = sstad.dump(sstad.grad(rc.weighted_sum), *args)
    assert "op.mul(1.0," in before and "op.mul(1.0," not in after
    assert sstad.grad(rc.weighted_sum)(*args) == pytest.approx(3.0)
    # `y = x * 1.0` is a new array: folding it would let `y += 1.0` write into x
    assert sstad.jit(rc.copy_by_identity)(np.ones(2)) == pytest.approx(6.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_lists_read_while_a_loop_builds_them(backend):
    x = np.array([0.5, -0.3, 0.8])
    grads = compiled(sstad.grad(rc.list_read_while_building), backend)(x)
    check_gradient(rc.list_read_while_building, (x,), (grads,), rng)
