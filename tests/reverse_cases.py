"""Programs for tests/test_reverse.py (sstad reads their source)."""
import numpy as np

W = np.array([[0.5, -1.0], [2.0, 0.25]])
b = np.array([0.1, -0.2])


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def nested_break(A, t):
    total = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] > t:
                break
            total = total + A[i, j] * A[i, j]
    return total


def early_return(x):
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            return x[i] * x[i] * 3.0
    return np.sum(x) * 2.0


def inplace_in_loop(x, w):
    y = x.copy()
    for i in range(1, y.shape[0]):
        y[i] += w * y[i - 1]
    return np.sum(y * y)


def augmented_arrays(x, v):
    a = x * 1.0
    a += v
    a *= x
    a -= 2.0 * v
    return np.sum(a * a)


def dict_params(params, x):
    h = np.tanh(params["W"] @ x + params["b"])
    return np.sum(h * h)


def tuple_params(wb, x):
    w, c = wb
    return np.sum((w * x + c) ** 2)


def two_args(x, y):
    return np.sum(x * np.sin(y))


def with_aux(x):
    loss = np.sum(x * x)
    return loss, x.shape[0]


def uses_globals(x):
    return np.sum(np.tanh(W @ x + b))


def not_scalar(x):
    return x * 2.0


def closure_and_lambda(x):
    scale = 3.0
    sq = lambda v: v * v * scale   # noqa: E731

    def inner(v):
        return sq(v) + scale * v
    return np.sum(inner(x))


def untaken_sqrt(x):
    if x > 0.0:
        y = np.sqrt(x)
    else:
        y = 0.0 * x
    return y


def abs_at_zero(x):
    return np.abs(x)


def max_tie(x, y):
    return np.maximum(x, y)


def float32_loss(x):
    return np.sum(x * x * 0.5)


def shared_cotangents(x, w):
    y = x + w * x          # d(y) reaches x twice through one rule
    s = 0.0
    for i in range(x.shape[0]):
        s = s + y[i] * x[i] + x[i]
    return s + np.sum(y)


def copy_by_identity(x):
    y = x * 1.0
    y += 1.0
    return np.sum(y * x) + np.sum(x)


def list_read_while_building(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] * x[i])
        if i > 0:
            out.append(out[i - 1] * x[i])
    return sum(out) + out[-1]


def weighted_sum(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + w * x[i]
    return s
