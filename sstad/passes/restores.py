"""Undone writes: an in-place write that a later restore undoes, with nothing reading the
array's memory between them, is dropped together with its restore.

The reverse sweep recomputes a loop body's values by running its statements again,
in-place writes included, and then puts back what each write overwrote::

    old = copy(x[i]);  x[i] = h;  ...;  x[i] = old        (the restore: ``keep=True``)

Where nothing between the write and the restore reads or writes ``x``'s memory (``ir/alias.py``
finds every value that may share it) and no call could reach it, the two leave the memory as
it was and nobody saw the difference: both go, and ``dce`` removes the copy and the value
written if nothing else reads them.  Writes nest (``x[i] = h; x[j] = s; x[j] = old_s;
x[i] = old_h``): the inner pair goes first, and the views and copies it leaves unread
between the outer pair go with it.  Only the reverse sweep marks restores ``keep``, and the
write one undoes replays a write the forward sweep made with the same values, so
dropping it drops no error the program would raise.
"""
from sstad.ir import nodes as ir
from sstad.ir.alias import shared_memory, versions
from sstad.ir.clone import substitute
from sstad.passes import Switch, register_pass
from sstad.passes.loop_fusion import basic_steps
from sstad.runtime import abstract as A


_ENABLED = Switch("sstad_undone_writes", default=True)


def dropping_undone_writes(on=True):
    """Within it, compiled code has the pass ``on`` (to compare with and without it)."""
    return _ENABLED(on)


@register_pass("restores", phases=("backend",))
def undone_writes(module) -> bool:
    """Drop write-restore pairs with nothing between them that sees the memory."""
    if not _ENABLED.get():
        return False
    changed = False
    for fn in module.functions:
        while _Function(fn).drop_all():     # nested pairs: the inner ones first
            changed = True
    return changed


def _steps(stmt):
    """The basic index of a ``getitem``/``setitem`` as comparable steps, or None."""
    return basic_steps(stmt.params["index"], stmt.args)


def _pure(stmt):
    return isinstance(stmt, ir.Apply) and not stmt.prim.mutates and not stmt.prim.effect


class _Function:
    def __init__(self, fn):
        self.fn = fn
        self.defs = {o: s for s in ir.walk(fn.body) for o in getattr(s, "outs", ())}
        self.uses = ir.use_counts(fn.body)

    def drop_all(self):
        """Drop every pair found in one sweep (with the dead reads each leaves): True if any."""
        dropped = False
        for block in list(ir.blocks(self.fn.body)):
            k = 0
            while k < len(block.stmts):
                w = self.undone_write(block, k)
                if w is None:
                    k += 1
                    continue
                k -= 1 + self.drop(block, w, k)
                dropped = True
        return dropped

    def undone_write(self, block, k):
        """The position of the write that the restore ``block.stmts[k]`` undoes, or None."""
        restore = block.stmts[k]
        if not (isinstance(restore, ir.Apply) and restore.prim.name == "setitem" and restore.params.get("keep")):
            return None
        old = restore.args[1]
        copy = self.defs.get(old)
        view = self.defs.get(copy.args[0]) if isinstance(copy, ir.Apply) and copy.prim.name == "copy" else None
        if not (isinstance(view, ir.Apply) and view.prim.name == "getitem"
                and isinstance(view.outs[0].type, A.Array)) or copy not in block.stmts[:k]:
            return None
        base, steps = view.args[0], _steps(view)
        if steps is None or _steps(restore) != steps or restore.args[0] not in versions(self.fn.body, base):
            return None
        memory = shared_memory(self.fn.body, base)
        c = block.stmts.index(copy)
        for w in range(c + 1, k):
            write = block.stmts[w]
            if isinstance(write, ir.Apply) and write.prim.name == "setitem" and write.args[0] is base \
                    and not write.params.get("keep") and _steps(write) == steps:
                break
        else:
            return None
        # between the copy and the write nothing changes the region; between the write
        # and the restore nothing sees the memory (reads left only by dead code aside)
        if any(self.touches(s, memory, writes_only=True) for s in block.stmts[c + 1:w]):
            return None
        dead = self.dead_between(block, w, k)
        if any(self.touches(s, memory) for j, s in enumerate(block.stmts[w + 1:k], w + 1) if j not in dead):
            return None
        return w

    def touches(self, stmt, memory, writes_only=False):
        """Might ``stmt`` read (or, ``writes_only``, write) the memory?  Calls may do either."""
        inner = [stmt, *(s for region in ir.regions(stmt) for s in ir.walk(region))]
        if any(isinstance(s, ir.Call) for s in inner):
            return True
        if writes_only:
            return any(isinstance(s, ir.Apply) and s.prim.mutates and s.args and s.args[0] in memory for s in inner)
        for s in inner:         # shapes do not change with the elements: reads of them do not count
            skip = s.prim.shape_only if isinstance(s, ir.Apply) else ()
            if any(a in memory for j, a in enumerate(ir.operands(s)) if j not in skip):
                return True
        return any(r in memory for region in ir.regions(stmt) for block in ir.blocks(region) for r in block.results)

    def dead_between(self, block, w, k):
        """Positions in ``(w, k)`` of pure statements whose values nothing reads but other
        such statements."""
        dead, uses = set(), dict(self.uses)
        for j in range(k - 1, w, -1):
            s = block.stmts[j]
            if _pure(s) and all(uses.get(o, 0) == 0 for o in s.outs):
                dead.add(j)
                for a in s.args:
                    if isinstance(a, ir.Var):
                        uses[a] = uses.get(a, 0) - 1
        return dead

    def drop(self, block, w, k):
        """Drop the pair and the dead reads between; the number of statements dropped
        before position ``k`` besides the write."""
        write, restore = block.stmts[w], block.stmts[k]
        dead = self.dead_between(block, w, k)
        mapping = {write.outs[0]: write.args[0], restore.outs[0]: restore.args[0]}
        block.stmts = [s for j, s in enumerate(block.stmts) if j not in dead and j not in (w, k)]
        substitute(self.fn.body, mapping)
        self.uses = ir.use_counts(self.fn.body)
        return len(dead)
