"""Documented NumPy call forms that crashed or were refused: memory ``order=`` (a layout for
creation functions, a reading order for np.reshape/np.ravel/.flatten), ``dtype=float``
under Numba, the *_like family's ``shape=`` and np.full's array fill on Numba, np.clip
without bounds.  Values against NumPy, derivatives against finite differences, both
backends."""
import numpy as np
import pytest

import sstad
from sstad.errors import SstadError
from sstad.testing import check_grads

R = np.random.default_rng(5)
BACKENDS = ["python", "numba"]


def fortran_reshape(a, w):
    return np.sum(np.sin(np.reshape(a, (4, 3), order="F")) * w)


def fortran_reshape_method(a, w):
    return np.sum(np.sin(a.reshape(4, 3, order="F")) * w)


def fortran_reshape_of_3d(a, w):
    return np.sum(np.sin(np.reshape(a, 12, "F")) * w.ravel())


def fortran_ravel(a, w):
    return np.sum(np.sin(np.ravel(a, "F")) * w.ravel())


def fortran_flatten(a, w):
    return np.sum(np.sin(a.flatten("F")) * w.ravel())


def flatten_is_a_copy(a, w):
    f = a.flatten()
    f[0] = 10.0
    return np.sum(np.sin(a) * w) + f[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, shape", [(fortran_reshape, (3, 4)), (fortran_reshape_method, (3, 4)),
                                       (fortran_reshape_of_3d, (2, 3, 2)), (fortran_ravel, (3, 4)),
                                       (fortran_flatten, (3, 4)), (flatten_is_a_copy, (3, 4))])
def test_fortran_order_reads_the_first_index_fastest(fn, shape, backend):
    w = R.normal(size=(4, 3) if fn in (fortran_reshape, fortran_reshape_method) else shape)
    check_grads(fn, (R.normal(size=shape), w), backend=backend)


def any_order_reshape(a):
    return np.sum(np.reshape(a, (4, 3), order="A"))


def keep_order_ravel(a):
    return np.sum(np.ravel(a, order="K"))


@pytest.mark.parametrize("fn", [any_order_reshape, keep_order_ravel])
def test_memory_dependent_orders_are_refused_at_the_line(fn):
    with pytest.raises(SstadError, match=r"(?s)test_call_forms.py:\d+:.*memory order.*order='F'"):
        sstad.jit(fn, backend="python")(np.ones((3, 4)))


def layouts(a, w):
    z = np.zeros((3, 4), None, "F") + np.ones_like(a, order="F") + np.full_like(a, 0.5, None, "F")
    return np.sum(np.sin(np.copy(a, "F") * z) * w) + np.sum(np.eye(3, order="F"))


def python_dtypes(a):
    return np.sum(np.eye(3, None, 0, float) @ a) + np.sum(np.ones(3, dtype=float) * a[0])


def like_with_shape(a, fill):
    z = np.zeros_like(a, shape=(2, 2)) + np.ones_like(a, None, "C", True, (2, 2))
    return np.sum(np.sin(np.full_like(a, fill, shape=(2, 3)))) * np.sum(z) + np.sum(a)


def array_fill(a, row):
    return np.sum(np.sin(np.full((2, 3), row) + np.full_like(a, row)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_layout_and_dtype_arguments_leave_the_values(backend):
    a = R.normal(size=(3, 3))
    check_grads(layouts, (R.normal(size=(3, 4)), R.normal(size=(3, 4))), backend=backend)
    check_grads(python_dtypes, (a,), backend=backend)
    check_grads(like_with_shape, (R.normal(size=(2, 3)), 0.7), backend=backend)
    check_grads(array_fill, (R.normal(size=(2, 3)), R.normal(size=3)), backend=backend)


def no_bounds(a, x):
    return np.sum(np.sin(a.clip()) + np.clip(a, None, None)) + np.clip(x) ** 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_clip_without_bounds_is_a_copy(backend):
    check_grads(no_bounds, (R.normal(size=(3, 4)), 0.3), backend=backend)


def along_default_axis(a, idx, w):
    return np.sum(np.sin(np.take_along_axis(a, idx)) * w)


def along_last(a, idx, w):
    return np.sum(np.sin(np.take_along_axis(a, idx, -1)) * w)


def along_second_last(a, idx, w):
    return np.sum(np.sin(np.take_along_axis(a, idx, axis=-2)) * w)


def along_rows(a, idx, w):
    return np.sum(np.sin(np.take_along_axis(a, idx, 1)) * w)


def along_flat(a, idx, w):
    return np.sum(np.sin(np.take_along_axis(a, idx, None)) * w)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, a_shape, idx", [
    (along_last, (2, 3, 4), np.array([[[0, 3], [1, 1], [2, 0]], [[3, 3], [0, 1], [2, 2]]])),
    (along_default_axis, (2, 3, 4), np.array([[[0, 3], [1, 1], [2, 0]], [[3, 3], [0, 1], [2, 2]]])),
    (along_second_last, (2, 3, 4), np.array([[[0, 2, 1, 1]], [[2, 2, 0, 1]]])),     # repeats add up
    (along_rows, (3, 4), np.array([[0, -1]])),        # indices broadcast over rows; a negative one
    (along_rows, (1, 4), np.array([[0, 3], [2, 2], [1, 0]])),   # the array broadcast: its row sums
    (along_flat, (3, 4), np.array([5, 0, 11])),
])
def test_take_along_axis_scatters_back(fn, a_shape, idx, backend):
    a = R.normal(size=a_shape)
    axis = {along_flat: None, along_second_last: -2, along_rows: 1}.get(fn, -1)
    out = np.take_along_axis(a, idx, axis)
    check_grads(fn, (a, idx, R.normal(size=out.shape)), backend=backend)


def one_condition(x):
    return np.sum(np.sin(np.piecewise(x, x < 0.0, [lambda v: v * v, np.sin])))


def one_condition_one_function(x):
    return np.sum(np.piecewise(x, x > 0.5, [np.cos]) ** 2)


def piecewise_of_a_number(x):
    return np.piecewise(x, x < 0.0, [lambda v: v * v, lambda v: np.sin(v)]) * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_piecewise_of_one_boolean_array_is_one_condition(backend):
    x = np.linspace(-1.0, 1.0, 6) + 0.05
    check_grads(one_condition, (x,), backend=backend)
    check_grads(one_condition_one_function, (x,), backend=backend)
    check_grads(piecewise_of_a_number, (0.3,), backend=backend)
    check_grads(piecewise_of_a_number, (-0.3,), backend=backend)


def item_of_a_product(x):
    return np.prod(x).item()


def item_of_one_element(x):
    return x[1:2].item() * 3.0


def item_of_an_index(x):
    return np.argmax(x).item()


def item_of_a_larger_array(x):
    return x.item()


@pytest.mark.parametrize("backend", BACKENDS)
def test_item_is_a_python_number(backend):
    x = np.array([1.5, 2.0, 0.5])
    for fn, kind in ((item_of_a_product, float), (item_of_one_element, float), (item_of_an_index, int)):
        value = sstad.jit(fn, backend=backend)(x)
        assert type(value) is kind and value == fn(x)
    check_grads(item_of_a_product, (x,), backend=backend)
    check_grads(item_of_one_element, (x,), backend=backend)
    with pytest.raises(SstadError, match=r"(?s)test_call_forms.py:\d+:.*array of size 1"):
        sstad.jit(item_of_a_larger_array, backend=backend)(x)


def sorted_flat(a, w):
    return np.sum(np.sin(np.sort(a, axis=None)) * w) + np.sum(np.argsort(a, None) * w)


def quantile_kept(a, w):
    return np.sum(np.sin(np.quantile(a, 0.3, keepdims=True)) * w)


@pytest.mark.parametrize("backend", BACKENDS)
def test_flattened_sort_and_a_kept_whole_array_quantile(backend):
    a = (R.permutation(12) * 0.3).reshape(3, 4)
    check_grads(sorted_flat, (a, R.normal(size=12)), backend=backend)
    check_grads(quantile_kept, (a, R.normal(size=(1, 1))), backend=backend)


def cov_counted(m):
    return np.sum(np.sin(np.cov(m, fweights=[1, 2, 1, 3, 1])))


def cov_weighted(m, a):
    return np.sum(np.sin(np.cov(m, aweights=a))) + np.sum(np.cov(m, m[::-1] * 0.5, aweights=a, bias=True))


def cov_both_by_columns(m, a):
    return np.sum(np.sin(np.cov(m, rowvar=False, fweights=np.array([1, 2, 3]), aweights=a, ddof=0)))


def cov_float_counts(m):
    return np.sum(np.cov(m, fweights=[1.0, 2.0, 1.0, 3.0, 1.0]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_cov_weights(backend):
    m = R.normal(size=(3, 5))
    check_grads(cov_counted, (m,), backend=backend)
    check_grads(cov_weighted, (m, R.uniform(0.5, 2.0, 5)), backend=backend)
    check_grads(cov_both_by_columns, (m, R.uniform(0.5, 2.0, 3)), backend=backend)
    with pytest.raises(SstadError, match=r"(?s)test_call_forms.py:\d+:.*fweights must be integer"):
        sstad.jit(cov_float_counts, backend=backend)(m)
