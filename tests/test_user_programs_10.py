"""Programs of a tenth batch (tests/user_programs_10.py).  Each against NumPy (the value
under ``sstad.jit``) and central finite differences (reverse and forward mode), on both
backends; Numba runs are slow."""

import numpy as np
import pytest
import scipy.special

import sstad
import user_programs_10 as up
from program_registry import batch_checks
from sstad.testing import check_grads

args_of, test_on_python, test_on_numba = batch_checks(up.PROGRAMS, seed=10)


# --- np.block, which the kriging program's bordered system uses (it was called as an
#     outside function, its nested lists passed as tuples, which NumPy refuses)

def _bordered(K, b):
    ones = np.ones((K.shape[0], 1))
    A = np.block([[K, ones], [ones.T, np.zeros((1, 1))]])
    return np.sum(np.linalg.solve(A, np.append(b, 1.0)) ** 2)


def _rows_of_blocks(a, b, c):
    return np.sum(np.sin(np.block([a, b, c])) * np.arange(7.0))


def _three_deep(a, b):
    return np.sum(np.block([[[a, b]], [[b, a]]]) ** 3)


@pytest.mark.parametrize("fn, args", [
    (_bordered, (np.eye(3) * 2 + 0.1, np.array([1.0, 2.0, 3.0]))),
    (_rows_of_blocks, (np.arange(3.0), np.array([0.5]), np.ones(3))),
    (_three_deep, (np.ones((1, 2, 2)) * 0.5, np.arange(4.0).reshape(1, 2, 2))),
], ids=["bordered", "one_level", "three_levels"])
def test_np_block_of_nested_lists(fn, args):
    check_grads(fn, args, backend="python")


# --- z.conj() and z.conjugate(), the methods of np.conj (they were refused as unknown methods)

def _power_by_methods(vm, va):
    V = vm * np.exp(1j * va)
    return np.sum((V * V.conj()).real) + np.sum((V.conjugate() * V ** 2).imag) + np.sum(vm.conj() ** 2)


def test_conj_methods():
    r = np.random.default_rng(0)
    check_grads(_power_by_methods, (1 + 0.1 * r.normal(size=4), r.normal(size=4)), backend="python")


# --- np.linalg.solve with b a list or tuple literal of numbers (the frame program's Rayleigh
#     coefficients): NumPy takes it as an array; sstad passed the list on and failed at compile time

def _solve_list_rhs(w, zeta):
    a0, a1 = np.linalg.solve(np.array([[1 / (2 * w[0]), w[0] / 2], [1 / (2 * w[1]), w[1] / 2]]), [zeta, 0.5 * zeta])
    b = np.linalg.solve(np.diag(w), (zeta, w[0]))
    return a0 * w[0] + a1 ** 2 + np.sum(b ** 2)


def test_solve_with_a_list_of_numbers_as_rhs():
    check_grads(_solve_list_rhs, (np.array([3.0, 7.0]), 0.05), backend="python")


def _lstsq_list_rhs(w, zeta):
    A = np.array([[1.0, w[0]], [1.0, w[1]], [1.0, w[0] + w[1]]])
    return np.sum(np.linalg.lstsq(A, [zeta, 0.5 * zeta, w[0]], rcond=None)[0] ** 2)


def test_lstsq_with_a_list_of_numbers_as_rhs():
    check_grads(_lstsq_list_rhs, (np.array([3.0, 7.0]), 0.05), backend="python")


# --- a list literal popped in a loop (a work list, as depth-first codes start one): made a
#     run-time list before the loop, as a literal appended to in a loop is

def _depth_first_sum(xs):
    stack = [xs[0], xs[1], xs[2]]          # a work list started from a literal, as DFS codes do
    out = 0.0
    while stack:
        v = stack.pop()
        out = out * 0.5 + np.sum(v ** 2)
    return out


def _pop_in_a_for_loop(xs):
    items = [xs[0], xs[1], xs[2]]
    acc = np.zeros(4)
    for i in range(2):
        acc = acc + items.pop() * (i + 1)
    return np.sum(acc * items[0])          # the item left: read after the loop


def _pop_on_one_branch(xs):
    stack = [xs[0], xs[1], xs[2]]
    out = 0.0
    k = 0
    while len(stack) > 0:
        if k % 2 == 0:
            v = stack.pop()
            out = out + np.sum(v * v)
        else:
            out = out + np.sum(np.sin(stack[-1]))
        k += 1
    return out


def _pop_numbers(x):
    weights = [1.0, 2.0, 3.0]
    s = 0.0
    while weights:
        s = s + weights.pop() * np.sum(x * x)
    return s


@pytest.mark.parametrize("fn", [_depth_first_sum, _pop_in_a_for_loop, _pop_on_one_branch, _pop_numbers])
def test_pop_from_a_list_literal_in_a_loop(fn):
    xs = np.random.default_rng(0).normal(size=(3, 4))
    check_grads(fn, (xs,), backend="python")
    assert np.allclose(sstad.jit(fn, backend="python")(xs), fn(xs))


def test_pop_from_a_list_literal_in_a_loop_compiled():
    xs = np.random.default_rng(1).normal(size=(3, 4))
    check_grads(_depth_first_sum, (xs,), backend="numba")
    assert np.allclose(sstad.jit(_depth_first_sum)(xs), _depth_first_sum(xs))


# --- scipy.special.softplus (SciPy 1.15 on), which had no derivative rule

@pytest.mark.skipif(not hasattr(scipy.special, "softplus"), reason="scipy.special.softplus is SciPy 1.15 on")
def test_scipy_softplus():
    def f(x):
        return np.sum(scipy.special.softplus(x) * x)
    check_grads(f, (np.array([-30.0, -3.0, 0.2, 5.0, 40.0]),), backend="python")
    big = np.array([-800.0, 900.0])
    assert np.allclose(sstad.jit(f, backend="python")(big), f(big))


# --- np.maximum.at and the other ufunc.at besides add/subtract: a clear refusal at the line
#     (it was called as outside code, which returns None: "unexpected result of type NoneType")

def _segment_max(values, segments):
    out = np.full(3, -np.inf)
    np.maximum.at(out, segments, values)
    return np.sum(out)


def test_maximum_at_is_refused_at_its_line():
    from sstad.errors import UnsupportedSyntaxError
    with pytest.raises(UnsupportedSyntaxError, match=r"(?s)test_user_programs_10.py:\d+:\d+: `np.maximum.at` is not "
                                                     r"supported.*np.add.at"):
        sstad.jit(_segment_max, backend="python")(np.array([1.0, 2.0, 3.0]), np.array([0, 2, 2]))
