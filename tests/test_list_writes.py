"""Writes into run-time lists (``L[i] = v``), differentiated in reverse and forward mode.

The list adjoint: ``dL[i]`` is the cotangent of the value written there, and zero before
the write; a loop that writes into a list recomputes each iteration on the list as it was
at that iteration's start.  Every derivative is checked against finite differences.
"""
import numpy as np
import pytest

import sstad
from sstad.errors import SstadError
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
rng = np.random.default_rng(7)
W = [rng.normal(size=3) * 0.5 for _ in range(3)]
X = rng.normal(size=3)


def write_in_loop(ws, x):
    cell = [x * ws[i] for i in range(len(ws))]
    for i in range(len(ws)):
        cell[i] = cell[i] * ws[i] + np.sin(cell[i])
    return np.sum(cell[0] * cell[1] + cell[2])


def nested_time_and_layers(ws, x):
    """The LSTM's pattern: state lists updated layer by layer at every time step."""
    n = len(ws)
    hidden = [x * ws[i] for i in range(n)]
    cell = [np.cos(x) * ws[i] for i in range(n)]
    total = 0.0
    for t in range(4):
        inp = x * (t + 1.0)
        for i in range(n):
            cell[i] = cell[i] * np.tanh(inp * ws[i]) + 0.5 * np.sin(hidden[i])
            hidden[i] = np.tanh(cell[i]) * ws[i]
            inp = hidden[i]
        total += np.sum(inp * inp)
    return total


def scalar_items(x, w):
    vals = [x[i] for i in range(x.shape[0])]
    for t in range(3):
        for i in range(len(vals)):
            vals[i] = vals[i] * w + np.sin(vals[(i + 1) % len(vals)])
    return vals[0] * vals[1] + vals[2]


def constant_and_negative_index(ws, x):
    lst = [x * ws[i] for i in range(3)]
    lst[0] = lst[0] * lst[0]
    lst[-1] = lst[0] + np.exp(lst[-1])
    return np.sum(lst[0] * lst[1] + lst[2] * lst[1])


def item_kept_across_a_write(ws, x):
    """``a`` still names the old item after ``lst[0] = ...`` (a list item is no view)."""
    lst = [x * ws[i] for i in range(3)]
    a = lst[0]
    lst[0] = a * a
    return np.sum(lst[0] * a)


def overwrite_with_constant(ws, x):
    """The overwritten item no longer reaches the result through the list."""
    lst = [x * ws[i] for i in range(3)]
    b = np.sum(lst[1] ** 2)
    lst[1] = np.ones(3)
    return np.sum(lst[0] * lst[1] + lst[2]) + b


def write_in_branch(ws, x):
    lst = [x * ws[i] for i in range(3)]
    for i in range(3):
        if np.sum(lst[i]) > 0.0:
            lst[i] = np.sin(lst[i]) * 2.0
        else:
            lst[(i + 1) % 3] = lst[i] * lst[(i + 1) % 3]
    return np.sum(lst[0] + lst[1] * lst[2])


def cell_step(h, c, w):
    c = c * 0.9 + np.tanh(h * w)
    return np.tanh(c) * w, c


def unpacked_from_a_helper(ws, x):
    """``h[i], c[i] = f(...)``: two writes from one tuple."""
    n = len(ws)
    h = [x * ws[i] for i in range(n)]
    c = [x + ws[i] for i in range(n)]
    for t in range(3):
        for i in range(n):
            h[i], c[i] = cell_step(h[i], c[i], ws[i])
    return np.sum(h[0] * c[2] + h[2])


def write_in_while(ws, x):
    lst = [x * ws[i] for i in range(3)]
    k = 0
    while k < 5:
        lst[k % 3] = lst[k % 3] * ws[(k + 1) % 3] + np.cos(lst[(k + 2) % 3])
        k += 1
    return np.sum(lst[0] * lst[1] * lst[2])


def stacked_after_writes(ws, x):
    lst = [x * ws[i] for i in range(3)]
    for t in range(2):
        for i in range(3):
            lst[i] = np.sin(lst[i]) + lst[(i + 2) % 3]
    return np.sum(np.stack(lst) ** 2)


CASES = [
    (write_in_loop, (W, X)),
    (nested_time_and_layers, (W, X)),
    (scalar_items, (X, 0.7)),
    (constant_and_negative_index, (W, X)),
    (overwrite_with_constant, (W, X)),
    (write_in_branch, (W, X)),
    (unpacked_from_a_helper, (W, X)),
    (write_in_while, (W, X)),
    (stacked_after_writes, (W, X)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_list_writes_match_finite_differences(fn, args, backend):
    check_grads(fn, args, modes=("rev", "fwd"), backend=backend)


def test_an_item_read_before_a_write_keeps_its_value():
    assert sstad.jit(item_kept_across_a_write, backend="python")(W, X) == pytest.approx(
        item_kept_across_a_write(W, X), rel=1e-12)


def test_overwritten_item_gets_no_gradient_through_the_list():
    ws, x = W, X
    dws = sstad.grad(overwrite_with_constant)(ws, x)
    np.testing.assert_allclose(dws[1], 2 * x * x * ws[1], rtol=1e-12)


def both_append_and_write(x):
    lst = [x * 1.0 for _ in range(1)]
    for t in range(3):
        lst.append(lst[-1] * 2.0)
        lst[0] = lst[0] + lst[-1]
    return np.sum(lst[0])


def test_a_loop_that_appends_and_writes_is_refused_at_the_users_line():
    with pytest.raises(SstadError, match="both appends to a list and writes into it") as err:
        sstad.grad(both_append_and_write)(X)
    assert "test_list_writes.py" in str(err.value)


# --- lists built by appends, read while they grow (the backward sweep recomputes each
# iteration on the complete list, or on its prefix where an inner loop appends) ---------

def append_reading_the_last(w, x):
    hs = [x * 1.0 for _ in range(1)]
    for t in range(4):
        hs.append(np.tanh(hs[-1] * w))
    return np.sum(hs[3] * hs[-1])


def append_in_inner_loop(ws, x):
    hs = []
    h = x
    for t in range(2):
        for i in range(3):
            h = np.tanh(h * ws[i])
            hs.append(h)
    return np.sum(hs[0] * hs[4] + hs[5])


def append_in_inner_loop_reading_the_last(ws, x):
    hs = [x * 1.0 for _ in range(1)]
    for t in range(2):
        for i in range(3):
            hs.append(np.tanh(hs[-1] * ws[i]) + hs[len(hs) - 2 if len(hs) > 1 else 0])
    return np.sum(hs[2] * hs[-1] + hs[5])


APPEND_CASES = [
    (append_reading_the_last, (0.7, X)),
    (append_in_inner_loop, (W, X)),
    (append_in_inner_loop_reading_the_last, (W, X)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", APPEND_CASES, ids=[c[0].__name__ for c in APPEND_CASES])
def test_appends_read_while_growing_match_finite_differences(fn, args, backend):
    check_grads(fn, args, modes=("rev", "fwd"), backend=backend)


@pytest.mark.parametrize("fn, args", [CASES[0], CASES[1], APPEND_CASES[2]],
                         ids=["write_in_loop", "nested_time_and_layers", "append_in_inner_loop"])
def test_second_order_through_list_writes(fn, args):
    check_grads(fn, args, order=2, modes=("rev", "fwd"), backend="python")
