"""Dataclasses, NamedTuples and SimpleNamespaces during lowering: reading fields, building
them (``Params(W=W, b=b)``), ``p._replace(...)`` and ``dataclasses.replace(p, ...)``,
their properties and methods.

Such objects are pytrees (docs/subset.md, "Objects"): during lowering they are
:class:`~sstad.frontend.pytree.PytreeObject` and
:class:`~sstad.frontend.pytree.NamedTupleValue` values whose fields hold atoms and
structures; a static field holds its Python value.
"""
from __future__ import annotations

import dataclasses
import inspect
import types
from dataclasses import dataclass

import numpy as np

from sstad.errors import SstadTypeError, UnsupportedSyntaxError
from sstad.frontend.pytree import NamedTupleValue, PytreeObject, StaticList, is_atom, is_pytree_type, lowering_object
from sstad.frontend.source import is_user_function
from sstad.ir import nodes as ir

MISSING = dataclasses.MISSING


@dataclass(frozen=True)
class ObjectMethod:
    """``obj.name`` of a pytree object before the call: ``_replace``, ``_asdict`` (named
    by a string) or a method the user wrote (the function, called with ``obj`` first)."""
    obj: object
    method: object


def is_object(value):
    return isinstance(value, (PytreeObject, NamedTupleValue))


def member(lowerer, obj, attr, node):
    """``obj.attr``: a field, a property (inlined), a method, or a class attribute."""
    cls, names, statics = obj.layout
    if attr in names:
        value = obj.field(attr)
        return lowerer.static(value, attr) if attr in statics else value
    if issubclass(cls, tuple) and attr in ("_replace", "_asdict"):
        return ObjectMethod(obj, attr)
    if attr.startswith("__"):
        raise lowerer.error(UnsupportedSyntaxError, f"`.{attr}` of a {cls.__name__} is not supported in "
                            "compiled code", node, "read its fields by name")
    try:
        raw = inspect.getattr_static(cls, attr)
    except AttributeError:
        raise lowerer.error(SstadTypeError, f"{cls.__name__} has no field `{attr}`", node,
                            f"its fields are: {', '.join(names)}") from None
    if isinstance(raw, property) and is_user_function(raw.fget):
        return lowerer.call_user(raw.fget, [obj], {}, node)
    if isinstance(raw, staticmethod):
        return lowerer.static(raw.__func__, attr)
    if is_user_function(raw):
        return ObjectMethod(obj, raw)
    if callable(raw) or isinstance(raw, (property, classmethod)):
        raise lowerer.error(UnsupportedSyntaxError, f"`.{attr}` of a {cls.__name__} is not supported in "
                            "compiled code", node, "read its fields, or call a method you wrote")
    return lowerer.object_attribute(cls, attr, getattr(cls, attr), node)     # guarded


def call_handler(func):
    """``handler(lowerer, args, kwargs, node)`` lowering a call of ``func`` if it builds or
    transforms a pytree object, else None."""
    if is_object(func):                                  # layer(x): its __call__
        lower = call_object
    elif isinstance(func, ObjectMethod):
        lower = call_method
    elif is_pytree_type(func):
        lower = construct
    elif func is dataclasses.replace:
        lower = replace_dataclass
    elif func is dataclasses.asdict:
        lower = as_dict
    else:
        return None
    return lambda lowerer, args, kwargs, node: lower(lowerer, func, args, kwargs, node)


def call_object(lowerer, obj, args, kwargs, node):
    method = getattr(obj.cls, "__call__", None)
    if not is_user_function(method):
        raise lowerer.error(SstadTypeError, f"a {obj.cls.__name__} is not callable", node)
    return lowerer.call_user(method, [obj] + list(args), kwargs, node)


def call_method(lowerer, method, args, kwargs, node):
    obj, name = method.obj, method.method
    if name == "_asdict":
        if args or kwargs:
            raise lowerer.error(SstadTypeError, "_asdict() takes no arguments", node)
        return dict(zip(obj.layout[1], obj.values))
    if name == "_replace":
        if args:
            raise lowerer.error(SstadTypeError, "_replace() takes keyword arguments only", node)
        return replaced(lowerer, obj, kwargs, node)
    return lowerer.call_user(name, [obj] + list(args), kwargs, node)


def replace_dataclass(lowerer, func, args, kwargs, node):
    if len(args) != 1 or not isinstance(args[0], PytreeObject) or not dataclasses.is_dataclass(args[0].cls):
        raise lowerer.error(SstadTypeError, "dataclasses.replace() takes one dataclass and keyword "
                            "arguments", node)
    obj = args[0]
    check_plain_init(lowerer, obj.cls, node)
    fields = {f.name: f for f in dataclasses.fields(obj.cls)}
    for key in kwargs:
        if key in fields and not fields[key].init:
            raise lowerer.error(SstadTypeError, f"the field `{key}` of {obj.cls.__name__} has init=False: "
                                "dataclasses.replace() cannot set it", node)
    return replaced(lowerer, obj, kwargs, node)


def as_dict(lowerer, func, args, kwargs, node):
    """``dataclasses.asdict(p)``: nested dataclasses become dicts too, as in Python."""
    if len(args) != 1 or kwargs or not isinstance(args[0], PytreeObject) or not dataclasses.is_dataclass(args[0].cls):
        raise lowerer.error(SstadTypeError, "dataclasses.asdict() takes one dataclass here", node)

    def convert(v):
        if isinstance(v, PytreeObject) and dataclasses.is_dataclass(v.cls):
            return {name: lowerer.static(x, name) if name in v.layout[2] else convert(x)
                    for name, x in zip(v.layout[1], v.values)}
        if isinstance(v, NamedTupleValue):
            return NamedTupleValue(map(convert, v), v.layout)
        if isinstance(v, (tuple, StaticList)):
            return type(v)(map(convert, v))
        if isinstance(v, dict):
            return {k: convert(x) for k, x in v.items()}
        return v
    return convert(args[0])


def replaced(lowerer, obj, kwargs, node):
    cls, names, statics = obj.layout
    values = dict(zip(names, obj.values))
    for key, value in kwargs.items():
        if key not in values:
            raise lowerer.error(SstadTypeError, f"{cls.__name__} has no field `{key}`", node,
                                f"its fields are: {', '.join(names)}")
        values[key] = static_value(lowerer, cls, key, value, node) if key in statics else value
    return lowering_object(obj.layout, [values[n] for n in names])


def construct(lowerer, cls, args, kwargs, node):
    """``cls(*args, **kwargs)`` for a NamedTuple, a dataclass or a SimpleNamespace."""
    name = cls.__name__
    if issubclass(cls, types.SimpleNamespace):
        if args:
            raise lowerer.error(SstadTypeError, f"{name}() takes keyword arguments only", node)
        return PytreeObject((cls, tuple(kwargs), ()), kwargs.values())
    if issubclass(cls, tuple):
        layout = (cls, cls._fields, ())
        params = [(f, True, cls._field_defaults.get(f, MISSING), MISSING) for f in cls._fields]
        owner = next(k for k in cls.__mro__ if "__new__" in vars(k))
        if "_make" not in vars(owner):           # a subclass with its own __new__
            raise lowerer.error(UnsupportedSyntaxError, f"{name} has its own __new__: it cannot be built "
                                "inside compiled code", node,
                                "build it outside the function and pass it as an argument")
    else:
        check_plain_init(lowerer, cls, node)
        fields = dataclasses.fields(cls)
        layout = (cls, tuple(f.name for f in fields), tuple(f.name for f in fields if f.metadata.get("static")))
        params = [(f.name, f.init, f.default, f.default_factory) for f in fields]
        kw_only = {f.name for f in fields if f.kw_only}
    positional = [p for p in params if p[1] and (issubclass(cls, tuple) or p[0] not in kw_only)]
    if len(args) > len(positional):
        raise lowerer.error(SstadTypeError, f"{name}() takes {len(positional)} positional arguments but "
                            f"{len(args)} were given", node)
    given = dict(zip((p[0] for p in positional), args))
    for key, value in kwargs.items():
        if key in given or not any(p[0] == key and p[1] for p in params):
            raise lowerer.error(SstadTypeError, f"{name}() got an unexpected or repeated argument `{key}`", node)
        given[key] = value
    values = []
    for field, init, default, factory in params:
        if field in given:
            value = given[field]
            values.append(static_value(lowerer, cls, field, value, node) if field in layout[2] else value)
            continue
        if default is MISSING and factory is MISSING:
            what = "is missing the argument" if init else "has no default for the init=False field"
            raise lowerer.error(SstadTypeError, f"{name}() {what} `{field}`", node)
        value = default if default is not MISSING else factory()
        values.append(value if field in layout[2] else default_value(lowerer, cls, field, value, node))
    return lowering_object(layout, values)


def check_plain_init(lowerer, cls, node):
    """A dataclass is built field by field: refuse one whose ``__init__`` does more."""
    name = cls.__name__
    if hasattr(cls, "__post_init__"):
        raise lowerer.error(UnsupportedSyntaxError, f"{name} has a __post_init__: it cannot be built or "
                            "replaced inside compiled code", node,
                            "build it outside the function and pass it as an argument")
    init = getattr(cls.__init__, "__code__", None)
    if not cls.__dataclass_params__.init or init is None or init.co_filename != "<string>":
        raise lowerer.error(UnsupportedSyntaxError, f"{name} has its own __init__: it cannot be built "
                            "inside compiled code", node,
                            "build it outside the function and pass it as an argument")


def static_value(lowerer, cls, field, value, node):
    """The Python value of a static field (known at compile time)."""
    def python(v):
        if isinstance(v, ir.Const):
            return v.value
        if isinstance(v, (tuple, StaticList)):
            return tuple(python(x) for x in v)
        if is_atom(v) or isinstance(v, (dict, PytreeObject)):
            raise lowerer.error(SstadTypeError, f"the field `{field}` of {cls.__name__} is static: it needs "
                                "a value known at compile time", node,
                                "pass a constant, or drop metadata={'static': True} from the field")
        return v
    return python(value)


def default_value(lowerer, cls, field, value, node):
    """A field's default as a lowering value (a number becomes a constant)."""
    if isinstance(value, np.ndarray):
        raise lowerer.error(UnsupportedSyntaxError, f"the default of the field `{field}` of {cls.__name__} "
                            "is an array: it cannot be built inside compiled code", node,
                            f"pass `{field}` explicitly")
    return lowerer.static(value, field)
