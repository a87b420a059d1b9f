"""Synchronized batch norm: statistics over every rank's rows, backward derived by sstad.

    mpiexec -n 2 python examples/parallel_sync_bn.py     (or -n 4)

The user's function all-reduces the batch sums inside NumPy code; sstad differentiates
through the all_reduce (its transpose is an all_reduce), so the gradients equal those of
one process holding the whole batch: for the inputs, row by row, and for the parameters
once summed over the ranks.
"""
import numpy as np

import sstad
from sstad import distributed as dist


def sync_batch_norm(z, gamma, beta):
    n = dist.all_reduce(z.shape[0] * 1.0)                        # rows over all ranks
    mean = dist.all_reduce(np.sum(z, axis=0)) / n
    var = dist.all_reduce(np.sum((z - mean) ** 2, axis=0)) / n
    return gamma * (z - mean) / np.sqrt(var + 1e-5) + beta


def loss(p, x, t):
    y = np.tanh(sync_batch_norm(x @ p["W0"], p["gamma"], p["beta"]))
    n = dist.all_reduce(x.shape[0] * 1.0)
    return np.sum((y @ p["W"] - t) ** 2) / n                   # this rank's share of the mean


def one_process_loss(p, x, t):
    z = x @ p["W0"]
    mean = np.mean(z, axis=0)
    var = np.mean((z - mean) ** 2, axis=0)
    y = np.tanh(p["gamma"] * (z - mean) / np.sqrt(var + 1e-5) + p["beta"])
    return np.mean(np.sum((y @ p["W"] - t) ** 2, axis=1))


rng = np.random.default_rng(0)
p = {"W0": rng.normal(size=(4, 8)), "gamma": np.ones(8), "beta": np.zeros(8), "W": rng.normal(size=(8, 2))}
x, t = rng.normal(size=(24, 4)), rng.normal(size=(24, 2))
rank, size = dist.rank(), dist.world_size()
rows = np.array_split(np.arange(24), size)[rank]

grads, dx = sstad.grad(loss, argnums=(0, 1))(p, x[rows], t[rows])
want, want_dx = sstad.grad(one_process_loss, argnums=(0, 1))(p, x, t)
diff = max(np.max(np.abs(dist.all_reduce(grads[k]) - want[k])) for k in p)
diff = max(diff, dist.all_reduce(float(np.max(np.abs(dx - want_dx[rows]))), op="max"))
if rank == 0:
    print(f"SyncBatchNorm on {size} rank(s) vs one process with the whole batch: "
          f"max |gradient difference| = {diff:.1e}")
assert diff < 1e-10
