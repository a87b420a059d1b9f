"""HIPS/autograd's gradient test suite, re-expressed as sstad cases (our own words).

autograd checks its gradients with ``combo_check``: every combination of the argument lists
and keyword values it is given.  Here each such combination is one :class:`Case`: a NumPy
call with the same argument shapes, axes and keywords, as a function of the differentiated
arguments only.  Keywords and other non-differentiated parameters are bound by
:func:`bound`: sstad reads the constants the closure holds, so each binding compiles as a
call with literal keywords, as a user would write it.

Groups, by the autograd file the combinations come from:

* ``SYSTEMATIC``: tests/test_systematic.py (reductions with axis/keepdims, unary and binary
  ufuncs over every pair of shapes, products, einsum, shape functions, splits and stacks);
* ``NUMPY``: tests/test_numpy.py (indexing, reshapes, cumsum, clip, where, gradient...);
* ``LINALG``: tests/test_linalg.py (inv, solve, det, slogdet, norms, eigh, cholesky, svd,
  stacked too);
* ``SCIPY``: tests/test_scipy.py (stats densities, logsumexp, special functions);
* ``COMPLEX``: the complex arguments of test_systematic.py's checks, as real and
  imaginary parts;
* ``HIGHER``: second derivatives of a sample (test_wrappers.py's grad of grad);
* ``OTHER``: tests/test_numpy_interp.py and tests/test_fft.py;
* ``NUMBA_GROUPS``: the same calls, a family to a compiled function, for the numba backend.

Inputs are drawn where the function is smooth: no ties for sort, max, maximum; no points
near the kinks of abs, floor, mod; symmetric matrices for eigh and cholesky.  Cases that
tests/test_external_idioms.py already holds are left out.
"""
from __future__ import annotations

import operator as op
from dataclasses import dataclass

import numpy as np
import scipy.special as special
import scipy.stats as stats

rng = np.random.default_rng(20240)


def R(*shape):
    """Normal draws of ``shape``; no shape gives a Python float (autograd's ``npr.randn()``)."""
    return float(rng.normal()) if not shape else rng.normal(size=shape)


def U(lo, hi, *shape):
    return float(rng.uniform(lo, hi)) if not shape else rng.uniform(lo, hi, size=shape)


def within(lims, x):
    """``x`` in [0, 1] mapped onto ``lims`` (autograd's ``transform``)."""
    return x * (lims[1] - lims[0]) + lims[0]


def bound(fn, *tail, **keywords):
    """``fn`` of the differentiated arguments, with ``tail`` after them and ``keywords``."""
    def call(*arrays):
        return fn(*arrays, *tail, **keywords)
    return call


def after(fn, *head):
    """``fn`` with its leading arguments fixed: autograd differentiates only the later ones."""
    def call(*arrays):
        return fn(*head, *arrays)
    return call


def bound1(fn, *tail, **keywords):
    def call(x):
        return fn(x, *tail, **keywords)
    return call


def bound2(fn, *tail, **keywords):
    def call(x, y):
        return fn(x, y, *tail, **keywords)
    return call


@dataclass
class Case:
    name: str
    fn: object
    args: tuple
    order: int = 1


def _label(value):
    if isinstance(value, np.ndarray):
        return "x".join(map(str, value.shape)) or "0d"
    if isinstance(value, float):
        return "f"
    return repr(value).replace(" ", "")


def combos(name, fn, arg_lists, **keyword_lists):
    """Every combination of one value from each list (autograd's ``combo_check``)."""
    import itertools
    cases = []
    keys = list(keyword_lists)
    for args in itertools.product(*arg_lists):
        for values in itertools.product(*(keyword_lists[k] for k in keys)):
            kw = dict(zip(keys, values))
            binder = bound1 if len(args) == 1 else bound2 if len(args) == 2 else bound
            label = ",".join([_label(a) for a in args] + [f"{k}={_label(v)}" for k, v in kw.items()])
            cases.append(Case(f"{name}[{label}]", binder(fn, **kw), tuple(args)))
    return cases


# --- test_systematic.py: statistics ---------------------------------------------------

def statistics(name, fn, distinct=False):
    """Python floats; vectors and matrices with axis None/0 and keepdims; matrices with
    axis 1 too."""
    x, a = 3.5, R()
    b, c, d = R(3), R(2, 3), R(1, 3)
    return (combos(name, fn, [[x, a]])
            + combos(name, fn, [[b, c, d]], axis=[None, 0], keepdims=[True, False])
            + combos(name, fn, [[c, d]], axis=[1], keepdims=[True, False]))


STATISTICS = (statistics("max", np.max) + statistics("mean", np.mean) + statistics("min", np.min)
              + statistics("sum", np.sum) + statistics("prod", np.prod) + statistics("var", np.var)
              + statistics("std", np.std))


# --- test_systematic.py: unary ufuncs on a float, (2,), (3, 2), (1, 2) -----------------

def unary(name, fn, lims=(-2.0, 2.0)):
    shapes = [0.4, rng.uniform(size=2), rng.uniform(size=(3, 2)), rng.uniform(size=(1, 2))]
    return combos(name, fn, [[within(lims, s) for s in shapes]])


def degrees_scaled(x):
    return np.degrees(x) / 50.0


def rad2deg_scaled(x):
    return np.rad2deg(x) / 50.0


UNARY = (unary("sin", np.sin) + unary("abs", np.abs, (0.1, 4.0)) + unary("absolute", np.absolute, (0.1, 4.0))
         + unary("arccosh", np.arccosh, (1.1, 4.0)) + unary("arcsinh", np.arcsinh, (-0.9, 0.9))
         + unary("arctanh", np.arctanh, (-0.9, 0.9)) + unary("ceil", np.ceil, (-1.4, 1.4))
         + unary("cos", np.cos) + unary("cosh", np.cosh) + unary("deg2rad", np.deg2rad)
         + unary("degrees", degrees_scaled) + unary("exp", np.exp) + unary("exp2", np.exp2)
         + unary("expm1", np.expm1) + unary("fabs", np.fabs, (0.1, 2.0)) + unary("floor", np.floor, (-1.4, 1.4))
         + unary("log", np.log, (0.2, 2.0)) + unary("log10", np.log10, (0.2, 2.0))
         + unary("log1p", np.log1p, (0.2, 2.0)) + unary("log2", np.log2, (0.2, 2.0))
         + unary("rad2deg", rad2deg_scaled) + unary("radians", np.radians) + unary("sign", np.sign, (0.1, 2.0))
         + unary("sinh", np.sinh) + unary("sqrt", np.sqrt, (1.0, 3.0)) + unary("square", np.square)
         + unary("tan", np.tan, (-1.1, 1.1)) + unary("tanh", np.tanh) + unary("real", np.real)
         + unary("real_if_close", np.real_if_close) + unary("imag", np.imag) + unary("conj", np.conj)
         + unary("angle", np.angle, (0.1, 2.0)) + unary("arcsin", np.arcsin, (-0.9, 0.9))
         + unary("arccos", np.arccos, (-0.9, 0.9)) + unary("arctan", np.arctan))


# --- test_systematic.py: binary operations over every pair of the four shapes ---------

def binary(name, fn, lims_a=(-2.0, 2.0), lims_b=(-2.0, 2.0), same_draws=True):
    """The four shapes against the four shapes; ``same_draws=False`` gives each side its
    own draws (autograd's ``no_same_args``: mod and remainder at equal arguments jump)."""
    def shapes():
        return [0.6, rng.uniform(size=2), rng.uniform(size=(3, 2)), rng.uniform(size=(1, 2))]
    left = shapes()
    right = left if same_draws else [0.7] + shapes()[1:]
    return combos(name, fn, [[within(lims_a, s) for s in left], [within(lims_b, s) for s in right]])


def power_operator(a, b):
    return a ** b


def modulo_operator(a, b):
    return a % b


BINARY = (binary("add", np.add) + binary("logaddexp", np.logaddexp) + binary("logaddexp2", np.logaddexp2)
          + binary("remainder", np.remainder, (-0.9, 0.9), (0.7, 1.9), same_draws=False)
          + binary("true_divide", np.true_divide, lims_b=(0.8, 1.2))
          + binary("true_divide_neg", np.true_divide, lims_b=(-0.3, -2.0))
          + binary("mod", np.mod, (-0.9, 0.9), (0.8, 2.1), same_draws=False)
          + binary("mod_neg", np.mod, (-0.9, 0.9), (-0.3, -2.0), same_draws=False)
          + binary("op_mul", op.mul) + binary("op_add", op.add) + binary("op_sub", op.sub)
          + binary("op_mod", modulo_operator, (-0.9, 0.9), (1.3, 2.0), same_draws=False)
          + binary("op_truediv", op.truediv, lims_b=(0.5, 2.0))
          + binary("op_pow", power_operator, lims_a=(0.7, 2.0))
          + binary("subtract", np.subtract) + binary("multiply", np.multiply)
          + binary("hypot", np.hypot, (0.3, 2.0), (0.3, 2.0))
          + binary("arctan2", np.arctan2, (0.3, 2.0), (0.3, 2.0)))


# --- test_systematic.py: products, einsum, shape functions ----------------------------

def misc_systematic():
    c = []
    c += combos("transpose", np.transpose, [[R(2, 3, 4)]],
                axes=[None, (0, 1, 2), (0, 2, 1), (2, 0, 1), (2, 1, 0), (1, 0, 2), (1, 2, 0)])
    c += combos("repeat", np.repeat, [[R(2, 3, 4), R(3, 1)]], repeats=[0, 1, 2], axis=[None, 0, 1])
    c += combos("diff", np.diff, [[R(5, 5), R(5, 5, 5)]], n=[1, 2], axis=[0, 1])
    c += combos("diff", np.diff, [[R(1), R(1, 1)]], axis=[0])
    c += combos("diff", np.diff, [[R(1, 1), R(3, 1)]], axis=[1])
    c += combos("tile", np.tile, [[R(2, 1, 3, 1)]], reps=[(1, 4, 1, 2)])
    c += combos("tile", np.tile, [[R(1, 2)]], reps=[(1, 2), (2, 3), (3, 2, 1)])
    c += combos("tile", np.tile, [[R(1)]], reps=[(2,), 2])
    c += combos("kron", np.kron, [[R(5, 5), R(4, 4)], [R(3, 3), R(2, 2)]])
    c += combos("inner", np.inner, [[1.5, R(3), R(2, 3)], [0.3, R(3), R(4, 3)]])
    c += combos("dot", np.dot, [[1.5, R(3), R(2, 3), R(2, 2, 3)], [0.3, R(3), R(3, 4), R(2, 3, 4)]])
    c += combos("matmul", np.matmul, [[R(3), R(2, 3), R(2, 2, 3)], [R(3), R(3, 4), R(2, 3, 4)]])
    c += combos("tensordot1", np.tensordot, [[R(1, 3), R(2, 3, 2)], [R(3), R(3, 1), R(3, 4, 2)]],
                axes=[((1,), (0,))])
    c += combos("tensordot2", np.tensordot, [[R(3), R(3, 1), R(3, 4, 2)], [R(1, 3), R(2, 3, 2)]],
                axes=[((0,), (1,))])
    c += combos("tensordot3", np.tensordot, [[R(2, 3), R(2, 3, 4)], [R(1, 2, 3), R(2, 2, 3, 4)]],
                axes=[((0, 1), (1, 2)), ((1, 0), (2, 1))])
    c += combos("tensordot4", np.tensordot, [[R(2, 2), R(4, 2, 2)], [R(2, 2), R(2, 2, 4)]], axes=[1, 2])
    c += combos("tensordot5", np.tensordot, [[R(4)], [R()]], axes=[0])
    c += combos("tensordot5", np.tensordot, [[R(), R(2, 3)], [R(4), R()]], axes=[0])
    c += combos("tensordot6", np.tensordot, [[R(2, 6)], [R(6, 3)]], axes=[((-1,), (0,))])
    for name, fn in (("maximum", np.maximum), ("fmax", np.fmax), ("minimum", np.minimum), ("fmin", np.fmin)):
        c += combos(name, fn, [[R(1), R(1, 4), R(3, 4)], [R(1), R(1, 4), R(3, 4)]])
    c += combos("sort", np.sort, [[R(1), R(7)]])
    c += combos("partition", np.partition, [[R(7), R(14)]], kth=[0, 3, 6])
    for name, fn in (("atleast_1d", np.atleast_1d), ("atleast_2d", np.atleast_2d), ("atleast_3d", np.atleast_3d)):
        c += combos(name, fn, [[1.2, R(1), R(7), R(1, 4), R(2, 4), R(2, 4, 5)]])
    c += combos("atleast_3d", np.atleast_3d, [[R(2, 4, 3, 5)]])
    c += combos("trace", np.trace, [[R(5, 5), R(4, 5), R(5, 4), R(3, 4, 5)]], offset=[-1, 0, 1])
    c += combos("diag", np.diag, [[R(5, 5), R(5)]], k=[-1, 0, 1])
    c += combos("tril", np.tril, [[R(5, 5), R(5, 5, 4)]], k=[-1, 0, 1])
    c += combos("triu", np.triu, [[R(5, 5), R(5, 5, 4)]], k=[-1, 0, 1])
    c += combos("swapaxes", np.swapaxes, [[R(3, 4, 5)]], axis1=[0, 1, 2], axis2=[0, 1, 2])
    c += combos("rollaxis", np.rollaxis, [[R(2, 3, 4)]], axis=[0, 1, 2], start=[0, 1, 2, 3])
    c += combos("rollaxis", np.rollaxis, [[R(2, 3, 4)]], axis=[-1, 1], start=[-3, -1])
    c += combos("cross", np.cross, [[R(3, 3)], [R(3, 3)]], axisa=[-1, 0, 1], axisb=[-1, 0, 1], axisc=[-1, 0, 1])
    c += combos("cross", np.cross, [[R(3, 3)], [R(3, 3)]], axis=[-1, 0, 1])
    for name, fn, arrays in (("vsplit", np.vsplit, [R(4, 8), R(4, 4, 4)]), ("hsplit", np.hsplit, [R(4, 8), R(4, 4, 4)]),
                             ("dsplit", np.dsplit, [R(4, 4, 4)])):
        for a in arrays:
            c += combos(name, fn, [[a]], indices_or_sections=[4 if a.ndim == 2 and name != "dsplit" else 2, [1, 2]])
    c += combos("split", np.split, [[R(1), R(7)]], indices_or_sections=[1], axis=[0])
    c += combos("split", np.split, [[R(4, 8)]], indices_or_sections=[4, [1, 2]], axis=[0, 1])
    c += combos("split", np.split, [[R(4, 4, 4)]], indices_or_sections=[2, [1, 2]], axis=[0, 1, 2])
    c += combos("array_split", np.array_split, [[R(1), R(7)]], indices_or_sections=[1, 3], axis=[0])
    c += combos("array_split", np.array_split, [[R(7, 7)]], indices_or_sections=[4, [3, 5]], axis=[0, 1])
    c += combos("array_split", np.array_split, [[R(7, 7, 7)]], indices_or_sections=[4, [3, 5]], axis=[0, 1, 2])
    return c


def einsum_transpose(a):
    return np.einsum("ij->ji", a)


def einsum_matmul(a, b):
    return np.einsum("ij,jk->ik", a, b)


def einsum_matmul_broadcast(a, b):
    return np.einsum("...ij,...jk->...ik", a, b)


def einsum_covsum(a, b):
    return np.einsum("ijk,lji->lki", a, b)


def einsum_ellipsis_lead(a, b):
    return np.einsum("...jk,...lj->...lk", a, b)


def einsum_ellipsis_only(a, b):
    return np.einsum("...,...->...", a, b)


def einsum_ellipsis_tail(a, b):
    return np.einsum("jk...,lj...->lk...", a, b)


def einsum_ellipsis_centre(a, b):
    return np.einsum("j...k,lj...->lk...", a, b)


def einsum_three(a, b, c):
    return np.einsum("ijk,lji,lli->lki", a, b, c)


def einsum_sublist_transpose(a):
    return np.einsum(a, [0, 1], [1, 0])


def einsum_sublist_matmul(a, b):
    return np.einsum(a, [0, 1], b, [1, 2], [0, 2])


def einsum_sublist_broadcast(a, b):
    return np.einsum(a, [Ellipsis, 0, 1], b, [Ellipsis, 1, 2], [Ellipsis, 0, 2])


def einsum_sublist_covsum(a, b):
    return np.einsum(a, [0, 1, 2], b, [3, 1, 0], [3, 2, 0])


def einsum_sublist_three(a, b, c):
    return np.einsum(a, [0, 1, 2], b, [3, 1, 0], c, [3, 3, 0], [3, 2, 0])


def einsums():
    c = []
    c += combos("einsum_transpose", einsum_transpose, [[R(1, 1), R(4, 4), R(3, 4)]])
    c += combos("einsum_matmul", einsum_matmul, [[R(2, 3)], [R(3, 4)]])
    c += combos("einsum_matmul_broadcast", einsum_matmul_broadcast, [[R(2, 3), R(2, 2, 3)], [R(3, 4), R(2, 3, 4)]])
    c += combos("einsum_covsum", einsum_covsum, [[R(3, 4, 4)], [R(4, 4, 3)]])
    c += combos("einsum_ellipsis_lead", einsum_ellipsis_lead, [[R(4, 4), R(3, 4, 4)], [R(4, 4), R(3, 4, 4)]])
    c += combos("einsum_ellipsis_only", einsum_ellipsis_only, [[R(4, 4), R(3, 4, 4)], [R(4, 4), R(3, 4, 4)]])
    c += combos("einsum_ellipsis_tail", einsum_ellipsis_tail, [[R(3, 2), R(3, 2, 4)], [R(2, 3), R(2, 3, 4)]])
    c += combos("einsum_ellipsis_centre", einsum_ellipsis_centre, [[R(2, 2), R(2, 2, 2)], [R(2, 2), R(2, 2, 2)]])
    c += combos("einsum_three", einsum_three, [[R(3, 4, 4)], [R(4, 4, 3)], [R(4, 4, 3)]])
    c += combos("einsum_sublist_transpose", einsum_sublist_transpose, [[R(1, 1), R(4, 4), R(3, 4)]])
    c += combos("einsum_sublist_matmul", einsum_sublist_matmul, [[R(2, 3)], [R(3, 4)]])
    c += combos("einsum_sublist_broadcast", einsum_sublist_broadcast, [[R(2, 3), R(2, 2, 3)], [R(3, 4), R(2, 3, 4)]])
    c += combos("einsum_sublist_covsum", einsum_sublist_covsum, [[R(3, 4, 4)], [R(4, 4, 3)]])
    c += combos("einsum_sublist_three", einsum_sublist_three, [[R(3, 4, 4)], [R(4, 4, 3)], [R(4, 4, 3)]])
    return c


# --- test_systematic.py: joining arrays (the tuple is the argument) --------------------

def concatenate_pair(a, b, axis=0):
    return np.concatenate((a, b), axis=axis)


def concatenate_list(a, b):
    return np.concatenate([a, b])


def vstack_one(a):
    return np.vstack(a)


def vstack_pair(a, b):
    return np.vstack((a, b))


def hstack_one(a):
    return np.hstack(a)


def hstack_pair(a, b):
    return np.hstack((a, b))


def stack_one_1d(a):
    return np.stack((a,), axis=0) + np.stack((a,), axis=1).T


def stack_pair(a, b):
    return np.stack((a, b), axis=0) + np.stack((a, b), axis=1).T


def column_stack_one(a):
    return np.column_stack(a)


def column_stack_pair(a, b):
    return np.column_stack((a, b))


def select_three(x, y, z):
    masks = [SELECT_MASKS[0], SELECT_MASKS[1], SELECT_MASKS[2]]
    return np.select(masks, [x, y, z], default=1.1)


SELECT_MASKS = rng.normal(size=(3, 3, 4, 5)) > 0.0


def joins():
    c = []
    c += combos("concatenate_list", concatenate_list, [[R(1)], [R(3)]])
    c += combos("concatenate", concatenate_pair, [[R(2, 2)], [R(2, 2)]], axis=[0, 1])
    c += combos("concatenate", concatenate_pair, [[R(2, 2, 2)], [R(2, 2, 2)]], axis=[0, 1, 2])
    c += combos("vstack", vstack_one, [[R(2), R(2, 3), R(2, 3, 4), R(2, 3, 4, 5)]])
    c += [Case("vstack[pair]", vstack_pair, a) for a in ((R(2), R(2)), (R(2, 4), R(1, 4)), (R(2, 3, 4), R(5, 3, 4)))]
    c += combos("hstack", hstack_one, [[R(2), R(3, 2), R(2, 3, 4), R(2, 3, 4, 5)]])
    c += [Case("hstack[pair]", hstack_pair, a) for a in ((R(2), R(2)), (R(3, 4), R(3, 5)), (R(2, 1, 4), R(2, 5, 4)))]
    c += [Case("stack[one]", stack_one_1d, (R(2),)), Case("stack[pair]", stack_pair, (R(2), R(2)))]
    c += combos("column_stack", column_stack_one, [[R(2), R(2, 2)]])
    c += [Case("column_stack[pair]", column_stack_pair, a) for a in ((R(2), R(2)), (R(2, 2), R(2, 2)))]
    c += [Case("select", select_three, (R(3, 4, 5), R(3, 4, 5), R(3, 4, 5)))]
    return c


SYSTEMATIC = STATISTICS + UNARY + BINARY + misc_systematic() + einsums() + joins()


# --- test_numpy.py ---------------------------------------------------------------------

def dot(x, y):
    return np.dot(x, y)


def outer(x, y):
    return np.outer(x, y)


def builtin_sum_of_two(x, y):
    return sum([x, y])


def index_ints(x):
    return x[3, 0, 1]


def index_reversed_slice(x):
    return x[::-1, 2:4, :]


def vector_slice(x):
    return x[2:4]


def slice_fanout(x):
    return x[::-1, 2:4, :] + x[::-1, 3:5, :]


def slice_of_slice(x):
    y = x[2:6]
    return y[1:3]


def reshape_method_tuple(x):
    return x.reshape((5 * 4, 6))


def reshape_function(x):
    return np.reshape(x, (5 * 4, 6))


def reshape_method_numbers(x):
    return x.reshape(5 * 4, 6)


def ravel_method(x):
    return x.ravel()


def ravel_function(x):
    return np.ravel(x)


def flatten_method(x):
    return x.flatten()


def append_flat(a, b):
    return np.append(a, b)


def append_rows(a, b):
    return np.append(a, b, axis=0)


CONCAT_FIXED = R(5, 6, 4)


def concatenate_constant_first(x):
    return np.concatenate((CONCAT_FIXED[:4], x))


def concatenate_between_constants(x):
    return np.concatenate((CONCAT_FIXED, x, CONCAT_FIXED))


def concatenate_between_constants_axis1(x):
    return np.concatenate((CONCAT_FIXED, x, CONCAT_FIXED), axis=1)


def concatenate_axis_by_position(x):
    return np.concatenate((CONCAT_FIXED, x, CONCAT_FIXED), 1)


def transpose_attribute(x):
    return x.T


def roll_two_columns(x):
    return np.roll(x, 2, axis=1)


def roll_flat(x):
    return np.roll(x, 2)


def clip_between(x):
    return np.clip(x, a_min=0.1, a_max=1.1)


def array_of_numbers(x):
    return np.array([x, x * 1.0, x + 2.5])


def array_of_number_rows(x):
    return np.array([[x, x * 1.0, x + 2.5], [x ** 2, x, x / 2.0]])


def array_of_numbers_fanout(x):
    a = np.array([x, x * 1.0, x + 2.5])
    return a + a


def array_of_number_rows_fanout(x):
    a = np.array([[x, x * 1.0, x + 2.5], [x ** 2, x, x / 2.0]])
    return a + a


def array_of_a_number(x):
    return np.array(x)


def array_of_arrays(x):
    return np.array([x, x])


def length_checked(x):
    assert len(x) == 3
    return x


WHERE_MASK = R(4, 5) > 0.0


def where_fixed_mask(x, y):
    return np.where(WHERE_MASK, x, y)


def squeeze_function(x):
    return np.squeeze(x)


def squeeze_method(x):
    return x.squeeze()


def expand_axis2(x):
    return np.expand_dims(x, 2)


def tensordot_by_position(x):
    return np.tensordot(x * np.ones((2, 2)), x * np.ones((2, 2)), 2)


def repeated_index(x):
    return np.sum(x[[0, 0]])


def repeated_index_three(x):
    return np.sum(x[[0, 1, 0]])


def dot_of_halves(x):
    return np.dot(x[:2], x[2:])


CAST_INDS = np.ones(5)[:, None]


def cast_last_column_to_int(w):
    glued = np.concatenate((w, CAST_INDS), axis=1)
    new_w = glued[:, :-2]
    rows = np.int64(glued[:, -1])
    return new_w[rows].sum()


def diagonal_last_axes(d):
    return np.diagonal(d, axis1=-1, axis2=-2)


NAN_SHIFT = np.array([0.0, np.nan, np.inf, -np.inf])


def sin_of_nan_to_num(x):
    return np.sum(np.sin(np.nan_to_num(x + NAN_SHIFT)))


def sine_of_float64(x):
    return np.sum(np.sin(x.astype("float64")))


def numpy_cases():
    c = []
    m10, m10b, v10, v11a, v11b = R(10, 11), R(10, 11), R(10), R(11), R(11)
    c += [Case("dot", dot, a) for a in ((m10, v11a), (m10, m10b.T), (v10, m10), (v11a, v11b))]
    f = R()
    c += [Case("dot_float", dot, a) for a in ((m10, f), (f, m10), (v10, f), (f, v10))]
    c += [Case("outer", outer, (v11a, v11b))]
    for name, fn in (("max", np.max), ("min", np.min)):
        c += combos(name, fn, [[R(3, 4, 5)]], axis=[1], keepdims=[False, True])
    c += combos("sum", np.sum, [[R(10, 11, 7)]], axis=[(1, 2)])
    for name, fn in (("flipud", np.flipud), ("fliplr", np.fliplr), ("rot90", np.rot90)):
        c += combos(name, fn, [[R(10, 11)]])
    c += combos("cumsum", np.cumsum, [[R(10, 11)]], axis=[0, 1])
    c += combos("cumsum", np.cumsum, [[R(10), R(10, 11)]])
    c += [Case("builtin_sum", builtin_sum_of_two, (R(10, 11), R(10, 11)))]
    c += combos("mean", np.mean, [[R(10, 11)]], axis=[0], keepdims=[False, True])
    a = R(5, 6, 4)
    for fn in (index_ints, index_reversed_slice, slice_fanout, reshape_method_tuple, reshape_function,
               reshape_method_numbers, ravel_method, ravel_function, flatten_method):
        c.append(Case(fn.__name__, fn, (a,)))
    c += [Case("vector_slice", vector_slice, (R(5),)), Case("slice_of_slice", slice_of_slice, (R(7),))]
    c += [Case("append_flat", append_flat, (np.array([1.0, 2.0, 3.0]), 4.0)),
          Case("append_rows", append_rows, (np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), np.array([[7.0, 8.0, 9.0]])))]
    c += [Case("concatenate_constant_first", concatenate_constant_first, (R(4, 6, 4),))]
    for fn in (concatenate_between_constants, concatenate_between_constants_axis1, concatenate_axis_by_position):
        c.append(Case(fn.__name__, fn, (R(5, 6, 4),)))
    c += combos("trace", np.trace, [[R(10, 11)]], offset=[-7, 4])
    c += combos("trace", np.trace, [[R(11, 10)]], offset=[3])
    c += combos("trace", np.trace, [[R(5, 6, 4, 3)]], offset=[-3, 2])
    c += combos("diag", np.diag, [[R(10, 10)]])
    c += [Case("transpose_attribute", transpose_attribute, (R(8, 8),)), Case("roll", roll_two_columns, (R(4, 5),)),
          Case("roll_flat", roll_flat, (R(4, 5),))]
    c += combos("triu", np.triu, [[R(5, 5)]], k=[2])
    c += combos("tril", np.tril, [[R(5, 5)]], k=[2])
    c += [Case("clip", clip_between, (np.array([-0.5, 0.3, 0.6, 1.5, 0.9, 2.0, -1.0, 0.2]),))]
    c += combos("prod", np.prod, [[R(2, 3) ** 2 / 10.0 + 0.1, R(7) ** 2 + 0.1]])
    c += combos("prod", np.prod, [[R(2, 3) ** 2 + 0.1]], axis=[0], keepdims=[False, True])
    for fn in (array_of_numbers, array_of_number_rows, array_of_numbers_fanout, array_of_number_rows_fanout,
               array_of_a_number):
        c.append(Case(fn.__name__, fn, (3.0,)))
    c += [Case("array_of_arrays", array_of_arrays, (R(3, 2),)), Case("length_checked", length_checked, (R(3, 2),))]
    c += [Case("where", where_fixed_mask, (R(4, 5), R(4, 5)))]
    c += [Case("squeeze_function", squeeze_function, (R(5, 1, 4),)), Case("squeeze_method", squeeze_method, (R(5, 1, 4),))]
    c += combos("repeat", np.repeat, [[R(5, 3, 4)]], repeats=[2, 1], axis=[1])
    c += combos("repeat", np.repeat, [[R(5, 3), R(5)]], repeats=[2], axis=[0])
    c += combos("repeat", np.repeat, [[R(5, 1)]], repeats=[1], axis=[0])
    c += [Case("expand_dims", expand_axis2, (R(5, 1, 4),)), Case("tensordot_by_position", tensordot_by_position, (1.0,))]
    c += [Case("repeated_index", repeated_index, (R(3),)), Case("repeated_index_three", repeated_index_three, (R(3),)),
          Case("dot_of_halves", dot_of_halves, (R(4),))]
    c += [Case("cast_to_int", cast_last_column_to_int, (R(5, 10),))]
    c += [Case("diagonal", diagonal_last_axes, (R(4, 4),)), Case("diagonal_stacked", diagonal_last_axes, (R(3, 4, 4),))]
    c += [Case("nan_to_num", sin_of_nan_to_num, (R(4),))]
    for num in (1, 5):
        c += [Case(f"linspace[{num}]", bound2(np.linspace, num), pair) for pair in ((1.2, 3.4), (1.2, -3.4))]
    c += [Case("astype", sine_of_float64, (np.arange(3.0),))]
    c += combos("gradient", np.gradient, [[R(10), R(10, 10), R(4, 4, 4)]])
    c += combos("gradient", np.gradient, [[R(4, 4, 4)]], axis=[None, 0, 1, -1, (0, 1), (0, -1)])
    b, cc, d = R(3), R(3, 4), R(1, 3)
    for name, fn in (("var", np.var), ("std", np.std)):
        c += combos(name, fn, [[b, cc, d]], axis=[None], keepdims=[True, False], ddof=[0, 1])
        c += combos(name, fn, [[cc, d]], axis=[None, 1], keepdims=[True, False], ddof=[2])
    return c


NUMPY = numpy_cases()


# --- test_linalg.py --------------------------------------------------------------------

def swap_last(a):
    return np.swapaxes(a, -1, -2)


def symmetric(a):
    """The symmetric matrix of ``a``'s lower triangle (autograd symmetrizes the argument of
    eigh and cholesky: their rules read one triangle)."""
    lower = np.tril(a)
    return (lower + swap_last(lower)) / 2.0


def inv(x):
    return np.linalg.inv(x)


def pinv(x):
    return np.linalg.pinv(x)


def pinv_of_gram(x):
    return np.linalg.pinv(x.T @ x)


def pinv_of_gram_stacked(x):
    return np.linalg.pinv(swap_last(x) @ x)


SOLVE_B = R(8, 7)
SOLVE_B1 = R(8)
SOLVE_A2 = R(6, 6) + np.eye(6)
SOLVE_B3 = R(5, 4)
SOLVE_B33 = R(5, 4, 6)


def solve_for_matrix(a):
    return np.linalg.solve(a, SOLVE_B)


def solve_for_vector(a):
    return np.linalg.solve(a, SOLVE_B1)


def solve_right_side(b):
    return np.linalg.solve(SOLVE_A2, b)


def solve_stacked_columns(a):
    return np.linalg.solve(a, SOLVE_B3[..., None])[..., 0]


def solve_stacked(a):
    return np.linalg.solve(a, SOLVE_B33)


def det(x):
    return np.linalg.det(x)


def logdet(x):
    sign, value = np.linalg.slogdet(x)
    return value


def summed_logdets(x):
    return np.sum(np.linalg.slogdet(x)[1])


def norm(x):
    return np.linalg.norm(x)


def norm_of_two_numbers(x):
    return np.linalg.norm([x, x + 2.0]) + np.linalg.norm((x, x + 2.0))


def norm_first_axes(x):
    return np.linalg.norm(x, axis=(0, 1))


def nuclear_norm(x):
    return np.linalg.norm(x, ord="nuc")


def nuclear_norm_first_axes(x):
    return np.linalg.norm(x, ord="nuc", axis=(0, 1))


def eigh_lower(x):
    w, v = np.linalg.eigh(symmetric(x))
    return w, v


def eigh_upper(x):
    w, v = np.linalg.eigh(symmetric(x), "U")
    return w, v


def cholesky(x):
    return np.linalg.cholesky(symmetric(x))


CHOL_Z = R(6)


def reparameterized_norm(x):
    z = np.dot(np.linalg.cholesky(symmetric(x)), CHOL_Z)
    return np.linalg.norm(z)


def svd_thin(x):
    u, s, v = np.linalg.svd(x, full_matrices=False)
    return u, s, v


def singular_values(x):
    return np.linalg.svd(x, full_matrices=False, compute_uv=False)


def psd(n):
    m = R(n, n)
    return m @ m.T


def linalg_cases():
    c = []
    m = R(8, 8)
    c += [Case("inv", inv, (m @ m + np.eye(8),)), Case("inv_3d", inv, (R(4, 4, 4) + 5 * np.eye(4),)),
          Case("inv_4d", inv, (R(4, 4, 4, 4) + 5 * np.eye(4),))]
    for cols in range(2, 8):
        c += [Case(f"pinv[5x{cols}]", pinv, (R(5, cols),)), Case(f"pinv[2x5x{cols}]", pinv, (R(2, 5, cols),))]
    for cols in (2, 4):
        c += [Case(f"pinv_of_gram[5x{cols}]", pinv_of_gram, (R(5, cols),)),
              Case(f"pinv_of_gram[2x5x{cols}]", pinv_of_gram_stacked, (R(2, 5, cols),))]
    c += [Case("solve_arg1", solve_for_matrix, (R(8, 8) + 10 * np.eye(8),)),
          Case("solve_arg1_1d", solve_for_vector, (R(8, 8) + 10 * np.eye(8),)),
          Case("solve_arg2", solve_right_side, (R(6, 5),)),
          Case("solve_arg1_3d", solve_stacked_columns, (R(5, 4, 4) + 5 * np.eye(4),)),
          Case("solve_arg1_3d_3d", solve_stacked, (R(5, 4, 4) + 5 * np.eye(4),))]
    d6 = R(6, 6)
    c += [Case("det", det, (d6,)), Case("det_3d", det, (R(3, 3, 3),)), Case("slogdet", logdet, (d6,)),
          Case("slogdet_negated", logdet, (-d6,)),
          Case("slogdet_3d", summed_logdets, (np.stack([psd(5) + 5 * np.eye(5) for _ in range(3)]),))]
    c += [Case("vector_2norm", norm, (R(6),)), Case("norm_of_list", norm_of_two_numbers, (0.3,)),
          Case("frobenius", norm, (R(6, 5),)), Case("frobenius_axis", norm_first_axes, (R(6, 5, 4),))]
    c += combos("vector_norm", np.linalg.norm, [[R(6)]], ord=[2, 3, 4])
    c += combos("norm_axis", np.linalg.norm, [[R(6, 5, 4)]], axis=[0, 1, 2])
    c += [Case("nuclear", nuclear_norm, (R(6, 5),)), Case("nuclear_axis", nuclear_norm_first_axes, (R(6, 5, 4),))]
    c += [Case("eigh_lower", eigh_lower, (R(6, 6),)), Case("eigh_upper", eigh_upper, (R(6, 6),))]
    stacked = R(2, 3, 6, 6) + 10 * np.eye(6)
    stacked = np.einsum("...ij,...kj->...ik", stacked, stacked)
    c += [Case("eigh_lower_stacked", eigh_lower, (stacked,)), Case("eigh_upper_stacked", eigh_upper, (stacked,))]
    c += [Case("cholesky", cholesky, (psd(6),)), Case("cholesky_stacked", cholesky, (np.stack([psd(6)] * 3),)),
          Case("cholesky_reparameterized", reparameterized_norm, (psd(6),))]
    for shape in ((3, 5), (4, 3, 5), (4, 4), (3, 4, 4), (5, 3), (4, 5, 3)):
        c.append(Case(f"svd[{'x'.join(map(str, shape))}]", svd_thin, (R(*shape),)))
    c += [Case("singular_values[5x3]", singular_values, (R(5, 3),)),
          Case("singular_values[4x5x3]", singular_values, (R(4, 5, 3),))]
    return c


LINALG = linalg_cases()


# --- test_scipy.py ---------------------------------------------------------------------

def positive(*shape):
    return R(*shape) ** 2 + 1.1


def mvn_pdf(x, mean, cov):
    return stats.multivariate_normal.pdf(x, mean, symmetric_full(cov))


def mvn_logpdf(x, mean, cov):
    return stats.multivariate_normal.logpdf(x, mean, symmetric_full(cov))


def symmetric_full(a):
    return 0.5 * (a + np.swapaxes(a, -1, -2))


def normalized(x):
    return x / np.sum(x)


def dirichlet_pdf_of_x(x, alpha):
    return stats.dirichlet.pdf(normalized(x), alpha)


def dirichlet_logpdf_of_x(x, alpha):
    return stats.dirichlet.logpdf(normalized(x), alpha)


def dirichlet_pdf(x, alpha):
    return stats.dirichlet.pdf(x, alpha)


def dirichlet_logpdf(x, alpha):
    return stats.dirichlet.logpdf(x, alpha)


def t_cdf_of_point_and_loc(x, loc, df, scale):
    return stats.t.cdf(x, df, loc, scale)


def t_logcdf_of_point_and_loc(x, loc, df, scale):
    return stats.t.logcdf(x, df, loc, scale)


def logsumexp_of_one_row(a):
    return special.logsumexp(a, axis=1, keepdims=True)


def make_psd(m):
    return m.T @ m + np.eye(m.shape[1])


def special_unary(name, fn, lims):
    return unary(name, fn, lims)


def scipy_cases():
    c = []
    chi_x = positive(4)
    for method in ("pdf", "cdf", "logpdf"):            # the point only: df is fixed
        c += [Case(f"chi2.{method}[df={df}]", bound1(getattr(stats.chi2, method), df), (chi_x,)) for df in (1, 2, 3)]
    bx, ba, bb = U(0.05, 0.95, 4), positive(4), positive(4)
    c += [Case("beta.cdf", bound1(stats.beta.cdf, ba, bb), (bx,))]
    for method in ("pdf", "logpdf"):
        c += combos(f"beta.{method}", getattr(stats.beta, method), [[bx], [ba], [bb]])
    gx, ga = positive(4), positive(4)
    c += [Case("gamma.cdf", bound1(stats.gamma.cdf, ga), (gx,))]
    for method in ("pdf", "logpdf"):
        c += combos(f"gamma.{method}", getattr(stats.gamma, method), [[gx], [ga]])
    for method in ("pdf", "cdf", "sf", "logpdf", "logcdf", "logsf"):
        fn = getattr(stats.norm, method)
        c += combos(f"norm.{method}", fn, [[R(4)], [R(4)], [positive(4)]])
        c += combos(f"norm.{method}", fn, [[R(4, 3)], [R(1, 3)], [positive(4, 1)]])
    for method in ("cdf", "logpmf", "pmf"):                # the rate only: counts are fixed
        fn = getattr(stats.poisson, method)
        c += [Case(f"poisson.{method}", after(fn, np.round(R(4) ** 2)), (positive(4),)),
              Case(f"poisson.{method}[broadcast]", after(fn, np.round(R(4, 3) ** 2)), (positive(4, 1),))]
    for method in ("pdf", "logpdf"):
        fn = getattr(stats.t, method)
        c += combos(f"t.{method}", fn, [[R(4)], [R(4) ** 2 + 2.1], [R(4)], [R(4) ** 2 + 2.1]])
        c += combos(f"t.{method}", fn, [[R(4, 3)], [R(1, 3) ** 2 + 2.1], [R(4, 3)], [R(4, 1) ** 2 + 2.1]])
    for method, fn in (("cdf", t_cdf_of_point_and_loc), ("logcdf", t_logcdf_of_point_and_loc)):
        c += [Case(f"t.{method}", bound2(fn, R(4) ** 2 + 2.1, R(4) ** 2 + 2.1), (R(4), R(4))),
              Case(f"t.{method}[broadcast]", bound2(fn, R(1, 3) ** 2 + 2.1, R(4, 1) ** 2 + 2.1), (R(4, 3), R(4, 3)))]
    c += combos("mvn.pdf", mvn_pdf, [[R(4), R(5, 4)], [R(4)], [make_psd(R(4, 4))]])
    c += combos("mvn.logpdf", mvn_logpdf, [[R(4), R(5, 4)], [R(4)], [make_psd(R(4, 4))]])
    c += combos("mvn.entropy", stats.multivariate_normal.entropy, [[R(4)], [make_psd(R(4, 4))]])
    alpha = U(0.0, 1.0, 4) ** 2 + 1.2
    x = stats.dirichlet.rvs(alpha, size=1, random_state=1)[0]
    c += [Case("dirichlet.pdf_x", dirichlet_pdf_of_x, (x, alpha)), Case("dirichlet.logpdf_x", dirichlet_logpdf_of_x, (x, alpha)),
          Case("dirichlet.pdf", after(dirichlet_pdf, x), (alpha,)),
          Case("dirichlet.logpdf", after(dirichlet_logpdf, x), (alpha,))]
    lse = special.logsumexp
    c += combos("logsumexp", lse, [[1.1, R(4), R(3, 4)]], axis=[None, 0], keepdims=[True, False])
    c += combos("logsumexp", lse, [[R(3, 4), R(4, 5, 6), R(1, 5)]], axis=[None, 0, 1], keepdims=[True, False])
    c += combos("logsumexp_b", lse, [[R(4)]], b=[np.exp(R(4))], axis=[None, 0], keepdims=[True, False])
    c += combos("logsumexp_b", lse, [[R(3, 4)]], b=[np.exp(R(3, 4))], axis=[None, 0, 1], keepdims=[True, False])
    c += combos("logsumexp_b", lse, [[R(2, 3, 4)]], b=[np.exp(R(2, 3, 4))], axis=[None, 0, 1], keepdims=[True, False])
    c += [Case("logsumexp_row", logsumexp_of_one_row, (R(1, 5),), order=2)]
    c += combos("beta", special.beta, [[positive(4)], [positive(4)]])
    c += combos("betaln", special.betaln, [[positive(4)], [positive(4)]])
    c += [Case("betainc", after(special.betainc, positive(4), positive(4)), (U(0.0, 1.0, 4),))]
    for name in ("gammainc", "gammaincc"):
        c += [Case(name, after(getattr(special, name), 1.0), (positive(4) + 0.2,))]
    for name, order in (("polygamma", 0), ("jn", 2), ("yn", 2)):
        c += [Case(name, after(getattr(special, name), order), (positive(4) + 0.2,))]
    for name in ("psi", "digamma", "gamma", "gammaln", "gammasgn", "rgamma"):
        c += special_unary(name, getattr(special, name), (0.3, 2.0))
    c += combos("multigammaln", special.multigammaln, [[U(4.0, 5.0), U(4.0, 5.0, 2, 3)]], d=[1, 2, 3])
    for name in ("j0", "j1", "y0", "y1", "i0", "i1"):
        c += special_unary(name, getattr(special, name), (0.2, 20.0))
    for name in ("iv", "ive"):                             # the point only: orders are fixed
        c += [Case(name, after(getattr(special, name), U(1.0, 50.0, 4)), (positive(4) + 0.2,))]
    c += special_unary("erf", special.erf, (-3.0, 3.0)) + special_unary("erfc", special.erfc, (-3.0, 3.0))
    c += special_unary("erfinv", special.erfinv, (-0.95, 0.95))
    c += special_unary("erfcinv", special.erfcinv, (0.05, 1.95))
    c += special_unary("logit", special.logit, (0.1, 0.9)) + special_unary("expit", special.expit, (-4.05, 4.95))
    return c


SCIPY = scipy_cases()


# --- test_wrappers.py / test_direct.py: derivatives of derivatives ---------------------

def quadratic_form_tanh(x, a):
    return np.sum(np.tanh(a @ x) * x)


def log_of_sum_of_squares(x):
    return np.log(np.sum(x ** 2) + 1.0)


def softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def hessian_of_tanh_form(x, a):
    import sstad
    return sstad.hessian(quadratic_form_tanh)(x, a)


def higher_cases():
    """Second derivatives of a sample of the cases above (``order=2``: the pullback and
    the pushforward are differentiated again), as autograd's grad-of-grad tests do."""
    c = []
    c += [Case("order2 " + k.name, k.fn, k.args, order=2) for k in
          [*combos("logsumexp", special.logsumexp, [[R(3, 4)]], axis=[1], keepdims=[True]),
           *combos("var", np.var, [[R(3, 4)]], axis=[0], ddof=[1]),
           *combos("tensordot3", np.tensordot, [[R(2, 3, 4)], [R(2, 2, 3, 4)]], axes=[((1, 0), (2, 1))]),
           *combos("einsum_three", einsum_three, [[R(3, 4, 4)], [R(4, 4, 3)], [R(4, 4, 3)]]),
           Case("inv_3d", inv, (R(3, 3, 3) + 5 * np.eye(3),)), Case("slogdet", logdet, (R(4, 4),)),
           Case("cholesky", cholesky, (psd(4),)), Case("eigh", eigh_lower, (R(4, 4),)),
           Case("singular_values", singular_values, (R(4, 3),)),
           Case("solve_stacked", solve_stacked_columns, (R(5, 4, 4) + 5 * np.eye(4),)),
           Case("norm.logpdf", bound(stats.norm.logpdf), (R(4, 3), R(1, 3), positive(4, 1))),
           Case("mvn.logpdf", mvn_logpdf, (R(5, 4), R(4), make_psd(R(4, 4)))),
           Case("gammaln", bound1(special.gammaln), (positive(3),)), Case("sort", bound1(np.sort), (R(7),)),
           Case("cumsum", bound1(np.cumsum, axis=1), (R(3, 4),)),
           Case("log_of_sum_of_squares", log_of_sum_of_squares, (R(5),))]]
    return c


HIGHER = higher_cases()


# --- the numba backend: the same calls, many to a compiled function ---------------------
# (Numba compiles for minutes per dozen functions: each group below is one function whose
# outputs are the calls of a family, with the shapes and keywords of the cases above.)

def inner_with_literal_numbers(v):
    return np.inner(v, 0.3) + np.inner(2.0, v)


def grouped_statistics(b, c, d):
    return (np.max(c, axis=0, keepdims=True), np.min(d, axis=1), np.mean(b, keepdims=True), np.sum(c, axis=1),
            np.prod(d, axis=0, keepdims=True), np.var(c, axis=1, keepdims=True), np.std(b, axis=0),
            np.var(c, axis=1, ddof=2), np.std(d, ddof=1, keepdims=True), np.max(b), np.min(c, axis=(0, 1)),
            special.logsumexp(c, axis=0, keepdims=True), special.logsumexp(c, axis=1, b=np.exp(c)),
            np.mean(c, axis=0), np.prod(b))


def grouped_ufuncs(v, m, row, p):
    return (np.arccosh(p + 1.0) + np.arcsinh(m) + np.arctanh(m / 3.0) + np.cosh(row) + np.exp2(v) + np.expm1(m),
            np.log10(p) + np.log2(p) + np.log1p(p) + np.degrees(m) / 50.0 + np.rad2deg(v) / 50.0 + np.sign(p),
            np.tan(m / 2.0) + np.square(row) + np.sqrt(p) + np.fabs(p) + np.floor(p) + np.ceil(p),
            np.logaddexp(v, m) + np.logaddexp2(row, m) + np.remainder(m, p + 0.7) + np.mod(row, -p - 0.3),
            np.true_divide(v, p + 0.3) + m % (p + 1.3) + p ** v + np.hypot(row, p) + np.arctan2(p, row + 2.5),
            np.maximum(row, m) + np.fmin(m, v) + np.fmax(row, v) + np.minimum(v, m))


def grouped_products(v3, m23, t223, m34, t234, t2234):
    return (np.dot(t223, t234), np.dot(v3, m34), np.dot(1.5, m23), np.inner(m23, m23), np.inner(v3, 0.3),
            np.matmul(t223, m34), np.matmul(v3, t234), np.matmul(t223, v3),
            np.tensordot(t223, t234, axes=((2,), (1,))), np.tensordot(m23, t223, axes=((0, 1), (1, 2))),
            np.tensordot(t234, t2234, axes=((1, 0), (2, 1))), np.tensordot(m23, m23.T, 1),
            np.tensordot(m23, m34, axes=((-1,), (0,))), np.kron(m23, m34), np.tensordot(v3, 1.5, axes=0),
            np.einsum("...ij,...jk->...ik", m23, t234), np.einsum("jk...,lj...->lk...", t223, t223),
            np.einsum("ijk,lji->lki", t234.reshape(4, 3, 2), t234.reshape(2, 3, 4)),
            np.einsum(m23, [0, 1], m34, [1, 2], [0, 2]))


def grouped_shapes(a234, m55, v7, m48, t444):
    parts = np.array_split(t444, [1, 3], axis=2)
    pieces = np.split(m48, 4, axis=1)
    return (np.transpose(a234, (2, 0, 1)), np.repeat(a234, 2, axis=1), np.repeat(m55, 0, axis=0),
            np.diff(t444, n=2, axis=1), np.diff(m55, axis=0), np.tile(m48[:1], (2, 3)), np.trace(m55, offset=-1),
            np.trace(a234, offset=1), np.diag(m55, k=1), np.diag(v7, k=-1), np.tril(t444, k=-1), np.triu(m55, k=1),
            np.swapaxes(a234, 0, 2), np.rollaxis(a234, 2, 1), np.cross(m48[:, :3], m48[:, 3:6], axisa=-1, axisb=1,
                                                                      axisc=0),
            parts[0] + parts[2][:, :, :1], pieces[1] * pieces[3], np.hsplit(m48, [1, 2])[2],
            np.vsplit(t444, 2)[1], np.dsplit(t444, [1, 2])[0], np.concatenate((t444, t444), axis=2),
            np.vstack((m48, m48[:1])), np.hstack((m48, m55[:4])), np.stack((v7, v7), axis=1),
            np.column_stack((v7, v7)), np.vstack(a234), np.hstack(a234), np.vstack(v7), np.hstack(m48), np.sort(v7), np.partition(v7, 3), np.atleast_3d(m48), np.atleast_2d(v7))


def grouped_numpy(a564, v10, m1011, x, m55):
    return (a564[3, 0, 1] + a564[::-1, 2:4, :][0, 0, 0], a564.reshape(5 * 4, 6), np.ravel(a564), a564.flatten(),
            np.append(v10, x), np.concatenate((a564, a564), 1), np.cumsum(m1011, axis=1), np.cumsum(m1011),
            np.flipud(m1011) + np.fliplr(m1011), np.rot90(m1011), np.roll(m55, 2, axis=1), np.clip(m55, 0.1, 1.1),
            np.array([[x, x * 1.0, x + 2.5], [x ** 2, x, x / 2.0]]), np.array([m55, m55]),
            np.where(m55 > 0.0, m55, 2.0 * m55), np.expand_dims(m55, 2), np.sum(v10[[0, 1, 0]]),
            np.dot(v10[:5], v10[5:]), np.diagonal(a564[:4, :4], axis1=-1, axis2=-2), np.nan_to_num(v10 / 1.0),
            np.linspace(x, 3.4, 5), np.gradient(m55, axis=(0, -1))[1], np.gradient(v10), sum([m55, m55]))


def grouped_linalg(m8, s444, m53, m66, spd6, t453):
    w, v = np.linalg.eigh(symmetric(spd6))
    u, s, vt = np.linalg.svd(t453, full_matrices=False)
    return (np.linalg.inv(m8), np.linalg.inv(s444), np.linalg.pinv(m53), np.linalg.pinv(t453),
            np.linalg.solve(m8, SOLVE_B), np.linalg.solve(m8, SOLVE_B1), np.linalg.solve(s444, m53[:4, :1]),
            np.linalg.det(m66), np.linalg.det(s444), np.linalg.slogdet(m66)[1], np.linalg.slogdet(s444)[1],
            np.linalg.norm(m53), np.linalg.norm(t453, axis=(0, 1)), np.linalg.norm(m53[:, 0], ord=3),
            np.linalg.norm(t453, axis=1), np.linalg.norm(m53, ord="nuc"), w, v, np.linalg.cholesky(symmetric(spd6)),
            u, s, vt, np.linalg.svd(m53, compute_uv=False))


def grouped_scipy(x4, loc4, scale4, pos4, u4, m43, r13, c41):
    return (stats.norm.logpdf(m43, r13, c41) + stats.norm.cdf(m43, r13, c41) + stats.norm.logsf(m43, r13, c41),
            stats.norm.pdf(x4, loc4, scale4) + stats.norm.sf(x4, loc4, scale4) + stats.norm.logcdf(x4, loc4, scale4),
            stats.beta.pdf(u4, pos4, scale4) + stats.beta.logpdf(u4, pos4, scale4),
            stats.gamma.pdf(pos4, scale4) + stats.gamma.logpdf(pos4, scale4),
            stats.poisson.logpmf(np.round(loc4 ** 2), pos4) + stats.poisson.pmf(np.round(loc4 ** 2), pos4),
            stats.t.pdf(x4, pos4 + 1.0, loc4, scale4) + stats.t.logpdf(x4, pos4 + 1.0, loc4, scale4),
            stats.multivariate_normal.logpdf(m43.T, x4, make_psd(m43.T)),
            stats.dirichlet.logpdf(u4 / np.sum(u4), pos4),
            special.beta(pos4, scale4) + special.betaln(pos4, scale4) + special.polygamma(0, pos4)
            + special.jn(2, pos4) + special.yn(2, pos4) + special.psi(pos4) + special.gamma(pos4) + special.gammaln(pos4)
            + special.rgamma(pos4) + special.multigammaln(pos4[0] + 3.0, 2) + special.j0(pos4) + special.j1(pos4)
            + special.y0(pos4) + special.y1(pos4) + special.i0(pos4) + special.i1(pos4) + special.erf(x4)
            + special.erfc(x4) + special.erfinv(u4 - 0.5) + special.erfcinv(u4 + 0.5) + special.logit(u4)
            + special.expit(x4))


def numba_groups():
    b, c, d = R(3), R(2, 3), R(1, 3)
    v = rng.uniform(-2.0, 2.0, 2)
    return [
        Case("grouped_statistics", grouped_statistics, (b, c, d ** 2 + 0.1)),
        Case("grouped_ufuncs", grouped_ufuncs, (v, rng.uniform(-2.0, 2.0, (3, 2)), rng.uniform(-2.0, 2.0, (1, 2)),
                                                rng.uniform(0.2, 0.45, (3, 2)))),
        Case("grouped_products", grouped_products, (R(3), R(2, 3), R(2, 2, 3), R(3, 4), R(2, 3, 4), R(2, 2, 3, 4))),
        Case("grouped_shapes", grouped_shapes, (R(2, 3, 4), R(5, 5), R(7), R(4, 8), R(4, 4, 4))),
        Case("grouped_numpy", grouped_numpy, (R(5, 6, 4), R(10), R(10, 11), 1.3, R(5, 5))),
        Case("grouped_linalg", grouped_linalg, (R(8, 8) + 10 * np.eye(8), R(4, 4, 4) + 5 * np.eye(4), R(5, 3), R(6, 6),
                                                psd(6), R(4, 5, 3))),
        Case("grouped_scipy", grouped_scipy, (R(4), R(4), positive(4), positive(4), U(0.1, 0.9, 4), R(4, 3), R(1, 3),
                                              positive(4, 1))),
    ]


NUMBA_GROUPS = numba_groups()


# --- complex arguments (autograd's test_complex=True): the real and imaginary parts are
# --- differentiated, and both parts of the result compared ------------------------------

def complex_parts(fn, **keywords):
    """``fn`` of ``re + 1j * im``, as its real and imaginary parts."""
    def parts(re, im):
        out = fn(re + 1j * im, **keywords)
        return np.real(out), np.imag(out)
    return parts


def complex_parts2(fn):
    def parts(re, im, re2, im2):
        out = fn(re + 1j * im, re2 + 1j * im2)
        return np.real(out), np.imag(out)
    return parts


def split(z):
    return (np.real(z), np.imag(z))


def complex_cases():
    c = []
    for name, lims in (("sin", (-2.0, 2.0)), ("abs", (0.1, 4.0)), ("absolute", (0.1, 4.0)), ("arccosh", (1.1, 4.0)),
                       ("arcsinh", (-0.9, 0.9)), ("arctanh", (-0.9, 0.9)), ("cos", (-2.0, 2.0)), ("cosh", (-2.0, 2.0)),
                       ("exp", (-2.0, 2.0)), ("exp2", (-2.0, 2.0)), ("expm1", (-2.0, 2.0)), ("log", (0.2, 2.0)),
                       ("log10", (0.2, 2.0)), ("log1p", (0.2, 2.0)), ("log2", (0.2, 2.0)), ("sinh", (-2.0, 2.0)),
                       ("sqrt", (1.0, 3.0)), ("tan", (-1.1, 1.1)), ("tanh", (-2.0, 2.0)), ("real", (-2.0, 2.0)),
                       ("imag", (-2.0, 2.0)), ("conj", (-2.0, 2.0)), ("angle", (0.1, 2.0)), ("square", (-2.0, 2.0))):
        for z in (within(lims, 0.4) + 0.1j * within(lims, 0.3),
                  within(lims, rng.uniform(size=(3, 2))) + 0.1j * rng.uniform(size=(3, 2))):
            c.append(Case(f"complex {name}[{_label(np.asarray(z))}]", complex_parts(getattr(np, name)), split(z)))
    for name, fn, lims_b in (("add", np.add, (-2.0, 2.0)), ("op_mul", op.mul, (-2.0, 2.0)), ("op_sub", op.sub, (-2.0, 2.0)),
                             ("op_truediv", op.truediv, (0.5, 2.0)), ("op_pow", power_operator, (-2.0, 2.0))):
        lims_a = (0.7, 2.0) if name == "op_pow" else (-2.0, 2.0)
        left = [within(lims_a, 0.6), within(lims_a, 0.6 + 0.3j), within(lims_a, rng.uniform(size=(3, 2)) + 0.1j * rng.uniform(size=(3, 2)))]
        right = [within(lims_b, 0.6 + 0.3j), within(lims_b, rng.uniform(size=2)), within(lims_b, rng.uniform(size=(1, 2)) + 0.1j)]
        for a in left:
            for b in right:
                a, b = np.asarray(a, complex), np.asarray(b, complex)
                c.append(Case(f"complex {name}[{_label(a)},{_label(b)}]", complex_parts2(fn), split(a) + split(b)))
    e = R(2, 3) + 0.1j * R(2, 3)
    for name in ("sum", "mean", "prod", "var", "std"):
        for axis in (None, 0):
            for keepdims in (True, False):
                fn = complex_parts(getattr(np, name), axis=axis, keepdims=keepdims)
                c.append(Case(f"complex {name}[axis={axis},keepdims={keepdims}]", fn, split(e)))
    return c


COMPLEX = complex_cases()


def grouped_complex(re, im):
    z = re + 1j * im
    total = np.var(z, axis=0) + np.std(z, keepdims=True) + np.sum(np.sqrt(z + 1.5) * np.log(z + 1.5))
    total = total + np.mean(np.exp(z) / (z + 2.0)) + np.prod(np.tanh(z), axis=1)[0]
    return np.real(total), np.imag(total)


NUMBA_GROUPS.append(Case("grouped_complex", grouped_complex, (R(3, 2), R(3, 2) * 0.3)))


# --- test_numpy_interp.py and test_fft.py ----------------------------------------------

INTERP_GRID = np.arange(4.0)


def interp_values(y):
    return np.interp(np.array([0.3, 1.7, 2.2]), INTERP_GRID, y)


def interp_points(x):
    return np.interp(x, INTERP_GRID, np.array([1.0, 3.0, 2.0, 5.0]))


def fft_parts(x):
    y = np.fft.fft(x)
    return np.real(y), np.imag(y)


def rfft_magnitude(x):
    return np.abs(np.fft.rfft(x, axis=0))


OTHER = [Case("interp_values", interp_values, (R(4),)),
         Case("interp_points", interp_points, (np.array([0.3, 1.6, 2.4]),)),
         Case("fft", fft_parts, (R(5),)), Case("rfft", rfft_magnitude, (R(6, 2),))]


def chi2_densities(x, df):
    return stats.chi2.logpdf(x, df) + stats.chi2.pdf(x, 3.0, loc=0.1, scale=df)


NUMBA_GROUPS.append(Case("chi2_densities", chi2_densities, (positive(4), positive(4))))
