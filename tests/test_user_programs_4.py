"""Programs from new fields (tests/user_programs_4.py): n-body leapfrog, Lennard-Jones, a
wave equation by np.roll, a mass-spring cloth, total-variation denoising, bilinear
sampling, quaternion and Rodrigues rotations, a causal transformer block, value
iteration, REINFORCE, Heston paths, Newton's method and a shooting method inside the
objective, quantile losses, graph pooling by np.bincount / np.add.at, maximum drawdown
and an SIR fit.  Each against central finite differences (value, reverse and forward
mode; second order where the program asks) with check_grads; Numba runs are slow.

Below them, idioms of these programs: those that stay refused have a clear error at the
user's line and a strict xfail that says why."""

import numpy as np
import pytest

import sstad
import user_programs_4 as up
from refusals import refused_at
from sstad.errors import SstadError
from sstad.testing import check_grads

IDS = [p[0].__name__ for p in up.PROGRAMS]


def args_of(make_args):
    return make_args(np.random.default_rng(4))


@pytest.mark.parametrize("fn, make_args, order, modes", up.PROGRAMS, ids=IDS)
def test_on_python(fn, make_args, order, modes):
    check_grads(fn, args_of(make_args), order=order, modes=modes, backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn, make_args, order, modes", up.PROGRAMS, ids=IDS)
def test_on_numba(fn, make_args, order, modes):
    check_grads(fn, args_of(make_args), modes=modes, backend="numba")


# --- Heston with full truncation: sqrt(max(v, 0)) at v < 0 ----------------------------------
# docs/ad.md: the derivative of sqrt at 0 is infinite; forward mode multiplies it by the
# zero tangent of max(v, 0) and gives NaN (as JAX's jvp does).  Reverse mode is exact:
# np.maximum's rule selects, so the infinite cotangent never reaches v.

@pytest.mark.xfail(strict=True, reason="forward mode: sqrt's infinite derivative at 0 times a zero tangent is "
                   "NaN (docs/ad.md, 'Conventions at non-differentiable points')")
def test_heston_full_truncation_forward_mode():
    check_grads(up.heston_asian_call, args_of(up.PROGRAMS[IDS.index("heston_asian_call")][1]), modes="fwd",
                backend="python")


# --- attention heads as a batch and as a list give the same block ------------------------------

def test_the_same_heads_as_a_batch_match_the_list():
    params, x, _ = up._transformer_args(np.random.default_rng(4))
    np.testing.assert_allclose(up.transformer_block(params, x, 2), up.transformer_heads_listed(params, x, 2),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sstad.jit(up.transformer_heads_listed, backend="python")(params, x, 2),
                               up.transformer_heads_listed(params, x, 2), rtol=1e-12)


# --- a list of a run-time length made by repetition, written by index ------------------------------

def returns_by_repeated_list(rewards, gamma):
    G = 0.0
    returns = [0.0] * len(rewards)
    for t in reversed(range(len(rewards))):
        G = rewards[t] + gamma * G
        returns[t] = G
    return np.sum(np.array(returns) ** 2)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_list_repeated_to_a_run_time_length(backend):
    check_grads(returns_by_repeated_list, (np.array([1.0, -0.5, 2.0]), 0.9), backend=backend)


# --- squeeze without an axis -------------------------------------------------------------------

def squeezed_column(w, X):
    scores = X @ w[:, None]                            # (n, 1)
    return np.sum(np.tanh(scores.squeeze()) ** 2)      # ERR squeeze


@pytest.mark.xfail(strict=True, raises=SstadError,
                   reason="the rank is compiled in, and which axes have length 1 is known only at run time")
def test_squeeze_without_axis():
    check_grads(squeezed_column, (np.array([0.3, -0.2]), np.ones((4, 2))), backend="python")


def test_squeeze_without_axis_is_refused_at_its_line_naming_the_axis_form():
    refused_at(squeezed_column, (np.array([0.3, -0.2]), np.ones((4, 2))), r"squeeze\(x, axis=1\)", "# ERR squeeze")
