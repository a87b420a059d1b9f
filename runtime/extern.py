"""Calls to functions sstad does not see into: a SciPy special function, an ``@njit``
helper, a C function.

The frontend evaluates such a call at compile time when every argument is a
compile-time number; otherwise it becomes an ``extern`` application.  Emitted code
calls the function through a module-level name bound from :data:`EXTERNS`, so under
the Numba backend it must be something Numba can call (a ``numba.njit`` function, a
ctypes/cffi function, or a function Numba already knows).  An extern has no derivative
rule: reverse and forward mode accept it only where its inputs are inactive (do not
depend on the differentiated arguments); otherwise the error says how to register a
primitive with its rules.
"""
import re

from sstad.runtime.primitive import Primitive, run_on_prototypes

EXTERNS = {}   # emitted name -> the function


def extern_name(fn):
    """A stable identifier for ``fn`` in emitted code (registered on first use)."""
    qualname = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    base = "ext_" + re.sub(r"\W", "_", qualname)
    name, k = base, 1
    while EXTERNS.get(name, fn) is not fn:
        k += 1
        name = f"{base}_{k}"
    EXTERNS[name] = fn
    return name


def extern_function(name):
    return EXTERNS[name]


def describe(name):
    fn = EXTERNS[name]
    module = getattr(fn, "__module__", None)
    shown = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"{module}.{shown}" if module else shown


def _impl(*args, name):
    return EXTERNS[name](*args)


Primitive("extern", _impl,
          lambda avals, params: run_on_prototypes(_impl, avals, params),
          lambda args, params, avals: f"{params['name']}({', '.join(args)})")
