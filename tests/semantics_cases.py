"""Functions for tests/test_semantics.py (kept in a file: sstad reads their source)."""
import math

import numpy as np

W = np.array([1.0, 2.0, 3.0])


def write_through_view(x):
    y = x.copy()
    head = y[0:2]
    head[0] = 5.0  # VIEW
    return y


def loop_changes_type(x, n):
    s = 0.0
    for i in range(n):
        s = s + x  # TYPE
    return s


def branch_changes_structure(x):
    if x.sum() > 0:
        out = (x, x)
    else:
        out = x  # STRUCT
    return out


def may_fall_off(x):  # FALLOFF
    if x.sum() > 0:
        return x
    x = x + 1.0


def stepped(x):              # a step, as np.heaviside(x, 0.5) at -1, 0 and 2
    return 0.5 * np.sign(x) + 0.5 + math.fmod(x[0] * 0.0, 1.0)     # Numba has no math.fmod


def reads_global(x):
    return (W * x).sum()


def make_scaler(k):
    def scale(x):
        return k * x
    return scale


def returns_containers(x):
    return {"double": 2.0 * x, "parts": [x[0], x[-1]]}, None


def promote(x):
    return x * 2.0 + 1


def dead_carry(x, n):
    unused = 0.0
    total = 0.0
    for i in range(n):
        unused = unused + 1.0
        total = total + x[i]
    return total


def transpose_axes(a):
    return a.transpose(1, 0) + np.transpose(a, (1, 0))


def straight_line_append(x):
    out = []
    out.append(x[0])
    out.append(2.0 * x[1])
    return sum(out)


def nested_default(x):
    k = 2.0

    def scale(v, factor=k):
        return factor * v
    k = 3.0
    return scale(x)


def update_view_in_place(x):
    y = x.copy()
    head = y[:2]
    head += 1.0  # IVIEW
    return y

SCALE = 2.0


def reads_global_number(x):
    return SCALE * x
