"""Pipeline parallelism: step time and bubble of GPipe and 1F1B (not a timed test).

    OMP_NUM_THREADS=1 mpiexec -n 2 python benchmarks/pipeline.py [--steps 10] [--backend python]

Two stages (one per rank) of 3 dense tanh layers of width 256, a global batch of 256 rows
in 4 and 8 micro-batches.  For each schedule: the median step time, the share of it each
rank spends computing, the share spent in collectives (moving activations and cotangents,
and waiting for the other rank), the measured bubble (1 - computing / step time, averaged
over the ranks) and the schedule's own bubble (idle slots, a forward and a backward counted as one
slot each).  Each configuration's gradients are checked against one process first.
"""
import argparse
import time

import numpy as np

import sstad
from sstad import distributed as dist
from sstad.parallel import Pipeline, bubble_fraction, ravel

WIDTH, LAYERS, ROWS = 256, 3, 256


def block(p, x):
    for k in range(len(p)):
        x = np.tanh(x @ p[k])
    return x


def head(p, x, t):
    for k in range(len(p) - 1):
        x = np.tanh(x @ p[k])
    return np.mean((x @ p[len(p) - 1] - t) ** 2)


def whole(stages, x, t):
    for p in stages[:-1]:
        x = block(p, x)
    return head(stages[-1], x, t)


def _shares(values):
    return " / ".join(f"{v:.0%}" for v in values)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--backend", default="python")
    args = parser.parse_args()
    rank, size = dist.rank(), dist.world_size()
    rng = np.random.default_rng(0)
    params = [tuple(rng.normal(size=(WIDTH, WIDTH)) / np.sqrt(WIDTH) for _ in range(LAYERS)) for _ in range(size)]
    x, t = rng.normal(size=(ROWS, WIDTH)), rng.normal(size=(ROWS, WIDTH))
    want = sstad.jit(sstad.grad(whole), backend=args.backend)(params, x, t)
    stages = [block] * (size - 1) + [head]
    if rank == 0:
        print(f"{size} stages x {LAYERS} layers of width {WIDTH}, {ROWS} rows per step, backend={args.backend}")
        print("| schedule | micro-batches | step (ms) | computing, per rank | in collectives, per rank "
              "| bubble measured | bubble of the schedule |")
        print("|---|---|---|---|---|---|---|")
    for m in (4, 8):
        for kind in ("gpipe", "1f1b"):
            pipe = Pipeline(stages, micro_batches=m, kind=kind, backend=args.backend)
            _, g = pipe.value_and_grad(params[rank], x, t)         # compiles, and is checked
            diff = float(np.max(np.abs(ravel(g)[0] - ravel(want[rank])[0])))
            assert dist.all_reduce(diff, op="max") < 1e-10
            steps, busy, talk = [], [], []
            for _ in range(args.steps):
                dist.barrier()
                pipe.value_and_grad(params[rank], x, t)
                steps.append(dist.all_reduce(pipe.timing["step"], op="max"))
                busy.append(pipe.timing["busy"])
                talk.append(pipe.timing["collectives"])
            step = float(np.median(steps))
            share = dist.all_gather(np.array([np.median(busy) / step]))
            waiting = dist.all_gather(np.array([np.median(talk) / step]))
            if rank == 0:
                print(f"| {kind} | {m} | {1e3 * step:.1f} | {_shares(share)} | {_shares(waiting)} "
                      f"| {1 - share.mean():.2f} | {bubble_fraction(pipe.slots):.2f} |", flush=True)
    if rank == 0:
        grad = sstad.jit(sstad.grad(whole), backend=args.backend)
        grad(params, x, t)
        times = []
        for _ in range(args.steps):
            start = time.perf_counter()
            grad(params, x, t)
            times.append(time.perf_counter() - start)
        print(f"one process, the whole model and batch: {1e3 * np.median(times):.1f} ms per step")


if __name__ == "__main__":
    main()
