"""Bessel functions as primitives, with their rules: ``np.i0`` and ``scipy.special``'s
``i0 i1 i0e i1e j0 j1 y0 y1 k0 k1 k0e k1e``, and of an order ``iv ive jv yv kv kve yn``.

Generated code calls them as ``rt.bessel.NAME``: SciPy itself under the python backend,
and under Numba the same C functions SciPy's ufuncs run (exported by
``scipy.special.cython_special``), so both backends give SciPy's values bit for bit.
Each C function is named as a linker symbol, as :mod:`sstad.runtime.ufunc_loops` names
NumPy's loops, so Numba's disk cache stays valid in every process.

The derivative is with respect to ``x``; the order is a compile-time constant or an
integer, never differentiated.  Rules are recurrences over the same primitives, so they
differentiate again: ``i0' = i1``, ``iv(v, .)' = (iv(v - 1, .) + iv(v + 1, .)) / 2``.
"""
import ctypes

import llvmlite.binding as llvm
import numpy as np
import scipy.special as sc
import scipy.special.cython_special as cython_special
from numba import types
from numba.extending import register_jitable

from sstad.runtime import abstract as A
from sstad.runtime.broadcast import unbroadcast
from sstad.runtime.primitive import NUMPY_FUNCTIONS, defvjp, emit_call, numpy_primitive
from sstad.runtime.special import SCIPY, _elementwise_1, _elementwise_2

ONE = "i0 i1 i0e i1e j0 j1 y0 y1 k0 k1 k0e k1e".split()
ORDER = "iv ive jv yv kv kve yn".split()
# cython_special's exported names: the real-valued variant of the fused ones, and yn's
# (long n, double x)
CAPSULE = {name: name for name in ONE}
CAPSULE.update({name: "__pyx_fuse_1" + name for name in ORDER})
__all__ = ONE + ORDER


# --- SciPy's C functions, by linker symbol --------------------------------------------
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype, _capsule_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


def c_function(name, signature):
    """SciPy's C function ``name`` as something Numba calls: the capsule's declared
    signature must be ``signature`` (refused otherwise, rather than called wrongly)."""
    capsule = cython_special.__pyx_capi__[CAPSULE[name]]
    declared = _capsule_name(capsule)
    if declared.decode() != signature:
        raise ImportError(f"scipy.special.cython_special.{CAPSULE[name]} is `{declared.decode()}`, "
                          f"not `{signature}`")
    symbol = f"sstad_scipy_{name}"
    llvm.add_symbol(symbol, _capsule_pointer(capsule, declared))
    args = [types.float64] * (signature.count("double") - 1)
    if name == "yn":
        args = [types.long_, types.float64]
    return types.ExternalFunction(symbol, types.float64(*args, types.intc))


def _kernel_1(ext):
    @register_jitable
    def kernel(x):
        return ext(x, 0)         # the Cython skip-dispatch flag: a plain call
    return kernel


def _kernel_2(ext, integer_order):
    if integer_order:
        @register_jitable
        def kernel(v, x):
            return ext(np.int64(v), x, 0)
    else:
        @register_jitable
        def kernel(v, x):
            return ext(v, x, 0)
    return kernel


def _define(name):
    fn = getattr(sc, name)
    if name in ONE:
        def call(x):
            return fn(x)
        signature = "double (double, int __pyx_skip_dispatch)"
    else:
        def call(v, x):
            return fn(v, x)
        signature = ("double (long, double, int __pyx_skip_dispatch)" if name == "yn"
                     else "double (double, double, int __pyx_skip_dispatch)")
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``scipy.special.{name}``."
    ext = c_function(name, signature)
    if name in ONE:
        _elementwise_1(call, _kernel_1(ext))
    else:
        _elementwise_2(call, _kernel_2(ext, name == "yn"))
    numpy_primitive("special." + name, call, emit=emit_call("rt.bessel." + name), elementwise=True)
    return call


i0, i1, i0e, i1e, j0, j1, y0, y1, k0, k1, k0e, k1e = (_define(name) for name in ONE)
iv, ive, jv, yv, kv, kve, yn = (_define(name) for name in ORDER)
NUMPY_FUNCTIONS[id(np.i0)] = "special.i0"      # NumPy's i0 is the same function


# --- calls as users write them -> primitives -------------------------------------------
def _one(name):
    def translate(*args, **kwargs):
        if kwargs:
            raise TypeError(f"keyword arguments ({', '.join(kwargs)}) to this ufunc are not supported")
        if len(args) != 1:
            raise TypeError(f"takes 1 argument, not {len(args)}")
        return "special." + name, list(args), {}
    return translate


def _order(name):
    def translate(*args, **kwargs):
        if kwargs:
            raise TypeError(f"keyword arguments ({', '.join(kwargs)}) to this ufunc are not supported")
        if len(args) != 2:
            raise TypeError(f"takes 2 arguments, not {len(args)}")
        v = args[0]
        t = getattr(v, "type", None)
        if t is not None and not (isinstance(t, (A.Scalar, A.Array)) and t.dtype.kind in "iub"):
            raise TypeError("the order must be a compile-time number or an integer: sstad has no "
                            "derivative with respect to the order")
        if name == "yn" and t is None and float(v) != int(v):
            raise TypeError(f"yn takes an integer order, not {v!r}")
        return "special." + name, list(args), {}
    return translate


for _name in ONE:
    SCIPY[id(getattr(sc, _name))] = _one(_name)
for _name in ORDER:
    SCIPY[id(getattr(sc, _name))] = _order(_name)


# --- reverse-mode rules ----------------------------------------------------------------
@defvjp("special.i0")
def _(x, out, dout):
    return (dout * i1(x),)


@defvjp("special.i1")
def _(x, out, dout):
    return (dout * 0.5 * (i0(x) + iv(2, x)),)


@defvjp("special.i0e")
def _(x, out, dout):
    return (dout * (i1e(x) - np.sign(x) * out),)


@defvjp("special.i1e")
def _(x, out, dout):
    return (dout * (0.5 * (i0e(x) + ive(2, x)) - np.sign(x) * out),)


@defvjp("special.j0")
def _(x, out, dout):
    return (-(dout * j1(x)),)


@defvjp("special.j1")
def _(x, out, dout):
    return (dout * 0.5 * (j0(x) - jv(2, x)),)


@defvjp("special.y0")
def _(x, out, dout):
    return (-(dout * y1(x)),)


@defvjp("special.y1")
def _(x, out, dout):
    return (dout * 0.5 * (y0(x) - yv(2, x)),)


@defvjp("special.k0")
def _(x, out, dout):
    return (-(dout * k1(x)),)


@defvjp("special.k1")
def _(x, out, dout):
    return (-(dout * 0.5 * (k0(x) + kv(2, x))),)


@defvjp("special.k0e")
def _(x, out, dout):
    return (dout * (out - k1e(x)),)


@defvjp("special.k1e")
def _(x, out, dout):
    return (dout * (out - 0.5 * (k0e(x) + kve(2, x))),)


@defvjp("special.iv")
def _(v, x, out, dout):
    return (None, unbroadcast(dout * 0.5 * (iv(v - 1, x) + iv(v + 1, x)), x))


@defvjp("special.ive")
def _(v, x, out, dout):
    return (None, unbroadcast(dout * (0.5 * (ive(v - 1, x) + ive(v + 1, x)) - np.sign(x) * out), x))


@defvjp("special.jv")
def _(v, x, out, dout):
    return (None, unbroadcast(dout * 0.5 * (jv(v - 1, x) - jv(v + 1, x)), x))


@defvjp("special.yv")
def _(v, x, out, dout):
    return (None, unbroadcast(dout * 0.5 * (yv(v - 1, x) - yv(v + 1, x)), x))


@defvjp("special.yn")
def _(n, x, out, dout):
    return (None, unbroadcast(dout * 0.5 * (yn(n - 1, x) - yn(n + 1, x)), x))


@defvjp("special.kv")
def _(v, x, out, dout):
    return (None, unbroadcast(-(dout * 0.5 * (kv(v - 1, x) + kv(v + 1, x))), x))


@defvjp("special.kve")
def _(v, x, out, dout):
    return (None, unbroadcast(dout * (out - 0.5 * (kve(v - 1, x) + kve(v + 1, x))), x))
