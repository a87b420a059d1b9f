"""Parallel training strategies over ``sstad.distributed``: gradient accumulation,
sharded optimizer state (ZeRO), pipeline parallelism.  See docs/parallel.md."""
from sstad.parallel.accumulation import accumulate, split_batch
from sstad.parallel.pipeline import Pipeline
from sstad.parallel.schedules import bubble_fraction, schedule
from sstad.tree import ravel, tree_map

__all__ = ["accumulate", "split_batch", "Pipeline", "schedule", "bubble_fraction", "ravel", "tree_map"]
