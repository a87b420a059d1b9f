"""np.logaddexp where its result is infinite: its derivative exp(x - out) was 0 / 0 there,
so a forward variable still at -inf (a CTC or HMM recursion in log space before a state is
reachable) made the whole gradient NaN, though every state that reaches the result has a
finite one.  There logaddexp is the maximum of its arguments, and so are its weights."""
import numpy as np
import pytest

import sstad
from logaddexp_cases import forward_algorithm, unreachable_state
from sstad.testing import check_grads


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_state_at_minus_infinity_leaves_the_gradient_finite(backend):
    g = sstad.jit(sstad.grad(unreachable_state), backend=backend)(np.array([0.3, -1.2]))
    np.testing.assert_array_equal(g, [0.0, 1.0])


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_forward_algorithm_from_one_state(backend):
    log_emissions = np.log(np.random.default_rng(0).uniform(0.1, 1.0, size=(5, 3)))
    check_grads(forward_algorithm, (log_emissions,), backend=backend)

