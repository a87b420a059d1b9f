"""An exponential moving average of parameters (Polyak averaging), compiled by sstad."""
from typing import NamedTuple

from sstad.api import jit
from sstad.optim import tree


class EmaState(NamedTuple):
    count: int
    average: object


def ema_step(params, average, decay):
    new_average = ()
    for p, a in zip(params, average):
        new_average = new_average + (decay * a + (1.0 - decay) * p,)
    return new_average


class Ema:
    """``init(params) -> EmaState(count=0, average=params)`` and ``update(params, state) ->
    state`` with ``average = decay * average + (1 - decay) * params``.  The average starts
    at the parameters, so it needs no bias correction; evaluate with ``state.average``.

    In a ``.py`` file::

        import numpy as np
        from sstad import optim

        ema = optim.ema(0.5, backend="python")
        state = ema.init({"w": np.zeros(2)})
        state = ema.update({"w": np.ones(2)}, state)
        assert state.count == 1 and np.all(state.average["w"] == 0.5)
    """

    def __init__(self, decay, backend):
        if not 0.0 <= float(decay) < 1.0:
            raise ValueError(f"decay must be in [0, 1), not {decay!r}")
        self.decay = float(decay)
        self.step = jit(ema_step, backend=backend)

    def __repr__(self):
        return f"sstad.optim.ema({self.decay!r}, backend={self.step.backend.name!r})"

    def init(self, params):
        treedef, leaves = tree.flatten(params)
        return EmaState(0, tree.unflatten(treedef, [leaf.copy() if hasattr(leaf, "copy") else leaf
                                                    for leaf in leaves]))

    def update(self, params, state):
        treedef, leaves = tree.flatten(params)
        average = tree.leaves_like(state.average, treedef, "state.average")
        new = self.step(tuple(leaves), tuple(average), self.decay)
        return EmaState(int(state.count) + 1, tree.unflatten(treedef, new))


def ema(decay=0.999, backend="numba"):
    """An exponential moving average of the parameters: see :class:`Ema`."""
    return Ema(decay, backend)
