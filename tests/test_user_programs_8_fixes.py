"""Fixes found by the eighth batch of user programs (tests/user_programs_8.py): a ``range``
as an array index (NumPy reads it as an integer array, as t-SNE's
``num[range(n), range(n)] = 0.`` does), and ``sstad.grad`` of a nested function that reads
a tuple, list or dict of arrays and numbers from the enclosing function (WGAN-GP's
``sstad.grad(lambda x: critic(params, x))`` with ``params`` a dict), and the builtins
``max`` / ``min`` of a generator (a run-time list) and of three or more numbers, whose
derivative took only two."""
import numpy as np
import pytest

import sstad
from sstad.errors import UnsupportedSyntaxError
from sstad.testing import check_grads


def zero_the_diagonal(Y):
    n = Y.shape[0]
    num = 1.0 / (1.0 + (Y[:, None] - Y[None, :]) ** 2)
    num[range(n), range(n)] = 0.0
    return np.sum(num * Y[:, None])


def every_other_by_a_range(x):
    return np.sum(x[range(1, len(x), 2)] ** 2) + x[range(3)] @ x[range(len(x) - 1, len(x) - 4, -1)]


def add_at_a_range(A, v):
    B = A.copy()
    B[range(2), 1:] += v[:, None]
    return np.sum(B ** 3)


RANGE_CASES = [(zero_the_diagonal, (np.linspace(-1.0, 1.3, 5),)),
               (every_other_by_a_range, (np.linspace(0.2, 1.7, 7),)),
               (add_at_a_range, (np.arange(12.0).reshape(4, 3) / 7, np.array([0.3, -0.4])))]


@pytest.mark.parametrize("fn, args", RANGE_CASES, ids=[c[0].__name__ for c in RANGE_CASES])
def test_a_range_indexes_as_an_integer_array(fn, args):
    check_grads(fn, args, backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn, args", RANGE_CASES, ids=[c[0].__name__ for c in RANGE_CASES])
def test_a_range_indexes_as_an_integer_array_on_numba(fn, args):
    check_grads(fn, args, backend="numba")


def critic(params, x):
    return np.tanh(x @ params["W"] + params["b"]) @ params["w"]


def penalty_reads_a_dict(params, x):
    g = sstad.grad(lambda z: np.sum(critic(params, z)))(x)
    return np.sum((np.sqrt(np.sum(g ** 2, axis=1)) - 1.0) ** 2)


def penalty_reads_a_tuple_and_a_list(W, b, x, scale):
    pair = (W, b * scale)
    listed = [W, 2.0]
    g = sstad.grad(lambda z: np.sum(np.tanh(z @ pair[0] + pair[1]) * listed[1]) + np.sum(z @ listed[0]))(x)
    return np.sum(g ** 2)


def _params():
    r = np.random.default_rng(3)
    return {"W": 0.7 * r.normal(size=(2, 4)), "b": 0.1 * r.normal(size=4), "w": r.normal(size=4)}


X = np.random.default_rng(4).normal(size=(5, 2))
CLOSURE_CASES = [(penalty_reads_a_dict, (_params(), X)),
                 (penalty_reads_a_tuple_and_a_list, (_params()["W"], _params()["b"], X, 1.5))]


@pytest.mark.parametrize("fn, args", CLOSURE_CASES, ids=[c[0].__name__ for c in CLOSURE_CASES])
def test_a_lifted_closure_reads_containers_of_arrays(fn, args):
    check_grads(fn, args, backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn, args", CLOSURE_CASES, ids=[c[0].__name__ for c in CLOSURE_CASES])
def test_a_lifted_closure_reads_containers_of_arrays_on_numba(fn, args):
    check_grads(fn, args, backend="numba")


def penalty_reads_a_runtime_list(W, x):
    rows = []
    for k in range(2):
        rows.append(W * (k + 1.0))
    return sstad.grad(lambda z: np.sum(z @ rows[1]))(x)


def test_a_lifted_closure_reading_a_runtime_list_is_refused_with_the_way_out():
    with pytest.raises(UnsupportedSyntaxError, match=r"(?s)test_user_programs_8_fixes.py:\d+:\d+: `sstad.grad` of "
                       r"this nested function is not supported.*it reads `rows` from here.*def f\(z, rows\)"):
        sstad.jit(penalty_reads_a_runtime_list, backend="python")(_params()["W"], X)


def best_of_a_generator(x, w):
    return max(x[i] * w[i] for i in range(len(x))) - min(v * v for v in x)


def min_of_three(x):
    return min(x[0], x[1] * 2.0, 0.3) + max(x[0], x[1], x[2], 0.1) * 3.0


def max_of_an_empty_generator(x):
    return max(v for v in x if v > 10.0)


BUILTIN_CASES = [(best_of_a_generator, (np.array([0.3, -0.8, 0.5, 0.1]), np.array([1.0, 2.0, 0.5, 2.0]))),
                 (min_of_three, (np.array([0.2, -0.4, 0.9]),)),
                 (min_of_three, (np.array([0.5, 0.4, -0.9]),))]


@pytest.mark.parametrize("fn, args", BUILTIN_CASES, ids=["generator", "three-first", "three-last"])
def test_builtin_max_and_min_of_generators_and_of_several_numbers(fn, args):
    check_grads(fn, args, backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn, args", BUILTIN_CASES, ids=["generator", "three-first", "three-last"])
def test_builtin_max_and_min_on_numba(fn, args):
    check_grads(fn, args, backend="numba")


def test_max_of_an_empty_generator_raises_as_python_does():
    with pytest.raises(ValueError, match="max\\(\\) iterable argument is empty"):
        sstad.jit(max_of_an_empty_generator, backend="python")(np.array([0.3, 0.4]))


def scale_by_a_reduction(x32, y):
    return x32 * np.sum(y) + x32 * y.max()


def scale_by_a_numpy_scalar_argument(x32, s):
    return x32 * s


def test_a_numpy_float64_is_a_strong_scalar_as_in_numpy():
    """np.float64 is a subclass of float: it was typed as a weak Python float, so a float32
    array times np.sum(y) of float64 stayed float32 (NumPy: float64), silently rounded."""
    x32 = np.array([1.1, 2.2], dtype=np.float32)
    y = np.array([0.1, 0.2])
    for fn, args in ((scale_by_a_reduction, (x32, y)), (scale_by_a_numpy_scalar_argument, (x32, np.float64(0.1)))):
        expected = fn(*args)
        got = sstad.jit(fn, backend="python")(*args)
        assert got.dtype == expected.dtype == np.float64
        np.testing.assert_array_equal(got, expected)
    assert sstad.jit(scale_by_a_numpy_scalar_argument, backend="python")(x32, 0.1).dtype == np.float32


def numpy_scalar_attributes(x):
    s = np.sum(x)
    return s * s.size + s.ndim + len(s.shape) + s.T


def test_a_numpy_scalar_has_the_attributes_of_a_0d_array():
    x = np.array([0.3, -1.2, 2.0])
    assert sstad.jit(numpy_scalar_attributes, backend="python")(x) == numpy_scalar_attributes(x)
    check_grads(numpy_scalar_attributes, (x,), backend="python")


def swap_rows_by_unpacking(A):
    B = A.copy()
    B[0], B[1] = B[1], B[0]        # NumPy: B[0] is a view, so both rows end up as the old row 1
    return B * np.arange(1.0, B.size + 1).reshape(B.shape)


def swap_rows_by_unpacking_with_copies(A):
    B = A.copy()
    B[0], B[1] = B[1].copy(), B[0].copy()
    return B * np.arange(1.0, B.size + 1).reshape(B.shape)


def rotate_columns_by_unpacking(A):
    B = A.copy()
    B[:, 0], B[:, 1], B[:, 2] = B[:, 1], B[:, 2], B[:, 0]
    return np.sum(B * np.arange(1.0, B.size + 1).reshape(B.shape))


@pytest.mark.parametrize("fn", [swap_rows_by_unpacking, swap_rows_by_unpacking_with_copies,
                                rotate_columns_by_unpacking], ids=lambda f: f.__name__)
def test_unpacking_into_subscripts_sees_the_earlier_targets_writes_through_views(fn):
    """The items were assigned as they were before the first write: the values (computed by
    NumPy at run time, through real views) were NumPy's, the derivatives those of a swap."""
    check_grads(fn, (np.arange(1.0, 10.0).reshape(3, 3) / 7,), backend="python")


@pytest.mark.slow
def test_unpacking_into_subscripts_on_numba():
    check_grads(swap_rows_by_unpacking, (np.arange(1.0, 10.0).reshape(3, 3) / 7,), backend="numba")


def _triple_first_row(A):
    A[0] = A[0] * 3.0
    return 1.0


def view_read_before_a_call_that_writes_its_base(A):
    B = A.copy()
    return B[0] * _triple_first_row(B)    # Python: B[0] is a view, read after the call wrote B


def test_a_view_inside_an_expression_sees_a_later_write_by_a_call():
    A = np.arange(6.0).reshape(2, 3) / 5 + 0.1
    np.testing.assert_allclose(sstad.jit(view_read_before_a_call_that_writes_its_base, backend="python")(A),
                               view_read_before_a_call_that_writes_its_base(A))


def symmetrise_in_place(A):
    B = A.copy()
    B += B.T
    return B * np.arange(B.size).reshape(B.shape)


def scale_rows_by_the_first_in_place(A):
    B = A.copy()
    B *= B[0]
    C = A.copy()
    C -= C[:, ::-1]
    return B * np.arange(B.size).reshape(B.shape) + C


OVERLAP_CASES = [symmetrise_in_place, scale_rows_by_the_first_in_place]


@pytest.mark.parametrize("fn", OVERLAP_CASES, ids=lambda f: f.__name__)
def test_an_in_place_operation_reads_a_view_of_its_target_as_it_was(fn):
    check_grads(fn, (np.arange(1.0, 10.0).reshape(3, 3) / 7 - 0.4,), backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn", OVERLAP_CASES, ids=lambda f: f.__name__)
def test_an_in_place_operation_reads_a_view_of_its_target_as_it_was_on_numba(fn):
    """Numba's B += B.T read items it had already written (silently wrong values)."""
    check_grads(fn, (np.arange(1.0, 10.0).reshape(3, 3) / 7 - 0.4,), backend="numba")


def masked_rows_at_their_labels(logits, labels, mask):
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -log_probs[mask, labels[mask]].mean()


def write_at_masked_rows_and_labels(x, labels, mask):
    y = np.zeros((4, 3))
    y[mask, labels[mask]] = x[:3]
    y[mask, labels[mask]] += 2.0 * x[1:4] * y[mask, labels[mask]]
    return np.sum(y * np.arange(1.0, 13.0).reshape(4, 3))


MASK_CASES = [(masked_rows_at_their_labels, (np.arange(12.0).reshape(4, 3) / 7, np.array([2, 0, 1, 2]),
                                             np.array([True, False, True, True]))),
              (write_at_masked_rows_and_labels, (np.array([0.3, -0.2, 0.9, 1.4]), np.array([2, 0, 1, 2]),
                                                 np.array([True, False, True, True])))]


@pytest.mark.parametrize("fn, args", MASK_CASES, ids=[c[0].__name__ for c in MASK_CASES])
def test_a_mask_beside_an_index_array(fn, args):
    check_grads(fn, args, backend="python")


@pytest.mark.slow
@pytest.mark.parametrize("fn, args", MASK_CASES, ids=[c[0].__name__ for c in MASK_CASES])
def test_a_mask_beside_an_index_array_on_numba(fn, args):
    """Numba miscompiles x[mask, idx] ('Invalid store of [2 x i64] to [1 x i64]'): a GCN's
    log_probs[train_mask, labels[train_mask]] did not compile."""
    check_grads(fn, args, backend="numba")


def nested_unpacking_into_subscripts(A):
    B = A.copy()
    (B[0], B[1]), c = (B[1], B[0]), B[2]
    return B * np.arange(1.0, B.size + 1).reshape(B.shape) + c


def test_nested_unpacking_into_subscripts():
    check_grads(nested_unpacking_into_subscripts, (np.arange(1.0, 10.0).reshape(3, 3) / 7,), backend="python")
