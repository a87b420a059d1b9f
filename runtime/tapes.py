"""What a loop's tape needs under a memory budget (sstad/ad/checkpointing.py).

``list.clear`` empties a tape for the next segment of iterations; ``tape_nbytes`` is
what one pushed value costs, so the forward loop can count its tape's bytes.
"""
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
declare("list.clear", effect=True, repeatable=True)
