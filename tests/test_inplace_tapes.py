"""In-place writes in loops: what reverse mode tapes, and that the derivatives stay exact
(against finite differences, both modes) where it tapes less."""
import numpy as np
import pytest

import inplace_tape_cases as ic
import sstad
from sstad.testing import check_grads

RNG = np.random.default_rng(3)
W = RNG.uniform(0.2, 0.9, 6)
CASES = {
    "triangular fill in nested loops": (ic.triangular_fill, (RNG.uniform(-0.5, 0.5, (3, 10)), RNG.uniform(-1, 1, 4))),
    "the same element written again": (ic.same_element_rewritten, (W[:4], W[:3])),
    "an element read, then written": (ic.read_then_written, (W,)),
    "the initial value read before the fill": (ic.initial_value_read_too, (W,)),
}


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives(name, backend):
    fn, args = CASES[name]
    check_grads(fn, args, backend=backend)


def python_gradient(fn, *args):
    return sstad.dump(sstad.grad(fn, argnums=0), *args, emit="python")


def test_a_write_only_fill_is_not_taped():
    """The nested loops that fill Q only write it: no copy of Q per element written."""
    code = python_gradient(ic.triangular_fill, *CASES["triangular fill in nested loops"][1])
    assert "tape_Q" not in code, code


def test_a_fill_that_reads_is_taped():
    code = python_gradient(ic.read_then_written, W)
    assert "tape_Q" in code, code
