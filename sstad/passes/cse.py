"""Common-subexpression elimination: an application that repeats an earlier one (same
primitive, same operands, same static parameters) reads the earlier result instead.

Derivative code repeats itself: a rule recomputes what the forward sweep already has
(``np.cos(x)`` in both), and forward mode's transposed rules recompute their inputs.
An earlier result is visible in the block that defines it and in blocks nested in it.
Arrays are merged only if no in-place write can reach them (else the two names would
share one buffer); run-time lists and calls to unseen functions are never merged.  A sum
whose two operands become one (the adjoints of ``z * z``) is written ``z * 2``
(``simplify.doubled``).
"""
from sstad.ir import nodes as ir
from sstad.ir.alias import written_memory
from sstad.ir.clone import substitute
from sstad.passes import register_pass
from sstad.passes.simplify import doubled
from sstad.runtime import abstract as A

def _key(stmt, mutable, mapping):
    if not isinstance(stmt, ir.Apply) or stmt.prim.mutates or stmt.prim.effect or stmt.prim.fresh or len(stmt.outs) != 1:
        return None
    out = stmt.outs[0]
    if isinstance(out.type, A.ListOf) or any(isinstance(getattr(a, "type", None), A.ListOf) for a in stmt.args):
        return None
    if isinstance(out.type, A.Array) and out in mutable:
        return None
    operands = tuple(("v", mapping.get(a, a).id) if isinstance(a, ir.Var) else ("c", repr(a.type), repr(a.value))
                     for a in stmt.args)
    return stmt.prim.name, operands, repr(stmt.params), repr(out.type)


def _block(block, available, mutable, mapping):
    table = dict(available)
    for stmt in block.stmts:
        key = _key(stmt, mutable, mapping)
        if key is not None:
            if key in table:
                mapping[stmt.outs[0]] = table[key]
            else:
                table[key] = stmt.outs[0]
        for region in ir.regions(stmt):
            _block(region, table, mutable, mapping)


@register_pass("cse")
def cse(module) -> bool:
    """Read an earlier result instead of repeating the same pure application."""
    changed = False
    for fn in module.functions:
        mapping = {}
        _block(fn.body, {}, written_memory(fn.body), mapping)
        if mapping:
            substitute(fn.body, mapping)
            for stmt in ir.walk(fn.body):
                if isinstance(stmt, ir.Apply):
                    doubled(stmt)
            changed = True
    return changed
