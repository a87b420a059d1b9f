"""Make values that escape an ``If`` branch into outputs of that ``If``.

The reverse sweep's ``if`` re-tests the forward sweep's condition and reads values the
forward branch computed.  Python and Numba allow that, but the IR's scoping does not:
here each such value becomes an output of the forward ``If`` (undefined on the other
branch, which the backward ``if`` never reads), and later reads use the output.
"""
from sstad.ir import nodes as ir
from sstad.ir.clone import map_operands


def _escaping(function):
    """{var: the If whose branch defines it} for each var read outside that If."""
    owner_of, escaping = {}, {}

    def read(a, enclosing):
        owner = owner_of.get(a) if isinstance(a, ir.Var) else None
        if owner is not None and owner not in enclosing:
            escaping[a] = owner

    def visit(block, enclosing, owner):
        for stmt in block.stmts:
            for a in ir.operands(stmt):
                read(a, enclosing)
            for region in ir.regions(stmt):
                if isinstance(stmt, ir.If):
                    visit(region, enclosing | {stmt}, stmt)
                else:
                    visit(region, enclosing, None)
            if owner is not None:
                owner_of.update((o, owner) for o in stmt.outs)
        for r in block.results:
            read(r, enclosing)
    visit(function.body, frozenset(), None)
    return escaping


def _replace_outside(block, mapping, enclosing=frozenset()):
    """Reads of ``v`` outside the If ``mapping[v][0]`` read ``mapping[v][1]`` instead."""
    def swap(a):
        entry = mapping.get(a) if isinstance(a, ir.Var) else None
        return entry[1] if entry is not None and entry[0] not in enclosing else a
    for stmt in block.stmts:
        map_operands(stmt, swap)
        inner = enclosing | {stmt} if isinstance(stmt, ir.If) else enclosing
        for region in ir.regions(stmt):
            _replace_outside(region, mapping, inner)
    block.results = [swap(r) for r in block.results]


def export_escaping(function):
    """Each round exports one level of nesting; repeat until nothing escapes."""
    while True:
        escaping = _escaping(function)
        if not escaping:
            return
        mapping = {}
        for v, owner in escaping.items():
            out = ir.Var(v.hint, v.type)
            owner.outs.append(out)
            defined_in_then = any(v in s.outs for s in owner.then.stmts)
            for branch in (owner.then, owner.orelse):
                here = defined_in_then == (branch is owner.then)
                branch.results.append(v if here else ir.Undef(v.type))
            mapping[v] = (owner, out)
        _replace_outside(function.body, mapping)
