"""One function per construct sstad rejects; the offending line carries the marker ``# ERR``.

``test_errors.py`` compiles and calls each function and expects an ``SstadError`` that points
at a marked line. Where two lines are equally fair places to point (a loop and its ``else:``,
a ``global`` declaration and the write it enables), both carry the marker.

>>> sorted(ERROR_CASES)[:2]
['async_scale', 'class_in_body']
"""

import numpy as np

ERROR_CASES = {}

X = np.array([1.0, -2.0, 3.0])
LAST_TOTAL = 0.0


def error_case(*args):
    """Register the decorated function, to be called with ``args``."""

    def register(fn):
        ERROR_CASES[fn.__name__] = (fn, args)
        return fn

    return register


@error_case(X)
def try_except(x):
    try:  # ERR
        y = x * 2.0
    except ValueError:
        y = x
    return y


@error_case(X)
def with_block(x):
    with np.printoptions(precision=3):  # ERR
        y = x / 2.0
    return y


@error_case(X)
def generator(x):
    for v in x:
        yield 2.0 * v  # ERR


@error_case(X)
async def async_scale(x):  # ERR
    return 2.0 * x


@error_case(X)
def global_write(x):
    global LAST_TOTAL  # ERR
    LAST_TOTAL = x.sum()  # ERR
    return x


@error_case(X)
def nonlocal_write(x):
    total = 0.0

    def add(v):
        nonlocal total  # ERR
        total = total + v  # ERR

    add(x.sum())
    return total


@error_case(X)
def class_in_body(x):
    class Point:  # ERR
        pass

    return x


@error_case(X)
def positional_only_signature(x, /):  # ERR
    return 2.0 * x


@error_case(X, X)
def star_args_in_recursion(x, *rest):
    if len(rest) == 0:
        return x
    return star_args_in_recursion(*rest)  # ERR


def _add(a, b):
    return a + b


@error_case(X)
def star_call_of_runtime_list(x):
    parts = []
    parts.append(x)
    return _add(*parts)  # ERR


@error_case(X)
def delete_name(x):
    y = 2.0 * x
    del y  # ERR
    return x


@error_case(X)
def walrus(x):
    if (n := x.size) > 2:  # ERR
        return x * n
    return x


@error_case(X)
def import_in_body(x):
    import math  # ERR

    return x * math.pi


@error_case(X)
def set_literal(x):
    s = {1.0, 2.0}  # ERR
    return x * len(s)


@error_case(X)
def set_comprehension(x):
    s = {i % 2 for i in range(4)}  # ERR
    return x * len(s)


@error_case(X)
def while_else(x):
    i = 0
    while i < x.size:  # ERR
        if x[i] < 0:
            break
        i += 1
    else:  # ERR
        i = -1
    return i


@error_case(X)
def for_else(x):
    found = -1
    for i in range(x.size):  # ERR
        if x[i] < 0:
            found = i
            break
    else:  # ERR
        found = x.size
    return found


@error_case(X)
def f_string(x):
    label = f"total={x.sum()}"  # ERR
    return x * len(label)
