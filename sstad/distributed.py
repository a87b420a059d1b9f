"""Training across processes: collectives that sstad differentiates, data parallel.

Call these inside a function that sstad compiles and differentiates; each collective is a
primitive with its own derivative rule (runtime/collectives.py, docs/distributed.md).
Launch the program with ``mpiexec -n N python prog.py``; without ``mpiexec`` the world
has one rank and every collective is the identity.  Example, in a ``.py`` file::

    import numpy as np
    import sstad
    from sstad import distributed as dist

    def loss(w):
        return dist.all_reduce(np.sum(w * w), op="mean")

    g = sstad.grad(loss)(np.ones(3))
    assert np.allclose(g, 2.0)
"""
import numpy as np

from sstad.runtime.collectives import (  # noqa: F401  (the primitives, as users call them)
    CollectiveError, all_gather, all_reduce, all_to_all, barrier, broadcast, clip_by_global_norm, ppermute,
    rank, reduce, reduce_scatter, world, world_size)

__all__ = ["rank", "world_size", "barrier", "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
           "all_to_all", "ppermute", "clip_by_global_norm", "CollectiveError", "data_parallel", "average"]


def _leaves(tree, out):
    """The arrays and floats of a gradient pytree (tuples, lists, dicts), in order."""
    if isinstance(tree, (tuple, list)):
        for item in tree:
            _leaves(item, out)
    elif isinstance(tree, dict):
        for key in tree:
            _leaves(tree[key], out)
    else:
        out.append(tree)
    return out


def _rebuild(tree, values):
    if isinstance(tree, (tuple, list)):
        items = [_rebuild(item, values) for item in tree]
        return type(tree)(items) if not hasattr(tree, "_fields") else type(tree)(*items)
    if isinstance(tree, dict):
        return {key: _rebuild(tree[key], values) for key in tree}
    return next(values)


def buckets(leaves, bucket_mb):
    """Groups of leaf positions, each moved by one all-reduce: in reverse order (the
    order in which a backward sweep finishes the gradients of a model whose parameters
    are listed from input to output), one dtype per bucket, each up to ``bucket_mb``
    megabytes (a larger leaf is a bucket of its own; ``bucket_mb=0``: one per leaf)."""
    groups, current, size, dtype = [], [], 0, None
    for k in reversed(range(len(leaves))):
        leaf = np.asarray(leaves[k])
        if current and (leaf.dtype != dtype or size + leaf.nbytes > bucket_mb * 2 ** 20):
            groups.append(current)
            current, size = [], 0
        current.append(k)
        size, dtype = size + leaf.nbytes, leaf.dtype
    return groups + [current] if current else groups


def average(tree, bucket_mb=25, clip_norm=None):
    """The mean of a pytree of gradients over ranks, by bucketed non-blocking
    all-reduces (every bucket is started before the first is waited on); with
    ``clip_norm``, scaled so that its norm is at most ``clip_norm`` (the averaged
    gradient is the same on every rank, so its norm is the global one)."""
    from mpi4py import MPI
    comm = world()
    leaves = _leaves(tree, [])
    p = comm.Get_size()
    averaged = list(leaves)
    if p > 1:
        pending = []
        for group in buckets(leaves, bucket_mb):
            flat = np.concatenate([np.asarray(leaves[k], dtype=np.asarray(leaves[group[0]]).dtype).ravel()
                                   for k in group])
            pending.append((group, flat, comm.Iallreduce(MPI.IN_PLACE, flat, op=MPI.SUM)))
        for group, flat, request in pending:
            request.Wait()
            flat /= p
            offset = 0
            for k in group:
                shape = np.shape(leaves[k])
                size = int(np.prod(shape, dtype=np.int64))
                piece = flat[offset:offset + size].reshape(shape)
                averaged[k] = type(leaves[k])(piece[()]) if isinstance(leaves[k], float) else piece
                offset += size
    if clip_norm is not None:
        norm = np.sqrt(sum(float(np.sum(np.square(g))) for g in averaged))
        scale = min(1.0, clip_norm / max(norm, 1e-30))
        averaged = [g * scale for g in averaged]
    return _rebuild(tree, iter(averaged))


def data_parallel(grad_fn, bucket_mb=25, clip_norm=None):
    """``grad_fn`` (say ``sstad.grad(loss)`` or a compiled one), with its gradients
    averaged over ranks: call it on each rank with that rank's shard of the batch, and
    every rank gets the gradient of the mean loss over the global batch (for shards of
    equal size).  Small gradients travel together in buckets of ``bucket_mb`` megabytes;
    see :func:`average`.  Example, in a ``.py`` file::

        import numpy as np
        import sstad
        from sstad import distributed as dist

        def loss(w, x):
            return np.mean((x @ w) ** 2)

        step = dist.data_parallel(sstad.grad(loss))
        g = step(np.ones(2), np.ones((4, 2)))
        assert np.allclose(g, 4.0)
    """
    def averaged(*args):
        return average(grad_fn(*args), bucket_mb=bucket_mb, clip_norm=clip_norm)
    averaged.__name__ = getattr(grad_fn, "__name__", "grad") + "_data_parallel"
    return averaged
