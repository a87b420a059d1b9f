"""Array creation: zeros, ones, full, arange, linspace, eye, array and the *_like family."""
import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime.containers import stacked_emit
from sstad.runtime.primitive import PRIMITIVES, Slot, dtype_text, emit_call, lowering, numpy_primitive, text_of

CREATION_FUNCTIONS = """zeros ones empty full zeros_like ones_like empty_like full_like arange
linspace eye identity array asarray""".split()

for _name in CREATION_FUNCTIONS:
    numpy_primitive(_name, getattr(np, _name))
lowering("numba", "array")(stacked_emit("np.array"))


def _like_numba(name):
    """Numba's np.*_like take no ``shape=`` and np.full_like fills with a number only: as
    the creation function of that shape (the array's own without one), an array to fill
    with broadcast to it, in the dtype NumPy gives the result; of a number, a number."""
    base = name[:-len("_like")]

    def emit(args, params, avals):
        (a, *rest), kw = params["layout"]
        named = dict(zip(("fill_value", "dtype", "order", "subok", "shape") if base == "full" else
                         ("dtype", "order", "subok", "shape"), rest), **kw)
        fill, shape, dtype = named.get("fill_value"), named.get("shape"), named.get("dtype")
        array_fill = isinstance(fill, Slot) and isinstance(avals[fill], A.Array)
        dtype = dtype_text(avals[a].dtype if dtype is None else dtype)
        if shape is None and not isinstance(avals[a], A.Array) and not array_fill:
            # of a number, a number (Numba would make a 0-d array the types do not expect)
            return f"{dtype}({'1' if base == 'ones' else '0' if fill is None else text_of(fill, args)})"
        if shape is None and not array_fill:
            return emit_call(f"np.{name}")(args, params, avals)
        shape = f"{text_of(a, args)}.shape" if shape is None else text_of(shape, args)
        if array_fill:
            return f"np.broadcast_to({text_of(fill, args)}, {shape}).astype({dtype})"
        return f"np.{base}({shape}, {'' if fill is None else text_of(fill, args) + ', '}{dtype})"
    return emit


for _name in ("zeros_like", "ones_like", "empty_like", "full_like"):
    lowering("numba", _name)(_like_numba(_name))


@lowering("numba", "full")
def _full_numba(args, params, avals):
    """Numba's np.full fills with a number only: an array to fill with is broadcast to the
    shape, then copied in the dtype NumPy gives the result."""
    (shape, fill, *rest), kw = params["layout"]
    dtype = rest[0] if rest else kw.get("dtype")
    if not isinstance(fill, Slot) or not isinstance(avals[fill], A.Array):
        return emit_call("np.full")(args, params, avals)
    dtype = dtype_text(avals[fill].dtype if dtype is None else dtype)
    return f"np.broadcast_to({text_of(fill, args)}, {text_of(shape, args)}).astype({dtype})"


@lowering("numba", "arange")
def _arange_numba(args, params, avals):
    """np.arange of a NumPy boolean counts it as 0 or 1; Numba takes integers only."""
    args = [f"np.int64({a})" if isinstance(v, A.Scalar) and v.dtype.kind == "b" else a for a, v in zip(args, avals)]
    return PRIMITIVES["arange"].emit(args, params, avals)


# --- reverse-mode rules ----------------------------------------------------------
from sstad.runtime.broadcast import unbroadcast  # noqa: E402
from sstad.runtime.primitive import defvjp, nondiff  # noqa: E402

# Their values do not depend on their arguments' values (only on shapes).
nondiff("zeros", "ones", "empty", "zeros_like", "ones_like", "empty_like", "eye", "identity",
        "arange")


@defvjp("full")
def _(shape, fill_value, out, dout, dtype=None):
    return (None, unbroadcast(dout, fill_value))


@defvjp("full_like")
def _(a, fill_value, out, dout, dtype=None, subok=True, shape=None):
    return (None, unbroadcast(dout, fill_value))


@defvjp("asarray")
def _(x, out, dout):
    return (dout,)


@defvjp("array")
def _(items, out, dout):
    """``np.array((a, b, c))`` of scalars: each gets its element of ``dout``."""
    pieces = ()
    for k, item in enumerate(items):
        pieces = pieces + (dout[k],)
    return (pieces,)


from sstad.runtime.primitive import declare  # noqa: E402

declare("asarray", may_alias=True)
declare("array", reads_list=True)                     # of a list of arrays
declare("empty", "empty_like", fresh=True)            # uninitialised memory: never merged

declare("zeros_like", "ones_like", "empty_like", "full_like", shape_of=0)
declare("zeros_like", "ones_like", "empty_like", "full_like", "zeros", "ones", "empty", "full", new_memory=True)
