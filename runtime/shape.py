"""Shape primitives: reshape, transpose, joins, splits, flips and copies."""
import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime.primitive import Primitive, numpy_primitive, text_of

SHAPE_FUNCTIONS = """transpose ravel expand_dims squeeze swapaxes moveaxis concatenate stack
hstack vstack broadcast_to flip fliplr flipud triu tril tile repeat roll copy
atleast_1d atleast_2d""".split()

for _name in SHAPE_FUNCTIONS:
    numpy_primitive(_name, getattr(np, _name))


def _reshape_infer(avals, params):
    (_, shape), _ = params["layout"]
    x = avals[0]
    if not isinstance(x, (A.Array, A.Scalar)):
        raise TypeError("reshape takes an array")
    ndim = len(shape) if isinstance(shape, tuple) else 1
    return A.Array(x.dtype, ndim) if ndim else A.Scalar(x.dtype)


def _reshape_emit(args, params, avals):
    (_, shape), _ = params["layout"]
    return f"{args[0]}.reshape({text_of(shape, args)})"


numpy_primitive("reshape", np.reshape, _reshape_infer, _reshape_emit)


# ``x.shape[k]`` and ``x.size``: Python ints at run time.
_INT = A.Scalar(np.dtype(np.int64), weak=True)
Primitive("dim", lambda x, axis: x.shape[axis], lambda avals, params: _INT,
          lambda args, params, avals: f"{args[0]}.shape[{params['axis']}]")
Primitive("size", np.size, lambda avals, params: _INT, lambda args, params, avals: f"{args[0]}.size")
