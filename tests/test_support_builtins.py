"""Python builtins users expect in a differentiated function, each refused before:
``max``/``min`` with ``key=`` and ``default=``.  Derivatives follow the chosen item and are
checked against finite differences, both modes, both backends."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


# --- max/min with key= (was: "max() with keywords is not supported") --------------------

def best_entry(s):
    i = max(range(s.shape[0]), key=lambda i: s[i])             # a run-time range: a loop
    j = min(range(1, s.shape[0], 2), key=lambda i: (s[i] - 0.3) ** 2)
    return s[i] * 2.0 + np.sin(s[j]) * i


def score(model):
    weights, bias = model
    return np.sum(weights) * bias


def best_model(a, b, c):
    best_w, best_b = max([(a, 0.5), (b, 2.0), (c, 1.0)], key=score)     # items are tuples
    return np.sum(best_w ** 2) * best_b


def nearest_row(x, target):
    row = min(x, key=lambda r: np.sum((r - target) ** 2))       # the rows of an array
    return np.sum(row * target) + max(x[0, 0], x[1, 1], key=abs)


def longest_step(steps):
    seen = []
    for k in range(steps.shape[0]):
        seen.append(steps[k] * (k + 1.0))
    return max(seen, key=lambda v: v * v) ** 2                  # a run-time list


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_and_min_pick_the_item_by_its_key(backend):
    s = np.array([0.1, 0.9, 0.4, 0.35, -0.7])
    check_grads(best_entry, (s,), backend=backend)
    r = np.random.default_rng(1)
    check_grads(best_model, (r.normal(size=3), r.normal(size=3), r.normal(size=3)), backend=backend)
    x = np.array([[0.2, -1.5], [0.8, 0.4], [-0.3, 0.9]])
    check_grads(nearest_row, (x, np.array([0.7, 0.5])), backend=backend)
    check_grads(longest_step, (np.array([0.5, -0.4, 0.3]),), backend=backend)


def first_of_ties(a, b):
    return max(a, b, key=lambda v: 1.0) + 10.0 * min([a, b], key=lambda v: 1.0)


def test_the_first_of_equal_keys_wins():
    assert sstad.jit(first_of_ties, backend="python")(1.0, 2.0) == first_of_ties(1.0, 2.0) == 11.0


def best_or_default(s, n):
    i = max(range(n), key=lambda i: s[i], default=-1)
    return s[i] * 3.0                                           # s[-1] when n == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_is_the_result_of_an_empty_sequence(backend):
    s = np.array([0.1, 0.9, 0.4])
    f = sstad.jit(best_or_default, backend=backend)
    assert f(s, 0) == best_or_default(s, 0) == 1.2000000000000002
    assert f(s, 2) == best_or_default(s, 2)
    check_grads(best_or_default, (s, 2), backend=backend)


def best_of_none(s, n):
    return s[max(range(n), key=lambda i: s[i])]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_empty_sequence_without_default_raises_value_error(backend):
    f = sstad.jit(best_of_none, backend=backend)
    with pytest.raises(ValueError, match=r"max\(\) iterable argument is empty"):
        f(np.ones(3), 0)
    with pytest.raises(ValueError, match=r"max\(\) iterable argument is empty"):
        sstad.grad(best_of_none)(np.ones(3), 0)
    assert f(np.array([0.1, 0.9, 0.4]), 3) == 0.9
