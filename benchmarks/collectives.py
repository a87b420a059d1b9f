"""Collectives through sstad against raw mpi4py, in the same run (not a timed test).

    mpiexec -n 2 python benchmarks/collectives.py [ROUNDS]

1. all-reduce of 64 MB: ``sstad.jit`` of a function calling ``all_reduce`` (numba and
   python backends) against ``comm.Allreduce`` into a fresh array.
2. gradient averaging of a model of 100 small tensors: buckets (one Iallreduce)
   against one collective per tensor (``bucket_mb=0``), both started inside the
   compiled backward sweep.
3. overlap: an MLP's gradient alone, then with its averaging after the backward sweep
   returns (``dist.average``), then averaged by ``data_parallel`` (each bucket started in
   the backward sweep, waited for at the end).
Every set of variants is timed in turns, the order rotating each round (a shared
machine's load then weighs on each alike); each line gives medians over the rounds, the
slowest rank's.  Before each call the garbage of the last is collected (outside the
timings: sstad's call path leaves small reference cycles, and a 64 MB result freed late
made the next call wait), with what exists before the timings frozen (``gc.freeze``) so
that the collection is quick.  Set
``MPIR_CVAR_ASYNC_PROGRESS=1`` (MPICH) to let MPI move data while the sweep computes.
"""
import gc
import sys
import time

import numpy as np
from mpi4py import MPI

import sstad
from sstad import distributed as dist

COMM = MPI.COMM_WORLD
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 15


def median_ms(*fns, least=False):
    """Median (``least``: and minimum) milliseconds of each function over ROUNDS rounds
    (after one warm-up round), each round in another rotation of the order (what runs
    just before a variant weighs on each alike); per rank, then the slowest rank's."""
    times = [[] for _ in fns]
    gc.freeze()        # the compiler's objects out of the collector's way (a full collection scans
    for k in range(ROUNDS + 1):     # them all, ~0.2 s); each call starts with the garbage of the last freed
        for i in [(k + j) % len(fns) for j in range(len(fns))]:
            gc.collect()
            COMM.Barrier()
            start = time.perf_counter()
            fns[i]()
            if k:
                times[i].append(time.perf_counter() - start)
    medians = [COMM.allreduce(float(np.median(t)), op=MPI.MAX) * 1e3 for t in times]
    return (medians, [COMM.allreduce(float(np.min(t)), op=MPI.MAX) * 1e3 for t in times]) if least else medians


def summed(x):
    return dist.all_reduce(x)


def mlp(params, x, y):
    w1, w2, w3 = params
    h = np.tanh(x @ w1)
    h = np.tanh(h @ w2)
    return np.mean((h @ w3 - y) ** 2)


def many(params, x):
    total = 0.0
    for p in params:
        total = total + np.sum(np.sin(p * x))
    return total


def report(line):
    if COMM.Get_rank() == 0:
        print(line, flush=True)


def raw_allreduce(x):
    out = np.empty_like(x)
    COMM.Allreduce(x, out, op=MPI.SUM)
    return out


def all_reduce_64mb():
    x = np.random.default_rng(COMM.Get_rank()).standard_normal(8 * 2 ** 20)       # 64 MB of float64
    numba_fn, python_fn = sstad.jit(summed, backend="numba"), sstad.jit(summed, backend="python")
    for f in (numba_fn, python_fn):
        assert np.array_equal(f(x), raw_allreduce(x))
    for what, (nb, py, raw) in zip(("median", "minimum"), median_ms(lambda: numba_fn(x), lambda: python_fn(x),
                                                                    lambda: raw_allreduce(x), least=True)):
        report(f"all_reduce 64 MB, {COMM.Get_size()} ranks, {what}: mpi4py Allreduce {raw:.1f} ms, sstad numba "
               f"{nb:.1f} ms ({nb / raw - 1:+.1%}), sstad python {py:.1f} ms ({py / raw - 1:+.1%})")


def buckets_against_one_per_tensor():
    rng = np.random.default_rng(0)
    params = tuple(rng.standard_normal(1000) for _ in range(100))
    x = rng.standard_normal(1000)
    grad = sstad.jit(sstad.grad(many), backend="python")
    bucketed, one_each = dist.data_parallel(grad, bucket_mb=25), dist.data_parallel(grad, bucket_mb=0)
    for step in (bucketed, one_each):
        step(params, x)                                            # plans its buckets
    alone, b, e = median_ms(lambda: grad(params, x), lambda: bucketed(params, x), lambda: one_each(params, x))
    report(f"gradient of 100 tensors of 1000 float64 (python backend): alone {alone:.2f} ms, one bucket {b:.2f} ms, "
           f"one all-reduce per tensor {e:.2f} ms; averaging costs {b - alone:.2f} vs {e - alone:.2f} ms")


def overlap():
    rng = np.random.default_rng(0)
    n = 512
    params = tuple(rng.standard_normal((n, n)) / np.sqrt(n) for _ in range(3))       # 3 x 2 MB
    x, y = rng.standard_normal((256, n)), rng.standard_normal((256, n))
    grad = sstad.jit(sstad.grad(mlp), backend="numba")
    after = (lambda: dist.average(grad(params, x, y), bucket_mb=25))
    one_bucket, per_layer = dist.data_parallel(grad, bucket_mb=25), dist.data_parallel(grad, bucket_mb=2)
    for step in (one_bucket, per_layer):
        step(params, x, y)
        assert all(np.allclose(a, b, rtol=1e-12, atol=0) for a, b in zip(step(params, x, y), after()))
    alone, late, one, each = median_ms(lambda: grad(params, x, y), after, lambda: one_bucket(params, x, y),
                                       lambda: per_layer(params, x, y))
    report(f"MLP 3 x {n}x{n} (6 MB of gradients, numba): backward {alone:.1f} ms; + averaging after it returns "
           f"{late:.1f} ms; data_parallel, one bucket started at the end {one:.1f} ms; one bucket per layer, "
           f"started in the sweep {each:.1f} ms")


def main():
    report(f"{COMM.Get_size()} ranks, {ROUNDS} alternating rounds, medians")
    all_reduce_64mb()
    buckets_against_one_per_tensor()
    overlap()


if __name__ == "__main__":
    main()
