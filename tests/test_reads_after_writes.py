"""An operand read before a call that writes its memory, used after the call, sees the
write, as in Python (``B * f(B)``, ``B[0] * f(B)``; the write straight, under an ``if``
or in a loop of ``f``): sstad once used the array's value from before the write, a
silently wrong value and derivative.  Values against Python, derivatives against
finite differences, at points where the ``if`` goes each way."""
import numpy as np
import pytest

import sstad
from read_after_write_cases import CASES
from sstad.testing import check_grads

POINTS = [np.arange(6.0).reshape(2, 3) / 5 + 0.1, -(np.arange(6.0).reshape(2, 3) / 5 + 0.1)]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_values_and_derivatives(fn):
    for A in POINTS:
        np.testing.assert_allclose(sstad.jit(fn, backend="python")(A), fn(A), rtol=1e-13)
        check_grads(fn, (A,), backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_values_and_derivatives_on_numba(fn):
    for A in POINTS:
        np.testing.assert_allclose(sstad.jit(fn, backend="numba")(A), fn(A), rtol=1e-13)
        check_grads(fn, (A,), backend="numba")
