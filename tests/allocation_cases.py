"""Functions for tests/test_allocation_passes.py: user loops whose derivative code makes
arrays or lists that ``simplify``, ``shape_speculation``, ``copies`` and ``hoist_lists``
leave out."""
import numpy as np


def log_softmax_loss(x, target):
    """``np.sum`` of a difference with a number: the gradient sums ``-dout`` over ``y``."""
    y = x * 1.5
    return np.sum(target * (y - np.log(np.sum(np.exp(y)))))


def negated_reductions(x):
    """Only a multilinear reduction of ``-x`` is minus that of ``x``: ``max(-x)`` is
    ``-min(x)``, and ``prod(-x)`` of four items is ``prod(x)``."""
    return np.max(-x) + np.prod(-x) * 10.0 + np.mean(-x) * 100.0


def spread_times_smaller(q, c):
    """``(zeros_like(q) + 3) * c`` with ``c`` of shape (1,): the product has ``q``'s shape,
    ``3 * c`` only ``c``'s, so the shape check must send the call back unspeculated."""
    return np.sum((np.zeros_like(q) + 3.0) * c)


def rows_per_step(w, x, steps):
    """An inner loop's values taped in every outer step."""
    total = 0.0
    h = x * 1.0
    for t in range(steps):
        for i in range(w.shape[0]):
            h = np.tanh(h * w[i] + 0.1)
        total = total + np.sum(h * h)
    return total


def per_step_lists(x, steps):
    """A list made, filled and stacked within each iteration: made once, emptied each time."""
    total = 0.0
    for t in range(steps):
        parts = []
        for k in range(3):
            parts.append(x * (k + t))
        total = total + np.sum(np.stack(parts) ** 2)
    return total


def lists_of_lists(x, steps):
    """Each iteration's list is stored in an outer list: never emptied."""
    outer = []
    for t in range(steps):
        inner = []
        inner.append(x * t)
        outer.append(inner)
    return sum(np.sum(o[0]) for o in outer)


def rows_of_a_table(x, steps):
    """Each iteration fills a row in a loop of its own and stores it in the table: a row
    made once and emptied would leave the table holding one list ``steps`` times."""
    table = []
    for t in range(steps):
        row = []
        for j in range(2):
            row.append(x[j] * (t + 1))
        table.append(row)
    total = 0.0
    for t in range(steps):
        total = total + table[t][0] * table[t][1] * (t + 1)
    return total


def copied_fresh(x):
    """A copy of an array nothing else reads, then updated in a loop."""
    d = np.copy(np.sin(x) * 2.0)
    for i in range(3):
        d += x
    return np.sum(d * d)


def copied_view(x):
    """A copy of a view of ``x`` (no new memory), updated in a loop: the copy stays, or
    the updates would write into ``x``."""
    d = np.copy(x[1:])
    for i in range(3):
        d += x[:-1]
    return np.sum(d * d) + np.sum(x * x)


def copied_still_read(x):
    """The copied array is read after the copy's updates: the copy stays."""
    g = np.sin(x) * 2.0
    d = np.copy(g)
    for i in range(3):
        d += x
    return np.sum(d * g)
