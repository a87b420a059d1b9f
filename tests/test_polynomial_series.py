"""``numpy.polynomial``'s series evaluation (``polyval chebval legval hermval hermeval
lagval``): NumPy's values bit for bit, and derivatives in the coefficients and the points.
Was: "`np.polynomial.chebyshev.chebval` has no derivative rule" (a library call)."""
import numpy as np
import pytest
from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre, polynomial

import sstad
from refusals import refused_at
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
SERIES = [polynomial.polyval, chebyshev.chebval, legendre.legval, hermite.hermval, hermite_e.hermeval,
          laguerre.lagval]


def evaluate(x, c, f):
    return f(x, c)


def every_series(c, x):
    total = 0.0
    for f in (polynomial.polyval, chebyshev.chebval, legendre.legval, hermite.hermval, hermite_e.hermeval,
              laguerre.lagval):
        total = total + np.sum(np.sin(f(x, c)))
    return total


def scalar_and_tensor(C, x, t):
    """A number as x; coefficients with a trailing axis (tensor=True: one series per column)."""
    return chebyshev.chebval(t, C[:, 0]) + legendre.legval(0.3, C[:, 1]) \
        + np.sum(chebyshev.chebval(x, C) ** 2) + np.sum(hermite_e.hermeval(x, C, tensor=False) ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_values_are_numpys(n, backend):
    r = np.random.default_rng(n)
    c, x = r.normal(size=n), np.linspace(-0.9, 1.7, 5)
    for f in SERIES:
        np.testing.assert_array_equal(sstad.jit(evaluate, backend=backend)(x, c, f), f(x, c))
    ints = np.arange(1, n + 1)
    np.testing.assert_array_equal(sstad.jit(evaluate, backend=backend)(x, ints, chebyshev.chebval),
                                  chebyshev.chebval(x, ints))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [1, 2, 5])
def test_derivatives_in_coefficients_and_points(n, backend):
    r = np.random.default_rng(10 + n)
    check_grads(every_series, (r.normal(size=n), np.linspace(-0.9, 1.7, 4)), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalar_points_and_tensor_coefficients(backend):
    r = np.random.default_rng(2)
    check_grads(scalar_and_tensor, (r.normal(size=(4, 5)), np.linspace(-0.9, 0.9, 5), 0.4), backend=backend)


def complex_coefficients(x):
    return np.abs(np.sum(chebyshev.chebval(x, np.array([1.0, 2.0j]))))     # ERR complex


def test_complex_coefficients_are_refused_at_their_line():
    refused_at(complex_coefficients, (np.ones(2),), r"chebval of complex coefficients is not supported",
               "# ERR complex")
