"""scipy.linalg functions and np.linalg.tensorsolve over np.linalg
(runtime/composites_linalg.py): values against SciPy/NumPy, derivatives against finite
differences (check_grads: forward and reverse); np.linalg.eig is refused with its reason."""
import numpy as np
import pytest
import scipy.linalg as sla

import sstad
from sstad.errors import RunTimeRefusal, SstadError
from sstad.testing import check_grads

RNG = np.random.default_rng(23)


def spd(n):
    a = RNG.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def lower_with_noise(n):
    """A well-conditioned lower triangle; the upper one is large noise no routine may read."""
    return np.tril(RNG.normal(size=(n, n))) + 3.0 * np.eye(n) + 50.0 * np.triu(RNG.normal(size=(n, n)), 1)


def upper_with_noise(n):
    return lower_with_noise(n).T


def st_lower(a, b): return sla.solve_triangular(a, b, lower=True)
def st_upper(a, b): return sla.solve_triangular(a, b)
def st_trans(a, b): return sla.solve_triangular(a, b, trans="T", lower=True)
def st_trans_int(a, b): return sla.solve_triangular(a, b, 2)
def st_unit(a, b): return sla.solve_triangular(a, b, 1, True, True)
def sla_solve_pos(a, b): return sla.solve(a, b, assume_a="pos", lower=True)
def sla_solve_sym_upper(a, b): return sla.solve(a, b, assume_a="sym")
def sla_solve_transposed(a, b): return sla.solve(a, b, transposed=True)
def sla_cho_solve(a, b): return sla.cho_solve((a, True), b)
def sla_cho_solve_upper(a, b): return sla.cho_solve((a, False), b)


def lower_spd(n):
    """An SPD matrix in the lower triangle; noise above (SciPy reads only the lower one)."""
    return np.tril(spd(n)) + 50.0 * np.triu(RNG.normal(size=(n, n)), 1)


SOLVES = [(st_lower, lower_with_noise), (st_upper, upper_with_noise), (st_trans, lower_with_noise),
          (st_trans_int, upper_with_noise), (st_unit, lower_with_noise), (sla_solve_pos, lower_spd),
          (sla_solve_sym_upper, lambda n: lower_spd(n).T), (sla_solve_transposed, lambda n: spd(n)),
          (sla_cho_solve, lower_with_noise), (sla_cho_solve_upper, upper_with_noise)]


@pytest.mark.parametrize("fn, make", SOLVES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("b_shape", [(3,), (3, 2)], ids=["vector", "matrix"])
def test_solves(fn, make, b_shape):
    a, b = make(3), RNG.normal(size=b_shape)
    np.testing.assert_allclose(sstad.jit(fn, backend="python")(a, b), fn(a, b), rtol=1e-12, atol=1e-12)
    check_grads(fn, (a, b), backend="python")


def sla_inv(a): return sla.inv(a)
def sla_det(a): return sla.det(a)
def sla_cholesky_upper(a): return sla.cholesky(a)
def sla_cholesky_lower(a): return sla.cholesky(a, lower=True)
def sla_eigh(a): w, v = sla.eigh(a, lower=False); return w + np.abs(v[0])
def sla_eigvals_only(a): return sla.eigh(a, eigvals_only=True)
def sla_eigvalsh(a): return sla.eigvalsh(a)
def tensorsolve(a, b): return np.linalg.tensorsolve(a, b)


@pytest.mark.parametrize("fn, make", [(sla_inv, spd), (sla_det, spd), (sla_cholesky_upper, lambda n: lower_spd(n).T),
                                      (sla_cholesky_lower, lower_spd), (sla_eigh, lambda n: lower_spd(n).T),
                                      (sla_eigvals_only, lower_spd), (sla_eigvalsh, lower_spd)],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_matrix_functions(fn, make):
    a = make(3)
    np.testing.assert_allclose(sstad.jit(fn, backend="python")(a), fn(a), rtol=1e-12, atol=1e-12)
    check_grads(fn, (a,), backend="python")


def test_tensorsolve():
    a, b = spd(6).reshape(2, 3, 3, 2), RNG.normal(size=(2, 3))
    np.testing.assert_allclose(sstad.jit(tensorsolve, backend="python")(a, b), tensorsolve(a, b), rtol=1e-12)
    check_grads(tensorsolve, (a, b), backend="python")


def expm(a): return sla.expm(a)
def sqrtm(a): return sla.sqrtm(a)


@pytest.mark.parametrize("fn, a", [(expm, 0.3 * RNG.normal(size=(3, 3))), (expm, 4.0 * RNG.normal(size=(3, 3))),
                                   (sqrtm, RNG.normal(size=(3, 3)) + 4.0 * np.eye(3)), (sqrtm, spd(3))],
                         ids=["expm-small", "expm-scaled", "sqrtm", "sqrtm-spd"])
def test_matrix_exponential_and_square_root(fn, a):
    np.testing.assert_allclose(sstad.jit(fn, backend="python")(a), fn(a), rtol=1e-12, atol=1e-12)
    check_grads(fn, (a,), backend="python")


def test_sqrtm_without_a_real_square_root_is_an_error():
    negative = np.array([[-2.0, 1.0], [0.0, -3.0]])
    with pytest.raises(RunTimeRefusal, match=r"test_linalg_composites.py:\d+:.*negative real axis"):
        sstad.jit(sqrtm, backend="python")(negative)


def all_solves(a, b):
    return (sla.solve_triangular(a, b, trans=1, lower=True) + sla.cho_solve((a, True), b)
            + sla.solve(a @ a.T, b, assume_a="pos") + sla.cholesky(a @ a.T)[0] + sla.expm(0.1 * a)[1]
            + sla.sqrtm(a @ a.T)[2])


@pytest.mark.slow            # Numba's linalg compilation: minutes on a loaded machine
def test_numba():
    a, b = lower_with_noise(3), RNG.normal(size=3)
    np.testing.assert_allclose(sstad.jit(all_solves)(a, b), all_solves(a, b), rtol=1e-12)
    check_grads(all_solves, (a, b), backend="numba")


def eig(a): return np.real(np.linalg.eig(a)[0])
def eigvals(a): return np.real(np.linalg.eigvals(a))
def sla_eig(a): return np.real(sla.eig(a)[0])
def generalized(a): return sla.eigh(a, a + np.eye(3))
def bad_trans(a, b): return sla.solve_triangular(a, b, trans=5)


@pytest.mark.parametrize("fn, args, words", [
    (eig, (spd(3),), "eig is not supported: eigenvalues and eigenvectors of a general matrix are complex"),
    (eigvals, (spd(3),), "use np.linalg.eigh"), (sla_eig, (spd(3),), "eigvalsh"),
    (generalized, (spd(3),), "generalized eigenproblem"),
    (bad_trans, (spd(3), np.ones(3)), "trans must be 0, 1, 2, 'N', 'T' or 'C', not 5"),
])
def test_refusals_say_why(fn, args, words):
    with pytest.raises(SstadError, match=r"test_linalg_composites\.py:\d+") as info:
        sstad.jit(fn, backend="python")(*args)
    assert words in str(info.value)
