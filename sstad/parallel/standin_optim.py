"""Stand-ins for ``sstad.optim`` (optax's shape: ``init(params) -> state``,
``update(grads, state, params) -> (params, state)``) until it lands."""
from typing import Callable, NamedTuple

import numpy as np

from sstad.parallel.tree import tree_map


class Optimizer(NamedTuple):
    init: Callable
    update: Callable


def sgd(lr):
    def update(grads, state, params):
        return tree_map(lambda p, g: p - lr * g, params, grads), state
    return Optimizer(lambda params: (), update)


def adam(lr, b1=0.9, b2=0.999, eps=1e-8):
    def init(params):
        zeros = tree_map(np.zeros_like, params)
        return {"count": 0, "mu": zeros, "nu": tree_map(np.zeros_like, params)}

    def update(grads, state, params):
        t = state["count"] + 1
        mu = tree_map(lambda m, g: b1 * m + (1 - b1) * g, state["mu"], grads)
        nu = tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state["nu"], grads)
        step = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        new = tree_map(lambda p, m, v: p - step * m / (np.sqrt(v) + eps), params, mu, nu)
        return new, {"count": t, "mu": mu, "nu": nu}
    return Optimizer(init, update)
