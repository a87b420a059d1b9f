"""The public API: ``jit`` and ``dump``."""
from __future__ import annotations

import functools
import threading
import warnings

import numba
import numpy as np

from sstad.backend import cuda, targets  # noqa: F401  (registers the python, numba and cuda backends)
from sstad.backend.base import BACKENDS, get_backend
from sstad.backend.python import emit_module
from sstad.errors import BackendError
from sstad.frontend.lower import flatten_runtime, lower
from sstad.frontend.pytree import hashable, unflatten
from sstad.ir.printer import format_module
from sstad.ir.verify import verify_module
from sstad.passes import PASSES, run_passes
from sstad.runtime import abstract as A

STAGES = ("ir", "python", "numba", "llvm")


class Compiled:
    """The result of lowering ``fn`` for one signature, ready to run."""

    def __init__(self, fn, args, after=None):
        self.fn = fn
        lowering = getattr(fn, "sstad_lower", None)          # a transform (grad, vjp, ...)
        self.module, self.in_tree, self.out_tree, self.captures = (
            lowering(args) if lowering else lower(fn, args))
        verify_module(self.module)
        run_passes(self.module, until=after)
        self._sources = {}
        self._callables = {}
        self._background = {}     # backend name -> the thread compiling it (tiered)

    def source(self, backend):
        """The text ``backend`` runs (``"python"``: one primitive per line)."""
        backend = get_backend(backend)
        if backend.name not in self._sources:
            self._sources[backend.name] = backend.emit(self.module)
        return self._sources[backend.name]

    def callable(self, backend):
        backend = get_backend(backend)
        if backend.name not in self._callables:
            self._callables[backend.name] = backend.load(self.source(backend), self.module, self.fn.__name__)
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

    def leaves(self, args):
        _, leaves = flatten_runtime(args)
        if not all(c.still_valid() for c in self.captures):
            return None                            # a global changed: compile again
        return leaves + [c.fetch() for c in self.captures if c.frozen is None]

    def run(self, backend, leaves):
        out = get_backend(backend).call(self.callable(backend), leaves)
        count = len(self.module.entry.body.results)
        flat = [] if count == 0 else [out] if count == 1 else list(out)
        flat = [_as_declared(v, r.type) for v, r in zip(flat, self.module.entry.body.results)]
        return unflatten(self.out_tree, flat, list_type=list)


class _Background:
    """One backend's compilation of a :class:`Compiled`, in a daemon thread."""

    def __init__(self, compiled, backend, leaves):
        self.done, self.error = threading.Event(), None
        thread = threading.Thread(target=self.run, args=(compiled, backend, leaves), daemon=True,
                                  name=f"sstad compile {compiled.fn.__name__}")
        thread.start()

    def run(self, compiled, backend, leaves):
        try:
            backend.compile(compiled.callable(backend), leaves)
        except BaseException as exc:          # raised in the caller's thread, at its next call
            self.error = exc
        finally:
            self.done.set()


def _as_declared(value, aval):
    """A result with the dtype NumPy gives (Numba's float32 reductions return float64)."""
    if isinstance(aval, A.Scalar) and not aval.weak and isinstance(value, (float, np.floating)) \
            and np.dtype(type(value)) != aval.dtype:
        return aval.dtype.type(value)
    if isinstance(aval, A.Array) and isinstance(value, np.ndarray) and value.dtype != aval.dtype:
        return value.astype(aval.dtype)
    return value


def _signature(args):
    treedef, leaves = flatten_runtime(args)
    return hashable(treedef), tuple(A.of_value(v) for v in leaves)


class Jitted:
    """A function compiled per argument signature.  See :func:`jit`."""

    def __init__(self, fn, backend, fallback, tiered=False):
        self.fn, self.backend, self.fallback, self.tiered = fn, get_backend(backend), fallback, tiered
        self._compiled = {}
        functools.update_wrapper(self, fn, updated=())

    def specialise(self, args):
        key = _signature(args)
        if key not in self._compiled:
            self._compiled[key] = Compiled(self.fn, args)
        return self._compiled[key]

    def __call__(self, *args):
        compiled = self.specialise(args)
        leaves = compiled.leaves(args)
        if leaves is None:                         # a captured global changed type
            self._compiled.pop(_signature(args))
            compiled = self.specialise(args)
            leaves = compiled.leaves(args)
        try:
            if not self.tiered:
                return compiled.run(self.backend, leaves)
            out = compiled.run(compiled.ready(self.backend), leaves)
            compiled.compile_in_background(self.backend, leaves)
            return out
        except Exception as exc:
            error = self.backend.translate_error(exc, self.fn.__name__, compiled.module.entry.loc)
            if error is None:
                raise
            if not self.fallback:
                raise error from None
            warnings.warn(str(error), stacklevel=2)
            self.backend = get_backend("python")
            return compiled.run(self.backend, leaves)


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
    fn = fn.fn if isinstance(fn, Jitted) else fn
    if after is not None and after != "lowering" and after not in PASSES:
        raise ValueError(f"unknown pass {after!r}; passes: lowering, {', '.join(PASSES)}")
    if after == "lowering":
        module, *_ = (fn.sstad_lower(args) if hasattr(fn, "sstad_lower") else lower(fn, args))
        verify_module(module)
        compiled = None
    else:
        compiled = Compiled(fn, args, after=after)
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


