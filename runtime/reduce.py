"""Reductions with ``axis``/``keepdims``.

Numba's ``np.max``, ``np.prod``, ``np.mean`` ... accept no ``axis`` and none accepts
``keepdims``; the emitted code then calls a helper of :mod:`sstad.runtime.helpers`
(plain NumPy in Python, a Numba overload when compiled) and ``np.expand_dims``.
"""
import numpy as np

from sstad.runtime.primitive import literal, numpy_primitive

REDUCTIONS = "sum prod max min amax amin mean var std argmax argmin any all".split()
SCANS = "cumsum cumprod".split()
NUMBA_AXIS_OK = {"sum", "argmax", "argmin", "cumsum", "cumprod"}


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
