"""A statement's constant arguments sit in its layout beside slots naming its atoms; the
layout's text is a key (CSE, forward mode's cache of transposed rules).  A slot printed
as its bare number read like the constant of that number: ``np.array([x, 0])`` and
``np.array([0, x])`` were one statement to CSE (a silently wrong value), and forward mode
reused the first one's JVP for the second (a silently wrong tangent, as in a quantum
circuit's ``np.array([[np.exp(-0.5j * phi), 0], [0, np.exp(0.5j * phi)]])``)."""
import numpy as np
import pytest

import sstad
from layout_key_cases import diagonal_of_phases, rows_mirrored
from sstad.testing import check_grads


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_constants_in_different_places_are_different_statements(backend):
    assert sstad.jit(rows_mirrored, backend=backend)(2.0) == rows_mirrored(2.0) == 2.0


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_forward_mode_of_arrays_with_constants_in_different_places(backend):
    _, tangent = sstad.jit(sstad.pushforward(diagonal_of_phases), backend=backend)(0.7, 1.0)
    assert np.isclose(tangent, np.cos(0.7) - 3 * np.sin(0.7), rtol=1e-12)
    check_grads(diagonal_of_phases, (0.7,), backend=backend)
