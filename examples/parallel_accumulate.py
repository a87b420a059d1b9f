"""Gradient accumulation across ranks, compared with one process on the whole batch.

    mpiexec -n 2 python examples/parallel_accumulate.py     (or -n 4, or plain python)

Each rank takes its part of a global batch of 60 rows and sums its gradient over 4
micro-batches; one all_reduce per update combines the ranks.  After 10 Adam steps the
parameters equal those of one process taking the whole batch at once.
"""
import numpy as np

import sstad
from sstad import distributed as dist
from sstad import optim
from sstad.parallel import accumulate, ravel


def loss(p, x, t):
    h = np.tanh(x @ p["W1"] + p["b1"])
    return np.mean((h @ p["W2"] + p["b2"] - t) ** 2)


def train(grad_fn, x, t):
    rng = np.random.default_rng(0)
    params = {"W1": rng.normal(size=(5, 16)) / 2, "b1": np.zeros(16), "W2": rng.normal(size=(16, 3)) / 4,
              "b2": np.zeros(3)}
    opt = optim.adam(lr=0.01, backend="python")
    state = opt.init(params)
    for _ in range(10):
        params, state = opt.update(grad_fn(params, x, t), state, params)
    return params


rng = np.random.default_rng(1)
x, t = rng.normal(size=(60, 5)), rng.normal(size=(60, 3))
rank, size = dist.rank(), dist.world_size()
mine = np.array_split(x, size)[rank], np.array_split(t, size)[rank]
grad = sstad.grad(loss)

accumulated = train(accumulate(grad, 4, across_ranks=True), *mine)
whole = train(grad, x, t)                      # one process, the whole batch
diff = np.max(np.abs(ravel(accumulated)[0] - ravel(whole)[0]))
if rank == 0:
    print(f"{size} rank(s) x 4 micro-batches vs one process: max |difference| = {diff:.1e}")
assert diff < 1e-10
