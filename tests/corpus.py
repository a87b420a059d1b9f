"""Plain NumPy programs that sstad must compile, each with a strategy for its arguments.

Every entry is ordinary Python: the tests run it unchanged for the expected result and compare
what sstad compiles from its source. The ``# covers:`` comment on each function names the
constructs it exercises. Drawn inputs keep every program in its safe domain: no warnings, no
NaN, no exceptions, and float magnitudes are either exactly zero or at least 2**-10 so that
nothing underflows into a division.

>>> fn, arguments = CORPUS["saxpy"]
>>> fn(np.ones(2), 2.0)
array([3., 3.])
"""

import math
from math import sqrt

import numpy as np
import numpy as xp
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy import cos, sin

CORPUS = {}

TINY = 2.0**-10  # smallest nonzero magnitude drawn; exactly representable in float32 too


def _register(arguments, name):
    def register(fn):
        CORPUS[name or fn.__name__] = (fn, arguments)
        return fn

    return register


def case(*arg_strategies, name=None):
    """Register a corpus function whose arguments are drawn independently, e.g.
    ``@case(arrays(1), floats())`` above ``def saxpy(x, a)``."""
    return _register(st.tuples(*arg_strategies), name)


def case_sized(build, dims=1, lo=1, hi=5, name=None):
    """Register a corpus function whose arguments share sizes: ``build(*sizes)`` returns the
    strategy for the whole argument tuple, with ``dims`` sizes each drawn from [lo, hi], e.g.
    ``@case_sized(lambda n: st.tuples(vec(n), vec(n)))`` above ``def zip_dot(x, y)``."""
    sizes = st.tuples(*[st.integers(lo, hi)] * dims)
    return _register(sizes.flatmap(lambda s: build(*s)), name)


def floats(lo=-3.0, hi=3.0, width=64):
    """Finite floats in [lo, hi], never tiny: zero or at least TINY in magnitude."""
    plain = lambda a, b: st.floats(a, b, allow_nan=False, allow_infinity=False, allow_subnormal=False, width=width)
    if lo < 0.0 < hi:
        return st.one_of(st.just(0.0), plain(TINY, hi), plain(lo, -TINY))
    return plain(lo, hi)


def positive(lo=0.5, hi=3.0):
    return floats(lo, hi)


def ints(lo, hi):
    return st.integers(lo, hi)


def _elements(dtype, lo, hi):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return floats(lo, hi, width=8 * dtype.itemsize)
    return st.integers(int(lo), int(hi))


def arrays(ndim, dtype=np.float64, min_side=1, max_side=5, lo=-3.0, hi=3.0):
    """Arrays of any shape with ``ndim`` axes of length in [min_side, max_side]."""
    shapes = hnp.array_shapes(min_dims=ndim, max_dims=ndim, min_side=min_side, max_side=max_side)
    return hnp.arrays(dtype, shapes, elements=_elements(dtype, lo, hi))


def vec(n, dtype=np.float64, lo=-3.0, hi=3.0):
    return hnp.arrays(dtype, (n,), elements=_elements(dtype, lo, hi))


def mat(n, m, dtype=np.float64, lo=-3.0, hi=3.0):
    return hnp.arrays(dtype, (n, m), elements=_elements(dtype, lo, hi))


# ---------------------------------------------------------------- assignment and arithmetic


@case(arrays(1), floats())
def saxpy(x, a):
    # covers: array-scalar arithmetic, float argument
    return a * x + 1.0


@case(floats(), positive())
def scalar_arith(a, b):
    # covers: + - * / // % ** on scalars, unary -, unary +, abs builtin
    q = a / b
    f = a // b
    r = a % b
    p = abs(a) ** 1.5
    return q + f - r * p + (-a) * (+b)


@case_sized(lambda n: st.tuples(vec(n), vec(n, lo=0.5, hi=3.0)))
def array_arith(x, y):
    # covers: + - * / // % ** on arrays, unary -, unary +
    return x // y + x % y - y**2 + (-x) / y + (+y) * x**3


@case(ints(-50, 50), ints(1, 7))
def int_arith(m, n):
    # covers: int arguments, // % ** on ints, ==, returning a tuple of (bool, int)
    q = m // n
    r = m % n
    p = n**3
    return q * n + r == m, p - q


@case(floats(), floats())
def swap_and_unpack(a, b):
    # covers: swap a, b = b, a; nested tuple unpacking; returning a tuple
    a, b = b, a
    c, (d, e) = a + b, (a - b, a * b)
    return a, b, c + d * e


@case(arrays(1, min_side=3))
def rotate_three(x):
    # covers: tuple unpacking from subscripts, three-way swap, negative index
    p, q, r = x[0], x[1], x[-1]
    p, q, r = q, r, p
    return p - 2.0 * q + 3.0 * r


@case(floats(), ints(0, 30))
def augassign_scalars(a, n):
    # covers: augmented assignment on scalars (+= -= *= /= //= %= **=) on floats and ints
    s = 0.0
    s += a
    s *= 2.0
    s -= 1.0
    s /= 4.0
    s **= 2
    k = n
    k //= 2
    k %= 3
    k **= 2
    return s, k


@case(arrays(1))
def alias_augassign(a):
    # covers: aliasing, augmented assignment on arrays mutates in place through an alias, x.copy()
    x = a.copy()
    y = x
    y += 1.0
    y *= 2.0
    return x


@case_sized(lambda n: st.tuples(vec(n), vec(n)))
def augassign_mutates_argument(x, y):
    # covers: augmented assignment on arrays mutating an argument, returning the argument
    x += y
    x *= 0.5
    return x


@case(arrays(2))
def rebind_is_not_mutation(x):
    # covers: aliasing, rebinding with a binary op leaves the alias untouched, returning an argument
    y = x
    y = y + 1.0
    return x, y


# ---------------------------------------------------------------- comparisons and booleans


@case(floats(), st.one_of(floats(), st.just(0.0), st.just(1.0)))
def compare_ops(a, b):
    # covers: < <= > >= == !=, returning a tuple of bools
    return a < b, a <= b, a > b, a >= b, a == b, a != b


@case(floats(), floats())
def bool_logic(a, b):
    # covers: and, or, not, bool-ish arithmetic (bool + bool)
    p = a > 0 and b > 0
    q = a > 0 or b < -1.0
    r = not p
    return (p or r) and not q, p + q + r


@case(arrays(1))
def chained_compare(x):
    # covers: chained comparisons 0 < v < 1, for over a 1-D array's elements, if without else, or
    inside = 0
    edge = 0
    for v in x:
        if 0.0 < v < 1.0:
            inside += 1
        if -1.0 <= v <= 0.0 < 1.0 or v >= 2.5:
            edge += 1
    return inside, edge


@case(floats(), floats())
def conditional_expression(a, b):
    # covers: conditional expression a if c else b, nested in arithmetic
    m = a if a > b else b
    s = 1.0 if m > 0 else -1.0
    return s * m + (0.5 if a == b else 0.0)


# ---------------------------------------------------------------- if / elif / else


@case(floats())
def clamp_scalar(v):
    # covers: if/elif/else assigning a variable
    if v < -1.0:
        r = -1.0
    elif v > 1.0:
        r = 1.0
    else:
        r = v
    return r


@case(arrays(1, max_side=6))
def sign_of_sum(x):
    # covers: if/elif/else on a data value x.sum(), multiple returns in if/else
    if x.sum() > 0:
        return 1.0
    elif x.sum() < 0:
        return -1.0
    else:
        return 0.0


@case(arrays(2))
def nested_if(A):
    # covers: nested if/else on data, x.max(), x.min(), A[i, j]
    top = A.max()
    if A[0, 0] > 0:
        if top > 2.0:
            out = A[0, 0] * top
        else:
            out = A[0, 0]
    else:
        if A.min() < -2.0:
            out = -A[0, 0]
        else:
            out = 0.0
    return out


@case(arrays(1))
def flip_if_negative(x):
    # covers: if without else rebinding an array
    y = x * 2.0
    if x[0] < 0:
        y = -y
    return y


# ---------------------------------------------------------------- while


@case(positive(0.5, 9.0))
def newton_sqrt(a):
    # covers: while with data-dependent condition (Newton's method), and in a condition, iteration count
    x = a
    it = 0
    while abs(x * x - a) > 1e-12 and it < 50:
        x = 0.5 * (x + a / x)
        it += 1
    return x, it


@case(ints(1, 300))
def collatz_steps(n):
    # covers: while with data-dependent condition on ints and a max-iteration guard, != , rebinding an argument
    steps = 0
    while n != 1 and steps < 500:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@case(arrays(1))
def first_above_while(x):
    # covers: return inside a while, x.shape[0]
    i = 0
    while i < x.shape[0]:
        if x[i] > 2.0:
            return i
        i += 1
    return -1


@case(positive(1.0, 1000.0))
def doublings_until_above(a):
    # covers: while True with break inside an if
    v = 1.0
    k = 0
    while True:
        v *= 2.0
        k += 1
        if v > a:
            break
    return k


# ---------------------------------------------------------------- for


@case(ints(0, 8))
def range_forms(n):
    # covers: range(n), range(a, b), range(a, b, step), negative step, int arithmetic in loops
    a = 0
    for i in range(n):
        a += i
    b = 0
    for i in range(2, n):
        b += i * i
    c = 0
    for i in range(1, n, 2):
        c += i
    d = 0.0
    for i in range(n, 0, -1):
        d = d * 0.5 + i
    e = 0
    for i in range(n - 1, -1, -2):
        e = 10 * e + i
    return a, b, c, d, e


@case(arrays(1))
def cumulative_sum(x):
    # covers: np.zeros(n), subscript write x[i] = v inside a loop, len
    out = np.zeros(len(x))
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


@case(arrays(1))
def prefix_sum_inplace(x):
    # covers: x[i] += v inside a loop on a copy (prefix sum), range(1, n)
    y = x.copy()
    for i in range(1, len(y)):
        y[i] += y[i - 1]
    return y


@case(arrays(1, max_side=6))
def bubble_sort(x):
    # covers: nested loops, swap through subscripts y[j], y[j + 1] = y[j + 1], y[j], writes on a copy
    y = x.copy()
    n = len(y)
    for i in range(n):
        for j in range(n - 1 - i):
            if y[j] > y[j + 1]:
                y[j], y[j + 1] = y[j + 1], y[j]
    return y


@case(arrays(2))
def row_spread(A):
    # covers: for over an array's rows, row.max(), row.min()
    total = 0.0
    for row in A:
        total += row.max() - row.min()
    return total


@case(arrays(1))
def leaky_accumulate(x):
    # covers: for over a 1-D array's elements, loop-carried scalar
    acc = 1.0
    for v in x:
        acc = acc * 0.5 + v
    return acc


@case(arrays(1))
def weighted_by_list(x):
    # covers: for over a list literal of floats
    total = 0.0
    for w in [0.5, 1.0, 2.0]:
        total += w * x.sum()
    return total


@case_sized(lambda n: st.tuples(vec(n), vec(n)))
def max_over_arrays(x, y):
    # covers: for over a list of arrays, x.max()
    total = 0.0
    for arr in [x, y, x * y]:
        total += arr.max()
    return total


@case(arrays(1))
def enumerate_weighted(x):
    # covers: enumerate over a 1-D array
    s = 0.0
    for i, v in enumerate(x):
        s += i * v
    return s


@case_sized(lambda n: st.tuples(vec(n), vec(n)))
def zip_dot(x, y):
    # covers: zip of two arrays
    s = 0.0
    for a, b in zip(x, y):
        s += a * b
    return s


@case(arrays(1))
def zip_list_coeffs(x):
    # covers: zip of a list and an array (stops at the shorter), list literal
    coeffs = [1.0, -2.0, 0.5]
    s = 0.0
    for c, v in zip(coeffs, x):
        s += c * v
    return s


@case(arrays(2))
def enumerate_rows(A):
    # covers: enumerate over an array's rows, np.zeros(n), x[i] = v
    out = np.zeros(A.shape[0])
    for i, row in enumerate(A):
        out[i] = row.sum() * (i + 1)
    return out


# ---------------------------------------------------------------- break / continue / early return


@case(arrays(1))
def find_first_negative(x):
    # covers: early return inside a for loop, returning an int
    for i in range(len(x)):
        if x[i] < 0:
            return i
    return -1


@case(arrays(1), floats())
def any_greater(x, t):
    # covers: early return of a bool inside a for over elements
    for v in x:
        if v > t:
            return True
    return False


@case(arrays(1))
def sum_until_threshold(x):
    # covers: for with break inside an if
    total = 0.0
    for v in x:
        if total > 3.0:
            break
        total += v
    return total


@case(arrays(1))
def sum_skipping_negatives(x):
    # covers: continue
    total = 0.0
    count = 0
    for v in x:
        if v < 0:
            continue
        total += v
        count += 1
    return total, count


@case(arrays(2))
def count_until_row_break(A):
    # covers: break in a nested (inner) loop, n, m = A.shape, A[i, j]
    n, m = A.shape
    count = 0
    for i in range(n):
        for j in range(m):
            if A[i, j] < -1.0:
                break
            count += 1
    return count


@case(arrays(2), floats())
def find_in_grid(A, t):
    # covers: break out of both nested loops via a flag, tuple assignment of ints
    fi, fj = -1, -1
    found = False
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] > t:
                fi, fj = i, j
                found = True
                break
        if found:
            break
    return fi, fj


@case(arrays(1))
def continue_and_break(x):
    # covers: continue and break in the same loop, not
    total = 0.0
    for i in range(len(x)):
        if not x[i] > -2.0:
            break
        if x[i] == 0.0:
            continue
        total += 1.0 / (1.0 + x[i] * x[i])
    return total


# ---------------------------------------------------------------- subscript reads


@case(arrays(1, min_side=3))
def reads_1d(x):
    # covers: subscripts with int, negative int, slices x[1:-1], x[::2], x[::-1]
    return x[0] + x[-1] + x[1:-1].sum() + x[::2].sum() - x[::-1][0] + x[-2]


@case(arrays(1, min_side=2))
def strided_views(x):
    # covers: slices with steps returning arrays (possibly empty), returning a tuple of arrays
    return x[::-1], x[::2] * 2.0, x[1:-1], x[1::2] - x[-1]


@case(arrays(2, min_side=2))
def block_slices(A):
    # covers: 2-D tuple-of-slices subscripts A[1:, :2], A[:, 0], A[i, j], A[-1, :]
    return A[1:, :2] * A[0, 0], A[:, 0] + A[:, -1], A[-1, :].sum() - A[1, 1]


@case_sized(lambda n: st.tuples(vec(n), hnp.arrays(np.int64, st.integers(1, 6), elements=st.integers(0, n - 1))))
def gather(x, idx):
    # covers: integer-array indexing x[idx]
    return x[idx] * 2.0, x[idx].sum()


@case(arrays(1))
def mean_of_positives(x):
    # covers: boolean-mask indexing x[x > 0] (possibly empty), .size, multiple returns
    pos = x[x > 0.0]
    if pos.size > 0:
        return pos.sum() / pos.size
    return 0.0


# ---------------------------------------------------------------- subscript writes and aliasing


@case(arrays(1))
def relu_copy(x):
    # covers: mask write x[x < 0] = 0.0 on a copy
    y = x.copy()
    y[y < 0] = 0.0
    return y


@case(arrays(1, min_side=3))
def scatter_writes(x):
    # covers: x[i] = v, x[-1] += v, slice write x[1:3] = 0.0 on a copy
    y = x.copy()
    y[0] = 5.0
    y[-1] += 2.0
    y[1:3] = 0.0
    return y


@case(arrays(2))
def matrix_writes(A):
    # covers: A[i, j] = v in nested loops, np.zeros((n, m)), row slice write, column slice +=
    n, m = A.shape
    B = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            B[i, j] = A[i, j] * (i - j)
    B[0, :] = 1.0
    B[:, -1] += A[:, 0]
    return B


@case(arrays(1))
def alias_write(a):
    # covers: aliasing, y = x; y[0] = 5.0 is visible through x
    x = a.copy()
    y = x
    y[0] = 5.0
    return x


@case(arrays(2))
def zero_first_row_inplace(A):
    # covers: writes mutating an argument (row slice write, column slice *=), returning the argument
    A[0, :] = 0.0
    A[:, 0] *= 2.0
    return A


# ---------------------------------------------------------------- array attributes and methods


@case(arrays(2))
def shape_attrs(A):
    # covers: n, m = A.shape, x.size, x.ndim, x.T.shape, float() and int results
    n, m = A.shape
    return n * m == A.size, A.ndim, float(n) / m, A.T.shape[0]


@case(arrays(2))
def reductions(A):
    # covers: x.sum(), x.sum(axis=0), x.sum(axis=1, keepdims=True), x.mean(), x.max(), x.min(), np.sum(x, axis=0)
    return A.sum(), A.sum(axis=0), A.sum(axis=1, keepdims=True), A.mean(), A.max() - A.min(), np.sum(A, axis=0)


@case(arrays(2))
def normalize_rows(A):
    # covers: np.abs, sum(axis=1, keepdims=True), broadcasting division
    return A / (np.abs(A).sum(axis=1, keepdims=True) + 1.0)


@case(arrays(2))
def reshape_transpose(A):
    # covers: x.reshape(-1), x.reshape((m, n)), x.T, .size
    v = A.reshape(-1)
    B = v.reshape((A.shape[1], A.shape[0]))
    return B.T + A, v.size


@case_sized(lambda n: st.tuples(vec(n), vec(n)))
def dot_forms(x, y):
    # covers: x.dot(y), np.dot, the @ operator
    return x.dot(y), np.dot(x, y) - x @ y


@case(arrays(2))
def covariance(X):
    # covers: np.mean(x, axis=0), x.T @ x, division by an int from shape
    Xc = X - np.mean(X, axis=0)
    return Xc.T @ Xc / X.shape[0]


@case(arrays(1, dtype=np.float32))
def astype_f32_to_f64(x):
    # covers: float32 array argument, x.astype(np.float64), x.copy(), write on the copy
    y = x.astype(np.float64)
    z = y.copy()
    z[0] = -1.0
    return y * 2.0, z


@case(arrays(2, dtype=np.float32))
def float32_poly(x):
    # covers: float32 array arithmetic with Python floats, np.tanh on float32, .sum()
    return x * x - 2.0 * x + 1.0, np.tanh(x).sum()


# ---------------------------------------------------------------- NumPy, math and builtins


@case(arrays(1))
def ufuncs(x):
    # covers: np.exp, np.sin, np.cos, np.tanh, np.sqrt, np.abs, np.log
    return np.exp(x) + np.sin(x) * np.cos(x) - np.tanh(x) + np.sqrt(np.abs(x)) + np.log(1.0 + x * x)


@case(floats())
def math_scalars(a):
    # covers: math.sin, math.cos, math.sqrt, math.exp, math.pi
    return math.sin(a) + math.sqrt(abs(a) + 1.0) * math.exp(-a * a) + math.pi * math.cos(a)


@case(arrays(1))
def aliased_imports(x):
    # covers: import numpy as xp (xp.sin, xp.pi), from numpy import sin, cos used bare, from math import sqrt
    return xp.sin(x) + sin(x) * cos(x) + sqrt(2.0) * xp.pi


@case(arrays(1), ints(1, 10))
def builtins_mix(x, n):
    # covers: len, abs, min and max of two scalars, sum of a list, float(), int()
    k = len(x)
    lo = min(x[0], x[-1])
    hi = max(x[0], x[-1])
    total = sum([abs(lo), abs(hi), float(n)])
    return total / k + int(x[0] * 10.0) - int(n / 3)


@case(arrays(1), positive(0.1, 2.0))
def soft_threshold(x, lam):
    # covers: np.sign, np.maximum, np.minimum, np.where (nested), np.clip
    a = np.sign(x) * np.maximum(np.abs(x) - lam, 0.0)
    b = np.where(x > lam, x - lam, np.where(x < -lam, x + lam, 0.0))
    c = np.clip(x, -lam, lam) + np.minimum(x, 0.0)
    return a, b, c


@case_sized(lambda n: st.tuples(vec(n), vec(n)))
def concat_stack(x, y):
    # covers: np.concatenate of a tuple, np.stack of a tuple and of a list with axis keyword
    return np.concatenate((x, y)), np.stack((x, y)), np.stack([x, y], axis=1)


@case(ints(1, 6))
def outer_grid(n):
    # covers: np.arange(n), np.arange(a, b), np.linspace, np.outer, int-to-float promotion
    return np.outer(np.arange(n), np.linspace(0.0, 1.0, n)) + np.arange(1, n + 1)


@case(arrays(1), ints(-10, 10))
def int_index_arg(x, k):
    # covers: scalar int argument used as an index, bool-ish arithmetic (bool * float), int(bool)
    return x[k % len(x)] * k + (k > 2) * 1.5 + int(k < 0)


@case(arrays(1))
def sign_changes(x):
    # covers: comparing bools with !=, counting in a loop
    changes = 0
    for i in range(1, len(x)):
        if (x[i] > 0) != (x[i - 1] > 0):
            changes += 1
    return changes


@case(arrays(1))
def l2_normalize(x):
    # covers: np.sqrt(np.dot(x, x)), np.zeros_like, multiple returns of arrays
    nrm = np.sqrt(np.dot(x, x))
    if nrm > 0.0:
        return x / nrm
    return np.zeros_like(x)


@case(arrays(2))
def ones_and_zeros_like(A):
    # covers: np.ones_like, np.zeros_like, np.ones((n, m)), A[i, j] writes on fresh arrays
    B = np.ones_like(A)
    C = np.zeros_like(A)
    C[0, 0] = A[0, 0]
    return B * A + C + np.ones((A.shape[0], A.shape[1]))


# ---------------------------------------------------------------- literals and comprehensions


@case_sized(lambda n: st.tuples(vec(n), vec(n)))
def dict_literal(x, y):
    # covers: dict literal with string keys, dict subscript reads
    d = {"a": x, "b": y}
    return d["a"] * d["b"]


@case(arrays(1))
def tuple_and_list_literals(x):
    # covers: tuple literal of arrays, list literal of scalars, subscripting both, negative list index
    t = (x, 2.0 * x)
    stats = [x.sum(), x.max(), 1.0]
    return t[0] + t[1] * stats[0], stats[-1] - stats[1]


@case(arrays(1))
def list_comprehension(x):
    # covers: list comprehension over range(n), sum of a list, np.array of a list
    sq = [x[i] ** 2 for i in range(len(x))]
    return sum(sq), np.array(sq)


@case(arrays(1))
def filtered_comprehension(x):
    # covers: list comprehension with an if filter (possibly empty), for over a list, len of a list
    vals = [2.0 * v for v in x if v > 0.0]
    total = 0.0
    for v in vals:
        total += v
    return total, len(vals)


@case(arrays(1))
def append_loop(x):
    # covers: building a list with .append in a loop with if/else, np.array of the list
    out = []
    for v in x:
        if v > 0:
            out.append(v * v)
        else:
            out.append(-v)
    return np.array(out)


# ---------------------------------------------------------------- user functions


def _bump(v):
    # covers: the innermost helper (h) of a call chain, used on arrays and on scalars
    return v * v + 1.0


def _twice_bump(v):
    # covers: a helper calling another helper (g)
    return 2.0 * _bump(v) - _bump(-v)


@case(arrays(1))
def transitive_calls(x):
    # covers: calls to module-level user functions, transitively f -> g -> h
    return _twice_bump(x).sum() + _bump(x[0])


@case(floats(-2.0, 2.0), ints(0, 12))
def recursive_power(x, n):
    # covers: recursion (base case first), multiple returns, int // and %
    if n == 0:
        return 1.0
    half = recursive_power(x, n // 2)
    if n % 2 == 0:
        return half * half
    return half * half * x


def _factorial(k):
    # covers: recursive helper on ints with a float accumulator
    if k <= 1:
        return 1.0
    return k * _factorial(k - 1)


@case(floats(), ints(0, 15))
def exp_series(a, n):
    # covers: calling a recursive helper in a loop, float ** int
    total = 0.0
    for k in range(n + 1):
        total += a**k / _factorial(k)
    return total


@case(arrays(1))
def nested_def(x):
    # covers: nested def inside the function, called twice
    def square(v):
        return v * v

    return square(x).sum() + square(x[::-1]).max()


@case(arrays(1), floats())
def closure_reads(x, c):
    # covers: closure reading variables of the enclosing function
    scale = 2.0 * c

    def f(v):
        return scale * v + c

    return f(x) + f(x[::-1])


@case(arrays(1), floats())
def lambda_call(x, a):
    # covers: lambda assigned to a name and called, lambda closing over an argument
    g = lambda v: a * v * v - 1.0
    return g(x) + g(x * 2.0)


def make_affine(w, b):
    def affine(x):
        # covers: closure produced by a module-level factory (free variables w, b in closure cells)
        return w * x + b

    return affine


case(arrays(1), name="affine_closure")(make_affine(1.5, -0.25))


# ---------------------------------------------------------------- pytree arguments


@case_sized(lambda n, m: st.tuples(st.tuples(mat(m, n), vec(m)), vec(n)), dims=2)
def pytree_tuple_affine(params, x):
    # covers: tuple-of-arrays argument (W, b) unpacked, @, np.tanh
    W, b = params
    return np.tanh(W @ x + b)


@case_sized(lambda n, m: st.tuples(st.fixed_dictionaries({"W": mat(m, n), "b": vec(m)}), vec(n)), dims=2)
def pytree_dict_affine(params, x):
    # covers: dict argument {"W": W, "b": b}, dict subscript reads, x.dot(y) on a matrix
    return params["W"].dot(x) + params["b"]


def _mlp_args(n, h, k):
    layers = st.tuples(st.tuples(mat(h, n), vec(h)), st.tuples(mat(k, h), vec(k)))
    return st.tuples(layers, vec(n))


@case_sized(_mlp_args, dims=3)
def mlp_forward(params, x):
    # covers: tiny MLP forward with tanh, nested tuple pytree argument, nested tuple unpacking
    (W1, b1), (W2, b2) = params
    h = np.tanh(W1 @ x + b1)
    return W2 @ h + b2


@case(arrays(1, dtype=np.float32, max_side=6), name="softmax_f32")
@case(arrays(1))
def softmax(x):
    # covers: softmax with max-subtraction, np.exp, float32 input (softmax_f32)
    z = x - x.max()
    e = np.exp(z)
    return e / e.sum()


@case_sized(_mlp_args, dims=3)
def mlp_softmax(params, x):
    # covers: calls to other corpus functions with pytree arguments
    return softmax(mlp_forward(params, x))


# ---------------------------------------------------------------- small realistic programs


@case(arrays(1))
def logsumexp(x):
    # covers: logsumexp with max shift, np.log, np.exp
    m = x.max()
    return m + np.log(np.exp(x - m).sum())


@case(arrays(1), floats(-2.0, 2.0))
def horner(coeffs, t):
    # covers: Horner polynomial evaluation over an array's elements
    acc = 0.0
    for c in coeffs:
        acc = acc * t + c
    return acc


@case(arrays(1), arrays(1, lo=-2.0, hi=2.0))
def horner_vec(coeffs, t):
    # covers: Horner on an array of points, np.zeros_like as loop-carried array
    acc = np.zeros_like(t)
    for c in coeffs:
        acc = acc * t + c
    return acc


@case_sized(lambda n: st.tuples(mat(n, n)))
def power_iteration(B):
    # covers: power iteration for the top eigenvalue (fixed iterations), np.eye, np.ones, x.T, @, from math import sqrt
    n = B.shape[0]
    A = B @ B.T + np.eye(n)
    v = np.ones(n) / sqrt(n)
    for _ in range(25):
        w = A @ v
        v = w / np.sqrt(w @ w)
    return v @ (A @ v)


@case(positive(0.0, 20.0))
def bisection_cube_root(a):
    # covers: bisection root finding with while, tuple assignment, max of two scalars, if/else in a loop
    lo, hi = 0.0, max(1.0, a)
    it = 0
    while hi - lo > 1e-10 and it < 200:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid > a:
            hi = mid
        else:
            lo = mid
        it += 1
    return 0.5 * (lo + hi), it


@case_sized(lambda n: st.tuples(mat(n, n), vec(n)))
def gradient_descent(Q, b):
    # covers: gradient-descent loop on a quadratic, np.eye, @ chains, np.abs(...).sum()
    A = Q @ Q.T + np.eye(b.shape[0])
    lr = 1.0 / (np.abs(A).sum() + 1.0)
    x = np.zeros(b.shape[0])
    for _ in range(50):
        g = A @ x - b
        x = x - lr * g
    return x, 0.5 * x @ A @ x - b @ x


@case(arrays(2, min_side=3, max_side=6))
def jacobi_stencil(U):
    # covers: 2-D stencil (Jacobi iteration) with slice arithmetic and a 2-D slice write
    V = U.copy()
    for _ in range(5):
        V[1:-1, 1:-1] = 0.25 * (V[:-2, 1:-1] + V[2:, 1:-1] + V[1:-1, :-2] + V[1:-1, 2:])
    return V


@case_sized(lambda n, m: st.tuples(mat(n, m), vec(m)), dims=2)
def matvec_loops(A, x):
    # covers: matrix-vector product in an explicit double loop, A[i, j], x[j]
    n, m = A.shape
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j] * x[j]
        y[i] = s
    return y


@case(arrays(1), positive(0.01, 0.2))
def rk4(y0, h):
    # covers: RK4 integrator step loop, nested def taking two arguments, math.sin, augmented float
    def f(t, y):
        return -y + math.sin(t)

    y = y0.copy()
    t = 0.0
    for _ in range(10):
        k1 = f(t, y)
        k2 = f(t + 0.5 * h, y + 0.5 * h * k1)
        k3 = f(t + 0.5 * h, y + 0.5 * h * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        t += h
    return y


@case(positive(), floats(), floats())
def solve_quadratic(a, b, c):
    # covers: if/elif/else with tuple returns of (int, float, float), math.sqrt
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return 0, 0.0, 0.0
    elif disc == 0.0:
        r = -b / (2.0 * a)
        return 1, r, r
    else:
        s = math.sqrt(disc)
        return 2, (-b - s) / (2.0 * a), (-b + s) / (2.0 * a)


@case_sized(lambda n: st.tuples(vec(n), ints(1, n)), hi=6)
def moving_average(x, w):
    # covers: slices with variable bounds x[i:i + w], x.mean(), writes into a preallocated array
    n = len(x)
    out = np.zeros(n - w + 1)
    for i in range(n - w + 1):
        out[i] = x[i : i + w].mean()
    return out


@case_sized(lambda n: st.tuples(mat(n, n), ints(0, 4)))
def matrix_power_loop(A, k):
    # covers: loop count from an int argument (possibly zero trips), np.eye, rebinding a matrix in a loop
    scale = np.abs(A).max() + 1.0
    B = np.eye(A.shape[0])
    for _ in range(k):
        B = B @ A / scale
    return B


def _logistic_args(n, m):
    labels = hnp.arrays(np.float64, (n,), elements=st.sampled_from([-1.0, 1.0]))
    return st.tuples(vec(m), mat(n, m), labels)


@case_sized(_logistic_args, dims=2)
def logistic_loss(w, X, y):
    # covers: logistic regression loss, np.mean, np.log, np.exp, unary minus on arrays
    z = X @ w
    return np.mean(np.log(1.0 + np.exp(-y * z)))


@case(arrays(1), positive(0.1, 1.0))
def trapezoid(y, h):
    # covers: trapezoid rule in a loop, x[i + 1]
    total = 0.0
    for i in range(len(y) - 1):
        total += 0.5 * h * (y[i] + y[i + 1])
    return total
