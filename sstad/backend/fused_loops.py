"""Emit a ``loop_fusion`` run (``sstad/passes/loop_fusion.py``) as one loop over the
index: values used only in the run are scalars, values read after it are filled into
arrays allocated before it (or into the memory of an array the run reads for the last
time: ``LoopRuns.donors``), in-place updates write one element per iteration."""
from sstad.passes.loop_fusion import in_place, region_update
from sstad.runtime import abstract as A
from sstad.runtime.index import index_text


def emit_run(em, run, depth):
    """Write ``run`` with the emitter ``em`` (a ``FunctionEmitter``) at ``depth``."""
    for stmt in run.body:           # an update's result lives in the array it updates
        if in_place(stmt.prim):
            em.name.alias(stmt.outs[0], stmt.args[0])
    for check in run.checks:        # shape checks and views: they read no element
        em.source_comment(check, depth)
        em.stmt_Apply(check, depth)
    local = {s.outs[0] for s in run.body if not in_place(s.prim)}
    for stmt in run.body:           # arrays the fusion pass wrote as expressions: computed once, here
        for a in stmt.args:
            if a in em.inlined and a not in local:
                em.out(f"{em.name(a)} = {em.inlined.pop(a)}", depth)
    regions = {}
    for stmt in run.regions:        # x[index] += v: the region x[index], a view
        regions[stmt] = em.name.fresh("region")
        index = index_text(stmt.params["index"], [em.atom(a) for a in stmt.args])
        em.out(f"{regions[stmt]} = {em.name(stmt.args[0])}[{index}]", depth)
    n, i = em.name.fresh("n"), em.name.fresh("i")
    em.out(f"{n} = len({em.name(run.length)})", depth)
    checked = set()
    for a, w in run.apart:          # regions of one array: at least n elements apart, same stride
        u, v = (regions[x.stmt] if x.steps or x.stmt in regions else em.name(x.var) for x in (a, w))
        if u != v and (u, v) not in checked:
            checked.add((u, v))
            em.out(f"if abs(np.int64({u}.ctypes.data) - np.int64({v}.ctypes.data)) < {n} * {u}.strides[0] "
                   f"or {u}.strides[0] != {v}.strides[0] or {u}.strides[0] <= 0:", depth)
            em.out('raise rt.broadcast.ShapeSpeculation("regions updated in one loop overlap")', depth + 1)
    filled = {v: em.name.fresh(v.hint.lstrip("%") if v.hint else "t") for v in run.escaping}
    donors = em.runs.donors(run, {w: em.inlined_reads.get(w, set()) for w in em.inlined})
    for v in run.escaping:          # new names: the value's own may still hold an array the loop reads
        memory = em.name(donors[v]) if v in donors else f"np.empty({n}, np.float64)"
        if v in em.rows:            # a loop's state kept on a tape: its row of one array
            block, row = em.rows[v]
            memory = f"{block}[{row}] if {block}.shape[1] == {n} else {memory}"
        em.out(f"{filled[v]} = {memory}", depth)
    em.out(f"for {i} in range({n}):", depth)
    scalars = {v: em.name.fresh((v.hint or "t").lstrip("%") + "_i") if v in run.escaping else em.name(v)
               for v in (s.outs[0] for s in run.body) if v in local}     # in order: the same text every time

    def element(a):
        if a in scalars:
            return scalars[a]
        if isinstance(a.type, A.Array):
            return f"{em.name(a)}[{i}]"
        return em.atom(a)
    for stmt in run.body:
        em.source_comment(stmt, depth + 1)
        out = stmt.outs[0]
        if region_update(stmt.prim):
            em.out(f"{regions[stmt]}[{i}] {region_update(stmt.prim)} {element(stmt.args[1])}", depth + 1)
            continue
        args = [element(a) for a in stmt.args]
        types = [A.Scalar(a.type.dtype) if isinstance(a.type, A.Array) else a.type for a in stmt.args]
        if stmt.prim.name == "iop.truediv":
            em.out(f"{args[0]} = np.true_divide({args[0]}, {args[1]})", depth + 1)
            continue
        if in_place(stmt.prim):          # g[i] += e
            em.out(em.backend.lower(stmt.prim)(args, stmt.params, types), depth + 1)
            continue
        if stmt.prim.name == "copy":
            text = args[0]
        elif stmt.prim.name == "op.truediv":    # NumPy's division (inf, nan), not Python's ZeroDivisionError
            text = f"np.true_divide({args[0]}, {args[1]})"
        else:
            text = em.backend.lower(stmt.prim)(args, stmt.params, types)
        em.out(f"{scalars[out]} = {text}", depth + 1)
        if out in run.escaping:
            em.out(f"{filled[out]}[{i}] = {scalars[out]}", depth + 1)
    em.assign([em.name(v) for v in run.escaping], [filled[v] for v in run.escaping], depth)
