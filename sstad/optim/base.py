"""The optimizer object: pytrees in and out around one compiled update of flat leaves."""
from typing import NamedTuple

import numpy as np

from sstad.api import jit
from sstad.optim import tree


class Optimizer:
    """An optimizer in optax's shape, as pure functions over pytrees:
    ``init(params) -> state`` and ``update(grads, state, params) -> (params, state)``.

    ``state`` is a NamedTuple: ``count`` (an int, the number of updates done) and one pytree
    per moment, shaped like ``params`` (``mu`` and ``nu`` for Adam), so that each of its
    leaves has a stable name.  ``update`` flattens the pytrees and runs ``step``, the
    update written in NumPy and compiled by ``sstad.jit`` on ``backend``, on tuples of leaves:
    ``step(grads, moments, params, count, lr, hyper) -> (params, moments)``.  The learning
    rate ``lr`` is a number or a schedule (a function of ``count``, see
    ``sstad.optim.schedules``), evaluated on the host.
    """

    def __init__(self, name, step, state_type, lr, hyper, backend):
        self.name, self.state_type, self.lr, self.hyper = name, state_type, lr, tuple(hyper)
        self.moments = state_type._fields[1:]
        self.step = jit(step, backend=backend)

    def __repr__(self):
        return f"sstad.optim.{self.name}(lr={self.lr!r}, hyper={self.hyper!r}, backend={self.step.backend.name!r})"

    def learning_rate(self, count):
        """The learning rate of the update that follows ``count`` updates."""
        return float(self.lr(count)) if callable(self.lr) else float(self.lr)

    def init(self, params):
        """The state before the first update: ``count`` 0 and zero moments."""
        treedef, leaves = tree.flatten(params)
        moments = [tree.unflatten(treedef, [tree.zeros_like(p) for p in leaves]) for _ in self.moments]
        return self.state_type(0, *moments)

    def update(self, grads, state, params):
        """``(params, state)`` after one step along ``grads`` (a pytree like ``params``)."""
        treedef, leaves = tree.flatten(params)
        g = tree.leaves_like(grads, treedef, "grads")
        if not isinstance(state, self.state_type):
            raise TypeError(f"{self.name} expects its own state ({self.state_type.__name__}, from init), "
                            f"not {type(state).__name__}")
        moments = tuple(tuple(tree.leaves_like(getattr(state, m), treedef, f"state.{m}")) for m in self.moments)
        count = int(state.count)
        new_params, new_moments = self.step(tuple(g), moments, tuple(leaves), count,
                                            self.learning_rate(count), self.hyper)
        return (tree.unflatten(treedef, new_params),
                self.state_type(count + 1, *(tree.unflatten(treedef, m) for m in new_moments)))


class EmptyState(NamedTuple):
    count: int


def decay_or_none(weight_decay):
    """A weight decay of 0 is compiled out (None is static to sstad.jit)."""
    weight_decay = float(weight_decay)
    if not (weight_decay >= 0.0 and np.isfinite(weight_decay)):
        raise ValueError(f"weight_decay must be a finite number >= 0, not {weight_decay!r}")
    return weight_decay or None
