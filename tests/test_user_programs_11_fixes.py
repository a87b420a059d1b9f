"""Defects a batch of user programs found (tests/user_programs_11.py): each form against
NumPy and central finite differences (reverse and forward mode), on both backends."""

import numpy as np
import pytest

import sstad
from sstad.testing import check_grads


def _checked(fn, args, backend):
    check_grads(fn, args, backend=backend)
    assert np.allclose(sstad.jit(fn, backend=backend)(*args), fn(*args))


# --- np.stack / np.vstack / np.hstack of a run-time list of numbers (Numba stacks arrays
#     only: the numbers' list was refused there), and np.hstack of a run-time list of arrays
#     (refused in reverse mode): np.hstack is np.concatenate of the items made at least 1-d

def _numbers(x):
    out = []
    for k in range(x.shape[0]):
        out.append(x[k] * 2.0 + np.sin(x[k]))
    return out


def _vectors(x):
    out = []
    for k in range(3):
        out.append(x * (k + 1.0))
    return out


def _matrices(x):
    out = []
    for k in range(3):
        out.append(np.outer(x, x) * (k + 1.0))
    return out


STACKED = {
    "stack": lambda x: np.sum(np.stack(_numbers(x)) * x),
    "stack_last_axis": lambda x: np.sum(np.stack(_numbers(x), axis=-1) ** 2),
    "vstack": lambda x: np.sum(np.vstack(_numbers(x)) * x[None, :]),
    "hstack": lambda x: np.sum(np.hstack(_numbers(x)) * x),
    "hstack_vectors": lambda x: np.sum(np.sin(np.hstack(_vectors(x)))),
    "hstack_matrices": lambda x: np.sum(np.sin(np.hstack(_matrices(x))) * np.arange(12.0).reshape(2, 6)),
}


def _stacked(name):
    body = STACKED[name]

    def stacked(x):
        return body(x)
    return stacked


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("name", sorted(STACKED))
def test_stacking_a_run_time_list(name, backend):
    x = np.array([0.3, -0.7]) if "matrices" in name or "vectors" in name else np.arange(3.0) + 0.5
    _checked(_stacked(name), (x,), backend)


# --- a list first made inside a loop and read after it (reverse mode failed inside sstad)

def _rebuilt_each_pass(w):
    t = 0.0
    for it in range(3):
        vals = []
        for i in range(w.shape[0]):
            vals.append(w[i] * t + np.sin(w[i]))
        t = 0.5 * t + 0.1 * np.sum(w)
    return np.sum(np.array(vals) ** 2)


def _rebuilt_until_converged(w):
    t = 0.0
    for it in range(50):
        vals = []
        for i in range(w.shape[0]):
            vals.append(np.tanh(w[i] * t + 1.0))
        t_new = 0.5 * t + 0.1 * w[0]
        if abs(t_new - t) < 1e-3:
            break
        t = t_new
    return np.sum(np.stack(vals) * w)


# --- a list rebuilt in a loop that may `break`, with a statement before `vals = []` (the
#     statements after the first were guarded by the break flag, which is never set where
#     a body starts, and the list was refused as chosen between one made before the guard
#     and one made in it); forward mode through a list the loop replaces (refused)

def _statement_before_the_list(w):
    t = 0.0
    vals = []
    for it in range(50):
        c = t
        vals = []
        vals.append(c * w[0] + np.sin(w[1]))
        if t > 0.15:
            break
        t = t + 0.1 * w[1]
    return np.sum(np.array(vals))


def _recycle(w):                      # a fixed point on a recycle temperature, duties per pass
    T = 300.0
    duties = []
    for it in range(100):
        T_in = T
        duties = []
        for k in range(w.shape[0]):
            duties.append(w[k] * (T_in - 280.0) * 0.01)
        T_new = 300.0 - 0.3 * np.sum(np.array(duties))
        if abs(T_new - T) < 1e-10:
            break
        T = T_new
    return np.sum(np.array(duties) ** 2) + T


def _early_return(w):
    acc = 0.0
    for i in range(w.shape[0]):
        z = acc
        if w[i] < 0.0:
            return z * 2.0
        acc = acc + np.exp(w[i])
    return acc


LOOPS = [
    (_rebuilt_each_pass, np.array([1.0, 2.0])),
    (_rebuilt_until_converged, np.array([1.0, 2.0])),
    (_statement_before_the_list, np.array([1.0, 2.0])),
    (_recycle, np.array([0.5, 0.8, 0.2])),
    (_early_return, np.array([0.3, 0.2, -1.0, 0.5])),
    (_early_return, np.array([0.3, 0.2, 1.0, 0.5])),
]


@pytest.mark.parametrize("fn, w", LOOPS, ids=[f.__name__.strip("_") + str(k) for k, (f, _) in enumerate(LOOPS)])
def test_lists_rebuilt_in_loops(fn, w):
    _checked(fn, (w,), "python")


@pytest.mark.parametrize("fn", [_rebuilt_until_converged, _recycle])
def test_lists_rebuilt_in_loops_compiled(fn):
    w = np.array([0.5, 0.8, 0.2])
    _checked(fn, (w,), "numba")
