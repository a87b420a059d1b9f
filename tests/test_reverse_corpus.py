"""Reverse mode on every corpus program: <vjp(ct), v> equals <ct, J v> by central
finite differences, at Hypothesis-drawn points, on both backends."""
import copy
import functools
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import sstad
from corpus import CORPUS
from fd import derivative_off_kinks, float_leaves, inner, random_like

BACKENDS = ("python", "numba")

# Programs whose output depends on branch decisions so finely that a finite difference
# crosses them: AD differentiates the path taken, finite differences see the jumps.
NOT_SMOOTH = {
    "bisection_cube_root": "each bisection step compares; the result is piecewise in them",
}


@functools.cache
def pullback(name, backend):
    return sstad.jit(sstad.pullback(CORPUS[name][0]), backend=backend)


def has_float64_path(name):
    """Does the program map float64 inputs to a float output (on a sample input)?"""
    fn, strategy = CORPUS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = strategy.example()
    leaves = float_leaves(args)
    return bool(leaves) and all(np.asarray(v).dtype == np.float64 for v in leaves) and bool(
        float_leaves(fn(*copy.deepcopy(args))))


DIFFERENTIABLE = sorted(n for n in CORPUS if n not in NOT_SMOOTH and has_float64_path(n))


def test_most_of_the_corpus_is_differentiated():
    assert len(DIFFERENTIABLE) >= 60


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", DIFFERENTIABLE)
@settings(max_examples=8, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2 ** 32 - 1))
def test_vjp_matches_finite_differences(name, backend, data, seed):
    fn, strategy = CORPUS[name]
    args = data.draw(strategy, label="args")
    out = fn(*copy.deepcopy(args))
    rng = np.random.default_rng(seed)
    cotangent, direction = random_like(out, rng), random_like(args, rng)
    args, expected = derivative_off_kinks(fn, args, direction, cotangent, rng)
    assume(expected is not None)
    cotangents = pullback(name, backend)(*copy.deepcopy(args), cotangent)
    got = inner(cotangents, direction)
    assert got == pytest.approx(expected, rel=1e-4, abs=1e-5)


def test_exclusions_name_real_programs():
    assert set(NOT_SMOOTH) <= set(CORPUS)
