"""Pytrees of parameters as flat tuples of leaves, and back.

The same flattening that ``sstad.jit`` uses for its arguments: tuples, lists, dicts,
dataclasses, NamedTuples and SimpleNamespaces, nested; numbers and arrays are leaves,
anything else (a string, a static dataclass field) is kept as part of the structure.
"""
import numpy as np

from sstad.frontend.lower import flatten_runtime
from sstad.frontend.pytree import same_treedef, unflatten as _unflatten


def flatten(tree, what="params"):
    """``(treedef, leaves)`` of a pytree whose leaves are floating-point numbers or arrays."""
    treedef, leaves = flatten_runtime(tree)
    for leaf in leaves:
        kind = np.asarray(leaf).dtype.kind
        if kind not in "fc":
            raise TypeError(f"{what} holds a leaf of type {np.asarray(leaf).dtype} ({leaf!r:.40}); an optimizer "
                            f"updates floating-point leaves only: make it a float, or a static field "
                            f"(dataclasses.field(metadata={{'static': True}}))")
    return treedef, leaves


def leaves_like(tree, treedef, what):
    """The leaves of ``tree``, which must have the structure ``treedef`` (that of the params)."""
    other, leaves = flatten_runtime(tree)
    if not same_treedef(other, treedef):
        raise ValueError(f"{what} does not have the structure of the params: "
                         f"{_unflatten(other, ['*'] * len(leaves), list_type=list)!r:.300} vs "
                         f"{unflatten(treedef, ['*'] * _count(treedef))!r:.300}")
    return leaves


def unflatten(treedef, leaves):
    """The pytree of structure ``treedef`` holding ``leaves``."""
    return _unflatten(treedef, list(leaves), list_type=list)


def zeros_like(leaf):
    """A zero of the leaf's type: an array of zeros, or a number."""
    if isinstance(leaf, np.ndarray):
        return np.zeros_like(leaf)
    return type(leaf)(0)


def _count(treedef):
    if treedef[0] == "leaf":
        return 1
    if treedef[0] == "static":
        return 0
    return sum(_count(child) for child in treedef[-1])
