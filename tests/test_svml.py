"""SVML's sin and cos in compiled loops (runtime/svml.py): within 1 ulp of the correctly
rounded result, the same for an element wherever it sits, vectorised inside a fused
expression, and differentiated like np.sin on both backends."""
import os
import re
import subprocess
import sys

import numba
import numpy as np
import pytest

import sstad
from sstad import runtime as rt
from sstad.runtime import svml
from sstad.testing import check_grads

needs_svml = pytest.mark.skipif(not svml.AVAILABLE, reason="intel-cmplr-lib-rt's libsvml.so is not loaded")

SPECIAL = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-310, -2.2e-308, 1e-20, 0.5, 1.0, np.pi / 2, np.pi,
                    -np.pi, 710.0, 1e22, -1e22, 2.0 ** 1023, 1.7976931348623157e308, -1.7976931348623157e308,
                    np.inf, -np.inf, np.nan])


def sample():
    """Random values at every scale (tiny to huge, both signs) and the special values."""
    rng = np.random.default_rng(7)
    scales = 10.0 ** rng.uniform(-320, 308, 100_000) * rng.choice([-1.0, 1.0], 100_000)
    return np.concatenate([rng.uniform(-10, 10, 200_000), rng.uniform(-1e6, 1e6, 50_000), scales, SPECIAL])


@numba.njit
def sin_cos(x):
    return rt.svml.sin(x), rt.svml.cos(x)


@numba.njit
def fused(x):
    return rt.svml.sin(x) + x * rt.svml.cos(x)


def ulps(got, reference):
    """|got - reference| in units of the float64 spacing at the reference (long double)."""
    spacing = np.spacing(np.abs(reference).astype(np.float64)).astype(np.longdouble)
    return np.abs((got.astype(np.longdouble) - reference) / spacing)


@needs_svml
@pytest.mark.parametrize("name", svml.NAMES)
def test_within_one_ulp_of_correctly_rounded(name):
    if np.finfo(np.longdouble).nmant < 63:
        pytest.skip("long double is no wider than double here: no reference")
    x = sample()
    got = dict(zip(svml.NAMES, sin_cos(x)))[name]
    with np.errstate(invalid="ignore"):
        reference = getattr(np, name)(x.astype(np.longdouble))     # 11 more bits than float64
        numpy = getattr(np, name)(x)
    finite = np.isfinite(reference)
    worst = ulps(got[finite], reference[finite]).max()
    assert worst <= 1.0, f"{name}: {worst} ulp"
    # non-finite where NumPy's is (NaN for +-inf and NaN; the NaN's sign bit may differ)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(numpy))
    # signed zeros and tiny arguments: sin(x) is x itself, cos(x) is 1
    tiny = (np.abs(x) < 1e-20)
    np.testing.assert_array_equal(got[tiny], x[tiny] if name == "sin" else np.ones(tiny.sum()), strict=True)
    assert np.array_equal(np.signbit(got[tiny]), np.signbit(numpy[tiny]))


@needs_svml
def test_an_element_gives_the_same_wherever_it_sits():
    """The vectorised body, the remainder and strided loops all give SVML's result."""
    x = sample()[:40_003]
    whole = sin_cos(x)
    at = np.arange(x.size)
    views = (lambda a: a[:1], lambda a: a[:3], lambda a: a[5:12], lambda a: a[1::3],
             lambda a: a[:40_000].reshape(200, 200, order="F"), lambda a: a[:40_000].reshape(200, 200)[:, ::7],
             lambda a: a[:40_000].reshape(200, 200).T)
    for view in views:
        assert np.shares_memory(view(x), x)
        for got, want in zip(sin_cos(view(x)), whole):
            np.testing.assert_array_equal(got, want[view(at)])
    one_by_one = np.array([sin_cos(x[k:k + 1])[0][0] for k in range(300)])
    np.testing.assert_array_equal(one_by_one, whole[0][:300])


@needs_svml
def test_fused_expression_calls_the_vector_routine():
    x = np.linspace(-3, 3, 1001)
    np.testing.assert_allclose(fused(x), np.sin(x) + x * np.cos(x), rtol=0, atol=4e-15)
    assembly = fused.inspect_asm(fused.signatures[0])
    widest = max(svml.vector_widths())
    for name in svml.NAMES:
        assert f"__svml_{name}{widest}{svml.ACCURACY}" in assembly, name


def sum_sin_x_times_x(x):
    return np.sum(np.sin(x) * x)


@needs_svml
def test_compiled_gradient_calls_the_vector_routines():
    """The benchmark's gradient, ``sin(x) + x * cos(x)``, as the numba backend compiles it."""
    llvm_ir = sstad.dump(sstad.grad(sum_sin_x_times_x), np.linspace(-2, 2, 9), emit="llvm")
    widest = max(svml.vector_widths())
    for name in svml.NAMES:
        assert re.search(rf"call [^\n]*@__svml_{name}{widest}{svml.ACCURACY}\(", llvm_ir), name


def test_vector_widths_follow_the_cpu_numba_compiles_for(monkeypatch):
    assert 2 in svml.vector_widths()
    monkeypatch.setattr(numba.config, "CPU_NAME", "generic")
    assert svml.vector_widths() == (2,)


def sin_times_x(x):
    return np.sum(np.sin(x) * x + np.cos(2.0 * x))


def sin_of_scalar(s):
    return np.sin(s) * s


def test_numba_backend_routes_float64_arrays_only():
    x = np.linspace(-2, 2, 7)
    text = sstad.dump(sstad.grad(sin_times_x), x, emit="numba")
    assert ("rt.svml.sin(" in text and "rt.svml.cos(" in text) == svml.AVAILABLE
    assert "rt.svml" not in sstad.dump(sstad.grad(sin_times_x), x, emit="python")
    assert "rt.svml" not in sstad.dump(sin_times_x, x.astype(np.float32), emit="numba")   # NumPy's SIMD loop
    assert "rt.svml" not in sstad.dump(sin_of_scalar, 0.5, emit="numba")


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_gradient_matches_finite_differences(backend):
    x = np.random.default_rng(2).uniform(-4, 4, 37)
    check_grads(sin_times_x, (x,), modes=("fwd", "rev"), backend=backend)
    got = sstad.jit(sstad.grad(sin_times_x), backend=backend)(x)
    np.testing.assert_allclose(got, np.sin(x) + x * np.cos(x) - 2 * np.sin(2 * x), rtol=1e-14, atol=1e-14)


RUN_WITH_OR_WITHOUT_SVML = """
import importlib.metadata, sys
import numpy as np
if sys.argv[1] == "without":          # as if intel-cmplr-lib-rt were not installed
    found = importlib.metadata.distribution
    def distribution(name):
        if name == "intel-cmplr-lib-rt":
            raise importlib.metadata.PackageNotFoundError(name)
        return found(name)
    importlib.metadata.distribution = distribution
import sstad
from sstad.runtime import svml
def f(x):
    return np.sum(np.sin(x) * x)
x = np.linspace(-3.0, 3.0, 101)
got = sstad.jit(sstad.grad(f), backend="numba")(x)
assert svml.AVAILABLE == (sys.argv[1] == "with"), svml.AVAILABLE
np.testing.assert_allclose(got, np.sin(x) + x * np.cos(x), rtol=0, atol=1e-15)
"""


@needs_svml
def test_disk_cache_written_with_svml_serves_a_process_without_it(tmp_path):
    """Code that calls SVML, read from the disk cache where the library is not loaded,
    would jump to a null address: the cache key says whether SVML was loaded."""
    script = tmp_path / "run.py"
    script.write_text(RUN_WITH_OR_WITHOUT_SVML)
    env = dict(os.environ, SSTAD_CACHE_DIR=str(tmp_path / "cache"))
    for which in ("with", "without", "with"):
        run = subprocess.run([sys.executable, str(script), which], env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, (which, run.returncode, run.stderr[-2000:])
