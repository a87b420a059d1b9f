"""One test per reverse-mode rule: the pullback against central finite differences,
with broadcast shapes and axis/keepdims variants."""
import copy
import functools

import numpy as np
import pytest

import rule_cases as rc
import sstad
from fd import directional_derivative, inner, random_like

rng = np.random.default_rng(0)


def mat(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape)


def positive(*shape):
    return mat(*shape, low=0.3, high=2.0)


def unit(*shape):
    return mat(*shape, low=-0.8, high=0.8)


UNARY = {
    "negative": mat, "abs": mat, "exp": mat, "exp2": mat, "expm1": mat, "log": positive,
    "log2": positive, "log10": positive, "log1p": positive, "sqrt": positive, "cbrt": positive,
    "square": mat, "reciprocal": positive, "sin": mat, "cos": mat, "tan": unit, "arcsin": unit,
    "arccos": unit, "arctan": mat, "sinh": mat, "cosh": mat, "tanh": mat, "arcsinh": mat,
    "arccosh": lambda *s: mat(*s, low=1.5, high=3.0), "arctanh": unit,
}
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "arctan2", "hypot",
          "logaddexp", "power", "fmax", "fmin"]
BROADCASTS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (3,)), ((2, 3), ())]
REDUCTIONS = ["sum", "mean", "max", "min", "prod", "var", "std", "amax", "amin"]

CASES = []
for name, draw in UNARY.items():
    CASES.append((f"np.{name}", functools.partial(rc.apply1, getattr(np, name)), lambda d=draw: (d(3, 2),)))
for name in BINARY:
    for xs, ys in BROADCASTS:
        make = positive if name == "power" else mat
        CASES.append((f"np.{name}{xs}{ys}", functools.partial(rc.apply2, getattr(np, name)),
                      lambda xs=xs, ys=ys, make=make: (make(*xs) if xs else float(make(1)[0]),
                                                        make(*ys) if ys else float(make(1)[0]))))
for name in REDUCTIONS:
    for axis in (None, 0, 1, -1):
        for keepdims in (False, True):
            if axis is None and keepdims:
                continue
            CASES.append((f"np.{name}(axis={axis},keepdims={keepdims})",
                          rc.reducer(getattr(np, name), axis, keepdims),
                          lambda: (positive(3, 4),)))
CASES += [
    ("np.cumsum(axis=0)", rc.scan(np.cumsum, 0), lambda: (mat(3, 4),)),
    ("x ** 3", rc.pow_const, lambda: (mat(4),)),
    ("2.0 ** x", rc.rpow, lambda: (mat(4),)),
    ("x % y", rc.mod_op, lambda: (positive(4), positive(4) + 1.0)),
    ("a @ b (2-2)", rc.matmul_op, lambda: (mat(3, 4), mat(4, 2))),
    ("a @ b (2-1)", rc.matmul_op, lambda: (mat(3, 4), mat(4))),
    ("a @ b (1-2)", rc.matmul_op, lambda: (mat(4), mat(4, 2))),
    ("a @ b (1-1)", rc.matmul_op, lambda: (mat(4), mat(4))),
    ("np.dot", functools.partial(rc.apply2, np.dot), lambda: (mat(3, 4), mat(4, 2))),
    ("np.outer", functools.partial(rc.apply2, np.outer), lambda: (mat(3), mat(4))),
    ("np.trace", functools.partial(rc.apply1, np.trace), lambda: (mat(3, 3),)),
    ("np.linalg.solve", functools.partial(rc.apply2, np.linalg.solve),
     lambda: (mat(3, 3) + 4 * np.eye(3), mat(3))),
    ("np.linalg.solve (matrix rhs)", functools.partial(rc.apply2, np.linalg.solve),
     lambda: (mat(3, 3) + 4 * np.eye(3), mat(3, 2))),
    ("np.linalg.inv", functools.partial(rc.apply1, np.linalg.inv), lambda: (mat(3, 3) + 4 * np.eye(3),)),
    ("np.linalg.det", functools.partial(rc.apply1, np.linalg.det), lambda: (mat(3, 3) + 4 * np.eye(3),)),
    ("np.linalg.norm", functools.partial(rc.apply1, np.linalg.norm), lambda: (mat(5),)),
    ("np.where", rc.where_op, lambda: (mat(3, 4), mat(4))),
    ("np.clip", rc.clip_op, lambda: (mat(6),)),
    ("np.diag", functools.partial(rc.apply1, np.diag), lambda: (mat(3, 3),)),
    ("np.triu", functools.partial(rc.apply1, np.triu), lambda: (mat(3, 3),)),
    ("np.flip", functools.partial(rc.apply1, np.flip), lambda: (mat(3, 2),)),
    ("np.ravel", functools.partial(rc.apply1, np.ravel), lambda: (mat(3, 2),)),
    ("np.transpose", functools.partial(rc.apply1, np.transpose), lambda: (mat(3, 2),)),
    ("x[basic]", rc.getitem_basic, lambda: (mat(3, 4),)),
    ("x[int array]", rc.getitem_fancy, lambda: (mat(4), np.array([0, 2, 2, 3]))),
    ("x[mask]", rc.getitem_mask, lambda: (mat(6),)),
    ("y[1:3] = v", rc.setitem_slice, lambda: (mat(5), mat(2))),
    ("y[i] = w * x[i] in a loop", rc.setitem_scalar_in_loop, lambda: (mat(4), 1.5)),
    ("y += v; y *= x", rc.iadd_array, lambda: (mat(3, 2), mat(2))),
    ("reshape and .T", rc.reshape_T, lambda: (mat(3, 3),)),
    ("np.concatenate", rc.concat, lambda: (mat(2, 3), mat(2, 2))),
    ("np.stack", rc.stack, lambda: (mat(3), mat(3))),
    ("astype", rc.astype32, lambda: (mat(3),)),
    ("math.*", rc.math_ops, lambda: (0.7,)),
    ("builtin min/max/abs", rc.builtin_minmax, lambda: (0.3, -1.1)),
    ("expand_dims/squeeze", rc.expand_squeeze, lambda: (mat(3),)),
    ("np.swapaxes", rc.transpose_swap, lambda: (mat(3, 3),)),
    ("np.array of scalars", rc.array_of_scalars, lambda: (0.7, -1.3)),
    ("np.hstack", rc.hstack2, lambda: (mat(2, 3), mat(2, 2))),
    ("np.vstack", rc.vstack2, lambda: (mat(3), mat(2, 3))),
    ("np.roll", rc.roll1, lambda: (mat(5),)),
    ("np.repeat", rc.repeat2, lambda: (mat(4),)),
    ("np.cumprod", rc.scan(np.cumprod, 0), lambda: (positive(5),)),
    ("np.take", rc.take_idx, lambda: (mat(4), np.array([3, 0, 0, 2]))),
    ("np.sort", rc.sort1, lambda: (mat(5),)),
    ("np.split(x, 3)", rc.split_sections, lambda: (mat(6),)),
    ("np.split(x, (1, 3), axis=1)", rc.split_points_axis1, lambda: (mat(2, 5),)),
    ("np.linalg.slogdet", rc.slogdet_logabs, lambda: (mat(3, 3) - 4 * np.eye(3),)),
    ("np.take_along_axis (axis 1)", rc.take_along_rows,
     lambda: (mat(2, 3), np.array([[2, 2, 0, 1], [0, 1, 1, 1]]))),
    ("np.take_along_axis (axis 0)", rc.take_along_cols, lambda: (mat(3, 2), np.array([[2, 0], [2, 2]]))),
    ("np.take_along_axis (1-d)", rc.take_along_1d, lambda: (mat(4), np.array([3, 3, 0]))),
    ("np.concatenate (positional axis)", rc.concat_positional_axis, lambda: (mat(2, 3), mat(2, 2))),
    ("floor, round, sign, argmax, ceil: zero", rc.piecewise_constant, lambda: (mat(5),)),
    ("np.tril, np.broadcast_to, np.inner", rc.broadcast_tril_inner, lambda: (mat(3, 3), mat(3))),
    ("np.prod with a zero", rc.prod_with_zeros, lambda: (mat(3, 2),)),
    ("np.full (run-time value)", rc.full_of, lambda: (mat(3), 0.7)),
    ("math.erf, math.erfc", rc.erf_ops, lambda: (0.4,)),
    ("np.fliplr, np.flipud, x[::-1]", rc.flip_lr_ud, lambda: (mat(3, 3),)),
    ("np.flip(axis=1)", rc.flip_axis, lambda: (mat(2, 3),)),
]
PYTHON_ONLY = [  # Numba has no np.tile, np.moveaxis
    ("np.tile", rc.tile3, lambda: (mat(3),)),
    ("np.moveaxis", rc.moveaxis1, lambda: (mat(2, 3, 4),)),
    ("np.einsum", rc.einsum_matmul_trace, lambda: (mat(3, 3), mat(3, 2))),
    ("np.tensordot", rc.tensordot_pair, lambda: (mat(3, 4), mat(4, 2))),
    ("np.tensordot (3-d, axis pairs)", rc.tensordot_3d, lambda: (mat(2, 3, 4), mat(4, 2, 5))),
]
CASES.append(("np.linalg.cholesky", rc.cholesky_sym, lambda: (mat(3, 3) * 0.3 + 3 * np.eye(3),)))


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("label, fn, make_args", CASES, ids=[c[0] for c in CASES])
def test_rule_matches_finite_differences(label, fn, make_args, backend):
    check_rule(fn, make_args, backend)


@pytest.mark.parametrize("label, fn, make_args", PYTHON_ONLY, ids=[c[0] for c in PYTHON_ONLY])
def test_rule_matches_finite_differences_python_only(label, fn, make_args):
    check_rule(fn, make_args, "python")


def check_rule(fn, make_args, backend):
    args = make_args()
    static, values = (fn.args, args) if isinstance(fn, functools.partial) else ((), args)
    target = fn.func if isinstance(fn, functools.partial) else fn
    out = target(*static, *copy.deepcopy(values))
    cotangent, direction = random_like(out, rng), random_like(values, rng)
    expected = directional_derivative(lambda *v: target(*static, *v), values, direction, cotangent)
    assert expected is not None, "the test point is not smooth"
    grads = sstad.jit(sstad.pullback(target), backend=backend)(*static, *copy.deepcopy(values), cotangent)
    got = inner(grads[len(static):], direction)
    assert got == pytest.approx(expected, rel=1e-5, abs=1e-6)
