"""Elementwise primitives: operators, NumPy ufuncs, the math module, scalar builtins."""
import builtins
import math
import operator

import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime.primitive import (NUMPY_FUNCTIONS, Primitive, by_prototype, dtype_text, emit_binary,
                                     emit_call, emit_unary, numpy_primitive, text_of)

UFUNCS = """abs sign negative positive exp expm1 exp2 log log1p log2 log10 sqrt cbrt square
reciprocal sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh floor ceil
trunc rint isnan isinf isfinite logical_not maximum minimum fmax fmin arctan2 hypot logaddexp
logical_and logical_or logical_xor power add subtract multiply divide true_divide floor_divide
mod remainder fmod copysign heaviside less less_equal greater greater_equal equal not_equal
where clip round""".split()

def _where_emit(args, params, avals):
    """On scalars, a conditional expression: Numba's np.where would make a 0-d array."""
    layout = params.get("layout")
    if layout is not None and all(isinstance(a, A.Scalar) for a in avals) and not layout[1]:
        c, x, y = (text_of(p, args) for p in layout[0])
        return f"{x} if {c} else {y}"
    return emit_call("np.where")(args, params, avals)


for _name in UFUNCS:
    numpy_primitive(_name, getattr(np, _name), elementwise=True,
                    emit=_where_emit if _name == "where" else None)
NUMPY_FUNCTIONS[id(np.absolute)] = "abs"
NUMPY_FUNCTIONS[id(np.around)] = "round"

OPERATORS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
             "mod": "%", "pow": "**", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
             "eq": "==", "ne": "!=", "and_": "&", "or_": "|", "xor": "^"}
# NumPy's booleans add as ``|`` and multiply as ``&``; an element of a fused loop (a
# Python bool to Numba) would count them as integers instead
LOGICAL = {"add": "|", "mul": "&"}


def _boolean_emit(symbol, logical):
    plain, on_bools = emit_binary(symbol), emit_binary(logical)

    def emit(args, params, avals):
        numpy_bools = all(a.dtype.kind == "b" and not getattr(a, "weak", False) for a in avals)
        return (on_bools if numpy_bools else plain)(args, params, avals)
    return emit


for _name, _symbol in OPERATORS.items():
    _fn = getattr(operator, _name)
    _emit = _boolean_emit(_symbol, LOGICAL[_name]) if _name in LOGICAL else emit_binary(_symbol)
    Primitive("op." + _name, _fn, by_prototype(_fn), _emit, elementwise=True)
Primitive("op.matmul", operator.matmul, by_prototype(operator.matmul), emit_binary("@"))
for _name, _symbol in {"neg": "-", "pos": "+", "invert": "~"}.items():
    _fn = getattr(operator, _name)
    Primitive("op." + _name, _fn, by_prototype(_fn), emit_unary(_symbol), elementwise=True)


def _scalar_only(name, out):
    def infer(avals, params):
        if not all(isinstance(a, A.Scalar) for a in avals):
            raise TypeError(f"{name} takes scalars, not arrays: use the NumPy function")
        return out(avals)
    return infer


Primitive("op.not_", operator.not_, _scalar_only("not", lambda a: A.BOOL), emit_unary("not "))
Primitive("op.truth", bool, _scalar_only("a condition", lambda a: A.BOOL), emit_call("bool"))

# --- the math module: scalars in, Python scalars out -------------------------------
MATH_FLOAT = """sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp expm1 log
log1p log2 log10 sqrt fabs erf erfc gamma lgamma atan2 hypot pow copysign fmod degrees
radians""".split()
MATH_INT = "floor ceil trunc".split()
MATH_BOOL = "isnan isinf isfinite".split()
for _kind, _names, _out in (("f", MATH_FLOAT, A.Scalar(np.dtype(np.float64), True)),
                            ("i", MATH_INT, A.Scalar(np.dtype(np.int64), True)),
                            ("b", MATH_BOOL, A.Scalar(np.dtype(np.bool_), True))):
    for _name in _names:
        _fn = getattr(math, _name)
        Primitive("math." + _name, _fn, _scalar_only("math." + _name, lambda a, o=_out: o),
                  emit_call("math." + _name))
        NUMPY_FUNCTIONS[id(_fn)] = "math." + _name

# --- builtins on scalars ------------------------------------------------------------
_WEAK = {float: np.float64, int: np.int64, bool: np.bool_}
for _fn in (float, int, bool):
    Primitive("builtin." + _fn.__name__, _fn,
              _scalar_only(_fn.__name__, lambda a, t=_WEAK[_fn]: A.Scalar(np.dtype(t), True)),
              emit_call(_fn.__name__))


def _minmax_infer(avals, params):
    out = avals[0]
    for a in avals[1:]:
        out = A.join(out, a)
    if not isinstance(out, A.Scalar):
        raise TypeError("min/max of several values takes scalars: use np.minimum/np.maximum")
    return out


for _fn in (builtins.min, builtins.max):
    Primitive("builtin." + _fn.__name__, _fn, _minmax_infer, emit_call(_fn.__name__))


def _abs_type(avals):
    """abs of a complex number is a float (of the same weakness)."""
    a = avals[0]
    return A.Scalar(np.abs(np.zeros((), a.dtype)).dtype, a.weak) if a.dtype.kind == "c" else a


Primitive("builtin.abs", builtins.abs, _scalar_only("abs", _abs_type), emit_call("abs"))


def _astype_infer(avals, params):
    dtype = np.dtype(params["dtype"])
    a = avals[0]
    return A.Array(dtype, a.ndim) if isinstance(a, A.Array) else A.Scalar(dtype)


def _astype_emit(args, params, avals):
    dtype = np.dtype(params["dtype"])
    x = args[0]
    if avals[0].dtype.kind == "c" and dtype.kind != "c":
        # NumPy keeps the real part (with a warning); Numba refuses the cast.  A complex
        # cotangent reaching a real argument is cast so: its real part is the gradient.
        x = f"{x}.real"
    if isinstance(avals[0], A.Array):
        return f"{x}.astype({dtype_text(dtype)})"
    return f"{dtype_text(dtype)}({x})"


# ``astype``, and the casts the compiler inserts to keep code type-stable.
Primitive("astype", lambda x, dtype: np.asarray(x).astype(dtype)[()], _astype_infer, _astype_emit)

# --- in-place arithmetic on arrays: ``x += v`` writes into x (aliases see it) --------
INPLACE = {"add": "+=", "sub": "-=", "mul": "*=", "truediv": "/=", "floordiv": "//=",
           "mod": "%=", "pow": "**="}


def _inplace_infer(op):
    def infer(avals, params):
        x = avals[0]
        out = by_prototype(getattr(operator, op))(avals, params)
        if not isinstance(out, A.Array) or out.ndim > x.ndim:
            raise TypeError(f"the result of {op} does not fit the array updated in place")
        if not np.can_cast(out.dtype, x.dtype, casting="same_kind"):    # NumPy's rule for x op= v
            raise TypeError(f"cannot store {out.dtype} results in a {x.dtype} array in place")
        return x
    return infer


for _name, _symbol in INPLACE.items():
    Primitive("iop." + _name, getattr(operator, "i" + _name), _inplace_infer(_name),
              lambda args, params, avals, s=_symbol: f"{args[0]} {s} {args[1]}", mutates=True)


# --- reverse-mode rules ----------------------------------------------------------
# Each rule gets the primal arguments, the primal result ``out`` and its cotangent
# ``dout`` and returns one cotangent per argument.  Binary rules undo broadcasting.
# Conventions at kinks (docs/ad.md): d|x|/dx = 0 at 0, ties in maximum/minimum share
# the cotangent equally, sqrt'(0) = inf.
from sstad.runtime.broadcast import unbroadcast  # noqa: E402
from sstad.runtime.primitive import declare, defvjp, nondiff  # noqa: E402

nondiff("sign", "floor", "ceil", "trunc", "rint", "round", "op.floordiv", "floor_divide",
        "heaviside", "math.floor", "math.ceil", "math.trunc")
declare("sign", smooth_at_complex=True)


@defvjp("op.add", "add")
def _(x, y, out, dout):
    return (unbroadcast(dout, x), unbroadcast(dout, y))


@defvjp("op.sub", "subtract")
def _(x, y, out, dout):
    return (unbroadcast(dout, x), unbroadcast(-dout, y))


@defvjp("op.mul", "multiply")
def _(x, y, out, dout):
    return (unbroadcast(dout * y, x), unbroadcast(dout * x, y))


@defvjp("op.truediv", "divide", "true_divide")
def _(x, y, out, dout):
    return (unbroadcast(dout / y, x), unbroadcast(-dout * out / y, y))


@defvjp("op.mod", "mod", "remainder", "fmod", "math.fmod")
def _(x, y, out, dout):
    return (unbroadcast(dout, x), unbroadcast(-dout * ((x - out) / y), y))


@defvjp("op.pow", "power", "math.pow")
def _(x, y, out, dout):
    # y * x ** (y - 1) as y * out / x, which never raises 0.0 to a negative power;
    # at x == 0 the derivative is 1 for y == 1 and taken as 0 otherwise.
    at_zero = x == 0.0
    dx = np.where(at_zero, np.where(y == 1.0, dout, 0.0), dout * y * out / np.where(at_zero, 1.0, x))
    if np.atleast_1d(x).dtype.kind == "c":     # the principal logarithm, as z ** y takes it
        log_x = np.log(np.where(at_zero, 1.0, x))
    else:
        log_x = np.log(np.where(x > 0, x, 1.0))
    return (unbroadcast(dx, x), unbroadcast(dout * out * log_x, y))


@defvjp("op.neg", "negative")
def _(x, out, dout):
    return (-dout,)


@defvjp("op.pos", "positive", "builtin.float")
def _(x, out, dout):
    return (dout,)


@defvjp("abs", "builtin.abs", "math.fabs")
def _(x, out, dout):
    if np.atleast_1d(x).dtype.kind == "c":
        # |z| is not holomorphic: its cotangent is conj(z) / |z| (= |z| / z), not sign(z)
        return (dout * out / x,)
    return (dout * np.sign(x),)


@defvjp("exp")
def _(x, out, dout):
    return (dout * out,)


@defvjp("math.exp")
def _(x, out, dout):
    return (dout * out,)


@defvjp("exp2")
def _(x, out, dout):
    return (dout * out * 0.6931471805599453,)


@defvjp("expm1", "math.expm1")
def _(x, out, dout):
    return (dout * (out + 1.0),)


@defvjp("log", "math.log")
def _(x, out, dout):
    return (dout / x,)


@defvjp("log2", "math.log2")
def _(x, out, dout):
    return (dout / (x * 0.6931471805599453),)


@defvjp("log10", "math.log10")
def _(x, out, dout):
    return (dout / (x * 2.302585092994046),)


@defvjp("log1p", "math.log1p")
def _(x, out, dout):
    return (dout / (1.0 + x),)


@defvjp("sqrt", "math.sqrt")
def _(x, out, dout):
    return (dout * 0.5 / out,)


@defvjp("cbrt")
def _(x, out, dout):
    return (dout / (3.0 * out * out),)


@defvjp("square")
def _(x, out, dout):
    return (dout * 2.0 * x,)


@defvjp("reciprocal")
def _(x, out, dout):
    return (-dout * out * out,)


@defvjp("sin", "math.sin")
def _(x, out, dout):
    return (dout * np.cos(x),)


@defvjp("cos", "math.cos")
def _(x, out, dout):
    return (-dout * np.sin(x),)


@defvjp("tan", "math.tan")
def _(x, out, dout):
    return (dout * (1.0 + out * out),)


@defvjp("arcsin", "math.asin")
def _(x, out, dout):
    return (dout / np.sqrt(1.0 - x * x),)


@defvjp("arccos", "math.acos")
def _(x, out, dout):
    return (-dout / np.sqrt(1.0 - x * x),)


@defvjp("arctan", "math.atan")
def _(x, out, dout):
    return (dout / (1.0 + x * x),)


@defvjp("sinh", "math.sinh")
def _(x, out, dout):
    return (dout * np.cosh(x),)


@defvjp("cosh", "math.cosh")
def _(x, out, dout):
    return (dout * np.sinh(x),)


@defvjp("tanh", "math.tanh")
def _(x, out, dout):
    return (dout * (1.0 - out * out),)


@defvjp("arcsinh", "math.asinh")
def _(x, out, dout):
    return (dout / np.sqrt(x * x + 1.0),)


@defvjp("arccosh", "math.acosh")
def _(x, out, dout):
    return (dout / np.sqrt(x * x - 1.0),)


@defvjp("arctanh", "math.atanh")
def _(x, out, dout):
    return (dout / (1.0 - x * x),)


@defvjp("math.erf")
def _(x, out, dout):
    return (dout * 1.1283791670955126 * math.exp(-x * x),)     # 2 / sqrt(pi)


@defvjp("math.erfc")
def _(x, out, dout):
    return (-dout * 1.1283791670955126 * math.exp(-x * x),)


@defvjp("arctan2", "math.atan2")
def _(y, x, out, dout):
    r2 = x * x + y * y
    return (unbroadcast(dout * x / r2, y), unbroadcast(-dout * y / r2, x))


@defvjp("hypot", "math.hypot")
def _(x, y, out, dout):
    safe = out + (out == 0.0)          # at (0, 0): derivative 0 (a subgradient), not 0 / 0
    return (unbroadcast(dout * x / safe, x), unbroadcast(dout * y / safe, y))


@defvjp("copysign", "math.copysign")
def _(x1, x2, out, dout):
    # |x1| with x2's sign: +-1 times dout for x1 (0 at x1 == 0, as abs); a step in x2
    return (unbroadcast(dout * np.sign(x1) * np.sign(out), x1), None)


@defvjp("logaddexp")
def _(x, y, out, dout):
    # exp(x - out) is 0 / 0 where out is infinite (both -inf: a forward variable of a state
    # not yet reachable, as in CTC or an HMM in log space; or one +inf): logaddexp is the
    # maximum there, so its weights are np.maximum's, shared on a tie
    finite = np.isfinite(out)
    shift = np.where(finite, out, 0.0)
    wx = np.where(finite, np.exp(np.where(finite, x, 0.0) - shift), share(x > y, x == y, 1.0))
    wy = np.where(finite, np.exp(np.where(finite, y, 0.0) - shift), share(y > x, x == y, 1.0))
    return (unbroadcast(dout * wx, x), unbroadcast(dout * wy, y))


def share(first_wins, tie, dout):
    """The first argument's part of ``dout``: all if it won, half on a tie."""
    return np.where(first_wins, dout, np.where(tie, 0.5 * dout, 0.0))


@defvjp("maximum", "fmax", "builtin.max")
def _(x, y, out, dout):
    tie = x == y
    return (unbroadcast(share(x > y, tie, dout), x), unbroadcast(share(y > x, tie, dout), y))


@defvjp("minimum", "fmin", "builtin.min")
def _(x, y, out, dout):
    tie = x == y
    return (unbroadcast(share(x < y, tie, dout), x), unbroadcast(share(y < x, tie, dout), y))


@defvjp("where")
def _(c, x, y, out, dout):
    return (None, unbroadcast(np.where(c, dout, 0.0), x), unbroadcast(np.where(c, 0.0, dout), y))


@defvjp("clip")
def _(x, lo, hi, out, dout):
    below, above = x < lo, x > hi
    inside = np.where(below, 0.0, np.where(above, 0.0, dout))
    return (unbroadcast(inside, x), unbroadcast(np.where(below, dout, 0.0), lo),
            unbroadcast(np.where(above, dout, 0.0), hi))



from sstad.runtime.primitive import lowering  # noqa: E402


@lowering("numba", "clip")
def _clip_emit(args, params, avals):
    """On scalars, min(max(...)): Numba's np.clip takes arrays only."""
    layout = params.get("layout")
    if layout is not None and not layout[1] and len(layout[0]) == 3 and all(isinstance(a, A.Scalar) for a in avals):
        x, lo, hi = (text_of(p, args) for p in layout[0])
        return f"min(max({x}, {lo}), {hi})"
    return emit_call("np.clip")(args, params, avals)


@lowering("numba", "heaviside")
def _heaviside_emit(args, params, avals):
    """Numba has no np.heaviside: 0 below zero, ``x2`` at zero, 1 above, NaN at NaN."""
    layout = params.get("layout")
    if layout is None or layout[1] or len(layout[0]) != 2:
        return emit_call("np.heaviside")(args, params, avals)
    x1, x2 = (text_of(p, args) for p in layout[0])
    if all(isinstance(a, A.Scalar) for a in avals):
        return f"(1.0 if {x1} > 0 else 0.0 if {x1} < 0 else {x2} * 1.0 if {x1} == 0 else math.nan)"
    return f"np.where({x1} > 0, 1.0, np.where({x1} < 0, 0.0, np.where({x1} == 0, {x2} * 1.0, np.nan)))"


from sstad.runtime.primitive import declare  # noqa: E402

declare("astype", "op.pos", "positive", may_alias=True)   # may hand the argument back
declare("astype", "op.neg", "negative", "op.pos", "positive", "builtin.float", "op.matmul", multilinear=True)
# neutral elements: (the constant, the argument positions where it leaves the other operand)
declare("op.matmul", superlinear=True)
declare("op.mul", identity=(1, (0, 1)))
declare("op.add", identity=(0, (0, 1)))
declare("op.sub", identity=(0, (1,)))
declare("op.truediv", identity=(1, (1,)))
# IEEE arithmetic: the same operation on scalars as in Numba's array loops (not exp, tanh)
declare("op.add", "op.sub", "op.mul", "op.truediv", "op.neg", per_element="value")
declare(*"""exp expm1 exp2 log log1p log2 log10 cbrt sin cos tan arcsin arccos arctan sinh cosh tanh
arcsinh arccosh arctanh power arctan2 hypot logaddexp""".split(),
        *("math." + n for n in MATH_FLOAT if n not in ("sqrt", "fabs", "copysign", "fmod", "degrees", "radians")),
        transcendental=True)
declare("iop.add", "iop.sub", "iop.mul", "iop.truediv", per_element="update")
