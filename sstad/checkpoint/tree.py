"""Pytrees as named tensors, and back.

Each leaf (an array, a NumPy scalar, a Python ``bool``/``int``/``float``) becomes a tensor
named by its path from a root: ``params/layers/0/w`` for ``params["layers"][0]["w"]``,
``opt_state/mu/W`` for the field ``W`` of ``opt_state.mu``.  A path segment is a dict key
(``str`` or ``int``), a list or tuple index or a field name, with ``%`` written ``%25`` and
``/`` written ``%2F``.  Containers are those of :mod:`sstad.frontend.pytree`: dicts, lists,
tuples, dataclasses, NamedTuples and SimpleNamespaces.

The *skeleton* is the structure as JSON, so a file can be read back without a template:
``"array"``, ``"scalar"``, ``"bool"``, ``"int"``, ``"float"`` for leaves, ``null`` for
None, ``{"str": s}``, ``{"dict": [[key, sub], ...]}``, ``{"list": [...]}``,
``{"tuple": [...]}`` and ``{"object": "module.Type", "fields": [[name, sub], ...]}`` (a
static field is ``{"static": value}``, or ``{"static_repr": repr}`` when not JSON).
Without a template an object comes back as a dict of its fields: loading never imports
or runs code named in a file.
"""
import json

import numpy as np

from sstad.checkpoint.errors import CheckpointError
from sstad.frontend.pytree import build_object, object_layout, object_values

PYTHON_LEAVES = {bool: "bool", int: "int", float: "float"}


def segment(key):
    return str(key).replace("%", "%25").replace("/", "%2F")


def join(path, key):
    return f"{path}/{segment(key)}"


def leaf_kind(value):
    if type(value) in PYTHON_LEAVES:
        return PYTHON_LEAVES[type(value)]
    if isinstance(value, np.ndarray):
        return "array"
    if isinstance(value, np.generic):
        return "scalar"
    return None


def flatten(tree, root):
    """``(skeleton, {path: leaf})`` of ``tree``, its paths starting at ``root``."""
    leaves = {}

    def walk(value, path):
        kind = leaf_kind(value)
        if kind is not None:
            if path in leaves:
                raise CheckpointError(f"two leaves of the tree are both named `{path}`",
                                      hint="give dict keys distinct string forms (1 and '1' collide)")
            leaves[path] = value
            return kind
        if value is None:
            return None
        if isinstance(value, str):
            return {"str": value}
        layout = object_layout(value)
        if layout is not None:
            cls, names, statics = layout
            fields = [[name, static(x) if name in statics else walk(x, join(path, name))]
                      for name, x in zip(names, object_values(value, layout))]
            return {"object": f"{cls.__module__}.{cls.__qualname__}", "fields": fields}
        if isinstance(value, dict):
            for key in value:
                if type(key) not in (str, int):
                    raise CheckpointError(f"`{path}` has the key {key!r}: checkpoint keys are strings "
                                          "or ints", hint="use string keys")
            return {"dict": [[key, walk(x, join(path, key))] for key, x in value.items()]}
        if isinstance(value, (list, tuple)):
            kind = "list" if isinstance(value, list) else "tuple"
            return {kind: [walk(x, join(path, i)) for i, x in enumerate(value)]}
        raise CheckpointError(f"`{path}` holds a {type(value).__name__}: a checkpoint holds arrays, "
                              "numbers, None and strings in dicts, lists, tuples, dataclasses, "
                              "NamedTuples and SimpleNamespaces",
                              hint="put other values in `meta` (JSON) or leave them out")
    return walk(tree, root), leaves


def static(value):
    try:
        json.dumps(value)
        return {"static": value}
    except (TypeError, ValueError):
        return {"static_repr": repr(value)}


def as_leaf(array, kind):
    """A loaded tensor in the form the tree held it."""
    if kind == "array":
        return array
    value = array[()]
    return {"bool": bool, "int": int, "float": float}.get(kind, lambda x: x)(value)


class Report:
    """What a load did not match: ``missing`` (paths), ``unexpected`` (paths) and
    ``mismatched`` (``(path, what the file holds, what was expected)``)."""

    def __init__(self):
        self.missing, self.unexpected, self.mismatched = [], [], []

    def __bool__(self):
        return bool(self.missing or self.unexpected or self.mismatched)

    def lines(self):
        out = [f"missing (in the template, not in the file): {', '.join(self.missing)}"] if self.missing else []
        if self.unexpected:
            out.append(f"unexpected (in the file, not in the template): {', '.join(self.unexpected)}")
        out += [f"mismatched `{path}`: the file holds {found}, the template wants {wanted}"
                for path, found, wanted in self.mismatched]
        return out

    def __repr__(self):
        return "Report(" + ("; ".join(self.lines()) or "all matched") + ")"


def describe(array):
    return f"{array.dtype.name}{list(array.shape)}"


def map_leaves(fn, tree, path):
    """``tree`` with each leaf replaced by ``fn(path, leaf)``; its containers rebuilt with
    their own types (objects field by field, static fields kept)."""
    if leaf_kind(tree) is not None:
        return fn(path, tree)
    layout = object_layout(tree)
    if layout is not None:
        names, statics = layout[1], layout[2]
        return build_object(layout, [x if name in statics else map_leaves(fn, x, join(path, name))
                                     for name, x in zip(names, object_values(tree, layout))])
    if isinstance(tree, dict):
        return {key: map_leaves(fn, x, join(path, key)) for key, x in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(map_leaves(fn, x, join(path, i)) for i, x in enumerate(tree))
    return tree


def unflatten_like(like, tensors, root, report):
    """Rebuild ``like``'s structure from ``tensors``; a leaf the file lacks or holds with
    another shape or dtype keeps ``like``'s value and is reported."""
    used = set()

    def take(path, template):
        found = tensors.get(path)
        if found is None:
            report.missing.append(path)
            return template
        used.add(path)
        wanted = np.asarray(template)
        if found.shape != wanted.shape or found.dtype != wanted.dtype:
            report.mismatched.append((path, describe(found), describe(wanted)))
            return template
        return as_leaf(found, leaf_kind(template))
    tree = map_leaves(take, like, root)
    report.unexpected += [name for name in tensors if under(name, root) and name not in used]
    return tree


def unflatten_skeleton(skeleton, tensors, root, report):
    """Rebuild the structure a file recorded (objects as dicts of their fields)."""
    used = set()

    def walk(node, path):
        if node is None:
            return None
        if isinstance(node, str):
            if path not in tensors:
                report.missing.append(path)
                return None
            used.add(path)
            return as_leaf(tensors[path], node)
        if "str" in node:
            return node["str"]
        if "static" in node or "static_repr" in node:
            return node.get("static", node.get("static_repr"))
        if "object" in node:
            return {name: walk(sub, join(path, name)) for name, sub in node["fields"]}
        if "dict" in node:
            return {key: walk(sub, join(path, key)) for key, sub in node["dict"]}
        kind = "list" if "list" in node else "tuple"
        items = [walk(sub, join(path, i)) for i, sub in enumerate(node[kind])]
        return items if kind == "list" else tuple(items)
    tree = walk(skeleton, root)
    report.unexpected += [name for name in tensors if under(name, root) and name not in used]
    return tree


def under(name, root):
    return name == root or name.startswith(root + "/")
