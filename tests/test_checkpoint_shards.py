"""Per-rank shards under ``mpiexec -n 2`` and ``-n 3``: merged, they are byte for byte the
file one process writes; a unified file loads into each rank's part."""
import os
import subprocess
import sys

import numpy as np
import pytest

from mpi_launcher import MPIEXEC, needs_mpiexec
from sstad.checkpoint import CheckpointError, load, merge, partition, save, save_shard, shard_path, shard_paths

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "mpi_checkpoint"))
from reference import reference  # noqa: E402


def single(tmp_path):
    path = tmp_path / "single.safetensors"
    save(path, *reference())
    return path, path.read_bytes()


@needs_mpiexec
@pytest.mark.parametrize("ranks", [2, 3])
def test_shards_of_k_ranks_merge_into_the_single_process_file(tmp_path, ranks):
    path, expected = single(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    subprocess.run([MPIEXEC, "-n", str(ranks), sys.executable, os.path.join(HERE, "mpi_checkpoint", "shards.py"),
                    str(path), str(out)], check=True, timeout=300)
    for name in ("ckpt", "reloaded"):
        shards = shard_paths(out / f"{name}.safetensors", ranks)
        assert sorted(os.listdir(out)) == sorted(os.path.basename(p) for p in
                                                 shard_paths(out / "ckpt.safetensors", ranks) + shard_paths(out / "reloaded.safetensors", ranks))
        merged = merge(list(reversed(shards)), tmp_path / f"{name}-merged.safetensors")
        assert open(merged, "rb").read() == expected, name


def test_shards_in_one_process(tmp_path):
    """The same without MPI: rank and world size given."""
    path, expected = single(tmp_path)
    params, state, meta = reference()
    for rank in range(4):
        save_shard(tmp_path / "c.safetensors", partition(params, rank, 4),
                   partition(state, rank, 4, root="opt_state"), meta, rank=rank, world_size=4)
    assert open(merge(shard_paths(tmp_path / "c.safetensors", 4), tmp_path / "m.safetensors"), "rb").read() == expected
    assert np.array_equal(load(shard_path(tmp_path / "c.safetensors", 3, 4)).params["embed"], params["embed"][6:])


def test_merge_refuses_shards_that_do_not_belong_together(tmp_path):
    params, state, meta = reference()
    base = tmp_path / "c.safetensors"
    for rank in range(2):
        save_shard(base, partition(params, rank, 2), None, meta, rank=rank, world_size=2)
    with pytest.raises(CheckpointError, match=r"are not ranks 0 .. n-1 of one world: ranks \[0\]"):
        merge(shard_paths(base, 2)[:1], tmp_path / "m.safetensors")
    save_shard(base, partition(params, 1, 2), None, dict(meta, step=5), rank=1, world_size=2)
    with pytest.raises(CheckpointError, match="of step 5 .* of step 4: shards of different checkpoints"):
        merge(shard_paths(base, 2), tmp_path / "m.safetensors")
    save_shard(base, dict(partition(params, 1, 2), scale=0.25), None, meta, rank=1, world_size=2)
    with pytest.raises(CheckpointError, match="`params/scale` is replicated but .* hold different values"):
        merge(shard_paths(base, 2), tmp_path / "m.safetensors")
    with pytest.raises(CheckpointError, match="not a shard"):
        merge([save(tmp_path / "whole.safetensors", params)], tmp_path / "m.safetensors")
    with pytest.raises(CheckpointError, match="this is the shard of rank 0"):
        load(shard_path(base, 0, 2), rank=0, world_size=2)
    assert not (tmp_path / "m.safetensors").exists()
