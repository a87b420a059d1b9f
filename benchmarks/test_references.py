"""The ADBench reference checks as tests: `python3 -m pytest benchmarks/test_references.py`.

Not part of `make test` (testpaths = tests); each compiles a gradient with Numba (tens of
seconds). Skipped when the ADBench data is not beside the repository.
"""
import adbench
import pytest

pytestmark = pytest.mark.skipif(adbench.data_dir() is None, reason="ADBench data not found")


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_gmm_reference(backend):
    import gmm
    gmm.check_gmm_reference(backend)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_lstm_reference(backend):
    import lstm
    lstm.check_lstm_reference(backend)


def test_peer_versions_agree():
    """The JAX / PyTorch / autograd versions compute the same objectives (where installed)."""
    import gmm
    import lstm
    import numpy as np
    import peers
    checked = 0
    for case in gmm.cases()[:1] + lstm.cases()[:1]:
        value = case.objective(*case.args)
        for name in ("jax", "torch", "autograd"):
            fn = getattr(case, name)
            try:
                mod, ops = peers.framework(name)
            except ImportError:
                continue
            args = case.args
            if name == "jax":
                args = tuple(ops.xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
            if name == "torch":
                args = tuple(mod.tensor(a) if isinstance(a, np.ndarray) else a for a in args)
            assert np.isclose(float(fn(ops, *args)), value, rtol=1e-10), (case.name, name)
            checked += 1
    if not checked:
        pytest.skip("no peer installed")
