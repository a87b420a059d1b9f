"""Support for what users of an AD system expect to work, each refused before: NumPy's
``initial=`` and ``where=`` of np.max/np.min (functions and methods), and ``a.fill(v)``.
Every derivative is checked against finite differences, both modes, both backends."""
import numpy as np
import pytest

import sstad
from refusals import refused_at
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


# --- np.max / np.min with initial= and where= (was: "np.max: `initial=` is not supported") --

def clamped_extrema(a, floor):
    return (np.max(a, initial=floor) + np.min(a, initial=0.25) + a.max(initial=10.0)
            + np.amin(a, initial=-1.0) ** 2)


def clamped_along_axes(m, floor):
    rows = np.max(m, axis=1, initial=floor)
    cols = m.min(axis=0, keepdims=True, initial=0.1)
    last = np.max(m, axis=-1, initial=0.0, keepdims=True)
    both = np.min(m, axis=(0, 1), initial=5.0)
    return np.sum(rows ** 2) + np.sum(np.sin(cols)) + np.sum(last * m) + both


def masked_extrema(m, mask):
    return (np.sum(np.max(m, axis=1, where=mask, initial=-np.inf) ** 2)
            + np.min(m, where=mask[0], initial=3.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_initial_is_the_extremum_of_initial_and_the_entries(backend):
    a = np.array([0.3, -0.8, 0.6, 0.1])
    m = np.array([[0.3, -0.8, 0.6], [1.4, 0.2, -0.5]])
    check_grads(clamped_extrema, (a, 0.45), backend=backend)       # initial takes part at 0.45 < 0.6
    check_grads(clamped_extrema, (a, 0.9), backend=backend)        # initial wins: its derivative is 1
    check_grads(clamped_along_axes, (m, 0.5), backend=backend)
    check_grads(masked_extrema, (m, np.array([[True, False, True], [False, True, True]])), backend=backend)


def empty_slices(m, floor):
    return np.sum(np.max(m, axis=0, initial=floor)) + np.min(m, initial=2.0 * floor)


@pytest.mark.parametrize("backend", BACKENDS)
def test_initial_is_the_result_of_an_empty_slice(backend):
    empty = np.zeros((0, 3))
    f = sstad.jit(empty_slices, backend=backend)
    assert f(empty, 0.7) == empty_slices(empty, 0.7) == 3 * 0.7 + 1.4
    assert np.allclose(sstad.grad(empty_slices, argnums=1)(empty, 0.7), 5.0)


def integer_extremum(k, x):
    return np.max(k, initial=2.5) * x                  # NumPy casts 2.5 to k's dtype: 2


def test_initial_is_cast_to_the_array_dtype():
    k = np.array([1, 0, -3])
    assert sstad.jit(integer_extremum, backend="python")(k, 1.5) == integer_extremum(k, 1.5) == 3.0


def where_without_initial(a):
    return np.max(a, where=a > 0)                      # ERR where


def out_of_max(a):
    return np.max(a, out=np.zeros(()), initial=0.0)    # ERR out


def test_where_needs_initial_and_out_is_refused_at_the_line():
    refused_at(where_without_initial, (np.ones(3),), r"does not have an identity.*specify 'initial'", "# ERR where")
    refused_at(out_of_max, (np.ones(3),), r"out= is not supported", "# ERR out")


# --- a.fill(v) (was: "method `.fill` of a value of type f64[:] is not supported") ---------------

def refilled(a, v):
    b = a * 2.0
    b.fill(v)
    return np.sum(b ** 2) + a[0]


def filled_views(a, v):
    m = np.outer(a, a)
    m[1].fill(v * 2.0)                                 # a row: the write reaches m
    m[:, 0].fill(v)                                    # a column
    return np.sum(m ** 2) + np.sum(a)


def filled_integers(a, v):
    k = np.zeros(3, dtype=np.int64)
    k.fill(2.7)                                        # NumPy casts to the dtype: 2
    b = np.ones((2, 3))
    b.fill(v)
    return np.sum(b * a * k)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fill_writes_in_place_and_its_value_gets_the_derivative(backend):
    a = np.array([0.1, 0.9, 0.4])
    check_grads(refilled, (a, 0.7), backend=backend)
    check_grads(filled_views, (a, 0.7), backend=backend)
    check_grads(filled_integers, (a, 0.7), backend=backend)
    assert sstad.grad(refilled)(a, 0.7).tolist() == [1.0, 0.0, 0.0]      # b's old entries are gone


def fill_with_array(a):
    a.fill(np.ones(3))                                 # ERR fill
    return np.sum(a)


def test_fill_with_an_array_is_refused_at_its_line():
    refused_at(fill_with_array, (np.ones(3),), r"fill\(\) takes a number", "# ERR fill")
