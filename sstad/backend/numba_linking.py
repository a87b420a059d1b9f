"""Outlined parts and shared kernels: compiled once by Numba, called by their symbol.

Numba links the LLVM code of every function a function calls into the caller's module,
then optimises and compiles all of it again there: a gradient's entry compiled its
outlined parts a second time, and every part compiled again each kernel it calls.  The
emitter marks the functions it makes (parts and kernels) as *callees*
(:data:`CALLEE_MARK` above their ``def``); :func:`jit` compiles a callee with a code
library that hands its callers nothing to link, so a caller holds a declaration that the
JIT resolves to the callee's code, compiled once per process.  A callee has no CPython
or C wrapper (only compiled code calls it), which Numba would compile for every part.
A call is then never inlined: a part or a kernel is called once per call of the
gradient, outside loops, on whole arrays.  A part without a loop (:data:`GLUE_MARK`), and
a function whose body was outlined into parts (the loader tells it by its calls), is
straight-line code: LLVM's -O1 module passes instead of -O3, and machine code from a
target machine at -O0 instead of the JIT's -O3.  It holds calls, checks and short
expressions; its heavy loops are the kernels' (which keep -O3).  At 100 statements the
module passes took 2.8-3.1 s instead of 1.1-1.2 s at -O3; at 300 statements the machine
code took about 1.5 s instead of 7.5 s, and the gradient of 16-element arrays (all call
overhead) ran 1.46x slower, the benchmark gradients no slower (docs/performance.md).

Numba's disk cache stores a caller's machine code with its callees' symbols unresolved,
so a process that loads a caller from the cache must hold its callees first: each cache
entry lists the callees it calls (name, signature, symbol), :class:`_LinkedCache` loads
them before the caller, and compiles the caller afresh when one of them cannot be
loaded under the same symbol (its entry was removed, or rewritten by another process).
"""
from __future__ import annotations

import llvmlite.binding as ll
from numba.core import caching
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import Compiler, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.registry import CPUDispatcher
from numba.core.typed_passes import NopythonTypeInference

CALLEE_MARK = "# callee: compiled once, called by symbol"
GLUE_MARK = "# callee, straight-line: compiled once at -O1, called by symbol"


class SymbolLibrary(JITCodeLibrary):
    """The code of one callee overload: callers call its symbols instead of linking it."""

    callee = None          # (function name, argument types, symbol), set by _Dispatcher

    def _get_module_for_linking(self):
        # nothing to link: the caller's own declaration of the callee is resolved by the JIT
        module = ll.parse_assembly(str(self._codegen._create_empty_module(self.name)))
        module.name = self.name
        return module

    def serialize_using_object_code(self):
        # the cache keeps the code's real module: loading it registers the symbols it
        # defines, which a caller loaded later checks (_LinkedCache)
        self._ensure_finalized()
        linkable = JITCodeLibrary._get_module_for_linking(self)
        return (self.name, "object", (self._get_compiled_object(), linkable.as_bitcode()))


class _StraightLine:
    """Code without loops: LLVM's -O1 module passes instead of -O3, and machine code from
    a target machine at -O0 instead of the JIT's -O3."""

    def _optimize_final_module(self):
        passes, builder = self._codegen._module_pass_manager(opt=1, loop_vectorize=False, slp_vectorize=False)
        passes.run(self._final_module, builder)

    def _finalize_specific(self):
        # The JIT asks its object cache for a module's code before it compiles the module
        # (JITCodeLibrary._object_getbuffer_hook): the code made here is what it loads.
        self._object = self._compiled_object = _glue_machine(self._codegen).emit_object(self._final_module)
        super()._finalize_specific()

    def _get_compiled_object(self):
        return self._object          # for the disk cache; the JIT's hook took _compiled_object


class GlueLibrary(_StraightLine, SymbolLibrary):
    """A straight-line part's code, called by symbol."""


class GlueEntryLibrary(_StraightLine, JITCodeLibrary):
    """The code of a function that calls its outlined parts (and has no loop of its own)."""


_glue_machines = {}


def _glue_machine(codegen):
    """The JIT's target machine (the same CPU, features, relocation and code model) at
    -O0: fast instruction selection and register allocation."""
    if codegen not in _glue_machines:
        options = dict(opt=0)
        codegen._customize_tm_options(options)
        _glue_machines[codegen] = ll.Target.from_triple(ll.get_process_triple()).create_target_machine(**options)
    return _glue_machines[codegen]


def _library_pass(library_class, name):
    """A pipeline pass that lowers the function into a ``library_class`` (Numba makes
    its library when it lowers)."""

    class UseLibrary(FunctionPass):
        _name = name

        def __init__(self):
            FunctionPass.__init__(self)

        def run_pass(self, state):
            state.library = library_class(state.targetctx.codegen(), state.func_id.func_qualname)
            state.library.enable_object_caching()
            return False
    return register_pass(mutates_CFG=False, analysis_only=False)(UseLibrary)


def _compiler(library_pass):
    class StraightLineCompiler(Compiler):
        def define_pipelines(self):
            pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
            pipeline.add_pass_after(library_pass, NopythonTypeInference)
            pipeline.finalize()
            return [pipeline]
    return StraightLineCompiler


_GlueCompiler = _compiler(_library_pass(GlueLibrary, "sstad_glue_library"))
_GlueEntryCompiler = _compiler(_library_pass(GlueEntryLibrary, "sstad_glue_entry_library"))


class _Dispatcher(CPUDispatcher):
    """``numba.njit`` for one function of an emitted module; a callee's overloads get
    a :class:`SymbolLibrary`."""

    def __init__(self, py_func, cache, callee, glue):
        options = {"nopython": True, "boundscheck": None}
        if callee:
            options.update(no_cpython_wrapper=True, no_cfunc_wrapper=True)
        pipeline = (_GlueCompiler if callee else _GlueEntryCompiler) if glue else Compiler
        super().__init__(py_func, targetoptions=options, pipeline_class=pipeline)
        self.callee = callee
        if cache:
            self._cache = _LinkedCache(py_func)

    def add_overload(self, cres):
        # fresh or from the cache, before any caller is lowered (which links the library)
        if self.callee:
            if type(cres.library) is JITCodeLibrary:          # compiled so, or loaded from the cache
                cres.library.__class__ = SymbolLibrary
            cres.library.callee = (self.py_func.__name__, tuple(cres.signature.args), cres.fndesc.mangled_name)
        super().add_overload(cres)


def jit(py_func, cache, callee=False, glue=False):
    """The dispatcher of ``py_func``: ``numba.njit(cache=cache)`` for a function that is
    not a callee; ``glue``: straight-line code (optimised as :class:`_StraightLine`)."""
    return _Dispatcher(py_func, cache, callee, glue)


class _LinkedImpl(caching.CompileResultCacheImpl):
    """A cache entry: (the callees the code calls, Numba's own entry)."""

    def reduce(self, cres):
        return (_callees(cres.library), super().reduce(cres))


def _callees(library):
    """The callees ``library``'s code calls by symbol, also those of the functions linked
    into it (a function without a callee mark calls its own callees, and its code is in
    the caller's entry: a process that loads the entry must hold them too)."""
    found, seen, todo = [], set(), list(library._linking_libraries)
    while todo:
        lib = todo.pop()
        if id(lib) in seen:
            continue
        seen.add(id(lib))
        if isinstance(lib, SymbolLibrary):
            if lib.callee is not None and lib.callee not in found:
                found.append(lib.callee)
        else:
            todo.extend(lib._linking_libraries)
    return found


class _LinkedCache(caching.FunctionCache):
    _impl_class = _LinkedImpl

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        codegen = target_context.codegen()
        data = self._cache_file.load(self._index_key(sig, codegen))
        if data is None:
            return None
        callees, payload = data
        for name, args, symbol in callees:
            dispatcher = self._py_func.__globals__.get(name)
            if not isinstance(dispatcher, _Dispatcher):
                return None
            dispatcher.compile(args)          # from its own cache entry, or compiled afresh
            if not codegen._engine.is_symbol_defined(symbol):
                return None                   # compiled afresh under another symbol
        return self._impl.rebuild(target_context, payload)
