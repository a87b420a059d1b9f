"""Shape primitives: reshape, transpose, joins, splits, flips and copies."""
import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime.containers import stacked_emit
from sstad.runtime.primitive import LOWERINGS, Primitive, Slot, emit_call, lowering, numpy_primitive, text_of

SHAPE_FUNCTIONS = """transpose ravel expand_dims swapaxes moveaxis concatenate stack
hstack vstack broadcast_to flip fliplr flipud triu tril repeat roll copy
atleast_1d atleast_2d""".split()

for _name in SHAPE_FUNCTIONS:
    numpy_primitive(_name, getattr(np, _name))
lowering("numba", "stack")(stacked_emit("np.stack"))    # Numba stacks tuples, not lists
lowering("numba", "vstack")(stacked_emit("np.vstack"))


def _reshape_infer(avals, params):
    (_, shape), _ = params["layout"]
    x = avals[0]
    if not isinstance(x, (A.Array, A.Scalar)):
        raise TypeError("reshape takes an array")
    ndim = len(shape) if isinstance(shape, tuple) else 1
    return A.Array(x.dtype, ndim) if ndim else A.Scalar(x.dtype)


def _reshape_emit(args, params, avals):
    (_, shape), _ = params["layout"]
    # Numba reshapes only contiguous arrays; NumPy copies a non-contiguous one anyway.
    return f"np.ascontiguousarray({args[0]}).reshape({text_of(shape, args)})"


numpy_primitive("reshape", np.reshape, _reshape_infer, _reshape_emit)


@lowering("numba", "reshape")
def _reshape_numba(args, params, avals):
    """To no axes (a keepdims reduction's cotangent back to a number): the one element as
    a number, as the types say, where Numba's reshape would give a 0-d array."""
    (_, shape), _ = params["layout"]
    if shape == () and isinstance(avals[0], A.Array):
        return f"np.ascontiguousarray({args[0]}).reshape((1,))[0]"
    return _reshape_emit(args, params, avals)


def _squeeze_infer(avals, params):
    (x, *rest), kw = params["layout"]
    axis = rest[0] if rest else kw.get("axis")
    if axis is None:
        raise TypeError("np.squeeze without `axis` is not supported: sstad compiles one version per "
                        "rank, and which axes have length 1 is known only at run time; name them, "
                        "as in np.squeeze(x, axis=1) or x.squeeze(axis=(0, 2)) (or index: x[:, 0])")
    axes = axis if isinstance(axis, tuple) else (axis,)
    ndim = avals[0].ndim - len(axes)
    return A.Array(avals[0].dtype, ndim) if ndim else A.Scalar(avals[0].dtype)


def _squeeze_emit(args, params, avals):
    (_, *rest), kw = params["layout"]
    axis = rest[0] if rest else kw.get("axis")
    ndim = avals[0].ndim
    keep = [k for k in range(ndim) if k not in {a % ndim for a in (axis if isinstance(axis, tuple) else (axis,))}]
    shape = " + ".join(f"{args[0]}.shape[{k}:{k + 1}]" for k in keep) or "()"
    return f"np.ascontiguousarray({args[0]}).reshape({shape})"    # Numba has no np.squeeze


numpy_primitive("squeeze", np.squeeze, _squeeze_infer)
lowering("numba", "squeeze")(_squeeze_emit)


def _expand_dims_numba(args, params, avals):
    """Numba's np.expand_dims takes one axis of an array: a tuple of them is a reshape with
    ones there; a number becomes an array of ones' shape."""
    (x, *rest), kw = params["layout"]
    axis = rest[0] if rest else kw.get("axis")
    if not isinstance(avals[0], A.Array) and not isinstance(axis, Slot):
        # a number (a reduction's cotangent): Numba's np.expand_dims takes arrays only
        return f"np.full({(1,) * (len(axis) if isinstance(axis, tuple) else 1)}, {text_of(x, args)})"
    if not isinstance(axis, tuple) or not isinstance(avals[0], A.Array) or any(isinstance(a, Slot) for a in axis):
        return emit_call("np.expand_dims")(args, params, avals)
    ndim = avals[0].ndim + len(axis)
    ones = {a % ndim for a in axis}
    dims, k = [], 0
    for j in range(ndim):
        dims.append("1" if j in ones else f"{text_of(x, args)}.shape[{k}]")
        k += j not in ones
    return f"np.ascontiguousarray({text_of(x, args)}).reshape(({', '.join(dims)},))"


lowering("numba", "expand_dims")(_expand_dims_numba)


# ``x.shape[k]`` and ``x.size``: Python ints at run time.
_INT = A.Scalar(np.dtype(np.int64), weak=True)
Primitive("dim", lambda x, axis: x.shape[axis], lambda avals, params: _INT,
          lambda args, params, avals: f"{args[0]}.shape[{params['axis']}]")
Primitive("size", np.size, lambda avals, params: _INT, lambda args, params, avals: f"{args[0]}.size")


# --- reverse-mode rules ----------------------------------------------------------
from sstad.runtime.broadcast import unbroadcast  # noqa: E402
from sstad.runtime.index import index_add  # noqa: E402
from sstad.runtime.primitive import defvjp, lookup  # noqa: E402


@defvjp("reshape")
def _(x, shape, out, dout):
    return (np.reshape(dout, np.shape(x)), None)


@defvjp("ravel", "atleast_1d", "atleast_2d")
def _(x, out, dout):
    return (np.reshape(dout, np.shape(x)),)


@defvjp("squeeze")
def _(x, out, dout, axis=None):
    return (np.reshape(dout, np.shape(x)),)


@defvjp("expand_dims")
def _(x, axis, out, dout):
    return (np.reshape(dout, np.shape(x)), None)


@defvjp("transpose")
def _(a, out, dout, axes=None):
    if axes is None:
        return (np.transpose(dout),)
    inverse = ()                  # where each axis went: unrolled over the static tuple
    for k, _ in enumerate(axes):
        for j, axis in enumerate(axes):
            if axis % len(axes) == k:
                inverse = inverse + (j,)
    return (np.transpose(dout, inverse),)


@defvjp("swapaxes")
def _(x, a, b, out, dout):
    return (np.swapaxes(dout, a, b), None, None)


@defvjp("copy")
def _(x, out, dout):
    return (dout,)


@defvjp("broadcast_to")
def _(x, shape, out, dout):
    return (unbroadcast(dout, x), None)


@defvjp("flip")
def _(x, out, dout, axis=None):
    return (np.flip(dout, axis=axis),)


@defvjp("fliplr")
def _(x, out, dout):
    return (np.fliplr(dout),)


@defvjp("flipud")
def _(x, out, dout):
    return (np.flipud(dout),)


@defvjp("triu")
def _(m, out, dout, k=0):
    if np.ndim(m) == 1:                  # NumPy takes a vector as every row of a square matrix
        return (np.sum(np.triu(dout, k), axis=0),)
    return (np.triu(dout, k),)


@defvjp("tril")
def _(m, out, dout, k=0):
    if np.ndim(m) == 1:
        return (np.sum(np.tril(dout, k), axis=0),)
    return (np.tril(dout, k),)


def split_like(dout, arrays, axis):
    """``dout`` cut along ``axis`` into pieces as long as each of ``arrays``."""
    pieces = ()
    start = 0
    for a in arrays:
        stop = start + a.shape[axis]
        pieces = pieces + (np.swapaxes(np.swapaxes(dout, 0, axis)[start:stop], 0, axis),)
        start = stop
    return pieces


@defvjp("concatenate")
def _(arrays, out, dout, axis=0):
    if axis is None:              # NumPy joins the flattened arrays
        pieces = ()
        start = 0
        for a in arrays:
            pieces = pieces + (np.reshape(dout[start:start + a.size], np.shape(a)),)
            start = start + a.size
        return (pieces,)
    return (split_like(dout, arrays, axis),)


@defvjp("stack")
def _(arrays, out, dout, axis=0):
    order = (axis % out.ndim,)              # the stacking axis first, the others in order
    for k, _ in enumerate(np.shape(out)):
        if k != axis % out.ndim:
            order = order + (k,)
    moved = np.transpose(dout, order)
    pieces = ()
    for k, a in enumerate(arrays):
        pieces = pieces + (moved[k],)
    return (pieces,)


@defvjp("hstack")
def _(arrays, out, dout):
    if out.ndim > 1:
        return (split_like(dout, arrays, 1),)
    pieces = ()                           # vectors and numbers (one item each) end to end
    start = 0
    for a in arrays:
        piece = dout[start:start + a.size]
        pieces = pieces + ((piece if a.ndim > 0 else piece[0]),)
        start = start + a.size
    return (pieces,)


@defvjp("vstack")
def _(arrays, out, dout):
    pieces = ()
    start = 0
    for a in arrays:
        rows = a.shape[0] if a.ndim > 1 else 1
        piece = dout[start:start + rows]
        pieces = pieces + ((piece if a.ndim > 1 else piece[0]),)
        start = start + rows
    return (pieces,)


@defvjp("roll")
def _(a, shift, out, dout, axis=None):
    if np.ndim(shift) == 0:
        return (np.roll(dout, -shift, axis), None)
    back = ()                     # every shift undone: unrolled over the static tuple
    for s in shift:
        back = back + (-s,)
    return (np.roll(dout, back, axis), None)


def _repeat_infer(avals, params):
    """The rank is known whatever the repeats (a list of them makes the length data-dependent)."""
    pos, kw = params["layout"]
    axis = pos[2] if len(pos) > 2 else kw.get("axis")
    x = avals[0]
    return A.Array(x.dtype, 1 if axis is None else max(getattr(x, "ndim", 0), 1))


lookup("repeat").infer = _repeat_infer


@defvjp("repeat")
def _(a, repeats, out, dout, axis=None):
    if np.ndim(repeats) != 0:     # np.repeat is np.take by the repeated positions: its adjoint adds back
        n = np.size(a) if axis is None else np.shape(a)[axis]
        where = np.repeat(np.arange(n), repeats)
        if axis is None:
            flat = index_add(np.zeros_like(np.ravel(a)), where, np.ravel(dout))
            return (np.reshape(flat, np.shape(a)), None)
        moved = index_add(np.zeros_like(np.swapaxes(a, 0, axis)), where, np.swapaxes(dout, 0, axis))
        return (np.swapaxes(moved, 0, axis), None)
    if axis is None:
        return (np.reshape(np.sum(np.reshape(dout, (a.size, repeats)), axis=1), np.shape(a)), None)
    moved = np.swapaxes(dout, axis, -1)
    summed = np.sum(np.reshape(moved, np.shape(np.swapaxes(a, axis, -1)) + (repeats,)), axis=-1)
    return (np.swapaxes(summed, axis, -1), None)


@defvjp("moveaxis")
def _(x, source, destination, out, dout):
    return (np.moveaxis(dout, destination, source), None, None)




def _flip_emit(args, params, avals):
    """Numba's np.flip has no axis: flip that axis by slicing (a view, as np.flip's is)."""
    layout = params.get("layout")
    axis = layout[1].get("axis") if layout is not None else None
    if axis is None and layout is not None and len(layout[0]) > 1:
        axis = layout[0][1]
    if layout is None or isinstance(axis, Slot):
        return emit_call("np.flip")(args, params, avals)
    x = text_of(layout[0][0], args)
    if axis is None:
        return f"np.flip({x})"
    flipped = {a % avals[0].ndim for a in (axis if isinstance(axis, tuple) else (axis,))}
    index = ", ".join("::-1" if k in flipped else ":" for k in range(max(flipped) + 1))
    return f"{x}[{index}]"


lowering("numba", "flip")(_flip_emit)


from sstad.runtime.primitive import declare  # noqa: E402

declare("transpose", "ravel", "expand_dims", "squeeze", "swapaxes", "moveaxis", "broadcast_to", "reshape",
        "flip", "fliplr", "flipud", "atleast_1d", "atleast_2d", view=True)
declare("transpose", "reshape", "ravel", "swapaxes", "moveaxis", "expand_dims", "squeeze", "flip", "fliplr",
        "flipud", "triu", "tril", "roll", "repeat", "broadcast_to", "atleast_1d", "atleast_2d", "copy",
        multilinear=True)

declare("copy", shape_of=0)
declare("copy", new_memory=True, per_element="value")
declare("stack", "vstack", "concatenate", reads_list=True)    # of a list of arrays


@lowering("numba", "roll")
def _roll_numba(args, params, avals):
    """Numba's np.roll takes one shift and no axis: roll the flattened array, an axis by
    slicing, or several axes by ``rt.roll_axes``."""
    pos, kw = params["layout"]
    given = dict(zip(("a", "shift", "axis"), pos), **kw)
    x, shift, axis = text_of(given["a"], args), given["shift"], given.get("axis")
    shifts = shift if isinstance(shift, tuple) else (shift,)
    if axis is None:                                        # NumPy rolls the flattened array by every shift
        return f"np.roll({x}, {' + '.join(text_of(s, args) for s in shifts)})"
    axes = axis if isinstance(axis, tuple) else (axis,)
    if any(isinstance(a, Slot) for a in axes):
        return emit_call("np.roll")(args, params, avals)      # a run-time axis: Numba refuses it
    if len(shifts) == 1 and len(axes) == 1:
        axis = axes[0] % avals[0].ndim
        shift = text_of(shifts[0], args)
        n = f"{x}.shape[{axis}]"
        k = f"({n} - ({shift}) % {n}) % {n}"                    # the first element of the result
        lead = ":, " * axis
        return f"np.concatenate(({x}[{lead}{k}:], {x}[{lead}:{k}]), axis={axis})"
    pairs = np.broadcast(np.empty(len(shifts)), np.empty(len(axes))).size   # NumPy's pairing
    shifts, axes = shifts * (pairs // len(shifts)), axes * (pairs // len(axes))
    shift_text = ", ".join(f"np.int64({text_of(s, args)})" for s in shifts)
    axis_text = ", ".join(str(a % avals[0].ndim) for a in axes)
    return f"rt.roll_axes({x}, ({shift_text},), ({axis_text},))"


@lowering("numba", "concatenate")
def _concatenate_numba(args, params, avals):
    """Numba's np.concatenate has no ``axis=None``: join the flattened arrays; it joins
    tuples only: a run-time list goes through ``rt.containers.concatenate_list`` along axis 0, its items
    transposed to bring the axis first and the result back."""
    pos, kw = params["layout"]
    given = dict(zip(("arrays", "axis"), pos), **kw)
    first = avals[0] if avals else None
    axis = given.get("axis", 0)
    if isinstance(first, A.ListOf) and isinstance(first.elem, A.Array) and isinstance(axis, int):
        ndim = first.elem.ndim
        axis %= ndim
        if axis == 0:
            return f"rt.containers.concatenate_list({args[0]})"
        order = (axis,) + tuple(k for k in range(ndim) if k != axis)
        back = tuple(int(k) for k in np.argsort(order))
        return f"np.transpose(rt.containers.concatenate_list([np.transpose(a, {order}) for a in {args[0]}]), {back})"
    if "axis" not in given or given["axis"] is not None or not isinstance(given["arrays"], tuple):
        return emit_call("np.concatenate")(args, params, avals)
    flat = ", ".join(f"np.ascontiguousarray({text_of(p, args)}).ravel()" for p in given["arrays"])
    return f"np.concatenate(({flat},))"


@lowering("numba", "repeat")
def _repeat_numba(args, params, avals):
    """Numba's np.repeat has no axis and takes one number or an array of repeats:
    ``rt.repeat_axis`` along an axis, or along the flattened array for a sequence."""
    pos, kw = params["layout"]
    given = dict(zip(("a", "repeats", "axis"), pos), **kw)
    axis, repeats = given.get("axis"), given["repeats"]
    one = not isinstance(repeats, tuple) and (not isinstance(repeats, Slot) or isinstance(avals[repeats], A.Scalar))
    if isinstance(axis, Slot) or not isinstance(avals[0], A.Array) or (axis is None and one):
        return emit_call("np.repeat")(args, params, avals)
    x, repeats = text_of(given["a"], args), text_of(repeats, args)
    if not one:
        repeats = f"np.asarray({repeats})"
    if axis is None:
        return f"rt.repeat_axis(np.ascontiguousarray({x}).ravel(), {repeats}, 0)"
    return f"rt.repeat_axis({x}, {repeats}, {axis % avals[0].ndim})"


def _scalars_as_arrays(name, wrap="np.asarray({})"):
    """Numba's array functions take arrays where NumPy also takes numbers (through
    ``np.asarray``): a number argument is passed as a 0-d array (to np.hstack, whose
    arrays Numba wants of one rank, as the 1-d one NumPy makes of it)."""
    spell = LOWERINGS.get("numba", {}).get(name, lookup(name).emit)

    @lowering("numba", name)
    def emit(args, params, avals):
        args = [wrap.format(x) if isinstance(a, A.Scalar) else x for x, a in zip(args, avals)]
        return spell(args, params, avals)
    return emit


for _name in ("atleast_1d", "atleast_2d", "ravel", "stack", "vstack", "cumsum", "cumprod"):
    _scalars_as_arrays(_name)
_scalars_as_arrays("hstack", "np.full(1, {})")
