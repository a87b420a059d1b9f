"""A disk-cache key for a compilation, computed without lowering the function.

The key hashes everything that decides the emitted code: the text of each file whose
functions the compilation can reach (the function, the helpers, globals, closures and
defaults it reads, its arguments' classes), the values compiled in (numbers and strings
by value, arrays by dtype and rank: their contents are read at each call), the transform
chain (``grad``, ``argnums``, its options), the argument signature, sstad's own source
and the state of its rule tables (a rule replaced at run time changes the key), and the
versions of Python, NumPy and Numba.  Under the key, the disk record holds each backend's
emitted text (``sstad/backend/loader.py``): a new process that finds it imports the
emitted module directly, with no parsing, lowering or differentiation.

What cannot be named the same way in another process (an arbitrary object compiled in by
identity, a function that imports inside its body) makes the compilation *unkeyable*:
:func:`source_key` returns None and sstad compiles it as usual.
"""
from __future__ import annotations

import builtins
import dis
import hashlib
import importlib.util
import linecache
import os
import pathlib
import sys
import types

import numba
import numpy as np

from sstad.passes import switch_states

import sstad
import sstad.runtime
from sstad.frontend.source import LIBRARIES, is_library_function

_KERNELS = importlib.util.find_spec("sstad.kernels")
_PACKAGE_ROOTS = tuple(sorted(os.path.join(os.path.realpath(str(p)), "") for p in
                              {pathlib.Path(__file__).parents[1], pathlib.Path(sstad.runtime.__file__).parent}
                              | ({pathlib.Path(_KERNELS.origin).parent} if _KERNELS else set())))
_SIMPLE = (type(None), bool, int, float, complex, str, bytes)
_IMPORTS = {"IMPORT_NAME", "IMPORT_FROM", "IMPORT_STAR"}
_SKIPPED_ATTRS = {"__wrapped__", "__doc__", "__annotations__", "__dict__", "__weakref__", "__module__",
                  "__qualname__", "__name__"}


class Unkeyable(Exception):
    """A value the key cannot name the same way in another process."""


def source_key(fn, signature):
    """The key of compiling ``fn`` (a function or a transform of one) for ``signature``
    (``(treedef, abstract values)`` of the arguments); None if some value it reaches
    cannot be keyed.  The backends' texts are kept under the same key."""
    try:
        parts = (_package_digest(), _rules_digest(), Walk().transform(fn), Walk().value(signature[0]),
                 tuple(repr(a) for a in signature[1]), switch_states())
    except Exception:        # Unkeyable, or a value that fails when looked at: compile as usual
        return None
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:20]


_places: dict = {}      # file name -> "package", "library" or "user"


def _place(filename):
    if filename not in _places:
        path = os.path.realpath(filename)
        parts = path.split(os.sep)
        _places[filename] = ("package" if path.startswith(_PACKAGE_ROOTS) else
                             "library" if "site-packages" in parts or "dist-packages" in parts
                             or filename.startswith("<") else "user")
    return _places[filename]


def code_digest(fn):
    """The part of the key that comes from the user's code alone (files, globals,
    transforms): taken again after compiling, to tell that nothing changed meanwhile."""
    try:
        return hashlib.sha256(repr(Walk().transform(fn)).encode()).hexdigest()
    except Unkeyable:
        return None


def _in_package(filename):
    return _place(filename) == "package"


def file_digest(filename):
    """The digest of a file as the frontend reads it (through ``linecache``)."""
    linecache.checkcache(filename)
    return hashlib.sha256("".join(linecache.getlines(filename)).encode()).hexdigest()


_package = []


def _package_digest():
    """sstad's own source files (compiler, runtime, kernels: each one's name, size and
    modification time, as Python's bytecode cache checks them) and the toolchain's
    versions; once per process."""
    if not _package:
        lines = [f"{sys.version} {np.__version__} {numba.__version__} {sstad.__version__}",
                 f"svml {sstad.runtime.svml.AVAILABLE}"]     # emitted code calls SVML only where it loads
        for root in _PACKAGE_ROOTS:
            lines.extend(_stats(root))
        _package.append(hashlib.sha256("\n".join(lines).encode()).hexdigest())
    return _package[0]


def _stats(folder):
    """``path size mtime`` of the ``.py`` files under ``folder``, in a fixed order."""
    out = []
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                out.extend(_stats(entry.path))
            elif entry.name.endswith(".py"):
                stat = entry.stat()
                out.append(f"{entry.path} {stat.st_size} {stat.st_mtime_ns}")
    return out


def _namespaces():
    """What the compiler reads besides the files: ``(label, namespace, public only)`` for
    each module of sstad and each class defined in one (their public names: private ones
    are caches filled as the process runs, and ``__slotnames__`` that pickling adds to a
    class), each primitive's attributes, the composites and the lowering tables."""
    from sstad.runtime.composites import COMPOSITES
    from sstad.runtime.primitive import LOWERINGS, PRIMITIVES
    for name in sorted(n for n in sys.modules if n.startswith("sstad.") or n == "sstad"):
        namespace = vars(sys.modules[name])
        yield (name,), namespace, True
        for attr, value in list(namespace.items()):
            if not attr.startswith("_") and isinstance(value, type) and value.__module__ == name:
                yield (name, attr), vars(value), True             # NumbaBackend.outline
    for name, prim in PRIMITIVES.items():
        yield ("primitive", name), vars(prim), False
    yield ("composite",), dict(enumerate(COMPOSITES.values())), False     # keyed by ids
    for backend, table in LOWERINGS.items():
        yield ("lowering", backend), table, False


def _entries(label, namespace, public):
    return [(label + (k,), v) for k, v in list(namespace.items()) if not (public and k.startswith("_"))]


def _fingerprint(namespace):
    """The names of a namespace and the identities of its values (read in C: cheap)."""
    return tuple(namespace), tuple(map(id, namespace.values()))


_pristine = {}    # the state as importing sstad left it
_pristine_namespaces = {}    # label -> the fingerprint of its namespace then


def mark_pristine():
    """Remember the state as importing sstad leaves it: it follows from sstad's files,
    so a fresh process need not describe it."""
    _pristine.clear()
    _pristine_namespaces.clear()
    for label, namespace, public in _namespaces():
        _pristine.update(_entries(label, namespace, public))
        _pristine_namespaces[label] = _fingerprint(namespace)


_MISSING = object()


def _rules_digest():
    """What differs from the state importing sstad left, by name: a rule or helper
    replaced at run time (a monkeypatch) changes the key, and so does a module imported
    since (its values are described, which a fresh process that imported it too finds
    the same); "as imported" when nothing does.  A namespace whose names and values are
    those it had then is not read name by name (the public values it held then are still
    held here, so an equal identity is the same value)."""
    changed = []
    for label, namespace, public in _namespaces():
        if _pristine_namespaces.get(label) == _fingerprint(namespace):
            continue
        changed += [f"{key}={_shallow(value)}" for key, value in _entries(label, namespace, public)
                    if _pristine.get(key, _MISSING) is not value]
    return hashlib.sha256("\n".join(changed).encode()).hexdigest() if changed else "as imported"


def _shallow(value, depth=1):
    """One line that changes when ``value`` is replaced: functions by where they are
    defined (and their file's text, outside sstad) and their closure, numbers by value."""
    if isinstance(value, _SIMPLE):
        return repr(value)
    if isinstance(value, types.FunctionType):
        code = value.__code__
        cells = tuple(_shallow(c.cell_contents, depth - 1) if _full(c) else "empty"
                      for c in value.__closure__ or ()) if depth > 0 else ()
        where = f"{value.__module__}.{value.__qualname__}@{code.co_filename}:{code.co_firstlineno}{cells}"
        if _place(code.co_filename) == "user":        # a rule defined in a test, say
            where += file_digest(code.co_filename)
        return where
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    if isinstance(value, dict) and depth:
        return repr([_shallow(v, depth - 1) for v in value.values()])
    if isinstance(value, tuple) and depth:
        return repr([_shallow(v, depth - 1) for v in value])
    if isinstance(value, frozenset) and depth:
        return repr(sorted(_shallow(v, depth - 1) for v in value))
    if isinstance(value, np.ndarray):
        return f"array {value.dtype} {value.shape} " + (hashlib.sha256(value.tobytes()).hexdigest()
                                                        if value.size <= 10**5 else "")
    if isinstance(value, (np.generic, np.dtype)):
        return repr(value)
    if isinstance(value, types.ModuleType):
        return value.__name__
    if isinstance(value, (types.BuiltinFunctionType, np.ufunc)):
        return f"{getattr(value, '__module__', None)}.{value.__name__}"
    return type(value).__qualname__


def _full(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


class Walk:
    """The fingerprint of the values one compilation reaches, each object once."""

    def __init__(self):
        self.seen = {}         # id -> fingerprint (a placeholder while it is being walked)
        self.keep = []         # the objects of those ids stay alive while walking

    def transform(self, fn):
        """The chain of transforms down to the user's function."""
        chain = []
        while hasattr(fn, "sstad_lower"):
            if not hasattr(fn, "fun"):
                raise Unkeyable(fn)
            chain.append(self.object(fn))
            fn = fn.fun
        return tuple(chain), self.value(fn)

    def value(self, v, names=frozenset()):
        if isinstance(v, _SIMPLE):
            return (type(v).__name__, v)
        if isinstance(v, np.generic):
            return (v.dtype.str, v.item())
        if isinstance(v, np.ndarray):
            if v.dtype == object:
                raise Unkeyable(v)
            return ("array", v.dtype.str, v.ndim)
        if isinstance(v, (tuple, list)):
            return (type(v).__name__, tuple(self.value(x, names) for x in v))
        if isinstance(v, dict):
            return ("dict", tuple((self.value(k), self.value(x, names)) for k, x in v.items()))
        if isinstance(v, np.dtype):
            return ("dtype", v.str)
        if isinstance(v, types.ModuleType):      # what is read from it depends on the reader
            return self.module(v, names)
        key = id(v)
        if key in self.seen:
            return self.seen[key]
        self.seen[key] = ("cycle", len(self.seen))
        self.keep.append(v)
        self.seen[key] = out = self._object_value(v, names)
        return out

    def _object_value(self, v, names):
        if isinstance(v, types.FunctionType):
            return self.function(v)
        if isinstance(v, type):
            return self.cls(v)
        if isinstance(v, (types.BuiltinFunctionType, np.ufunc)):
            return ("builtin", getattr(v, "__module__", None) or "", getattr(v, "__qualname__", v.__name__))
        if isinstance(v, (staticmethod, classmethod)):
            return (type(v).__name__, self.value(v.__func__))
        if isinstance(v, property):
            return ("property", self.value(v.fget), self.value(v.fset))
        if _module_of(type(v)).startswith("sstad."):
            return self.object(v)
        raise Unkeyable(v)           # compiled in by identity: no name in another process

    def object(self, v):
        """An sstad object (a transform, a custom rule): its class and public attributes."""
        attrs = tuple((k, self.value(x)) for k, x in sorted(vars(v).items())
                      if not k.startswith("_"))
        return ("sstad object", f"{type(v).__module__}.{type(v).__qualname__}", attrs)

    def function(self, fn):
        module = fn.__module__ or ""
        code = fn.__code__
        generated = code.co_filename.startswith("<") and not code.co_filename.startswith("<ipython-input-")
        if module == "sstad" or module.startswith("sstad.") or _in_package(code.co_filename) \
                or is_library_function(fn) or generated:
            # sstad's source is in the package digest; library code and generated methods
            # (a dataclass's __init__) are called, not compiled from source
            closure = tuple(self.value(c.cell_contents) if _full(c) else "empty" for c in fn.__closure__ or ())
            return ("named function", module, fn.__qualname__, _code_digest(code), closure,
                    self.value(fn.__defaults__), self.value(fn.__kwdefaults__))
        names = _names(code)
        globals_ = fn.__globals__
        read = []
        for name in sorted(names):
            if name in globals_:
                read.append((name, self.value(globals_[name], names)))
            elif hasattr(builtins, name):
                read.append((name, "builtin"))
        closure = tuple((n, self.value(c.cell_contents, names) if _full(c) else "empty")
                        for n, c in zip(code.co_freevars, fn.__closure__ or ()))
        return ("function", module, fn.__qualname__, code.co_filename, code.co_firstlineno, _code_digest(code),
                file_digest(code.co_filename), self.value(fn.__defaults__), self.value(fn.__kwdefaults__),
                closure, tuple(read))

    def module(self, m, names):
        name = m.__name__
        attrs = vars(m)          # not getattr: a module's __getattr__ may import (np.testing)
        if name == "sstad" or name.startswith("sstad."):
            return ("module", name)          # its state is in the rules digest
        if name.split(".")[0] in sys.stdlib_module_names or _library_name(m):
            # by name; what the function reads from it by where it is defined (np.sin replaced)
            return ("module", name, tuple((n, _shallow(attrs[n], 0)) for n in sorted(names) if n in attrs))
        # a user's module: the attributes the function may read from it
        key = (id(m), names)
        if key not in self.seen:
            self.seen[key] = ("cycle", len(self.seen))
            self.seen[key] = ("module", name, tuple((n, self.value(attrs[n], names))
                                                    for n in sorted(names) if n in attrs))
        return self.seen[key]

    def cls(self, c):
        module = c.__module__ or ""
        if module == "builtins" or module.startswith("sstad.") or _library_name(c):
            return ("class", module, c.__qualname__)
        filename = getattr(sys.modules.get(module), "__file__", None)
        attrs = []
        for k, v in vars(c).items():
            if k in _SKIPPED_ATTRS or (k.startswith("__") and not callable(v)):
                continue
            attrs.append((k, self.value(v)))
        return ("class", module, c.__qualname__, file_digest(filename) if filename else None,
                tuple(self.value(b) for b in c.__bases__), tuple(attrs))


def _module_of(obj):
    return getattr(obj, "__module__", "") or ""


def _library_name(obj):
    name = obj.__name__ if isinstance(obj, types.ModuleType) else _module_of(obj)
    if name.split(".")[0] in LIBRARIES:
        return True
    filename = getattr(obj, "__file__", None) if isinstance(obj, types.ModuleType) else None
    return bool(filename) and ("site-packages" in filename or "dist-packages" in filename)


_code_names: dict = {}
_code_digests: dict = {}


def _code_digest(code):
    """What tells apart two functions defined on one line (two lambdas): their bytecode,
    constants and names."""
    if code not in _code_digests:
        parts = [code.co_code, repr(code.co_names), repr(code.co_varnames)]
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                parts.append(_code_digest(const))
            elif isinstance(const, frozenset):            # `in {"a", "b"}`: no fixed order
                parts.append(repr(sorted(map(repr, const))))
            else:
                parts.append(repr(const))
        _code_digests[code] = hashlib.sha256(repr(parts).encode()).hexdigest()
    return _code_digests[code]


def _names(code):
    """The global and attribute names ``code`` (and the functions it defines) may read,
    with its string constants (``getattr(m, "name")``).  A function that imports inside
    its body is unkeyable: what it imports is not in its globals."""
    if code not in _code_names:
        names = set(code.co_names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= _names(const)
            elif isinstance(const, str) and const.isidentifier():
                names.add(const)
        if any(i.opname in _IMPORTS for i in dis.get_instructions(code)):
            names = None
        _code_names[code] = frozenset(names) if names is not None else None
    if _code_names[code] is None:
        raise Unkeyable(code)
    return _code_names[code]
