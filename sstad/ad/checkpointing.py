"""A memory budget for loop tapes: two-level checkpointing, decided at run time.

A loop whose tapes hold arrays counts the bytes it pushes (``rt.tape_nbytes``).  The
iterations fall into *segments*: a segment ends when its tapes hold ``first`` bytes (the
first segment) or ``later`` bytes (every other one); then the forward loop keeps a
*checkpoint* (the carried values at the next segment's start, and that iteration's
number) and empties the tapes.  A loop whose tapes stay under ``first`` has one segment,
taped as without a budget.  Where the second segment starts, the first one's tapes
are *kept* (new lists take their place) and the forward loop stops pushing: it only
counts the bytes it would push.  The backward sweep takes the segments from the last:
the first one's tapes are there (without kept ones, the last one's instead); every other
one is run again from its checkpoint (a copy of the forward loop's body, residual tapes
included, for the segment's trip count) before the usual backward loop walks it in reverse.

Segment sizes (``Checkpoints``): a rerun into memory the cache still holds costs less
than taping into fresh memory (0.7 ns a byte with its page faults; docs/performance.md,
"Tape memory budget").  So the first segment, taped once, holds up to ``STORED`` bytes
(a loop that tapes less is never run again), and the later ones ``SEGMENT`` bytes, a
part of the L2 cache, so that their reruns reuse the same memory; together at most half
the budget.

Memory: the first segment's tapes and one other segment's, together at most half the
budget, plus the checkpoints (the carried values once per segment).  Time: one more
forward sweep over every segment but the first, while the forward loop past the first
runs untaped (a push keeps each step's values alive, so that the allocator cannot reuse
their memory: taping doubled the forward sweep).  The segment length follows
from the bytes, so it fits loops whose trip count is known only when they end (``while``,
``break``).  Revolve's binomial schedule needs the trip count in advance; this schedule
does not, and it stays within the budget up to about ``budget / 2 * later / (state bytes
* bytes per iteration)`` iterations (about 10^8 for 100 MB and a 64-element state), past
which the checkpoints grow by one state per segment.
"""
from sstad.ir import nodes as ir
from sstad.ir.clone import clone_block, substitute, without_once
from sstad.runtime import abstract as A
from sstad.runtime.extern import draws_random_numbers
from sstad.runtime.primitive import Slot, lookup


STORED = 16 << 20      # bytes of the first segment, taped once
SEGMENT = 1 << 20      # bytes of every later one, taped again where the cache holds it


class Checkpoints:
    """The checkpointing state of one forward loop, for its backward sweep."""

    def __init__(self, half, taped, copies):
        # a budget of less than 4 SEGMENTs keeps no segment: one would halve the others
        self.keeps = half >= 2 * SEGMENT  # the first segment's tapes are kept
        self.later = SEGMENT if self.keeps else half          # bytes of tape in each later segment
        self.first = min(half - SEGMENT, STORED) if self.keeps else half   # and in the first
        self.taped = taped            # body params pushed on tapes (not write-only arrays)
        self.copies = copies          # body params whose pushed value is a copy
        self.loop = None              # the forward loop
        self.states = {}              # body param -> its checkpoints (a forward loop out)
        self.starts = None            # the first trip of each segment (a forward loop out)
        self.trips = None             # the forward loop's trip count
        self.tapes = []               # the forward loop's tapes, one per body param
        self.kept = []                # the first segment's tapes, one per tape (if it keeps them)
        self.tape_kept = []           # (tape param, its kept list's param, body result)
        self.residual_kept = []       # the same for the residual tapes
        self.move = None              # the boundary's If that keeps the first segment's tapes
        self.n_outs = 0               # the forward loop's outs before residual tapes
        self.used_result = None       # the position of the byte count among the body results
        self.segments = []            # (the segment's Ifs, its backward loop, g, first) to complete
        self.boundary = None          # the forward loop's If that starts a segment
        self.taping = None            # the forward loop's test: in the first segment (if it keeps them)


def applies(sweep, loop, untaped):
    """The budget is for loops that tape arrays, outside other loops (an inner loop's
    tapes live while the outer backward loop walks one iteration); a loop that carries a
    list keeps its tapes (their items are counted nowhere); so does a loop that calls a
    helper that draws random numbers (it would draw anew in a segment's rerun)."""
    if sweep.tape_budget is None or sweep.loop_depth > 0:
        return False
    if any(isinstance(s, ir.Apply) and s.prim.name == "extern" and draws_random_numbers(s.params["name"])
           for s in ir.walk(loop.body)):
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
    inits = made + [ir.Const(record.first)]          # full at the first trip: a segment starts
    params = [ir.Var(v.hint, v.type) for v in made] + [ir.Var("used", A.I64)]
    return stmts, inits, params


def segment_start(sweep, record, tapes, values, trips, params, loc):
    """At an iteration's start: if the tapes are full, empty them (or, where the second
    segment starts, keep them) and keep a checkpoint.  ``values``: body param -> what is
    pushed for it.  Returns the tapes, the checkpoint
    lists and the byte count after it (the If is appended to the sweep's statements)."""
    *states, starts, used = params
    kept = [ir.Var("kept_" + t.hint.strip("%"), t.type) for t in tapes] if record.keeps else []
    full = sweep.L.apply("op.ge", [used, ir.Const(record.first)], hint="full")
    then_results, moved = [], []

    def then():
        if record.keeps:
            second = sweep.L.apply("op.eq", [sweep.L.apply("builtin.len", [starts]), ir.Const(1)], hint="second")
            record.move = ir.If([], second, ir.Block([], [], []), ir.Block([], [], []), loc)
            sweep.L.stmts.append(record.move)
            moved.extend(_keep_or_clear(record, t, k, loc) for t, k in zip(tapes, kept))
            then_results.extend(t for t, _ in moved)
        else:
            then_results.extend(sweep.L.apply("list.clear", [t], hint=t.hint) for t in tapes)
        for p, ck in zip(record.taped, states):
            then_results.append(sweep.L.apply("list.append", [ck, values[p]], hint=ck.hint))
        then_results.append(sweep.L.apply("list.append", [starts, trips], hint=starts.hint))
        # the count a segment starts from: 0 for the first (at trip 0), so it fills
        # ``first`` bytes; ``first - later`` for the others, so they fill ``later``
        if record.first == record.later:
            then_results.append(ir.Const(0))
        else:
            started = sweep.L.apply("builtin.min", [trips, ir.Const(1)], hint="started")
            then_results.append(sweep.L.apply("op.mul", [started, ir.Const(record.first - record.later)],
                                              hint="used"))
    stmts = sweep.collect(then)
    then_results.extend(k for _, k in moved)
    passed = list(tapes) + states + [starts, used] + kept
    outs = [ir.Var(v.hint, v.type) for v in passed]
    record.boundary = ir.If(outs, full, ir.Block([], stmts, then_results), ir.Block([], [], passed), loc)
    sweep.L.stmts.append(record.boundary)
    m = len(tapes) + len(states) + 2
    record.tape_kept = list(zip(tapes, kept, outs[m:]))     # carried by the loop: finish_forward
    return outs[:len(tapes)], outs[len(tapes):m - 1], outs[m - 1]


def _keep_or_clear(record, tape, kept, loc):
    """In ``record.move``: where the second segment starts, ``tape`` becomes the kept
    list and a new list the tape; at any other segment's start the tape is emptied.
    Returns the tape and the kept list after it."""
    move = record.move
    fresh, cleared = ir.Var(tape.hint, tape.type), ir.Var(tape.hint, tape.type)
    move.then.stmts.append(ir.Apply([fresh], lookup("list.new"), [], {}, loc))
    move.orelse.stmts.append(ir.Apply([cleared], lookup("list.clear"), [tape], {}, loc))
    outs = ir.Var(tape.hint, tape.type), ir.Var(kept.hint, kept.type)
    move.outs.extend(outs)
    move.then.results.extend([fresh, tape])
    move.orelse.results.extend([cleared, kept])
    return outs


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
    original ones, ``n_tapes`` tapes, the trip count, the checkpoint lists, the byte
    count), and carry the kept tapes in it."""
    record.loop = loop
    outs = loop.outs
    record.tapes = outs[n_base:n_base + n_tapes]
    record.trips = outs[n_base + n_tapes]
    k = n_base + n_tapes + 1
    record.states = dict(zip(record.taped, outs[k:k + len(record.taped)]))
    record.starts = outs[k + len(record.taped)]
    record.used_result = k + len(record.taped) + 1
    record.kept = [_carry(loop, *r) for r in record.tape_kept]
    record.n_outs = len(outs)


def emptied(record, tape, loc):
    """The residual tape ``tape`` (a forward loop param) where a segment starts: emptied,
    or kept at the second one.  Its kept list joins the loop in :func:`complete`."""
    split = record.boundary
    if not record.keeps:
        cleared, out = ir.Var(tape.hint, tape.type), ir.Var(tape.hint, tape.type)
        split.then.stmts.append(ir.Apply([cleared], lookup("list.clear"), [tape], {}, loc))
        split.then.results.append(cleared)
        split.orelse.results.append(tape)
        split.outs.append(out)
        return out
    kept = ir.Var("kept_" + tape.hint.strip("%"), tape.type)
    moved_tape, moved_kept = _keep_or_clear(record, tape, kept, loc)
    out, kept_out = ir.Var(tape.hint, tape.type), ir.Var(kept.hint, kept.type)
    split.then.results.extend([moved_tape, moved_kept])
    split.orelse.results.extend([tape, kept])
    split.outs.extend([out, kept_out])
    record.residual_kept.append((tape, kept, kept_out))
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


def count_grown(record, tape, start, loc):
    """The forward loop's byte count includes what an inner loop it runs pushed onto
    ``tape`` (a list it carries) since ``start``."""
    body = record.loop.body
    nb, total = ir.Var("nb", A.I64), ir.Var("used", A.I64)
    body.stmts.append(ir.Apply([nb], lookup("tape_nbytes_since"), [tape, start], {}, loc))
    body.stmts.append(ir.Apply([total], lookup("op.add"), [body.results[record.used_result], nb], {}, loc))
    body.results[record.used_result] = total


def backward(sweep, record, sweep_segment):
    """The backward loop over segments, the last first: ``sweep_segment(tapes, n, first)``
    builds the backward loop over one segment's ``n`` iterations, from trip ``first``.
    A segment's tapes: the last one's and the first one's are there; any other is rerun."""
    L = sweep.L
    n_seg = L.apply("builtin.len", [record.starts], hint="n_seg")
    last_seg = L.apply("op.sub", [n_seg, ir.Const(1)], hint="last_seg")

    def segment(q):
        g = L.apply("op.sub", [last_seg, q], hint="g")
        first = L.apply("getitem", [record.starts, g], {"index": (Slot(1),)}, hint="first")
        # the forward loop's own tapes: the last segment's, or (where the first segment
        # is kept and later ones are not taped) those of a loop of one segment
        is_last = L.apply("op.eq", [g if not record.keeps else n_seg, last_seg if not record.keeps else ir.Const(1)],
                          hint="is_last" if not record.keeps else "one")
        outs = [ir.Var("stop", A.I64)] + [ir.Var(t.hint, t.type) for t in record.tapes]
        # the If whose else branch is the rerun, made once the forward loop is complete
        split = rerun = ir.If(outs, is_last, ir.Block([], [], [record.trips] + list(record.tapes)),
                              ir.Block([], [], [record.trips] + list(record.tapes)), L.loc)
        if record.keeps:               # else if the segment is the first: its kept tapes
            stop, is_first = ir.Var("stop", A.I64), ir.Var("is_first", A.BOOL)
            inner = [ir.Var("stop", A.I64)] + [ir.Var(t.hint, t.type) for t in record.tapes]
            at_one = ir.Apply([stop], lookup("getitem"), [record.starts, ir.Const(1)], {"index": (Slot(1),)}, L.loc)
            rerun = ir.If(inner, is_first, ir.Block([], [at_one], [stop] + list(record.kept)),
                          ir.Block([], [], [record.trips] + list(record.tapes)), L.loc)
            split.orelse = ir.Block([], [ir.Apply([is_first], lookup("op.eq"), [g, ir.Const(0)], {}, L.loc), rerun],
                                    list(inner))
        L.stmts.append(split)
        n = L.apply("op.sub", [outs[0], first], hint="n")
        sweep_segment(outs[1:], n, first)
        walk = next(s for s in reversed(L.stmts) if isinstance(s, ir.For))
        record.segments.append((split, rerun, walk, g, first))
    L.loop(segment, bounds=(ir.Const(0), n_seg, ir.Const(1)), index_hint="q")
    built = next(s for s in reversed(L.stmts) if isinstance(s, ir.For))
    # the fixpoint built segment() more than once: keep the round that is in the IR
    record.segments = [s for s in record.segments if s[0] in built.body.stmts]


def complete(sweep, record, original, start, step):
    """Make each segment's rerun, now that the forward loop has its residual tapes; give
    the loop the residual tapes' kept lists."""
    loop = record.loop
    residual = loop.outs[record.n_outs:]
    residual_kept = [_carry(loop, *r) for r in record.residual_kept]
    if record.keeps:
        _tape_first_segment_only(record)
    for split, rerun, walk, g, first in record.segments:
        new = [ir.Var(t.hint, t.type) for t in residual]
        split.outs.extend(new)
        split.then.results.extend(residual)
        if rerun is not split:         # the first segment's tapes: its residual ones too
            new_kept = [ir.Var(t.hint, t.type) for t in residual]
            split.orelse.results.extend(new_kept)
            rerun.outs.extend(new_kept)
            rerun.then.results.extend(residual_kept)
        substitute(walk.body, dict(zip(residual, new)))
        rerun.orelse.stmts = sweep.collect(lambda: _rerun(sweep, record, original, start, step, g, first, rerun,
                                                          len(residual)))


def _tape_first_segment_only(record):
    """Where the first segment's tapes are kept, the forward loop pushes onto its tapes
    only in the first segment: every later segment is rerun from its checkpoint, the
    last one too, and a push keeps a step's values alive, so that the allocator cannot
    hand their memory to the next step (a taped forward sweep costs about twice an
    untaped one).  Each push (and the value made only for it) moves into an ``If`` on
    ``taping``: one checkpoint so far."""
    body, split = record.loop.body, record.boundary
    starts = split.outs[len(record.tapes) + len(record.taped)]
    counted = ir.Var("n_started", A.I64)
    record.taping = ir.Var("taping", A.BOOL)
    at = body.stmts.index(split) + 1
    body.stmts[at:at] = [ir.Apply([counted], lookup("builtin.len"), [starts], {}, split.loc),
                         ir.Apply([record.taping], lookup("op.eq"), [counted, ir.Const(1)], {}, split.loc)]
    tapes = {o for o in split.outs if isinstance(o.type, A.ListOf)} - {starts}
    uses = ir.use_counts(body)
    defs = {o: s for s in body.stmts for o in s.outs}
    stmts = []
    for stmt in body.stmts:
        if isinstance(stmt, ir.Apply) and stmt.prim.name == "list.append" and stmt.args[0] in tapes:
            tapes.add(stmt.outs[0])
            made = defs.get(stmt.args[1])
            only_here = made is not None and uses[stmt.args[1]] == 1 and made in stmts \
                and isinstance(made, ir.Apply) and not made.prim.mutates
            if only_here:
                stmts.remove(made)
            pushed = ir.Var(stmt.outs[0].hint, stmt.outs[0].type)
            then = ir.Block([], ([made] if only_here else []) + [ir.Apply([pushed], stmt.prim, stmt.args, stmt.params,
                                                                          stmt.loc)], [pushed])
            stmt = ir.If(list(stmt.outs), record.taping, then, ir.Block([], [], [stmt.args[0]]), stmt.loc)
        stmts.append(stmt)
    body.stmts = stmts


def _always_taping(body, taping):
    """A rerun's copy of the forward body: every push happens (its ``If`` on ``taping``
    becomes its first branch)."""
    stmts = []
    for stmt in body.stmts:
        if isinstance(stmt, ir.If) and stmt.cond is taping:
            stmts.extend(stmt.then.stmts)
            substitute(body, dict(zip(stmt.outs, stmt.then.results)))
            continue
        stmts.append(stmt)
    body.stmts = stmts


def _carry(loop, tape, kept, result):
    """Carry the kept list ``kept`` of the tape ``tape`` (both body params) in ``loop``,
    from the tape's own init (it is read only once the first segment's tapes are in it);
    returns its out."""
    params = ir.carried(loop)
    loop.inits.append(loop.inits[params.index(tape)])
    loop.body.params.append(kept)
    if isinstance(loop, ir.While) and loop.cond.params is not loop.body.params:
        loop.cond.params.append(ir.Var(kept.hint, kept.type))
    loop.body.results.append(result)
    out = ir.Var(kept.hint, kept.type)
    loop.outs.append(out)
    return out


def _segment_end(sweep, record, g):
    """The trip after segment ``g``: the next one's first, or the trip count after the
    last segment (rerun too where the first segment's tapes are kept)."""
    L = sweep.L

    def next_first():
        nxt = L.apply("op.add", [g, ir.Const(1)], hint="g")
        return L.apply("getitem", [record.starts, nxt], {"index": (Slot(1),)}, hint="stop")
    if not record.keeps:
        return next_first()
    n_seg = L.apply("builtin.len", [record.starts], hint="n_seg")
    last = L.apply("op.eq", [g, L.apply("op.sub", [n_seg, ir.Const(1)], hint="last_seg")], hint="is_last")
    stop, orelse_result = ir.Var("stop", A.I64), []
    orelse = sweep.collect(lambda: orelse_result.append(next_first()))
    L.stmts.append(ir.If([stop], last, ir.Block([], [], [record.trips]),
                         ir.Block([], orelse, orelse_result), L.loc))
    return stop


def _rerun(sweep, record, original, start, step, g, first, split, n_residual):
    """The else branch of a segment's If: run the forward loop's body again from the
    segment's checkpoint, for its trip count, into the emptied tapes."""
    L, loop = sweep.L, record.loop
    stop = _segment_end(sweep, record, g)
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
        elif out in record.tapes or record.n_outs <= k < record.n_outs + n_residual:
            inits.append(L.apply("list.clear", [out], hint=out.hint))
        elif out is record.trips:
            inits.append(first)
        else:
            inits.append(out)                    # the checkpoint and kept lists, not touched
    subst = {}
    body = without_once(clone_block(loop.body, subst))
    # a rerun never starts a segment: its copy of the test takes the else branch, and
    # the byte count it fed is dropped by dce
    copy = next(s for s in body.stmts if isinstance(s, ir.If) and s.outs[0] is subst[record.boundary.outs[0]])
    body.stmts.remove(copy)
    substitute(body, dict(zip(copy.outs, copy.orelse.results)))
    if record.keeps:
        _always_taping(body, subst[record.taping])
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
    split.orelse.results = [stop] + tapes + outs[record.n_outs:record.n_outs + n_residual]
