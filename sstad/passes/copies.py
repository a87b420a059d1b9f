"""Copy elision: ``y = copy(x)`` where ``x`` is a new array that nothing else reads is ``x``.

Reverse mode copies a cotangent before a loop that adds into it in place (``dx =
copy(g)``); when ``g`` is an elementwise result read only by that copy, the loop can add
into ``g`` itself.  Runs after ``shape_speculation`` and ``dce``, which leave such ``g``:
an ``unbroadcast`` (possibly a view of its operand) dropped, the other readers gone.
"""
from sstad.ir import nodes as ir
from sstad.ir.clone import substitute
from sstad.passes import register_pass
from sstad.runtime.primitive import lookup


def _elided(stmt, producer, uses):
    """``x`` if ``stmt`` is ``copy(x)`` of a new array ``x`` only it reads, else None."""
    if not isinstance(stmt, ir.Apply) or stmt.prim is not lookup("copy") or len(stmt.args) != 1 \
            or stmt.params.get("layout", ((0,), {})) != ((0,), {}) or set(stmt.params) - {"layout"}:
        return None             # np.copy(x) as written, no order= or subok=
    x = stmt.args[0]
    made = producer.get(x)
    if made is None or uses.get(x) != 1 or made.prim.mutates or x.type != stmt.outs[0].type \
            or not (made.prim.new_memory or made.prim.ufunc and not made.prim.may_alias):
        return None
    return x


@register_pass("copies", phases=("backend",))
def copies(module) -> bool:
    """Read ``x`` for ``copy(x)`` where ``x`` is new memory and only the copy reads it."""
    changed = False
    for fn in module.functions:
        uses = ir.use_counts(fn.body)
        producer = {s.outs[0]: s for s in ir.walk(fn.body) if isinstance(s, ir.Apply) and len(s.outs) == 1}
        mapping = {s.outs[0]: x for s in ir.walk(fn.body) if (x := _elided(s, producer, uses)) is not None}
        if mapping:
            substitute(fn.body, mapping)
            for block in ir.blocks(fn.body):
                block.stmts[:] = [s for s in block.stmts if not (s.outs and s.outs[0] in mapping)]
            changed = True
    return changed
