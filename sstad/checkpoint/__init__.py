"""Checkpoints: parameters, optimizer state and progress in safetensors files.

``save(path, params, opt_state, meta)`` writes one file durably (a crash leaves the old
file or the whole new one), ``load(path, like)`` reads it back, every tensor checked
against its checksum; :class:`CheckpointManager` keeps a folder of them, saving in the
background; ``save_shard`` and ``merge`` handle one shard per rank.  The format is in
docs/checkpoints.md.
"""
from sstad.checkpoint.errors import CheckpointError
from sstad.checkpoint.files import Checkpoint, load, rng_from_state, save
from sstad.checkpoint.manager import CheckpointManager
from sstad.checkpoint.partition import partition
from sstad.checkpoint.shards import merge, save_shard, shard_path, shard_paths, world
from sstad.checkpoint.tree import Report

__all__ = ["save", "load", "Checkpoint", "CheckpointManager", "CheckpointError", "Report",
           "rng_from_state", "partition", "save_shard", "shard_path", "shard_paths", "merge", "world"]
