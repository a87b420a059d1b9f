"""Dead-code elimination by mark and sweep over the structured IR.

Live: the function's results, in-place writes whose new version is live or that write
into an argument (the caller sees them) or are marked ``keep`` (the reverse sweep's
restores), applications of primitives declared with an ``effect`` (a barrier, a
collective, unseen code; not those that only make a ``fresh`` object), and whatever a
live value needs.  A loop-carried value whose final value and parameter are both dead
is dropped with its init and body result; likewise unused ``If`` outputs.  A reduction
read only for its shape reduces a cheaper operand of the same shape first
(``broadcasts.reduce_shape_sources``), so what it was given may die.
"""
from sstad.ir import nodes as ir
from sstad.passes import register_pass
from sstad.passes.broadcasts import reduce_shape_sources


def _effect_needed(stmt, function, producer):
    """Must this in-place write happen even if nothing reads its new version?"""
    if stmt.params.get("keep"):
        return True
    root = stmt.args[0]
    while root in producer:                       # back along the versions of the array
        root = producer[root].args[0]
    return root in function.params


def _mark(function):
    live = set(function.body.results)
    producer = {s.outs[0]: s for s in ir.walk(function.body)
                if isinstance(s, ir.Apply) and s.prim.mutates}
    effects = {s for s in producer.values() if _effect_needed(s, function, producer)}
    effects |= {s for s in ir.walk(function.body)
                if isinstance(s, ir.Apply) and s.prim.effect and not s.prim.fresh and not s.prim.mutates}

    impure = _impure(function.body, effects)

    def visit(block):
        changed = False
        for stmt in reversed(block.stmts):      # uses before definitions: one pass settles straight-line code
            if isinstance(stmt, (ir.Apply, ir.Call)):
                if isinstance(stmt, ir.Call) or stmt in effects or any(o in live for o in stmt.outs):
                    changed |= _add(live, stmt.args)
                continue
            if isinstance(stmt, ir.If):
                needed = False
                for k, out in enumerate(stmt.outs):
                    if out in live:
                        needed = True
                        changed |= _add(live, [stmt.then.results[k], stmt.orelse.results[k]])
                if needed or stmt in impure:
                    changed |= _add(live, [stmt.cond])
            else:
                params = ir.carried(stmt)
                for k, (out, param) in enumerate(zip(stmt.outs, params)):
                    if out in live or param in live:
                        changed |= _add(live, [param, stmt.inits[k], stmt.body.results[k]])
                if isinstance(stmt, ir.While):
                    changed |= _add(live, stmt.cond.results)
                else:
                    changed |= _add(live, [stmt.start, stmt.stop, stmt.step])
            for region in ir.regions(stmt):
                changed |= visit(region)
        return changed

    while visit(function.body):
        pass
    return live, effects


def _impure(body, effects):
    """The compound statements whose regions hold a call or an effect that must run."""
    out = set()

    def visit(block):
        found = False
        for stmt in block.stmts:
            inner = any([visit(r) for r in ir.regions(stmt)])
            if inner:
                out.add(stmt)
            found |= inner or isinstance(stmt, ir.Call) or stmt in effects
        return found
    visit(body)
    return out


def _add(live, atoms):
    new = [a for a in atoms if isinstance(a, ir.Var) and a not in live]
    live.update(new)
    return bool(new)


def _sweep(block, live, effects, impure):
    changed = False
    kept = []
    for stmt in block.stmts:
        if isinstance(stmt, ir.If):
            keep = [k for k, o in enumerate(stmt.outs) if o in live]
            if len(keep) < len(stmt.outs):
                changed = True
                stmt.outs = [stmt.outs[k] for k in keep]
                for b in (stmt.then, stmt.orelse):
                    b.results = [b.results[k] for k in keep]
        elif isinstance(stmt, (ir.While, ir.For)):
            offset = 1 if isinstance(stmt, ir.For) else 0
            params = stmt.body.params[offset:]
            keep = [k for k, (o, p) in enumerate(zip(stmt.outs, params)) if o in live or p in live]
            if len(keep) < len(stmt.outs):
                changed = True
                stmt.outs = [stmt.outs[k] for k in keep]
                stmt.inits = [stmt.inits[k] for k in keep]
                stmt.body.results = [stmt.body.results[k] for k in keep]
                stmt.body.params = stmt.body.params[:offset] + [params[k] for k in keep]
                if isinstance(stmt, ir.While):
                    stmt.cond.params = stmt.body.params
        for region in ir.regions(stmt):
            changed |= _sweep(region, live, effects, impure)
        if isinstance(stmt, (ir.Apply, ir.Call)):
            dead = not (isinstance(stmt, ir.Call) or stmt in effects) and not any(o in live for o in stmt.outs)
        else:
            dead = not stmt.outs and stmt not in impure
        if dead:
            changed = True
        else:
            kept.append(stmt)
    block.stmts = kept
    return changed


@register_pass("dce")
def dead_code_elimination(module) -> bool:
    """Drop bindings, branch outputs and loop-carried values that nothing live uses."""
    changed = False
    for fn in module.functions:
        live, effects = _mark(fn)
        changed |= _sweep(fn.body, live, effects, _impure(fn.body, effects))
        if reduce_shape_sources(fn):             # a reduction read for its shape only
            live, effects = _mark(fn)
            _sweep(fn.body, live, effects, _impure(fn.body, effects))
            changed = True
    return changed
