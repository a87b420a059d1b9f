"""Array creation: zeros, ones, full, arange, linspace, eye, array and the *_like family."""
import numpy as np

from sstad.runtime.containers import stacked_emit
from sstad.runtime.primitive import lowering, numpy_primitive

CREATION_FUNCTIONS = """zeros ones empty full zeros_like ones_like empty_like full_like arange
linspace eye identity array asarray""".split()

for _name in CREATION_FUNCTIONS:
    numpy_primitive(_name, getattr(np, _name))
lowering("numba", "array")(stacked_emit("np.array"))


# --- reverse-mode rules ----------------------------------------------------------
from sstad.runtime.broadcast import unbroadcast  # noqa: E402
from sstad.runtime.primitive import defvjp, nondiff  # noqa: E402

# Their values do not depend on their arguments' values (only on shapes).
nondiff("zeros", "ones", "empty", "zeros_like", "ones_like", "empty_like", "eye", "identity",
        "arange")


@defvjp("full")
def _(shape, fill_value, out, dout, dtype=None):
    return (None, unbroadcast(dout, fill_value))


@defvjp("full_like")
def _(a, fill_value, out, dout, dtype=None):
    return (None, unbroadcast(dout, fill_value))


@defvjp("asarray")
def _(x, out, dout):
    return (dout,)


@defvjp("array")
def _(items, out, dout):
    """``np.array((a, b, c))`` of scalars: each gets its element of ``dout``."""
    pieces = ()
    for k, item in enumerate(items):
        pieces = pieces + (dout[k],)
    return (pieces,)


from sstad.runtime.primitive import declare  # noqa: E402

declare("asarray", may_alias=True)
declare("array", reads_list=True)                     # of a list of arrays
declare("empty", "empty_like", fresh=True)            # uninitialised memory: never merged

declare("zeros_like", "ones_like", "empty_like", "full_like", shape_of=0)
declare("zeros_like", "ones_like", "empty_like", "full_like", "zeros", "ones", "empty", "full", new_memory=True)
