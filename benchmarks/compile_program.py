"""A generator of model-like functions of a given number of statements, for measuring how
compile time grows with a function's size (`compile_scaling.py`, `tests/test_compile_scaling.py`).

The generated ``objective(w, x, a)`` reads like hand-written model code: array statements
over earlier values (elementwise arithmetic, `tanh`/`exp`/`sin`, reductions), a branch
every few statements on a reduced value, and calls of two small helpers.  The same size
always gives the same text.
"""
import random
import textwrap

HELPERS = textwrap.dedent('''
    import numpy as np


    def soft_clip(v, limit):
        return limit * np.tanh(v / limit)


    def layer(v, w, bias):
        return np.tanh(v * w + bias)
''')


def _pick(rng, names, unused, recent):
    """An operand: the oldest value nothing reads yet (so no statement is dead code), else
    one of the ``recent`` latest."""
    for name in names:
        if name in unused:
            unused.discard(name)
            return name
    return rng.choice(names[-recent:])


def _statement(rng, k, arrays, scalars, unused):
    """One line binding ``h{k}`` (an array) or ``s{k}`` (a scalar); returns (lines, name)."""
    a, b = _pick(rng, arrays, unused, 6), rng.choice(arrays)
    s = _pick(rng, scalars, unused, 4)
    kind = k % 7
    if kind == 0:
        return [f"h{k} = layer({a}, w, {s})"], f"h{k}"
    if kind == 1:
        return [f"h{k} = {a} * {b} + 0.5 * x"], f"h{k}"
    if kind == 2:
        return [f"s{k} = np.sum({a} * {b}) / n"], f"s{k}"
    if kind == 3:
        return [f"if {s} > 0.0:",
                f"    h{k} = {a} - 0.1 * {b}",
                "else:",
                f"    h{k} = soft_clip({a}, 2.0) + {s}"], f"h{k}"
    if kind == 4:
        return [f"h{k} = np.exp(-{a} * {a}) * {b}"], f"h{k}"
    if kind == 5:
        return [f"s{k} = np.mean(np.sin({a})) + a * {s}"], f"s{k}"
    return [f"h{k} = np.maximum({a}, 0.0) + np.minimum({b}, 0.0) * a"], f"h{k}"


def program(statements, seed=0):
    """The source of a module whose ``objective`` has ``statements`` lines of model code."""
    rng = random.Random(seed)
    arrays, scalars, unused = ["x", "w"], ["a"], set()
    body = ["n = x.shape[0]"]
    for k in range(1, statements - 1):
        lines, name = _statement(rng, k, arrays, scalars, unused)
        body.extend(lines)
        (scalars if name.startswith("s") else arrays).append(name)
        unused.add(name)
    last = [v for v in arrays + scalars if v in unused]
    body.append("return " + " + ".join(f"np.sum({v})" if v.startswith("h") else v for v in last))
    return HELPERS + "\n\ndef objective(w, x, a):\n" + textwrap.indent("\n".join(body), "    ") + "\n"


if __name__ == "__main__":
    import sys
    print(program(int(sys.argv[1]) if len(sys.argv) > 1 else 30))
