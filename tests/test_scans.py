"""np.cumsum and np.cumprod by NumPy's signature ``(a, axis=None, dtype=None, out=None)``:
every axis of 1-d, 2-d and 3-d arrays, positional and keyword forms, the method form and
``dtype``, both modes against finite differences, both backends.

Under Numba the forward mode of ``cumprod(x, axis=0)`` on a matrix once failed to compile:
its derived JVP keeps running products of the columns of a transposed (F-ordered) array
on a list, whose empty start Numba types as a list of C-ordered arrays.
"""
import numpy as np
import pytest

import sstad
from sstad.errors import UnsupportedSyntaxError
from sstad.testing import check_grads


def cumsum_positional(axis):
    def f(x):
        c = np.cumsum(x, axis)
        return np.sum(np.sin(c) * np.arange(1.0, c.size + 1.0).reshape(c.shape))
    return f


def cumprod_keyword(axis):
    def f(x):
        return np.sum(np.sin(np.cumprod(x, axis=axis)))
    return f


def cumsum_method(axis):
    def f(x):
        return np.sum(np.cos(x.cumsum(axis=axis)))
    return f


def cumprod_method(axis):
    def f(x):
        return np.sum(np.cos(x.cumprod(axis)))
    return f


def cumsum_dtype_float32(axis):
    def f(x):
        return np.sum(np.sin(np.cumsum(x, axis, np.float32)))
    return f


def cumprod_dtype_keyword(axis):
    def f(x):
        return np.sum(np.sin(np.cumprod(x, axis=axis, dtype=np.float64)))
    return f


def columns_then_stack(x):
    """Columns of a transposed array appended to a list: Numba types them F-ordered."""
    cols = []
    for j in range(x.shape[0]):
        cols.append(np.sin(x.T[:, j]))
    return np.sum(np.stack(cols) ** 2)


FUNCTIONS = [cumsum_positional, cumprod_keyword, cumsum_method, cumprod_method, cumprod_dtype_keyword]
CASES = [(shape, axis) for shape in [(5,), (3, 4), (2, 3, 4)]
         for axis in [None] + list(range(-len(shape), len(shape)))]


def _x(shape):
    return np.random.default_rng(len(shape)).uniform(0.5, 1.5, shape)


@pytest.mark.parametrize("shape,axis", CASES)
@pytest.mark.parametrize("fn", FUNCTIONS)
def test_scans_on_python(fn, shape, axis):
    check_grads(fn(axis), (_x(shape),), backend="python")


@pytest.mark.parametrize("shape,axis", [((5,), 0), ((3, 4), 1), ((2, 3, 4), -2)])
def test_a_float32_dtype_casts_first_and_its_derivative_is_float32(shape, axis):
    check_grads(cumsum_dtype_float32(axis), (_x(shape),), backend="python", atol=1e-3, rtol=1e-3)
    g = sstad.grad(cumsum_dtype_float32(axis))(_x(shape))
    assert g.dtype == np.float64 and g.shape == shape


@pytest.mark.slow
@pytest.mark.parametrize("fn,shape,axis", [
    (cumprod_keyword, (3, 4), 0),                   # the forward mode that failed to compile
    (cumprod_keyword, (2, 3, 4), 1),
    (cumsum_method, (3, 4), 0),
    (cumprod_dtype_keyword, (3, 4), -2),
    (cumsum_positional, (2, 3, 4), None),
])
def test_scans_on_numba(fn, shape, axis):
    check_grads(fn(axis), (_x(shape),), backend="numba")


@pytest.mark.parametrize("backend", ["python", "numba"])     # numba: the same failure, quicker
def test_a_list_of_columns_of_a_transposed_array(backend):
    check_grads(columns_then_stack, (_x((3, 4)),), backend=backend)


def cumsum_out(x):
    return np.cumsum(x, out=np.empty_like(x))


def test_out_is_refused_naming_what_is_handled():
    with pytest.raises(UnsupportedSyntaxError, match=r"np.cumsum: `out=` is not supported.*\n(.*\n)*.*`axis` and `dtype`"):
        sstad.jit(cumsum_out, backend="python")(np.ones(3))
