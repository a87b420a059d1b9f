"""Store instead of recompute: the values a loop's backward sweep reads, taped per iteration.

The backward loop is built as a recomputation first: each iteration reruns the body's
forward sweep, then its backward sweep.  The values of that forward sweep which the
backward sweep reads (*residuals*: ``out`` of ``tanh``, operands of ``*`` and ``@``) are
then looked up in the forward loop, which computed them too: each one chosen gets a
tape of its own there, pushed at the end of the body, and the backward loop reads
it from the tape instead, so dead-code elimination drops the recomputation nothing reads
any more.  What is not chosen is still recomputed from the taped carried values.

Not stored: lists; integer scalars and views (as cheap to remake as to read back); arrays
whose memory the loop writes in place (a later write would change a stored reference; a
view of the taped state is cheap to recompute).  An inner loop is rerun, with tapes of
its own, in each iteration of the backward loop; under ``policy="store"`` its forward
sweep runs in the outer forward loop instead, where it holds no reference to memory the
outer loop writes: each of its tapes is one list that every outer iteration grows, and
the backward loop reads an iteration's items from where that iteration started (a list
read other than by index is taped per outer iteration instead, a list of lists).
Under ``policy="auto"`` only what costs more to remake than to keep is stored: results of
matrix products and ``np.linalg`` (their work grows faster than their size), scalars
made from arrays (reductions), and, in a loop recomputed inside a backward loop (whose
tapes are emptied in each of that loop's iterations, so their memory is reused),
results of library functions per element (``exp``, ``tanh``).  A fresh array per iteration costs more in memory traffic
than an elementwise operation on it (docs/performance.md, "Store or recompute").  Such an
inner loop's forward sweep then moves into the outer forward loop under ``"auto"`` too,
where it is moved whole: its results the backward sweep reads are stored, and its tapes
are one list each (:func:`_hoisted_whole`), so the outer backward loop reruns nothing.
"""
from sstad.ad.checkpointing import count_grown, count_residuals, emptied
from sstad.errors import UnsupportedSyntaxError
from sstad.ir import nodes as ir
from sstad.ir.alias import written_memory
from sstad.ir.clone import clone_stmt, substitute
from sstad.runtime import abstract as A
from sstad.runtime.extern import describe, draws_random_numbers
from sstad.runtime.primitive import Slot, lookup

POLICIES = ("auto", "store", "recompute")


def check_policy(policy):
    if policy not in POLICIES:
        raise ValueError(f"policy={policy!r}: expected one of {', '.join(map(repr, POLICIES))}")
    return policy


class LoopStore:
    """The forward loop of one original loop, and the tapes of its stored residuals."""

    def __init__(self, original, loop, container, body_subst, view_root, defs, budget=None, short_lived=False):
        self.original = original          # the loop in the function being differentiated
        self.loop = loop                  # the forward sweep's copy of it
        self.container = container        # the statement list that holds ``loop``
        self.body_subst = body_subst      # original -> the forward loop's value
        self.written = written_memory(ir.Block([], [original], []))   # (calls count as writes)
        self.view_root = view_root
        self.defs = defs                  # original var -> the Apply that makes it
        self.tapes = {}                   # original var -> the tape the backward loop reads
        self.flat = {}                    # (inner loop, k) -> the tape of its starts (_read_at_start)
        self.budget = budget              # checkpointing.Checkpoints under a tape budget
        self.short_lived = short_lived    # a recomputation inside a backward loop: its tapes
                                          # live for one iteration of that loop

    def storable(self, original, policy):
        t = original.type
        if original not in self.body_subst or not isinstance(t, (A.Scalar, A.Array)):
            return False
        if isinstance(t, A.Array) and self.view_root(original) in self.written:
            return False
        if policy == "auto":
            made = self.defs.get(original)
            if made is None:
                return False
            # a scalar made from an array (a reduction) is cheap to keep, dear to remake; so
            # is exp's result while the memory is reused in the next iteration anyway
            return made.prim.superlinear or self.short_lived and made.prim.transcendental \
                or isinstance(t, A.Scalar) and any(isinstance(getattr(a, "type", None), A.Array) for a in made.args)
        return True

    def tape(self, key, like):
        """The tape of ``key`` (an original var, or an inner loop's output), of ``like``s."""
        if key not in self.tapes:
            self.tapes[key] = ir.Var("tape_" + like.hint.strip("%"), A.ListOf(like.type))
        return self.tapes[key]

    def flat_tape(self, key, like):
        """The one list, carried by the forward loop, that an inner loop's tape ``like``
        (output ``key``) grows in every iteration, and the tape of where each iteration's
        items start in it."""
        if key not in self.tapes:
            self.tapes[key] = ir.Var(like.hint.strip("%"), like.type)
            self.flat[key] = ir.Var("tape_start", A.ListOf(A.I64))
        return self.tapes[key], self.flat[key]

    def patch(self, chosen, inner):
        """Give the forward loop a tape for each key in ``chosen``: an original var, or
        ``(inner loop, k)`` for output ``k`` of an inner loop's forward sweep, which then
        runs with its tapes in this forward loop (``inner``: see :func:`_inner_tapes`)."""
        loop, body = self.loop, self.loop.body
        made, hoisted, counted = [], {}, []
        flat = [key for key in chosen if key in self.flat]
        carried = {}                      # flat key -> the list the inner loop grows in this iteration
        for key in flat:
            whole = self.tapes[key]
            param = self.carry(ir.Var(whole.hint, whole.type), whole, made)
            carried[key] = param if self.budget is None else emptied(self.budget, param, loop.loc)
        grown = {}                        # inner loop -> {its tape's list.new var: the list carried}
        for key in flat:
            grown.setdefault(key[0], {})[inner[key[0]][0].inits[key[1]]] = carried[key]
        for key in chosen:
            if isinstance(key, tuple) and key[0] not in hoisted:
                hoisted[key[0]] = self.hoist(key[0], *inner[key[0]], grown.get(key[0], {}))
        pushes = []
        for key in flat:                  # the grown list goes to the next iteration; where it started, taped
            copy = hoisted[key[0]]
            start = ir.Var("start", A.I64)
            body.stmts.insert(body.stmts.index(copy), ir.Apply([start], lookup("builtin.len"), [carried[key]], {},
                                                               loop.loc))
            body.results.append(copy.outs[key[1]])
            pushes.append((self.flat[key], start))
            if self.budget is not None:
                count_grown(self.budget, copy.outs[key[1]], start, loop.loc)
        for key in chosen:
            if key not in self.flat:
                value = hoisted[key[0]].outs[key[1]] if isinstance(key, tuple) else self.body_subst[key]
                pushes.append((self.tapes[key], value))
        for out, value in pushes:
            param, pushed = ir.Var(out.hint, out.type), ir.Var(out.hint, out.type)
            # pushed at the end of the body: between a value's definition and its reader a
            # push would end the fused expression that computes the reader
            loc = next((s.loc for s in body.stmts if value in s.outs), loop.loc)
            target = param if self.budget is None else emptied(self.budget, param, loc)
            body.stmts.append(ir.Apply([pushed], lookup("list.append"), [target, value], {}, loc))
            self.carry(param, out, made)
            body.results.append(pushed)
            counted.append(value)
        if self.budget is not None:
            count_residuals(self.budget, counted, loop.loc)
        k = next(k for k, s in enumerate(self.container) if s is loop)
        self.container[k:k] = made

    def carry(self, param, out, made, init=None):
        """A new list carried by the forward loop: made (as ``init``) before it, ``param``
        in its body, ``out`` after it.  The body's result is appended by the caller."""
        loop = self.loop
        init = init if init is not None else ir.Var(out.hint, out.type)
        made.append(ir.Apply([init], lookup("list.new"), [], {}, loop.loc))
        loop.inits.append(init)
        loop.body.params.append(param)
        if isinstance(loop, ir.While) and loop.cond.params is not loop.body.params:
            loop.cond.params.append(ir.Var(out.hint, out.type))
        loop.outs.append(out)
        return param

    def hoist(self, original, swept, news, outside, grown):
        """Run ``swept`` (the recomputation's forward sweep of the inner loop ``original``,
        with its tapes) in this forward loop instead of its plain copy; ``outside`` maps
        what it reads to this forward loop's values, ``grown`` the tapes it grows from a
        list this loop carries instead of an empty one.  Returns the copy."""
        body = self.loop.body
        plain = next(s for s in body.stmts if s.outs and s.outs[0] is self.body_subst[original.outs[0]])
        subst = {**outside, **grown}
        copies = [clone_stmt(s, subst) for s in [n for n in news if n.outs[0] not in grown] + [swept]]
        at = body.stmts.index(plain)
        body.stmts[at:at + 1] = copies
        copy = copies[-1]
        renamed = dict(zip(plain.outs, copy.outs))
        substitute(body, renamed)
        for o, new in zip(original.outs, copy.outs):
            self.body_subst[o] = new
        return copy


def forward_definitions(stmts):
    """Vars defined by ``stmts`` or inside their ``if`` branches (not inside loops)."""
    out = set()
    for stmt in stmts:
        out.update(stmt.outs)
        if isinstance(stmt, ir.If):
            out |= forward_definitions(stmt.then.stmts) | forward_definitions(stmt.orelse.stmts)
    return out


# (primitive, argument position) that reads only the argument's shape
_SHAPE_ONLY = {("unbroadcast", 1), ("zeros_like", 0), ("ones_like", 0), ("empty_like", 0)}


def read_for_shape(fwd, bwd):
    """Where the backward sweep reads a recomputed array only for its shape (the second
    argument of ``unbroadcast``, ``zeros_like``), read an array of the same shape that it
    reads anyway: the operand of an elementwise primitive whose other operands are
    scalars.  Otherwise every binary rule would keep its result on a tape for its shape."""
    made = {o: s for s in fwd for o in s.outs if isinstance(s, ir.Apply)}
    shaped = [s for top in bwd for s in [top, *_walk_regions(top)]
              if isinstance(s, ir.Apply) and any((s.prim.name, k) in _SHAPE_ONLY for k in range(len(s.args)))]
    positions = {(s, k) for s in shaped for k in range(len(s.args)) if (s.prim.name, k) in _SHAPE_ONLY}
    needed = {a for top in bwd for s in [top, *_walk_regions(top)] for k, a in enumerate(_reads_of(s))
              if isinstance(a, ir.Var) and (s, k) not in positions}
    for s, k in positions:
        a = s.args[k]
        chain = []
        while isinstance(a, ir.Var) and isinstance(a.type, A.Array) and a in made:
            d = made[a]
            arrays = list(dict.fromkeys(b for b in d.args if isinstance(getattr(b, "type", None), A.Array)))
            if not (d.prim.elementwise and not d.prim.mutates and len(arrays) == 1
                    and arrays[0].type.ndim == a.type.ndim):
                break
            a = arrays[0]
            chain.append(a)
        better = next((c for c in chain if c in needed), None)
        if better is not None:
            s.args[k] = better


def _walk_regions(stmt):
    for region in ir.regions(stmt):
        yield from ir.walk(region)


def _reads_of(stmt):
    """What a statement reads directly, region results included (position -1 and on)."""
    reads = list(ir.operands(stmt))
    return reads + [r for region in ir.regions(stmt) for r in region.results]


def cheap_values(fwd, defined):
    """Values of the recomputation ``fwd`` as cheap to make again as to read from a tape:
    integer and boolean scalars and views (basic indexing, reshapes), made from such
    values, from values of the enclosing code, or from the iteration's taped state."""
    made = {o: s for s in fwd if isinstance(s, ir.Apply) for o in s.outs}
    memo = {}

    def cheap(a):
        if not isinstance(a, ir.Var):
            return True
        if a not in memo:
            s = made.get(a)
            memo[a] = False
            if s is None:
                memo[a] = a not in defined
            elif not s.prim.mutates:
                scalar = isinstance(a.type, A.Scalar) and a.type.dtype.kind in "iub"
                view = (s.prim.view or s.prim.may_alias) and not any(
                    isinstance(getattr(b, "type", None), A.Array) for b in s.args[1:])
                memo[a] = (scalar or view) and all(cheap(b) for b in s.args)
        return memo[a]
    return cheap


def _products_behind(fwd, residuals, chosen, image, record):
    """The matrix products (and other superlinear results) that remaking the residuals
    not ``chosen`` would recompute: ``tanh(a @ h)``'s rule reads the ``tanh``, which is
    cheap to remake from a stored ``a @ h``."""
    made = {o: s for s in fwd if isinstance(s, ir.Apply) for o in s.outs}
    found, seen = set(), set(chosen)
    todo = [v for v in residuals if v not in seen]
    while todo:
        v = todo.pop()
        if v in seen or v not in made:
            continue
        seen.add(v)
        if made[v].prim.superlinear and v in image and record.storable(image[v], "store"):
            found.add(v)
        else:
            todo.extend(a for a in made[v].args if isinstance(a, ir.Var))
    return found


def _inner_tapes(record, fwd, local, image, read, stmts):
    """Inner loops of the recomputation whose forward sweep (with its tapes) this loop's
    forward loop can run instead: {original inner loop: (its swept copy, the statements
    that make its empty tapes, {what it reads: this forward loop's value})}, and the keys
    ``(inner loop, k)`` of its outputs the backward sweep reads (its tapes).  Under a tape
    budget only where each tape is one list the forward loop carries (:func:`_flat`),
    which its segments empty, keep and run again as the forward loop's own tapes."""
    found, keys = {}, []
    made = {o: s for s in fwd for o in s.outs}
    for key, inner in local.items():
        if not (isinstance(key, tuple) and key[0] == "store" and any(s is inner.loop for s in fwd)):
            continue
        swept, n = inner.loop, len(inner.original.outs)
        wanted = [k for k in range(n, len(swept.outs)) if swept.outs[k] in read]
        if not wanted or n == 0 or inner.original.outs[0] not in record.body_subst:
            continue
        if inner.budget is not None or inner.flat or not _safe_to_hoist(record, inner) or \
                record.budget is not None and not all(_flat(swept.outs[k], stmts) for k in wanted):
            continue                       # (inner.flat: its tapes' starts count from this loop's lists)
        inside = set(_defined_in(swept))
        news, outside = [], {}
        for a in ir.reads(swept):
            if not isinstance(a, ir.Var) or a in inside or a in outside:
                continue
            if isinstance(made.get(a), ir.Apply) and made[a].prim.name == "list.new":
                news.append(made[a])
                outside[a] = None
            elif isinstance(a.type, A.ListOf):
                break                      # read at the length it had then (at_virtual_lengths)
            elif a in image and image[a] in record.body_subst:
                outside[a] = record.body_subst[image[a]]
            else:
                break                      # made by the backward sweep only: not hoistable
        else:
            outside = {a: b for a, b in outside.items() if b is not None}   # list.new: copied
            found[inner.original] = (swept, news, outside)
            keys.extend((inner.original, k) for k in wanted)
    return found, keys


def _hoisted_whole(record, inner, keys, stmts, image, read):
    """Under ``"auto"``, the inner loops whose forward sweep moves into the forward loop
    (see :func:`_inner_tapes`): those whose rerun then goes altogether, since their
    results the backward sweep reads can be stored too, and whose tapes become one list
    each (read by index only).  Storing them costs a push per inner iteration; the
    rerun costs the inner loop's whole forward sweep in every backward iteration.
    Returns the loops, their tape keys and the results to store."""
    kept, outs = {}, set()
    for original, found in inner.items():
        swept = found[0]
        results = {v for v in swept.outs[:len(original.outs)] if v in read}
        tapes = [swept.outs[k] for o, k in keys if o is original]
        if all(v in image and record.storable(image[v], "store") for v in results) and all(
                _flat(t, stmts) for t in tapes):
            kept[original] = found
            outs |= results
    return kept, [key for key in keys if key[0] in kept], outs


def _safe_to_hoist(record, inner):
    """Can the inner loop's tapes live across this loop's iterations?  Not where they
    hold references to memory this loop writes (a later iteration would change them)."""
    for p in ir.carried(inner.original):
        if isinstance(p.type, A.ListOf):
            return False
        root = record.view_root(p)
        if isinstance(p.type, A.Array) and root in record.written and root not in inner.written:
            return False                   # taped by reference, overwritten by this loop
    return not any(isinstance(k, ir.Var) and isinstance(k.type, A.Array) and record.view_root(k) in record.written
                   for k in inner.tapes)


def _defined_in(stmt):
    for region in ir.regions(stmt):
        yield from region.params
        for s in ir.walk(region):
            yield from s.outs
            for r in ir.regions(s):
                yield from r.params


def recomputation(sweep, start, last_fwd):
    """(the recomputation, the backward sweep): the statements of a backward loop's body
    from ``start`` to ``last_fwd`` and after it (an inner loop's tapes may have been
    inserted into the recomputation since: its end is found by identity)."""
    stmts = sweep.L.stmts
    mark = start if last_fwd is None else next(k for k, s in enumerate(stmts) if s is last_fwd) + 1
    return stmts[start:mark], stmts[mark:]


def refuse_calls_made_again(fwd, bwd, env):
    """A call to outside code (an ``@numba.njit`` helper: ``extern``) that the backward
    sweep would read again from the recomputation ``fwd`` rather than from a tape (its
    result written in place, the call in an inner loop, rerun in every backward
    iteration, or ``policy="recompute"``) runs twice: a helper that draws random numbers
    would give the gradient of other draws, so that is refused at the call rather than
    a silently wrong gradient.  (Other helpers are taken to give the same result again.)"""
    needed = {a for s in bwd for a in ir.reads(s) if isinstance(a, ir.Var)}
    needed |= {v for v in env.values() if isinstance(v, ir.Var)}
    for stmt in reversed(fwd):
        outs = set(stmt.outs) | set(_defined_in(stmt))
        if not outs & needed:
            continue
        needed |= {a for a in ir.reads(stmt) if isinstance(a, ir.Var)}
        for s in [stmt, *_walk_regions(stmt)]:
            if isinstance(s, ir.Apply) and s.prim.name == "extern" and draws_random_numbers(s.params["name"]):
                raise UnsupportedSyntaxError(
                    f"`{describe(s.params['name'])}` draws random numbers, and the derivative would call it "
                    "again (its result is written in place, it is called in a loop inside a loop, or "
                    "policy='recompute'): the gradient would be that of other draws", s.loc,
                    "write into a copy of its result (`eps = eps * 0.5`), call it in the outermost loop, or "
                    "draw the numbers outside and pass them in")


def read_from_tapes(sweep, record, sub, start, last_fwd, j, local):
    """Make the body of the backward loop read residuals from their tapes at iteration
    ``j``: the recomputation runs from ``sweep.L.stmts[start]`` to the statement
    ``last_fwd``, the backward sweep follows it.  Both read the tapes instead of the
    recomputed values (what is still recomputed starts from stored values).  Returns the
    originals read from tapes, in order."""
    stmts = sweep.L.stmts
    fwd, bwd = recomputation(sweep, start, last_fwd)
    env = sweep.adjoints.env
    read_for_shape(fwd, bwd)
    read = {a for s in bwd for a in ir.reads(s) if isinstance(a, ir.Var)}
    read |= {v for v in env.values() if isinstance(v, ir.Var)}
    image = {v: o for o, v in sub.items() if isinstance(v, ir.Var)}
    defined = forward_definitions(fwd)
    cheap = cheap_values(fwd, defined)
    chosen = sorted((v for v in read & defined
                     if v in image and not cheap(v) and record.storable(image[v], sweep.policy)),
                    key=lambda v: v.id)
    if sweep.policy == "auto":
        chosen = sorted(set(chosen) | _products_behind(fwd, read & defined, chosen, image, record), key=lambda v: v.id)
    inner, inner_keys = _inner_tapes(record, fwd, local, image, read, fwd + bwd) \
        if sweep.policy != "recompute" else ({}, [])
    if sweep.policy == "auto":
        inner, inner_keys, outs = _hoisted_whole(record, inner, inner_keys, fwd + bwd, image, read)
        chosen = sorted(set(chosen) | outs, key=lambda v: v.id)
    if not chosen and not inner_keys:
        return [], {}
    mapping = {}
    swept = {key: inner[key[0]][0].outs[key[1]] for key in inner_keys}
    flat = {v: None for v in swept.values() if _flat(v, fwd + bwd)}     # v -> (the list, its start)

    def reads():
        for v in chosen:
            mapping[v] = sweep.L.apply("getitem", [record.tape(image[v], v), j], {"index": (Slot(1),)},
                                       hint=v.hint)
        for key, v in swept.items():
            if v in flat:
                tape, starts = record.flat_tape(key, v)
                flat[v] = (tape, sweep.L.apply("getitem", [starts, j], {"index": (Slot(1),)}, hint="start"))
            else:
                mapping[v] = sweep.L.apply("getitem", [record.tape(key, v), j], {"index": (Slot(1),)}, hint=v.hint)
    loads = sweep.collect(reads)
    _read_at_start(stmts, flat)
    substitute(ir.Block([], fwd + bwd, []), mapping)
    for _, _, outside in inner.values():    # the swept inner loops now read the loads
        outside.update((mapping[v], outside[v]) for v in list(outside) if v in mapping)
    for key, value in list(env.items()):
        if isinstance(value, ir.Var) and value in mapping:
            env[key] = mapping[value]
    stmts[start:start] = loads
    return [image[v] for v in chosen] + inner_keys, inner


def _flat(tape, stmts):
    """Can an inner loop's ``tape`` be one list that grows across this loop's iterations?
    Where it holds numbers or arrays and ``stmts`` read it only by ``tape[i]`` (an index,
    or a constant one)."""
    if not isinstance(tape.type, A.ListOf) or not isinstance(tape.type.elem, (A.Scalar, A.Array)):
        return False
    for s in ir.walk(ir.Block([], stmts, [])):
        if any(r is tape for region in ir.regions(s) for r in region.results):
            return False
        indexed = isinstance(s, ir.Apply) and s.prim.name == "getitem" and len(s.params["index"]) == 1 \
            and isinstance(s.params["index"][0], (Slot, int))
        if any(a is tape and not (indexed and k == 0) for k, a in enumerate(ir.operands(s))):
            return False
    return True


def _read_at_start(stmts, flat):
    """``tape[i]`` -> ``whole[start + i]`` for each ``tape: (whole, start)`` in ``flat``:
    an inner loop's tape, one iteration's part of a list that grows across iterations."""
    for block in ir.blocks(ir.Block([], stmts, [])):
        k = 0
        while k < len(block.stmts):
            s = block.stmts[k]
            if isinstance(s, ir.Apply) and s.prim.name == "getitem" and s.args and s.args[0] in flat:
                whole, start = flat[s.args[0]]
                (item,) = s.params["index"]
                index = s.args[item] if isinstance(item, Slot) else ir.Const(item)
                at = ir.Var("i", A.I64)
                block.stmts.insert(k, ir.Apply([at], lookup("op.add"), [start, index], {}, s.loc))
                s.args, s.params = [whole, at], {**s.params, "index": (Slot(1),)}
                k += 1
            k += 1
