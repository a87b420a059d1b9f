"""``save`` and ``load``: parameters, optimizer state and metadata in one checkpoint file."""
import os

import numpy as np

from sstad.checkpoint import fileformat
from sstad.checkpoint.errors import CheckpointError
from sstad.checkpoint.partition import RULE, check_rank, part, tensor_axes
from sstad.checkpoint.tree import Report, flatten, under, unflatten_like, unflatten_skeleton

ROOTS = ("params", "opt_state")
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


class Checkpoint:
    """What :func:`load` returns: ``params``, ``opt_state``, ``meta`` (a dict) and
    ``report`` (what a non-strict load did not match).  Built by hand, it is a template
    for both trees: ``load(path, like=Checkpoint(params, opt_state))``."""

    def __init__(self, params, opt_state=None, meta=None, report=None):
        self.params, self.opt_state = params, opt_state
        self.meta = {} if meta is None else meta
        self.report = Report() if report is None else report

    @property
    def step(self):
        return self.meta.get("step")

    def __repr__(self):
        return f"Checkpoint(step={self.step!r}, meta keys={sorted(self.meta)}, {self.report!r})"


def encode(params, opt_state=None, meta=None, axes=0):
    """``(tensors, metadata)`` for :func:`fileformat.write`: the leaves by path as arrays
    safetensors holds (refused now if it cannot), and the metadata taken now (a NumPy
    Generator's state is read at this call)."""
    tensors, skeleton = {}, {}
    for root, tree in zip(ROOTS, (params, opt_state)):
        skeleton[root], leaves = flatten(tree, root)
        tensors.update((name, fileformat.stored_form(name, leaf)) for name, leaf in leaves.items())
    metadata = {"tree": skeleton, "meta": to_json(meta or {}, "meta"),
                "partition": {"rule": RULE, "axes": tensor_axes(tensors, axes)}}
    return tensors, metadata


def save(path, params, opt_state=None, meta=None, *, axes=0):
    """Write a checkpoint: ``params`` and ``opt_state`` (pytrees of arrays) as named
    tensors, ``meta`` (a dict: step, epoch, schedule, loss scale, an RNG...) as JSON.

    The file is written to a temporary file, flushed to disk and renamed over ``path``,
    so a crash leaves the previous file or the whole new one.  A NumPy ``Generator`` in
    ``meta`` is stored as its ``bit_generator.state`` (:func:`rng_from_state` rebuilds it).
    ``axes`` says how :func:`load` splits each tensor among ranks (see
    :func:`sstad.checkpoint.partition.tensor_axes`).  Returns ``path``.

    >>> import numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "model.safetensors")
    >>> _ = save(path, {"w": np.ones(3)}, meta={"step": 10})
    >>> ckpt = load(path)
    >>> ckpt.params["w"], ckpt.step
    (array([1., 1., 1.]), 10)
    """
    tensors, metadata = encode(params, opt_state, meta, axes)
    fileformat.write(path, tensors, metadata)
    return os.fspath(path)


def load(path, like=None, strict=True, *, rank=None, world_size=None):
    """Read a checkpoint written by :func:`save` (or :func:`~sstad.checkpoint.merge`),
    checking every tensor against its checksum.  Returns a :class:`Checkpoint`.

    ``like`` is the structure to rebuild: a params pytree, or a ``Checkpoint(params,
    opt_state)`` for both; its leaves give the expected shapes and dtypes and the types
    to return (a Python float stays a float).  Without it the file's recorded structure is
    rebuilt, objects as dicts of their fields.  ``strict`` refuses, in one error listing
    them all, tensors missing from the file, tensors the template does not have, and shape
    or dtype mismatches; ``strict=False`` keeps the template's value for each of those and
    lists them in ``report``.  With ``rank`` and ``world_size``, each tensor is cut to this
    rank's part by the rule the file records.
    """
    path = os.fspath(path)
    tensors, metadata = fileformat.read(path)
    if rank is not None or world_size is not None:
        tensors = rank_part(path, tensors, metadata, rank, world_size)
    if isinstance(like, Checkpoint):
        templates = (like.params, like.opt_state)
    else:
        templates = (like, None)
    skeletons = metadata["tree"]
    report, trees = Report(), []
    for root, template in zip(ROOTS, templates):
        if template is not None:
            trees.append(unflatten_like(template, tensors, root, report))
        else:
            trees.append(unflatten_skeleton(skeletons.get(root), tensors, root, report))
    report.unexpected += [name for name in tensors if not any(under(name, root) for root in ROOTS)]
    report.unexpected.sort()
    if strict and report:
        raise CheckpointError(f"{path}: the checkpoint does not match the template:\n  "
                              + "\n  ".join(report.lines()),
                              hint="fix the template, or load with strict=False to take what matches")
    return Checkpoint(trees[0], trees[1], metadata["meta"], report)


def rank_part(path, tensors, metadata, rank, world_size):
    check_rank(rank, world_size)
    if "shard" in metadata:
        raise CheckpointError(f"{path}: this is the shard of rank {metadata['shard']['rank']}; load "
                              "it without rank and world_size, or merge the shards first")
    axes = metadata["partition"]["axes"]
    return {name: part(array, axes.get(name), rank, world_size) for name, array in tensors.items()}


def to_json(value, where):
    """``value`` as plain JSON values: NumPy numbers and arrays as Python ones, a Generator
    or BitGenerator as its state.  Containers are copied, so this is a snapshot."""
    if isinstance(value, np.random.Generator):
        value = value.bit_generator
    if isinstance(value, np.random.BitGenerator):
        return to_json(value.state, where)
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise CheckpointError(f"{where} has the key {key!r}: metadata keys are strings")
        return {key: to_json(x, f"{where}[{key!r}]") for key, x in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(x, f"{where}[{i}]") for i, x in enumerate(value)]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise CheckpointError(f"{where} is a {type(value).__name__}: metadata holds JSON values (numbers, "
                          "strings, lists, dicts), NumPy numbers and arrays, and NumPy Generators")


def rng_from_state(state):
    """The NumPy ``Generator`` whose ``bit_generator.state`` is ``state`` (as stored by
    :func:`save` for a Generator in ``meta``).

    >>> rng = np.random.default_rng(0)
    >>> again = rng_from_state(to_json(rng, "rng"))
    >>> bool(again.random() == rng.random())
    True
    """
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if name not in BIT_GENERATORS:
        raise CheckpointError(f"not the state of a NumPy bit generator: {str(state)[:80]}",
                              hint=f"a state names one of {', '.join(BIT_GENERATORS)}")
    bit_generator = getattr(np.random, name)()
    bit_generator.state = state
    return np.random.Generator(bit_generator)
