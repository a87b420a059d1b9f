"""The per-call path of ``sstad.jit``: arguments that are all NumPy arrays or numbers of
types seen before skip the signature walk (a dispatch table keyed on their types, dtypes
and ranks); anything else, or a changed global, takes the full check, with its errors."""
import numpy as np
import pytest

import sstad
from sstad import api
from sstad.errors import SstadTypeError

W = np.ones(3)


def weighted(x, k):
    return np.sum(x * W) * k


def first_entry(x):
    return x[0, 1] + 1.0


@pytest.fixture
def signature_walks(monkeypatch):
    calls = []
    real = api._signature

    def counted(args):
        calls.append(args)
        return real(args)
    monkeypatch.setattr(api, "_signature", counted)
    return calls


def test_repeated_calls_skip_the_signature_walk_and_agree_with_it(signature_walks):
    f = sstad.jit(weighted, backend="python")
    x = np.array([1.0, 2.0, 3.0])
    assert f(x, 2.0) == weighted(x, 2.0)
    assert len(signature_walks) == 1
    for k in (3.0, -1.5):
        assert f(x * k, k) == weighted(x * k, k)
    assert len(signature_walks) == 1
    assert f(x, 2) == weighted(x, 2)                                 # an int: a signature of its own
    assert f(x.astype(np.float32), np.float32(2.0)) == pytest.approx(weighted(x.astype(np.float32), 2.0))
    assert len(signature_walks) == 3 and len(f._compiled) == 3 and len(f._dispatch) == 3
    assert f(x[::-1], 1.0) == weighted(x[::-1], 1.0)                # strided: the same signature
    assert len(signature_walks) == 3


def test_a_big_endian_array_takes_the_full_check_and_the_same_answer(signature_walks):
    f = sstad.jit(weighted, backend="python")
    x = np.array([1.0, 2.0, 3.0])
    f(x, 1.0)
    swapped = x.astype(">f8")
    assert f(swapped, 1.0) == weighted(swapped, 1.0)
    assert f(swapped, 1.0) == weighted(swapped, 1.0)
    assert len(signature_walks) == 3                         # not in the table: checked each time


def test_a_rebound_global_is_seen_by_the_fast_path(monkeypatch):
    f = sstad.jit(weighted, backend="python")
    x = np.array([1.0, 2.0, 3.0])
    assert f(x, 1.0) == 6.0
    monkeypatch.setattr(__import__(__name__), "W", np.full(3, 2.0))
    assert f(x, 1.0) == 12.0                                  # a new array, read at the call
    monkeypatch.setattr(__import__(__name__), "W", np.full(3, 2, dtype=np.int64))
    assert f(x, 1.0) == 12.0                                  # a new dtype: compiled again


def test_a_wrong_rank_after_fast_calls_is_still_a_clear_error():
    f = sstad.jit(first_entry, backend="python")
    m = np.arange(6.0).reshape(2, 3)
    assert f(m) == 2.0 and f(m + 1.0) == 3.0
    with pytest.raises(SstadTypeError) as info:
        f(np.arange(3.0))
    assert "test_call_overhead.py" in str(info.value)
    with pytest.raises(Exception) as info:
        f(np.array([object()] * 3))
    assert "not supported" in str(info.value)


def test_the_numba_backend_takes_the_same_path(signature_walks):
    x = np.array([0.5, -1.0, 2.0])
    f = sstad.jit(weighted)
    assert f(x, 2.0) == pytest.approx(weighted(x, 2.0), rel=1e-15)
    assert f(x, 3.0) == pytest.approx(weighted(x, 3.0), rel=1e-15)
    assert len(signature_walks) == 1
