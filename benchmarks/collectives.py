"""Collectives through sstad against raw mpi4py, in the same run (not a timed test).

    mpiexec -n 2 python benchmarks/collectives.py

1. all-reduce of 64 MB: ``sstad.jit`` of a function calling ``all_reduce`` (numba and
   python backends) against ``comm.Allreduce`` into a fresh array; medians and ratios.
2. gradient averaging of 100 small tensors: buckets (one Iallreduce) against one
   collective per tensor (``bucket_mb=0``).
3. an MLP's gradient alone against the gradient plus its averaging over ranks.
Rank 0 prints the numbers."""
import time

import numpy as np
from mpi4py import MPI

import sstad
from sstad import distributed as dist

COMM = MPI.COMM_WORLD


def median_ms(*fns, repeat=15):
    """Median milliseconds of each function, timed in turns (a shared machine's load
    then weighs on each alike); per rank, then the slowest rank's."""
    times = [[] for _ in fns]
    for k in range(repeat + 1):
        for fn, kept in zip(fns, times):
            COMM.Barrier()
            start = time.perf_counter()
            fn()
            if k:                                  # the first round warms up
                kept.append(time.perf_counter() - start)
    return [COMM.allreduce(float(np.median(t)), op=MPI.MAX) * 1e3 for t in times]


def summed(x):
    return dist.all_reduce(x)


def loss(params, x, y):
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    return np.mean((h @ w2 + b2 - y) ** 2)


def report(line):
    if COMM.Get_rank() == 0:
        print(line, flush=True)


def main():
    x = np.random.default_rng(COMM.Get_rank()).standard_normal(8 * 2 ** 20)       # 64 MB of float64
    for backend in ("numba", "python"):
        f = sstad.jit(summed, backend=backend)
        assert np.array_equal(f(x), COMM.allreduce(x))
        ms, raw = median_ms(lambda: f(x), lambda: COMM.Allreduce(x, np.empty_like(x), op=MPI.SUM))
        report(f"all_reduce 64 MB, {COMM.Get_size()} ranks: sstad ({backend}) {ms:.1f} ms, mpi4py Allreduce "
               f"{raw:.1f} ms, ratio {ms / raw:.3f}")

    small = [np.full(1000, float(COMM.Get_rank())) for _ in range(100)]
    bucketed, one_each = median_ms(lambda: dist.average(small, bucket_mb=25), lambda: dist.average(small, bucket_mb=0))
    report(f"averaging 100 tensors of 1000 float64: one bucket {bucketed:.2f} ms, one collective per tensor "
           f"{one_each:.2f} ms, ratio {one_each / bucketed:.1f}")

    rng = np.random.default_rng(0)
    params = (rng.standard_normal((256, 512)), np.zeros(512), rng.standard_normal((512, 10)), np.zeros(10))
    batch = rng.standard_normal((512, 256)), rng.standard_normal((512, 10))
    grad = sstad.jit(sstad.grad(loss), backend="numba")
    averaged = dist.data_parallel(grad)
    alone, both = median_ms(lambda: grad(params, *batch), lambda: averaged(params, *batch))
    report(f"MLP gradient (1.2 MB of parameters): backward {alone:.2f} ms, backward + averaging {both:.2f} ms")


if __name__ == "__main__":
    main()
