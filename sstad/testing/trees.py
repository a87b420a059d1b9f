"""Small pytree helpers for the gradient checks: tuples, lists, dicts, dataclasses,
NamedTuples and SimpleNamespaces of leaves.

A *float leaf* is a Python float, a NumPy floating scalar or a floating-point array:
what derivatives are taken with respect to.  Everything else (ints, bools, integer
arrays, None, strings, static fields of dataclasses) is carried along unchanged.
"""
from __future__ import annotations

import copy

import numpy as np

from sstad.frontend.pytree import build_object, object_layout, object_values
from sstad.runtime.abstract import is_float


def is_float_leaf(x):
    if isinstance(x, bool):
        return False
    if isinstance(x, (float, np.floating)):
        return True
    return isinstance(x, np.ndarray) and is_float(x.dtype)


def leaves_with_paths(tree, path="args"):
    """``[(path, leaf)]`` for every leaf, paths written as Python (``args[1]['w']``,
    ``args[0].W``).  Static fields of dataclasses are not leaves."""
    layout = object_layout(tree)
    if layout is not None:
        return [p for name, v in zip(layout[1], object_values(tree, layout)) if name not in layout[2]
                for p in leaves_with_paths(v, f"{path}.{name}")]
    if isinstance(tree, dict):
        return [p for k, v in tree.items() for p in leaves_with_paths(v, f"{path}[{k!r}]")]
    if isinstance(tree, (list, tuple)):
        return [p for i, v in enumerate(tree) for p in leaves_with_paths(v, f"{path}[{i}]")]
    return [(path, tree)]


def same_leaf(a, b):
    """Equal leaves (NaN equal to NaN in numeric ones; strings and objects by ``==``; a
    plain object, such as the ``self`` of a method, attribute by attribute, so that its deep
    copy is equal to it)."""
    if type(a) is type(b) and not isinstance(a, (np.ndarray, np.generic)) and hasattr(a, "__dict__") \
            and type(a).__eq__ is object.__eq__:
        return vars(a).keys() == vars(b).keys() and all(same_leaf(vars(a)[k], vars(b)[k]) for k in vars(a))
    a, b = np.asarray(a), np.asarray(b)
    if all(d.kind in "biuc" or is_float(d) for d in (a.dtype, b.dtype)):
        return np.array_equal(a, b, equal_nan=True)
    return np.array_equal(a, b)


def float_leaves(tree):
    return [leaf for _, leaf in leaves_with_paths(tree) if is_float_leaf(leaf)]


def float_paths(tree, path="args"):
    return [(p, leaf) for p, leaf in leaves_with_paths(tree, path) if is_float_leaf(leaf)]


def other_leaves(tree):
    """Non-float leaves as plain Python values (a change means a jump)."""
    out = []
    for _, leaf in leaves_with_paths(tree):
        if is_float_leaf(leaf) or leaf is None:
            continue
        try:
            out.append(np.asarray(leaf).tolist())
        except Exception:                       # static objects: compared by identity
            out.append(id(leaf))
    return out


def map_floats(tree, fn):
    """``tree`` with each float leaf replaced by ``fn(leaf, k)``, k counting float leaves."""
    counter = iter(range(10 ** 12))

    def walk(t):
        layout = object_layout(t)
        if layout is not None:           # rebuilt field by field, static fields kept
            return build_object(layout, [v if name in layout[2] else walk(v)
                                         for name, v in zip(layout[1], object_values(t, layout))])
        if isinstance(t, dict):
            return {k: walk(v) for k, v in t.items()}
        if isinstance(t, tuple):
            return tuple(walk(v) for v in t)
        if isinstance(t, list):
            return [walk(v) for v in t]
        if is_float_leaf(t):
            return fn(t, next(counter))
        return t
    return walk(tree)


def same_kind(value, like):
    """``value`` (a float or array) cast to the kind of leaf ``like`` is."""
    if isinstance(like, np.ndarray):
        return np.asarray(value, dtype=like.dtype).reshape(like.shape)
    if isinstance(like, np.floating):
        return type(like)(value)
    return float(value)


def random_like(tree, rng):
    """Standard-normal values in the shape and dtype of each float leaf."""
    return map_floats(tree, lambda leaf, k: same_kind(rng.standard_normal(np.shape(leaf)), leaf))


def zeros_like(tree):
    return map_floats(tree, lambda leaf, k: same_kind(np.zeros(np.shape(leaf)), leaf))


def cotangent_like(out, rng):
    """A random cotangent for an output: float leaves random, other leaves as they are."""
    return random_like(out, rng)


def only(tree, keep):
    """Zero every float leaf whose index is not in ``keep``."""
    return map_floats(tree, lambda leaf, k: leaf if k in keep else same_kind(np.zeros(np.shape(leaf)), leaf))


def inner(a, b, term=lambda products: products):
    """Sum over matching float leaves of sum(term(a * b)), in float64 (None counts as zero)."""
    total = 0.0
    for x, y in zip(float_or_none(a), float_or_none(b)):
        if x is not None and y is not None:
            total += float(np.sum(term(np.asarray(x, np.float64) * np.asarray(y, np.float64))))
    return total


def abs_inner(a, b):
    """Sum over matching float leaves of sum(|a * b|): the scale of ``inner(a, b)``."""
    return inner(a, b, np.abs)


def float_or_none(tree):
    """Float leaves, with None where a cotangent tree has None (an integer argument)."""
    return [leaf if is_float_leaf(leaf) else None for _, leaf in leaves_with_paths(tree)]


def axpy(args, direction, t):
    """``args + t * direction`` over the float leaves (a fresh copy; dtypes kept)."""
    dirs = float_leaves(direction)
    return map_floats(copy.deepcopy(args), lambda leaf, k: same_kind(
        np.asarray(leaf, np.float64) + t * np.asarray(dirs[k], np.float64), leaf))


def sub_scaled(a, b, scale):
    """``(a - b) * scale`` leafwise over float leaves, as float64 arrays."""
    lb = float_leaves(b)
    return map_floats(a, lambda leaf, k: (np.asarray(leaf, np.float64) - np.asarray(lb[k], np.float64)) * scale)


def all_finite(tree):
    return all(np.all(np.isfinite(np.asarray(leaf, np.float64))) for leaf in float_leaves(tree))


def describe(leaf):
    if isinstance(leaf, np.ndarray):
        return f"{leaf.dtype}{list(leaf.shape)}"
    return type(leaf).__name__


def lowest_precision(*trees):
    """float32 if any float leaf is float32 (or lower), else float64."""
    for tree in trees:
        for leaf in float_leaves(tree):
            dtype = np.dtype(leaf.dtype if isinstance(leaf, (np.ndarray, np.floating)) else np.float64)
            if dtype.kind != "f":
                return dtype             # ml_dtypes' bfloat16: no finite-difference settings
            if dtype.itemsize < 8:
                return np.dtype(np.float32)
    return np.dtype(np.float64)
