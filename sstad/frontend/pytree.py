"""Static structures during lowering: tuples, list literals and dicts of values.

A *value* during lowering is an IR atom (a run-time number or array) or a static Python
object: a tuple, a :class:`StaticList`, a dict, a function, a module, None...  Containers
are resolved at compile time (as JAX does with pytrees); only their leaves are run-time.
"""
from sstad.ir.nodes import Const, Undef, Var


class StaticList(tuple):
    """A list literal: its length and element positions are known at compile time."""


def is_atom(value):
    return isinstance(value, (Var, Const, Undef))


LEAF = ("leaf",)


def flatten(value):
    """``(treedef, leaves)``: the atoms of a structure, and the structure around them."""
    leaves = []

    def walk(v):
        if is_atom(v):
            leaves.append(v)
            return LEAF
        if isinstance(v, StaticList):
            return ("list", tuple(walk(x) for x in v))
        if type(v) is tuple:
            return ("tuple", tuple(walk(x) for x in v))
        if type(v) is dict:
            return ("dict", tuple(v), tuple(walk(x) for x in v.values()))
        return ("static", v)
    return walk(value), leaves


def unflatten(treedef, leaves, list_type=StaticList):
    """Rebuild a structure; lists become ``list_type`` (Python lists for run-time output)."""
    it = iter(leaves)

    def build(d):
        kind = d[0]
        if kind == "leaf":
            return next(it)
        if kind == "list":
            return list_type(build(x) for x in d[1])
        if kind == "tuple":
            return tuple(build(x) for x in d[1])
        if kind == "dict":
            return dict(zip(d[1], (build(x) for x in d[2])))
        return d[1]
    return build(treedef)


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
    if kind == "dict" and a[1] != b[1]:
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
    return (kind, treedef[1], children) if kind == "dict" else (kind, children)
