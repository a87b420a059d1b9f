"""Calls to functions sstad does not see into (runtime/extern.py)."""
import math

import numba
import numpy as np
import pytest
import scipy.special

import sstad
from sstad.errors import UnsupportedSyntaxError


@numba.njit
def softplus(x):
    return np.log1p(np.exp(x))


def weighted_softplus(w, x):
    c = scipy.special.gammaln(3.5)      # every argument a compile-time number: folded
    return np.sum(w * softplus(x)) * c  # an @njit function of data: a constant for AD


def softplus_of_weights(w):
    return np.sum(softplus(w))


W = np.array([0.5, 1.5, -0.25])
X = np.array([0.1, -0.2, 2.0])


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_extern_on_inactive_values_is_a_constant(backend):
    c = math.lgamma(3.5)
    value = sstad.jit(weighted_softplus, backend=backend)(W, X)
    np.testing.assert_allclose(value, np.sum(W * softplus(X)) * c, rtol=1e-13)
    dw = sstad.jit(sstad.grad(weighted_softplus), backend=backend)(W, X)
    np.testing.assert_allclose(dw, softplus(X) * c, rtol=1e-13)


def test_compile_time_call_is_folded_into_a_constant():
    text = sstad.dump(weighted_softplus, W, X, emit="python")
    assert "gammaln" not in text and repr(math.lgamma(3.5))[:12] in text
    assert "ext_softplus = rt.extern_function('ext_softplus')" in text


def test_extern_on_a_differentiated_value_names_it_and_says_what_to_do():
    with pytest.raises(UnsupportedSyntaxError) as err:
        sstad.grad(softplus_of_weights)(W)
    text = str(err.value)
    assert "softplus" in text and "test_extern.py:" in text and "custom_vjp" in text
