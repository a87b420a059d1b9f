"""``np.take``'s ``mode='wrap'`` and ``mode='clip'``: values as NumPy's (indices past
either end, negative ones, a single index), derivatives against finite differences, on
both backends (Numba's np.take has no ``mode``: sstad passes it the positions read), and
a misspelt mode refused at the user's line (Numba's code took it for ``'clip'``)."""
import numpy as np
import pytest

import sstad
from sstad.errors import SstadTypeError
from sstad.testing import check_grads
from take_mode_cases import CASES, misspelt

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
X = np.linspace(0.3, 2.0, 12).reshape(3, 4)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_values_and_derivatives(fn, backend):
    np.testing.assert_array_equal(sstad.jit(fn, backend=backend)(X), fn(X))
    check_grads(fn, (X,), backend=backend)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_misspelt_mode_is_refused(backend):
    with pytest.raises(SstadTypeError, match="mode='wrapped': use one of 'raise', 'wrap' or 'clip'") as info:
        sstad.jit(misspelt, backend=backend)(X)
    assert "take_mode_cases.py" in str(info.value)
