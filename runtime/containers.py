"""Run-time lists: ``[]``, ``.append``, ``len`` and ``sum`` over them.

Tuples, dicts and list literals are static structures the compiler resolves; only lists
that grow at run time (``[]`` + ``append``, comprehensions) are values of type ListOf.
"""
import builtins

from sstad.runtime import abstract as A
from sstad.runtime.primitive import Primitive, emit_call


def _append(lst, value):
    lst.append(value)
    return lst


def _append_infer(avals, params):
    lst, value = avals
    elem = A.join(lst.elem, value)
    if elem is None or not A.is_numeric(elem):
        raise TypeError(f"a list holds values of one type: cannot append a {value} to a {lst}")
    return A.ListOf(elem)


Primitive("list.new", list, lambda avals, params: A.ListOf(A.UNKNOWN),
          lambda args, params, avals: "[]")
Primitive("list.append", _append, _append_infer,
          lambda args, params, avals: f"{args[0]}.append({args[1]})", mutates=True)


def _len_infer(avals, params):
    if isinstance(avals[0], A.Scalar):
        raise TypeError("len() of a scalar")
    return A.Scalar(A.I64.dtype, weak=True)


def _sum_infer(avals, params):
    if not isinstance(avals[0], A.ListOf) or not isinstance(avals[0].elem, A.Scalar):
        raise TypeError("sum() takes a list of scalars here: use np.sum for arrays")
    return avals[0].elem


Primitive("builtin.len", builtins.len, _len_infer, emit_call("len"))
Primitive("builtin.sum", builtins.sum, _sum_infer, emit_call("sum"))
