"""Parameters as pytrees (:mod:`sstad.tree`) whose leaves an optimizer can update."""
import functools

import numpy as np

from sstad import tree
from sstad.runtime.abstract import is_inexact
from sstad.tree import unflatten, zeros_like  # noqa: F401  (what optimizers use)

leaves_like = functools.partial(tree.leaves_like, like="the params")


def flatten(params, what="params"):
    """``(treedef, leaves)`` of a pytree whose leaves are floating-point numbers or arrays."""
    treedef, leaves = tree.flatten(params)
    for leaf in leaves:
        if not is_inexact(np.asarray(leaf).dtype):
            raise TypeError(f"{what} holds a leaf of type {np.asarray(leaf).dtype} ({leaf!r:.40}); an optimizer "
                            f"updates floating-point leaves only: make it a float, or a static field "
                            f"(dataclasses.field(metadata={{'static': True}}))")
    return treedef, leaves
