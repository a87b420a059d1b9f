"""Small programs exercising one primitive each, for the rule tests (sstad reads source)."""
import math

import numpy as np


def apply1(f, x):
    return f(x)


def apply2(f, x, y):
    return f(x, y)


def apply3(f, x, y, z):
    return f(x, y, z)


def reducer(f, axis=None, keepdims=False):
    def reduce(x):
        return f(x, axis=axis, keepdims=keepdims)
    return reduce


def scan(f, axis):
    def run(x):
        return f(x, axis=axis)
    return run


def pow_const(x):
    return x ** 3


def rpow(x):
    return 2.0 ** x


def mod_op(x, y):
    return x % y


def matmul_op(a, b):
    return a @ b


def getitem_basic(x):
    return x[1:, ::2] * 2.0 + x[0, -1]


def getitem_fancy(x, idx):
    return x[idx]


def getitem_mask(x):
    return x[x > 0.0]


def setitem_slice(x, v):
    y = x.copy()
    y[1:3] = v
    return y * y


def setitem_scalar_in_loop(x, w):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = w * x[i]
    return y


def iadd_array(x, v):
    y = x * 1.0
    y += v
    y *= x
    return y


def reshape_T(x):
    return np.reshape(x, (x.shape[1], x.shape[0])).T * x


def concat(a, b):
    return np.concatenate((a, b), axis=1)


def stack(a, b):
    return np.stack((a, b), axis=0)


def astype32(x):
    return (2.0 * x).astype(np.float64)


def where_op(x, y):
    return np.where(x > y, x, y)


def clip_op(x):
    return np.clip(x, -0.5, 0.5)


def math_ops(x):
    return math.sin(x) + math.exp(x) * math.cos(x) + math.sqrt(x * x + 1.0) + math.log(x * x + 2.0)


def builtin_minmax(x, y):
    return max(x, y) * min(x, y) + abs(x - y)


def expand_squeeze(x):
    return np.squeeze(np.expand_dims(x, 0), axis=0) * x


def transpose_swap(x):
    return np.swapaxes(x, 0, 1) @ x


def array_of_scalars(a, b):
    return np.array((a, b * b, a * b))


def hstack2(a, b):
    return np.hstack((a, b))


def vstack2(a, b):
    return np.vstack((a, b))


def roll1(x):
    return np.roll(x, 2)


def repeat2(x):
    return np.repeat(x, 2)


def tile3(x):
    return np.tile(x, 3)


def take_idx(x, idx):
    return np.take(x, idx)


def sort1(x):
    return np.sort(x) * np.arange(x.shape[0])


def cholesky_sym(a):
    return np.linalg.cholesky(0.5 * (a + a.T))


def moveaxis1(x):
    return np.moveaxis(x, 0, 2) * 2.0


def einsum_matmul_trace(a, b):
    return np.einsum("ij,jk->ik", a, b) + np.einsum("ij,ij->i", a, a)[:, None]


def tensordot_pair(a, b):
    return np.tensordot(a, b, axes=1) + np.tensordot(a, b, axes=([1], [0])) * 2.0


def tensordot_3d(a, b):
    return np.tensordot(a, b, axes=([0, 2], [1, 0]))


def split_sections(x):
    a, b, c = np.split(x, 3)
    return a * 2.0 + b * c


def split_points_axis1(x):
    parts = np.split(x, (1, 3), axis=1)
    return np.sum(parts[0]) + np.sum(parts[1] ** 2) + np.sum(np.sin(parts[2]))


def slogdet_logabs(a):
    sign, logabs = np.linalg.slogdet(a)
    return sign * logabs


def take_along_rows(x, idx):
    return np.take_along_axis(x, idx, 1) ** 2


def take_along_cols(x, idx):
    return np.take_along_axis(x, idx, axis=0) * 3.0


def take_along_1d(x, idx):
    return np.sin(np.take_along_axis(x, idx, 0))


def concat_positional_axis(a, b):
    return np.concatenate((a, b), 1) ** 2


def piecewise_constant(x):
    return x * np.floor(x) + np.round(x) + np.sign(x) * x + np.argmax(x) + np.ceil(x) * 0.5


def broadcast_tril_inner(a, v):
    return np.tril(a) * np.broadcast_to(v, (3, 3)) + np.inner(v, v)


def full_of(x, v):
    return np.full((3,), v) * x


def erf_ops(x):
    return math.erf(x) * 2.0 + math.erfc(x * 0.5)


def flip_lr_ud(x):
    return np.fliplr(x) * np.flipud(x) + x[::-1] * 2.0


def flip_axis(x):
    return np.flip(x, axis=1) * x


def prod_with_zeros(x):
    y = x.copy()
    y[1] = 0.0
    return np.prod(y * x, axis=0) + np.prod(y)
