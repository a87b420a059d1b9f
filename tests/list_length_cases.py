"""Loops nested in a loop that appends to a list, reading the list's length: in the
backward sweep each outer iteration must see the length the list had then."""
import numpy as np


def reversed_window(x):
    """The L-BFGS two-loop pattern: an inner loop over the list so far, newest first."""
    vals = []
    for j in range(4):
        vals.append(x[0] * (j + 1.0))
    s_list = []
    s_list.append(x[0])
    total = 0.0
    for _ in range(2):
        for i in range(len(s_list)):
            total += vals[len(s_list) - 1 - i] * x[1]
        s_list.append(x[0])
    return total


def carried_through_inner(x):
    """The inner loop carries a value and reads the length in its body."""
    hist = []
    hist.append(x[0])
    total = 0.0
    for t in range(3):
        acc = 0.0
        for i in range(len(hist)):
            acc = acc * x[1] + hist[len(hist) - 1 - i] * (len(hist) + 1.0)
        total = total + acc * acc
        hist.append(x[0] * x[1] + t)
    return total


def while_over_length(x):
    """A while loop whose condition reads the length, then an append."""
    hist = []
    hist.append(x[1])
    total = 0.0
    for t in range(3):
        i = 0
        while i < len(hist):
            total = total + hist[i] * x[0] * len(hist)
            i += 1
        if t % 2 == 0:
            hist.append(x[0] * x[0])
        else:
            hist.append(x[1] + t)
    return total


def appended_twice_after(x):
    """Two appends after the inner loop, one before it."""
    hist = []
    total = 0.0
    for t in range(3):
        hist.append(x[0] + t)
        s = 0.0
        for i in range(len(hist)):
            s = s + hist[i] * len(hist)
        total = total + s * x[1]
        hist.append(x[1] * s)
        hist.append(x[0])
    return total


def weak_then_strong(x):
    """A Python float (``x[0] + t``) and a NumPy one (``x[0]``) appended to one list in a loop."""
    hist = []
    for t in range(3):
        hist.append(x[0] + t)
        hist.append(x[0] * x[1])
    return hist[-1] + hist[-2] * len(hist)


def scalar_list_rebuilt(x):
    """A list of numbers replaced each step by one the body makes (a product of NumPy
    floats, which sstad types as a Python float)."""
    vals = []
    vals.append(x[0])
    for t in range(2):
        new = []
        new.append(vals[0] * x[1])
        vals = new
    return vals[0]


def int_list_rebuilt(x):
    """Likewise with integers: ``len(x) - 4`` and the loop index."""
    idx = []
    idx.append(len(x) - 4)
    for t in range(2):
        new = []
        new.append(t)
        idx = new
    return x[idx[0]] * 2.0


def reduced_before_first_append(x):
    """``np.sum`` of an item of a list still empty in the outer loop's first round (its
    type unknown until that round's append)."""
    history = []
    for _ in range(3):
        s = 0.0
        for i in range(len(history)):
            s = s + np.sum(history[i] ** 2)
        history.append(x * (1.0 + s))
    return np.sum(history[-1])


def stacked_in_inner_loop(x):
    """An inner loop reads the whole list the outer loop grows: refused in reverse mode."""
    hist = []
    hist.append(x)
    total = 0.0
    for t in range(2):
        for i in range(2):
            total = total + np.sum(np.stack(hist) * x)      # ERR whole
        hist.append(x * 0.5)
    return total


def ints_or_floats_by_branch(x, flag):
    """An integer appended on one branch, a float on the other: refused, at the append."""
    items = []
    items.append(2)
    if flag > 0:
        items.append(1)
    else:
        items.append(0.5)      # ERR branch
    return items[0] * x


def ints_then_floats(x):
    """Integers and floats appended to one list in a loop: refused, at the loop's line."""
    items = []
    for k in range(3):
        items.append(k)
        items.append(0.5)
    return items[1] * x
