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
from sstad.runtime.collectives import (  # noqa: F401  (the primitives, as users call them)
    CollectiveError, all_gather, all_reduce, all_to_all, barrier, broadcast, clip_by_global_norm, ppermute,
    rank, reduce, reduce_scatter, world_size)

__all__ = ["rank", "world_size", "barrier", "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
           "all_to_all", "ppermute", "clip_by_global_norm", "CollectiveError"]
