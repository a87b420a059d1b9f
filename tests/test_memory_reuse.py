"""A fused loop fills a value into the memory of an array it reads for the last time
(``LoopRuns.donors``): a loop-carried state or cotangent updated in its own memory.

The cases where the memory is read again after the loop (read later, made outside the
enclosing loop, another name for it, a view of it, held in a list) must still allocate:
each is checked against NumPy, against the same code compiled without reuse (bit for
bit), and its gradient against finite differences."""
import sys
from pathlib import Path

import numpy as np
import pytest

import sstad
from sstad.passes.loop_fusion import reusing_memory
from sstad.testing import check_grads

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def read_after(x):
    s = 0.0
    for i in range(3):
        a = x * 2.0 + i
        t = a * a
        b = t + t * a
        s = s + np.sum(b) + np.sum(a)      # a is read after the loop that makes b
    return s


def made_outside(x):
    a = x * 2.0
    s = 0.0
    for i in range(3):
        t = a * a                          # a is read again in the next iteration
        b = t + t * a
        s = s + np.sum(b)
    return s


def carried(x):
    y = x * 1.0
    for i in range(4):
        t = y * 0.5
        y = t + t * y                      # y's last read: the new y takes its memory
    return np.sum(y * y)


def carried_alias(x):
    y = x * 1.0
    z = y
    for i in range(4):
        t = y * 0.5
        y = t + t * y
    return np.sum(y * y) + np.sum(z)       # z is the first y's memory


def carried_view(x):
    y = x * 1.0
    for i in range(4):
        head = y[:2]
        t = y * 0.5
        y = t + t * y
        y = y + head[0]                    # a view of the old y, read after
    return np.sum(y * y)


def carried_listed(x):
    y = x * 1.0
    ys = []
    for i in range(4):
        ys.append(y)                       # the list keeps every y
        t = y * 0.5
        y = t + t * y
    return np.sum(y) + np.sum(np.stack(ys) ** 2)


def read_before_and_after(x):
    y = x * 1.0
    for i in range(4):
        u = y * 3.0
        t = y * 0.5
        y = t + t * y
        y = u + y
    return np.sum(y * y)


CASES = [read_after, made_outside, carried, carried_alias, carried_view, carried_listed, read_before_and_after]
X = np.linspace(0.1, 0.9, 8)


def allocations(f, *args, reuse=True):
    """The arrays the numba text of ``f`` allocates for fused loops' values."""
    with reusing_memory(reuse):
        return sstad.dump(f, *args, emit="numba").count("np.empty(n")


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_values_as_numpy_and_as_without_reuse(f):
    with reusing_memory(False):
        plain = sstad.jit(f)(X)
    reused = sstad.jit(f)(X)
    assert reused == plain
    np.testing.assert_allclose(reused, f(X), rtol=1e-13)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradients_against_finite_differences(f):
    check_grads(f, (X,), modes=("rev",), backend="numba")


def test_memory_read_again_is_not_reused():
    for f in (read_after, made_outside, carried_alias, carried_view, carried_listed):
        assert allocations(f, X) == allocations(f, X, reuse=False) > 0, f.__name__


def test_carried_state_is_updated_in_its_memory():
    assert allocations(carried, X) == 0 < allocations(carried, X, reuse=False)


def test_euler_cotangent_is_updated_in_its_memory():
    """The backward loop of an Euler integrator: the cotangent of the state."""
    from tape_budget import euler, inputs
    y0, k = inputs()
    grad = sstad.grad(euler, argnums=1)
    assert allocations(grad, y0, k, 100) < allocations(grad, y0, k, 100, reuse=False)
    with reusing_memory(False):
        plain = sstad.jit(grad)(y0, k, 100)
    assert np.array_equal(sstad.jit(grad)(y0, k, 100), plain)
    check_grads(lambda k: euler(y0, k, 50), (k,), modes=("rev",), backend="numba")
