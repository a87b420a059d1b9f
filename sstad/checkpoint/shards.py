"""One shard per rank, and one unified file merged from the shards.

Rank ``r`` of ``n`` writes ``NAME.rank-0000r-of-0000n.safetensors`` beside ``NAME.safetensors``:
an ordinary checkpoint of its own part of each tensor, recording ``shard`` in its metadata.
:func:`merge` joins the parts (``np.concatenate`` along each tensor's recorded axis, in
rank order; a replicated tensor must be equal on every rank) into the file a single
process would have written: the same bytes, given the same metadata.
"""
import os

import numpy as np

from sstad.checkpoint import fileformat
from sstad.checkpoint.errors import CheckpointError
from sstad.checkpoint.files import encode
from sstad.checkpoint.partition import check_rank

SUFFIX = ".safetensors"


def shard_path(path, rank, world_size):
    """``run/ckpt.safetensors`` -> ``run/ckpt.rank-00003-of-00008.safetensors``."""
    path = os.fspath(path)
    stem = path[:-len(SUFFIX)] if path.endswith(SUFFIX) else path
    return f"{stem}.rank-{rank:05d}-of-{world_size:05d}{SUFFIX}"


def shard_paths(path, world_size):
    return [shard_path(path, r, world_size) for r in range(world_size)]


def world():
    """``(rank, world_size)`` of this process: from ``sstad.distributed`` where it exists,
    else MPI's world communicator; ``(0, 1)`` without mpi4py."""
    try:
        from sstad import distributed
        return distributed.rank(), distributed.world_size()
    except (ImportError, AttributeError):
        pass
    try:
        from mpi4py import MPI
    except ImportError:
        return 0, 1
    return MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()


def save_shard(path, params, opt_state=None, meta=None, *, axes=0, rank=None, world_size=None):
    """Write this rank's shard of the checkpoint ``path``: ``params`` and ``opt_state`` are
    this rank's parts (see :func:`~sstad.checkpoint.partition`), ``axes`` the axis each
    tensor is split along (as for :func:`~sstad.checkpoint.save`).  ``rank`` and
    ``world_size`` default to :func:`world`.  Returns the shard's path."""
    if rank is None or world_size is None:
        rank, world_size = world()
    check_rank(rank, world_size)
    tensors, metadata = encode(params, opt_state, meta, axes)
    metadata["shard"] = {"rank": rank, "world_size": world_size}
    target = shard_path(path, rank, world_size)
    fileformat.write(target, tensors, metadata)
    return target


def merge(shard_paths, out_path):
    """Merge the shards of one checkpoint (all ranks, any order) into one unified file at
    ``out_path``, with rank 0's metadata.  Refuses shards from different checkpoints (other
    steps, names, structure or axes) or a missing rank.  Returns ``out_path``."""
    shards = {}
    for path in shard_paths:
        tensors, metadata = fileformat.read(path)
        shard = metadata.get("shard")
        if shard is None:
            raise CheckpointError(f"{path}: not a shard (its metadata has no `shard`)")
        if shard["rank"] in shards:
            raise CheckpointError(f"{path}: rank {shard['rank']} is also in {shards[shard['rank']][0]}")
        shards[shard["rank"]] = (path, tensors, metadata)
    sizes = sorted({m["shard"]["world_size"] for _, _, m in shards.values()})
    if len(sizes) != 1 or set(shards) != set(range(sizes[0])):
        raise CheckpointError(f"the shards {', '.join(map(str, shard_paths))} are not ranks 0 .. n-1 of "
                              f"one world: ranks {sorted(shards)}, world sizes {sizes}")
    ordered = [shards[r] for r in sorted(shards)]
    first_path, first_tensors, first_meta = ordered[0]
    for path, tensors, metadata in ordered[1:]:
        same_checkpoint(first_path, first_tensors, first_meta, path, tensors, metadata)
    axes = first_meta["partition"]["axes"]
    merged = {name: join(name, axes[name], [(p, t[name]) for p, t, _ in ordered]) for name in first_tensors}
    metadata = {key: value for key, value in first_meta.items()
                if key not in ("shard", "sha256", "version", "header_sha256")}
    fileformat.write(out_path, merged, metadata)
    return os.fspath(out_path)


def same_checkpoint(path_a, tensors_a, meta_a, path_b, tensors_b, meta_b):
    step_a, step_b = meta_a["meta"].get("step"), meta_b["meta"].get("step")
    if step_a != step_b:
        raise CheckpointError(f"{path_b} is of step {step_b} and {path_a} of step {step_a}: shards of "
                              "different checkpoints")
    if set(tensors_a) != set(tensors_b):
        odd = sorted(set(tensors_a) ^ set(tensors_b))
        raise CheckpointError(f"{path_a} and {path_b} hold different tensors: {', '.join(odd)}")
    for key in ("tree", "partition"):
        if meta_a[key] != meta_b[key]:
            raise CheckpointError(f"{path_a} and {path_b} record different `{key}`: shards of different "
                                  "checkpoints")


def join(name, axis, parts):
    dtypes = {a.dtype for _, a in parts}
    if len(dtypes) != 1:
        raise CheckpointError(f"tensor `{name}` has the dtypes {sorted(d.name for d in dtypes)} in "
                              f"different shards")
    if axis is None:
        path0, a0 = parts[0]
        for path, a in parts[1:]:
            if a.shape != a0.shape or a.tobytes() != a0.tobytes():
                raise CheckpointError(f"tensor `{name}` is replicated but {path} and {path0} hold "
                                      "different values")
        return a0
    try:
        return np.concatenate([a for _, a in parts], axis=axis)
    except ValueError:
        shapes = ", ".join(f"{p}: {list(a.shape)}" for p, a in parts)
        raise CheckpointError(f"tensor `{name}`: the parts cannot be joined along axis {axis} "
                              f"({shapes})") from None
