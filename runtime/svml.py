"""Intel's SVML ``sin`` and ``cos`` inside the loops Numba compiles for float64 arrays.

NumPy's float64 ``sin`` and ``cos`` loops are scalar, as are Numba's (a libm call per
element), and llvmlite's LLVM lacks the patch through which Numba once used SVML.  LLVM's
loop vectoriser still widens a call whose call site names vector versions of the callee
(the ``vector-function-abi-variant`` attribute, as ``#pragma omp declare simd`` produces).
So ``rt.svml.sin`` is a ufunc whose scalar kernel calls ``sstad_svml_sin`` with that
attribute naming SVML's ``__svml_sin2_ha`` / ``__svml_sin4_ha``: in a fused array
expression (``np.sin(x) + x * np.cos(x)``) the loop stays one loop and runs 4 lanes per
call.  ``sstad_svml_sin`` itself runs ``__svml_sin2_ha`` on one lane, so the scalar
iterations (a loop's remainder, a strided loop that is not vectorised) give exactly what
the vector ones give: SVML's 2-, 4- and 8-wide ``_ha`` routines agree bit for bit, and
an element's result does not depend on where it sits or how long its array is.

Accuracy: SVML's ``_ha`` ("high accuracy") routines are within 1 ulp of the correctly
rounded result (measured here: 0.52 ulp at most, libm 0.52); they differ from libm's
(NumPy's, the python backend's) in about 0.2 % of elements, by 1 ulp.  ``sin(+-inf)`` is
NaN with another sign bit than libm's.  ``tests/test_svml.py`` checks the bound.

The library comes from the ``intel-cmplr-lib-rt`` wheel (x86-64 Linux).  Without it, or on
another platform, :data:`AVAILABLE` is False and the numba backend keeps Numba's own
``np.sin``.  The 4-wide routine takes its argument in an AVX register, so it is named only
where Numba compiles for the host and the host has AVX (:func:`vector_widths`).
"""
import importlib.metadata
import platform
import sys

import llvmlite.binding as llvm
import numba
import numpy as np
from llvmlite import ir as llir
from numba import types
from numba.extending import intrinsic

from sstad.runtime import abstract as A
from sstad.runtime import ufunc_loops  # noqa: F401  (its lowerings first: the fallback below)
from sstad.runtime.primitive import LOWERINGS, lowering

NAMES = ("sin", "cos")
ACCURACY = "_ha"       # SVML's high-accuracy routines (<= 1 ulp)


def library_paths():
    """``libintlc.so.5`` (SVML's CPU dispatch) and ``libsvml.so`` from the
    ``intel-cmplr-lib-rt`` wheel, or None where it is not installed.

    >>> paths = library_paths()
    >>> paths is None or [p.name for p in paths] == ["libintlc.so.5", "libsvml.so"]
    True
    """
    try:
        files = importlib.metadata.distribution("intel-cmplr-lib-rt").files or ()
    except importlib.metadata.PackageNotFoundError:
        return None
    found = {f.name: f.locate() for f in files if f.name in ("libintlc.so.5", "libsvml.so")}
    return (found["libintlc.so.5"], found["libsvml.so"]) if len(found) == 2 else None


def vector_widths():
    """The vector widths whose calling convention compiled code shares with SVML: 2
    doubles in an SSE register (every x86-64 CPU), 4 in an AVX one where Numba compiles
    for a host that has AVX.  (8, AVX-512, is left out: LLVM passes 512-bit vectors in
    two halves where it prefers 256-bit ones, as on most AVX-512 CPUs.)

    >>> 2 in vector_widths()
    True
    """
    if numba.config.CPU_NAME or numba.config.CPU_FEATURES:
        return (2,)
    return (2, 4) if llvm.get_host_cpu_features().get("avx") else (2,)


class _StringAttributes(tuple):
    """Call-site attributes printed as given: llvmlite's own set accepts only a fixed
    list of keywords, and the vector variants are a string attribute."""

    def _to_list(self, typ):
        return list(self)


def _vector_function(module, name, width):
    vector = llir.VectorType(llir.DoubleType(), width)
    return _declare(module, f"__svml_{name}{width}{ACCURACY}", llir.FunctionType(vector, [vector]))


def _declare(module, symbol, fnty):
    fn = module.globals.get(symbol)
    return fn if fn is not None else llir.Function(module, fnty, symbol)


def _keep(module, functions):
    """Keep the vector declarations until the vectoriser looks for them (an unused
    declaration is dropped first): ``@llvm.compiler.used``, made once per module."""
    if "llvm.compiler.used" in module.globals:
        return
    ptr = llir.IntType(8).as_pointer()
    used = llir.GlobalVariable(module, llir.ArrayType(ptr, len(functions)), "llvm.compiler.used")
    used.linkage = "appending"
    used.section = "llvm.metadata"
    used.initializer = llir.Constant(used.type.pointee, [f.bitcast(ptr) for f in functions])


def _scalar_function(module, name):
    """``double sstad_svml_<name>(double)``: SVML's 2-wide routine on one lane.  Not
    inlined, so that the attribute on its call sites survives until the vectoriser runs."""
    symbol = f"sstad_svml_{name}"
    fn = module.globals.get(symbol)
    if fn is not None:
        return fn
    double = llir.DoubleType()
    fn = llir.Function(module, llir.FunctionType(double, [double]), symbol)
    fn.linkage = "linkonce_odr"
    for attr in ("noinline", "nounwind", "readnone"):
        fn.attributes.add(attr)
    builder = llir.IRBuilder(fn.append_basic_block())
    lanes = builder.insert_element(llir.Constant(llir.VectorType(double, 2), None), fn.args[0],
                                   llir.Constant(llir.IntType(32), 0))
    result = builder.call(_vector_function(module, name, 2), [lanes])
    builder.ret(builder.extract_element(result, llir.Constant(llir.IntType(32), 0)))
    return fn


def _call(builder, name, x, widths):
    module = builder.module
    _keep(module, [_vector_function(module, n, w) for n in NAMES for w in widths])
    scalar = _scalar_function(module, name)
    call = builder.call(scalar, [x])
    variants = ",".join(f"_ZGV_LLVM_N{w}v_{scalar.name}(__svml_{name}{w}{ACCURACY})" for w in widths)
    call.attributes = _StringAttributes(('"vector-function-abi-variant"="%s"' % variants, "nounwind", "readnone"))
    return call


def _scalar_intrinsic(name, widths):
    @intrinsic
    def svml_scalar(typingctx, x):
        if x != types.float64:
            return None

        def codegen(context, builder, sig, args):
            return _call(builder, name, args[0], widths)
        return types.float64(types.float64), codegen
    svml_scalar.__name__ = f"svml_{name}"
    return svml_scalar


def _prints_string_attributes():
    """llvmlite prints the attribute as given (it reads call attributes through
    ``_to_list``); otherwise SVML is not used."""
    module = llir.Module()
    fn = llir.Function(module, llir.FunctionType(llir.DoubleType(), [llir.DoubleType()]), "f")
    builder = llir.IRBuilder(fn.append_basic_block())
    try:
        builder.ret(_call(builder, "sin", fn.args[0], (2,)))
        return '"vector-function-abi-variant"="_ZGV_LLVM_N2v_sstad_svml_sin(__svml_sin2_ha)"' in str(module)
    except Exception:
        return False


def _load():
    if not (sys.platform.startswith("linux") and platform.machine() == "x86_64"):
        return False
    paths = library_paths()
    if paths is None or not _prints_string_attributes():
        return False
    try:
        for path in paths:
            llvm.load_library_permanently(str(path))
    except RuntimeError:
        return False
    return all(llvm.address_of_symbol(f"__svml_{n}{w}{ACCURACY}") for n in NAMES for w in vector_widths())


AVAILABLE = _load()


def _define(name):
    svml_scalar = _scalar_intrinsic(name, vector_widths())

    def kernel(x):
        return svml_scalar(x)
    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"``np.{name}`` of float64 values through SVML's vector routine (see the module)."
    return numba.vectorize(cache=True)(kernel)


def _route(name, fallback):
    @lowering("numba", name)
    def _emit(args, params, avals):
        plain = params == {"layout": ((0,), {})}         # no out=, where=, dtype=
        if plain and isinstance(avals[0], A.Array) and avals[0].dtype == np.float64:
            return f"rt.svml.{name}({args[0]})"
        return fallback(args, params, avals)
    return _emit


if AVAILABLE:
    for _name in NAMES:
        globals()[_name] = _define(_name)
        _route(_name, LOWERINGS["numba"][_name])
