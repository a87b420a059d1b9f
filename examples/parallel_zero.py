"""Sharded optimizer state (ZeRO stage 2), compared with unsharded training.

    mpiexec -n 2 python examples/parallel_zero.py     (or -n 4)

Each rank keeps the Adam moments of 1/N of the flattened parameters: gradients are
reduce_scattered, each rank updates its piece, the parameters are all_gathered.  The
parameters after 10 steps equal one process's; each rank holds 1/N of the state.
"""
import numpy as np

import sstad
from sstad import distributed as dist
from sstad import optim
from sstad.parallel import ravel, zero


def loss(p, x, t):
    h = np.tanh(x @ p["W1"] + p["b1"])
    return np.mean((h @ p["W2"] + p["b2"] - t) ** 2)


def init():
    rng = np.random.default_rng(0)
    return {"W1": rng.normal(size=(8, 64)) / 3, "b1": np.zeros(64), "W2": rng.normal(size=(64, 4)) / 8,
            "b2": np.zeros(4)}


def train(opt, x, t):
    params = init()
    state = opt.init(params)
    for _ in range(10):
        params, state = opt.update(grad(params, x, t), state, params)
    return params, state


rng = np.random.default_rng(1)
x, t = rng.normal(size=(64, 8)), rng.normal(size=(64, 4))
rank, size = dist.rank(), dist.world_size()
grad = sstad.grad(loss)
adam = optim.adam(lr=0.01, backend="python")

sharded, sharded_state = train(zero.shard(adam), np.array_split(x, size)[rank], np.array_split(t, size)[rank])
whole, whole_state = train(adam, x, t)          # one process, unsharded
diff = np.max(np.abs(ravel(sharded)[0] - ravel(whole)[0]))
mine, full = zero.state_bytes(sharded_state), zero.state_bytes(whole_state)
if rank == 0:
    print(f"ZeRO on {size} rank(s) vs unsharded: max |difference| = {diff:.1e}; "
          f"optimizer state {mine} of {full} bytes per rank ({mine / full:.3f})")
assert diff < 1e-10
