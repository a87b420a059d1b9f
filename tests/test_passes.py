"""The IR passes: each named, dumpable with --after, and semantics-preserving."""
import numpy as np
import pytest

import pass_cases as pc
import sstad


def count(text, needle):
    return sum(line.count(needle) for line in text.splitlines() if not line.lstrip().startswith("#"))


def test_cse_merges_repeated_pure_applications():
    x = np.array([0.1, 0.2])
    before = sstad.dump(pc.repeated, x, after="simplify")
    after = sstad.dump(pc.repeated, x, after="cse")
    assert "op.add(a, b)" in before and "op.add(a, a)" in after
    assert count(sstad.dump(pc.repeated, x, emit="python"), "np.cos(") == 1
    assert sstad.jit(pc.repeated)(x) == pytest.approx(pc.repeated(x))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_cse_keeps_arrays_that_are_written_in_place_apart(backend):
    x = np.array([1.0, 2.0, 3.0])
    assert sstad.jit(pc.repeated_then_written, backend=backend)(x) == pytest.approx(pc.repeated_then_written(x))
    g = sstad.jit(sstad.grad(pc.repeated_then_written), backend=backend)(x)
    np.testing.assert_allclose(g, [2.0, 4.0, 4.0])


def test_simplify_folds_constant_arithmetic():
    text = sstad.dump(pc.folded, 0.5, emit="python")
    assert "x * 7.0" in text and "2.0 * 3.0" not in text
