"""HIPS/autograd's gradient suite (tests/autograd_suite_cases.py) against sstad.

Every case is checked with ``check_grads`` (the compiled value against NumPy, reverse and
forward mode against central differences) on the python backend; on numba (slow) the
cases are grouped into a few compiled functions.  A call sstad refuses with a clear error
at the user's line is listed in ``REFUSED`` with the message it must give.
"""
import numpy as np
import pytest

import autograd_suite_cases as cases
import sstad
from sstad.testing import check_grads

#: calls sstad refuses, with a clear message at the user's line: (case name prefix, message)
REFUSED = {
    "chi2.cdf": "`scipy.stats.chi2.cdf` has no derivative rule",
    "beta.cdf": "`scipy.stats.beta.cdf` has no derivative rule",
    "gamma.cdf": "`scipy.stats.gamma.cdf` has no derivative rule",
    "poisson.cdf": "`scipy.stats.poisson.cdf` has no derivative rule",
    "t.cdf": "`scipy.stats.t.cdf` has no derivative rule",
    "t.logcdf": "`scipy.stats.t.logcdf` has no derivative rule",
    "mvn.entropy": "`scipy.stats.multivariate_normal.entropy` has no derivative rule",
    "betainc": "`scipy.special.betainc` has no derivative rule",
    "gammainc": "`scipy.special.gammainc` has no derivative rule",
    "gammaincc": "`scipy.special.gammaincc` has no derivative rule",
    "iv": "`scipy.special.iv`: the order must be a compile-time number",
    "ive": "`scipy.special.ive`: the order must be a compile-time number",
    "logsumexp[f,axis=None,keepdims=True]": "keepdims=True of a number: SciPy returns shape",
    "logsumexp[f,axis=0,keepdims=True]": "keepdims=True of a number: SciPy returns shape",
    "squeeze_": "np.squeeze without `axis` is not supported",
    "fft": "`np.fft.fft` has no derivative rule",
    "rfft": "`np.fft.rfft` has no derivative rule",
}

def _refusal(name):
    for prefix, message in REFUSED.items():
        if name == prefix or name.startswith(prefix) and (prefix.endswith("_") or name[len(prefix)] == "["):
            return message
    return None


def _params(group):
    return [pytest.param(case, id=case.name) for case in group]


def _check(case):
    message = _refusal(case.name)
    if message is None:
        check_grads(case.fn, case.args, order=case.order, backend="python")
        return
    with pytest.raises(sstad.errors.SstadError, match=message) as refused:
        check_grads(case.fn, case.args, order=case.order, backend="python")
    assert "autograd_suite_cases.py:" in str(refused.value)


# The python backend: every case.  Binary operations over all 16 pairs of shapes are many
# (~300 checks): they run in one test per operation, most of them in the slow slice.

@pytest.mark.parametrize("case", _params(cases.STATISTICS + cases.UNARY))
def test_statistics_and_unary(case):
    _check(case)


def _binary_groups():
    groups = {}
    for case in cases.BINARY:
        groups.setdefault(case.name.split("[")[0], []).append(case)
    return groups


#: the operations whose 16 shape pairs run in the fast slice; the others' are slow
FAST_BINARY = {"add", "true_divide", "logaddexp", "mod", "op_pow", "hypot", "remainder"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in FAST_BINARY else pytest.mark.slow)
                                  for n in sorted(_binary_groups())])
def test_binary_over_all_shape_pairs(name):
    for case in _binary_groups()[name]:
        _check(case)


@pytest.mark.parametrize("case", _params(cases.SYSTEMATIC[len(cases.STATISTICS + cases.UNARY + cases.BINARY):]),)
def test_systematic(case):
    _check(case)


@pytest.mark.parametrize("case", _params(cases.NUMPY))
def test_numpy(case):
    _check(case)


@pytest.mark.parametrize("case", _params(cases.LINALG))
def test_linalg(case):
    _check(case)


@pytest.mark.parametrize("case", _params(cases.SCIPY))
def test_scipy(case):
    _check(case)


@pytest.mark.parametrize("case", _params(cases.OTHER))
def test_interp_and_fft(case):
    _check(case)


@pytest.mark.parametrize("case", _params(cases.COMPLEX))
def test_complex(case):
    """Complex arguments, as real and imaginary parts (np.var and np.std of complex arrays
    were silently wrong: (a - mean)**2 where NumPy takes |a - mean|**2)."""
    _check(case)


@pytest.mark.parametrize("case", _params(cases.HIGHER))
def test_second_order(case):
    _check(case)


def test_hessian_vector_product_and_hessian():
    """autograd's hessian_vector_product and hessian: H v of a tanh form, and H v again
    through the full Hessian (forward over reverse both)."""
    x, a, v = cases.R(4), cases.R(4, 4), cases.R(4)
    h = cases.hessian_of_tanh_form(x, a)
    assert h.shape == (4, 4) and np.allclose(h, h.T)
    hv = sstad.hvp(cases.quadratic_form_tanh, (x, a), (v, np.zeros((4, 4))))
    assert np.allclose(hv, h @ v)
    g = sstad.grad(cases.quadratic_form_tanh)
    eps = 1e-6
    assert np.allclose((g(x + eps * v, a) - g(x - eps * v, a)) / (2 * eps), hv, atol=1e-6)


def test_jacobian_of_a_vector_function():
    """autograd's jacobian: rows by reverse mode, columns by forward mode, both against
    central differences."""
    x = cases.R(5)
    eps = 1e-6
    numeric = np.stack([(cases.softmax(x + eps * e) - cases.softmax(x - eps * e)) / (2 * eps) for e in np.eye(5)], axis=1)
    assert np.allclose(sstad.jacrev(cases.softmax)(x), numeric, atol=1e-7)
    assert np.allclose(sstad.jacfwd(cases.softmax)(x), numeric, atol=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize("case", _params(cases.NUMBA_GROUPS))
def test_numba(case):
    """Each family's calls in one compiled function on the numba backend."""
    check_grads(case.fn, case.args, backend="numba")


@pytest.mark.slow
def test_inner_with_a_literal_number_under_numba():
    """np.inner(v, 0.3): the number is a literal of the call, not an operand; Numba's
    np.dot it was emitted as takes no numbers (a compile failure)."""
    check_grads(cases.inner_with_literal_numbers, (cases.R(3),), backend="numba")
