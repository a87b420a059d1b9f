"""NumPy functions defined in NumPy: written here over primitives, inlined like user code.

A composite needs no rules of its own: the compiler inlines its body, so its derivatives
(any order, both modes) and its lowering for every backend come from the primitives it
calls.  Register one with ``@composite(np.name)``; the body must follow NumPy's
signature (parameter names, order and defaults) and refuse what it does not handle with
a ``raise`` under a condition known at compile time (a branch on a rank, a dtype or a
literal parameter): sstad reports it at the user's call.  ``NotImplementedError`` says
"not supported", other exceptions say "invalid", as NumPy would.

The definitions live in ``composites_*.py`` by family; this module holds the registry
and the helpers they share.
"""
import importlib
import sys
import types

import numpy as np

from sstad.runtime.primitive import public_name

COMPOSITES: dict = {}        # key_of(numpy function) -> its definition here
NAMES: dict = {}             # key_of(numpy function) -> its public name (public_name)
RANGE = tuple(range(64))
# Families for a library that is slow to import, registered at the first lookup after the
# user's program has imported it (a call to scipy.stats needs scipy.stats imported).
LAZY_FAMILIES = {"scipy.stats": "sstad.runtime.composites_distributions"}


def key_of(fn):
    """A function's registry key: its identity, or (owner, name) for a bound method such as
    ``scipy.stats.norm.logpdf`` or ``np.add.reduce`` (a new object each time the attribute
    is read)."""
    if isinstance(fn, types.MethodType):
        return (id(fn.__self__), fn.__func__.__name__)
    if isinstance(getattr(fn, "__self__", None), np.ufunc):        # np.add.reduce, np.add.at
        return (id(fn.__self__), fn.__name__)
    return id(fn)


def definition_of(fn):
    """The composite that defines ``fn``, or None."""
    definition = COMPOSITES.get(key_of(fn))
    if definition is None:
        for library in [name for name in LAZY_FAMILIES if name in sys.modules]:
            importlib.import_module(LAZY_FAMILIES.pop(library))
            definition = COMPOSITES.get(key_of(fn))
    return definition


def name_of(fn):
    """The public name of a function with a composite definition."""
    return NAMES[key_of(fn)]


def composite(*functions):
    """Define the NumPy ``functions`` by the decorated Python function."""
    def register(definition):
        for fn in functions:
            if fn is not None:               # a name this NumPy lacks (np.trapz in NumPy 2.4)
                COMPOSITES[key_of(fn)] = definition
                NAMES[key_of(fn)] = public_name(fn)
        return definition
    return register


def static_range(n):
    """``range(n)`` unrolled at compile time (``n`` a compile-time integer, at most 64)."""
    return RANGE[:n]


def check_axis(axis, ndim, name):
    """``axis`` in ``[0, ndim)``; a compile-time error naming ``name`` if out of range."""
    if axis < -ndim or axis >= ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim
