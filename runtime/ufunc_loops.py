"""NumPy's own inner loops of transcendental ufuncs, called from compiled code.

Numba compiles ``np.tanh(x)`` on an array as a loop over scalar libm calls, 3-34x slower
than NumPy's loops here (vectorised per CPU: AVX2, AVX-512), and its route to SIMD,
Intel's SVML, needs an LLVM that llvmlite no longer ships.  So the numba backend emits
``rt.ufunc_loops.tanh(x)`` for a float32/float64 array: plain NumPy here (what a Python
caller gets), and under Numba (the overloads below) a direct call of the inner loop
NumPy itself runs for ``np.tanh`` on that dtype.  The results are NumPy's, bit for bit,
and so the same on both backends.

The loop is found through the public ``PyUFuncObject`` header (numpy/ufuncobject.h):
``functions[i]`` for the ``d->d`` (or ``f->f``) entry of ``types``.  Only loops of
NumPy's own are taken (``data[i]`` is NULL; the generic wrapper of a scalar C function
gains nothing); each is named as a linker symbol, so compiled code reaches it by name
and Numba's disk cache stays valid in every process.
"""
import ctypes

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir as llir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.numpy_support import as_dtype

from sstad.runtime import abstract as A
from sstad.runtime.primitive import lookup, lowering

NAMES = """exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos arctan sinh cosh tanh
arcsinh arccosh arctanh cbrt""".split()
DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
# NumPy's float64 sin and cos are scalar loops, no faster than Numba's: calling them would
# only split a fused expression (docs/performance.md has the measurements)
SCALAR_IN_NUMPY = {("sin", np.dtype(np.float64)), ("cos", np.dtype(np.float64))}
__all__ = list(NAMES)


class _UFuncHead(ctypes.Structure):
    """The leading fields of NumPy's ``PyUFuncObject``, as its public header declares them."""
    _fields_ = [("ob_refcnt", ctypes.c_ssize_t), ("ob_type", ctypes.c_void_p),
                ("nin", ctypes.c_int), ("nout", ctypes.c_int), ("nargs", ctypes.c_int),
                ("identity", ctypes.c_int), ("functions", ctypes.POINTER(ctypes.c_void_p)),
                ("data", ctypes.POINTER(ctypes.c_void_p)), ("ntypes", ctypes.c_int),
                ("reserved1", ctypes.c_int), ("name", ctypes.c_char_p),
                ("types", ctypes.POINTER(ctypes.c_char))]


def inner_loop(ufunc, dtype):
    """The address of NumPy's own inner loop of the unary ``ufunc`` from ``dtype`` to
    ``dtype``, or None (none of its own, or a header that does not read as expected)."""
    head = _UFuncHead.from_address(id(ufunc))
    # the integers first: no pointer is followed unless they read as expected
    if ((head.nin, head.nout, head.nargs, head.ntypes) != (1, 1, 2, ufunc.ntypes) or ufunc.nin != 1
            or head.name != ufunc.__name__.encode()):
        return None
    for i in range(head.ntypes):
        if ord(head.types[2 * i]) == ord(head.types[2 * i + 1]) == dtype.num:
            if ufunc.types[i] != f"{dtype.char}->{dtype.char}" or head.data[i] is not None:
                return None
            return head.functions[i]
    return None


def symbol(name, dtype):
    return f"sstad_numpy_{name}_{dtype.char}"


LOOPS = {}          # (name, dtype) -> linker symbol of NumPy's loop, where there is one
for _name in NAMES:
    for _dtype in DTYPES:
        if (_name, _dtype) in SCALAR_IN_NUMPY:
            continue
        _address = inner_loop(getattr(np, _name), _dtype)
        if _address:
            llvm.add_symbol(symbol(_name, _dtype), _address)
            LOOPS[_name, _dtype] = symbol(_name, _dtype)


def _run_loop(sym):
    """An intrinsic ``run(src, dst)``: NumPy's loop ``sym`` over the contiguous arrays
    ``src`` and ``dst`` of one size (``loop(char **args, npy_intp *n, npy_intp *steps, NULL)``)."""
    @intrinsic
    def run(typingctx, src, dst):
        def codegen(context, builder, sig, args):
            a = context.make_array(sig.args[0])(context, builder, args[0])
            b = context.make_array(sig.args[1])(context, builder, args[1])
            intp = context.get_value_type(types.intp)
            byte_ptr = llir.IntType(8).as_pointer()
            fnty = llir.FunctionType(llir.VoidType(), [byte_ptr.as_pointer(), intp.as_pointer(),
                                                       intp.as_pointer(), byte_ptr])
            loop = cgutils.get_or_insert_function(builder.module, fnty, sym)
            pointers = cgutils.alloca_once(builder, byte_ptr, size=2)
            builder.store(builder.bitcast(a.data, byte_ptr), cgutils.gep(builder, pointers, 0))
            builder.store(builder.bitcast(b.data, byte_ptr), cgutils.gep(builder, pointers, 1))
            size = cgutils.alloca_once_value(builder, a.nitems)
            steps = cgutils.alloca_once(builder, intp, size=2)
            for k in (0, 1):
                builder.store(a.itemsize, cgutils.gep(builder, steps, k))
            builder.call(loop, [pointers, size, steps, byte_ptr(None)])
            return context.get_dummy_value()
        return types.void(src, dst), codegen
    return run


def _define(name):
    ufunc = getattr(np, name)

    def loop(x, scratch=False):
        """``ufunc(x)``; ``scratch``: nothing else reads ``x``, so compiled code may
        overwrite it with the result."""
        return ufunc(x)
    loop.__name__ = loop.__qualname__ = name

    @overload(loop, prefer_literal=True)
    def _numba_loop(x, scratch=False):
        sym = LOOPS.get((name, as_dtype(x.dtype))) if isinstance(x, types.Array) else None
        if sym is None:
            return lambda x, scratch=False: ufunc(x)
        run = _run_loop(sym)
        if getattr(scratch, "literal_value", False) and x.layout in ("C", "F"):
            def in_place(x, scratch=False):
                run(x, x)
                return x
            return in_place
        contiguous = x.layout == "C"

        def impl(x, scratch=False):
            src = x if contiguous else np.ascontiguousarray(x)
            out = np.empty(x.shape, x.dtype)
            run(src, out)
            return out
        return impl

    @lowering("numba", name)
    def _emit(args, params, avals):
        plain = params == {"layout": ((0,), {})}         # no out=, where=, dtype=
        if plain and isinstance(avals[0], A.Array) and (name, avals[0].dtype) in LOOPS:
            # an argument fused into this call (an expression, not a variable) is a
            # fresh array nothing else reads: the result takes its memory
            scratch = ", True" if args[0].startswith("(") else ""
            return f"rt.ufunc_loops.{name}({args[0]}{scratch})"
        return lookup(name).emit(args, params, avals)
    return loop


for _name in NAMES:
    globals()[_name] = _define(_name)
