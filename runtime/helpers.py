"""Functions the emitted code calls as ``rt.NAME`` where Numba lacks a NumPy feature.

Each is plain NumPy (what the python backend runs) with a Numba overload of the same
function (what compiled code runs), so one emitted text serves both backends.
"""
import builtins

import numpy as np
from numba import njit
from numba.extending import overload, register_jitable
from numba.np.numpy_support import as_dtype
from numba.np.unsafe.ndarray import to_fixed_tuple

AXIS_REDUCTIONS = "max min amax amin prod mean var std any all".split()
__all__ = [f"{name}_axis" for name in AXIS_REDUCTIONS] + ["check", "refuse_unless"]


@register_jitable
def check(condition, message):
    """``assert condition, message`` in compiled code (an expression: it returns True)."""
    if not condition:
        raise AssertionError(message)
    return True


# What sstad's own checks raise at run time, at the user's call (see refuse_unless):
# sstad.errors installs its RunTimeRefusal here (the runtime imports no compiler).
REFUSAL = AssertionError


@register_jitable
def refuse_unless(condition, message, file, line, col):
    """A check inside a rule or composite that only the run time can decide (a shape):
    raises ``REFUSAL(message, file, line, col)``, naming the user's call."""
    if not condition:
        raise REFUSAL(message, file, line, col)
    return True


def _raising(kind):
    """``check`` that raises ``kind`` (Numba raises only a class it knows when compiling)."""
    def check_kind(condition, message):
        if not condition:
            raise kind(message)
        return True
    check_kind.__name__ = check_kind.__qualname__ = "check_" + kind.__name__
    return register_jitable(check_kind)


def _takes_a_message(kind):
    try:
        kind("")
    except TypeError:                  # UnicodeDecodeError & co. need more than a message
        return False
    return True


# The exceptions a compiled ``raise E("...")`` may raise: Python's own, as rt.check_E
RAISABLE = {name: kind for name, kind in vars(builtins).items()
            if isinstance(kind, type) and issubclass(kind, Exception) and _takes_a_message(kind)}
for _name, _kind in RAISABLE.items():
    globals()["check_" + _name] = _raising(_kind)
__all__ += ["check_" + name for name in RAISABLE]


@njit
def as_cube(x, axis):
    """``x`` as a contiguous (before, along, after) array around ``axis``, under Numba:
    how the helpers below work along any one axis of any rank."""
    shape = np.array(x.shape)
    outer = 1
    for i in range(axis):
        outer *= shape[i]
    inner = 1
    for i in range(axis + 1, x.ndim):
        inner *= shape[i]
    return np.ascontiguousarray(x).reshape((outer, shape[axis], inner))


def _reduce_along(reduce1d, out_dtype, ndim):
    """Numba implementation of ``reduce1d`` along one axis of an ``ndim``-array."""
    kept = ndim - 1

    def impl(x, axis):
        shape = np.array(x.shape)
        cube = as_cube(x, axis)
        outer, n, inner = cube.shape
        out = np.empty((outer, inner), out_dtype)
        line = np.empty(n, x.dtype)
        for o in range(outer):
            for i in range(inner):
                for j in range(n):
                    line[j] = cube[o, j, i]
                out[o, i] = reduce1d(line)
        out_shape = np.empty(kept, np.int64)
        k = 0
        for i in range(ndim):
            if i != axis:
                out_shape[k] = shape[i]
                k += 1
        return out.reshape(to_fixed_tuple(out_shape, kept))
    return impl


def _define(name):
    reduce_np = getattr(np, name)

    def helper(x, axis):
        return reduce_np(x, axis=axis)
    helper.__name__ = helper.__qualname__ = f"{name}_axis"
    helper.__doc__ = f"``np.{name}(x, axis=axis)``, also under Numba."

    reduce1d = njit(lambda line: reduce_np(line))

    @overload(helper)
    def _numba_helper(x, axis):
        out_dtype = reduce_np(np.ones(1, as_dtype(x.dtype))).dtype.type
        if x.ndim == 1:
            return lambda x, axis: reduce1d(x)
        return _reduce_along(reduce1d, out_dtype, x.ndim)
    return helper


for _name in AXIS_REDUCTIONS:
    globals()[f"{_name}_axis"] = _define(_name)


def cumprod_axis(x, axis):
    """``np.cumprod(x, axis=axis)``, also under Numba (whose np.cumprod takes no axis)."""
    return np.cumprod(x, axis=axis)


@overload(cumprod_axis)
def _cumprod_axis_numba(x, axis):
    def impl(x, axis):
        cube = as_cube(x, axis)
        outer, n, inner = cube.shape
        out = np.empty_like(cube)
        for o in range(outer):
            for i in range(inner):
                running = cube[o, 0, i] * 0 + 1
                for j in range(n):
                    running = running * cube[o, j, i]
                    out[o, j, i] = running
        return out.reshape(x.shape)
    return impl


__all__.append("cumprod_axis")


def repeat_axis(x, repeats, axis):
    """``np.repeat(x, repeats, axis)``, also under Numba (whose np.repeat flattens): one
    number of repeats, or one per element along ``axis``."""
    return np.repeat(x, repeats, axis)


@overload(repeat_axis)
def _repeat_axis_numba(x, repeats, axis):
    ndim = x.ndim

    def impl(x, repeats, axis):
        shape = np.array(x.shape)
        cube = as_cube(x, axis)
        outer, n, inner = cube.shape
        counts = np.broadcast_to(np.asarray(repeats), (n,))
        if n and np.min(counts) < 0:
            raise ValueError("negative dimensions are not allowed")
        total = np.sum(counts)
        out = np.empty((outer, total, inner), x.dtype)
        j = 0
        for source in range(n):
            for _ in range(counts[source]):
                for o in range(outer):
                    for i in range(inner):
                        out[o, j, i] = cube[o, source, i]
                j += 1
        shape[axis] = total
        return out.reshape(to_fixed_tuple(shape, ndim))
    return impl


def roll_axes(x, shift, axis):
    """``np.roll(x, shift, axis)`` by tuples of shifts and axes of one length, also under
    Numba (whose np.roll takes one shift and no axis)."""
    return np.roll(x, shift, axis)


@overload(roll_axes)
def _roll_axes_numba(x, shift, axis):
    def impl(x, shift, axis):
        out = np.ascontiguousarray(x)
        for k in range(len(axis)):
            cube = as_cube(out, axis[k])
            outer, n, inner = cube.shape
            rolled = np.empty_like(cube)
            for j in range(n):
                target = (j + shift[k]) % n
                for o in range(outer):
                    for i in range(inner):
                        rolled[o, target, i] = cube[o, j, i]
            out = rolled.reshape(x.shape)
        return out
    return impl


__all__ += ["repeat_axis", "roll_axes"]


def sort_axis(x, axis):
    """``np.sort(x, axis=axis)``, also under Numba (whose sort takes 1-d arrays only)."""
    return np.sort(x, axis=axis)


def argsort_axis(x, axis):
    """``np.argsort(x, axis=axis)``, also under Numba."""
    return np.argsort(x, axis=axis)


def _sorted_lines(arg):
    def overload_it(x, axis):
        def impl(x, axis):
            cube = as_cube(x, axis)
            outer, n, inner = cube.shape
            out = np.empty((outer, n, inner), np.int64) if arg else np.empty_like(cube)
            line = np.empty(n, x.dtype)
            for o in range(outer):
                for i in range(inner):
                    for j in range(n):
                        line[j] = cube[o, j, i]
                    order = np.argsort(line)
                    for j in range(n):
                        if arg:
                            out[o, j, i] = order[j]
                        else:
                            out[o, j, i] = line[order[j]]
            return out.reshape(x.shape)
        return impl
    return overload_it


overload(sort_axis)(_sorted_lines(False))
overload(argsort_axis)(_sorted_lines(True))
__all__ += ["sort_axis", "argsort_axis"]


# --- `assert` --------------------------------------------------------------------------
from sstad.runtime import abstract as A  # noqa: E402
from sstad.runtime.primitive import Primitive, declare, literal, lowering  # noqa: E402

def _assert_emit(args, params, avals):
    if "error" in params:
        return f"rt.check_{params['error']}({args[0]}, {literal(params['message'])})"
    if "at" in params:
        file, line, col = params["at"]
        return f"rt.refuse_unless({args[0]}, {literal(params['message'])}, {file!r}, {line}, {col})"
    return f"rt.check({args[0]}, {literal(params['message'])})"


def _assert(condition, message, at=None, error=None):
    """``message`` and, where it is sstad's own check, the user's line ``at``; ``error``
    names the exception of a user's ``raise`` (one of RAISABLE's)."""
    if error is not None:
        return globals()["check_" + error](condition, message)
    return check(condition, message) if at is None else refuse_unless(condition, message, *at)


Primitive("builtin.assert", _assert, lambda avals, params: A.Scalar(np.dtype(np.bool_), weak=True), _assert_emit)
declare("builtin.assert", effect=True, nondiff=True, repeatable=True)     # kept, never moved, no derivative


# --- `print` ---------------------------------------------------------------------------
# params["args"]: one tuple of pieces per argument of the user's print: a string, or
# (Slot, conversion, format spec) for a run-time value (a number or an array).

def _piece_text(piece, args):
    """A piece as the text of an f-string."""
    if isinstance(piece, str):
        return piece.replace("{", "{{").replace("}", "}}")
    slot, conversion, spec = piece
    return "{" + args[slot] + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"


def _print_emit(args, params, avals):
    """Python's print, exactly: each argument an f-string of its pieces."""
    texts = []
    for pieces in params["args"]:
        if all(isinstance(p, str) for p in pieces):
            texts.append(repr("".join(pieces)))
        else:
            texts.append("f" + repr("".join(_piece_text(p, args) for p in pieces)))
    texts += [f"{k}={params[k]!r}" for k in ("sep", "end", "flush") if params.get(k) is not None]
    return f"(print({', '.join(texts)}) is None)"


def _print_emit_numba(args, params, avals):
    """Numba's print takes positional numbers, arrays and strings, spaced: format specs,
    conversions and sep=/end= are left out."""
    texts = []
    for pieces in params["args"]:
        for piece in pieces:
            if not isinstance(piece, str):
                texts.append(args[piece[0]])
            elif piece.strip():
                texts.append(repr(piece.strip()))
    return f"(print({', '.join(texts)}) is None)"


def _print(*values, args, sep=None, end=None, flush=None):
    convert = {None: lambda v: v, "s": str, "r": repr, "a": ascii}
    print(*("".join(p if isinstance(p, str) else format(convert[p[1]](values[p[0]]), p[2]) for p in pieces)
            for pieces in args), sep=sep, end=end, flush=bool(flush))
    return True


Primitive("builtin.print", _print, lambda avals, params: A.Scalar(np.dtype(np.bool_), weak=True), _print_emit)
declare("builtin.print", effect=True, nondiff=True, once=True)   # kept, never moved or repeated, no derivative
lowering("numba", "builtin.print")(_print_emit_numba)
