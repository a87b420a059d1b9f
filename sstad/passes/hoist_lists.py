"""Lists made once: a list made in a loop's body and not kept past one iteration is made
before the loop and emptied (``del L[:]``) where it was made.

Reverse mode reruns an inner loop in each iteration of an outer backward loop, and the
rerun tapes its values on lists of its own, read back before the iteration ends.  Each
new list costs allocations (Numba: the list, its storage, a typed placeholder), and its
storage grows again on every append; one list emptied per iteration keeps its storage.

A list may move out of a loop when no version of it (``list.append`` and the other
updates return the list they update; a loop or branch hands it on) leaves an iteration:
it is not a result of the loop's body, is not passed to a function, and is read only as
the first operand of list operations that do not return it (``L[j]``, ``len(L)``,
``np.stack(L)``), never stored (``M.append(L)``).  It moves out of each enclosing loop
for which that holds, innermost first.
"""
from sstad.ir import nodes as ir
from sstad.ir.clone import map_operands
from sstad.passes import register_pass
from sstad.runtime import abstract as A
from sstad.runtime.primitive import lookup


def _versions(made, stmts_of_loop):
    """The list ``made`` and every value that is the same list within the loop's blocks
    (``stmts_of_loop``: the loop's statements, nested ones included), or None if a use
    stores it, hands it to a function, or returns it from something other than an update."""
    versions, grew = {made}, True
    while grew:
        grew = False
        for stmt in stmts_of_loop:
            reads = [a for a in ir.operands(stmt) if a in versions]
            if not reads:
                continue
            if isinstance(stmt, ir.Call):
                return None
            if isinstance(stmt, ir.Apply):
                if any(a in versions for a in stmt.args[1:]) or not stmt.prim.mutates and stmt.prim.may_alias \
                        and any(isinstance(o.type, A.ListOf) for o in stmt.outs):
                    return None                             # stored, or possibly the list itself
                new = set(stmt.outs) if stmt.prim.mutates else set()
            elif isinstance(stmt, (ir.For, ir.While)):
                params = ir.carried(stmt)
                new = {x for k, init in enumerate(stmt.inits) if init in versions
                       for x in (params[k], stmt.outs[k], stmt.body.results[k])}
                if isinstance(stmt, ir.While):
                    new |= {stmt.cond.params[k] for k, init in enumerate(stmt.inits) if init in versions}
            else:                                           # If: only its condition is an operand
                return None
            if not new <= versions:
                versions |= new
                grew = True
        for stmt in stmts_of_loop:                          # handed on by a branch
            if isinstance(stmt, ir.If):
                for k, out in enumerate(stmt.outs):
                    if (stmt.then.results[k] in versions or stmt.orelse.results[k] in versions) \
                            and out not in versions:
                        versions.add(out)
                        grew = True
    return versions


def _kept_past(loop, versions):
    """Does a version of the list leave an iteration of ``loop``?"""
    blocks = [loop.body] + ([loop.cond] if isinstance(loop, ir.While) else [])
    return any(r in versions for b in blocks for r in b.results)


def _hoist(parent, depth_loops):
    """Move lists made in the loops of the block ``parent`` out of them (recursively);
    ``depth_loops``: the enclosing loops, outermost first, as (loop, block holding it)."""
    changed = False
    for k in range(len(parent.stmts) - 1, -1, -1):
        stmt = parent.stmts[k]
        for region in ir.regions(stmt):
            inner = depth_loops + [(stmt, parent)] if isinstance(stmt, (ir.For, ir.While)) else depth_loops
            changed |= _hoist(region, inner)
    if not depth_loops:
        return changed
    for k, stmt in enumerate(parent.stmts):
        if not (isinstance(stmt, ir.Apply) and stmt.prim is lookup("list.new")
                and isinstance(stmt.outs[0].type, A.ListOf)):
            continue
        made = stmt.outs[0]
        target = None
        for loop, holder in reversed(depth_loops):          # innermost first
            versions = _versions(made, list(ir.walk(ir.Block([], [loop], []))))
            if versions is None or _kept_past(loop, versions):
                break
            target = (loop, holder)
        if target is None:
            continue
        loop, holder = target
        emptied = ir.Var(made.hint, made.type)
        parent.stmts[k] = ir.Apply([emptied], lookup("list.clear"), [made], {}, stmt.loc)
        _rename_after(parent, k + 1, made, emptied)
        holder.stmts.insert(holder.stmts.index(loop), stmt)
        changed = True
    return changed


def _rename_after(block, start, old, new):
    """Reads of ``old`` in ``block.stmts[start:]`` (and nested) and its results read ``new``."""
    def swap(a):
        return new if a is old else a
    for stmt in block.stmts[start:]:
        for s in [stmt, *(t for r in ir.regions(stmt) for t in ir.walk(r))]:
            map_operands(s, swap)
        for region in ir.regions(stmt):
            for b in ir.blocks(region):
                b.results = [swap(r) for r in b.results]
    block.results = [swap(r) for r in block.results]


@register_pass("hoist_lists", phases=("backend",))
def hoist_lists(module) -> bool:
    """Make each list that no iteration keeps once, before its loops; empty it each time."""
    changed = False
    for fn in module.functions:
        changed |= _hoist(fn.body, [])
    return changed
