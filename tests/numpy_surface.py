"""NumPy's surface as test cases: call forms drawn from NumPy's own signatures, not from sstad's rules.

For every NumPy function the rule table covers (``NUMPY_FUNCTIONS``, ``COMPOSITES`` and the
few functions the frontend lowers itself, see :func:`covered`), the generator reads
``inspect.signature`` (``ufunc.nin`` for ufuncs) and writes call forms:

* the base call (array arguments, required parameters at their first representative value);
* each non-array parameter, each representative value (``VALUES``: negative, tuple and None
  axes, keepdims, ``ord`` variants, offsets, shifts, axes...), in positional form (earlier
  parameters at their defaults) and in keyword form; the ndarray method where one exists;
* joint values of parameters that act together (``JOINT``: shift+axis, ord+axis...);
* every shape of the function's ``SPECS`` entry, leading batch dimensions included where
  NumPy accepts them (linalg on ``(B, n, n)`` with B == n too, matmul batched on one side).

A form NumPy itself rejects (``TypeError``/``ValueError`` on the drawn inputs) is dropped, so
the values lists may be generous.  Each case is a function ``loss(arrays..., w)``:
``np.sum(np.sin(f(...)) * w)`` with a fixed random ``w`` of the output's shape (integer and
boolean outputs: ``np.sum(np.sin(a)) + np.sum(f(...) * w)``; tuples: one term per item).
The sources are written to one module in a temporary directory (sstad reads source).

:func:`run_case` checks one case on one backend with ``sstad.testing.check_grads``: the
compiled value against NumPy, reverse mode and forward mode against central differences,
and classifies it: ``pass``; ``refused`` (an ``SstadError`` that names the case's line);
``wrong`` (a wrong value or derivative); ``crash`` (any other exception, a Numba
``BackendError`` included: sstad emitted code Numba cannot compile).  ``XFAIL`` lists the
cases that are wrong or crash today (strict xfails in tests/test_numpy_surface.py).

``python tests/numpy_surface.py [--backend numba] [--slice numba]`` prints the outcome of every
case and the counts; ``--table`` prints a fresh XFAIL table.

Counts (NumPy 2.4, this module's version): see ``summary()``; at the time of writing
the generator draws about 1,900 (function, call form, shape) combinations over 140 functions.
"""
from __future__ import annotations

import atexit
import importlib.util
import inspect
import itertools
import math
import os
import shutil
import sys
import tempfile
import zlib
from dataclasses import dataclass, field

import numpy as np

# --- inputs ---------------------------------------------------------------------------

def draw(kind, shape, rng):
    """A random input of ``kind`` and ``shape``, away from the kinks and edges of the
    functions that use that kind.  ``shape == ()`` gives a Python float."""
    size = int(np.prod(shape)) if shape else 1
    if kind == "real":
        x = rng.uniform(-2.0, 2.0, size)
    elif kind == "away0":                   # abs, sign, heaviside, divisors: |x| >= 0.3
        x = rng.choice([-1.0, 1.0], size) * rng.uniform(0.3, 2.0, size)
    elif kind == "pos":
        x = rng.uniform(0.3, 2.0, size)
    elif kind == "unit":
        x = rng.uniform(-0.8, 0.8, size)
    elif kind == "gt1":
        x = rng.uniform(1.5, 3.0, size)
    elif kind == "distinct":                # sort, max, ...: gaps of at least 0.15
        x = (rng.permutation(size) - size / 2) * 0.25 + rng.uniform(0.0, 0.1, size)
    elif kind == "nonint":                  # floor, round...: away from integers and half-integers
        x = rng.integers(-3, 3, size) + rng.uniform(0.1, 0.4, size)
    elif kind == "mask":
        x = rng.uniform(-1.0, 1.0, size) > 0.0
        return x.reshape(shape) if shape else bool(x[0])
    elif kind in ("mat", "spd"):            # well conditioned (n, n) stacks
        n = shape[-1]
        x = rng.uniform(-0.5, 0.5, shape) + 2.0 * np.eye(n)
        if kind == "spd":
            x = x @ np.swapaxes(x, -1, -2) / n + np.eye(n)
        return x
    elif kind.startswith("idx"):            # idx<n>: integers in [0, n)
        return rng.integers(0, int(kind[3:]), shape) if shape else int(rng.integers(0, int(kind[3:])))
    else:
        raise ValueError(kind)
    x = x.reshape(shape)
    return float(x) if shape == () else x


# --- what a function takes ----------------------------------------------------------------

@dataclass
class Spec:
    """How to call one NumPy function: which parameters take arrays (``arrays``: name ->
    input kind; ``"seq:k"`` marks a sequence parameter given ``k`` arrays), the shapes to
    draw (one tuple per array argument; the first is the main shape), values of
    parameters beyond ``VALUES`` (``values``), explicit extra forms (``forms``: call
    templates with the array names), and the wrapper ``arg`` text per array parameter."""
    arrays: dict
    shapes: list
    values: dict = field(default_factory=dict)
    forms: list = field(default_factory=list)
    wrap: dict = field(default_factory=dict)      # array param -> expression of it fed to the call
    method: bool = True                           # also call it as an ndarray method
    generic: bool = True                          # draw forms from the signature


IGNORED = {     # parameters that do not change values (or hand NumPy memory to fill): not drawn
    "out": "writes into a given array", "dtype": "a result type, not a value",
    "casting": "a casting policy", "subok": "subclass passing", "like": "array-protocol dispatch",
    "device": "array API device", "copy": "copy policy (values are equal)",
    "signature": "ufunc loop selection", "optimize": "einsum contraction order",
    "stable": "sort stability (a tie-break; inputs are distinct)",
    "mean": "precomputed mean (var/std)", "correction": "array-API spelling of ddof",
    "ndmin": "np.array's minimum ndim", "ndmax": "np.array's maximum ndim",
}

# Representative values per NumPy parameter name (source text).  NumPy drops the ones that
# do not fit a given input.
VALUES = {
    "axis": ["None", "0", "1", "-1", "-2", "2", "(0, 1)", "(0, -1)", "(1, 2)"],
    "keepdims": ["True", "False"],
    "ddof": ["1", "2"],
    "initial": ["0.5"],
    "where": ["a > 0.0"],
    "decimals": ["1", "-1"],
    "k": ["1", "-1", "2"],
    "offset": ["1", "-1"],
    "axis1": ["1", "-1", "0"],
    "axis2": ["0", "2", "-1"],
    "shift": ["2", "-1", "(1, 2)"],
    "axes": ["None", "(1, 0)", "(1, 0, 2)", "(2, 0, 1)", "(-1, 0, 1)"],
    "order": ["'F'"],
    "ord": ["None", "1", "2", "-1", "-2", "np.inf", "-np.inf", "'fro'", "'nuc'", "3", "0.5"],
    "source": ["0", "-1", "(0, 1)"],
    "destination": ["-1", "1", "(2, 0)"],
    "repeats": ["2", "[1, 2, 3]"],
    "reps": ["2", "(2, 1)", "(1, 2, 2)"],
    "mode": ["'wrap'", "'clip'"],
    "kind": ["'stable'", "'mergesort'"],
    "upper": ["True"],
    "axisa": ["0"], "axisb": ["0"], "axisc": ["0"],
    "num": ["5"], "endpoint": ["False"], "retstep": ["True"],
    "N": ["3"], "M": ["4"], "n": ["3"],
    "overwrite_input": ["True"],
}

# Parameters that act together: each combination in keyword form.
JOINT = {
    "np.roll": [("shift", "axis")],
    "np.linalg.norm": [("ord", "axis"), ("axis", "keepdims")],
    "np.sum": [("axis", "keepdims")], "np.mean": [("axis", "keepdims")],
    "np.max": [("axis", "keepdims")], "np.prod": [("axis", "keepdims")],
    "np.var": [("axis", "ddof")], "np.std": [("axis", "ddof", "keepdims")],
    "np.trace": [("offset", "axis1", "axis2")],
    "np.swapaxes": [("axis1", "axis2")], "np.moveaxis": [("source", "destination")],
    "np.repeat": [("repeats", "axis")], "np.take": [("axis", "mode")],
}

B3 = [((3, 3),), ((2, 3, 3),), ((3, 3, 3),), ((2, 2, 3, 3),)]     # B == n catches `.T`
R2 = [((3, 4),), ((2, 3, 4),)]
UNARY_SHAPES = [((3, 4),), ((),), ((2, 3, 2),)]
BINARY_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (3,)), ((2, 3, 4), (3, 1)),
                 ((3, 4), ())]


def unary(kind="real"):
    return Spec({"x": kind}, UNARY_SHAPES, method=False)


def binary(k1="real", k2="real"):
    return Spec({"x1": k1, "x2": k2}, BINARY_SHAPES, method=False)


def reduction(kind="real", shapes=R2):
    return Spec({"a": kind}, shapes)


SPECS = {
    # elementwise ufuncs
    "np.abs": unary("away0"), "np.sign": unary("away0"), "np.negative": unary(), "np.positive": unary(),
    "np.exp": unary(), "np.expm1": unary(), "np.exp2": unary(), "np.log": unary("pos"),
    "np.log1p": unary("pos"), "np.log2": unary("pos"), "np.log10": unary("pos"), "np.sqrt": unary("pos"),
    "np.cbrt": unary("away0"), "np.square": unary(), "np.reciprocal": unary("away0"), "np.sin": unary(),
    "np.cos": unary(), "np.tan": unary("unit"), "np.arcsin": unary("unit"), "np.arccos": unary("unit"),
    "np.arctan": unary(), "np.sinh": unary(), "np.cosh": unary(), "np.tanh": unary(),
    "np.arcsinh": unary(), "np.arccosh": unary("gt1"), "np.arctanh": unary("unit"),
    "np.floor": unary("nonint"), "np.ceil": unary("nonint"), "np.trunc": unary("nonint"),
    "np.rint": unary("nonint"), "np.isnan": unary(), "np.isinf": unary(), "np.isfinite": unary(),
    "np.logical_not": unary("away0"),
    "np.round": Spec({"a": "nonint"}, UNARY_SHAPES), "np.around": Spec({"a": "nonint"}, UNARY_SHAPES, method=False),
    "np.add": binary(), "np.subtract": binary(), "np.multiply": binary(), "np.divide": binary("real", "away0"),
    "np.true_divide": binary("real", "away0"),
    "np.floor_divide": binary("real", "away0"), "np.remainder": binary("real", "away0"),
    "np.fmod": binary("real", "away0"), "np.power": binary("pos", "real"),
    "np.float_power": binary("pos", "real"),
    "np.maximum": binary("distinct", "distinct"), "np.minimum": binary("distinct", "distinct"),
    "np.fmax": binary("distinct", "distinct"), "np.fmin": binary("distinct", "distinct"),
    "np.arctan2": binary("away0", "away0"), "np.hypot": binary("away0", "away0"), "np.logaddexp": binary(),
    "np.fabs": unary("away0"), "np.conjugate": unary(), "np.logaddexp2": binary(),
    "np.real": Spec({"val": "real"}, UNARY_SHAPES, method=False),
    "np.imag": Spec({"val": "real"}, UNARY_SHAPES, method=False),
    "np.angle": Spec({"z": "away0"}, UNARY_SHAPES, method=False, values={"deg": ["True"]}),
    "np.real_if_close": Spec({"a": "real"}, UNARY_SHAPES, method=False, values={"tol": ["1000"]}),
    "np.append": Spec({"arr": "real", "values": "real"}, [((3, 4), (3, 4)), ((3,), (2,)), ((2, 3), (2, 3))],
                      method=False),
    "np.copysign": binary("real", "away0"), "np.heaviside": binary("away0", "real"),
    "np.less": binary(), "np.less_equal": binary(), "np.greater": binary(), "np.greater_equal": binary(),
    "np.equal": binary(), "np.not_equal": binary(), "np.logical_and": binary("away0", "away0"),
    "np.logical_or": binary("away0", "away0"), "np.logical_xor": binary("away0", "away0"),
    "np.where": Spec({"condition": "mask", "x": "real", "y": "real"},
                     [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), ()), ((3, 1), (1, 4), (3, 4))], method=False,
                     forms=["np.where(condition, x, 0.0)", "np.where(x > 0.5, x, y)"]),
    "np.clip": Spec({"a": "real"}, R2, values={"a_min": ["-0.5", "None"], "a_max": ["0.5", "None"],
                                               "min": ["-0.5"], "max": ["0.5"]},
                    forms=["np.clip(a, -0.5, 0.5)"]),
    # reductions
    "np.sum": reduction(), "np.prod": reduction("away0"), "np.max": reduction("distinct"),
    "np.min": reduction("distinct"), "np.amax": Spec({"a": "distinct"}, R2, method=False),
    "np.amin": Spec({"a": "distinct"}, R2, method=False), "np.mean": reduction(), "np.var": reduction(),
    "np.std": reduction(), "np.argmax": reduction("distinct"), "np.argmin": reduction("distinct"),
    "np.any": reduction("away0"), "np.all": reduction("away0"), "np.cumsum": reduction(),
    "np.cumprod": reduction("away0"),
    # shapes
    "np.transpose": Spec({"a": "real"}, [((3, 4),), ((2, 3, 4),)], forms=["a.T", "a.transpose(1, 0, 2)",
                                                                           "a.transpose(2, 0, 1)"]),
    "np.permute_dims": Spec({"a": "real"}, [((3, 4),), ((2, 3, 4),)], method=False),
    "np.ravel": Spec({"a": "real"}, R2),
    "np.expand_dims": Spec({"a": "real"}, R2, values={"axis": ["0", "-1", "1", "(0, 2)"]}, method=False),
    "np.swapaxes": Spec({"a": "real"}, [((2, 3, 4),), ((3, 4),)], values={"axis1": ["0", "-1"], "axis2": ["2", "-3", "1"]}),
    "np.moveaxis": Spec({"a": "real"}, [((2, 3, 4),)], method=False),
    "np.rollaxis": Spec({"a": "real"}, [((2, 3, 4),)], method=False),
    "np.concatenate": Spec({"arrays": "seq:2"}, [(((3, 4), (2, 4)),), (((3, 4), (3, 2)),), (((3,), (2,)),)],
                           values={"axis": ["0", "1", "-1", "None"]}, method=False,
                           forms=["np.concatenate([arrays0, arrays1], 1)", "np.concatenate((arrays0, arrays1))"]),
    "np.stack": Spec({"arrays": "seq:2"}, [(((3, 4), (3, 4)),), (((3,), (3,)),)],
                     values={"axis": ["0", "1", "-1", "2"]}, method=False,
                     forms=["np.stack([arrays0, arrays1], axis=1)"]),
    "np.hstack": Spec({"tup": "seq:2"}, [(((3, 4), (3, 2)),), (((3,), (2,)),)], method=False),
    "np.vstack": Spec({"tup": "seq:2"}, [(((3, 4), (2, 4)),), (((3,), (3,)),)], method=False),
    "np.broadcast_to": Spec({"array": "real"}, [((4,),), ((3, 1),)],
                            values={"shape": ["(3, 4)", "(2, 3, 4)"]}, method=False),
    "np.flip": Spec({"m": "real"}, R2, method=False),
    "np.fliplr": Spec({"m": "real"}, R2, method=False), "np.flipud": Spec({"m": "real"}, R2, method=False),
    "np.triu": Spec({"m": "real"}, [((4, 4),), ((3, 4),), ((2, 3, 3),), ((4,),)], method=False),
    "np.tril": Spec({"m": "real"}, [((4, 4),), ((3, 4),), ((2, 3, 3),), ((4,),)], method=False),
    "np.tile": Spec({"A": "real"}, [((3,),), ((2, 3),)], method=False),
    "np.repeat": Spec({"a": "real"}, [((3, 4),), ((3,),)], values={"repeats": ["2", "[1, 2, 3]", "[2, 0, 1, 1]"]}),
    "np.roll": Spec({"a": "real"}, [((3, 4),), ((2, 3, 4),), ((5,),)], method=False),
    "np.copy": Spec({"a": "real"}, R2),
    "np.atleast_1d": Spec({"arys": "seq*:1"}, [(((),),), (((3,),),), (((2, 3),),), (((), (3,)),)], method=False),
    "np.atleast_2d": Spec({"arys": "seq*:1"}, [(((),),), (((3,),),), (((2, 3),),), (((3,), (2, 3)),)], method=False),
    "np.reshape": Spec({"a": "real"}, [((3, 4),), ((2, 3, 2),)],
                       values={"shape": ["(4, 3)", "(-1,)", "(2, -1)", "12", "(2, 2, 3)"]},
                       forms=["a.reshape(4, 3)", "a.reshape(-1)", "a.reshape((2, 6))"]),
    "np.squeeze": Spec({"a": "real"}, [((3, 1, 4, 1),), ((1, 3),)], values={"axis": ["None", "1", "-1", "(1, 3)", "0"]}),
    "np.split": Spec({"ary": "real"}, [((4, 6),), ((6,),)],
                     values={"indices_or_sections": ["2", "[1, 3]"], "axis": ["0", "1", "-1"]}, method=False),
    # indexing, sorting
    "np.take": Spec({"a": "real", "indices": "idx3"}, [((3, 4), (2,)), ((3, 4), (2, 2)), ((5,), (3,))],
                    forms=["np.take(a, [0, 2])", "np.take(a, [0, 2], axis=1)", "np.take(a, 1, axis=0)",
                           "np.take(a, 1, 1)", "a.take(indices, axis=-1)"]),
    "np.sort": Spec({"a": "distinct"}, R2, method=False),
    "np.partition": Spec({"a": "distinct"}, R2, method=False, values={"kth": ["1", "(0, 2)"]}),
    "np.argpartition": Spec({"a": "distinct"}, R2, method=False, values={"kth": ["1"]}),
    "np.median": Spec({"a": "distinct"}, R2, method=False),
    "np.quantile": Spec({"a": "distinct"}, R2, method=False,
                        values={"q": ["0.3", "[0.25, 0.75]"],
                                "method": ["'linear'", "'lower'", "'nearest'", "'midpoint'", "'hazen'"]}),
    "np.percentile": Spec({"a": "distinct"}, R2, method=False,
                          values={"q": ["30", "[25, 75]"], "method": ["'linear'", "'higher'", "'weibull'"]}),
    "np.bincount": Spec({"x": "idx3", "weights": "real"}, [((6,), (6,))], method=False,
                        values={"minlength": ["4"]}),
    # in place (None): the written copy is the result
    "np.fill_diagonal": Spec({"a": "real"}, [((3, 3),), ((2, 4),), ((4, 2),)], method=False, generic=False,
                             forms=["(lambda m: (np.fill_diagonal(m, 0.5), m)[1])(a * 1.0)",
                                    "(lambda m: (np.fill_diagonal(m, a[0, 0]), m)[1])(a * 1.0)"]),
    "np.put_along_axis": Spec({"arr": "real", "values": "real"}, [((2, 3), (2, 1))], method=False, generic=False,
                              forms=["(lambda m: (np.put_along_axis(m, np.array([[2], [0]]), values, 1), m)[1])"
                                     "(arr * 1.0)"]),
    "np.meshgrid": Spec({"a": "real", "b": "real"}, [((3,), (4,))], method=False, generic=False,
                        forms=["np.meshgrid(a, b)", "np.meshgrid(a, b, indexing='ij')",
                               "np.meshgrid(a, b, sparse=True)", "np.meshgrid(a, b, copy=False)"]),
    "np.nansum": reduction(), "np.nanmean": reduction(), "np.nanmax": reduction("distinct"),
    "np.nanmin": reduction("distinct"),
    "np.i0": Spec({"x": "real"}, UNARY_SHAPES, method=False),
    "np.linalg.eig": Spec({"a": "mat"}, B3[:2], method=False),
    "np.linalg.eigvals": Spec({"a": "mat"}, B3[:2], method=False),
    "np.linalg.tensorsolve": Spec({"a": "real", "b": "real"}, [((6, 2, 3), (6,))], method=False,
                                  wrap={"a": "0.1 * a + np.eye(6).reshape(6, 2, 3)"}),
    "np.argsort": Spec({"a": "distinct"}, R2),
    "np.take_along_axis": Spec({"arr": "real", "indices": "idx3"}, [((3, 4), (3, 2)), ((3, 4), (2, 4)), ((5,), (3,)),
                                                                    ((2, 3, 4), (2, 3, 2)), ((3, 4), (1, 2))],
                               values={"axis": ["-1", "0", "1", "-2", "None"]}, method=False),
    # creation
    "np.zeros": Spec({}, [()], values={"shape": ["(3, 4)", "5"]}, method=False),
    "np.ones": Spec({}, [()], values={"shape": ["(3, 4)", "5"]}, method=False),
    "np.empty": Spec({}, [()], values={"shape": ["(3, 4)"]}, method=False, generic=False,
                     forms=["EMPTY np.empty((3, 4))", "EMPTY np.empty(5)"]),
    "np.full": Spec({"fill_value": "real"}, [((),), ((4,),)], method=False, generic=False,
                    forms=["np.full((3, 4), fill_value)", "np.full(shape=(3, 4), fill_value=fill_value)",
                           "np.full(5, fill_value)"]),
    "np.zeros_like": Spec({"a": "real"}, R2, method=False, values={"shape": ["(2, 2)"]}),
    "np.ones_like": Spec({"a": "real"}, R2, method=False, values={"shape": ["(2, 2)"]}),
    "np.empty_like": Spec({"a": "real"}, R2, method=False, generic=False, forms=["EMPTY np.empty_like(a)"]),
    "np.full_like": Spec({"a": "real", "fill_value": "real"}, [((3, 4), ()), ((3, 4), (4,))], method=False,
                         values={"shape": ["(2, 4)"]}),
    "np.arange": Spec({}, [()], values={"start_or_stop": ["5"], "stop": ["6"], "step": ["2"]}, method=False,
                      forms=["np.arange(5) * 0.5", "np.arange(1.0, 3.0, 0.5)"]),
    "np.linspace": Spec({"start": "real", "stop": "real"}, [((), ()), ((3,), (3,)), ((), (3,))],
                        values={"axis": ["1", "-1"]}, method=False),
    "np.eye": Spec({}, [()], method=False, values={"k": ["1", "-1"]}),
    "np.identity": Spec({}, [()], method=False),
    "np.array": Spec({"object": "real"}, [((3,),), ((),), ((2, 3),)], method=False, generic=False,
                     forms=["np.array(object)", "np.array(object, dtype=np.float64)", "np.array([object, object])",
                            "np.array([[object, 1.0], [2.0, object]])", "np.array((object, 2.0 * object))",
                            "np.array(object, copy=True)", "np.array(object, ndmin=2)"]),
    "np.asarray": Spec({"a": "real"}, [((3,),), ((),)], method=False, generic=False,
                       forms=["np.asarray(a)", "np.asarray([a, a])", "np.asarray(a, dtype=np.float64)"]),
    # products, linear algebra
    "np.dot": Spec({"a": "real", "b": "real"}, [((3, 4), (4, 2)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)),
                                                ((2, 3, 4), (4, 2)), ((2, 3, 4), (5, 4, 2)), ((), (3,))]),
    "np.vdot": Spec({"a": "real", "b": "real"}, [((4,), (4,)), ((3, 4), (3, 4))], method=False),
    "np.outer": Spec({"a": "real", "b": "real"}, [((3,), (4,)), ((2, 3), (4,))], method=False),
    "np.inner": Spec({"a": "real", "b": "real"}, [((4,), (4,)), ((3, 4), (2, 4)), ((2, 3, 4), (4,)), ((), (3,))],
                     method=False),
    "np.matmul": Spec({"x1": "real", "x2": "real"},
                      [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 2)),
                       ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4, 4, 4), (4, 4))],
                      method=False, forms=["x1 @ x2"]),
    "np.trace": Spec({"a": "real"}, [((3, 4),), ((3, 3),), ((2, 3, 4),)]),
    "np.diag": Spec({"v": "real"}, [((3,),), ((3, 4),), ((4, 4),)], method=False),
    "np.diagonal": Spec({"a": "real"}, [((3, 4),), ((3, 3),)]),
    "np.kron": Spec({"a": "real", "b": "real"}, [((2, 3), (3, 2)), ((3,), (2,)), ((2, 2), (3,))], method=False),
    "np.cross": Spec({"a": "real", "b": "real"}, [((3,), (3,)), ((4, 3), (4, 3)), ((3, 4), (3, 4)), ((4, 3), (3,))],
                     values={"axis": ["0", "-1"]}, method=False),
    "np.einsum": Spec({"a": "real", "b": "real"}, [((3, 3), (3, 3))], method=False, generic=False,
                      forms=["np.einsum('ij->ji', a)", "np.einsum('ii->', a)", "np.einsum('ii', a)",
                             "np.einsum('ii->i', a)", "np.einsum('ij->', a)", "np.einsum('ij', a)",
                             "np.einsum('ij,jk->ik', a, b)", "np.einsum('ij,jk', a, b)", "np.einsum('ij,ij->', a, b)",
                             "np.einsum('ij,ij->ij', a, b)", "np.einsum('ij,jk,kl->il', a, b, a)",
                             "np.einsum('ij,j->i', a, b[0])", "np.einsum('i,i->', a[0], b[0])",
                             "np.einsum('bij,bjk->bik', a[None], b[None])", "np.einsum('...ij,...jk->...ik', a, b)",
                             "np.einsum('i,j->ij', a[0], b[1])"]),
    "np.tensordot": Spec({"a": "real", "b": "real"}, [((3, 4), (4, 5)), ((3, 4), (3, 4)), ((2, 3, 4), (3, 4, 5))],
                         values={"axes": ["0", "1", "2", "([1], [0])", "((0, 1), (0, 1))", "([0, 1], [1, 0])"]},
                         method=False),
    "np.linalg.solve": Spec({"a": "mat", "b": "real"}, [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 2)),
                                                        ((3, 3, 3), (3, 3, 1)), ((2, 3, 3), (3,)), ((3, 3), (2, 3, 2))],
                            method=False),
    "np.linalg.inv": Spec({"a": "mat"}, B3, method=False),
    "np.linalg.det": Spec({"a": "mat"}, B3, method=False),
    "np.linalg.matrix_power": Spec({"a": "mat"}, B3, method=False),
    "np.linalg.slogdet": Spec({"a": "mat"}, B3, method=False),
    "np.linalg.cholesky": Spec({"a": "spd"}, B3, method=False,
                               wrap={"a": "(a + np.swapaxes(a, -1, -2)) * 0.5"}),
    "np.linalg.norm": Spec({"x": "away0"}, [((4,),), ((3, 4),), ((2, 3, 4),)],
                           values={"axis": ["None", "0", "-1", "(0, 1)", "(1, 2)", "(-2, -1)"]}, method=False),
    # functions added to the table while this generator was written
    "np.deg2rad": unary(), "np.rad2deg": unary(), "np.degrees": unary(), "np.radians": unary(),
    "np.sinc": Spec({"x": "away0"}, UNARY_SHAPES[:1], method=False),
    "np.nan_to_num": Spec({"x": "real"}, R2, method=False, values={"nan": ["0.5"], "posinf": ["1.0"], "neginf": ["-1.0"]}),
    "np.diff": Spec({"a": "real"}, [((3, 4),), ((5,),)], values={"n": ["1", "2"], "prepend": ["0.5"], "append": ["0.5"]},
                    method=False),
    "np.pad": Spec({"array": "real"}, [((3,),), ((3, 4),)], method=False,
                   values={"pad_width": ["1", "(1, 2)", "((1, 0), (0, 2))"],
                           "mode": ["'constant'", "'edge'", "'reflect'", "'wrap'"]}),
    "np.average": Spec({"a": "real"}, R2, method=False, values={"weights": ["a * a + 0.5"], "returned": ["True"]},
                       forms=["np.average(a, axis=1, weights=np.arange(1.0, 5.0))"]),
    "np.column_stack": Spec({"tup": "seq:2"}, [(((3,), (3,)),), (((3, 2), (3,)),)], method=False),
    "np.dstack": Spec({"tup": "seq:2"}, [(((3, 4), (3, 4)),)], method=False),
    "np.atleast_3d": Spec({"arys": "seq*:1"}, [(((),),), (((3,),),), (((2, 3),),)], method=False),
    "np.array_split": Spec({"ary": "real"}, [((4, 6),), ((7,),)], method=False,
                           values={"indices_or_sections": ["3", "[1, 3]"], "axis": ["0", "1", "-1"]}),
    "np.hsplit": Spec({"ary": "real"}, [((4, 6),)], method=False, values={"indices_or_sections": ["2", "[1, 3]"]}),
    "np.vsplit": Spec({"ary": "real"}, [((4, 6),)], method=False, values={"indices_or_sections": ["2", "[1, 3]"]}),
    "np.dsplit": Spec({"ary": "real"}, [((2, 3, 4),)], method=False, values={"indices_or_sections": ["2", "[1, 3]"]}),
    "np.convolve": Spec({"a": "real", "v": "real"}, [((6,), (3,)), ((3,), (5,))], method=False,
                        values={"mode": ["'full'", "'same'", "'valid'"]}),
    "np.correlate": Spec({"a": "real", "v": "real"}, [((6,), (3,)), ((3,), (5,))], method=False,
                         values={"mode": ["'full'", "'same'", "'valid'"]}),
    "np.vander": Spec({"x": "real"}, [((4,),)], method=False, generic=False,
                      forms=["np.vander(x)", "np.vander(x, 3)", "np.vander(x, N=5, increasing=True)"]),
    "np.gradient": Spec({"f": "real"}, [((5,),)], method=False, generic=False,
                        forms=["np.gradient(f)", "np.gradient(f, 0.5)", "np.gradient(f, axis=0)"]),
    "np.polyfit": Spec({"x": "distinct", "y": "real"}, [((6,), (6,))], method=False, generic=False,
                       forms=["np.polyfit(x, y, 2)", "np.polyfit(x, y, 1, w=np.abs(y) + 0.5)"]),
    "np.select": Spec({"a": "real"}, [((3, 4),)], method=False, generic=False,
                      forms=["np.select([a > 0.5, a < -0.5], [a * 2.0, np.sin(a)], default=0.25)",
                             "np.select([a > 0.0], [a ** 2])"]),
    "np.piecewise": Spec({"x": "real"}, [((5,),)], method=False, generic=False,
                         forms=["np.piecewise(x, [x < 0.0, x >= 0.0], [lambda v: v * v, lambda v: np.sin(v)])",
                                "np.piecewise(x, [x < -0.5], [lambda v: -v, 0.25])",
                                "np.piecewise(x, x < 0.0, [lambda v: v * v, lambda v: np.sin(v)])",
                                "np.piecewise(x, x > 0.5, [np.cos])"]),
    "np.nonzero": Spec({"a": "real"}, [((3, 4),)], method=False, generic=False,
                       forms=["a[np.nonzero(a > 0.0)]", "a[np.nonzero(a[0] > 0.0)[0]]"]),
    "np.corrcoef": Spec({"x": "real"}, [((3, 5),)], method=False,
                        values={"rowvar": ["False"], "y": ["x[::-1] * 0.5 + 0.1"]}),
    "np.cov": Spec({"m": "real"}, [((3, 5),)], method=False,
                   values={"rowvar": ["False"], "bias": ["True"], "ddof": ["0", "2"], "y": ["m[::-1] * 0.5 + 0.1"],
                           "fweights": ["[1, 2, 1, 3, 1]"], "aweights": ["[0.5, 1.0, 2.0, 1.0, 0.5]"]}),
    "np.ptp": Spec({"a": "distinct"}, R2, method=False),
    "np.rot90": Spec({"m": "real"}, [((3, 4),), ((2, 3, 4),)], method=False,
                     values={"k": ["1", "2", "-1", "3"], "axes": ["(1, 0)", "(1, 2)", "(0, -1)"]}),
    "np.trapezoid": Spec({"y": "real"}, R2, method=False,
                         values={"dx": ["0.5"], "axis": ["0", "-1"], "x": ["np.linspace(0.0, 1.0, 4) ** 2"]}),
    "np.interp": Spec({"x": "unit", "fp": "real"}, [((4,), (5,))], method=False, generic=False,
                      forms=["np.interp(x, [-1.5, -0.7, 0.05, 0.9, 1.5], fp)",
                             "np.interp(x, [-1.5, -0.7, 0.05, 0.9, 1.5], fp, left=0.0, right=1.0)"]),
    "np.polyval": Spec({"p": "real", "x": "real"}, [((4,), (5,)), ((3,), ()), ((3,), (2, 3))], method=False),
    "np.linalg.eigh": Spec({"a": "spd"}, B3, method=False, wrap={"a": "(a + np.swapaxes(a, -1, -2)) * 0.5"},
                           values={"UPLO": ["'U'"]}),
    "np.linalg.eigvalsh": Spec({"a": "spd"}, B3, method=False, wrap={"a": "(a + np.swapaxes(a, -1, -2)) * 0.5"},
                               values={"UPLO": ["'U'"]}),
    "np.linalg.lstsq": Spec({"a": "real", "b": "real"}, [((5, 3), (5,)), ((5, 3), (5, 2))], method=False,
                            values={"rcond": ["None", "1e-10"]}, forms=["np.linalg.lstsq(a, b, rcond=None)[0]"]),
    "np.linalg.matrix_rank": Spec({"A": "mat"}, B3[:2], method=False,
                                  values={"tol": ["1e-8"], "hermitian": ["False"], "rtol": ["1e-8"]}),
    "np.linalg.multi_dot": Spec({"arrays": "seq:3"}, [(((3, 4), (4, 5), (5, 2)),), (((4,), (4, 5), (5,)),)],
                                method=False),
    "np.linalg.pinv": Spec({"a": "real"}, [((3, 4),), ((4, 3),), ((2, 3, 4),)], method=False,
                           values={"hermitian": ["False"], "rcond": ["1e-10"], "rtol": ["1e-10"]}),
    "np.linalg.qr": Spec({"a": "real"}, [((4, 3),), ((3, 3),), ((2, 4, 3),)], method=False,
                         values={"mode": ["'reduced'", "'r'", "'complete'"]}),
    "np.linalg.svd": Spec({"a": "real"}, [((4, 3),), ((3, 4),), ((2, 4, 3),)], method=False,
                          values={"full_matrices": ["False"], "compute_uv": ["False"]}),
}

# operators and the math module: scalar and array call forms written by hand
OPERATORS = {
    "op.add": ("x1 + x2", "real", "real"), "op.sub": ("x1 - x2", "real", "real"),
    "op.mul": ("x1 * x2", "real", "real"), "op.truediv": ("x1 / x2", "real", "away0"),
    "op.floordiv": ("x1 // x2", "real", "away0"), "op.mod": ("x1 % x2", "real", "away0"),
    "op.pow": ("x1 ** x2", "pos", "real"), "op.neg": ("-x1", "real", None), "op.pos": ("+x1", "real", None),
    "op.pow_int": ("x1 ** 3", "real", None), "op.rpow": ("2.0 ** x1", "real", None),
    "op.abs": ("abs(x1)", "away0", None), "op.lt": ("x1 < x2", "real", "real"),
}
MATH_BINARY = {"atan2", "hypot", "pow", "copysign", "fmod"}
MATH_KINDS = {"acos": "unit", "asin": "unit", "atanh": "unit", "acosh": "gt1", "log": "pos", "log1p": "pos",
              "log2": "pos", "log10": "pos", "sqrt": "pos", "gamma": "pos", "lgamma": "pos", "fabs": "away0",
              "floor": "nonint", "ceil": "nonint", "trunc": "nonint", "fmod": "away0", "copysign": "away0",
              "pow": "pos", "tan": "unit"}


def covered():
    """``{"np.roll": np.roll, ...}``: the NumPy functions sstad has a primitive, a composite
    or a frontend lowering for, by their NumPy path (aliases once)."""
    from sstad.runtime.composites import COMPOSITES
    from sstad.runtime.primitive import NUMPY_FUNCTIONS
    special = {id(np.split), id(np.linalg.slogdet)}
    found = {}
    for prefix, mod in (("np", np), ("np.linalg", np.linalg)):
        for name in sorted(dir(mod)):
            obj = getattr(mod, name)
            if not callable(obj) or isinstance(obj, type):
                continue
            if id(obj) in NUMPY_FUNCTIONS or id(obj) in COMPOSITES or id(obj) in special:
                table = NUMPY_FUNCTIONS.get(id(obj), name).split(".")[-1]
                path = f"{prefix}.{name}"
                # one name per function: the table's own name where it is one of the aliases
                old = found.get(id(obj))
                if old is None or (name == table and not old[0].endswith("." + table)):
                    found[id(obj)] = (path, obj)
    out = {path: obj for path, obj in found.values()}
    for name in NUMPY_FUNCTIONS.values():
        if name.startswith("math."):
            out[name] = getattr(math, name[5:])
    return dict(sorted(out.items()))


# --- call forms from the signature -----------------------------------------------------

def _signature(fn, spec):
    """``[(name, kind, default_text)]`` of the non-array parameters, in order; default_text
    is None where the default cannot be written (NumPy's ``<no value>``)."""
    if isinstance(fn, np.ufunc):
        return []
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.name in spec.arrays or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is p.empty:
            default = None
        elif p.default is None or isinstance(p.default, (bool, int, float, str)):
            default = repr(p.default)
        elif p.default is float:
            default = "float"
        else:
            default = None
        params.append((p.name, p.kind, p.default is p.empty, default))
    return params


def _array_texts(spec):
    """The argument text of each array parameter (sequences spelled out)."""
    texts = []
    for name, kind in spec.arrays.items():
        wrap = spec.wrap.get(name, name)
        if kind.startswith("seq*:"):
            texts.append(None)          # filled per shape (variadic)
        elif kind.startswith("seq:"):
            texts.append(f"({', '.join(f'{name}{i}' for i in range(int(kind[4:])))})")
        else:
            texts.append(wrap)
    return texts


def signature_forms(path, fn, spec):
    """Call-form templates for ``fn``: ``(form, tag)`` where tag is 'base', 'pos', 'kw',
    'method' or 'joint'.  Array arguments appear by name; ``*`` arrays as ``{ARYS}``."""
    if not spec.generic:
        return [(f, "form") for f in spec.forms]
    params = _signature(fn, spec)
    names = [p[0] for p in params]
    values = {n: spec.values.get(n, VALUES.get(n, [])) for n in names if n not in IGNORED}
    required = [p for p in params if p[2]]
    arrays = [t if t is not None else "{ARYS}" for t in _array_texts(spec)]
    if isinstance(fn, np.ufunc):
        arrays = list(spec.arrays)
    call = path
    positional_ok = {p[0] for p in params if p[1] in (inspect.Parameter.POSITIONAL_ONLY,
                                                       inspect.Parameter.POSITIONAL_OR_KEYWORD)}
    keyword_ok = {p[0] for p in params if p[1] != inspect.Parameter.POSITIONAL_ONLY}
    base_req = {p[0]: (values.get(p[0]) or ["?"])[0] for p in required}

    def positional(chosen):
        """All of ``chosen`` by position (earlier parameters at their defaults); None if impossible."""
        last = max(names.index(n) for n in chosen)
        args = []
        for n, kind, req, default in params[:last + 1]:
            if n not in positional_ok:
                return None
            if n in chosen:
                args.append(chosen[n])
            elif req:
                args.append(base_req[n])
            elif default is None:
                return None
            else:
                args.append(default)
        return args

    def keyword(chosen):
        args = [base_req[n] for n, *_ in required if n not in chosen and n in positional_ok]
        kws = [f"{n}={v}" for n, v in chosen.items()]
        kws += [f"{n}={base_req[n]}" for n, *_ in required if n not in chosen and n not in positional_ok]
        return args, kws

    def text(head, args, kws):
        return f"{head}({', '.join(arrays + args + kws)})"

    forms = [(text(call, [base_req[n] for n, *_ in required], []), "base")]
    method = spec.method and hasattr(np.ndarray, path.split(".")[-1]) and len(spec.arrays) >= 1
    mname = path.split(".")[-1]
    first = arrays[0] if arrays else None
    if method:
        forms.append((f"{first}.{mname}({', '.join(arrays[1:] + [base_req[n] for n, *_ in required])})", "method"))
    for n, vals in values.items():
        for v in vals:
            tag_kw = "kw1" if v == vals[0] else "kw"
            chosen = {n: v}
            pos = positional(chosen)
            if pos is not None:
                forms.append((text(call, pos, []), "pos"))
                if method:
                    forms.append((f"{first}.{mname}({', '.join(arrays[1:] + pos)})", "method"))
            if n in keyword_ok:
                args, kws = keyword(chosen)
                forms.append((text(call, args, kws), tag_kw))
                if method:
                    forms.append((f"{first}.{mname}({', '.join(arrays[1:] + args + kws)})", "method"))
    for group in JOINT.get(path, []):
        if not all(g in values and g in keyword_ok for g in group):
            continue
        for combo in itertools.product(*(values[g] for g in group)):
            args, kws = keyword(dict(zip(group, combo)))
            forms.append((text(call, args, kws), "joint"))
    forms += [(f, "form") for f in spec.forms]
    seen, unique = set(), []
    for f, tag in forms:
        if f not in seen:
            seen.add(f)
            unique.append((f, tag))
    return unique


# --- cases -----------------------------------------------------------------------------

@dataclass
class Case:
    func: str            # "np.roll"
    form: str            # "np.roll(a, 2, 1)"
    shapes: tuple        # one shape per array argument
    tag: str
    names: list          # argument names, w last
    kinds: list
    body: list = None    # the function's body lines
    seed: int = 0
    fn: object = None
    main: bool = True    # drawn on the function's main (first) shapes
    fast: bool = False   # in the fast python slice
    numba: bool = False  # in the (slow) numba slice

    @property
    def shape_text(self):
        return " ".join("x".join(map(str, s)) or "()" for s in self.shapes)

    @property
    def id(self):
        return f"{self.form} [{self.shape_text}]"

    def args(self):
        """Fresh inputs (the same on every call)."""
        return self._args(np.random.default_rng(self.seed))

    def _args(self, rng):
        vals = [draw(k, s, rng) for k, s in zip(self.kinds, self.shapes)]
        return vals + [self.w]


def _seed(text):
    return zlib.crc32(text.encode())


def _expand(spec, shapes):
    """Argument names, kinds and shapes for one shape tuple (sequences spelled out)."""
    names, kinds, flat = [], [], []
    for (name, kind), shape in zip(spec.arrays.items(), shapes):
        if kind.startswith("seq"):
            for i, s in enumerate(shape):
                names.append(f"{name}{i}")
                kinds.append("real")
                flat.append(s)
        else:
            names.append(name)
            kinds.append(kind)
            flat.append(shape)
    return names, kinds, flat


def _loss_body(call, out):
    """Lines of a scalar loss of ``call`` whose value NumPy gave as ``out``."""
    def term(expr, value, w):
        value = np.asarray(value)
        if value.dtype.kind == "f":
            return f"np.sum(np.sin({expr}) * {w})"
        return f"np.sum({expr} * {w})"
    if isinstance(out, (tuple, list)):
        terms = [term(f"r[{i}]", v, f"w[{i}]") for i, v in enumerate(out)]
        return [f"r = {call}", "return " + " + ".join(terms)]
    return [f"return {term(call, out, 'w')}"]


def _weights(out, rng):
    if isinstance(out, (tuple, list)):
        return tuple(_weights(v, rng) for v in out)
    shape = np.shape(out)
    return rng.normal(size=shape) if shape else float(rng.normal())


def _instantiate(path, form, shapes, tag, spec_names, kinds):
    """A Case if NumPy accepts the form on these inputs (and it is smooth enough), else None."""
    rng = np.random.default_rng(_seed(f"{form} {shapes}"))
    vals = [draw(k, s, rng) for k, s in zip(kinds, shapes)]
    names = list(spec_names)
    empty = form.startswith("EMPTY ")
    call = form[6:] if empty else form
    if "{ARYS}" in call:
        call = call.replace("{ARYS}", ", ".join(names))
    env = {"np": np, "math": math, **dict(zip(names, vals))}
    try:
        with np.errstate(all="raise"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                out = eval(call, env)
    except Exception:
        return None
    if out is None or isinstance(out, (str, type)):
        return None
    leaves = out if isinstance(out, (tuple, list)) else (out,)
    try:
        if any(np.asarray(v).dtype.kind not in "fbiu" or not np.all(np.isfinite(np.asarray(v, float)))
               for v in leaves):
            return None
    except (TypeError, ValueError):
        return None
    float_in = any(k not in ("mask",) and not k.startswith("idx") for k in kinds)
    float_out = any(np.asarray(v).dtype.kind == "f" for v in leaves)
    body = []
    if empty:                        # uninitialised memory: fill it first
        body = [f"e = {call}", "e[...] = 0.5", ]
        call, names, kinds, shapes = "e * x", names + ["x"], kinds + ["real"], shapes + [np.shape(out)]
    elif not float_in or (not float_out and not isinstance(out, (tuple, list))):
        # integer/boolean results or no float input: a float argument x enters the loss
        if not float_in:
            call, names, kinds, shapes = f"({call}) * x", names + ["x"], kinds + ["real"], shapes + [np.shape(out)]
        else:
            first = next(n for n, k in zip(names, kinds) if k not in ("mask",) and not k.startswith("idx"))
            body = [f"s = np.sum(np.sin({first}))"]
            lines = _loss_body(call, out)
            lines[-1] = lines[-1].replace("return ", "return s + ")
            body += lines[:-1]
            case = Case(path, form, tuple(shapes), tag, names + ["w"], kinds)
            case.body = body + [lines[-1]]
            case.w = _weights(out, np.random.default_rng(_seed(form) + 1))
            case.seed = _seed(f"{form} {shapes}")
            return case
    case = Case(path, form, tuple(shapes), tag, names + ["w"], kinds)
    case.body = body + _loss_body(call, out)
    case.w = _weights(out, np.random.default_rng(_seed(form) + 1))
    case.seed = _seed(f"{form} {shapes}")
    if empty:
        case._args = lambda rng, c=case: ([draw(k, s, rng) for k, s in zip(c.kinds[:-1], c.shapes[:-1])]
                                           + [draw("real", c.shapes[-1], rng), c.w])
    return case


def _cases_for(path, fn):
    if path.startswith("math."):
        name = path[5:]
        n = 2 if name in MATH_BINARY else 1
        kind = MATH_KINDS.get(name, "real")
        names = ["x1", "x2"][:n]
        if name in ("isnan", "isinf", "isfinite"):
            return []
        return [c for c in [_instantiate(path, f"{path}({', '.join(names)})", [()] * n, "base", names,
                                         [kind if i == 0 or name in ("fmod", "copysign") else "real"
                                          for i in range(n)])] if c]
    spec = SPECS[path]
    cases = []
    forms = signature_forms(path, fn, spec)
    for form, tag in forms:
        for k, shapes in enumerate(spec.shapes):
            if k > 0 and tag not in ("base", "form", "method") and not (
                    tag == "joint" or "axis" in form or "ord" in form):
                continue            # parameter variants on the main shape, axes on every shape
            names, kinds, flat = _expand(spec, shapes)
            text = form
            if "{ARYS}" in text:
                text = text.replace("{ARYS}", ", ".join(names))
            case = _instantiate(path, text, flat, tag, names, kinds)
            if case is not None:
                case.main = k == 0
                cases.append(case)
    return cases


def _operator_cases():
    cases = []
    for name, (expr, k1, k2) in OPERATORS.items():
        names, kinds = (["x1"], [k1]) if k2 is None else (["x1", "x2"], [k1, k2])
        for shapes in BINARY_SHAPES[:4]:
            shapes = list(shapes[:len(names)])
            case = _instantiate(name, expr, shapes, "base", names, kinds)
            if case is not None:
                case.main = True
                cases.append(case)
    return cases


_CACHE = {}


def generate():
    """Every case, with its compiled-from-source function attached (cached)."""
    if "cases" in _CACHE:
        return _CACHE["cases"]
    cases = []
    for path, fn in covered().items():
        if path in SPECS or path.startswith("math."):
            cases += _cases_for(path, fn)
    cases += _operator_cases()
    seen, unique = set(), []
    for c in cases:
        if c.id not in seen:
            seen.add(c.id)
            unique.append(c)
    cases = unique
    _attach(cases)
    _mark_slices(cases)
    _CACHE["cases"] = cases
    return cases


BATCHED = {"np.matmul", "np.dot", "np.linalg.solve", "np.linalg.inv", "np.linalg.det", "np.linalg.slogdet",
           "np.linalg.cholesky", "np.linalg.norm", "np.trace", "np.einsum", "np.tensordot"}


def _mark_slices(cases):
    """The fast slice (python backend, ``make test``; also the numba slice): per function the
    base call and each parameter's first value in keyword form on the main shape, every shape
    of the linear algebra (batch dimensions), the explicit forms.  Everything else (other
    values, positional, method and joint forms, other shapes) runs on python in ``make test-slow``.  Positional,
    method and joint forms run on python in ``make test-slow``."""
    for c in cases:
        c.fast = (c.tag in ("base", "kw", "kw1", "form") and c.main) or (
            c.func in BATCHED and c.tag in ("base", "form"))
        c.fast = c.fast and c.tag != "kw"
        c.numba = c.fast


def _attach(cases):
    lines = ['"""Generated by tests/numpy_surface.py: one loss per NumPy call form."""',
             "import math", "", "import numpy as np", ""]
    for i, c in enumerate(cases):
        c.index = i
        c.lineno = len(lines) + 2
        lines.append(f"def case_{i}({', '.join(c.names)}):")
        lines += ["    " + b for b in c.body]
        lines.append("")
    text = "\n".join(lines) + "\n"
    folder = os.path.join(tempfile.gettempdir(), f"sstad_numpy_surface_{os.getpid()}")
    if not os.path.isdir(folder):
        os.makedirs(folder)
        atexit.register(shutil.rmtree, folder, ignore_errors=True)  # sstad reads it until the end
    digest = f"{zlib.crc32(text.encode()):08x}"
    file = os.path.join(folder, f"surface_cases_{digest}.py")
    if not os.path.exists(file):
        tmp = f"{file}.{os.getpid()}.tmp"
        with open(tmp, "w") as fh:
            fh.write(text)
        os.replace(tmp, file)
    spec = importlib.util.spec_from_file_location(f"surface_cases_{digest}", file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    for c in cases:
        c.fn = getattr(module, f"case_{c.index}")
        c.file = file


def source(case):
    return "\n".join([f"def loss({', '.join(case.names)}):"] + ["    " + b for b in case.body])


# --- running a case --------------------------------------------------------------------

def classify(exc, file):
    """``(outcome, message)`` for an exception a check of a function in ``file`` raised."""
    from sstad.errors import BackendError, SstadError
    from sstad.testing.gradcheck import NotSmoothError, SstadCrash
    text = str(exc).strip()
    if isinstance(exc, NotSmoothError):
        return "badpoint", text.splitlines()[0]
    if type(exc) is AssertionError:
        return "wrong", text
    if isinstance(exc, SstadCrash):
        return "crash", text
    if isinstance(exc, BackendError):
        return "crash", "BackendError (Numba cannot compile the emitted code): " + text
    if isinstance(exc, SstadError):
        loc = getattr(exc, "loc", None)
        if exc.message.startswith("internal"):
            return "crash", f"{type(exc).__name__} (an internal error at the user's line): {exc.message}"
        if loc is not None and os.path.abspath(loc.file) == os.path.abspath(file):
            return "refused", f"{type(exc).__name__}: {exc.message}"
        return "crash", f"{type(exc).__name__} not naming the user's line: {text}"
    return "crash", f"{type(exc).__name__}: {text}"


RANK = {"pass": 0, "refused": 1, "crash": 2, "wrong": 3, "badpoint": 4}


def run_checks(fn, make_args, backend, file, seed=0, checks=("value", "rev", "fwd")):
    """Check ``fn`` (defined in ``file``) at ``make_args()``: the compiled value against
    Python, reverse and forward mode against differences.  ``(outcome, {check: message})``
    with the worst outcome: pass < refused < crash < wrong."""
    from sstad.testing import check_grads
    results = {}
    for check in checks:
        modes = () if check == "value" else (check,)
        try:
            check_grads(fn, make_args(), modes=modes, check_value=(check == "value"), backend=backend, seed=seed)
            results[check] = ("pass", "")
        except Exception as exc:      # classified: pass, refused, wrong, crash
            results[check] = classify(exc, file)
    outcome = max((r[0] for r in results.values()), key=RANK.get)
    return outcome, {k: m for k, (o, m) in results.items() if o != "pass"}


def run_case(case, backend="python"):
    """Check the value, reverse mode and forward mode; returns ``(outcome, {check: message})``."""
    return run_checks(case.fn, case.args, backend, case.file, case.seed % 1000)


def summary(cases=None):
    cases = generate() if cases is None else cases
    funcs = {c.func for c in cases}
    return (f"{len(cases)} (function, call form, shape) combinations over {len(funcs)} functions; "
            f"{sum(c.fast for c in cases)} in the fast python slice, {sum(c.numba for c in cases)} in the numba slice")


# Index generators (of integers, or of an array's shape only): nothing to differentiate;
# their values are tested in tests/test_index_composites.py and tests/test_index_from.py.
INTEGER_ONLY = {"np.triu_indices", "np.tril_indices", "np.diag_indices", "np.ix_",
                "np.triu_indices_from", "np.tril_indices_from", "np.diag_indices_from"}


def missing_specs():
    """Covered NumPy functions this generator has no SPECS entry for."""
    return sorted(p for p in covered() if p not in SPECS and not p.startswith("math.") and p not in INTEGER_ONLY)


# --- today's defects: strict xfails ---------------------------------------------------------
# key: "<call form>" (every shape, both backends), "<call form> [<shapes>]", optionally
# followed by " @numba" or " @python" for one backend.  Value: what is wrong.
XFAIL = {
}


def xfail_reason(case, backend):
    for key in (f"{case.id} @{backend}", case.id, f"{case.form} @{backend}", case.form):
        if key in XFAIL:
            return XFAIL[key]
    return None


def reason_of(row):
    """A one-line reason from a result row: the outcome, the checks and the first message."""
    bad = [k for k, m in row["msgs"].items() if m]
    first = next(iter(row["msgs"].values()), "").splitlines()[0] if row["msgs"] else ""
    if row["outcome"] == "wrong":
        wrong = [k for k, m in row["msgs"].items() if "fails at order" in m]
        return f"WRONG {'/'.join(wrong)}" + ("" if wrong == bad else f"; {first[:120]}")
    crash = next((m.splitlines()[0] for m in row["msgs"].values() if m), "")
    crash = crash.replace(" not naming the user's line", " (no user line)")
    return f"CRASH {'/'.join(bad)}: {crash[:140]}"


def table(py_file, nb_file=None):
    """XFAIL entries from result files of ``--out``: a form whose every case fails the same
    way gets one entry; a case failing on one backend only gets an ``@backend`` key."""
    import json
    bad = ("wrong", "crash")
    py = {r["id"]: r for r in json.load(open(py_file))}
    nb = {r["id"]: r for r in json.load(open(nb_file))} if nb_file else {}
    entries = {}
    for case in generate():
        p, n = py.get(case.id), nb.get(case.id)
        pbad, nbad = p is not None and p["outcome"] in bad, n is not None and n["outcome"] in bad
        if pbad and (nbad or n is None):
            entries[case.id] = (reason_of(p), "")
        elif pbad:
            entries[case.id] = (reason_of(p), " @python")
        elif nbad:
            entries[case.id] = (reason_of(n), " @numba")
    by_form = {}
    for case in generate():
        by_form.setdefault(case.form, []).append(case)
    lines, done = [], set()
    for case in generate():
        if case.id not in entries or case.id in done:
            continue
        siblings = by_form[case.form]
        values = {entries.get(c.id) for c in siblings}
        if len(values) == 1:
            reason, suffix = entries[case.id]
            lines.append(f"    {case.form + suffix!r}: {reason!r},")
            done |= {c.id for c in siblings}
        else:
            reason, suffix = entries[case.id]
            lines.append(f"    {case.id + suffix!r}: {reason!r},")
            done.add(case.id)
    return "XFAIL = {\n" + "\n".join(lines) + "\n}"


def _main(argv):
    import argparse
    import collections
    import time
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="python")
    parser.add_argument("--slice", default="all", choices=["all", "fast", "numba"])
    parser.add_argument("--table", nargs="*", help="print an XFAIL table from result files (python [numba])")
    parser.add_argument("--only", default="")
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv)
    if args.table:
        print(table(*args.table))
        return
    cases = generate()
    print(summary(cases))
    if missing_specs():
        print("no SPECS entry:", missing_specs())
    todo = [c for c in cases if (args.slice == "all" or getattr(c, args.slice)) and args.only in c.id]
    counts = collections.Counter()
    rows = []
    t0 = time.time()
    for c in todo:
        outcome, msgs = run_case(c, args.backend)
        counts[outcome] += 1
        first = "; ".join(f"{k}: {m.splitlines()[0][:160] if m else ''}" for k, m in msgs.items())
        rows.append((c.func, c.id, outcome, first, msgs))
        print(f"{outcome:8s} {c.id}  {first}", flush=True)
    print(dict(counts), f"{time.time() - t0:.1f}s")
    if args.out:
        import json
        with open(args.out, "w") as fh:
            json.dump([{"func": f, "id": i, "outcome": o, "msgs": m} for f, i, o, _, m in rows], fh, indent=1)


if __name__ == "__main__":
    _main(sys.argv[1:])


def report(outcome, messages, what, fix, source=""):
    """Turn an outcome into a pytest verdict: a pass returns, a refusal is a skip with its
    message, a test point that is not smooth is the test's own error (``fix`` says where
    to change it), anything else fails with the checks' messages."""
    import pytest
    if outcome == "pass":
        return
    detail = "\n".join(f"[{check}] {message}" for check, message in messages.items())
    if outcome == "refused":
        pytest.skip(f"refused: {detail.splitlines()[0]}")
    if outcome == "badpoint":
        raise RuntimeError(f"the test point of {what} is not smooth ({fix}):\n{detail}")
    pytest.fail(f"{outcome.upper()}: {what}\n{source}{detail}", pytrace=False)
