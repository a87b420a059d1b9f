"""NumPy functions that sstad defines as composites (runtime/composites_*.py), called the
ways NumPy allows: each parameter positional and by keyword, negative axes, scalars and
arrays of several ranks.  Each call is checked against NumPy itself (the value) and
against finite differences in both modes (sstad.testing.check_grads), on both backends.

A case is a call written as source, with its arguments: a shape (random values), or a
function of the random generator.  The calls are written into a module and imported,
because sstad reads the source of what it compiles.
"""
import ast
import atexit
import importlib.util
import os
import shutil
import sys
import tempfile

import numpy as np
import pytest

import sstad
from sstad.errors import SstadTypeError, UnsupportedSyntaxError
from sstad.testing import check_grads


def increasing(n, low=-2.0, high=2.0):
    """Sample points: sorted, well apart."""
    return lambda rng: np.sort(rng.uniform(low, high, n)) + np.arange(n) * 0.5


def inside(shape, low=-1.5, high=3.5):
    return lambda rng: rng.uniform(low, high, shape)


def positive(*shape):
    return lambda rng: rng.uniform(0.5, 2.0, shape)


SPECIAL = np.array([[1.0, np.nan, -0.5], [np.inf, 2.0, -np.inf]])


def special(rng):
    return SPECIAL.copy()


def with_zero(rng):
    return np.array([0.0, 0.3, -1.2, 2.5])


V, M, T = (5,), (3, 4), (2, 3, 4)
CASES = [
    # np.diff
    ("np.diff", "np.diff(a)", [(6,)]),
    ("np.diff", "np.diff(a, 2)", [(6,)]),
    ("np.diff", "np.diff(a, n=3)", [(3, 6)]),
    ("np.diff", "np.diff(a, 1, 0)", [M]),
    ("np.diff", "np.diff(a, axis=-2)", [T]),
    ("np.diff", "np.diff(a, n=2, axis=1)", [(3, 5, 2)]),
    ("np.diff", "np.diff(a, 0)", [M]),
    ("np.diff", "np.diff(a, prepend=0.5)", [M]),
    ("np.diff", "np.diff(a, prepend=s)", [V, ()]),
    ("np.diff", "np.diff(a, append=b, axis=0)", [M, (1, 4)]),
    ("np.diff", "np.diff(a, 1, -1, b, c)", [M, (3, 1), (3, 2)]),
    ("np.diff", "np.diff(a=a, n=2, axis=-1, prepend=b, append=1.0)", [M, (3, 2)]),
    # np.pad
    ("np.pad", "np.pad(a, 2)", [(4,)]),
    ("np.pad", "np.pad(a, (1, 2))", [M]),
    ("np.pad", "np.pad(a, ((1, 0), (2, 3)))", [M]),
    ("np.pad", "np.pad(a, ((1, 2),))", [T]),
    ("np.pad", "np.pad(a, 1, 'edge')", [M]),
    ("np.pad", "np.pad(a, pad_width=((0, 1), (2, 0)), mode='edge')", [M]),
    ("np.pad", "np.pad(a, ((1, 1), (0, 0), (2, 1)), mode='edge')", [T]),
    ("np.pad", "np.pad(a, 1, constant_values=2.5)", [(2, 3)]),
    ("np.pad", "np.pad(a, (1, 2), 'constant', constant_values=((1.0, 2.0), (3.0, 4.0)))", [(2, 3)]),
    ("np.pad", "np.pad(array=a, pad_width=1, mode='constant', constant_values=s)", [(2, 3), ()]),
    # np.rot90
    ("np.rot90", "np.rot90(a)", [M]),
    ("np.rot90", "np.rot90(a, 2)", [M]),
    ("np.rot90", "np.rot90(a, -1)", [M]),
    ("np.rot90", "np.rot90(a, k=3)", [M]),
    ("np.rot90", "np.rot90(a, 4)", [M]),
    ("np.rot90", "np.rot90(a, 1, (1, 2))", [T]),
    ("np.rot90", "np.rot90(m=a, k=1, axes=(-1, 0))", [T]),
    ("np.rot90", "np.rot90(a, 3, axes=[2, 1])", [T]),
    # np.atleast_3d, np.column_stack, np.dstack
    ("np.atleast_3d", "np.atleast_3d(a)", [()]),
    ("np.atleast_3d", "np.atleast_3d(a)", [V]),
    ("np.atleast_3d", "np.atleast_3d(a)", [M]),
    ("np.atleast_3d", "np.atleast_3d(a)", [T]),
    ("np.column_stack", "np.column_stack((a, b))", [(4,), (4,)]),
    ("np.column_stack", "np.column_stack([a, b, c])", [(4, 2), (4,), (4, 3)]),
    ("np.column_stack", "np.column_stack(tup=(a, b))", [(4,), (4, 1)]),
    ("np.dstack", "np.dstack((a, b))", [(3,), (3,)]),
    ("np.dstack", "np.dstack([a, b])", [(2, 3), (2, 3)]),
    ("np.dstack", "np.dstack(tup=(a, b))", [(2, 3, 1), (2, 3)]),
    # np.kron, np.outer
    ("np.kron", "np.kron(a, b)", [(3,), (2,)]),
    ("np.kron", "np.kron(a, b)", [(2, 3), (2, 2)]),
    ("np.kron", "np.kron(a, b)", [(2, 2), (3,)]),
    ("np.kron", "np.kron(a, b)", [(), (3,)]),
    ("np.kron", "np.kron(a=a, b=b)", [(2, 1, 2), (1, 2, 2)]),
    ("np.outer", "np.outer(a, b)", [(3,), (4,)]),
    ("np.outer", "np.outer(a, b)", [(2, 3), (2,)]),
    ("np.outer", "np.outer(a=a, b=b, out=None)", [(), (3,)]),
    # the split family
    ("np.array_split", "np.array_split(a, 3)", [(7,)]),
    ("np.array_split", "np.array_split(a, [2, 5])", [(7,)]),
    ("np.array_split", "np.array_split(a, 2, axis=1)", [(3, 5)]),
    ("np.array_split", "np.array_split(a, (1,), -1)", [M]),
    ("np.array_split", "np.array_split(ary=a, indices_or_sections=2, axis=-2)", [(5, 2)]),
    ("np.hsplit", "np.hsplit(a, 2)", [M]),
    ("np.hsplit", "np.hsplit(a, 3)", [(6,)]),
    ("np.hsplit", "np.hsplit(ary=a, indices_or_sections=[1, 3])", [(2, 4)]),
    ("np.vsplit", "np.vsplit(a, 2)", [(4, 3)]),
    ("np.vsplit", "np.vsplit(ary=a, indices_or_sections=[1])", [(3, 2)]),
    ("np.dsplit", "np.dsplit(a, 2)", [T]),
    ("np.dsplit", "np.dsplit(a, indices_or_sections=(1, 3))", [T]),
    # np.interp
    ("np.interp", "np.interp(x, xp, fp)", [inside(V), increasing(6), (6,)]),
    ("np.interp", "np.interp(x, xp, fp)", [inside(()), increasing(6), (6,)]),
    ("np.interp", "np.interp(x, xp, fp)", [inside((2, 3)), increasing(6), (6,)]),
    ("np.interp", "np.interp(x, XP, fp)", [inside(V), (6,)]),
    ("np.interp", "np.interp(x, xp, fp, -1.0, 2.0)", [inside(V, -4.0, 6.0), increasing(4), (4,)]),
    ("np.interp", "np.interp(x=x, xp=xp, fp=fp, left=l, right=r, period=None)",
     [inside(V, -4.0, 6.0), increasing(4), (4,), (), ()]),
    # np.polyval
    ("np.polyval", "np.polyval(p, x)", [(4,), V]),
    ("np.polyval", "np.polyval(p, x)", [(3,), ()]),
    ("np.polyval", "np.polyval(p=p, x=x)", [(2,), M]),
    ("np.polyval", "np.polyval((1.0, s, -2.0), x)", [(), V]),
    # np.var and np.std
    ("np.var", "np.var(a)", [M]),
    ("np.var", "np.var(a, 0)", [M]),
    ("np.var", "np.var(a, axis=-1, ddof=1)", [M]),
    ("np.var", "np.var(a, None, None, None, 1)", [V]),
    ("np.var", "np.var(a, axis=(0, 2))", [T]),
    ("np.var", "np.var(a, ddof=2, keepdims=True)", [M]),
    ("np.var", "np.var(a, -2, keepdims=True, correction=1)", [T]),
    ("np.std", "np.std(a)", [V]),
    ("np.std", "np.std(a, 1)", [M]),
    ("np.std", "np.std(a, axis=-1, ddof=1, keepdims=True)", [T]),
    ("np.std", "np.std(a=a, axis=None, dtype=None, out=None, ddof=1, keepdims=False)", [M]),
    ("np.std", "np.std(a, correction=1.5)", [V]),
    # np.average
    ("np.average", "np.average(a)", [M]),
    ("np.average", "np.average(a, 1)", [M]),
    ("np.average", "np.average(a, axis=0, weights=w)", [M, positive(3, 4)]),
    ("np.average", "np.average(a, -1, w)", [M, positive(4)]),
    ("np.average", "np.average(a, 1, w)", [T, positive(3)]),
    ("np.average", "np.average(a, weights=w)", [M, positive(3, 4)]),
    ("np.average", "np.average(a, 0, w, True)", [M, positive(3, 4)]),
    ("np.average", "np.average(a, axis=1, returned=True)", [M]),
    ("np.average", "np.average(a, returned=True)", [V]),
    ("np.average", "np.average(a=a, axis=-1, weights=w, returned=True, keepdims=True)", [M, positive(4)]),
    # np.ptp
    ("np.ptp", "np.ptp(a)", [M]),
    ("np.ptp", "np.ptp(a, 0)", [M]),
    ("np.ptp", "np.ptp(a, axis=-1, out=None, keepdims=True)", [T]),
    # np.cov and np.corrcoef
    ("np.cov", "np.cov(m)", [(3, 6)]),
    ("np.cov", "np.cov(m)", [(6,)]),
    ("np.cov", "np.cov(m, y)", [(6,), (6,)]),
    ("np.cov", "np.cov(m, y)", [(2, 6), (6,)]),
    ("np.cov", "np.cov(m, rowvar=False)", [(6, 3)]),
    ("np.cov", "np.cov(m, y, False)", [(6, 2), (6, 2)]),
    ("np.cov", "np.cov(m, bias=True)", [(3, 6)]),
    ("np.cov", "np.cov(m, None, True, False, 2)", [(3, 6)]),
    ("np.cov", "np.cov(m=m, y=None, rowvar=True, bias=False, ddof=0, fweights=None, aweights=None)",
     [(2, 5)]),
    ("np.corrcoef", "np.corrcoef(m)", [(3, 6)]),
    ("np.corrcoef", "np.corrcoef(x, y)", [(6,), (6,)]),
    ("np.corrcoef", "np.corrcoef(m, rowvar=False)", [(6, 3)]),
    ("np.corrcoef", "np.corrcoef(x=m, y=None, rowvar=True)", [(2, 5)]),
    # np.trapezoid
    ("np.trapezoid", "np.trapezoid(y)", [V]),
    ("np.trapezoid", "np.trapezoid(y, x)", [V, increasing(5)]),
    ("np.trapezoid", "np.trapezoid(y, dx=0.5)", [M]),
    ("np.trapezoid", "np.trapezoid(y, x, 1.0, 0)", [(5, 3), increasing(5)]),
    ("np.trapezoid", "np.trapezoid(y=y, x=None, dx=d, axis=-2)", [T, ()]),
    ("np.trapezoid", "np.trapezoid(y, x, axis=-1)", [M, lambda rng: np.cumsum(rng.uniform(0.5, 1.0, M), 1)]),
    # np.clip
    ("np.clip", "np.clip(a, -0.5, 0.5)", [M]),
    ("np.clip", "np.clip(a, a_min=-0.5, a_max=0.5)", [M]),
    ("np.clip", "np.clip(a, min=-0.5, max=0.5)", [M]),
    ("np.clip", "np.clip(a, None, 0.5)", [M]),
    ("np.clip", "np.clip(a, max=0.5)", [V]),
    ("np.clip", "np.clip(a, -0.5, a_max=None)", [V]),
    ("np.clip", "np.clip(a, lo, hi)", [M, (4,), lambda rng: rng.uniform(1.0, 2.0, (3, 1))]),
    ("np.clip", "np.clip(a, 0.0, 1.0)", [lambda rng: float(rng.uniform(0.1, 0.9))]),
    # np.linspace
    ("np.linspace", "np.linspace(s, t)", [(), ()]),
    ("np.linspace", "np.linspace(s, t, 7)", [(), ()]),
    ("np.linspace", "np.linspace(s, t, num=5, endpoint=False)", [(), ()]),
    ("np.linspace", "np.linspace(s, t, 4, True, True)", [(), ()]),
    ("np.linspace", "np.linspace(a, b, 3)", [(2,), (2,)]),
    ("np.linspace", "np.linspace(a, b, 4, axis=-1)", [(2,), (2,)]),
    ("np.linspace", "np.linspace(s, t, 1)", [(), ()]),
    ("np.linspace", "np.linspace(start=s, stop=t, num=3, endpoint=True, retstep=False, dtype=np.float64,"
     " axis=0)", [(), ()]),
    # np.sinc and angle conversions
    ("np.sinc", "np.sinc(a)", [M]),
    ("np.sinc", "np.sinc(a)", [with_zero]),
    ("np.sinc", "np.sinc(x=s)", [()]),
    ("np.deg2rad", "np.deg2rad(a)", [M]),
    ("np.radians", "np.radians(s)", [()]),
    ("np.rad2deg", "np.rad2deg(a)", [V]),
    ("np.degrees", "np.degrees(a, out=None)", [M]),
    # np.nan_to_num
    ("np.nan_to_num", "np.nan_to_num(a)", [special]),
    ("np.nan_to_num", "np.nan_to_num(a, nan=1.5, posinf=9.0, neginf=-9.0)", [special]),
    ("np.nan_to_num", "np.nan_to_num(a, True, s, t, u)", [special, (), (), ()]),
    ("np.nan_to_num", "np.nan_to_num(SPECIAL, True, s, t, u)", [(), (), ()]),
    ("np.nan_to_num", "np.nan_to_num(x=a, copy=True)", [M]),
    # np.convolve
    ("np.convolve", "np.convolve(a, v)", [(5,), (3,)]),
    ("np.convolve", "np.convolve(a, v)", [(3,), (5,)]),
    ("np.convolve", "np.convolve(a, v, 'same')", [(5,), (4,)]),
    ("np.convolve", "np.convolve(a, v, mode='same')", [(4,), (7,)]),
    ("np.convolve", "np.convolve(a, v, mode='valid')", [(6,), (3,)]),
    ("np.convolve", "np.convolve(a=a, v=v, mode='valid')", [(2,), (5,)]),
]
# finite differences cannot step from nan or inf: these are checked on their values
VALUE_ONLY = {"np.nan_to_num(a)", "np.nan_to_num(a, nan=1.5, posinf=9.0, neginf=-9.0)",
              "np.nan_to_num(a, True, s, t, u)"}
SECOND_ORDER = {"np.sinc(a)", "np.interp(x, xp, fp)", "np.var(a, axis=-1, ddof=1)", "np.linspace(s, t, 7)",
                "np.pad(a, 1, 'edge')", "np.convolve(a, v, mode='same')", "np.cov(m, y)"}


def parameters(call):
    """The names a call reads, in order of appearance: its parameters, whose values CASES lists."""
    names = [n for n in ast.walk(ast.parse(call)) if isinstance(n, ast.Name) and n.id not in ("np", "XP", "SPECIAL")]
    return ", ".join(dict.fromkeys(n.id for n in sorted(names, key=lambda n: n.col_offset)))


def _module(name, calls):
    """Write ``def case_k(args): return call`` for each call into a module and import it."""
    lines = ["import numpy as np", "XP = np.linspace(-2.0, 4.0, 6)",
             "SPECIAL = np.array([[1.0, np.nan, -0.5], [np.inf, 2.0, -np.inf]])"]
    for k, call in enumerate(calls):
        lines.append(f"def case_{k}({parameters(call)}):\n    return {call}")
    folder = tempfile.mkdtemp(prefix="sstad_composites_")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)     # sstad reads it until the end
    path = os.path.join(folder, name + ".py")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


MODULE = _module("composite_calls", [call for _, call, _ in CASES])


def arguments(specs, seed):
    rng = np.random.default_rng(seed)
    out = []
    for spec in specs:
        if callable(spec):
            out.append(spec(rng))
        elif spec == ():
            out.append(float(rng.uniform(-1.5, 1.5)))
        else:
            out.append(rng.normal(size=spec))
    return tuple(out)


def check(k, backend):
    function, call, specs = CASES[k]
    fn = getattr(MODULE, f"case_{k}")
    args = arguments(specs, seed=k)
    expected = fn(*args)
    got = sstad.jit(fn, backend=backend)(*args)
    for e, g in zip(*(x if isinstance(x, (tuple, list)) else (x,) for x in (expected, got))):
        assert np.shape(g) == np.shape(e) and np.result_type(g) == np.result_type(e), (call, g, e)
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12, err_msg=call)
    if call not in VALUE_ONLY:
        check_grads(fn, args, order=2 if call in SECOND_ORDER else 1, backend=backend)


IDS = [f"{k}:{call}" for k, (_, call, _) in enumerate(CASES)]
FLOAT32 = ["np.var(a, 0, ddof=1)", "np.std(a)", "np.nan_to_num(a)", "np.clip(a, min=-0.5, max=0.5)",
           "np.deg2rad(a)", "np.average(a, 0, a * a)", "np.interp(a[:, 0], XP, XP * 2.0)", "np.pad(a, 1, 'edge')",
           "np.cov(a)", "np.sinc(a)", "np.diff(a, axis=0, prepend=0.0)", "np.diff(a)", "np.kron(a, a)",
           "np.convolve(a[0], a[1])", "np.linspace(a[0], a[1], 3)", "np.trapezoid(a)", "np.ptp(a, 1)",
           "np.polyval(a[0], a)", "np.rot90(a)"]
FLOAT32_MODULE = _module("composite_float32", FLOAT32)


@pytest.mark.parametrize("k", range(len(FLOAT32)), ids=FLOAT32)
def test_float32_stays_float32_where_numpy_keeps_it(k):
    fn = getattr(FLOAT32_MODULE, f"case_{k}")
    a = np.random.default_rng(k).normal(size=(3, 4)).astype(np.float32)
    expected, got = fn(a), sstad.jit(fn, backend="python")(a)
    assert np.result_type(got) == np.result_type(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_composite_python(k):
    check(k, "python")


@pytest.mark.slow
@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_composite_numba(k):
    check(k, "numba")


# --- refusals: a composite's `raise` on compile-time values, reported at the user's call ---
ERRORS = [
    ("np.pad(a, 1, mode='mean')", [M], UnsupportedSyntaxError, "np.pad: mode='mean' is not supported"),
    ("np.pad(a, 1, 'linear_ramp')", [M], UnsupportedSyntaxError, "mode='linear_ramp'"),
    ("np.convolve(a, b, mode='middle')", [V, V], SstadTypeError, "mode must be 'full', 'same' or 'valid'"),
    ("np.convolve(a, b)", [M, V], SstadTypeError, "a and v must be 1-d"),
    ("np.diff(a, -1)", [V], SstadTypeError, "order must be non-negative but got -1"),
    ("np.diff(a, axis=2)", [M], SstadTypeError, "np.diff: axis 2 is out of bounds for an array of dimension 2"),
    ("np.diff(a, axis=-3)", [M], SstadTypeError, "axis -3 is out of bounds"),
    ("np.rot90(a, axes=(0, 0))", [M], SstadTypeError, "axes must be different"),
    ("np.rot90(a, axes=(0, 1, 2))", [T], SstadTypeError, "len(axes) must be 2"),
    ("np.clip(a, 0.0, 1.0, a)", [M], UnsupportedSyntaxError, "np.clip: out= is not supported"),
    ("np.clip(a, -1.0, max=1.0, a_max=2.0)", [M], SstadTypeError, "not both"),
    ("np.var(a, out=b)", [M, ()], UnsupportedSyntaxError, "np.var: out= is not supported"),
    ("np.std(a, dtype=np.float32)", [M], UnsupportedSyntaxError, "np.std: dtype= is not supported"),
    ("np.var(a, ddof=1, correction=1)", [M], SstadTypeError, "ddof and correction"),
    ("np.average(a, weights=w)", [M, (4,)], SstadTypeError, "axis must be specified"),
    ("np.average(a, 0, w)", [T, (2, 3)], SstadTypeError, "1D weights expected"),
    ("np.interp(x, xp, fp, period=1.0)", [V, V, V], UnsupportedSyntaxError, "period= is not supported"),
    ("np.nan_to_num(a, copy=False)", [M], UnsupportedSyntaxError, "copy=False (in place) is not supported"),
    ("np.deg2rad(a, a)", [M], UnsupportedSyntaxError, "np.deg2rad: out= is not supported"),
    ("np.cov(m, fweights=w)", [M, (4,)], SstadTypeError, "fweights must be integer"),
    ("np.cov(m)", [T], SstadTypeError, "at most 2 dimensions"),
    ("np.linspace(s, t, 5, dtype=np.int64)", [(), ()], UnsupportedSyntaxError, "only float dtypes"),
    ("np.array_split(a, 0)", [V], SstadTypeError, "number of sections must be larger than 0"),
    ("np.vsplit(a, 2)", [V], SstadTypeError, "np.vsplit only works on arrays of 2 or more dimensions"),
    ("np.outer(a, b, out=c)", [V, V, M], UnsupportedSyntaxError, "np.outer: out= is not supported"),
    ("np.atleast_3d(a, b)", [V, V], SstadTypeError, "takes 1 positional arguments but 2 were given"),
    ("np.squeeze(a)", [M], SstadTypeError, "np.squeeze without `axis` is not supported"),
    ("np.diff(a, n)", [V, lambda rng: 1], UnsupportedSyntaxError, "cannot check this call at compile time"),
]
ERROR_MODULE = _module("composite_refusals", [call for call, *_ in ERRORS])


@pytest.mark.parametrize("k", range(len(ERRORS)), ids=[e[0] for e in ERRORS])
def test_refusal_names_the_users_call(k):
    call, specs, kind, message = ERRORS[k]
    fn = getattr(ERROR_MODULE, f"case_{k}")
    with pytest.raises(kind) as info:
        sstad.jit(fn, backend="python")(*arguments(specs, seed=k))
    assert message in info.value.message
    assert info.value.loc.file == fn.__code__.co_filename
    assert info.value.loc.line == fn.__code__.co_firstlineno + 1          # the line of the call


# --- `raise` in user code -----------------------------------------------------------
def needs_a_matrix(x):
    if x.ndim != 2:
        raise ValueError(f"needs a matrix, got {x.ndim} dimensions")
    return np.sum(x)


def checks_a_mode(x, mode="sum"):
    if mode != "sum" and mode != "max":
        raise NotImplementedError(f"mode={mode!r}")
    return np.sum(x) if mode == "sum" else np.max(x)


def raises_on_data(x):
    if np.sum(x) > 0.0:
        raise ValueError("positive")
    return x


def test_raise_on_compile_time_values():
    assert sstad.jit(needs_a_matrix, backend="python")(np.ones((2, 3))) == 6.0
    with pytest.raises(SstadTypeError) as info:
        sstad.jit(needs_a_matrix, backend="python")(np.ones(3))
    assert info.value.message == "ValueError: needs a matrix, got 1 dimensions"
    assert info.value.loc.line == needs_a_matrix.__code__.co_firstlineno + 2      # the raise
    assert sstad.jit(checks_a_mode, backend="python")(np.arange(3.0), "max") == 2.0
    with pytest.raises(UnsupportedSyntaxError, match="NotImplementedError: mode='min'"):
        sstad.jit(checks_a_mode, backend="python")(np.arange(3.0), "min")


def test_raise_on_run_time_values_raises_at_run_time():
    with pytest.raises(ValueError, match="positive"):
        sstad.jit(raises_on_data, backend="python")(np.ones(3))
    assert sstad.jit(raises_on_data, backend="python")(-np.ones(3)).tolist() == [-1.0] * 3
