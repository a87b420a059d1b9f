"""Store instead of recompute: the values a loop's backward sweep reads, taped per iteration.

The backward loop is built as a recomputation first: each iteration reruns the body's
forward sweep, then its backward sweep.  The values of that forward sweep which the
backward sweep reads (*residuals*: ``out`` of ``tanh``, operands of ``*`` and ``@``) are
then looked up in the forward loop, which computed them too: each one chosen gets a
tape of its own there, pushed right after its definition, and the backward loop reads
it from the tape instead, so dead-code elimination drops the recomputation nothing reads
any more.  What is not chosen is still recomputed from the taped carried values.

Not stored: lists, values defined inside an inner loop (the inner loop is rerun with
tapes of its own), and arrays whose memory the loop writes in place (a later write
would change a stored reference; a view of the taped state is cheap to recompute).
Under ``policy="auto"`` an array of higher rank than every carried value (a vector per
step of a scalar recurrence) is recomputed too, so the tape stays the size of the state.
"""
from sstad.ir import nodes as ir
from sstad.ir.alias import written_memory
from sstad.ir.clone import substitute
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot, lookup

POLICIES = ("auto", "store", "recompute")


def check_policy(policy):
    if policy not in POLICIES:
        raise ValueError(f"policy={policy!r}: expected one of {', '.join(map(repr, POLICIES))}")
    return policy


def _rank(t):
    if isinstance(t, A.Array):
        return t.ndim
    if isinstance(t, A.ListOf):
        return _rank(t.elem)
    return 0


class LoopStore:
    """The forward loop of one original loop, and the tapes of its stored residuals."""

    def __init__(self, original, loop, container, body_subst, view_root):
        self.original = original          # the loop in the function being differentiated
        self.loop = loop                  # the forward sweep's copy of it
        self.container = container        # the statement list that holds ``loop``
        self.body_subst = body_subst      # original -> the forward loop's value
        self.written = written_memory(ir.Block([], [original], []))   # (calls count as writes)
        self.view_root = view_root
        self.state_rank = max([_rank(p.type) for p in ir.carried(original)], default=0)
        self.tapes = {}                   # original var -> the tape the backward loop reads

    def storable(self, original, policy):
        t = original.type
        if original not in self.body_subst or not isinstance(t, (A.Scalar, A.Array)):
            return False
        if isinstance(t, A.Array):
            if self.view_root(original) in self.written:
                return False
            if policy == "auto" and t.ndim > self.state_rank:
                return False
        return True

    def tape(self, original):
        if original not in self.tapes:
            self.tapes[original] = ir.Var("tape_" + original.hint.strip("%"), A.ListOf(original.type))
        return self.tapes[original]

    def patch(self, chosen):
        """Give the forward loop a tape for each original var in ``chosen``."""
        loop, body = self.loop, self.loop.body
        made = []
        for original in chosen:
            out = self.tape(original)
            value = self.body_subst[original]
            tape, param, pushed = (ir.Var(out.hint, out.type) for _ in range(3))
            made.append(ir.Apply([tape], lookup("list.new"), [], {}, loop.loc))
            at = next((k + 1 for k, s in enumerate(body.stmts) if value in s.outs), len(body.stmts))
            loc = body.stmts[at - 1].loc if 0 < at else loop.loc
            push = ir.Apply([pushed], lookup("list.append"), [param, value], {}, loc)
            body.stmts.insert(at, push)
            loop.inits.append(tape)
            body.params.append(param)
            if isinstance(loop, ir.While) and loop.cond.params is not body.params:
                loop.cond.params.append(ir.Var(out.hint, out.type))
            body.results.append(pushed)
            loop.outs.append(out)
        k = next(k for k, s in enumerate(self.container) if s is loop)
        self.container[k:k] = made


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
            arrays = [b for b in d.args if isinstance(getattr(b, "type", None), A.Array)]
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


def read_from_tapes(sweep, record, sub, start, mark, j):
    """Make the body of the backward loop read residuals from their tapes at iteration
    ``j``: the recomputation is ``sweep.L.stmts[start:mark]``, the backward sweep follows
    it.  Both read the tapes instead of the recomputed values (what is still recomputed
    starts from stored values).  Returns the originals read from tapes, in order."""
    stmts = sweep.L.stmts
    fwd, bwd = stmts[start:mark], stmts[mark:]
    env = sweep.adjoints.env
    read_for_shape(fwd, bwd)
    read = {a for s in bwd for a in ir.reads(s) if isinstance(a, ir.Var)}
    read |= {v for v in env.values() if isinstance(v, ir.Var)}
    image = {v: o for o, v in sub.items() if isinstance(v, ir.Var)}
    defined = forward_definitions(fwd)
    chosen = sorted((v for v in read & defined if v in image and record.storable(image[v], sweep.policy)),
                    key=lambda v: v.id)
    if not chosen:
        return []
    mapping = {}

    def reads():
        for v in chosen:
            mapping[v] = sweep.L.apply("getitem", [record.tape(image[v]), j], {"index": (Slot(1),)}, hint=v.hint)
    loads = sweep.collect(reads)
    substitute(ir.Block([], fwd + bwd, []), mapping)
    for key, value in list(env.items()):
        if isinstance(value, ir.Var) and value in mapping:
            env[key] = mapping[value]
    stmts[start:start] = loads
    return [image[v] for v in chosen]
