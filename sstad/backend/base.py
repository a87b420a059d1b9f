"""Backends: the one seam between the compiler and what runs its output.

A :class:`Backend` turns an optimised IR module into something callable: it lowers each
primitive through its own table (``LOWERINGS[backend name]``, filled next to the
primitives in ``runtime/``; a primitive without an entry uses its NumPy spelling,
``Primitive.emit``), loads the text, calls it, and turns its toolchain's errors into
sstad errors at the user's line.  ``api``, the CLI, ``sstad.testing`` and the tests
reach backends only through :func:`get_backend` and :data:`BACKENDS`.
"""
from __future__ import annotations

from sstad.runtime import abstract as A
from sstad.runtime.primitive import LOWERINGS

BACKENDS: dict = {}        # name -> Backend


class Backend:
    """How one target runs the IR.  Subclass and :func:`register` to add a target.

    ``fuse``: emit chains of elementwise operations as one expression (the ``fusion``
    pass decides which); ``outline``: split functions into parts of about this many
    applications, each compiled on its own (0: never); ``name``: the key of its
    lowering table."""
    name = None
    fuse = False
    outline = 0
    array_types = ()     # its own array types (device arrays): run-time arrays, never constants

    def lower(self, prim):
        """The function ``(args, params, avals) -> text`` that spells ``prim`` here."""
        return LOWERINGS.get(self.name, {}).get(prim.name, prim.emit)

    def emit(self, module):
        from sstad.backend.python import emit_module
        return emit_module(module, backend=self)

    def load(self, source, module, label):
        """The entry function of ``source`` (the emitted text of ``module``)."""
        raise NotImplementedError

    def call(self, fn, leaves):
        return fn(*leaves)

    def compile(self, fn, leaves):
        """Compile ``fn`` (from :meth:`load`) for arguments like ``leaves`` ahead of the
        first call, where the toolchain compiles lazily."""

    def translate_error(self, exc, fn_name, loc):
        """An sstad error for ``exc`` raised by this backend's toolchain, or None."""
        return None

    def __repr__(self):
        return f"<backend {self.name}>"


def register(backend):
    """Make ``backend`` (an instance) available as ``sstad.jit(f, backend=backend.name)``."""
    BACKENDS[backend.name] = backend
    for t in backend.array_types:
        if t not in A.ARRAY_TYPES:
            A.ARRAY_TYPES.append(t)
    return backend


def get_backend(backend):
    """A registered backend by name (a Backend instance passes through)."""
    if isinstance(backend, Backend):
        return backend
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {tuple(BACKENDS)}, not {backend!r}")
    return BACKENDS[backend]
