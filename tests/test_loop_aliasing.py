"""In-place writes in a loop through a second name for an array.

``for row in X: row *= 2`` (the rows are views of X) and ``Y = X`` before a loop that
writes ``Y[i] = ...`` both left X unchanged: the loop carried each name as its own value,
so the write reached only the other one (silently wrong values and gradients).  Names
bound to one array before a loop now share its version in the loop while they stay bound
to it, and a `for` loop carries the array it iterates under a hidden name.  A write in a
loop that also parts such names is refused (its reach differs between rounds); more
cases of the class are in test_alias_containers.py."""
import numpy as np
import pytest

import sstad
from sstad.errors import AliasingError
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


def rows_scaled_in_place(X, s):
    X = X * 1.0
    for row in X:
        row *= s
        row[0] = row[1] ** 2
    return np.sum(X ** 2)


def rows_enumerated_and_zipped(X, Y):
    X = X * 1.0
    for i, row in enumerate(X):
        row += i * Y[i]
    for a, b in zip(X, Y):
        a -= 0.5 * b ** 2
    return np.sum(np.sin(X))


def written_through_an_alias(x):
    y = x * 1.0
    z = y
    for i in range(len(x) - 1):
        z[i + 1] = z[i] * x[i] + 1.0
    return np.sum(y ** 2)


def alias_rebound_in_the_body(x):
    y = x * 1.0
    z = y
    for i in range(3):
        z[0] = z[0] + x[1]
        z = z * 2.0                       # z leaves y: later writes reach only the new array
    return np.sum(y ** 2) + np.sum(z)


def nested_loops_over_rows(X):
    X = X * 1.0
    for row in X:
        for k in range(len(row)):
            row[k] = row[k] ** 2 + k
    for col in X.T:
        col *= 0.5
    return np.sum(X ** 3)


def iterate_then_rebind(X):
    total = 0.0
    for row in X:
        X = X + 1.0                        # the loop still iterates the array it started with
        total += np.sum(row * X[0])
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_written_in_place(backend):
    X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.7]])
    check_grads(rows_scaled_in_place, (X, 1.5), backend=backend)
    check_grads(rows_enumerated_and_zipped, (X, np.array([0.3, -0.2, 1.1])), backend=backend)
    check_grads(nested_loops_over_rows, (X,), backend=backend)
    check_grads(iterate_then_rebind, (X,), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_through_a_second_name(backend):
    x = np.array([0.5, 1.2, -0.7, 2.0])
    check_grads(written_through_an_alias, (x,), backend=backend)


def test_alias_that_parts_in_the_body_is_refused_at_the_write():
    """The first round's write through `z` reaches `y` (shared memory), later rounds' do not:
    the dataflow cannot say that, so the write is refused at its line (reverse mode missed it)."""
    with pytest.raises(AliasingError, match="one array held by `z` and by `y`") as err:
        sstad.jit(alias_rebound_in_the_body, backend="python")(np.array([0.5, 1.2, -0.7, 2.0]))
    assert err.value.loc.line == alias_rebound_in_the_body.__code__.co_firstlineno + 4    # z[0] = ...
    assert "z = y.copy()" in str(err.value)


def views_in_a_list_literal(X):
    X = X * 1.0
    rows = [X[0], X[1]]
    for r in rows:
        r *= 3.0
    return np.sum(X)


@pytest.mark.parametrize("backend", BACKENDS)
def test_views_held_in_a_list_literal(backend):
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert sstad.jit(views_in_a_list_literal, backend=backend)(X) == views_in_a_list_literal(X)
    check_grads(views_in_a_list_literal, (X,), backend=backend)
