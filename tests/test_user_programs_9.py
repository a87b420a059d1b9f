"""Programs of a ninth batch (tests/user_programs_9.py).  Each against NumPy (the value
under ``sstad.jit``) and central finite differences (reverse and forward mode), on both
backends; Numba runs are slow."""

import functools

import numpy as np
import pytest

import sstad
import user_programs_9 as up
from program_registry import batch_checks
from sstad.testing import check_grads

args_of, test_on_python, test_on_numba = batch_checks(up.PROGRAMS, seed=9)


# --- defects found by this batch, outside the files it may change (each a strict xfail)

def safe_sinc_energy(r):
    """sin(r) / r with its limit 1 at r = 0 chosen by np.where, as rotation and wave codes
    write it; NumPy's value is exact (it warns about the unused 0 / 0)."""
    return np.sum(np.where(r == 0, 1.0, np.sin(r) / r) ** 2)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="the unused branch of np.where poisons the gradient: the cotangent 0 times "
                          "d(sin r / r)/dr = NaN at r = 0 gives NaN (JAX's 'double where' gotcha); sstad/ad "
                          "multiplies zero cotangents through. np.piecewise avoids it")
def test_where_choosing_a_limit_has_a_finite_gradient():
    with np.errstate(invalid="ignore", divide="ignore"):
        check_grads(safe_sinc_energy, (np.array([0.0, 0.5, 1.5]),), backend="python")


def _ridge(w, X, y, lam=0.1):
    return np.mean((X @ w - y) ** 2) + lam * np.sum(w ** 2)


def test_grad_of_a_partial():
    r = np.random.default_rng(0)
    w, X, y = r.normal(size=3), r.normal(size=(5, 3)), r.normal(size=5)
    got = sstad.grad(functools.partial(_ridge, X=X, y=y))(w)
    assert np.allclose(got, 2 * X.T @ (X @ w - y) / 5 + 0.2 * w)


def test_noise_drawn_inside_the_loss_is_refused_with_the_way_out():
    from sstad.errors import UnsupportedSyntaxError
    with pytest.raises(UnsupportedSyntaxError, match=r"(?s)user_programs_9.py:\d+:\d+: `np.random.seed` uses a "
                                                     r"random generator's hidden state.*pass them in"):
        sstad.grad(up.mc_vae_negative_elbo)(*args_of(up._mc_vae_args))
