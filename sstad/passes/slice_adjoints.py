"""Slice adjoints written straight into their parent's adjoint.

Reverse mode gives ``x = p[i]`` a cotangent of its own: a zeroed array that the slices
read from ``x`` add into, added to ``p``'s cotangent at the end.  When ``dp[i]`` is the
same region (basic indexing) and nothing else touches ``dp`` meanwhile, the slices add
into a view of ``dp[i]`` instead, saving the zeroed array and the final sum::

    dx = zeros_like(x);  dx[:b] += u;  dx[b:] += v;  dp[i] += dx
        ->  dx = dp[i];  dx[:b] += u;  dx[b:] += v

``dp`` must have ``p``'s shape (proved by ``broadcasts.shape_classes``), else ``dp[i] +=
dx`` could broadcast ``dx``, which writing into the view would not.  The pass runs last:
after ``dce``, whose liveness follows versions, not views (the moved writes are marked
``keep``), and after ``overlap``, which starts sending a gradient after the statement
that finishes it (the writes through the view come before that statement's place).
"""
from sstad.ir import nodes as ir
from sstad.ir.alias import shared_memory
from sstad.ir.clone import substitute
from sstad.passes import register_pass
from sstad.passes.broadcasts import shape_classes
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot, lookup


def _basic(items, args):
    """``items`` resolved to atoms, or None unless every item is an int or a slice (a view)."""
    def bound(b):
        if isinstance(b, Slot):
            a = args[b]
            return ("v", a.id) if isinstance(a, ir.Var) else ("c", repr(a.value))
        return ("c", repr(b))
    out = []
    for item in items:
        if isinstance(item, slice):
            out.append(("s", bound(item.start), bound(item.stop), bound(item.step)))
        elif isinstance(item, Slot) and isinstance(getattr(args[item], "type", None), A.Scalar) \
                and args[item].type.dtype.kind in "iu":
            out.append(bound(item))
        elif isinstance(item, int) and not isinstance(item, bool):
            out.append(("c", repr(item)))
        else:
            return None
    return tuple(out)


def _chain(block, k0, uses):
    """From ``dx = zeros_like(x)`` at ``k0``: the positions of the ``index_add``s into
    ``dx`` and of the final one that adds ``dx`` to another array, or None."""
    z, chain = block.stmts[k0].outs[0], []
    for k in range(k0 + 1, len(block.stmts)):
        stmt = block.stmts[k]
        if z not in ir.operands(stmt):
            if any(a is z for a in ir.reads(stmt)):
                return None
            continue
        if uses[z] != 1 or not (isinstance(stmt, ir.Apply) and stmt.prim.name == "index_add") \
                or sum(a is z for a in stmt.args) != 1:
            return None
        if stmt.args[0] is z:
            chain.append(k)
            z = stmt.outs[0]
        elif stmt.args[1] is z:
            return chain, k
        else:
            return None
    return None


def _rewrite(fn, block, k0, classes, uses, defs):
    zero = block.stmts[k0]
    found = _chain(block, k0, uses)
    x = zero.args[0]
    getitem = defs.get(x)
    if found is None or getitem is None or getitem.prim.name != "getitem":
        return False
    chain, kf = found
    if any(_basic(block.stmts[k].params["index"], block.stmts[k].args) is None for k in chain):
        return False                      # rt.index_add_at would write into a copy of the view
    final = block.stmts[kf]
    dp, p = final.args[0], getitem.args[0]
    index = _basic(getitem.params["index"], getitem.args)
    if index is None or index != _basic(final.params["index"], final.args) or not isinstance(dp, ir.Var) \
            or classes.get(dp) is None or classes.get(dp) != classes.get(p) or dp.type != p.type:
        return False
    if any(dp in s.outs for s in block.stmts[k0:kf]):
        return False                      # dp must exist where the view is taken
    shared = shared_memory(fn.body, dp)
    if any(not _accumulates(block.stmts[k], shared) for k in range(k0 + 1, kf) if k not in chain) \
            or any(a in shared for k in chain for a in block.stmts[k].args[1:]):
        return False
    for k in chain:                       # dce: these now write into dp's memory
        block.stmts[k].params = {**block.stmts[k].params, "keep": True}
    block.stmts[k0] = ir.Apply([zero.outs[0]], lookup("getitem"), [dp, *getitem.args[1:]],
                               {"index": getitem.params["index"]}, zero.loc)
    del block.stmts[kf]
    substitute(fn.body, {final.outs[0]: dp})
    return True


def _accumulates(stmt, shared):
    """Does ``stmt`` leave ``shared`` memory alone, but for views of it and additions into
    it (which commute with the additions moved ahead of them)?"""
    if isinstance(stmt, ir.Apply) and stmt.args and stmt.args[0] in shared \
            and (stmt.prim.name == "index_add" or stmt.prim.name == "getitem"):
        return not any(a in shared for a in stmt.args[1:])
    return not any(a in shared for a in ir.reads(stmt))


def _plain_zeros(stmt):
    """``zeros_like(x)`` without dtype, order or shape arguments."""
    layout = stmt.params.get("layout", ((Slot(0),), {}))
    return set(stmt.params) <= {"layout"} and len(layout[0]) == 1 and not layout[1]


def _defs(fn):
    return {o: s for s in ir.walk(fn.body) if isinstance(s, ir.Apply) for o in s.outs}


@register_pass("slice_adjoints", phases=("backend",))
def slice_adjoints(module) -> bool:
    """Add slices' cotangents into a view of the parent's cotangent, not a zeroed array."""
    changed = False
    for fn in module.functions:
        again = True
        while again:
            again = False
            classes, uses, defs = shape_classes(fn), ir.use_counts(fn.body), _defs(fn)
            for block in ir.blocks(fn.body):
                for k0, stmt in enumerate(block.stmts):
                    if isinstance(stmt, ir.Apply) and stmt.prim.name == "zeros_like" and len(stmt.args) == 1 \
                            and _plain_zeros(stmt) \
                            and isinstance(stmt.outs[0].type, A.Array) and _rewrite(fn, block, k0, classes, uses, defs):
                        changed = again = True
                        break
                if again:
                    break
    return changed
