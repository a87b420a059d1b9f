"""The hand-written NumPy GMM gradient (gmm_manual.py) against the ADBench reference values
and against sstad's gradient of the loop version: `python3 -m pytest benchmarks/test_gmm_manual.py`.
Skipped when the ADBench data is not beside the repository."""
import adbench
import numpy as np
import pytest

pytestmark = pytest.mark.skipif(adbench.data_dir() is None, reason="ADBench data not found")


def test_against_the_adbench_reference():
    import gmm_manual
    args = adbench.load_gmm("gmm/test.txt")
    assert np.isclose(gmm_manual.gmm_objective_vectorized(*args), adbench.GMM_TEST_OBJECTIVE, rtol=1e-12, atol=0)
    flat = np.concatenate([np.ravel(g) for g in gmm_manual.gmm_gradient(*args)])
    np.testing.assert_allclose(flat, adbench.GMM_TEST_GRADIENT, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("data", ["gmm/test.txt", "gmm/1k/gmm_d10_K25.txt"])
def test_against_sstad(data):
    import gmm
    import gmm_manual
    import sstad
    args = adbench.load_gmm(data)
    ours = sstad.jit(sstad.grad(gmm.gmm_objective, argnums=(0, 1, 2)), backend="python")(*args)
    for mine, theirs in zip(gmm_manual.gmm_gradient(*args), ours):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-10 * np.max(np.abs(theirs)))
