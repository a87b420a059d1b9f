"""Regressions of silently wrong results found by running sstad on code written by others."""
import inspect
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import sstad
import trust_cases as tc
from sstad.errors import SstadError
from sstad.testing import check_grads

XS = np.random.default_rng(5).normal(size=(4, 3))


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("fn", [tc.rnn_stacked, tc.rnn_stacked_last_axis, tc.rnn_array, tc.rnn_concatenated])
def test_a_stacked_list_built_by_append_gets_its_gradient(fn, backend):
    check_grads(fn, (0.7, XS), backend=backend)


def test_two_lambdas_on_one_line_are_two_functions():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(sstad.grad(tc.ROLLERS[0])(x), [2.0, 2.0])
    np.testing.assert_allclose(sstad.grad(tc.ROLLERS[1])(x), [3.0, 12.0])


@pytest.mark.slow
def test_a_recursive_function_reloads_from_the_disk_cache(tmp_path):
    """The second process to load a compiled recursive function once crashed."""
    script = ("import sys; sys.path.insert(0, %r); import trust_cases as tc, sstad, numpy as np;"
              "print(repr(float(sstad.jit(sstad.grad(tc.through_recursion))(0.7))))"
              % os.path.dirname(__file__))
    env = {**os.environ, "SSTAD_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                           timeout=300) for _ in range(2)]
    expected = 3 * 0.7 ** 2 * np.cos(0.7 ** 3)
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
        assert abs(float(run.stdout.strip()) - expected) < 1e-12


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_a_changed_config_object_is_seen_at_the_next_call(backend):
    x = np.arange(3.0)
    f = sstad.jit(tc.scaled_by_global_config, backend=backend)
    g = sstad.jit(tc.scaled_by_config_argument, backend=backend)
    config = tc.Config(2.0, np.ones(3))
    try:
        for scale, weights in ((2.0, np.ones(3)), (3.0, np.full(3, 2.0)), (3.0, np.arange(3.0))):
            tc.CONFIG.scale, tc.CONFIG.weights = scale, weights
            config.scale, config.weights = scale, weights
            assert f(x) == tc.scaled_by_global_config(x)
            assert g(x, config) == tc.scaled_by_config_argument(x, config)
    finally:
        tc.CONFIG.scale, tc.CONFIG.weights = 2.0, np.ones(3)


def test_differentiating_an_opaque_object_is_refused():
    with pytest.raises(SstadError, match="argument 0 \\(Config\\)"):
        sstad.grad(tc.loss_of_config)(tc.Config(2.0, np.ones(3)), np.ones(3))


@pytest.mark.parametrize("argnums", [2, (0, 5), -3])
def test_argnums_out_of_range_is_a_clear_error(argnums):
    with pytest.raises(SstadError, match="out of range"):
        sstad.grad(tc.scaled_by_config_argument, argnums=argnums)(np.ones(3), tc.CONFIG)


_R = np.random.default_rng(11)
FOUND_OUTSIDE = {   # silently wrong once, found by programs written by others
    "A[np.triu_indices(3)]": (tc.upper_triangle_by_indices, (_R.normal(size=(3, 3)),)),
    "Q[iu] = A[iu]": (tc.upper_triangle_assigned, (_R.normal(size=(3, 3)),)),
    "np.full((3, 4), row)": (tc.full_of_a_row, (_R.normal(size=4),)),
    "np.full_like(a, row)": (tc.full_like_of_a_row, (_R.normal(size=4),)),
    "np.stack(..., axis=-1)": (tc.stacked_on_the_last_axis, (_R.normal(size=(3, 4)), _R.normal(size=(3, 4)))),
    "a.var(None, None, None, 1)": (tc.variance_method_with_ddof, (_R.normal(size=(3, 4)),)),
    "np.max(a, 0, None, True)": (tc.max_with_positional_keepdims, (_R.normal(size=(3, 4)),)),
    "np.mean(a, axis=(0, -1))": (tc.mean_over_two_axes, (_R.normal(size=(3, 4)),)),
    "x.diagonal(offset=-1)": (tc.diagonal_method, (_R.normal(size=(3, 3)),)),
    "np.take(x, [1, 0, 0]), x.take([2, 1])": (tc.take_a_constant_list, (_R.normal(size=3),)),
    "np.take(A, [0, 1], -1)": (tc.take_a_constant_list_along_an_axis, (_R.normal(size=(3, 3)),)),
    "np.concatenate(..., axis=None)": (tc.concatenate_flattened, (_R.normal(size=(3, 3)),)),
    "np.vstack(hs) of an appended list": (tc.vstack_of_an_appended_list, (_R.normal(size=3),)),
    "np.take(x, -1, axis=-2)": (tc.take_one_index_along_an_axis, (_R.normal(size=(3, 3)),)),
    "np.repeat(x, 2, axis=0)": (tc.repeat_along_an_axis, (_R.normal(size=(3, 3)),)),
    "np.trace(x, 0, 1, 0) in np.full": (tc.full_of_a_trace_over_swapped_axes, (_R.normal(size=(3, 3)),)),
    "np.sort(x, axis=-1), np.sort(x, 0)": (tc.sort_rows_and_columns, (_R.uniform(-1.0, 1.0, (3, 3)),)),
    "np.array(x), np.array([[a, b], [c, d]]), np.asarray([x, y])":
        (tc.array_of_an_array_and_of_nested_numbers, (_R.normal(size=3),)),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FOUND_OUTSIDE))
def test_found_outside_under_numba(name):
    fn, args = FOUND_OUTSIDE[name]
    check_grads(fn, args, backend="numba")


def test_roll_by_a_tuple_compiles_and_differentiates():
    x = np.array([0.3, -0.4, 0.9])
    assert sstad.jit(tc.roll_by_a_tuple, backend="python")(x) == pytest.approx(tc.roll_by_a_tuple(x))
    check_grads(tc.roll_by_a_tuple, (x,), backend="python")


@pytest.mark.parametrize("name", sorted(FOUND_OUTSIDE))
def test_found_outside(name):
    fn, args = FOUND_OUTSIDE[name]
    np.testing.assert_allclose(sstad.jit(fn, backend="python")(*args), fn(*args), rtol=1e-12)
    check_grads(fn, args, backend="python")


def test_take_with_a_matrix_of_indices_along_an_axis_is_refused():
    with pytest.raises(SstadError, match="1-d array of indices") as info:
        sstad.grad(tc.take_with_a_matrix_of_indices)(np.ones((3, 4)))
    lines, start = inspect.getsourcelines(tc.take_with_a_matrix_of_indices)
    line = next(start + i for i, text in enumerate(lines) if text.rstrip().endswith("# ERR take"))
    assert re.search(rf"trust_cases\.py:{line}\b", str(info.value))


def test_a_numpy_function_or_a_number_is_not_a_function_to_compile():
    with pytest.raises(SstadError, match="`sin` is not one"):
        sstad.grad(np.sin)(0.3)
    with pytest.raises(TypeError, match="takes a function, not int"):
        sstad.grad(42)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_rebound_globals_are_seen(backend, monkeypatch):
    """Rebinding a global object, tuple of arrays or tuple of numbers recompiles or is
    read afresh; a default argument is not confused with a global of the same name."""
    x = np.arange(2.0)
    fns = [tc.scaled_by_rebound_config, tc.times_second_of_pair, tc.times_second_factor,
           tc.with_a_default_array]
    compiled = [sstad.jit(fn, backend=backend) for fn in fns]
    for fn, jitted in zip(fns, compiled):
        assert jitted(x) == fn(x)
    monkeypatch.setattr(tc, "CONFIG", tc.Config(5.0, np.ones(3)))
    monkeypatch.setattr(tc, "PAIR", (np.ones(2), np.full(2, 7.0)))
    monkeypatch.setattr(tc, "FACTORS", (1.0, 9.0))
    for fn, jitted in zip(fns, compiled):
        assert jitted(x) == fn(x), fn.__name__


def test_a_name_whose_type_differs_on_two_paths_is_an_error_only_when_read():
    x = np.array([0.4, 0.3])
    assert sstad.jit(tc.dead_after_a_type_change, backend="python")(x) == tc.dead_after_a_type_change(x)
    with pytest.raises(SstadError, match="on one path and a f64 on another") as info:
        sstad.jit(tc.read_after_a_type_change, backend="python")(x)
    assert "trust_cases.py" in str(info.value)


def test_repeat_by_a_list_compiles_and_differentiates():
    x = np.random.default_rng(1).normal(size=(3, 3))
    assert sstad.jit(tc.repeat_by_a_list, backend="python")(x) == pytest.approx(tc.repeat_by_a_list(x))
    check_grads(tc.repeat_by_a_list, (x,), backend="python")


def test_cumprod_is_exact_at_zeros():
    """The rule once divided by x: NaN where x has a zero."""
    x = np.array([1.0, 0.0, 2.0, 3.0])
    np.testing.assert_allclose(sstad.grad(tc.cumprod_through_a_zero)(x), [1.0, 32.0, 0.0, 0.0])
    check_grads(tc.cumprod_through_a_zero, (np.array([1.3, 0.4, 2.0, -0.7]),), backend="python", order=2)
    check_grads(tc.cumprod_along_rows, (np.random.default_rng(3).normal(size=(3, 4)),), backend="python")


@pytest.mark.slow
def test_cumprod_along_an_axis_under_numba():
    check_grads(tc.cumprod_along_rows, (np.random.default_rng(3).normal(size=(3, 4)),), backend="numba")
