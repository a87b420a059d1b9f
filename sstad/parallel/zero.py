"""Sharded optimizer state (ZeRO stages 1 and 2).

Parameters and gradients are seen as one flat vector (:func:`sstad.parallel.ravel`),
split over the ranks as ``np.array_split`` splits it.  Each rank keeps the optimizer state
of its piece only, so the state's memory per rank is 1/N of the unsharded state.  A step:

* the gradients of every rank are averaged and each rank gets its piece: stage 2 with
  ``reduce_scatter`` (no rank ever holds the whole averaged gradient), stage 1 with
  ``all_reduce`` and a slice;
* each rank updates its piece of the parameters with its piece of the state;
* ``all_gather`` gives every rank the whole updated parameters.

The result is the unsharded data-parallel step's, for any optimizer that works
elementwise on its parameters (SGD, momentum, Adam...): an update that mixes entries of
different parameters (``clip_norm``, a global norm) would see one piece only.

Checkpoints go through ``sstad.checkpoint``'s shards: :func:`save_shard` on every rank,
``sstad.checkpoint.merge`` of the shards into the file one process would write for the
flat parameters, and :func:`load` of that file on any number of ranks.
"""
from typing import Callable, NamedTuple

import numpy as np

from sstad import checkpoint, distributed
from sstad.tree import leaves, ravel


class ShardedState(NamedTuple):
    inner: object      # the optimizer's state for this rank's piece of the flat parameters
    start: int         # where the piece starts in the flat vector
    stop: int


class ShardedOptimizer(NamedTuple):
    init: Callable
    update: Callable


def piece(n, rank, size):
    """``(start, stop)`` of rank's piece of ``n`` entries (``np.array_split``'s pattern)."""
    base, extra = divmod(n, size)
    start = rank * base + min(rank, extra)
    return start, start + base + (1 if rank < extra else 0)


def shard(optimizer, stage=2):
    """``optimizer`` (``init(params)``, ``update(grads, state, params) -> (params, state)``)
    with its state sharded over the ranks.

    ``update`` takes this rank's *own* gradients (of its part of the global batch, not
    yet averaged) and returns the parameters every rank gets after the averaged step.

    Example, in a ``.py`` file::

        import numpy as np
        from sstad import optim
        from sstad.parallel import zero

        opt = zero.shard(optim.adam(lr=0.1, backend="python"))
        params = {"w": np.ones(3), "b": 0.0}
        state = opt.init(params)
        params, state = opt.update({"w": np.ones(3), "b": 1.0}, state, params)
    """
    if stage not in (1, 2):
        raise ValueError(f"stage must be 1 (sharded optimizer state) or 2 (and gradients), not {stage!r}")

    def init(params):
        flat, _ = ravel(params)
        start, stop = piece(flat.size, distributed.rank(), distributed.world_size())
        return ShardedState(optimizer.init(flat[start:stop].copy()), start, stop)

    def update(grads, state, params):
        flat_grads, _ = ravel(grads)
        flat_params, unravel = ravel(params)
        if stage == 2:
            mine = distributed.reduce_scatter(flat_grads, op="mean")
        else:
            mine = distributed.all_reduce(flat_grads, op="mean")[state.start:state.stop]
        new_piece, inner = optimizer.update(mine, state.inner, flat_params[state.start:state.stop])
        return unravel(distributed.all_gather(np.asarray(new_piece))), state._replace(inner=inner)
    return ShardedOptimizer(init, update)


def state_bytes(state):
    """Bytes of the arrays in an optimizer state (numbers held as Python scalars count
    nothing): what the state costs a rank."""
    return sum(x.nbytes for x in leaves(state) if isinstance(x, np.ndarray))


def _axes(name, value):
    """Pieces of the optimizer state are split along their only axis; the rest is whole."""
    return 0 if name.startswith("opt_state/") and np.ndim(value) == 1 else None


def save_shard(path, params, state, meta=None):
    """Write this rank's shard of a checkpoint: the whole ``params`` and this rank's piece
    of the optimizer state.  ``sstad.checkpoint.merge(sstad.checkpoint.shard_paths(path,
    n), out)`` joins the shards; the merged state holds the moments as flat vectors."""
    return checkpoint.save_shard(path, params, state.inner, meta, axes=_axes)


def load(path, params, optimizer):
    """``(params, state, meta)`` from a merged checkpoint, on any number of ranks: each rank
    reads the whole parameters and its own piece of the optimizer state.  ``params`` is a
    template (the structure, shapes and dtypes), ``optimizer`` the unsharded optimizer."""
    flat, _ = ravel(params)
    start, stop = piece(flat.size, distributed.rank(), distributed.world_size())
    like = checkpoint.Checkpoint(params, optimizer.init(flat[start:stop].copy()))
    got = checkpoint.load(path, like, rank=distributed.rank(), world_size=distributed.world_size())
    return got.params, ShardedState(got.opt_state, start, stop), got.meta
