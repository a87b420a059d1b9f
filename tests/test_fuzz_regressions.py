"""Regression cases found by the program fuzzer (sstad.testing.fuzz), each reduced to a
minimal program by Hypothesis.  Cases the compiler still fails are xfail(strict=True):
when a fix lands, the xfail turns into an XPASS failure; remove the marker then (and the
case's entry in KNOWN).

KNOWN lists the failure signatures (substrings of sstad.testing.fuzz signatures) that
the bounded CI campaign in tests/test_testing.py tolerates while these are open.
"""
import math
import warnings

import numpy as np
import pytest

from sstad.testing import check_grads

KNOWN = (
    # valid NumPy that sstad refuses with a clear error naming the line (none open)
)


def check(fn, *args, modes=("rev", "fwd")):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(fn, args, modes=modes, backend="python")


# -- 1. a dead value inside a loop gave NaN (hypot at 0); fixed by 772d46e ---------------

def dead_hypot_in_loop(x0, x2):
    for e1 in x0:
        t2 = np.sin(np.hypot(e1, e1))   # noqa: F841 - unused: its gradient must be zero
    return x2


def test_dead_hypot_in_loop():
    check(dead_hypot_in_loop, np.array([0.0, 0.0]), np.array([0.5, 1.0, -0.3]), modes=("rev",))


# -- 2. `break` in an inner for loop and `return` in the same loop, inside a while ------

def break_and_return_in_nested_loops(x0, x1):
    k1 = 0
    while k1 < 3:
        k1 += 1
        for e2 in x0:
            if x1 > 0.5:
                break
            if x1 > 0.5:
                return x0
    return x0


def test_break_and_return_in_nested_loops():
    check(break_and_return_in_nested_loops, np.array([0.1, 0.2, 0.3]), 0.0)


# -- 3. forward mode: a variable bound in one branch only (fixed by 9d50bf2) -------------

def bound_in_one_branch(x0, x1, x2):
    if x1 > 0.5:
        t1 = x0  # noqa: F841
    return x1


def test_bound_in_one_branch():
    check(bound_in_one_branch, np.zeros(3), 0.0, np.zeros(3))


# -- 4. np.flip(x, axis=0): the reverse rule is inlined with `axis` twice -----------------

def flip_axis(x):
    return np.sum(np.flip(x, axis=0) * x)


def test_flip_axis():
    check(flip_axis, np.arange(4.0).reshape(2, 2) + 0.1, modes=("rev",))


def test_flip_axis_forward():
    check(flip_axis, np.arange(4.0).reshape(2, 2) + 0.1, modes=("fwd",))


# -- 5. forward mode: a list started empty inside an outer loop -------------------------

def list_in_nested_loop(x1):
    s = 0.0
    for i1 in range(2):
        acc2 = []
        for i3 in range(3):
            acc2.append(2.0 + np.sum(x1))
        s = s + sum(acc2)
    return s


def test_list_in_nested_loop_forward():
    check(list_in_nested_loop, np.array([0.1, 0.2]), modes=("fwd",))


def test_list_in_nested_loop_reverse():
    check(list_in_nested_loop, np.array([0.1, 0.2]), modes=("rev",))


# -- 6. rules the subset promises (were missing: np.full with a run-time value, math.erf) --

def full_runtime_fill(x):
    return np.sum(np.full(3, np.sum(x)) * x)


def erf_of_sum(x):
    return math.erf(np.sum(x))


@pytest.mark.parametrize("fn", [full_runtime_fill, erf_of_sum])
def test_rules_the_subset_promises(fn):
    check(fn, np.array([0.3, -0.2, 0.5]))


# -- 7. `z *= w` in a loop: the emitter named the new carried adjoint like the old one,
#       which a later read still needed (found by the campaign that np.full opened) ------

def scale_in_loop(w):
    z = np.ones(2)
    s = 0.0
    for i in range(2):
        z *= w
        s = s + np.sum(z)
    return s


def scale_in_loop_into_list(w):
    z = np.ones(2)
    acc = []
    for i in range(2):
        z *= w
        acc.append(np.sum(z))
    return sum(acc)


@pytest.mark.parametrize("fn", [scale_in_loop, scale_in_loop_into_list])
@pytest.mark.parametrize("backend", ["python", "numba"])
def test_in_place_scaling_in_a_loop(fn, backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(fn, (0.7,), backend=backend)


# -- 8. float32 scalars through a loop in forward mode: an adjoint was typed "weak
#       float32", which does not exist (found by campaign seed 10) ---------------------

def float32_scalar_loop(x0, x1):
    t1 = np.float32(1.5) - np.min(x0)
    for i7 in range(x1):
        t1 *= np.tanh(t1)
    return t1


def test_float32_scalar_loop():
    check(float32_scalar_loop, np.array([0.5, 0.2], dtype=np.float32), 2)


# -- 9. hypot at (0, 0) inside a function of x: 0 * (0 / 0) was NaN (seed 10) ----------

def hypot_at_origin(x0):
    return np.sum(np.hypot(np.zeros(2) * x0, np.zeros(2) * x0)) + x0


def test_hypot_at_origin():
    check(hypot_at_origin, 0.0)


# -- 10. `f32_array += f64_array` is allowed by NumPy (same-kind casting); sstad refused
#        it (seed 21) -----------------------------------------------------------------

def float32_accumulates_float64(z):
    z13 = np.zeros((2, 2), dtype=np.float32) + z
    z13 += np.abs(np.linalg.inv(np.eye(2) * 5.0 + np.tanh(z13)))
    return np.sum(z13)


def test_float32_accumulates_float64():
    check(float32_accumulates_float64, np.float32(0.3))


# -- 11. `s *= g(x)` in a branch inside a loop: the emitter computed the branch's new
#        adjoint into the carried variable while the branch still read the old one
#        (silently wrong gradient; seed 22) ---------------------------------------------

def scale_in_branch_in_loop(x1):
    s7 = x1 * 1.0
    k8 = 0
    while k8 < 3:
        k8 += 1
        if x1 > 0.5:
            s7 *= np.tanh(x1)
        else:
            s7 = x1
    return s7


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_scale_in_branch_in_loop(backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(scale_in_branch_in_loop, (1.2855706583801965,), backend=backend)


# -- 12. np.clip of a scalar under Numba (its np.clip takes arrays only; seed 36) -------

def clip_scalar(x1):
    return np.clip(x1[1], -1.0, 1.0) * x1[0]


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_clip_of_a_scalar(backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(clip_scalar, (np.array([0.3, -0.5]),), backend=backend)


# -- 13. np.flip with an axis under Numba (its np.flip has none; Numba campaign, seed 40) -

def flip_rows(x0):
    return np.sum(np.flip(np.full((4, 1), 1.0) * x0, axis=0) * np.arange(4.0)[:, None])


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_flip_with_an_axis(backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(flip_rows, (1.9813,), backend=backend)


# -- 14. NumPy call forms from NumPy's signatures (campaign of 10,000 programs, seeds 50-59,
#        /tmp/fuzz_report.md): refused or crashed inside sstad before the fixes ----------

def diagonal_method_offset(x):
    return np.sum(np.sin(x.diagonal(offset=-1)))


def diagonal_method_positional(x):
    return np.sum(np.sin(x.diagonal(0, 0, 1)))


def diagonal_function(x):
    return np.sum(np.sin(np.diagonal(x, 0, 1, 0)))


def take_constant_list(x):
    return np.sum(np.sin(np.take(x, [1, 0, 0], axis=-1)))


def take_method(x):
    return np.sum(np.sin(x.take([1, 0], axis=0)))


def mean_over_tuple_axes(x):
    return np.sum(np.sin(np.mean(np.stack((x, 2.0 * x)), axis=(0, -1))))


def concatenate_axis_none(x):
    return np.sum(np.sin(np.concatenate((x, 2.0 * x), axis=None)))


def vstack_of_appended_rows(x):
    hs = []
    for i in range(3):
        hs.append(x[0] * i)
    return np.sum(np.sin(np.vstack(hs)))


def write_through_view_chosen_by_if(x):
    y = x[0].copy()
    z = y[::2] if np.sum(x) > 0.5 else y[1:]
    z[0] *= 3.0
    return np.sum(np.sin(y))


def type_differs_on_paths_but_dead(x):
    if np.sum(x) > 0.5:
        z = x * 2.0
    else:
        z = np.sum(x)
    return np.sum(np.sin(x))


SIGNATURE_FORMS = [diagonal_method_offset, diagonal_method_positional, diagonal_function, take_constant_list,
                   take_method, mean_over_tuple_axes, concatenate_axis_none, vstack_of_appended_rows,
                   write_through_view_chosen_by_if, type_differs_on_paths_but_dead]


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("fn", SIGNATURE_FORMS, ids=lambda fn: fn.__name__)
def test_signature_call_forms(fn, backend):
    x = np.array([[0.3, -0.5, 0.8], [1.1, 0.2, -0.7], [0.4, 0.9, -1.2]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(fn, (x,), backend=backend)


# -- 15. the refusals KNOWN listed: np.diagonal of a stack (any offset and pair of axes),
#        np.repeat by a sequence, np.roll by tuples (its rule; Numba's primal) -----------

def diagonal_of(offset, axis1, axis2):
    def diagonal(x):
        return np.sin(np.diagonal(x, offset, axis1, axis2))
    return diagonal


DIAGONALS = [((2, 3, 4), 0, 1, 2), ((2, 3, 4), 1, -1, 0), ((2, 3, 4), -2, 2, 1), ((4, 2, 3), 2, 0, -1),
             ((2, 4, 3, 2), -1, 3, 1), ((2, 3, 2, 2), 1, -3, -4), ((3, 3), 0, 1, 0), ((2, 3, 4), 3, 1, 2)]


@pytest.mark.parametrize("shape, offset, axis1, axis2", DIAGONALS)
def test_diagonal_of_a_stack(shape, offset, axis1, axis2):
    x = np.random.default_rng(len(shape) + offset).standard_normal(shape)
    check(diagonal_of(offset, axis1, axis2), x)


def test_diagonal_beyond_the_matrix_is_empty():
    import sstad
    x = np.ones((2, 3, 4))
    got = sstad.jit(diagonal_of(5, 1, 2), backend="python")(x)
    assert got.shape == np.diagonal(x, 5, 1, 2).shape == (2, 0)


def stack_diagonal_method(x):
    return np.sum(np.sin(np.reshape(x, (2, 2, 3)).diagonal(axis1=1, axis2=0)))


def repeat_by_list(x):
    return np.sin(np.repeat(x, [1, 0, 3], axis=0))


def repeat_by_array_negative_axis(x):
    return np.cos(np.repeat(x, np.array([2, 1, 0, 3]), -1))


def repeat_by_list_flattened(x):
    return np.sin(np.repeat(x[0], [2, 1, 1, 3]))


def repeat_method_by_list(x):
    return np.sin(x.repeat([2], axis=1))


def roll_by_tuples(x):
    return np.sin(np.roll(x, (1, -2), axis=(0, 1)))


def roll_tuple_on_one_axis(x):
    return np.sin(np.roll(x, (1, 2), 1))


def roll_one_shift_on_axes(x):
    return np.sin(np.roll(x, 2, (1, -2)))


def roll_tuple_flattened(x):
    return np.sin(np.roll(x, (1, 3)))


SEQUENCE_FORMS = [stack_diagonal_method, repeat_by_list, repeat_by_array_negative_axis, repeat_by_list_flattened,
                  repeat_method_by_list, roll_by_tuples, roll_tuple_on_one_axis, roll_one_shift_on_axes,
                  roll_tuple_flattened]


@pytest.mark.parametrize("fn", SEQUENCE_FORMS, ids=lambda fn: fn.__name__)
def test_sequence_parameters(fn):
    check(fn, np.random.default_rng(3).standard_normal((3, 4)))


def stack_diagonal_repeat_and_roll(x):
    d = np.diagonal(np.reshape(x, (2, 2, 3)), 1, 2, 0)
    r = np.repeat(x, [1, 0, 2], axis=0)
    return np.sum(np.sin(d)) + np.sum(np.cos(np.roll(r, (1, -2), (0, 1)))) + np.sum(np.repeat(x[0], [2, 1, 0, 1]))


@pytest.mark.parametrize("fn", [stack_diagonal_repeat_and_roll]
                         + [pytest.param(fn, marks=pytest.mark.slow) for fn in SEQUENCE_FORMS],
                         ids=lambda fn: fn.__name__)
def test_sequence_parameters_under_numba(fn):
    x = np.random.default_rng(4).standard_normal((3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(fn, (x,), backend="numba")


@pytest.mark.slow
@pytest.mark.parametrize("shape, offset, axis1, axis2", DIAGONALS)
def test_diagonal_of_a_stack_under_numba(shape, offset, axis1, axis2):
    x = np.random.default_rng(len(shape) + offset).standard_normal(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(diagonal_of(offset, axis1, axis2), (x,), backend="numba")


# -- 16. the oracle: a fast-turning float32 output (sin(16 t), step 1e-2) made central
#        differences of one leaf 1.6% low while their projection looked settled; check_grads
#        now extrapolates its two steps (campaign seed 8101, sstad's jvp was right) ----------

def fast_sine_float32(x0, x1):
    b = x1["b"]
    t = 8.0 * np.sum(b)
    return {"value": np.hypot(b[0], t), "vector": np.sin((np.linspace(0.0, 1.0, 2) * t).astype(np.float32) + t)}


def test_differences_of_a_fast_turning_float32_output():
    x1 = {"w": np.array([[-1.8111], [0.05], [-1.9749], [1.8214]], np.float32),
          "b": np.array([0.072726, -0.289286, 0.878647, 1.461632], np.float32)}
    check(fast_sine_float32, np.array([-1.03423], np.float32), x1)


# -- 17. np.expand_dims by a tuple of axes under Numba (its expand_dims takes one axis;
#        campaign seed 8102) ---------------------------------------------------------------

def expand_dims_by_tuple(x0):
    t = np.sum(np.expand_dims(x0, axis=(0, -1)), axis=0)
    return np.cumsum(np.amin(t, axis=0)) + np.sum(np.expand_dims(x0[:2], (1, 0)))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_expand_dims_by_a_tuple_of_axes(backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(expand_dims_by_tuple, (np.array([1.579, 0.686, 1.815, 0.25]),), backend=backend)


# -- 18. a kink just inside the smaller step, where the projection on u hid the one-sided
#        slopes: check_grads compares a third step leaf by leaf (campaign seed 9002,
#        sstad's jvp was right: sum of the tangent of b) ----------------------------------

def kink_near_the_point(x0):
    x0w, x0b = x0["w"], x0["b"]
    if np.sin(np.sum(x0w)) > 0.5:
        t1 = np.maximum(np.log2(np.square(np.float32(1.0)) + 2.0),
                        (np.maximum(np.sum(x0b), (np.float32(0.5)) + 0.0731)) + 0.0731)
        return t1, ((np.sin(np.arange(2).reshape((2, 1)) * 0.7 + t1)).astype(np.float32)
                    - (np.full((2, 1), 1.0) * t1).astype(np.float32))[1]
    return np.sum(x0w), np.zeros(1, np.float32)


def test_a_kink_inside_the_step_is_not_a_mismatch():
    from sstad.testing import NotSmoothError
    x0 = {"w": np.array([[0.8138619, 0.0952880, -0.1080585], [1.5, 1.4556580, -0.0491546],
                         [0.2590647, -1.2053595, -2.0], [2.810226e-08, 1.1356625, 1e-13]], np.float32),
          "b": np.array([-1.4507176, 1.4546787, 0.6479664, 0.8641376], np.float32)}
    with pytest.raises(NotSmoothError, match="kink"):
        check(kink_near_the_point, x0, modes=("fwd",))
