"""How tensors are cut among ranks: ``np.array_split`` along one axis, or replicated.

A rank's part of a tensor split along ``axis`` among ``world_size`` ranks is
``np.array_split(tensor, world_size, axis)[rank]``; a tensor whose axis is None is whole
on every rank.  Every file records the axis of each tensor (``partition`` in the ``sstad`` metadata), so a
unified file can be loaded into any number of ranks and shards can be merged.
"""
import numpy as np

from sstad.checkpoint.errors import CheckpointError
from sstad.checkpoint.tree import map_leaves

RULE = "array_split"


def tensor_axes(tensors, axes):
    """``{name: axis or None}``.  ``axes`` is an int (each tensor that has that axis is split
    along it; 0-d tensors are replicated), None (all replicated), a dict ``{name: axis}``
    (names not in it replicated) or a function ``(name, array) -> axis or None``."""
    out = {}
    for name, value in tensors.items():
        ndim = np.ndim(value)
        if callable(axes):
            axis = axes(name, value)
        elif isinstance(axes, dict):
            axis = axes.get(name)
        else:
            axis = axes if axes is not None and -ndim <= axes < ndim else None
        if axis is not None:
            if not -ndim <= axis < ndim:
                raise CheckpointError(f"tensor `{name}` has {ndim} axes: it cannot be split along axis {axis}")
            axis %= ndim
        out[name] = axis
    return out


def part(array, axis, rank, world_size):
    """This rank's part of ``array`` (a copy)."""
    if axis is None:
        return array
    return np.array_split(array, world_size, axis=axis)[rank].copy()


def check_rank(rank, world_size):
    if not (isinstance(world_size, int) and world_size >= 1 and isinstance(rank, int)
            and 0 <= rank < world_size):
        raise CheckpointError(f"rank {rank!r} of world size {world_size!r}: a rank is an int in "
                              "0 .. world_size - 1")


def partition(tree, rank, world_size, axes=0, root="params"):
    """This rank's part of every leaf of ``tree``: what each rank holds when a tree is
    sharded by the rule checkpoints record.  ``axes`` is as for :func:`tensor_axes`, the
    names of the leaves starting at ``root`` (``"params"`` or ``"opt_state"``).

    >>> import numpy as np
    >>> partition({"w": np.arange(5.0), "s": 2.0}, rank=1, world_size=2)
    {'w': array([3., 4.]), 's': 2.0}
    """
    check_rank(rank, world_size)
    return map_leaves(lambda name, leaf: part(leaf, tensor_axes({name: leaf}, axes)[name], rank, world_size),
                      tree, root)
