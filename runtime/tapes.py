"""What a loop's tape needs under a memory budget (sstad/ad/checkpointing.py).

``list.clear`` empties a tape for the next segment of iterations; ``tape_nbytes`` is
what one pushed value costs, so the forward loop can count its tape's bytes.
"""
from numba import types
from numba.extending import overload

from sstad.runtime import abstract as A
from sstad.runtime.containers import same_list
from sstad.runtime.primitive import Primitive, declare


def _clear(lst):
    lst.clear()
    return lst


# ``del L[:]``, not ``L.clear()``: Numba's reflected-list clear keeps its items' references
Primitive("list.clear", _clear, same_list("clear"), lambda args, params, avals: f"del {args[0]}[:]", mutates=True)


HEADER = 128      # an array's object, or Numba's meminfo and list slot, besides its data


def tape_nbytes(x):
    """The bytes a tape holds for the array ``x``: its data and its header."""
    return x.nbytes + HEADER


@overload(tape_nbytes)
def _tape_nbytes_numba(x):
    return lambda x: x.nbytes + HEADER


def _nbytes_infer(avals, params):
    return A.Scalar(A.I64.dtype)


Primitive("tape_nbytes", tape_nbytes, _nbytes_infer, lambda args, params, avals: f"rt.tape_nbytes({args[0]})")


def tape_nbytes_since(tape, start):
    """The bytes of the items a list ``tape`` got from position ``start`` on (8 a number)."""
    return sum(x.nbytes + HEADER if hasattr(x, "nbytes") and getattr(x, "ndim", 0) else 8 for x in tape[start:])


@overload(tape_nbytes_since)
def _tape_nbytes_since_numba(tape, start):
    if isinstance(tape.dtype, types.Array):
        def impl(tape, start):
            total = 0
            for k in range(start, len(tape)):
                total += tape[k].nbytes + HEADER
            return total
        return impl
    return lambda tape, start: 8 * max(len(tape) - start, 0)


Primitive("tape_nbytes_since", tape_nbytes_since, _nbytes_infer,
          lambda args, params, avals: f"rt.tape_nbytes_since({args[0]}, {args[1]})")
declare("list.clear", effect=True, repeatable=True)
