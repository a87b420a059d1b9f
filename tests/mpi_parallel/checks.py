"""Each strategy, 10 training steps under mpiexec, against one process on the whole batch.

Run as ``mpiexec -n N python checks.py DIR [backend]`` (DIR: a folder every rank can write,
for the checkpoint shards).  Prints ``ok NAME max-difference`` per check on rank 0; a check
that fails raises (every rank ends, naming the rank).
"""
import os
import sys

import numpy as np

import sstad
from sstad import checkpoint, optim
from sstad import distributed as dist
from sstad.parallel import accumulate, ravel, zero
from sstad.parallel.pipeline import Pipeline

sys.path.insert(0, os.path.dirname(__file__))
import models  # noqa: E402

STEPS, TOL = 10, 1e-10
folder = sys.argv[1]
backend = sys.argv[2] if len(sys.argv) > 2 else "python"
rank, size = dist.rank(), dist.world_size()


def report(name, got, want):
    diff = float(np.max(np.abs(ravel(got)[0] - ravel(want)[0])))
    if not diff <= TOL:
        raise AssertionError(f"{name}: rank {rank} differs from one process by {diff:.3g}")
    worst = dist.all_reduce(diff, op="max")
    if rank == 0:
        print(f"ok {name} {worst:.2e}", flush=True)


def train(grad_fn, params, opt, *batch):
    state = opt.init(params)
    for _ in range(STEPS):
        params, state = opt.update(grad_fn(params, *batch), state, params)
    return params, state


_adam = optim.adam(lr=0.05, backend=backend)     # pure functions: one compiled update per signature


def adam():
    return _adam


# --- gradient accumulation -----------------------------------------------------------------
x, t = models.data(14)
mine = np.array_split(x, size)[rank], np.array_split(t, size)[rank]
grad = sstad.jit(sstad.grad(models.mlp_loss), backend=backend)
reference, ref_state = train(grad, models.mlp_params(), adam(), x, t)
local, _ = train(accumulate(grad, 3), models.mlp_params(), adam(), x, t)
report("accumulate-one-process", local, reference)
calls = []
all_reduce = dist.all_reduce
dist.all_reduce = lambda *a, **k: calls.append(1) or all_reduce(*a, **k)
across, _ = train(accumulate(grad, 3, across_ranks=True), models.mlp_params(), adam(), *mine)
dist.all_reduce = all_reduce
assert len(calls) == STEPS, f"{len(calls)} all_reduce calls for {STEPS} updates of 3 micro-batches"
report("accumulate-across-ranks", across, reference)

# --- ZeRO: sharded optimizer state ------------------------------------------------------------
x, t = models.data(12)
mine = np.array_split(x, size)[rank], np.array_split(t, size)[rank]
reference, ref_state = train(grad, models.mlp_params(), adam(), x, t)
for stage in (1, 2):
    params, state = train(grad, models.mlp_params(), zero.shard(adam(), stage=stage), *mine)
    report(f"zero-stage-{stage}", params, reference)
whole, piece = zero.state_bytes(ref_state), zero.state_bytes(state)
assert abs(piece - whole / size) <= 2 * 8, (piece, whole)      # at most one entry more per moment
if rank == 0:
    print(f"ok zero-memory {piece} of {whole} bytes", flush=True)
path = os.path.join(folder, "zero.safetensors")
zero.save_shard(path, params, state, {"step": STEPS})
dist.barrier()
if rank == 0:
    checkpoint.merge(checkpoint.shard_paths(path, size), os.path.join(folder, "merged.safetensors"))
dist.barrier()
merged = checkpoint.load(os.path.join(folder, "merged.safetensors"))
report("zero-merged-checkpoint", (merged.opt_state["mu"], merged.opt_state["nu"]),
       (ravel(ref_state.mu)[0], ravel(ref_state.nu)[0]))
loaded, loaded_state, _ = zero.load(os.path.join(folder, "merged.safetensors"), params, adam())
report("zero-resumed", (loaded, loaded_state.inner.mu, loaded_state.inner.nu),
       (params, state.inner.mu, state.inner.nu))

# --- pipeline -------------------------------------------------------------------------------
x, t = models.data(8)
stages = [models.hidden] * (size - 1) + [models.head]
reference, _ = train(sstad.jit(sstad.grad(models.whole_model), backend=backend), models.stage_params(size), adam(),
                     x, t)
for kind in ("gpipe", "1f1b"):
    pipe = Pipeline(stages, micro_batches=4, kind=kind, backend=backend)
    params, state = train(lambda p, x, t: pipe.value_and_grad(p, x, t)[1], models.stage_params(size)[rank],
                          adam(), x, t)
    report(f"pipeline-{kind}", params, reference[rank])

# --- synchronized batch norm --------------------------------------------------------------------
x, t = models.data(12)
rows = np.array_split(np.arange(12), size)[rank]
p = models.bn_params()
g_sync, dx_sync = sstad.jit(sstad.grad(models.sync_bn_loss, argnums=(0, 1)), backend=backend)(p, x[rows], t[rows])
g_one, dx_one = sstad.jit(sstad.grad(models.bn_loss, argnums=(0, 1)), backend=backend)(p, x, t)
report("sync-bn-input-gradient", dx_sync, dx_one[rows])
g_sync = {k: dist.all_reduce(v) for k, v in g_sync.items()}
report("sync-bn-parameter-gradient", g_sync, g_one)
sync_grad = sstad.jit(sstad.grad(models.sync_bn_loss), backend=backend)
params, _ = train(lambda p, x, t: {k: dist.all_reduce(v) for k, v in sync_grad(p, x, t).items()},
                  models.bn_params(), adam(), x[rows], t[rows])
reference, _ = train(sstad.jit(sstad.grad(models.bn_loss), backend=backend), models.bn_params(), adam(), x, t)
report("sync-bn-training", params, reference)
