"""Mixed precision: float32 master weights, a lower-precision copy for the forward and
backward passes, and dynamic loss scaling.

The loss is multiplied by ``state.loss_scale`` before differentiation, so that small
gradients do not flush to zero in float16; :meth:`MixedPrecision.update` divides the
gradients by the scale in the master precision (compiled by sstad), skips the step and
halves the scale when a gradient is inf or NaN, and doubles the scale after
``growth_interval`` finite steps in a row.
"""
import math
from typing import NamedTuple

import numpy as np

from sstad.api import jit
from sstad.optim import tree
from sstad.runtime.abstract import is_float


class MixedPrecisionState(NamedTuple):
    inner: object          # the wrapped optimizer's state
    loss_scale: float
    good_steps: int        # finite steps since the scale last changed
    skipped: int           # steps skipped because a gradient was inf or NaN


def unscale_leaves(grads, scale):
    """The gradients divided by ``scale``, and whether all of them are finite."""
    finite = True
    out = ()
    for g in grads:
        g = g / scale
        finite = finite and np.all(np.isfinite(g))
        out = out + (g,)
    return out, finite


def compute_dtype_of(name):
    """``"float16"``, ``"float32"``, ``"float64"`` or ``"bfloat16"`` (from ml_dtypes) as a dtype."""
    if name in ("bfloat16", "bf16"):
        try:
            import ml_dtypes
        except ImportError:
            raise ImportError("bfloat16 needs the ml_dtypes package: pip install ml_dtypes") from None
        return np.dtype(ml_dtypes.bfloat16)
    dtype = np.dtype(name)
    if not is_float(dtype):
        raise ValueError(f"the compute dtype must be a floating-point type, not {dtype}")
    return dtype


class MixedPrecision:
    """An optimizer wrapped for mixed precision: ``init(params)``, ``cast(params)`` (the
    copy to compute with), ``update(grads, state, params) -> (params, state)``.

    In a ``.py`` file::

        import numpy as np
        from sstad import optim

        mp = optim.mixed_precision(optim.sgd(0.1, backend="python"), "float16")
        params = {"w": np.ones(2, np.float32)}
        state = mp.init(params)
        assert mp.cast(params)["w"].dtype == np.float16
        grads = {"w": np.array([np.inf, 1.0], np.float16)}      # an overflow
        params, state = mp.update(grads, state, params)
        assert state.skipped == 1 and state.loss_scale == 2.0 ** 14
        assert np.all(params["w"] == 1.0)
    """

    def __init__(self, optimizer, compute_dtype="float16", init_scale=2.0 ** 15, growth_interval=2000,
                 growth_factor=2.0, backoff_factor=0.5, min_scale=1.0):
        self.optimizer = optimizer
        self.compute_dtype = compute_dtype_of(compute_dtype)
        # The scale multiplies a loss of the compute dtype, so it must be finite there.
        self.max_scale = 2.0 ** math.floor(math.log2(float(_finfo(self.compute_dtype).max)))
        if not (1.0 < growth_factor and 0.0 < backoff_factor < 1.0 and 0.0 < min_scale <= init_scale):
            raise ValueError("need growth_factor > 1, 0 < backoff_factor < 1 and 0 < min_scale <= init_scale")
        if not (isinstance(growth_interval, int) and growth_interval > 0):
            raise ValueError(f"growth_interval must be a positive int, not {growth_interval!r}")
        self.init_scale = min(float(init_scale), self.max_scale)
        self.growth_interval, self.growth_factor = growth_interval, float(growth_factor)
        self.backoff_factor, self.min_scale = float(backoff_factor), float(min_scale)
        self.unscale = jit(unscale_leaves, backend=optimizer.step.backend.name)

    def __repr__(self):
        return f"sstad.optim.mixed_precision({self.optimizer!r}, {str(self.compute_dtype)!r})"

    def init(self, params):
        """The wrapped optimizer's state, the initial loss scale, no steps counted."""
        _, leaves = tree.flatten(params)
        for leaf in leaves:
            if np.asarray(leaf).dtype.itemsize < 4:
                raise TypeError(f"master weights must be float32 or float64, not {np.asarray(leaf).dtype}")
        return MixedPrecisionState(self.optimizer.init(params), self.init_scale, 0, 0)

    def cast(self, params):
        """``params`` with every leaf in the compute dtype."""
        treedef, leaves = tree.flatten(params)
        return tree.unflatten(treedef, [np.asarray(leaf).astype(self.compute_dtype) if isinstance(leaf, np.ndarray)
                                        else self.compute_dtype.type(leaf) for leaf in leaves])

    def update(self, grads, state, params):
        """One step along ``grads``, the gradients of ``loss * state.loss_scale`` (any float
        dtype), or none if one of them is inf or NaN; the loss scale adapted."""
        treedef, leaves = tree.flatten(params)
        master = tuple(np.asarray(g).astype(np.asarray(p).dtype) if isinstance(p, np.ndarray) else float(g)
                       for g, p in zip(tree.leaves_like(grads, treedef, "grads"), leaves))
        unscaled, finite = self.unscale(master, state.loss_scale)
        if not finite:
            scale = max(state.loss_scale * self.backoff_factor, self.min_scale)
            return params, MixedPrecisionState(state.inner, scale, 0, state.skipped + 1)
        params, inner = self.optimizer.update(tree.unflatten(treedef, unscaled), state.inner, params)
        good, scale = state.good_steps + 1, state.loss_scale
        if good == self.growth_interval:
            good, scale = 0, min(scale * self.growth_factor, self.max_scale)
        return params, MixedPrecisionState(inner, scale, good, state.skipped)


def _finfo(dtype):
    if dtype.kind == "f":
        return np.finfo(dtype)
    import ml_dtypes
    return ml_dtypes.finfo(dtype)


def mixed_precision(optimizer, compute_dtype="float16", **loss_scaling):
    """``optimizer`` with float32 master weights, ``compute_dtype`` for the forward and
    backward passes and dynamic loss scaling: see :class:`MixedPrecision`."""
    return MixedPrecision(optimizer, compute_dtype, **loss_scaling)
