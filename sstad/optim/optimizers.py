"""SGD, momentum (heavy ball and Nesterov), Adam and AdamW.

Each ``*_step`` is the update over tuples of leaves, in NumPy, compiled by ``sstad.jit``
(see :class:`sstad.optim.base.Optimizer`).  ``weight_decay`` adds ``weight_decay * p`` to
the gradient (L2), except in AdamW, where it is decoupled from the moments; ``clip_norm``
first clips the gradients by their global norm.
"""
from typing import NamedTuple

import numpy as np

from sstad.optim.base import EmptyState, Optimizer, decay_or_none
from sstad.optim.clip import clip_leaves


class MomentumState(NamedTuple):
    count: int
    velocity: object


class AdamState(NamedTuple):
    count: int
    mu: object
    nu: object


def with_decay(g, p, weight_decay):
    if weight_decay is None:
        return g
    return g + weight_decay * p


def sgd_step(grads, moments, params, count, lr, hyper):
    weight_decay, clip_norm = hyper
    grads = clip_leaves(grads, clip_norm)
    new_params = ()
    for g, p in zip(grads, params):
        new_params = new_params + (p - lr * with_decay(g, p, weight_decay),)
    return new_params, moments


def momentum_step(grads, moments, params, count, lr, hyper):
    beta, nesterov, weight_decay, clip_norm = hyper
    grads = clip_leaves(grads, clip_norm)
    (velocity,) = moments
    new_params, new_velocity = (), ()
    for g, v, p in zip(grads, velocity, params):
        g = with_decay(g, p, weight_decay)
        v = beta * v + g
        if nesterov:
            p = p - lr * (g + beta * v)
        else:
            p = p - lr * v
        new_params, new_velocity = new_params + (p,), new_velocity + (v,)
    return new_params, (new_velocity,)


def adam_moments(g, m, v, b1, b2):
    return b1 * m + (1.0 - b1) * g, b2 * v + (1.0 - b2) * (g * g)


def adam_step(grads, moments, params, count, lr, hyper):
    b1, b2, eps, weight_decay, decoupled, clip_norm = hyper
    grads = clip_leaves(grads, clip_norm)
    mu, nu = moments
    c1 = 1.0 - b1 ** (count + 1)          # bias corrections of step count + 1
    c2 = 1.0 - b2 ** (count + 1)
    new_params, new_mu, new_nu = (), (), ()
    for g, m, v, p in zip(grads, mu, nu, params):
        if not decoupled:
            g = with_decay(g, p, weight_decay)
        m, v = adam_moments(g, m, v, b1, b2)
        direction = (m / c1) / (np.sqrt(v / c2) + eps)
        if decoupled:
            direction = with_decay(direction, p, weight_decay)
        new_params = new_params + (p - lr * direction,)
        new_mu, new_nu = new_mu + (m,), new_nu + (v,)
    return new_params, (new_mu, new_nu)


def sgd(lr, weight_decay=0.0, clip_norm=None, backend="numba"):
    """Stochastic gradient descent: ``p - lr * (g + weight_decay * p)``.

    ``lr``: a number or a schedule (``sstad.optim.schedules``); ``clip_norm``: clip the
    gradients by their global norm first; ``backend``: where the update is compiled.
    """
    return Optimizer("sgd", sgd_step, EmptyState, lr, (decay_or_none(weight_decay), _clip(clip_norm)), backend)


def momentum(lr, beta=0.9, nesterov=False, weight_decay=0.0, clip_norm=None, backend="numba"):
    """SGD with momentum (PyTorch's form): ``v = beta * v + g``, then ``p - lr * v``, or with
    ``nesterov=True``, ``p - lr * (g + beta * v)`` (Sutskever et al. 2013, written in the
    look-ahead parameters).  State: ``MomentumState(count, velocity)``.
    """
    hyper = (float(beta), bool(nesterov), decay_or_none(weight_decay), _clip(clip_norm))
    return Optimizer("momentum", momentum_step, MomentumState, lr, hyper, backend)


def adam(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.0, clip_norm=None, backend="numba"):
    """Adam (Kingma & Ba 2015, Algorithm 1): ``p - lr * m̂ / (sqrt(v̂) + eps)`` with the
    bias-corrected moments of the gradient.  ``weight_decay`` is L2, added to the gradient
    (PyTorch's ``Adam``); for decoupled decay use :func:`adamw`.  State:
    ``AdamState(count, mu, nu)``.

    In a ``.py`` file::

        import numpy as np
        from sstad import optim

        opt = optim.adam(lr=0.1, backend="python")
        params = {"w": np.array([1.0, -2.0])}
        state = opt.init(params)
        for _ in range(100):
            grads = {"w": 2.0 * params["w"]}          # the gradient of sum(w ** 2)
            params, state = opt.update(grads, state, params)
        assert state.count == 100 and np.abs(params["w"]).max() < 0.1
    """
    hyper = (float(b1), float(b2), float(eps), decay_or_none(weight_decay), False, _clip(clip_norm))
    return Optimizer("adam", adam_step, AdamState, lr, hyper, backend)


def adamw(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=1e-4, clip_norm=None, backend="numba"):
    """AdamW (Loshchilov & Hutter 2019): Adam with decoupled weight decay,
    ``p - lr * (m̂ / (sqrt(v̂) + eps) + weight_decay * p)`` (the decay is scaled by ``lr``,
    as in optax and PyTorch).  State: ``AdamState(count, mu, nu)``.
    """
    hyper = (float(b1), float(b2), float(eps), decay_or_none(weight_decay), True, _clip(clip_norm))
    return Optimizer("adamw", adam_step, AdamState, lr, hyper, backend)


def _clip(clip_norm):
    if clip_norm is None:
        return None
    if not float(clip_norm) > 0.0:
        raise ValueError(f"clip_norm must be > 0 or None, not {clip_norm!r}")
    return float(clip_norm)
