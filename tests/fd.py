"""Central finite differences, and the pieces of a vjp check, for the AD tests."""
import copy

import numpy as np
import pytest

from sstad.testing.trees import float_leaves, map_floats  # noqa: F401  (tests import them from here)


def other_leaves(tree):
    """Everything that is not a float leaf (ints, bools): must not change under a nudge."""
    if isinstance(tree, dict):
        return [leaf for v in tree.values() for leaf in other_leaves(v)]
    if isinstance(tree, (list, tuple)):
        return [leaf for v in tree for leaf in other_leaves(v)]
    if float_leaves(tree):
        return []
    return [np.asarray(tree).tolist()]


def random_like(tree, rng):
    def draw(leaf, k):
        if isinstance(leaf, np.ndarray):
            return rng.standard_normal(leaf.shape).astype(leaf.dtype)
        return float(rng.standard_normal())
    return map_floats(tree, draw)


def inner(a, b):
    return sum(float(np.sum(np.asarray(x, np.float64) * np.asarray(y, np.float64)))
               for x, y in zip(float_leaves(a), float_leaves(b)))


def nudge(args, direction, eps):
    dirs = float_leaves(direction)
    return map_floats(copy.deepcopy(args), lambda leaf, k: leaf + eps * dirs[k])


def directional_derivative(fn, args, direction, cotangent, eps=1e-6):
    """``<cotangent, J direction>`` by central differences, or None where the function
    is not smooth at this point (a jump or kink within the step)."""
    here = fn(*copy.deepcopy(args))
    estimates, gaps = [], []
    for step in (eps, eps / 8):
        plus = fn(*nudge(args, direction, step))
        minus = fn(*nudge(args, direction, -step))
        if not (other_leaves(plus) == other_leaves(minus) == other_leaves(here)):
            return None                              # an integer output changed: a jump
        forward = (inner(cotangent, plus) - inner(cotangent, here)) / step
        backward = (inner(cotangent, here) - inner(cotangent, minus)) / step
        gaps.append(abs(forward - backward))
        estimates.append((inner(cotangent, plus) - inner(cotangent, minus)) / (2 * step))
    # Smooth: the one-sided slopes meet as the step shrinks (the gap falls 8x).  At a
    # kink the gap stays: the slopes differ.
    if gaps[1] > 1e-6 * (1 + abs(estimates[1])) and gaps[1] > 0.25 * gaps[0]:
        return None
    # The estimate moves with the step: a jump, or a curvature so steep near a singularity
    # (sqrt(|x|) at x = 1e-4) that the difference is not accurate to the 1e-4 the tests ask.
    if abs(estimates[0] - estimates[1]) > 1e-5 * (1 + abs(estimates[0])):
        return None
    return estimates[0]


def check_gradient(fn, args, grads, rng):
    """``<grads, v>`` equals the directional derivative of ``fn`` along a random ``v``."""
    direction = random_like(args, rng)
    expected = directional_derivative(fn, args, direction, 1.0)
    assert expected is not None
    assert inner(grads, direction) == pytest.approx(expected, rel=1e-6, abs=1e-8)


def derivative_off_kinks(fn, args, direction, cotangent, rng):
    """``(args, <cotangent, J direction>)`` by central differences.  Hypothesis likes ties
    and zeros, which are kinks: there the point moves off them a little first.  The
    derivative is None where the function is still not smooth."""
    expected = directional_derivative(fn, args, direction, cotangent)
    if expected is None:
        def jitter(leaf, k):
            noise = rng.uniform(-1e-3, 1e-3, np.shape(leaf))
            moved = leaf * (1 + noise) + noise
            return moved if isinstance(leaf, np.ndarray) else float(moved)
        args = map_floats(args, jitter)
        expected = directional_derivative(fn, args, direction, cotangent)
    if expected is not None and not np.isfinite(expected):
        expected = None
    return args, expected
