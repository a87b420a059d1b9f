"""Copy IR statements with fresh variables (for the recomputation in reverse loops), and
substitute atoms throughout a block."""
from sstad.ir import nodes as ir


def clone_block(block, subst):
    """A copy of ``block`` whose variables are fresh; ``subst`` maps old to new and is
    extended with every variable the copy defines."""
    params = [_fresh(p, subst) for p in block.params]
    stmts = [clone_stmt(s, subst) for s in block.stmts]
    return ir.Block(params, stmts, [atom(r, subst) for r in block.results])


def inline(fn, actual, into):
    """Append ``fn``'s body, with its parameters bound to ``actual``, to the statement list
    ``into``; returns its results."""
    subst = dict(zip(fn.params, actual))
    into.extend(clone_stmt(s, subst) for s in fn.body.stmts)
    return [atom(r, subst) for r in fn.body.results]


def atom(a, subst):
    return subst.get(a, a) if isinstance(a, ir.Var) else a


def _fresh(var, subst):
    new = ir.Var(var.hint, var.type)
    subst[var] = new
    return new


def clone_stmt(stmt, subst):
    args = lambda atoms: [atom(a, subst) for a in atoms]   # noqa: E731
    if isinstance(stmt, ir.Apply):
        new = ir.Apply([], stmt.prim, args(stmt.args), dict(stmt.params), stmt.loc)
    elif isinstance(stmt, ir.Call):
        new = ir.Call([], stmt.callee, args(stmt.args), stmt.loc)
    elif isinstance(stmt, ir.If):
        new = ir.If([], atom(stmt.cond, subst), clone_block(stmt.then, subst),
                    clone_block(stmt.orelse, subst), stmt.loc)
    elif isinstance(stmt, ir.While):
        inits = args(stmt.inits)
        body = clone_block(stmt.body, subst)
        cond = ir.Block(body.params, [clone_stmt(s, subst) for s in stmt.cond.stmts],
                        [atom(r, subst) for r in stmt.cond.results])
        new = ir.While([], inits, cond, body, stmt.loc)
    else:
        new = ir.For([], args(stmt.inits), atom(stmt.start, subst), atom(stmt.stop, subst),
                     atom(stmt.step, subst), clone_block(stmt.body, subst), stmt.loc)
    new.outs = [_fresh(o, subst) for o in stmt.outs]
    return new


def substitute(block, mapping, skip=None):
    """Replace every read of a variable in ``mapping`` (transitively), in place; the
    statement ``skip`` and what it contains are left alone."""
    def swap(a):
        while isinstance(a, ir.Var) and a in mapping:
            a = mapping[a]
        return a
    for stmt in block.stmts:
        if stmt is skip:
            continue
        map_operands(stmt, swap)
        for region in ir.regions(stmt):
            substitute(region, mapping, skip)
    block.results = [swap(r) for r in block.results]


def map_operands(stmt, swap):
    """Replace each atom ``stmt`` reads directly (not inside its regions) by ``swap(atom)``."""
    if isinstance(stmt, (ir.Apply, ir.Call)):
        stmt.args = [swap(a) for a in stmt.args]
    elif isinstance(stmt, ir.If):
        stmt.cond = swap(stmt.cond)
    else:
        stmt.inits = [swap(a) for a in stmt.inits]
        if isinstance(stmt, ir.For):
            stmt.start, stmt.stop, stmt.step = swap(stmt.start), swap(stmt.stop), swap(stmt.step)


def without_once(block):
    """``block``, a copy that recomputes (a loop body run again for its derivative),
    without the effects the first run already showed (``print``: primitives declared
    ``once``) where nothing reads their results."""
    used = ir.use_counts(block)
    for b in ir.blocks(block):
        # in place: the sweep still appends to blocks it holds
        b.stmts[:] = [s for s in b.stmts
                      if not (isinstance(s, ir.Apply) and s.prim.once and not any(used.get(o) for o in s.outs))]
    return block
