"""Tiered execution (``sstad.jit(f, tiered=True)``): the first calls run the python
backend while Numba compiles in a background thread; later calls run Numba's code; a
Numba failure is raised (or, with fallback, warned about) at a later call, at the user's
line."""
import numpy as np
import pytest

import sstad
from sstad.errors import BackendError

import semantics_cases as cases


def scaled_norm(x, k):
    s = 0.0
    for i in range(x.shape[0]):
        s += k * x[i] * x[i]
    return np.sqrt(s)


def background(jitted):
    (compiled,) = jitted._compiled.values()
    return compiled._background["numba"]


def test_the_first_call_runs_python_and_later_calls_run_numba():
    x = np.array([0.3, -1.2, 2.0])
    g = sstad.jit(sstad.grad(scaled_norm), tiered=True)
    first = g(x, 1.5)
    expected = sstad.grad(scaled_norm)(x, 1.5)                 # the python backend
    np.testing.assert_array_equal(first, expected)
    job = background(g)
    assert job.done.wait(300) and job.error is None
    (compiled,) = g._compiled.values()
    assert compiled.ready(g.backend).name == "numba"
    assert "numba" in compiled._callables and len(compiled._callables["numba"].overloads) == 1
    np.testing.assert_allclose(g(x, 1.5), expected, rtol=1e-14)


def test_a_numba_failure_is_raised_at_a_later_call_at_the_users_line():
    f = sstad.jit(cases.stepped, tiered=True)
    x = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(f(x), cases.stepped(x))      # python meanwhile
    assert background(f).done.wait(300)
    with pytest.raises(BackendError) as info:
        f(x)
    assert "nopython" in str(info.value) and "semantics_cases.py" in str(info.value)


def test_with_fallback_a_numba_failure_warns_and_python_stays():
    f = sstad.jit(cases.stepped, tiered=True, fallback=True)
    x = np.array([-1.0, 0.0, 2.0])
    f(x)
    assert background(f).done.wait(300)
    with pytest.warns(UserWarning, match="Numba cannot compile"):
        np.testing.assert_array_equal(f(x), cases.stepped(x))
    assert f.backend.name == "python"
    np.testing.assert_array_equal(f(x), cases.stepped(x))
