"""``enumerate(x, start)`` (and ``start=``), as in ``for t, r in enumerate(rewards, 1)``:
the index counts from ``start``, a constant or a run-time integer, over arrays, run-time
lists, zips and static tuples, in loops and comprehensions."""
import numpy as np
import pytest

import sstad
from sstad.errors import SstadTypeError
from sstad.testing import check_grads


def discounted(rewards, values, offset, gamma=0.9):
    total = 0.0
    for t, r in enumerate(rewards, 1):                       # an array
        total += gamma ** t * r * values[t - 1]
    for k, (a, b) in enumerate(zip(rewards, values), start=2):
        total += k * a * b
    for j, w in enumerate((values[0], values[1]), len(values)):   # a static tuple, a run-time start
        total += j * w
    rows = [v * v for v in values]
    total += sum(i * v for i, v in enumerate(rows, offset))   # a run-time list, a run-time start
    return total + sum([i * r for i, r in enumerate(rewards, -1)])


def float_start(x):
    return sum(i * v for i, v in enumerate(x, 0.5))


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_enumerate_from_a_start(backend):
    r = np.random.default_rng(0)
    check_grads(discounted, (r.normal(size=4), r.normal(size=4), 3), backend=backend)


def test_a_start_that_is_not_an_integer_is_refused_at_the_line():
    with pytest.raises(SstadTypeError, match=r"test_enumerate_start.py:\d+:\d+: enumerate\(\)'s start must be an integer"):
        sstad.jit(float_start, backend="python")(np.ones(3))
