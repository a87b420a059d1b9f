"""Reductions with ``axis``/``keepdims``.

Numba's ``np.max``, ``np.prod``, ``np.mean`` ... accept no ``axis`` and none accepts
``keepdims``; the emitted code then calls a helper of :mod:`sstad.runtime.helpers`
(plain NumPy in Python, a Numba overload when compiled) and ``np.expand_dims``.
"""
import numpy as np

from sstad.runtime.primitive import literal, numpy_primitive

REDUCTIONS = "sum prod max min amax amin mean var std argmax argmin any all".split()
SCANS = "cumsum cumprod".split()
NUMBA_AXIS_OK = {"sum", "argmax", "argmin", "cumsum"}


def _emit_reduction(name):
    def emit(args, params, avals):
        axis, keepdims = params.get("axis"), params.get("keepdims", False)
        if axis is None:
            text = f"np.{name}({args[0]})"
            return f"np.full({literal((1,) * avals[0].ndim)}, {text})" if keepdims else text
        text = (f"np.{name}({args[0]}, axis={axis})" if name in NUMBA_AXIS_OK
                else f"rt.{name}_axis({args[0]}, {axis})")
        return f"np.expand_dims({text}, {axis})" if keepdims else text
    return emit


for _name in REDUCTIONS + SCANS:
    _fn = getattr(np, _name)
    numpy_primitive(_name, _fn, emit=_emit_reduction(_name))


# --- reverse-mode rules ----------------------------------------------------------
from sstad.runtime.primitive import defvjp, nondiff  # noqa: E402

nondiff("argmax", "argmin")


def restore_axis(dout, axis, keepdims):
    """Put back the reduced axis so that ``dout`` broadcasts against the input."""
    if axis is not None and not keepdims:
        return np.expand_dims(dout, axis)
    return dout


def count(x, axis):
    return x.size if axis is None else x.shape[axis]


@defvjp("sum")
def _(x, out, dout, axis=None, keepdims=False):
    return (np.zeros_like(x) + restore_axis(dout, axis, keepdims),)


@defvjp("mean")
def _(x, out, dout, axis=None, keepdims=False):
    return (np.zeros_like(x) + restore_axis(dout, axis, keepdims) / count(x, axis),)


@defvjp("max", "min", "amax", "amin")
def _(x, out, dout, axis=None, keepdims=False):
    hit = x == restore_axis(out, axis, keepdims)            # ties share the cotangent
    share = np.sum(hit, axis=axis, keepdims=True) if axis is not None else np.sum(hit)
    return (np.where(hit, restore_axis(dout, axis, keepdims) / share, 0.0),)


@defvjp("prod")
def _(x, out, dout, axis=None, keepdims=False):
    # d out / d x_i = the product of the others: out / x_i, except at zeros, where it is
    # the product of the nonzero entries if x_i is the only zero (else 0)
    is_zero = (x == 0.0) * 1.0
    nonzero = x + is_zero
    others_if_zero = np.prod(nonzero, axis=axis) * (np.sum(is_zero, axis=axis) == 1.0)
    others = np.where(is_zero > 0.0, restore_axis(others_if_zero, axis, False),
                      restore_axis(out, axis, keepdims) / nonzero)
    return (restore_axis(dout, axis, keepdims) * others,)


@defvjp("var")
def _(x, out, dout, axis=None, keepdims=False):
    centred = x - restore_axis(np.mean(x, axis=axis), axis, False)
    return (restore_axis(dout, axis, keepdims) * 2.0 * centred / count(x, axis),)


@defvjp("std")
def _(x, out, dout, axis=None, keepdims=False):
    centred = x - restore_axis(np.mean(x, axis=axis), axis, False)
    return (restore_axis(dout / out, axis, keepdims) * centred / count(x, axis),)


@defvjp("cumsum")
def _(x, out, dout, axis=None):
    # dx[i] = sum of dout[j] for j >= i: the total minus the running sum before i
    if axis is None:
        return (np.reshape(np.sum(dout) - np.cumsum(dout) + dout, np.shape(x)),)
    return (np.sum(dout, axis=axis, keepdims=True) - np.cumsum(dout, axis=axis) + dout,)


@defvjp("cumprod")
def _(x, out, dout, axis=None):
    if axis is None:
        return (np.reshape(cumprod_pullback(np.ravel(x), dout), np.shape(x)),)
    moved = cumprod_pullback(np.swapaxes(x, axis, -1), np.swapaxes(dout, axis, -1))
    return (np.swapaxes(moved, axis, -1),)


def cumprod_pullback(x, dout):
    """The cotangent of ``np.cumprod`` along the last axis, exact at zeros (no division):
    dx_j = (x_0 ... x_{j-1}) * s_j with s_j = dout_j + x_{j+1} * s_{j+1}."""
    n = x.shape[-1]
    if n == 0:                                # an empty axis: nothing to read at 0 or n - 1
        return np.zeros_like(dout)
    before = np.ones_like(dout)
    after = np.zeros_like(dout)
    running = dout[..., 0] * 0.0 + 1.0        # (not ones_like: a scalar stays a scalar)
    for j in range(n):
        before[..., j] = running
        running = running * x[..., j]
    total = dout[..., n - 1] * 1.0
    after[..., n - 1] = total
    for k in range(n - 1):
        j = n - 2 - k
        total = dout[..., j] + total * x[..., j + 1]
        after[..., j] = total
    return before * after


from sstad.runtime.primitive import declare  # noqa: E402

declare("sum", "mean", "cumsum", multilinear=True)
declare("sum", "mean", "prod", "max", "min", "amax", "amin", reduction=True)
