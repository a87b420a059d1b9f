"""Every function of tests/dtype_cases.py on int64, int32, bool and float32 arrays: the
value and the dtype under ``sstad.jit`` are NumPy's (a case NumPy itself refuses is
skipped).  The python backend in the fast suite, Numba (one compilation per case) under
``slow``.  Today's differences are strict xfails, so a fix shows."""
import warnings

import numpy as np
import pytest

import dtype_cases
import sstad

BASE = np.array([[1, 2, 3], [4, 0, 2], [3, 1, 5]])
INPUTS = {"int64": BASE, "int32": BASE.astype(np.int32), "bool": BASE > 1, "float32": BASE.astype(np.float32)}
CASES = [(name, fn) for name, fn in vars(dtype_cases).items() if name.startswith("f_")]

# "<case> <dtype>" or "<case> <dtype> @<backend>" -> what differs from NumPy today
XFAIL = {
}
REFUSED = {"f_histogram"}      # np.histogram is outside the subset: refused at the line


def params(backend):
    out = []
    for name, fn in CASES:
        if name in REFUSED:
            continue
        for dtype in INPUTS:
            reason = XFAIL.get(f"{name} {dtype} @{backend}") or XFAIL.get(f"{name} {dtype}")
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            if backend == "numba":
                marks.append(pytest.mark.slow)
            out.append(pytest.param(fn, dtype, marks=marks, id=f"{name}-{dtype}"))
    return out


def check(fn, dtype, backend):
    a = INPUTS[dtype]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = fn(a)
        except Exception:
            pytest.skip("NumPy refuses it")
        got = sstad.jit(fn, backend=backend)(a)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("fn, dtype", params("python"))
def test_on_python(fn, dtype):
    check(fn, dtype, "python")


@pytest.mark.parametrize("fn, dtype", params("numba"))
def test_on_numba(fn, dtype):
    check(fn, dtype, "numba")


def test_histogram_is_refused_at_the_line():
    from sstad.errors import SstadError
    with pytest.raises(SstadError, match=r"dtype_cases.py:\d+:\d+: call to `np.histogram` is not supported"):
        sstad.jit(dtype_cases.f_histogram, backend="python")(BASE)
