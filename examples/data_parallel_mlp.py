"""Data-parallel training of a small MLP: ``mpiexec -n 2 python examples/data_parallel_mlp.py``.

Each rank takes its shard of every global batch, computes the gradient with sstad and
averages it over ranks (``sstad.distributed.data_parallel``).  After 20 steps of SGD,
rank 0 trains the same model in one process on the whole batch and prints how far the
two sets of parameters are apart (they agree to rounding: the mean of the shards' mean
gradients is the full batch's mean gradient when the shards have equal sizes).
"""
import sys

import numpy as np

import sstad
from sstad import distributed as dist

GLOBAL_BATCH, STEPS, LEARNING_RATE = 48, 20, 0.1


def loss(params, x, y):
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    return np.mean((h @ w2 + b2 - y) ** 2)


def init(rng):
    return (rng.standard_normal((3, 16)) * 0.5, np.zeros(16), rng.standard_normal((16, 1)) * 0.5, np.zeros(1))


def data(step):
    rng = np.random.default_rng(step)
    x = rng.standard_normal((GLOBAL_BATCH, 3))
    return x, np.sin(x.sum(axis=1, keepdims=True))


def train(grad_fn, shard):
    params = init(np.random.default_rng(0))
    for step in range(STEPS):
        x, y = data(step)
        grads = grad_fn(params, x[shard], y[shard])
        params = tuple(p - LEARNING_RATE * g for p, g in zip(params, grads))
    return params


def main(backend="python"):
    p, me = dist.world_size(), dist.rank()
    if GLOBAL_BATCH % p:
        raise SystemExit(f"the global batch {GLOBAL_BATCH} does not split evenly over {p} ranks")
    grad = sstad.jit(sstad.grad(loss), backend=backend)
    per_rank = GLOBAL_BATCH // p
    params = train(dist.data_parallel(grad, bucket_mb=25), slice(me * per_rank, (me + 1) * per_rank))
    if me == 0:
        alone = train(grad, slice(None))
        gap = max(float(np.max(np.abs(a - b))) for a, b in zip(params, alone))
        print(f"{p} ranks x batch {per_rank} vs one process x batch {GLOBAL_BATCH}, {STEPS} steps: "
              f"largest parameter difference {gap:.2e}, loss {loss(params, *data(0)):.6f}")
        if gap > 1e-10:
            raise SystemExit("data-parallel training differs from one process")


if __name__ == "__main__":
    main(*sys.argv[1:])
