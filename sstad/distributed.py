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

from sstad.api import Jitted, dump
from sstad.frontend.lower import flatten_runtime, lower
from sstad.frontend.pytree import hashable, unflatten
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A
from sstad.runtime.primitive import PRIMITIVES
from sstad.runtime.collectives import (  # noqa: F401  (the primitives, as users call them)
    CollectiveError, all_gather, all_reduce, all_to_all, barrier, broadcast, check_layouts, clip_by_global_norm,
    ppermute, rank, reduce, reduce_scatter, world, world_size)

__all__ = ["rank", "world_size", "barrier", "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
           "all_to_all", "ppermute", "clip_by_global_norm", "CollectiveError", "data_parallel", "DataParallel", "average"]


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
    return _rebuild(tree, iter(_clipped(averaged, clip_norm)))


def _clipped(leaves, clip_norm):
    if clip_norm is None:
        return leaves
    norm = np.sqrt(sum(float(np.sum(np.square(g))) for g in leaves))
    scale = min(1.0, clip_norm / max(norm, 1e-30))
    return [g * scale for g in leaves]


class _Averaged:
    """A lowerable gradient function whose float results each pass through
    ``mpi.average``: what the ``overlap`` pass turns into bucketed all-reduces started
    inside the backward sweep.  ``nbytes``: each result's size, for the buckets."""

    def __init__(self, fun, bucket_mb, nbytes):
        self.fun, self.bucket_mb, self.nbytes = fun, bucket_mb, nbytes
        self.__name__ = self.__qualname__ = fun.__name__ + "_data_parallel"
        self.__module__ = getattr(fun, "__module__", None)

    def sstad_lower(self, args):
        module, in_tree, out_tree, captures = (self.fun.sstad_lower(args) if hasattr(self.fun, "sstad_lower")
                                               else lower(self.fun, args))
        body = module.entry.body
        results = []
        for r, nbytes in zip(body.results, self.nbytes):
            if isinstance(r.type, (A.Array, A.Scalar)) and A.is_float(r.type.dtype):
                out = ir.Var(getattr(r, "hint", "g"), r.type)
                body.stmts.append(ir.Apply([out], PRIMITIVES["mpi.average"], [r],
                                           {"bucket_mb": self.bucket_mb, "nbytes": nbytes}))
                r = out
            results.append(r)
        body.results = results
        return module, in_tree, out_tree, captures


class DataParallel:
    """See :func:`data_parallel`."""

    def __init__(self, grad_fn, bucket_mb=25, clip_norm=None):
        self.grad_fn, self.bucket_mb, self.clip_norm = grad_fn, bucket_mb, clip_norm
        self.fun = grad_fn.fn if isinstance(grad_fn, Jitted) else grad_fn
        self.compiles = isinstance(grad_fn, Jitted) or hasattr(grad_fn, "sstad_lower")
        self.backend = grad_fn.backend.name if isinstance(grad_fn, Jitted) else "python"
        self.__name__ = getattr(grad_fn, "__name__", "grad") + "_data_parallel"
        self._plans = {}           # shapes and dtypes of the arguments -> the compiled averaged gradient

    def __call__(self, *args):
        compiled = self.compiled(args)
        if compiled is None:                   # the first call for these shapes: plan the buckets
            grads = self.grad_fn(*args)
            if self.compiles:
                self._plan(args, grads)
                _check_sizes(self._plans[_shapes(args)].fn.nbytes)
            return average(grads, bucket_mb=self.bucket_mb, clip_norm=self.clip_norm)
        grads = compiled(*args)
        if self.clip_norm is None:
            return grads
        _, leaves = flatten_runtime(grads)
        return _rebuild_runtime(grads, _clipped(leaves, self.clip_norm))

    def compiled(self, args):
        """The compiled averaged gradient for arguments of these shapes, once planned."""
        return self._plans.get(_shapes(args)) if self.compiles else None

    def _plan(self, args, grads):
        _, leaves = flatten_runtime(grads)
        nbytes = tuple(int(np.asarray(g).nbytes) for g in leaves)
        self._plans[_shapes(args)] = Jitted(_Averaged(self.fun, self.bucket_mb, nbytes), self.backend, False)

    def dump(self, *args, emit="python"):
        """The code of the averaged gradient for ``args`` (``emit`` as in
        :func:`sstad.dump`): the bucket starts sit in the backward sweep."""
        if self.compiled(args) is None:
            self._plan(args, self.grad_fn(*args))
        return dump(self.compiled(args).fn, *args, emit=emit)


def _check_sizes(nbytes):
    """Every rank's gradients have the same sizes (else ``CollectiveError`` on every rank,
    before any bucket moves): checked once per plan, not at every step."""
    comm = world()
    if comm.Get_size() == 1:
        return
    mine = np.array(nbytes, dtype=np.int64)
    check_layouts(comm, "data_parallel (the number of gradients)", mine)
    every = np.empty((comm.Get_size(), mine.size), dtype=np.int64)
    comm.Allgather(mine, every)
    for r in range(every.shape[0]):
        if not np.array_equal(every[r], every[0]):
            raise CollectiveError(f"data_parallel: the ranks' gradients differ in size: rank 0 has "
                                  f"{every[0].tolist()} bytes, rank {r} has {every[r].tolist()}")


def _shapes(args):
    treedef, leaves = flatten_runtime(args)
    return hashable(treedef), tuple((np.shape(v), np.result_type(v).str) for v in leaves)


def _rebuild_runtime(tree, leaves):
    treedef, _ = flatten_runtime(tree)
    return unflatten(treedef, leaves, list_type=list)


def data_parallel(grad_fn, bucket_mb=25, clip_norm=None):
    """``grad_fn`` (say ``sstad.grad(loss)``, or ``sstad.jit`` of it), with its gradients
    averaged over ranks: call it on each rank with that rank's shard of the batch, and
    every rank gets the gradient of the mean loss over the global batch (for shards of
    equal size).

    Gradients travel in buckets of at most ``bucket_mb`` megabytes (``0``: one
    all-reduce per gradient).  When ``grad_fn`` is compiled by sstad, each bucket's
    all-reduce starts inside the compiled backward sweep, right after its last gradient
    is final, and is waited for at the end (the ``overlap`` pass).  The bucket plan
    needs the gradients' sizes: the first call with arguments of new shapes runs
    ``grad_fn`` and averages its result after it returns; later calls run the
    overlapped code.  ``clip_norm`` scales the averaged gradient to at most that norm.
    Example, in a ``.py`` file::

        import numpy as np
        import sstad
        from sstad import distributed as dist

        def loss(w, x):
            return np.mean((x @ w) ** 2)

        step = dist.data_parallel(sstad.grad(loss))
        for _ in range(2):                     # the second call runs the overlapped code
            g = step(np.ones(2), np.ones((4, 2)))
            assert np.allclose(g, 4.0)
    """
    return DataParallel(grad_fn, bucket_mb, clip_norm)
