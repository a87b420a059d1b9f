"""A model split into pipeline stages, one per rank, compared with one process.

    mpiexec -n 2 python examples/parallel_pipeline.py     (or -n 4: four stages)

Each stage is a plain NumPy function; sstad derives its backward, and the backward of
the ppermute that moves activations to the next rank (cotangents go back along the
inverse pairs).  GPipe and 1F1B over 4 micro-batches give the parameters of one process
training the whole model on the whole batch.
"""
import numpy as np

import sstad
from sstad import distributed as dist
from sstad import optim
from sstad.parallel import Pipeline, bubble_fraction, ravel


def layer(p, x):
    return np.tanh(x @ p["W"] + p["b"])


def head(p, x, t):
    return np.mean((x @ p["W"] + p["b"] - t) ** 2)


def whole_model(stages, x, t):
    for p in stages[:-1]:
        x = layer(p, x)
    return head(stages[-1], x, t)


def init(n):
    rng = np.random.default_rng(0)
    widths = [6] + [32] * (n - 1) + [2]
    return [{"W": rng.normal(size=(widths[i], widths[i + 1])) / np.sqrt(widths[i]), "b": np.zeros(widths[i + 1])}
            for i in range(n)]


def train(grad_fn, params, x, t):
    opt = optim.adam(lr=0.01, backend="python")
    state = opt.init(params)
    for _ in range(10):
        params, state = opt.update(grad_fn(params, x, t), state, params)
    return params


rng = np.random.default_rng(1)
x, t = rng.normal(size=(16, 6)), rng.normal(size=(16, 2))
rank, size = dist.rank(), dist.world_size()
whole = train(sstad.grad(whole_model), init(size), x, t)      # one process, every stage
for kind in ("gpipe", "1f1b"):
    pipe = Pipeline([layer] * (size - 1) + [head], micro_batches=4, kind=kind)
    mine = train(lambda p, x, t: pipe.value_and_grad(p, x, t)[1], init(size)[rank], x, t)
    diff = dist.all_reduce(float(np.max(np.abs(ravel(mine)[0] - ravel(whole[rank])[0]))), op="max")
    if rank == 0:
        print(f"{kind}: {size} stage(s) x 4 micro-batches vs one process: max |difference| = {diff:.1e}; "
              f"bubble {bubble_fraction(pipe.slots):.2f} of the slots")
    assert diff < 1e-10
