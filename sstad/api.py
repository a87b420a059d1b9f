"""The public API: ``jit`` and ``dump``."""
from __future__ import annotations

import _thread
import functools
import inspect
import linecache
import os
import re
import threading
import types
import warnings

import numba
import numpy as np

from sstad.backend import cuda, targets  # noqa: F401  (registers the python, numba and cuda backends)
from sstad.backend import heap, loader
from sstad.backend.base import BACKENDS, Backend, get_backend
from sstad.backend.python import emit_module
from sstad.backend.source_key import code_digest, source_key
from sstad.errors import BackendError, SstadError, SstadTypeError
from sstad.frontend.lower import Capture, ValueGuard, flatten_runtime, lower
from sstad.frontend.pytree import hashable, unflatten
from sstad.ir.printer import format_module
from sstad.ir.verify import verify_module
from sstad.passes import PASSES, run_passes
from sstad.passes.shape_speculation import rerunnable, speculating
from sstad.runtime import abstract as A
from sstad.runtime.broadcast import ShapeSpeculation

STAGES = ("ir", "python", "numba", "llvm")


CACHED_BACKENDS = ("python", "numba")     # whose emitted text a record keeps (see Compiled.record)


class Compiled:
    """The result of lowering ``fn`` for one signature, ready to run.  ``speculate``: its
    code may assume shapes agree and raise ``ShapeSpeculation`` where they do not
    (passes/shape_speculation.py)."""

    def __init__(self, fn, args, after=None, speculate=False):
        self.fn = fn
        lowering = getattr(fn, "sstad_lower", None)          # a transform (grad, vjp, ...)
        self.module, self.in_tree, self.out_tree, self.captures = (
            lowering(args) if lowering else lower(fn, args))
        verify_module(self.module)
        with speculating(speculate):
            run_passes(self.module, until=after)
        entry = self.module.entry
        self.entry_name, self.loc, self.results = entry.name, entry.loc, [r.type for r in entry.body.results]
        self._start()

    def _start(self):
        self._single = self.out_tree == ("leaf",) and len(self.results) == 1 and _declared(self.results[0])
        self.finish = self._finisher()
        self.key = None           # the source key of its disk record (see Jitted.specialise)
        self.code = None          # code_digest of the function when the key was taken
        self.saved = ()           # the backends whose text the record on disk holds
        self._sources = {}
        self._callables = {}
        self._background = {}     # backend name -> the thread compiling it (tiered)

    @classmethod
    def from_record(cls, fn, record):
        """A compilation read from its disk record: it runs, but has no IR, so it has the
        text of only the backends the record holds.  None if the globals it reads are not
        where the record says."""
        self = cls.__new__(cls)
        self.fn, self.module, self.in_tree, self.out_tree = fn, None, None, record["out_tree"]
        self.entry_name, self.loc, self.results = record["entry"], record["loc"], record["results"]
        self.captures = _captures_from(record["captures"], _user_function(fn))
        if self.captures is None:
            return None
        self._start()
        self._sources.update(record["sources"])
        self.saved = tuple(record["sources"])
        return self

    def record(self):
        """What :meth:`from_record` needs, or None if it cannot be written to disk (the
        result holds objects, a global lives outside the user's function, or the code
        calls library functions by names this process gave them, runtime/extern.py)."""
        captures = _capture_places(self.captures, _user_function(self.fn))
        sources = {b: t for b, t in self._sources.items() if b in CACHED_BACKENDS}
        if captures is None or not _plain_tree(self.out_tree) \
                or any("rt.extern_function(" in t for t in sources.values()):   # names of this process
            return None
        return {"sources": sources, "entry": self.entry_name, "loc": self.loc, "results": self.results,
                "out_tree": self.out_tree, "captures": captures}

    def save(self, backend):
        """Add ``backend``'s text to the disk record, after a call ran it."""
        if self.key is None or backend.name in self.saved or backend.name not in CACHED_BACKENDS:
            return
        record = self.record() if self.module is not None else None
        if record is None or code_digest(self.fn) != self.code:     # a file changed while it compiled
            self.key = None
            return
        old = loader.load_record(self.fn.__name__, self.key)
        if old is not None:
            record["sources"] = {**old["sources"], **record["sources"]}
        try:
            loader.save_record(self.fn.__name__, self.key, record)
        except (OSError, TypeError, AttributeError, ValueError):   # an unpicklable value in the tree
            self.key = None
            return
        self.saved = tuple(record["sources"])

    def source(self, backend):
        """The text ``backend`` runs (``"python"``: one primitive per line)."""
        backend = get_backend(backend)
        if backend.name not in self._sources:
            self._sources[backend.name] = backend.emit(self.module)
        return self._sources[backend.name]

    def callable(self, backend):
        backend = get_backend(backend)
        if backend.name not in self._callables:
            # the python and numba loaders read only the entry's name of the module
            module = self.module if self.module is not None else types.SimpleNamespace(
                entry=types.SimpleNamespace(name=self.entry_name))
            self._callables[backend.name] = backend.load(self.source(backend), module, self.fn.__name__)
        return self._callables[backend.name]

    def ready(self, backend):
        """``backend`` if its code is compiled (see :meth:`compile_in_background`), else
        the python backend.  A failed background compilation raises its error here."""
        backend = get_backend(backend)
        if backend.name == "python":
            return backend
        job = self._background.get(backend.name)
        if job is None or not job.done.is_set():
            return get_backend("python")
        if job.error is not None:
            error, job.error = job.error, None
            raise error
        return backend

    def compile_in_background(self, backend, leaves):
        """Start compiling ``backend``'s code for arguments like ``leaves`` in a thread
        (once; after the first result, so the thread does not delay it)."""
        backend = get_backend(backend)
        if backend.name != "python" and backend.name not in self._background:
            self._background[backend.name] = _Background(self, backend, leaves)

    def leaves(self, args, plain=False):
        """The compiled code's arguments: the leaves of ``args`` (``plain``: ``args``
        are leaves already), then the captured globals; None if a global changed."""
        leaves = list(args) if plain else flatten_runtime(args)[1]
        if self.captures:
            if not all(c.still_valid() for c in self.captures):
                return None                            # a global changed: compile again
            leaves += [c.fetch() for c in self.captures if c.frozen is None]
        return leaves

    def run(self, backend, leaves):
        backend = get_backend(backend)
        fn = self._callables.get(backend.name) or self.callable(backend)
        return self.finish(backend.call(fn, leaves))

    def _finisher(self):
        """``out`` of the compiled code -> the caller's result: a function chosen once."""
        if self._single:                                   # one result, no dtype to fix
            return _unchanged
        results = self.results
        if self.out_tree == ("leaf",) and len(results) == 1 and isinstance(results[0], (A.Array, A.Scalar)):
            kind = np.ndarray if isinstance(results[0], A.Array) else _returned_type(results[0].dtype)
            return functools.partial(_one_value, kind, results[0].dtype, self._general)
        arrays = tuple(r.dtype for r in results if isinstance(r, A.Array))
        if len(results) > 1 and len(arrays) == len(results) and self.out_tree == ("tuple", (("leaf",),) * len(arrays)):
            return functools.partial(_tuple_of_arrays, arrays, self._general)
        return self._general

    def _general(self, out):
        results = self.results
        flat = [] if not results else [out] if len(results) == 1 else list(out)
        flat = [_as_declared(v, r) for v, r in zip(flat, results)]
        return unflatten(self.out_tree, flat, list_type=list)


def _unchanged(out):
    return out


def _returned_type(dtype):
    """The type of a scalar of ``dtype`` that needs no conversion (:func:`_as_declared`)."""
    return dtype.type


def _one_value(kind, dtype, general, out):
    """One array or scalar as declared: handed back as it is."""
    if type(out) is kind and (kind is not np.ndarray or out.dtype is dtype):
        return out
    if type(out) in _PYTHON_NUMBERS and kind is not np.ndarray:     # Numba's float64, int64, bool
        return kind(out)
    return general(out)


_PYTHON_NUMBERS = (float, int, bool, complex)


def _tuple_of_arrays(dtypes, general, out):
    """A tuple of arrays as declared: handed back as it is (the common gradient's result)."""
    if type(out) is tuple and len(out) == len(dtypes):
        for v, dtype in zip(out, dtypes):
            if type(v) is not np.ndarray or v.dtype is not dtype and v.dtype != dtype:
                return general(out)
        return out
    return general(out)


class _Background:
    """One backend's compilation of a :class:`Compiled`, in a thread of its own that
    does not keep the program alive.  Started with ``_thread``: ``Thread.start`` would
    wait until the new thread runs, which holds the GIL for a switch interval or more
    (5-20 ms of the first call here)."""

    def __init__(self, compiled, backend, leaves):
        self.done, self.error = threading.Event(), None
        _thread.start_new_thread(self.run, (compiled, backend, leaves))

    def run(self, compiled, backend, leaves):
        try:
            fn = compiled.callable(backend)
            compiled.save(backend)            # the text, for the next process
            backend.compile(fn, leaves)
        except BaseException as exc:          # raised in the caller's thread, at its next call
            self.error = exc
        finally:
            self.done.set()


def _user_function(fn):
    """The function under a chain of transforms."""
    while hasattr(fn, "sstad_lower") and hasattr(fn, "fun"):
        fn = fn.fun
    return fn


def _capture_places(captures, root):
    """Where each captured global is, as names a new process can look up in ``root``'s
    globals and closure (or a module's attributes); None if one is elsewhere."""
    places = []
    for c in captures:
        if type(c) not in (Capture, ValueGuard) or not isinstance(root, types.FunctionType):
            return None
        if c.where == "global" and c.container is root.__globals__:
            where = ("global", None)
        elif c.where == "cell" and c.name in root.__code__.co_freevars \
                and c.container is root.__closure__[root.__code__.co_freevars.index(c.name)]:
            where = ("cell", None)
        elif c.where == "attr" and isinstance(c.container, types.ModuleType):
            where = ("attr", c.container.__name__)
        else:
            return None
        kind = "guard" if type(c) is ValueGuard else "array" if c.frozen is None else "number"
        places.append((kind, c.name, where, c.path))
    return places


def _captures_from(places, root):
    """The captures :func:`_capture_places` described, holding the values of now (the
    source key says they are the compiled ones); None if one cannot be found."""
    import sys
    captures = []
    for kind, name, (where, module), path in places:
        try:
            if where == "global":
                container = root.__globals__
            elif where == "cell":
                container = root.__closure__[root.__code__.co_freevars.index(name)]
            else:
                container = sys.modules[module]
            capture = Capture(name, where, container, None, None, path=path)
            value = capture.fetch()
        except (AttributeError, KeyError, ValueError, IndexError, TypeError):
            return None
        if kind == "guard":
            capture = ValueGuard(name, where, container, value)
        elif kind == "number":
            capture = Capture(name, where, container, value, None, frozen=value, path=path)
        else:
            capture = Capture(name, where, container, value, None, path=path)
        captures.append(capture)
    return captures


_PLAIN = (type(None), bool, int, float, complex, str, bytes)


def _plain_tree(treedef):
    """A result structure a new process can read back: containers, classes and plain
    static values (an object could not be the same object there)."""
    kind = treedef[0]
    if kind == "leaf":
        return True
    if kind == "static":
        return type(treedef[1]) in _PLAIN
    return all(_plain_tree(c) for c in treedef[-1])


def _declared(aval):
    """Does every value of ``aval`` come back from the backends as it is declared?  (A
    weak scalar is whatever Python number it is.)"""
    return isinstance(aval, A.Scalar) and aval.weak


def _as_declared(value, aval):
    """A result with the type NumPy gives: Numba returns a float64, int64 or bool scalar as
    a Python number, which NumPy's promotion takes as weak (``x32 * np.sum(y)`` would stay
    float32), and its float32 reductions as float64."""
    if isinstance(aval, A.Scalar) and not aval.weak and type(value) is not aval.dtype.type \
            and isinstance(value, (bool, int, float, complex, np.generic)):
        return aval.dtype.type(value)
    if isinstance(aval, A.Array) and isinstance(value, np.ndarray) and value.dtype != aval.dtype:
        return value.astype(aval.dtype)
    return value


def _signature(args):
    treedef, leaves = flatten_runtime(args)
    return hashable(treedef), tuple(A.of_value(v) for v in leaves)


# Arguments whose type alone decides their abstract value (arrays: with dtype and rank).
_SCALAR_TYPES = frozenset({float, int, bool, complex, np.float64, np.float32, np.int64, np.int32, np.bool_,
                           np.complex128, np.complex64})


def _dispatch_key(args):
    """A cheap key for arguments that are all NumPy arrays (of a built-in dtype in native
    byte order, which its number names) or numbers: what :func:`_signature` would say
    about them; None for anything else."""
    key = []
    for a in args:
        t = type(a)
        if t is np.ndarray:
            dtype = a.dtype
            if dtype.isbuiltin != 1 or a.ndim == 0:      # a 0-d array is passed as its number
                return None
            key.append(dtype.num * 64 + a.ndim)       # an int hashes faster than a dtype
        elif t in _SCALAR_TYPES:
            key.append(t)
        else:
            return None
    return tuple(key)


def unbound(fn):
    """``fn`` as (its function, the arguments and keywords bound in it): a
    ``functools.partial`` or a bound method is compiled as its function, and what it binds
    is passed at every call, as Python passes it (``self`` is an argument like any other)."""
    args, kwargs = (), {}
    while True:
        if isinstance(fn, functools.partial):
            args, kwargs, fn = fn.args + args, {**fn.keywords, **kwargs}, fn.func
        elif inspect.ismethod(fn):
            args, fn = (fn.__self__,) + args, fn.__func__
        elif isinstance(fn, Jitted):
            args, kwargs, fn = fn._args + args, {**fn._kwargs, **kwargs}, fn.fn
        else:
            return fn, args, kwargs


def as_positional(fn, args, kwargs):
    """The arguments of ``fn(*args, **kwargs)`` by position, as compiled code takes them: a
    parameter before the last one given takes its default."""
    if not kwargs:
        return args
    signature = inspect.signature(fn)
    try:
        given = dict(signature.bind_partial(*args, **kwargs).arguments)
    except TypeError as exc:
        raise TypeError(f"{fn.__name__}(): {exc}") from None
    named = [p for p in signature.parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = [p.name for p in signature.parameters.values() if p.kind == p.VAR_POSITIONAL]
    extra = tuple(given.pop(star[0], ())) if star else ()       # *args follow every named one
    others = [name for name in given if name not in {p.name for p in named}]
    if others:
        raise SstadTypeError(f"`{fn.__name__}` takes `{others[0]}` as a keyword-only or ** parameter, which "
                             "compiled code cannot be given", None,
                             "make it an ordinary parameter (before any `*`), or pass it by position")
    last = max((k for k, p in enumerate(named) if p.name in given), default=-1)
    positional = []
    for p in named[:last + 1]:
        if p.name in given:
            positional.append(given[p.name])
        elif p.default is not p.empty:
            positional.append(p.default)
        else:
            raise TypeError(f"{fn.__name__}() missing required argument: '{p.name}'")
    return tuple(positional) + extra


class Jitted:
    """A function compiled per argument signature.  See :func:`jit`."""

    def __init__(self, fn, backend, fallback, tiered=False):
        fn, self._args, self._kwargs = unbound(fn)
        self._binds = bool(self._args or self._kwargs) or getattr(fn, "sstad_binds", False)
        self.fn, self.backend, self.fallback, self.tiered = fn, get_backend(backend), fallback, tiered
        heap.keep_freed_memory()      # a tape's pages are reused by the next call, not faulted in again
        self._compiled = {}     # signature -> Compiled
        self._dispatch = {}     # _dispatch_key -> Compiled: the common case without a signature walk
        self._direct = {}       # _dispatch_key -> (Compiled, its compiled code): see _directly
        functools.update_wrapper(self, fn, updated=())

    def specialise(self, args):
        signature = _signature(args)
        compiled = self._compiled.get(signature)
        if compiled is None:
            # the key before lowering, as a new process computes it (lowering registers
            # the library functions it meets in the rule tables)
            key = source_key(self.fn, signature) if self._needed() <= set(CACHED_BACKENDS) else None
            compiled = (self._from_disk(key) if key is not None else None) \
                or Compiled(self.fn, args, speculate=self._needed() <= set(CACHED_BACKENDS))
            if key is not None and compiled.key is None and compiled.module is not None:
                compiled.key, compiled.code = key, code_digest(self.fn)
                compiled.source("python")   # the record keeps it too: a tiered call runs it first
            self._compiled[signature] = compiled
        return compiled

    def _needed(self):
        """The backends a call may run: the chosen one, and python while it compiles."""
        return {self.backend.name, "python"} if self.tiered else {self.backend.name}

    def _from_disk(self, key):
        """The compilation a previous process recorded under ``key``, if it has the
        text of every backend this function may run."""
        record = loader.load_record(self.fn.__name__, key)
        if record is None or not self._needed() <= set(record["sources"]):
            return None
        compiled = Compiled.from_record(self.fn, record)
        if compiled is not None:
            compiled.key = key
        return compiled

    def _without_speculation(self, compiled, args):
        """Compile ``args``' signature again without shape speculation (its checks failed)
        and use that from now on, for every signature that ran ``compiled``."""
        general = Compiled(self.fn, args)
        self._direct.clear()
        for table in (self._compiled, self._dispatch):
            for key, value in table.items():
                if value is compiled:
                    table[key] = general

    def _forget(self):
        self._compiled.clear()
        self._dispatch.clear()
        self._direct.clear()

    def _directly(self, key, compiled, backend):
        """Let later calls with ``key`` call ``compiled``'s code with the arguments as they
        are: where they are its leaves (no captured globals to check and append), the
        backend calls it plainly and it is compiled and saved (not tiered)."""
        if key is not None and not self.tiered and not compiled.captures and backend is self.backend \
                and type(backend).call is Backend.call and backend.name in compiled._callables \
                and (compiled.key is None or backend.name in compiled.saved):
            self._direct[key] = (compiled, compiled._callables[backend.name])

    def bind(self, args, kwargs):
        """The arguments of a call by position, with what a partial or a method binds."""
        args, kwargs = self._args + args, {**self._kwargs, **kwargs}
        if hasattr(self.fn, "sstad_bind"):
            return self.fn.sstad_bind(args, kwargs)
        return as_positional(self.fn, args, kwargs)

    def __call__(self, *args, _sstad_bound=False, **kwargs):
        if (kwargs or self._binds) and not _sstad_bound:
            args = self.bind(args, kwargs)
        key = _dispatch_key(args)
        direct = self._direct.get(key) if key is not None else None
        if direct is not None:
            compiled, fn = direct
            try:
                return compiled.finish(fn(*args))
            except Exception as exc:         # handled as the general path does (not run again)
                return self._failed(compiled, args, self.backend, exc)
        compiled = self._dispatch.get(key) if key is not None else None
        leaves = compiled.leaves(args, plain=True) if compiled is not None else None
        if leaves is None:
            compiled = self.specialise(args)
            leaves = compiled.leaves(args)
            if leaves is None:                         # a captured global changed type
                self._forget()
                compiled = self.specialise(args)
                leaves = compiled.leaves(args)
            if key is not None:
                self._dispatch[key] = compiled
        backend = self.backend
        try:
            backend = compiled.ready(self.backend) if self.tiered else self.backend
            out = compiled.run(backend, leaves)
            if compiled.key is not None and backend.name not in compiled.saved:
                compiled.save(backend)
            if self.tiered:
                compiled.compile_in_background(self.backend, leaves)
            else:
                self._directly(key, compiled, backend)
            return out
        except Exception as exc:
            return self._failed(compiled, args, backend, exc)

    def _failed(self, compiled, args, backend, exc):
        """What a call that raised ``exc`` in ``compiled``'s code returns or raises."""
        if isinstance(exc, ShapeSpeculation):
            self._without_speculation(compiled, args)
            return self(*args, _sstad_bound=True)
        error = self.backend.translate_error(exc, self.fn.__name__, compiled.loc)
        if error is None:
            if backend.name == "python" or isinstance(exc, SstadError) or not _locate_with_python(self.fn, args, exc):
                _note_user_line(exc, compiled.loc)
            raise exc
        if not self.fallback:
            raise error from None
        warnings.warn(str(error), stacklevel=3)
        self.backend = get_backend("python")
        self._direct.clear()
        if "python" not in compiled._sources and compiled.module is None:   # read from disk: lower it
            self._forget()
            compiled = self.specialise(args)
        return compiled.run(self.backend, compiled.leaves(args))


# the comment the emitted code has above the statements of each source line
_SOURCE_COMMENT = re.compile(r"^\s*# (\S+\.py):(\d+)  (.*)$")


def _locate_with_python(fn, args, exc):
    """Compiled code keeps no lines: run the call again on the python backend, whose
    error names the user's line, and give ``exc`` that note.  Only where a second run
    cannot differ from the first (no effects, no writes into an argument's memory: a
    collective would wait for ranks that do not rerun) and raises the same error.
    Returns whether it found the line."""
    try:
        again = Compiled(fn, args)
    except Exception:                           # noqa: BLE001  (the first error stands)
        return False
    if not rerunnable(again.module):
        return False
    try:
        again.run("python", again.leaves(args))
    except Exception as second:                 # noqa: BLE001  (only its note is used)
        if type(second) is type(exc):
            _note_user_line(second, again.loc)
            for note in getattr(second, "__notes__", []):
                exc.add_note(note)
            return bool(getattr(second, "__notes__", None))
    return False


def _note_user_line(exc, loc):
    """Name the user's line in an error that emitted Python code raised (a shape mismatch, a
    NumPy error): the comments of the emitted code say which line each statement comes
    from, and a rule's comment is under the line of the user's it differentiates."""
    if isinstance(exc, SstadError) or loc is None:
        return
    tb, where = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith("<sstad "):
            where = (tb.tb_frame.f_code.co_filename, tb.tb_lineno)       # the innermost wins
        tb = tb.tb_next
    if where is None:            # compiled code (Numba) keeps no line of its own
        exc.add_note(f"raised by the compiled code of {loc.file}:{loc.line}; "
                     "backend='python' names the line that raised it")
        return
    user_file, rule = os.path.basename(loc.file), None
    for text in reversed(linecache.getlines(where[0])[:where[1]]):
        match = _SOURCE_COMMENT.match(text)
        if match is None:
            continue
        name, line, code = match.groups()
        if name != user_file:
            rule = rule or f"{name}:{line}"
            continue
        through = f" (in the derivative rule at {rule})" if rule else ""
        exc.add_note(f"raised by sstad's code for {loc.file}:{line}{through}:\n    {code}")
        return


def jit(fn=None, *, backend="numba", fallback=False, tiered=False):
    """Compile a NumPy function: ``sstad.jit(f)`` or ``@sstad.jit``.

    ``backend="numba"`` (default) compiles the emitted Python with ``numba.njit`` in
    nopython mode; ``backend="python"`` runs the same text with ``exec``.  If Numba
    cannot type the code, a :class:`~sstad.errors.BackendError` says why, unless
    ``fallback=True``, which warns and uses the python backend.

    ``tiered=True`` does not wait for Numba: the first calls of each signature run the
    python backend while Numba compiles in a background thread, and the first call after
    it is done runs the compiled code.  A Numba error is raised by that call (or, with
    ``fallback=True``, warned about once, and the python backend stays).

    sstad compiles from the function's source, so it must be defined in a file, or in an
    IPython/Jupyter cell.  Example, in a ``.py`` file::

        import numpy as np
        import sstad

        @sstad.jit(backend="python")
        def f(x):
            return (x * x).sum()

        assert f(np.arange(3.0)) == 5.0
    """
    if fn is None:
        return lambda f: jit(f, backend=backend, fallback=fallback, tiered=tiered)
    if hasattr(fn, "sstad_jit"):       # jacfwd, jacrev, hessian: loops over compiled derivatives
        return fn.sstad_jit(backend)
    return Jitted(fn, backend, fallback, tiered)


def dump(fn, *args, emit="ir", after=None):
    """The text of one compilation stage of ``fn`` specialised to ``args``.

    ``emit``: ``"ir"`` (the ANF IR), ``"python"`` (the emitted source, one primitive
    per line), ``"numba"`` (the same with chains of elementwise operations written as one
    expression, which Numba fuses into one loop: what the numba backend compiles) or ``"llvm"``
    (Numba's LLVM IR of the entry function).  ``after``: the name of a pass to stop
    after (``"lowering"`` for the IR before any pass).  Example, in a ``.py`` file::

        import numpy as np
        import sstad

        def damp(x, rate, tol):
            while np.max(np.abs(x)) > tol:
                x = x * rate
            return x

        ir = sstad.dump(damp, np.ones(3), 0.5, 1e-6)
        assert ir.startswith("def damp(x: f64[:], rate: f64~, tol: f64~)")
        assert "while np.max(np.abs(x)) > tol:" in sstad.dump(damp, np.ones(3), 0.5, 1e-6, emit="python")
    """
    if emit not in STAGES and emit not in BACKENDS:
        raise ValueError(f"emit must be one of {STAGES + tuple(b for b in BACKENDS if b not in STAGES)}, "
                         f"not {emit!r}")
    fn, bound, keywords = unbound(fn)          # a method or a partial: what it binds comes first
    args = fn.sstad_bind(bound + args, keywords) if getattr(fn, "sstad_binds", False) \
        else as_positional(fn, bound + args, keywords)
    if after is not None and after != "lowering" and after not in PASSES:
        raise ValueError(f"unknown pass {after!r}; passes: lowering, {', '.join(PASSES)}")
    if after == "lowering":
        module, *_ = (fn.sstad_lower(args) if hasattr(fn, "sstad_lower") else lower(fn, args))
        verify_module(module)
        compiled = None
    else:
        compiled = Compiled(fn, args, after=after, speculate=emit != "cuda")
        module = compiled.module
    if emit == "ir":
        return format_module(module)
    if emit in BACKENDS:
        return compiled.source(emit) if compiled else emit_module(module, emit)
    compiled = compiled or Compiled(fn, args)
    # A fresh, uncached dispatcher: one loaded from Numba's disk cache has no LLVM text.
    dispatcher = numba.njit(compiled.callable("numba").py_func)
    leaves = compiled.leaves(args)
    signature = tuple(numba.typeof(v) for v in leaves)
    try:
        dispatcher.compile(signature)
    except numba.core.errors.TypingError as exc:
        raise BackendError(f"Numba cannot compile `{fn.__name__}`: {str(exc).splitlines()[0]}") from None
    return dispatcher.inspect_llvm(signature)


