"""Optimizers as pure functions over pytrees (optax's shape), compiled by sstad.

``opt = sstad.optim.adam(lr=1e-3)``; ``state = opt.init(params)``;
``params, state = opt.update(grads, state, params)``.  See docs/training.md.
"""
from sstad.optim.clip import clip_by_global_norm, global_norm  # noqa: F401
from sstad.optim.optimizers import AdamState, MomentumState, adam, adamw, momentum, sgd  # noqa: F401
from sstad.optim.base import EmptyState, Optimizer  # noqa: F401
from sstad.optim.ema import Ema, EmaState, ema  # noqa: F401
from sstad.optim.precision import MixedPrecision, MixedPrecisionState, mixed_precision  # noqa: F401
from sstad.optim.schedules import constant, cosine_decay, linear_warmup, step_decay  # noqa: F401

__all__ = ["sgd", "momentum", "adam", "adamw", "Optimizer", "EmptyState", "MomentumState", "AdamState",
           "ema", "Ema", "EmaState", "mixed_precision", "MixedPrecision", "MixedPrecisionState",
           "constant", "linear_warmup", "cosine_decay", "step_decay", "global_norm", "clip_by_global_norm"]
