"""Run-time lists: ``[]``, ``.append``, ``len`` and ``sum`` over them.

Tuples, dicts and list literals are static structures the compiler resolves; only lists
that grow at run time (``[]`` + ``append``, comprehensions) are values of type ListOf.
"""
import builtins

from sstad.runtime import abstract as A
from sstad.runtime.primitive import Primitive, dtype_text, emit_call, lowering


def _append(lst, value):
    lst.append(value)
    return lst


def list_of(elem):
    """The type of a user's list whose first item is ``elem``: one type whatever mix of
    Python and NumPy numbers is appended later (stored alike), its items read back as
    NumPy numbers."""
    if isinstance(elem, A.Scalar) and elem.weak:
        elem = A.Scalar(elem.dtype)
    return A.ListOf(elem)


def _append_infer(avals, params):
    lst, value = avals
    elem = A.join(lst.elem, value)
    if isinstance(value, A.ListOf) and lst.elem in (A.UNKNOWN, value):     # a tape of copies
        return A.ListOf(value)
    if elem is None or not A.is_numeric(elem):
        raise TypeError(f"a list holds values of one type: cannot append a {value} to a {lst}")
    return A.ListOf(elem)


Primitive("list.new", list, lambda avals, params: A.ListOf(A.UNKNOWN),
          lambda args, params, avals: "[]")
def _append_emit(args, params, avals):
    """A number appended in the list's own dtype (Numba's scalar results can be wider,
    np.trace of float32 is float64 there, and its lists hold one type)."""
    elem = avals[0].elem if isinstance(avals[0], A.ListOf) else None
    if isinstance(elem, A.Scalar) and not elem.weak and A.is_float(elem.dtype) and elem.dtype.itemsize < 8:
        return f"{args[0]}.append({dtype_text(elem.dtype)}({args[1]}))"
    return f"{args[0]}.append({args[1]})"


Primitive("list.append", _append, _append_infer, _append_emit, mutates=True)


@lowering("numba", "list.append")
def _append_emit_numba(args, params, avals):
    """An array appended C-contiguous: a list's Numba type fixes its items' layout, which
    the empty list gives as C, and a slice of a transposed array is F or A (a 1-d F array
    or a C one is passed through; others are copied)."""
    elem = avals[0].elem if isinstance(avals[0], A.ListOf) else None
    if isinstance(elem, A.Array) and elem.ndim > 0:
        return f"{args[0]}.append(np.ascontiguousarray({args[1]}))"
    return _append_emit(args, params, avals)


def _pop(lst):
    lst.pop()
    return lst


def same_list(op):
    """The type rule of a list method whose result is the list it changes (``pop``, ``clear``)."""
    def infer(avals, params):
        if not isinstance(avals[0], A.ListOf):
            raise TypeError(f"{op} of a {avals[0]}")
        return avals[0]
    return infer


# ``L.pop()`` is ``L[-1]`` then this: the list without its last item
Primitive("list.pop", _pop, same_list("pop"), lambda args, params, avals: f"{args[0]}.pop()", mutates=True)
# ``list(L)``: a copy (the reverse sweep tapes lists that shrink in a loop this way)
Primitive("list.copy", list, lambda avals, params: avals[0], emit_call("list"))


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


# --- np.array / np.stack of a run-time list of arrays ---------------------------------
import numpy as np  # noqa: E402
from numba.extending import overload  # noqa: E402


def stack_list(items):
    """``np.stack(items)`` of a run-time list, also under Numba (which stacks tuples only)."""
    return np.stack(items)


@overload(stack_list)
def _stack_list_numba(items):
    def impl(items):
        first = items[0]
        out = np.empty((len(items),) + first.shape, first.dtype)
        for k in range(len(items)):
            out[k] = items[k]
        return out
    return impl


def concatenate_list(items):
    """``np.concatenate(items)`` (axis 0) of a run-time list, also under Numba (which joins
    tuples only)."""
    return np.concatenate(items)


@overload(concatenate_list)
def _concatenate_list_numba(items):
    def impl(items):
        first = items[0]
        total = 0
        for k in range(len(items)):
            total += items[k].shape[0]
        out = np.empty((total,) + first.shape[1:], first.dtype)
        start = 0
        for k in range(len(items)):
            stop = start + items[k].shape[0]
            out[start:stop] = items[k]
            start = stop
        return out
    return impl


def stacked_emit(fname):
    """``fname(...)`` as NumPy spells it, or ``rt.stack_list`` for a run-time list of arrays
    (then moved to ``np.stack``'s axis by a static transpose)."""
    def emit(args, params, avals):
        first = avals[0] if avals else None
        if isinstance(first, A.ListOf) and isinstance(first.elem, A.Scalar) and fname != "np.array":
            pos, kw = params["layout"]
            axis = pos[1] if len(pos) > 1 else kw.get("axis", 0)
            if len(pos) <= 2 and set(kw) <= {"axis"} and axis in (0, -1):
                # numbers: one axis, which np.array makes (Numba stacks arrays only); vstack's rows
                return f"np.array({args[0]})" + (".reshape(-1, 1)" if fname == "np.vstack" else "")
        if not (isinstance(first, A.ListOf) and isinstance(first.elem, A.Array)):
            return emit_call(fname)(args, params, avals)
        pos, kw = params["layout"]
        if len(pos) != 1 and fname != "np.stack" or any(k != "axis" for k in kw) or (
                fname == "np.vstack" and first.elem.ndim != 1):      # vstack of rows only
            return emit_call(fname)(args, params, avals)
        axis = (pos[1] if len(pos) > 1 else kw.get("axis", 0)) if fname == "np.stack" else 0
        ndim = first.elem.ndim + 1
        order = list(range(1, ndim))
        order.insert(axis % ndim, 0)
        stacked = f"rt.stack_list({args[0]})"
        return stacked if order == sorted(order) else f"np.transpose({stacked}, {tuple(order)})"
    return emit


from sstad.runtime.primitive import declare  # noqa: E402

declare("list.new", "list.append", "list.pop", effect=True, repeatable=True)       # a new, growing object each time
declare("list.new", fresh=True)                       # only a new object: dropped when unused
declare("list.copy", fresh=True)                      # a new list: never merged with another copy
declare("builtin.sum", may_alias=True)
declare("builtin.sum", reads_list=True)
