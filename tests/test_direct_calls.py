"""Repeated calls of an ``sstad.jit`` function with arguments of a signature seen before
call the compiled code with the arguments as they are (no captured globals, backend
compiled, record saved) and hand its result back as declared: the same answers, types
and errors as the first call's general path."""
import numpy as np
import pytest

import sstad
from sstad.errors import SstadError

BACKENDS = ["python", "numba"]


def total32(x):
    return np.sum(x)                      # Numba's float32 sum returns a float64


def scaled(x, w):
    return np.sum(np.sin(x) * w)


def checked(x, k):
    assert k <= 3, "k must be at most 3"
    return x[0] * k


def parts(x, y):
    return np.sum(x * y) + np.sum(np.cos(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_repeated_calls_return_what_the_first_returned(backend):
    f = sstad.jit(total32, backend=backend)
    x = np.linspace(0.0, 1.0, 7, dtype=np.float32)
    for _ in range(3):
        value = f(x)
        assert type(value) is np.float32 and value == pytest.approx(np.sum(x))
    g = sstad.jit(sstad.grad(parts, argnums=(0, 1)), backend=backend)
    y = np.arange(7.0)
    first = g(y, y + 1.0)
    for _ in range(3):
        again = g(y, y + 1.0)
        assert type(again) is tuple and all(type(a) is np.ndarray and a.dtype == np.float64 for a in again)
        np.testing.assert_array_equal(again[0], first[0])
        np.testing.assert_array_equal(again[1], first[1])
    assert f._direct and g._direct           # those calls took the direct path


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failed_shape_check_on_a_repeated_call_compiles_again(backend):
    g = sstad.jit(sstad.grad(scaled, argnums=1), backend=backend)
    x = np.linspace(0.0, 1.0, 5)
    np.testing.assert_allclose(g(x, np.ones(5)), np.sin(x))
    np.testing.assert_allclose(g(x, np.ones(5)), np.sin(x))          # the direct path
    # the same dispatch key (float64 vectors), but w broadcasts: its gradient sums
    np.testing.assert_allclose(g(x, np.ones(1)), [np.sum(np.sin(x))])
    np.testing.assert_allclose(g(x, np.ones(5)), np.sin(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_error_on_a_repeated_call_is_the_users_error(backend):
    f = sstad.jit(checked, backend=backend)
    x = np.arange(1.0, 5.0)
    assert f(x, 1) == 1.0 and f(x, 2) == 2.0
    with pytest.raises((AssertionError, SstadError), match="at most 3") as first:
        f(x, 10)
    with pytest.raises(first.type, match="at most 3"):
        f(x, 10)
    assert f(x, 3) == 3.0


def test_a_rebound_global_is_seen_after_direct_calls(monkeypatch):
    import test_direct_calls as me
    f = sstad.jit(uses_global, backend="numba")
    x = np.ones(3)
    assert f(x) == 3.0 and f(x) == 3.0
    monkeypatch.setattr(me, "SCALE", 2.0)
    assert f(x) == 6.0


SCALE = 1.0


def uses_global(x):
    return np.sum(x) * SCALE
