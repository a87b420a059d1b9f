"""Make values that escape an ``If`` branch into outputs of that ``If``.

The reverse sweep's ``if`` re-tests the forward sweep's condition and reads values the
forward branch computed.  Python and Numba allow that, but the IR's scoping does not:
here each such value becomes an output of the forward ``If`` (undefined on the other
branch, which the backward ``if`` never reads), and later reads use the output.
"""
from sstad.ir import nodes as ir
from sstad.ir.clone import substitute


def _blocks_with_owner(block, owner=None):
    """Yield (block, If that owns it) for every block nested in ``block``."""
    for stmt in block.stmts:
        for region in ir.regions(stmt):
            yield region, stmt
            yield from _blocks_with_owner(region)


def _reads_outside(function, skip):
    """Every Var read in ``function`` outside the statement ``skip``."""
    seen = set()

    def visit(block):
        for stmt in block.stmts:
            if stmt is skip:
                continue
            seen.update(a for a in ir.operands(stmt) if isinstance(a, ir.Var))
            for region in ir.regions(stmt):
                visit(region)
        seen.update(r for r in block.results if isinstance(r, ir.Var))
    visit(function.body)
    return seen


def export_escaping(function):
    """Repeat until no value defined in a branch is read outside its ``If``."""
    changed = True
    while changed:
        changed = False
        for block, owner in list(_blocks_with_owner(function.body)):
            if not isinstance(owner, ir.If):
                continue
            defined = [o for s in block.stmts for o in s.outs]
            escaping = [v for v in defined if v in _reads_outside(function, owner)]
            for v in escaping:
                out = ir.Var(v.hint, v.type)
                owner.outs.append(out)
                for branch in (owner.then, owner.orelse):
                    branch.results.append(v if branch is block else ir.Undef(v.type))
                substitute(function.body, {v: out}, skip=owner)
                changed = True
            if changed:
                break
