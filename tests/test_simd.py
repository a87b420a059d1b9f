"""Transcendental functions in compiled code: NumPy's own inner loops (runtime/ufunc_loops.py),
the transposed operands of ``@`` and the compiled ``unbroadcast``.

NumPy's loops are called, not reimplemented, so the compiled results must equal NumPy's
bit for bit; the gradients through them are checked against finite differences."""
import numba
import numpy as np
import pytest

import sstad
from sstad import runtime as rt
from sstad.runtime import ufunc_loops
from sstad.runtime.broadcast import unbroadcast
from sstad.testing import check_grads

SPECIAL = [0.0, -0.0, 1e-310, -1e-310, 1e-20, 0.5, -0.5, 0.99, 1.0, -1.0, 3.0, 20.0, 700.0, 710.0,
           -745.0, 1e300, -1e300, np.inf, -np.inf, np.nan]


def _all_loops_source():
    """One compiled function applying every loop to the same array: one compilation per dtype."""
    calls = ", ".join(f"rt.ufunc_loops.{name}(x)" for name in ufunc_loops.NAMES)
    namespace = {"rt": rt}
    exec(f"def apply_all(x):\n    return ({calls},)\n", namespace)
    return numba.njit(namespace["apply_all"])


apply_all = _all_loops_source()


@numba.njit
def tanh_exp(x):
    return rt.ufunc_loops.tanh(x), rt.ufunc_loops.exp(x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_loops_are_numpys_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    with np.errstate(all="ignore"):
        values = np.concatenate([rng.uniform(-3, 3, 200), rng.uniform(-1, 1, 37), SPECIAL]).astype(dtype)
        for name, got in zip(ufunc_loops.NAMES, apply_all(values)):
            want = getattr(np, name)(values)
            assert got.dtype == want.dtype, name
            np.testing.assert_array_equal(got, want, err_msg=name, strict=True)


@pytest.mark.parametrize("x", [np.linspace(-2, 2, 24).reshape(4, 6).T,          # Fortran order
                               np.linspace(-2, 2, 40).reshape(5, 8)[::2, 1::3],  # strided
                               np.empty((0, 3)), np.array(0.25)],                # empty, 0-d
                         ids=["transposed", "strided", "empty", "0-d"])
def test_compiled_loops_on_any_layout(x):
    tanh, exp = tanh_exp(x)
    np.testing.assert_array_equal(tanh, np.tanh(x), strict=True)
    np.testing.assert_array_equal(exp, np.exp(x), strict=True)


def test_every_loop_is_numpys_own():
    """Only loops of NumPy's own are taken, each checked against the header it came from;
    a binary ufunc, or a dtype without a loop, has none."""
    assert ufunc_loops.LOOPS, "no NumPy inner loop was found"
    assert ufunc_loops.inner_loop(np.add, np.dtype(np.float64)) is None
    assert ufunc_loops.inner_loop(np.tanh, np.dtype(np.int8)) is None


def layer(W, b, x, labels):
    h = np.tanh(x @ W + b)
    logp = h - np.log(np.sum(np.exp(h), axis=1, keepdims=True))
    return -np.sum(logp * labels) + np.sum(np.log1p(np.exp(-np.abs(h))))


def layer_args(dtype=np.float64):
    rng = np.random.default_rng(3)
    return (rng.standard_normal((5, 4)).astype(dtype), rng.standard_normal(4).astype(dtype),
            rng.standard_normal((6, 5)).astype(dtype), np.eye(4, dtype=dtype)[rng.integers(0, 4, 6)])


def test_numba_backend_calls_numpys_loops_and_matches_python_exactly():
    args = layer_args()
    text = sstad.dump(layer, *args, emit="numba")
    for name in ("tanh", "exp", "log", "log1p"):
        assert f"rt.ufunc_loops.{name}(" in text
    # a fused argument is a temporary the result may overwrite; `h`, read again, is not
    assert "rt.ufunc_loops.tanh((t1 + b), True)" in text and "rt.ufunc_loops.exp(h)" in text
    assert sstad.jit(layer, backend="numba")(*args) == sstad.jit(layer, backend="python")(*args)


def scalar_and_int(x, k):
    return np.tanh(x) + np.exp(k).sum()


def test_scalars_and_ints_keep_numbas_own():
    assert "ufunc_loops" not in sstad.dump(scalar_and_int, 0.3, np.arange(3), emit="numba")


@pytest.mark.slow
def test_gradient_through_numpys_loops_matches_finite_differences():
    check_grads(layer, layer_args(), modes=("fwd", "rev"), backend="numba")


@pytest.mark.slow
def test_float32_stays_float32():
    args = layer_args(np.float32)
    out = sstad.jit(layer, backend="numba")(*args)
    assert out.dtype == np.float32
    assert out == sstad.jit(layer, backend="python")(*args)


def transposes(a, s):
    return np.swapaxes(a, -1, -2) @ a + np.swapaxes(a, 0, 1) @ a, np.swapaxes(s, 0, 2)


def test_matrix_transpose_is_fortran_ordered_for_blas():
    a, s = np.arange(12.0).reshape(4, 3), np.arange(24.0).reshape(2, 3, 4)
    text = sstad.dump(transposes, a, s, emit="numba")
    assert text.count("a.T") == 2 and "np.swapaxes(s, 0, 2)" in text
    got = sstad.jit(transposes, backend="numba")(a, s)
    np.testing.assert_array_equal(got[0], 2 * a.T @ a)
    np.testing.assert_array_equal(got[1], np.swapaxes(s, 0, 2))


@numba.njit
def unbroadcast_compiled(g, x):
    return rt.unbroadcast(g, x)


@pytest.mark.parametrize("gshape, xshape, order", [((4, 3), (3,), "C"), ((4, 3), (4, 1), "C"),
                                                   ((2, 3, 4), (2, 1, 4), "F"), ((2, 0, 3), (1, 3), "C")])
def test_compiled_unbroadcast_sums_what_broadcasting_added(gshape, xshape, order):
    g, x = np.random.default_rng(1).standard_normal(gshape), np.zeros(xshape)
    got = unbroadcast_compiled(np.asarray(g, order=order), x)
    assert got.shape == x.shape
    np.testing.assert_allclose(got, unbroadcast(g, x), rtol=1e-13, atol=1e-13)
