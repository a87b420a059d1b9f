"""Which values share memory with an array that is written in place."""
from sstad.ir import nodes as ir


def writes_in_place(block, lists=True):
    """Does ``block`` write in place (into arrays; into lists too unless ``lists=False``)?"""
    return any(isinstance(s, ir.Apply) and s.prim.mutates and (lists or s.prim.name != "list.append")
               for s in ir.walk(block))


def _links(block):
    """Edges between values that are the same array (write results, loop and branch
    plumbing), and the arrays written in place (call arguments count as written)."""
    edges, written = {}, set()

    def link(a, b):
        if isinstance(a, ir.Var) and isinstance(b, ir.Var):
            edges.setdefault(a, set()).add(b)
            edges.setdefault(b, set()).add(a)
    for stmt in ir.walk(block):
        if isinstance(stmt, ir.Apply) and stmt.prim.mutates and stmt.args:
            written.add(stmt.args[0])
            link(stmt.args[0], stmt.outs[0])
        elif isinstance(stmt, ir.If):
            for k, out in enumerate(stmt.outs):
                link(out, stmt.then.results[k])
                link(out, stmt.orelse.results[k])
        elif isinstance(stmt, (ir.While, ir.For)):
            params = ir.carried(stmt)
            for k, p in enumerate(params):
                for other in (stmt.inits[k], stmt.body.results[k], stmt.outs[k]):
                    link(p, other)
                if isinstance(stmt, ir.While):
                    link(p, stmt.cond.params[k])
        elif isinstance(stmt, ir.Call):     # a callee may write into its arguments
            written.update(a for a in stmt.args if isinstance(a, ir.Var))
    return edges, written


def _closure(edges, seeds):
    seen, todo = set(), list(seeds)
    while todo:
        v = todo.pop()
        if v not in seen:
            seen.add(v)
            todo.extend(edges.get(v, ()))
    return seen


def written_memory(block):
    """Vars of ``block`` whose buffer an in-place write in ``block`` may reach: the
    written arrays, and every value linked to them through versions (a write's result),
    loops (inits, parameters, results, outputs) and branches (results, outputs)."""
    edges, written = _links(block)
    return _closure(edges, written)


def versions(block, seed):
    """``seed`` and every value that is the same array later or elsewhere in ``block``:
    results of writes into it, and the loop parameters, results and outputs and the
    branch outputs it flows through."""
    edges, _ = _links(block)
    return _closure(edges, [seed])


def shared_memory(block, *roots):
    """``roots`` and every value that may share their memory: their versions (writes,
    loops, branches), the views taken of any of them and the arrays they are views of."""
    edges, _ = _links(block)
    seen = _closure(edges, roots)
    while True:
        grown = set(seen)
        for stmt in ir.walk(block):
            if isinstance(stmt, ir.Apply) and stmt.args and isinstance(stmt.args[0], ir.Var) \
                    and (stmt.prim.may_alias or stmt.prim.mutates) \
                    and (stmt.args[0] in grown or any(o in grown for o in stmt.outs)):
                grown.update([stmt.args[0], *stmt.outs])
        grown = _closure(edges, grown)
        if grown == seen:
            return seen
        seen = grown
