"""``unbroadcast(g, x)``: sum a cotangent ``g`` down to the shape of ``x``.

Every binary elementwise rule ends with it, undoing NumPy broadcasting.  Plain NumPy in
Python; under Numba an overload walks ``g`` once and accumulates into ``x``'s shape.
"""
import numpy as np
from numba import njit, types
from numba.extending import overload, register_jitable

from sstad.runtime import abstract as A
from sstad.runtime.primitive import NUMPY_FUNCTIONS, Primitive, defvjp, emit_call


def unbroadcast(g, x):
    """``g`` summed over the axes that broadcasting ``x`` added or stretched."""
    shape = np.shape(x)
    g = np.asarray(g)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(lead)))
    stretched = tuple(k for k, n in enumerate(shape) if n == 1 and g.shape[k] != 1)
    if stretched:
        g = g.sum(axis=stretched, keepdims=True)
    return g if shape else g[()]


@overload(unbroadcast)
def _unbroadcast_numba(g, x):
    if not isinstance(g, types.Array):
        return lambda g, x: g
    if not isinstance(x, types.Array):
        return lambda g, x: np.sum(g)
    if g.ndim == x.ndim:
        return lambda g, x: np.ascontiguousarray(g) if g.shape == x.shape else _unbroadcast_arrays(g, x)
    return lambda g, x: _unbroadcast_arrays(g, x)


@njit(cache=True)      # in Numba's disk cache: its first compilation in a process takes seconds
def _unbroadcast_arrays(g, x):
    lead = g.ndim - x.ndim
    gshape = np.array(g.shape)
    xshape = np.ones(g.ndim, np.int64)
    xshape[lead:] = np.array(x.shape)
    step = np.zeros(g.ndim, np.int64)      # out's stride along each axis of g; 0: summed
    stride = 1
    for ax in range(g.ndim - 1, -1, -1):
        if xshape[ax] != 1:
            step[ax] = stride
        stride *= xshape[ax]
    flat = np.ascontiguousarray(g).ravel()
    out = np.zeros(x.size, g.dtype)
    n = gshape[g.ndim - 1]
    coord = np.zeros(g.ndim, np.int64)
    at = 0                                 # out's index of the current row of g
    for r in range(flat.size // n if n else 0):      # rows along g's last axis
        first = r * n
        if step[g.ndim - 1]:
            for j in range(n):
                out[at + j] += flat[first + j]
        else:
            total = out[at]
            for j in range(n):
                total += flat[first + j]
            out[at] = total
        ax = g.ndim - 2                    # next row: an odometer over the other axes
        while ax >= 0:
            coord[ax] += 1
            at += step[ax]
            if coord[ax] < gshape[ax]:
                break
            at -= coord[ax] * step[ax]
            coord[ax] = 0
            ax -= 1
    return out.reshape(x.shape)


def _infer(avals, params):
    g, x = avals
    if isinstance(x, A.Array):
        return A.Array(g.dtype, x.ndim)
    return A.Scalar(g.dtype) if isinstance(g, A.Array) else g


Primitive("unbroadcast", unbroadcast, _infer, emit_call("rt.unbroadcast"))
NUMPY_FUNCTIONS[id(unbroadcast)] = "unbroadcast"


@defvjp("unbroadcast")
def _(g, x, out, dout):
    return (np.broadcast_to(dout, g.shape), None)


from sstad.runtime.primitive import declare  # noqa: E402

declare("unbroadcast", may_alias=True, multilinear=True, shape_only={1})

declare("unbroadcast", shape_of=1)


# --- the guard of shape speculation (sstad/passes/shape_speculation.py) ----------------
class ShapeSpeculation(Exception):
    """Code compiled on the assumption that two arrays have one shape met arrays that do
    not; ``sstad.jit`` reruns the call with code that assumes nothing."""


@register_jitable
def same_shape(a, b):
    """Raise :class:`ShapeSpeculation` unless ``a`` and ``b`` have one shape."""
    if np.shape(a) != np.shape(b):
        raise ShapeSpeculation("arrays assumed to have one shape do not")
    return True


Primitive("same_shape", same_shape, lambda avals, params: A.Scalar(np.dtype(np.bool_), weak=True),
          emit_call("rt.broadcast.same_shape"))
declare("same_shape", effect=True, nondiff=True, shape_only={0, 1}, repeatable=True)    # kept where it is; reads shapes only


# --- np.where of arrays in compiled code ---------------------------------------------
@njit(cache=True)      # Numba's np.where took 1.7 s to compile in every process (its first signature)
def where(condition, x, y):
    """``np.where(condition, x, y)``, compiled once per signature and kept in Numba's
    disk cache; the numba backend calls it where an argument is an array."""
    return np.where(condition, x, y)
