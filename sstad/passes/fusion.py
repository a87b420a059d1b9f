"""Fusion: which elementwise array values are computed inside the expression that reads
them, so a fusing backend (Numba) makes one loop and no temporary arrays of them.

A decision on the IR; each backend lowers a fused chain its own way (the numba backend
as one nested expression).  The emitter asks :func:`fused_into` per statement."""
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A


def elementwise_array(stmt):
    return isinstance(stmt, ir.Apply) and stmt.prim.ufunc and isinstance(stmt.outs[0].type, A.Array)


def _reads_shapes(stmt):
    """Does ``stmt`` read nothing but its arguments' shapes (a check): no memory?"""
    return stmt.prim.shape_only >= set(range(len(stmt.args)))


def fused_into(stmts, k, uses):
    """The position of the statement that ``stmts[k]`` fuses into, or None.

    An elementwise array value read once, by the elementwise operation that reads it
    first after only pure operations (and checks of shapes), is written into that
    operation's expression."""
    stmt = stmts[k]
    if not (elementwise_array(stmt) and uses[stmt.outs[0]] == 1):
        return None
    out = stmt.outs[0]
    for j in range(k + 1, len(stmts)):
        later = stmts[j]
        if not isinstance(later, ir.Apply) or later.prim.mutates or later.prim.effect and not _reads_shapes(later):
            return None
        if out in later.args:
            return j if elementwise_array(later) else None
    return None
