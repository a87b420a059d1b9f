"""Python and NumPy idioms met writing tests/user_programs_4.py, each checked against
central finite differences: ``slice(...)`` objects (also carried through a loop),
``reversed(range(...))``, helpers with positional-only parameters, ``np.split`` along a
negative axis (and its unequal division refused as NumPy does), ``np.array`` /
``np.asarray`` with ``dtype=``, ``np.concatenate`` of a list built at run time (items of
different lengths, any constant axis), and the wording of a refused ``dtype=``."""
import numpy as np
import pytest

import sstad
from sstad.errors import SstadError
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
X = np.random.default_rng(7).normal(size=(3, 6))


def head_slices(x, n):
    out = 0.0
    for i in range(2):
        sl = slice(i * n, (i + 1) * n)
        out = out + np.sum(x[:, sl] ** 2) * (i + 1)
    return out + np.sum(x[slice(None), slice(1, None, 2)]) + np.sum(x[slice(2)] ** 3)


def discounted_returns(x, a, b):
    out = 0.0
    for t in reversed(range(x.shape[1])):
        out = out * 0.5 + x[0, t]
    for t in reversed(range(a, b)):
        out = out + t * x[1, t]
    for t in reversed(range(a, b, 2)):
        out = out + t * x[2, t] ** 2
    for t in reversed(range(b - 1, a, -2)):
        out = out + t * x[1, t] ** 3
    for t in reversed(range(b, a)):                 # empty
        out = out + 100.0 * x[0, t]
    for w in reversed((1.0, 2.0, 3.0)):
        out = out * w + 1.0
    return out


def _scaled(x, /, scale=2.0, *, shift=0.0):
    return x * scale + shift


def positional_only_helper(x):
    return np.sum(_scaled(x, 3.0, shift=1.0) * _scaled(x))


def split_last_axis(x):
    q, k, v = np.split(x, 3, axis=-1)
    a, b = np.split(x, [2], axis=-2)
    return np.sum(q * k - np.sin(v)) + np.sum(a ** 2) - np.sum(b)


def converted(x):
    return (np.sum(np.asarray(x, dtype=np.float64) ** 2) + np.sum(np.array(x, float) * 3.0)
            + np.sum(np.array([x[0, 0], x[1, 1]], dtype=np.float64) ** 3))


def converted_to_float32(x):
    return np.sum(np.asarray(x, dtype=np.float32) * np.float32(2.0))


def concatenated_pieces(x):
    parts = []
    for i in range(1, 4):
        parts.append(x[0, :i] * i)
    for i in range(2):
        parts.append(np.sin(x[1, i:]))
    return np.concatenate(parts) @ np.arange(1.0, 18.0)


def concatenated_columns(x):
    parts = []
    for i in range(3):
        parts.append(x[:, :i + 1] ** 2)
    return np.sum(np.concatenate(parts, axis=-1) @ np.arange(1.0, 7.0))


CASES = [(concatenated_pieces, (X,)), (concatenated_columns, (X,)), (head_slices, (X, 3)), (discounted_returns, (X, 1, 6)), (discounted_returns, (X, 0, 6)),
         (discounted_returns, (X, 2, 5)), (discounted_returns, (X, 3, 3)), (positional_only_helper, (X,)),
         (split_last_axis, (X,)), (converted, (X,))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", CASES, ids=[f"{c[0].__name__}{k}" for k, c in enumerate(CASES)])
def test_idiom(fn, args, backend):
    check_grads(fn, args, backend=backend, order=2 if backend == "python" else 1)


def test_a_cast_to_float32_gets_a_float64_gradient():
    g = sstad.grad(converted_to_float32)(X)
    assert g.dtype == np.float64
    np.testing.assert_array_equal(g, np.full(X.shape, 2.0))


def test_unequal_split_is_refused_at_run_time_as_numpy_does():
    with pytest.raises(SstadError, match="array split does not result in an equal division"):
        sstad.jit(lambda x: np.split(x, 4, axis=-1)[0], backend="python")(X)


def test_split_axis_out_of_range_is_named():
    with pytest.raises(SstadError, match="axis -3: the axis is outside its 2 dimensions"):
        sstad.jit(lambda x: np.split(x, 3, axis=-3)[0], backend="python")(X)


def test_positional_only_parameter_passed_by_keyword_is_an_error():
    with pytest.raises(SstadError, match="unexpected or repeated argument `x`"):
        sstad.grad(lambda x: np.sum(_scaled(x=x)))(X)


def _reversed_rows(x):
    rows = []
    for i in range(3):
        rows.append(np.sin(x * (i + 1.0)))
    total, weight = 0.0, 1.0
    for r in reversed(rows):               # a run-time list: its items, last first
        total = total + weight * np.sum(r)
        weight = weight * 0.5
    return total


def test_reversed_run_time_list():
    check_grads(_reversed_rows, (X,), backend="python")
    assert np.isclose(sstad.jit(_reversed_rows, backend="python")(X), _reversed_rows(X))


def test_a_refused_dtype_is_named_as_written():
    with pytest.raises(SstadError, match=r"does not handle `dtype=np.float32`"):
        sstad.grad(lambda x: np.sum(np.exp(x, dtype=np.float32)))(X)


def test_concatenating_a_list_along_no_axis_is_refused_in_reverse_mode():
    def f(x):
        parts = []
        for i in range(3):
            parts.append(x * i)
        return np.sum(np.concatenate(parts, axis=None))
    with pytest.raises(SstadError, match="np.concatenate of a list built at run time needs a constant axis"):
        sstad.grad(f)(X)


def repeated_pairs(x, n):
    items = [x[0], x[1] * 2.0] * n
    total = 0.0
    for i in range(len(items)):
        total = total + items[i] * (i + 1)
    return total


def repeated_arrays(x):
    hs = [np.zeros(x.shape[1])] * x.shape[0]
    for i in range(x.shape[0]):
        hs[i] = hs[i - 1] * 0.5 + x[i]
    return np.sum(np.stack(hs) ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", [(repeated_pairs, (X[0], 3)), (repeated_pairs, (X[0], 0)), (repeated_arrays, (X,))],
                         ids=["pairs", "none", "arrays"])
def test_list_literal_times_a_run_time_int(fn, args, backend):
    assert sstad.jit(fn, backend=backend)(*args) == fn(*args)
    check_grads(fn, args, backend=backend)


def test_tuple_times_a_run_time_int_is_refused():
    with pytest.raises(SstadError, match=r"a list literal times a run-time int is a run-time list"):
        sstad.jit(lambda x: (1.0, 2.0) * len(x), backend="python")(X)


def list_literal_written(x):
    hs = [x[0] * 1.0, x[1] * 2.0, x[2] * 3.0]
    hs[0] = np.sin(hs[2])
    hs[-1] += hs[0] * hs[1]
    return np.sum(hs[0] * hs[2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_list_literal_written_at_constant_indices(backend):
    check_grads(list_literal_written, (X,), backend=backend, order=2 if backend == "python" else 1)


def test_list_literal_written_at_a_run_time_index_is_refused_with_the_way_out():
    def f(x):
        hs = [x * 1.0, x * 2.0, x * 3.0]
        for i in range(3):
            hs[i] += np.sin(hs[i - 1])
        return np.sum(hs[0] * hs[2])
    with pytest.raises(SstadError, match=r"(?s)list literal at a run-time index.*hs.append\(v\)"):
        sstad.grad(f)(X)
    with pytest.raises(SstadError, match="list assignment index 3 out of range"):
        sstad.grad(_write_past_end)(X)


def _write_past_end(x):
    hs = [x, x * 2.0]
    hs[3] = x
    return np.sum(hs[0])
