"""Views and aliases held in containers, or parted in loops: right, or refused at the write.

Python keeps arrays by reference, so a write through any name (a list item, a dict value,
a loop's row) reaches every other name for that memory.  Each program below is checked
against NumPy and finite differences (both modes, both backends), or must be refused with
an AliasingError at the user's line: none may be silently wrong."""
import numpy as np
import pytest

import sstad
from sstad.errors import AliasingError
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
X = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 0.7], [0.5, 0.7, 1.3]])
W = np.array([0.3, -0.2, 1.1])
V = np.array([0.5, 1.2, -0.7, 2.0])


# --- followed: the writes reach the array, values and derivatives right ----------------
def views_in_a_tuple(X):
    X = X * 1.0
    for r in (X[0], X[2]):
        r[1:] = r[:-1] * r[1:]
    return np.sum(X ** 2)


def views_in_a_dict(X):
    X = X * 1.0
    d = {"a": X[0], "b": X[1]}
    for k in d:
        d[k] *= 2.0
    d["a"][0] = d["b"][1] * 3.0
    d["b"] += d["a"]
    return np.sum(X ** 2)


def list_items_augmented(X):
    X = X * 1.0
    rows = [X[0], X[1]]
    rows[0] *= 2.0
    rows[1] += rows[0]
    return np.sum(X ** 2)


def enumerated_views(X, w):
    X = X * 1.0
    rows = [X[2], X[0], X[1]]
    for k, r in enumerate(rows):
        r += w[k] * r ** 2
    return np.sum(X ** 2)


def zipped_literals(X, w):
    X = X * 1.0
    for r, c in zip([X[0], X[1]], [w[0], w[2]]):
        r *= c
    return np.sum(X ** 2)


def rows_of_a_slice(X):
    X = X * 1.0
    for r in X[1:]:
        r *= 2.0
        r[0] = r[1] * X[0, 0]
    return np.sum(X ** 2)


def views_in_a_tuple_of_a_tuple(X):
    X = X * 1.0
    pair = (X[0], X[1:])
    pair[0][1:] = pair[1][0, :-1] * pair[0][:-1]
    pair[1][1] += pair[0]
    return np.sum(X ** 2)


def alias_before_while(x):
    y = x * 1.0
    z = y
    i = 0
    while i < 3:
        z[i] = z[i] * x[i + 1]
        i += 1
    return np.sum(y ** 2)


def swapped_separate_arrays(x):
    a = x * 1.0
    b = x * 2.0
    for i in range(3):
        a[i] = a[i] * b[i + 1]
        a, b = b, a
    return np.sum(a ** 2) + np.sum(b)


def row_of(A, i):
    return A[i]


def view_returned_by_a_helper(X):
    X = X * 1.0
    r = row_of(X, 1)
    r *= 3.0
    r[0] = X[0, 1] * r[1]
    for i in range(2):
        row_of(X, i)[1:] += X[i + 1, :-1]
    return np.sum(X ** 2)


def copies_appended_then_written(x):
    y = x * 1.0
    hs = []
    for i in range(2):
        hs.append(y.copy())
        y[i] = y[i] * x[i + 1]
    return np.sum(hs[0] * hs[1]) + np.sum(y)


def views_from_dict_items_and_values(X):
    X = X * 1.0
    d = {"a": X[0], "b": X[2]}
    for k, v in d.items():
        v *= 2.0
    for v in d.values():
        v[0] = v[1] * v[2]
    return np.sum(X ** 2)


def pieces_of_split_in_a_tuple(X):
    X = X * 1.0
    a, b, c = np.split(X, 3)
    a *= b
    for r in (a, c):
        r += 1.0
    return np.sum(X ** 2)


def halves(x):
    return x[:2], x[2:]


def views_returned_in_a_tuple(x):
    y = x * 1.0
    lo, hi = halves(y)
    lo *= hi
    hi[0] = lo[1] * 3.0
    return np.sum(y ** 2)


def scale_all(rows, s):
    for r in rows:
        r *= s


def helper_writes_through_a_list_literal(X):
    X = X * 1.0
    scale_all([X[0], X.T[1]], 2.0)
    return np.sum(X ** 2)


def nested_list_literals(X):
    X = X * 1.0
    groups = [[X[0], X[1]], [X[2]]]
    for g in groups:
        for r in g:
            r *= 2.0
            r[0] = r[1] + 1.0
    return np.sum(X ** 2)


FOLLOWED = [(views_in_a_tuple, (X,)), (views_in_a_dict, (X,)), (list_items_augmented, (X,)),
            (enumerated_views, (X, W)), (zipped_literals, (X, W)), (rows_of_a_slice, (X,)),
            (views_in_a_tuple_of_a_tuple, (X,)), (alias_before_while, (V,)), (swapped_separate_arrays, (V,)),
            (view_returned_by_a_helper, (X,)), (copies_appended_then_written, (V,)),
            (views_from_dict_items_and_values, (X,)), (pieces_of_split_in_a_tuple, (X,)),
            (views_returned_in_a_tuple, (V,)), (helper_writes_through_a_list_literal, (X,)),
            (nested_list_literals, (X,))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, args", FOLLOWED, ids=[f.__name__ for f, _ in FOLLOWED])
def test_writes_through_held_views_are_followed(f, args, backend):
    check_grads(f, args, modes=("fwd", "rev"), backend=backend)


# --- refused: sstad cannot follow the write, so it says so at the write --------------
def views_appended_to_a_list(X):
    X = X * 1.0
    rows = []
    for i in range(2):
        rows.append(X[i])
    for r in rows:
        r *= 3.0                                       # refused
    return np.sum(X ** 2)


def views_in_a_comprehension(X):
    X = X * 1.0
    rows = [X[i] for i in range(2)]
    for r in rows:
        r *= 3.0                                       # refused
    return np.sum(X ** 2)


def list_literal_zipped_with_an_array(X, w):
    X = X * 1.0
    rows = [X[0], X[1], X[2]]
    for r, c in zip(rows, w):
        r *= c                                         # refused
    return np.sum(X ** 2)


def base_written_after_appending_a_view(X):
    X = X * 1.0
    rows = []
    rows.append(X[0])
    X[0, 1] = 5.0                                      # refused
    return np.sum(rows[0] ** 2)


def array_written_after_appending_it(x):
    y = x * 1.0
    hs = []
    hs.append(y)
    y += 1.0                                           # refused
    return np.sum(hs[0] ** 2)


def base_written_in_the_loop_that_appends(X):
    X = X * 1.0
    rows = []
    for i in range(2):
        X[i, 0] = X[i, 1] * 2.0                        # refused (round 2 writes the listed memory)
        rows.append(X[i])
    return np.sum(rows[0] ** 2) + np.sum(rows[1])


def base_written_after_the_loop_that_appends(X):
    X = X * 1.0
    for i in range(2):
        X[i, 0] = X[i, 1] * 2.0
    rows = []
    for i in range(2):
        rows.append(X[i])
    X[0, 0] = 7.0                                      # refused
    return np.sum(rows[0] ** 2) + np.sum(rows[1])


def base_written_after_a_branch_appends(X):
    X = X * 1.0
    rows = []
    if X[0, 0] > 0:
        rows.append(X[0])
    else:
        rows.append(X[1] * 2.0)
        X[0, 0] = 1.0
    X[2, 2] = 1.0                                      # refused
    return np.sum(rows[0] ** 2)


def alias_parts_in_a_while(x):
    y = x * 1.0
    z = y
    i = 0
    while i < 3:
        z[0] = z[0] + x[1]                             # refused
        z = z * 2.0
        i += 1
    return np.sum(y ** 2) + np.sum(z)


def alias_parts_on_some_rounds(x):
    y = x * 1.0
    z = y
    for i in range(3):
        z[0] = z[0] + x[1]                             # refused
        if x[i] > 0:
            z = z * 2.0
    return np.sum(y ** 2) + np.sum(z)


def other_name_written_while_parting(x):
    y = x * 1.0
    z = y
    for i in range(3):
        y[1] = y[1] * x[0]                             # refused
        z = z * 2.0
    return np.sum(y ** 2) + np.sum(z)


def alias_swapped_in_the_body(x):
    a = x * 1.0
    b = a
    for i in range(3):
        a[i] = a[i] * x[i + 1]                         # refused
        a, b = b, a * 1.0
    return np.sum(a ** 2) + np.sum(b)


def list_literal_item_at_a_run_time_index(X):
    X = X * 1.0
    rows = [X[0], X[1]]
    for i in range(2):
        r = rows[i]
        r *= 2.0                                       # refused
    return np.sum(X ** 2)


def iterated_array_rebound(X):
    Y = X * 1.0
    for row in Y:
        row *= 2.0                                     # refused
        Y = Y + 1.0
    return np.sum(Y ** 2)


REFUSED = [(views_appended_to_a_list, (X,), "read from a run-time list"),
           (views_in_a_comprehension, (X,), "read from a run-time list"),
           (list_literal_zipped_with_an_array, (X, W), "zipped with a run-time sequence"),
           (base_written_after_appending_a_view, (X,), "put into a run-time list"),
           (array_written_after_appending_it, (V,), "put into a run-time list"),
           (base_written_in_the_loop_that_appends, (X,), "put into a run-time list"),
           (base_written_after_the_loop_that_appends, (X,), "put into a run-time list"),
           (base_written_after_a_branch_appends, (X,), "put into a run-time list"),
           (alias_parts_in_a_while, (V,), "held by `z` and by `y`"),
           (alias_parts_on_some_rounds, (V,), "held by `z` and by `y`"),
           (other_name_written_while_parting, (V,), "held by `z` and by `y`"),
           (alias_swapped_in_the_body, (V,), "held by `b` and by `a`"),
           (iterated_array_rebound, (X,), "the array the `for` loop iterates and by `Y`"),
           (list_literal_item_at_a_run_time_index, (X,), "chosen by an `if` or a loop")]


def refused_line(f):
    """The line of ``f`` marked ``# refused``."""
    import inspect
    lines, first = inspect.getsourcelines(f)
    return first + next(k for k, line in enumerate(lines) if "# refused" in line)


@pytest.mark.parametrize("f, args, what", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_writes_sstad_cannot_follow_are_refused_at_the_write(f, args, what):
    f(*args)                                           # valid Python
    with pytest.raises(AliasingError, match=what) as err:
        sstad.jit(f, backend="python")(*args)
    assert err.value.loc.file == __file__ and err.value.loc.line == refused_line(f)
    assert err.value.hint
