"""Static structures during lowering: tuples, list literals, dicts and objects of values.

A *value* during lowering is an IR atom (a run-time number or array) or a static Python
object: a tuple, a :class:`StaticList`, a dict, a :class:`PytreeObject`, a function, a
module, None...  Containers are resolved at compile time (as JAX does with pytrees); only
their leaves are run-time.

A *treedef* is the structure around the leaves: ``("leaf",)``, ``("static", value)``,
``("tuple", children)``, ``("list", children)``, ``("dict", keys, children)`` or
``("object", layout, children)`` for a dataclass, NamedTuple or SimpleNamespace, its
:func:`object_layout` naming the type and the fields.
"""
import dataclasses
import types

from sstad.ir.nodes import Const, Undef, Var


class StaticList(tuple):
    """A list literal: its length and element positions are known at compile time."""


class PytreeObject:
    """A dataclass or SimpleNamespace during lowering: its layout (see :func:`object_layout`)
    and the values of its fields, in the layout's order.  Static fields hold Python values."""

    def __init__(self, layout, values):
        self.layout, self.values = layout, tuple(values)

    @property
    def cls(self):
        return self.layout[0]

    def field(self, name):
        return self.values[self.layout[1].index(name)]


class NamedTupleValue(tuple):
    """A NamedTuple during lowering: a tuple (indexing, unpacking and ``len`` work as for
    tuples) that keeps its type and field names.  Without a layout it is a plain tuple,
    as a slice of a NamedTuple is in Python."""

    def __new__(cls, values, layout=None):
        if layout is None:
            return tuple(values)
        self = super().__new__(cls, values)
        self.layout = layout
        return self

    @property
    def cls(self):
        return self.layout[0]

    @property
    def values(self):
        return tuple(self)

    def field(self, name):
        return self[self.layout[1].index(name)]


def is_pytree_type(cls):
    """Are instances of ``cls`` pytrees: dataclasses, NamedTuples, SimpleNamespaces?"""
    return isinstance(cls, type) and (
        dataclasses.is_dataclass(cls) or issubclass(cls, types.SimpleNamespace)
        or (issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)))


def object_layout(value):
    """``(type, field names, static field names)`` of a dataclass, NamedTuple or
    SimpleNamespace instance; None for any other value.

    A dataclass's fields are :func:`dataclasses.fields`; those declared with
    ``field(metadata={"static": True})`` are static (JAX's convention): compiled in, part of
    the signature, never differentiated.  A SimpleNamespace's fields are its attributes.

    >>> from typing import NamedTuple
    >>> class P(NamedTuple):
    ...     W: float
    ...     b: float
    >>> object_layout(P(1.0, 2.0))[1:]
    (('W', 'b'), ())
    """
    cls = type(value)
    if isinstance(value, PytreeObject) or isinstance(value, type) or not is_pytree_type(cls):
        return None
    if issubclass(cls, tuple):
        return cls, cls._fields, ()
    if issubclass(cls, types.SimpleNamespace):
        return cls, tuple(vars(value)), ()
    fields = dataclasses.fields(cls)
    return cls, tuple(f.name for f in fields), tuple(f.name for f in fields if f.metadata.get("static"))


def object_values(value, layout):
    """The values of an object's fields, in the order of ``layout``."""
    return tuple(getattr(value, name) for name in layout[1])


def build_object(layout, values):
    """An instance of ``layout``'s type with these field values, built field by field:
    ``__init__`` and ``__post_init__`` do not run (they are written for parameters, and
    the values may be gradients)."""
    cls, names, _ = layout
    if issubclass(cls, tuple):
        return tuple.__new__(cls, values)
    obj = object.__new__(cls) if not issubclass(cls, types.SimpleNamespace) else cls.__new__(cls)
    for name, value in zip(names, values):
        object.__setattr__(obj, name, value)
    return obj


def lowering_object(layout, values):
    """The value of an object during lowering."""
    if issubclass(layout[0], tuple):
        return NamedTupleValue(values, layout)
    return PytreeObject(layout, values)


def is_atom(value):
    return isinstance(value, (Var, Const, Undef))


LEAF = ("leaf",)


def flatten(value):
    """``(treedef, leaves)``: the atoms of a structure, and the structure around them."""
    leaves = []
    return _walk(value, leaves), leaves


def _walk(v, leaves):
    if is_atom(v):
        leaves.append(v)
        return LEAF
    if isinstance(v, StaticList):
        return ("list", tuple(_walk(x, leaves) for x in v))
    if isinstance(v, (PytreeObject, NamedTupleValue)):
        statics = v.layout[2]
        return ("object", v.layout, tuple(("static", x) if name in statics else _walk(x, leaves)
                                          for name, x in zip(v.layout[1], v.values)))
    if type(v) is tuple:
        return ("tuple", tuple(_walk(x, leaves) for x in v))
    if type(v) is slice:                 # slice(i * n, (i + 1) * n) held in a variable
        return ("slice", tuple(_walk(x, leaves) for x in (v.start, v.stop, v.step)))
    if type(v) is dict:
        return ("dict", tuple(v), tuple(_walk(x, leaves) for x in v.values()))
    return ("static", v)


def unflatten(treedef, leaves, list_type=StaticList):
    """Rebuild a structure; lists become ``list_type`` (Python lists for run-time output).
    Objects become values for the lowering (:class:`PytreeObject`, :class:`NamedTupleValue`)
    and, for run-time output (``list_type=list``), instances of their own types."""
    make_object = lowering_object if list_type is StaticList else build_object
    return _build(treedef, iter(leaves), list_type, make_object)


def _build(d, it, list_type, make_object):
    """(Not a closure: a recursive closure is a reference cycle that keeps the leaves, often
    large arrays, alive until the next garbage collection.)"""
    kind = d[0]
    if kind == "leaf":
        return next(it)
    if kind == "list":
        return list_type(_build(x, it, list_type, make_object) for x in d[1])
    if kind == "tuple":
        return tuple(_build(x, it, list_type, make_object) for x in d[1])
    if kind == "slice":
        return slice(*(_build(x, it, list_type, make_object) for x in d[1]))
    if kind == "dict":
        return dict(zip(d[1], (_build(x, it, list_type, make_object) for x in d[2])))
    if kind == "object":
        return make_object(d[1], [_build(x, it, list_type, make_object) for x in d[2]])
    return d[1]


def same_static(a, b):
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def same_treedef(a, b):
    if a[0] != b[0]:
        return False
    kind = a[0]
    if kind == "leaf":
        return True
    if kind == "static":
        return same_static(a[1], b[1])
    if kind in ("dict", "object") and a[1] != b[1]:
        return False
    children_a, children_b = a[-1], b[-1]
    return len(children_a) == len(children_b) and all(
        same_treedef(x, y) for x, y in zip(children_a, children_b))


def hashable(treedef):
    """A treedef usable as a cache key (unhashable static values by identity)."""
    kind = treedef[0]
    if kind == "leaf":
        return treedef
    if kind == "static":
        try:
            hash(treedef[1])
            return ("static", type(treedef[1]).__name__, treedef[1])
        except TypeError:
            return ("static", id(treedef[1]))
    children = tuple(hashable(c) for c in treedef[-1])
    return (kind, treedef[1], children) if kind in ("dict", "object") else (kind, children)
