"""A memory budget for loop tapes: two-level checkpointing, decided at run time.

A loop whose tapes hold arrays counts the bytes it pushes (``rt.tape_nbytes``).  The
iterations fall into *segments*: a segment ends when its tapes hold half the budget;
then the forward loop keeps a *checkpoint* (the carried values at the next segment's
start, and that iteration's number) and empties the tapes.  Below the budget there is one
segment, taped as without a budget.  The backward sweep takes the segments from the last:
the last one's tapes are still there; every earlier one is run again from its checkpoint
(a copy of the forward loop's body, residual tapes included, for the segment's trip
count) before the usual backward loop walks it in reverse.

Memory: half the budget for one segment's tapes, plus the checkpoints (the carried values
once per segment, a small part unless a loop runs for very long).  Time: one more forward
sweep over every segment but the last.  The segment length follows from the bytes, so it
fits loops whose trip count is known only when they end (``while``, ``break``).  Revolve's
binomial schedule needs the trip count in advance; this schedule does not, and it stays
within the budget up to ``(budget / 2) ** 2 / (state bytes * bytes per iteration)``
iterations (about 10^10 for 100 MB and a 64-element state), past which the checkpoints
grow by one state per segment.
"""
from sstad.ir import nodes as ir
from sstad.ir.clone import clone_block, substitute
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot, lookup


class Checkpoints:
    """The checkpointing state of one forward loop, for its backward sweep."""

    def __init__(self, half, taped, copies):
        self.half = half              # bytes of tape per segment
        self.taped = taped            # body params pushed on tapes (not write-only arrays)
        self.copies = copies          # body params whose pushed value is a copy
        self.loop = None              # the forward loop
        self.states = {}              # body param -> its checkpoints (a forward loop out)
        self.starts = None            # the first trip of each segment (a forward loop out)
        self.trips = None             # the forward loop's trip count
        self.tapes = []               # the forward loop's tapes, one per body param
        self.n_outs = 0               # the forward loop's outs before residual tapes
        self.used_result = None       # the position of the byte count among the body results
        self.segments = []            # (the segment's If, its backward loop) to complete
        self.boundary = None          # the forward loop's If that starts a segment


def applies(sweep, loop, untaped):
    """The budget is for loops that tape arrays, outside other loops (an inner loop's
    tapes live while the outer backward loop walks one iteration); a loop that carries a
    list keeps its tapes (their items are counted nowhere)."""
    if sweep.tape_budget is None or sweep.loop_depth > 0:
        return False
    params = loop.body.params
    if any(isinstance(p.type, A.ListOf) for p in params):
        return False
    return any(isinstance(p.type, A.Array) and p not in untaped for p in params)


def new_lists(record, loc):
    """Empty lists for the checkpoints, and the byte count's start: ``(statements, the
    forward loop's inits, its params)``."""
    made = [ir.Var("ck_" + p.hint.strip("%"), A.ListOf(p.type)) for p in record.taped]
    made.append(ir.Var("ck_start", A.ListOf(A.I64)))
    stmts = [ir.Apply([v], lookup("list.new"), [], {}, loc) for v in made]
    inits = made + [ir.Const(record.half)]           # full at the first trip: a segment starts
    params = [ir.Var(v.hint, v.type) for v in made] + [ir.Var("used", A.I64)]
    return stmts, inits, params


def segment_start(sweep, record, tapes, values, trips, params, loc):
    """At an iteration's start: if the tapes are full, empty them and keep a checkpoint.
    ``values``: body param -> what is pushed for it.  Returns the tapes, the checkpoint
    lists and the byte count after it (the If is appended to the sweep's statements)."""
    *states, starts, used = params
    full = sweep.L.apply("op.ge", [used, ir.Const(record.half)], hint="full")
    then_results = []

    def then():
        for t in tapes:
            then_results.append(sweep.L.apply("list.clear", [t], hint=t.hint))
        for p, ck in zip(record.taped, states):
            then_results.append(sweep.L.apply("list.append", [ck, values[p]], hint=ck.hint))
        then_results.append(sweep.L.apply("list.append", [starts, trips], hint=starts.hint))
    stmts = sweep.collect(then)
    outs = [ir.Var(v.hint, v.type) for v in list(tapes) + states + [starts, used]]
    record.boundary = ir.If(outs, full, ir.Block([], stmts, then_results + [ir.Const(0)]),
                            ir.Block([], [], list(tapes) + states + [starts, used]), loc)
    sweep.L.stmts.append(record.boundary)
    return outs[:len(tapes)], outs[len(tapes):-1], outs[-1]


def count(sweep, used, values):
    """``used`` plus the bytes of ``values`` (a number takes 8)."""
    numbers = 8 * sum(1 for v in values if not isinstance(v.type, A.Array))
    if numbers:
        used = sweep.L.apply("op.add", [used, ir.Const(numbers)], hint="used")
    for v in values:
        if isinstance(v.type, A.Array):
            used = sweep.L.apply("op.add", [used, sweep.L.apply("tape_nbytes", [v], hint="nb")], hint="used")
    return used


def finish_forward(record, loop, n_base, n_tapes):
    """Note where the forward loop keeps its tapes and checkpoints (its outs: the
    original ones, ``n_tapes`` tapes, the trip count, the checkpoint lists, the byte count)."""
    record.loop = loop
    outs = loop.outs
    record.tapes = outs[n_base:n_base + n_tapes]
    record.trips = outs[n_base + n_tapes]
    k = n_base + n_tapes + 1
    record.states = dict(zip(record.taped, outs[k:k + len(record.taped)]))
    record.starts = outs[k + len(record.taped)]
    record.used_result = k + len(record.taped) + 1
    record.n_outs = len(outs)


def emptied(record, tape, loc):
    """The residual tape ``tape`` (a forward loop param), emptied where a segment starts."""
    split = record.boundary
    cleared, out = ir.Var(tape.hint, tape.type), ir.Var(tape.hint, tape.type)
    split.then.stmts.append(ir.Apply([cleared], lookup("list.clear"), [tape], {}, loc))
    split.then.results.append(cleared)
    split.orelse.results.append(tape)
    split.outs.append(out)
    return out


def count_residuals(record, pushes, loc):
    """The forward loop's byte count includes the residual tapes ``store.patch`` added:
    ``pushes`` are the values it pushes, all defined at the body's top level."""
    if not pushes:
        return
    body = record.loop.body
    used = body.results[record.used_result]
    for v in pushes:
        total = ir.Var("used", A.I64)
        if isinstance(v.type, A.Array):
            nb = ir.Var("nb", A.I64)
            body.stmts.append(ir.Apply([nb], lookup("tape_nbytes"), [v], {}, loc))
        else:
            nb = ir.Const(8)
        body.stmts.append(ir.Apply([total], lookup("op.add"), [used, nb], {}, loc))
        used = total
    body.results[record.used_result] = used


def backward(sweep, record, sweep_segment):
    """The backward loop over segments, the last first: ``sweep_segment(tapes, n, first)``
    builds the backward loop over one segment's ``n`` iterations, from trip ``first``."""
    L = sweep.L
    n_seg = L.apply("builtin.len", [record.starts], hint="n_seg")
    last_seg = L.apply("op.sub", [n_seg, ir.Const(1)], hint="last_seg")

    def segment(q):
        g = L.apply("op.sub", [last_seg, q], hint="g")
        first = L.apply("getitem", [record.starts, g], {"index": (Slot(1),)}, hint="first")
        is_last = L.apply("op.eq", [g, last_seg], hint="is_last")
        outs = [ir.Var("stop", A.I64)] + [ir.Var(t.hint, t.type) for t in record.tapes]
        # the else branch (the rerun) is made once the forward loop is complete
        split = ir.If(outs, is_last, ir.Block([], [], [record.trips] + list(record.tapes)),
                      ir.Block([], [], [record.trips] + list(record.tapes)), L.loc)
        L.stmts.append(split)
        n = L.apply("op.sub", [outs[0], first], hint="n")
        sweep_segment(outs[1:], n, first)
        inner = next(s for s in reversed(L.stmts) if isinstance(s, ir.For))
        record.segments.append((split, inner, g, first))
    L.loop(segment, bounds=(ir.Const(0), n_seg, ir.Const(1)), index_hint="q")
    built = next(s for s in reversed(L.stmts) if isinstance(s, ir.For))
    # the fixpoint built segment() more than once: keep the round that is in the IR
    record.segments = [s for s in record.segments if s[0] in built.body.stmts]


def complete(sweep, record, original, start, step):
    """Make each segment's rerun, now that the forward loop has its residual tapes."""
    loop = record.loop
    residual = loop.outs[record.n_outs:]
    for split, inner, g, first in record.segments:
        new = [ir.Var(t.hint, t.type) for t in residual]
        split.outs.extend(new)
        split.then.results.extend(residual)
        substitute(inner.body, dict(zip(residual, new)))
        stmts = sweep.collect(lambda: _rerun(sweep, record, original, start, step, g, first, split))
        split.orelse.stmts = stmts


def _rerun(sweep, record, original, start, step, g, first, split):
    """The else branch of a segment's If: run the forward loop's body again from the
    segment's checkpoint, for its trip count, into the emptied tapes."""
    L, loop = sweep.L, record.loop
    nxt = L.apply("op.add", [g, ir.Const(1)], hint="g")
    stop = L.apply("getitem", [record.starts, nxt], {"index": (Slot(1),)}, hint="stop")
    n = L.apply("op.sub", [stop, first], hint="n")
    is_for = isinstance(loop, ir.For)
    carried = ir.carried(original)
    params = ir.carried(loop)
    inits = []
    for k, p in enumerate(params):
        out = loop.outs[k]
        if k < len(carried):
            p0 = original.body.params[k + (1 if is_for else 0)]
            if p0 in record.states:
                value = L.apply("getitem", [record.states[p0], g], {"index": (Slot(1),)}, hint=p.hint)
                if p0 in record.copies:          # the body writes into it: keep the checkpoint
                    value = L.copy_of(value, p.hint)
            else:
                value = out                      # written only: the final array serves
            inits.append(value)
        elif out in record.tapes or k >= record.n_outs:
            inits.append(L.apply("list.clear", [out], hint=out.hint))
        elif out is record.trips:
            inits.append(first)
        else:
            inits.append(out)                    # the checkpoint lists, not touched
    subst = {}
    body = clone_block(loop.body, subst)
    # a rerun never starts a segment: its copy of the test takes the else branch, and
    # the byte count it fed is dropped by dce
    copy = next(s for s in body.stmts if isinstance(s, ir.If) and s.outs[0] is subst[record.boundary.outs[0]])
    body.stmts.remove(copy)
    substitute(body, dict(zip(copy.outs, copy.orelse.results)))
    m = ir.Var("m", A.I64)
    if is_for:                                   # the trip's index: start + (first + m) * step
        index, rest = body.params[0], body.params[1:]
        t = ir.Var("t", A.I64)
        u = ir.Var("t", A.I64)
        body.stmts[:0] = [ir.Apply([t], lookup("op.add"), [first, m], {}, loop.loc),
                          ir.Apply([u], lookup("op.mul"), [t, step], {}, loop.loc),
                          ir.Apply([index], lookup("op.add"), [start, u], {}, loop.loc)]
    else:
        rest = body.params
    outs = [ir.Var(o.hint, o.type) for o in loop.outs]
    L.stmts.append(ir.For(outs, inits, ir.Const(0), n, ir.Const(1), ir.Block([m] + rest, body.stmts, body.results),
                          loop.loc))
    k0 = len(carried)
    tapes = outs[k0:k0 + len(record.tapes)]
    split.orelse.results = [stop] + tapes + outs[record.n_outs:]
