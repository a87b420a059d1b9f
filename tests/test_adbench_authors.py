"""The ADBench objectives as the benchmark's authors write them (benchmarks/adbench_authors.py),
compiled by sstad on both backends, against the ADBench reference values.

Tolerances are those of benchmarks/test_references.py.  Skipped where the ADBench data is
not beside the repository.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import sstad

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import adbench  # noqa: E402
import adbench_authors as authors  # noqa: E402

pytestmark = pytest.mark.skipif(adbench.data_dir() is None, reason="ADBench data not found")

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("objective", [authors.gmm_objective, authors.gmm_objective_loop],
                         ids=["einsum", "loop"])
def test_gmm_matches_reference(objective, backend):
    args = adbench.load_gmm("gmm/test.txt")
    value = sstad.jit(objective, backend=backend)(*args)
    assert np.isclose(value, adbench.GMM_TEST_OBJECTIVE, rtol=1e-12, atol=0), value
    grads = sstad.jit(sstad.grad(objective, argnums=(0, 1, 2)), backend=backend)(*args)
    flat = np.concatenate([np.ravel(g) for g in grads])
    np.testing.assert_allclose(flat, adbench.GMM_TEST_GRADIENT, rtol=1e-10, atol=1e-12)


def lstm_args(relative):
    """Parameters and state as lists of arrays (one per row), the sequence as an array."""
    main, extra, state, sequence = adbench.load_lstm(relative)
    return list(main), list(extra), list(state), sequence


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("objective", [authors.lstm_objective, authors.lstm_objective_model],
                         ids=["inline", "model"])
def test_lstm_matches_reference(objective, backend):
    args = lstm_args("lstm/lstm_l2_c1024.txt")
    loss = sstad.jit(objective, backend=backend)(*args)
    assert abs(loss - adbench.LSTM_L2_C1024_LOSS) < 1e-8, loss
    main_grads, extra_grads = sstad.jit(sstad.grad(objective, argnums=(0, 1)), backend=backend)(*args)
    assert isinstance(main_grads, list) and len(main_grads) == 4 and len(extra_grads) == 3
    flat = np.concatenate([np.ravel(g) for g in main_grads + extra_grads])
    np.testing.assert_allclose(flat, adbench.load_vector("lstm/lstm_l2_c1024_ref_grad.txt"),
                               rtol=1e-7, atol=1e-12)
