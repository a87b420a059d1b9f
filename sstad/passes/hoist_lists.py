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
from sstad.ir.alias import versions
from sstad.ir.clone import substitute
from sstad.passes import register_pass
from sstad.runtime import abstract as A
from sstad.runtime.primitive import lookup


def _versions(made, loop):
    """The list ``made`` and every value that is the same list within ``loop``, or None
    if a use stores it, hands it to a function, or returns it from something other than
    an update."""
    found = versions(ir.Block([], [loop], []), made)
    for stmt in ir.walk(ir.Block([], [loop], [])):
        reads = [a for a in ir.operands(stmt) if a in found]
        if not reads:
            continue
        if isinstance(stmt, (ir.Call, ir.If)):
            return None                                     # handed on, or a condition
        if isinstance(stmt, ir.Apply) and (
                any(a in found for a in stmt.args[1:]) or not stmt.prim.mutates and stmt.prim.may_alias
                and any(isinstance(o.type, A.ListOf) for o in stmt.outs)):
            return None                                     # stored, or possibly the list itself
    return found


def _kept_past(loop, same):
    """Does a version of the list (``same``) leave an iteration of ``loop``?"""
    blocks = [loop.body] + ([loop.cond] if isinstance(loop, ir.While) else [])
    return any(r in same for b in blocks for r in b.results)


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
            same = _versions(made, loop)
            if same is None or _kept_past(loop, same):
                break
            target = (loop, holder)
        if target is None:
            continue
        loop, holder = target
        emptied = ir.Var(made.hint, made.type)
        parent.stmts[k] = ir.Apply([emptied], lookup("list.clear"), [made], {}, stmt.loc)
        substitute(parent, {made: emptied}, skip=parent.stmts[k])
        holder.stmts.insert(holder.stmts.index(loop), stmt)
        changed = True
    return changed


@register_pass("hoist_lists", phases=("backend",))
def hoist_lists(module) -> bool:
    """Make each list that no iteration keeps once, before its loops; empty it each time."""
    changed = False
    for fn in module.functions:
        changed |= _hoist(fn.body, [])
    return changed
