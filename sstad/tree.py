"""Pytrees: nested tuples, lists, dicts, dataclasses, NamedTuples and SimpleNamespaces
whose leaves are numbers and arrays — the structures ``sstad.jit`` takes as arguments.
Anything else (a string, a static dataclass field) is part of the structure.

>>> treedef, leaves = flatten({"w": np.ones(2), "b": 0.5})
>>> leaves
[array([1., 1.]), 0.5]
>>> tree_map(lambda x: 2 * x, {"w": np.ones(2), "b": 0.5})["b"]
1.0
"""
import numpy as np

from sstad.frontend.lower import flatten_runtime
from sstad.frontend.pytree import same_treedef, unflatten as _unflatten


def flatten(tree):
    """``(treedef, leaves)``: the structure of ``tree`` and its numbers and arrays, in order."""
    return flatten_runtime(tree)


def unflatten(treedef, leaves):
    """The pytree of structure ``treedef`` holding ``leaves``."""
    return _unflatten(treedef, list(leaves), list_type=list)


def leaves(tree):
    """The numbers and arrays of ``tree``, in order."""
    return flatten_runtime(tree)[1]


def leaves_like(tree, treedef, what="the tree", like="the first tree"):
    """The leaves of ``tree``, which must have the structure ``treedef`` (that of ``like``);
    else a ValueError that shows both structures."""
    other, items = flatten_runtime(tree)
    if not same_treedef(other, treedef):
        raise ValueError(f"{what} does not have the structure of {like}: "
                         f"{_unflatten(other, ['*'] * len(items), list_type=list)!r:.300} vs "
                         f"{_unflatten(treedef, ['*'] * _count(treedef), list_type=list)!r:.300}")
    return items


def tree_map(fn, tree, *rest):
    """``fn`` applied leaf by leaf to trees of one structure."""
    treedef, items = flatten_runtime(tree)
    others = [leaves_like(t, treedef, f"tree {k + 2} of tree_map") for k, t in enumerate(rest)]
    return unflatten(treedef, [fn(*xs) for xs in zip(items, *others)])


def zeros_like(leaf):
    """A zero of the leaf's type: an array of zeros, or a number."""
    if isinstance(leaf, np.ndarray):
        return np.zeros_like(leaf)
    return type(leaf)(0)


def ravel(tree, dtype=np.float64):
    """``(vector, unravel)``: every leaf of ``tree`` raveled into one ``dtype`` vector, and the
    function that rebuilds a tree of that structure (leaf shapes and dtypes) from a vector
    (``jax.flatten_util.ravel_pytree``).

    >>> v, unravel = ravel({"w": np.ones((2, 2)), "b": 0.5})
    >>> v.tolist(), unravel(2 * v)["b"]
    ([1.0, 1.0, 1.0, 1.0, 0.5], 1.0)
    """
    treedef, items = flatten_runtime(tree)
    shapes = [np.shape(x) for x in items]
    makers = [_maker(x) for x in items]
    ends = np.cumsum([0] + [int(np.prod(s)) for s in shapes])
    vector = np.concatenate([np.ravel(np.asarray(x, dtype=dtype)) for x in items]) if items else np.zeros(0, dtype)

    def unravel(v):
        if v.shape != (ends[-1],):
            raise ValueError(f"unravel takes a vector of {ends[-1]} numbers, not shape {v.shape}")
        return unflatten(treedef, [make(v[a:b].reshape(shape))
                                   for shape, make, a, b in zip(shapes, makers, ends[:-1], ends[1:])])
    return vector, unravel


def _maker(leaf):
    """How a leaf of this kind is rebuilt from a piece of the vector."""
    if isinstance(leaf, np.ndarray):
        return lambda piece: piece.astype(leaf.dtype)
    kind = leaf.dtype.type if isinstance(leaf, np.generic) else type(leaf)
    return lambda piece: kind(piece[()])


def _count(treedef):
    if treedef[0] == "leaf":
        return 1
    if treedef[0] == "static":
        return 0
    return sum(_count(child) for child in treedef[-1])
