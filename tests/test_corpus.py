"""Every corpus program, compiled by every backend, computes what plain Python computes."""

import copy
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sstad
from corpus import CORPUS

BACKENDS = ("python", "numba")


@functools.cache
def compiled(name, backend):
    """The jitted corpus program, built once per (name, backend) so Numba compiles it once."""
    return sstad.jit(CORPUS[name][0], backend=backend)


def assert_same(got, expected, where="result"):
    """Assert ``got`` matches ``expected``: same containers, same scalar-vs-array, same dtype kind
    and shape, values equal (ints, bools) or close (floats; looser when float32 is involved).

    >>> assert_same((np.ones(2), 1.0), (np.ones(2), np.float64(1.0 + 1e-15)))
    """
    if isinstance(expected, (tuple, list, dict)):
        assert type(got) is type(expected), f"{where}: got {type(got).__name__}, expected {type(expected).__name__}"
        assert len(got) == len(expected), f"{where}: got {len(got)} items, expected {len(expected)}"
        if isinstance(expected, dict):
            assert got.keys() == expected.keys(), f"{where}: keys {sorted(got)} != {sorted(expected)}"
            for key in expected:
                assert_same(got[key], expected[key], f"{where}[{key!r}]")
        else:
            for i, (g, e) in enumerate(zip(got, expected)):
                assert_same(g, e, f"{where}[{i}]")
        return
    got_is_array, expected_is_array = isinstance(got, np.ndarray), isinstance(expected, np.ndarray)
    assert got_is_array == expected_is_array, f"{where}: got {type(got).__name__}, expected {type(expected).__name__}"
    g, e = np.asarray(got), np.asarray(expected)
    assert g.dtype.kind == e.dtype.kind, f"{where}: dtype {g.dtype} is not of the kind of {e.dtype}"
    assert g.shape == e.shape, f"{where}: shape {g.shape} != {e.shape}"
    if e.dtype.kind == "f":
        float32 = np.dtype(np.float32) in (g.dtype, e.dtype)
        rtol, atol = (1e-5, 1e-5) if float32 else (1e-10, 1e-12)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(g, e, err_msg=where)


def test_corpus_is_large():
    assert len(CORPUS) >= 60


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CORPUS))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_compiled_program_matches_python(name, backend, data):
    fn, arguments = CORPUS[name]
    args = data.draw(arguments, label="args")
    expected_args = copy.deepcopy(args)
    expected = fn(*expected_args)
    got_args = copy.deepcopy(args)
    got = compiled(name, backend)(*got_args)
    assert_same(got, expected)
    assert_same(got_args, expected_args, "arguments after the call")
