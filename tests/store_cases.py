"""Loop programs whose reverse mode stores or recomputes the body's intermediates
(tests/test_store.py).  Each takes (x: a float array, w: a float) and returns a float."""
import numpy as np


def for_tanh(x, w):
    h = x.copy()
    s = 0.0
    for i in range(6):
        h = np.tanh(h * w + 0.1 * i)
        s = s + np.sum(h * h)
    return s


def while_euler(x, w):
    y = x.copy()
    t = 0.0
    while t < 1.0:
        y = y + 0.1 * np.sin(w * y) * y
        t = t + 0.1
    return np.sum(y * y)


def scalar_reads(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.exp(w * x[i]) * x[i]
    return s


def nested(x, w):
    h = x.copy()
    s = 0.0
    for t in range(3):
        g = h * w
        for i in range(2):
            h = np.sin(h * g + i)
        s = s + np.sum(np.cos(h) * g)
    return s


def branch_in_body(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            u = np.exp(w * x[i])       # defined in one branch only
            s = s + u * u
        else:
            s = s - np.sin(w * x[i]) * x[i]
    return s


def in_place_write(x, w):
    state = np.zeros((2, x.shape[0]))
    state[0] = x
    for t in range(4):
        h = state[0]                   # a view of memory the loop overwrites
        c = state[1]
        c2 = c * 0.5 + np.tanh(h * w)
        state[1] = c2
        state[0] = np.sin(c2) * h
    return np.sum(state * state)


def written_row(x, w):
    y = x.copy()
    s = 0.0
    for i in range(x.shape[0]):
        v = y * w
        y[i] = np.sin(v[i]) + y[i]     # v: fresh, read after the write
        s = s + np.sum(v * y)
    return s


def list_append(x, w):
    hs = []
    h = x.copy()
    for i in range(4):
        h = np.tanh(h * w)
        hs.append(h * h)
    total = 0.0
    for i in range(4):
        total = total + np.sum(hs[i] * np.cos(hs[i]))
    return total


def _cell(h, w):
    return np.tanh(h * w) * h


def helper_in_body(x, w):
    h = x.copy()
    for i in range(4):
        h = _cell(h, w) + 0.1
    return np.sum(h)


def with_break(x, w):
    s = 0.0
    h = x.copy()
    for i in range(10):
        h = np.sin(h * w) + 0.5
        s = s + np.sum(h * h)
        if s > 6.0:
            break
    return s


def nested_tanh(x, w):
    """An inner loop whose rule reads its result (tanh) and an outer one with exp."""
    h = x.copy()
    s = 0.0
    for t in range(3):
        g = h * w
        for i in range(2):
            h = np.tanh(h * g + i)
        s = s + np.sum(np.exp(h) * g)
    return s


def nested_in_place(x, w):
    """Layers in an inner loop that write their state in place, as the LSTM benchmark's do."""
    state = np.zeros((4, x.shape[0]))
    state[0] = x
    s = 0.0
    for t in range(3):
        h = x * w + 0.1 * t
        for i in range(2):
            c = state[2 * i + 1]
            c2 = c * 0.5 + np.tanh(state[2 * i] * w + h)
            state[2 * i + 1] = c2
            h = np.sin(c2) * w
            state[2 * i] = h
        s = s + np.sum(h * h)
    return s


PROGRAMS = [for_tanh, while_euler, scalar_reads, nested, branch_in_body, in_place_write, written_row,
            list_append, helper_in_body, with_break, nested_tanh, nested_in_place]
