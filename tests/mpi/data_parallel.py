"""Run under ``mpiexec -n P``: data parallel with the averages started in the backward sweep.

For bucket bounds that give one bucket per gradient, a few buckets and one bucket, the
overlapped gradient (the second call onwards runs the code of the ``overlap`` pass)
equals the gradient averaged after it returns; a model with float32 arrays and a Python
float needs a bucket of each dtype.  A barrier in compiled code waits for every rank, and
ranks whose gradients differ in size get ``CollectiveError`` on every rank.  Then the
example examples/data_parallel_mlp.py runs in the same launch (20 steps on P ranks equal
one process to 1e-10).  Prints one line per check on rank 0.  Usage: data_parallel.py BACKEND
"""
import pathlib
import sys
import time

import numpy as np

import sstad
from sstad import distributed as dist
from sstad.frontend.lower import flatten_runtime

P, ME = dist.world_size(), dist.rank()


def mlp(params, x, y):
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    return np.mean((h @ w2 + b2 - y) ** 2)


def mixed(params, x):
    w, scale = params
    return np.sum(np.sin(w * x)) * scale + scale * scale


def synced(x):
    dist.barrier()
    return x + 1.0


def report(ok, line):
    if ME == 0:
        print(f"{'ok ' if ok else 'BAD'} {line}", flush=True)
    return ok


def check_overlapped(name, loss, args, backend):
    rng = np.random.default_rng(ME)
    grad = sstad.jit(sstad.grad(loss), backend=backend)
    ok = True
    for bucket_mb in (0, 300 / 2 ** 20, 25):
        step = dist.data_parallel(grad, bucket_mb=bucket_mb)
        for _ in range(2):                    # the first call plans the buckets, the second is overlapped
            shard = tuple((a + 0.1 * rng.standard_normal(a.shape)).astype(a.dtype) for a in args[1:])
            got = step(args[0], *shard)
            expected = dist.average(grad(args[0], *shard))
            _, got_leaves = flatten_runtime(got)
            _, expected_leaves = flatten_runtime(expected)
            # the same sums over ranks; buckets of other sizes may let MPI add in another order
            ok &= all(np.result_type(a) == np.result_type(b) and type(a) is type(b) and
                      np.allclose(a, b, rtol=0, atol=4 * np.finfo(np.result_type(b)).eps * np.max(np.abs(b)))
                      for a, b in zip(got_leaves, expected_leaves))
        ok &= step.compiled(args) is not None
    return report(ok, f"{name}: overlapped averages equal averaging after the sweep")


def check_barrier(backend):
    """Rank 0 arrives 0.3 s late; the others wait for it in the barrier."""
    f = sstad.jit(synced, backend=backend)
    f(np.zeros(2))                            # compiled everywhere
    if ME == 0:
        time.sleep(0.3)
    start = time.monotonic()
    f(np.zeros(2))
    waited = dist.all_reduce(time.monotonic() - start if ME else 1.0, op="min")
    return report(waited > 0.25 or P == 1, f"barrier in compiled code: the others waited {waited:.2f} s for rank 0")


def check_mismatch(backend):
    grad = sstad.jit(sstad.grad(mixed), backend=backend)
    step = dist.data_parallel(grad)
    try:
        step((np.ones(3 + ME % 2), 1.0), np.ones(3 + ME % 2))
    except dist.CollectiveError as exc:
        message = str(exc)
    else:
        message = "no error"
    return report("rank 0 has [24, 8] bytes, rank 1 has [32, 8]" in message, f"mismatched gradients: {message}")


def main(backend):
    rng = np.random.default_rng(0)
    mlp_args = ((rng.standard_normal((3, 16)), np.zeros(16), rng.standard_normal((16, 1)), np.zeros(1)),
                rng.standard_normal((8, 3)), rng.standard_normal((8, 1)))
    mixed_args = ((rng.standard_normal(5).astype(np.float32), 0.5), rng.standard_normal(5).astype(np.float32))
    checks = [check_overlapped("mlp", mlp, mlp_args, backend),
              check_overlapped("float32 array and a float", mixed, mixed_args, backend),
              check_barrier(backend)]
    if P > 1:
        checks.append(check_mismatch(backend))
    if not all(checks):
        raise SystemExit(f"rank {ME}: a data-parallel check failed")
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples"))
    import data_parallel_mlp
    data_parallel_mlp.main(backend)


if __name__ == "__main__":
    main(sys.argv[1])
