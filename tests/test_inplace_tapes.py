"""In-place writes in loops, what reverse mode tapes and how it starts an adjoint that a loop
fills row by row; the derivatives stay exact (against finite differences, both modes)."""
import numpy as np
import pytest

import inplace_tape_cases as ic
import sstad
from sstad.testing import check_grads

RNG = np.random.default_rng(3)
W = RNG.uniform(0.2, 0.9, 6)
A43 = RNG.uniform(-1, 1, (4, 3))
CASES = {
    "triangular fill in nested loops": (ic.triangular_fill, (RNG.uniform(-0.5, 0.5, (3, 10)), RNG.uniform(-1, 1, 4))),
    "the same element written again": (ic.same_element_rewritten, (W[:4], W[:3])),
    "an element read, then written": (ic.read_then_written, (W,)),
    "the initial value read before the fill": (ic.initial_value_read_too, (W,)),
    "x[i] by the counter": (ic.squares_by_counter, (W,)),
    "x[i - 1]": (ic.previous_element, (W,)),
    "x[i] and x[i + 1]": (ic.counter_and_next, (W,)),
    "rows read in one branch": (ic.rows_in_a_branch, (A43,)),
    "x read before, in and after the loop": (ic.read_before_and_after, (W,)),
    "x read before the loop": (ic.read_before_only, (W,)),
    "x[i, j] in an inner loop": (ic.rows_in_an_inner_loop, (A43, W[:3])),
    "a loop that breaks": (ic.stops_early, (W,)),
}


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives(name, backend):
    fn, args = CASES[name]
    check_grads(fn, args, backend=backend)


@pytest.mark.parametrize("name", ["x[i] by the counter", "rows read in one branch", "the same element written again"])
def test_second_derivatives(name):
    """The gradients built this way are differentiated again like any code."""
    fn, args = CASES[name]
    check_grads(fn, args, order=2, backend="python")


def python_gradient(fn, *args):
    return sstad.dump(sstad.grad(fn, argnums=0), *args, emit="python")


def test_a_write_only_fill_is_not_taped():
    """The nested loops that fill Q only write it: no copy of Q per element written, and
    the backward sweep neither writes Q again nor restores what it overwrote."""
    code = python_gradient(ic.triangular_fill, *CASES["triangular fill in nested loops"][1])
    assert "tape_Q" not in code, code
    assert code.count("] = x_") == 1 and "old" not in code, code


def test_a_fill_that_reads_is_taped():
    code = python_gradient(ic.read_then_written, W)
    assert "tape_Q" in code, code


def test_an_adjoint_filled_row_by_row_starts_uninitialised():
    """Each backward iteration zeroes the one row it adds to: no zeroed array up front."""
    code = python_gradient(ic.squares_by_counter, W)
    assert "np.empty_like(x)" in code and "np.zeros_like(x)" not in code, code
    assert "np.empty_like" in python_gradient(ic.rows_in_a_branch, A43)


@pytest.mark.parametrize("fn", [ic.previous_element, ic.counter_and_next, ic.read_before_and_after])
def test_other_index_patterns_accumulate_into_zeros(fn):
    assert "empty_like" not in python_gradient(fn, W)
