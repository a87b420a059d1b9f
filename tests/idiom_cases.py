"""NumPy and Python as people write it: list()/tuple()/dict(), sums of lists of arrays,
literals indexed at run time, np.r_/np.c_, *args, functools.reduce and operator functions
(sstad reads this source; tests/test_idioms.py runs it)."""
import functools
import operator
from functools import reduce

import numpy as np


# --- list(), tuple(), dict() -------------------------------------------------------
def list_of_tuple(x):
    t = (x, 2.0 * x, x * x)
    items = list(t)
    return np.sum(items[0] + items[1] * items[2])


def tuple_of_list(x):
    a, b = tuple([x, np.sin(x)])
    return np.sum(a * b)


def list_of_static_range(x):
    s = 0.0
    for k in list(range(3)):
        s = s + x[k] * (k + 1)
    return s * len(list(range(4)))


def list_of_runtime_range(x):
    ks = list(range(x.shape[0]))
    s = 0.0
    for k in ks:
        s = s + x[k] * k
    return s + len(ks)


def list_of_array_rows(X):
    rows = list(X)
    return np.sum(np.stack(rows) ** 2) + np.sum(rows[1] * rows[0])


def copied_list_grows_alone(x, y):
    first = [x, y]
    second = list(first)
    second.append(x * y)
    return np.sum(np.stack(second) ** 2) + np.sum(first[0] * len(first))


def list_of_enumerate_and_zip(x, y):
    s = 0.0
    for k, v in list(enumerate((x, y))):
        s = s + (k + 1) * np.sum(v)
    for a, b in list(zip((x, y), (y, x))):
        s = s + np.sum(a * b)
    return s


def dict_of_keywords(w, b):
    p = dict(w=w, b=b)
    return np.sum(np.tanh(p["w"] * 2.0 + p["b"]))


def dict_of_pairs(w, b):
    p = dict([("w", w), ("b", b)])
    q = dict(zip(("w", "b"), (b, w)))
    r = dict(p, c=w * b)
    return np.sum(p["w"] * q["w"] + r["c"] + len(list(r)))


# --- sums of lists of arrays --------------------------------------------------------
def np_sum_of_literal(a, b):
    return np.sum([a, b * b])


def np_sum_of_literal_axis0(a, b, c):
    return np.sum(np.sum([a, b, c], axis=0) * a)


def sum_of_literal(a, b, c):
    return np.sum(sum([a, b * c, c]) ** 2)


def np_mean_and_max_of_literals(a, b):
    return np.sum(np.mean([a, b], axis=0) ** 2) + np.max([np.sum(a), np.sum(b) + 10.0])


def np_sum_of_appended(w, xs):
    hs = []
    for t in range(xs.shape[0]):
        hs.append(np.tanh(w * xs[t]))
    return np.sum(hs) + np.sum(np.sum(hs, axis=0) * xs[0])


def sum_of_appended(w, xs):
    hs = []
    for t in range(xs.shape[0]):
        hs.append(np.tanh(w * xs[t]))
    return np.sum(sum(hs) * xs[1]) + np.sum(sum(hs, 1.0))


def np_sum_of_appended_scalars(w, xs):
    vals = []
    for t in range(xs.shape[0]):
        vals.append(np.sum(w * xs[t]) ** 2)
    return np.sum(vals) + np.mean(vals)


# --- a literal indexed by a run-time integer --------------------------------------
def layers_in_a_loop(x, W1, W2, W3):
    layers = [W1, W2, W3]
    h = x
    for i in range(len(layers)):
        h = np.tanh(layers[i] @ h)
    return np.sum(h)


def layer_pairs_in_a_loop(x, W1, b1, W2, b2):
    layers = [(W1, b1), (W2, b2)]
    h = x
    for i in range(2):
        W, b = layers[i]
        h = np.tanh(W @ h + b)
    return np.sum(h * h)


def negative_runtime_index(a, b, c):
    s = 0.0
    for i in range(3):
        s = s + np.sum([a, b, c][i - 3] * (i + 1.0)) + np.sum((a, b, c)[-i] ** 2)
    return s


def scalars_indexed_at_run_time(s, x):
    total = 0.0
    for i in range(4):
        total = total + [1, s, 2.0 * s, s * s][i] * x[i]
    return total


def indexed_by_an_argument(x, k):
    return np.sum([x, 2.0 * x, x * x, np.sin(x), np.exp(x)][k])


def many_items_indexed(x):
    items = [x * (j + 1.0) for j in list(range(9))]      # a list literal of 9 arrays
    s = 0.0
    for i in range(9):
        s = s + np.sum(items[i] ** 2) * i
    return s


# --- np.r_ and np.c_ -----------------------------------------------------------------
def r_of_arrays_and_numbers(a, b, s):
    v = np.r_[a, b, 1.0, s]
    return np.sum(v ** 2 * np.arange(v.shape[0]))


def r_with_ranges(a):
    v = np.r_[a, 0:3, 0.0:1.0:3j]
    return np.sum(np.sin(v) * v)


def c_of_columns(a, b, w):
    M = np.c_[a, b, a * b]
    return np.sum(np.tanh(M @ w))


def c_of_matrix_and_column(A, b):
    return np.sum(np.c_[A, b] ** 2 * np.r_[1.0, 2.0, 3.0])


# --- *args, **kwargs, f(*xs), f(**d) ----------------------------------------------------
def poly(x, *coefs):
    s = 0.0
    for k, c in enumerate(coefs):
        s = s + c * x ** k
    return s + coefs[-1] * len(coefs)


def weighted(*xs, scale=1.0, **extra):
    s = 0.0
    for v in xs:
        s = s + np.sum(v * v)
    return scale * s + extra.get("bias", 0.0)


def star_arguments(x, a, b):
    coefs = (a, b, a * b)
    return np.sum(poly(x, *coefs)) + np.sum(poly(x, a, *[b, 1.0]))


def star_keywords(x, y):
    options = {"scale": 2.0, "bias": np.sum(y)}
    return weighted(x, y, **options) + weighted(*(x, x), bias=1.0)


def star_lambda(a, b):
    product = lambda *t: t[0] * t[len(t) - 1]    # noqa: E731
    return np.sum(product(a, b, a)) + np.sum(product(b, a))


def star_entry(*xs):
    return np.sum(xs[0] * xs[1]) + len(xs)


# --- functools.reduce and operator functions -------------------------------------------------
def mix(acc, v):
    return acc * 0.5 + np.tanh(v)


def reduce_with_operators(a, b, c, A, B):
    total = functools.reduce(operator.add, [a, b, c])
    product = reduce(operator.mul, (a, b, c), 1.0)
    chain = reduce(operator.matmul, [A, B, A])
    return np.sum(total * product) + np.sum(chain)


def reduce_with_functions(a, b, c):
    folded = reduce(lambda acc, v: acc * v + 1.0, (a, b, c), 0.5)
    mixed = reduce(mix, [a, b, c])
    added = reduce(np.add, [a, b])
    return np.sum(folded) + np.sum(mixed) + np.sum(added)


def reduce_over_range(x):
    return reduce(lambda acc, k: acc + x[k] * (k + 1), range(3), 0.0)


def reduce_over_rows(X, v):
    return np.sum(reduce(lambda acc, row: np.tanh(acc + row * v), X, np.zeros(X.shape[1])))


def operator_functions(a, b, A):
    s = operator.sub(operator.mul(a, b), operator.truediv(a, 2.0))
    s = operator.add(s, operator.neg(operator.pow(b, 2)))
    m = operator.matmul(A, operator.getitem(A, 0))
    return np.sum(s) + np.sum(m) + operator.getitem(A, (1, 0)) + operator.getitem((a, b), 1)[0]


# --- refused, with a clear error ----------------------------------------------------------
def tuple_of_array(x):
    return tuple(x)    # ERR tuple


def mixed_items_at_run_time(x, A):
    s = 0.0
    for i in range(2):
        s = s + np.sum([x, A][i])    # ERR mixed
    return s


def reduce_over_array_without_initial(x):
    return reduce(operator.add, x)    # ERR reduce


def star_of_runtime_list(x):
    items = []
    items.append(x)
    return np.sum(poly(x, *items))    # ERR star


def recursive_star(x, *rest):
    if len(rest) == 0:
        return x
    return recursive_star(x * 2.0)    # ERR recursive


def r_of_mixed_ranks(a, A):
    return np.r_[a, A]    # ERR ranks
