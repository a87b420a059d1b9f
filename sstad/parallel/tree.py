"""Pytrees of arrays as one flat float vector, and back (``jax.flatten_util.ravel_pytree``).

The strategies move and shard parameters and gradients as one vector: one collective for
a whole model, and a shard is a slice of it whatever the model's structure.
"""
import numpy as np

from sstad.frontend.lower import flatten_runtime
from sstad.frontend.pytree import unflatten


def leaves(tree):
    """The arrays and numbers of ``tree``, in order."""
    return flatten_runtime(tree)[1]


def ravel(tree, dtype=np.float64):
    """``(vector, unravel)``: every leaf of ``tree`` raveled into one ``dtype`` vector, and the
    function that rebuilds a tree of that structure (leaf shapes and dtypes) from a vector.

    >>> v, unravel = ravel({"w": np.ones((2, 2)), "b": 0.5})
    >>> v.tolist(), unravel(2 * v)["b"]
    ([1.0, 1.0, 1.0, 1.0, 0.5], 1.0)
    """
    treedef, items = flatten_runtime(tree)
    shapes = [np.shape(x) for x in items]
    makers = [_maker(x) for x in items]
    sizes = [int(np.prod(s)) for s in shapes]
    ends = np.cumsum([0] + sizes)
    vector = np.concatenate([np.ravel(np.asarray(x, dtype=dtype)) for x in items]) if items else np.zeros(0, dtype)

    def unravel(v):
        if v.shape != (ends[-1],):
            raise ValueError(f"unravel takes a vector of {ends[-1]} numbers, not shape {v.shape}")
        out = []
        for shape, make, a, b in zip(shapes, makers, ends[:-1], ends[1:]):
            out.append(make(v[a:b].reshape(shape)))
        return unflatten(treedef, out, list_type=list)
    return vector, unravel


def _maker(leaf):
    """How a leaf of this kind is rebuilt from a piece of the vector."""
    if isinstance(leaf, np.ndarray):
        return lambda piece: piece.astype(leaf.dtype)
    kind = leaf.dtype.type if isinstance(leaf, np.generic) else type(leaf)
    return lambda piece: kind(piece[()])


def tree_map(fn, tree, *rest):
    """``fn`` applied leaf by leaf to trees of one structure."""
    treedef, items = flatten_runtime(tree)
    others = [flatten_runtime(t)[1] for t in rest]
    return unflatten(treedef, [fn(*xs) for xs in zip(items, *others)], list_type=list)
