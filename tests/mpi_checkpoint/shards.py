"""Run under ``mpiexec -n K python tests/mpi_checkpoint/shards.py UNIFIED OUT``.

Each rank saves its part of the reference checkpoint as a shard (OUT/ckpt.*), loads its
part of the unified file UNIFIED (checking it is the part it holds) and saves that as a
shard again (OUT/reloaded.*); the test merges both sets of shards.
"""
import os
import sys

import numpy as np
from reference import reference

from sstad.checkpoint import Checkpoint, load, partition, save_shard, world


def part(params, state, rank, size):
    return partition(params, rank, size), partition(state, rank, size, root="opt_state")


def same(a, b):
    if isinstance(a, (dict, list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a.values() if isinstance(a, dict) else a, b.values() if isinstance(b, dict) else b):
            same(x, y)
    else:
        assert type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes(), (a, b)


def main(unified, out):
    rank, size = world()
    params, state, meta = reference()
    mine = part(params, state, rank, size)
    save_shard(os.path.join(out, "ckpt.safetensors"), *mine, meta)
    template = Checkpoint(*part(*reference()[:2], rank, size))
    ckpt = load(unified, like=template, rank=rank, world_size=size)
    same(ckpt.params, mine[0])
    same(ckpt.opt_state, mine[1])
    save_shard(os.path.join(out, "reloaded.safetensors"), ckpt.params, ckpt.opt_state, ckpt.meta)


if __name__ == "__main__":
    main(*sys.argv[1:])
