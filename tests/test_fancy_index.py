"""Reading and writing with several integer index arrays (``logits[np.arange(n), labels]``,
``Q[:, rows, cols] = v``), whose adjoint scatters back with repeats adding up; under
Numba too."""
import numpy as np
import pytest

import fancy_index_cases as fc
from sstad.testing import check_grads

rng = np.random.default_rng(6)
CASES = {
    "logits[np.arange(n), labels]": (fc.cross_entropy, (rng.normal(size=(4, 3)), np.array([0, 2, 1, 2]))),
    "A[np.triu_indices(3)]": (fc.upper_triangle, (rng.normal(size=(3, 3)),)),
    "Q[:, rows, cols] = v": (fc.fill_lower_triangles, (rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3)))),
}


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_fancy_indexing(name, backend):
    fn, args = CASES[name]
    check_grads(fn, args, backend=backend)
