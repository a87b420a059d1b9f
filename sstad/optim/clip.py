"""The global norm of a pytree of gradients, and clipping by it (compiled by sstad)."""
import numpy as np

from sstad.api import jit
from sstad.optim import tree


def global_norm_of_leaves(leaves):
    """The 2-norm of all the leaves together, as if they were one vector."""
    total = 0.0
    for g in leaves:
        total = total + np.sum(g * g)
    return np.sqrt(total)


def clip_leaves(leaves, max_norm):
    """The leaves scaled by ``max_norm / norm`` when their global norm exceeds ``max_norm``
    (unchanged otherwise, as optax's ``clip_by_global_norm``); ``max_norm`` None: unchanged."""
    if max_norm is None:
        return leaves
    norm = global_norm_of_leaves(leaves)
    scale = max_norm / max(norm, max_norm)
    out = ()
    for g in leaves:
        out = out + (g * scale,)
    return out


_norm = {}
_clip = {}


def _compiled(table, fn, backend):
    if backend not in table:
        table[backend] = jit(fn, backend=backend)
    return table[backend]


def global_norm(grads, backend="numba"):
    """The 2-norm of every leaf of the pytree ``grads`` together.

    >>> import numpy as np
    >>> float(global_norm({"W": np.array([3.0]), "b": np.array([4.0])}, backend="python"))
    5.0
    """
    _, leaves = tree.flatten(grads, "grads")
    return _compiled(_norm, global_norm_of_leaves, backend)(tuple(leaves))


def clip_by_global_norm(grads, max_norm, backend="numba"):
    """``grads`` scaled so that their global norm is at most ``max_norm``.

    >>> import numpy as np
    >>> g = clip_by_global_norm({"W": np.array([3.0]), "b": np.array([4.0])}, 1.0, backend="python")
    >>> g["W"], g["b"]
    (array([0.6]), array([0.8]))
    """
    treedef, leaves = tree.flatten(grads, "grads")
    if not float(max_norm) > 0.0:
        raise ValueError(f"max_norm must be > 0, not {max_norm!r}")
    return tree.unflatten(treedef, _compiled(_clip, clip_leaves, backend)(tuple(leaves), float(max_norm)))
