"""Overlap gradient averaging with the backward sweep (data parallel).

``sstad.distributed.data_parallel`` ends a gradient function with one ``mpi.average``
per gradient.  This pass packs those gradients into buckets (one dtype, at most
``bucket_mb`` megabytes each, in the order the backward sweep finishes them) and starts
each bucket's sum over ranks (``mpi.bucket_start``: a non-blocking ``Iallreduce``) right
after the statement that finishes its last gradient, so the transfer runs while the
rest of the backward sweep computes.  The waits (``mpi.bucket_wait``) and the unpacking
(``mpi.bucket_piece``) take the averages' place.  Averages inside branches or loops stay
as they are (blocking).
"""
from sstad.ir import nodes as ir
from sstad.passes import register_pass
from sstad.runtime.primitive import PRIMITIVES


@register_pass("overlap", phases=("backend",))
def overlap_gradient_averaging(module) -> bool:
    """Replace each function's top-level ``mpi.average`` applications by bucketed
    all-reduces started where their gradients become final.  Returns True if anything
    changed."""
    changed = False
    for fn in module.functions:
        changed |= _overlap(fn.body)
    return changed


def _buckets(averages, finished, position):
    """Groups of averages moved by one all-reduce: in the order their gradients are
    finished, one dtype per group, each up to ``bucket_mb`` megabytes (a larger gradient
    alone), and every gradient of a group finished before the group's first average
    (where its wait goes)."""
    groups = []
    for a in sorted(averages, key=lambda a: finished.get(a.args[0], -1)):      # sorted is stable
        nbytes, limit = a.params["nbytes"], a.params["bucket_mb"] * 2 ** 20
        if groups:
            group = groups[-1]
            wait = min(position[id(b)] for b in group + [a])
            if (a.args[0].type.dtype == group[0].args[0].type.dtype and group.nbytes + nbytes <= limit
                    and max(finished.get(b.args[0], -1) for b in group + [a]) < wait):
                group.append(a)
                group.nbytes += nbytes
                continue
        groups.append(_Group([a]))
        groups[-1].nbytes = nbytes
    return groups


class _Group(list):
    """The averages of one bucket, and their bytes."""
    nbytes = 0


def _overlap(block):
    averages = [s for s in block.stmts if isinstance(s, ir.Apply) and s.prim.name == "mpi.average"]
    if not averages:
        return False
    finished = {out: k for k, stmt in enumerate(block.stmts) for out in stmt.outs}
    position = {id(s): k for k, s in enumerate(block.stmts)}
    starts, waits = {}, {}            # statement index -> starts after it; id(first average) -> its bucket's wait
    for group in _buckets(averages, finished, position):
        grads = [a.args[0] for a in group]
        handle = ir.Var("bucket", PRIMITIVES["mpi.bucket_start"].infer([g.type for g in grads], {}))
        flat = ir.Var("averaged", handle.type)
        last = max(finished.get(g, -1) for g in grads)
        starts.setdefault(last, []).append(ir.Apply([handle], PRIMITIVES["mpi.bucket_start"], grads, {}))
        first = min(group, key=lambda a: position[id(a)])
        waits[id(first)] = [ir.Apply([flat], PRIMITIVES["mpi.bucket_wait"], [handle], {}, first.loc)] + [
            ir.Apply(a.outs, PRIMITIVES["mpi.bucket_piece"], [flat] + grads, {"index": k}, a.loc)
            for k, a in enumerate(group)]
    stmts = list(starts.get(-1, []))                    # gradients that are arguments or constants
    for k, stmt in enumerate(block.stmts):
        if not (isinstance(stmt, ir.Apply) and stmt.prim.name == "mpi.average"):
            stmts.append(stmt)
        stmts.extend(waits.get(id(stmt), []))
        stmts.extend(starts.get(k, []))
    block.stmts = stmts
    return True
