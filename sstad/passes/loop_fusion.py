"""Loop fusion: a run of consecutive elementwise statements over 1-D float64 arrays of
one shape, written as one explicit loop over the index (numba backend, inside loops).

Inside a loop of the user's code the arrays are often short (an LSTM cell's 14 values)
and every array a statement makes costs an allocation.  The fusion pass writes a chain
read once as one expression; a run written as one loop goes further: values read more
than once and in-place accumulations (``g += e`` -> ``g[i] += e_i``, ``d[2:] += e`` ->
``d[2 + i] += e_i``) no longer end it.  Values used only inside the run become scalars;
one read after it is filled element by element into an array allocated before the loop.

A decision on the IR, like ``fusion``: the emitter asks :meth:`LoopRuns.run_at`.  A run
is taken only where the loop computes what the statements compute, bit for bit:

* every statement is ``+ - * /`` or negation (IEEE operations, the same on scalars as in
  Numba's array loops; ``exp``/``tanh`` run NumPy's vector loops on arrays, whose last
  bits may differ from libm's, so they end a run), an in-place update by one of them of
  a whole array or of a region ``x[basic index]``, or a shape check (run before the loop);
* every array operand and every region written has the run's shape, proved by
  ``broadcasts.shape_classes``, by ``same_shape`` checks earlier in the block, or as the
  same basic index of arrays of one shape as an array of the run's shape;
* an array written in place has memory the function allocated (``zeros_like``, ``copy``,
  an elementwise result, views of these), never passed to a call or put in a list, so
  ``ir/alias.py`` sees every array that may share it; each such array of the run is the
  same region (read at the same element), or another region of it whose distance from
  the written one the loop's prologue checks at run time (raising ``ShapeSpeculation``,
  after which ``sstad.jit`` compiles without speculation, where such runs are refused).

Before the runs are found, :func:`rematerialize` lets a run recompute the cheap
elementwise values it reads (``forget = 1 / (1 + e)`` made before an ``exp`` ended the
previous run) instead of reading them from memory: the run holds a copy of their
statements, so they become scalars in its loop, and the array made for them goes where
nothing else reads it (dead, or read once and written into that reader's expression).
"""
from sstad.ir import nodes as ir
from sstad.ir.alias import shared_memory, versions
from sstad.ir.clone import clone_block
from sstad.ir.timeline import Timeline
from sstad.passes import Switch
from sstad.passes.broadcasts import shape_classes
from sstad.passes.dce import dead_code_elimination
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot



def in_place(prim):
    """Updates its first argument (``g += e``, ``x[index] += v``): its result is that array."""
    return prim.per_element not in (None, "value")


def region_update(prim):
    """``x[index] op= v``: the operator, or None."""
    return prim.per_element if prim.per_element in ("+=", "=") else None


def _float64(a):
    t = getattr(a, "type", None)
    return isinstance(t, A.Array) and t.dtype.kind == "f" and t.dtype.itemsize == 8


def _vector(a):
    """A 1-D float64 array (the only kind a run holds)."""
    return _float64(a) and a.type.ndim == 1


def _scalar(a):
    """A number that float64 arithmetic converts exactly, on arrays as on scalars."""
    t = getattr(a, "type", None)
    return isinstance(t, A.Scalar) and (t.dtype.kind in "iu" or t.dtype.kind == "f" and t.dtype.itemsize >= 4)


def _int(a):
    t = getattr(a, "type", None)
    return isinstance(t, A.Scalar) and t.dtype.kind in "iu"


def basic_steps(items, args):
    """The index ``items`` (slots into ``args``) as hashable steps, or None unless it is
    integers and slices of step 1 (a view)."""
    def bound(b):
        if b is None or isinstance(b, int) and not isinstance(b, Slot):
            return ("c", b)
        a = args[b]
        if not _int(a):
            raise ValueError
        return ("v", a) if isinstance(a, ir.Var) else ("c", int(a.value))
    try:
        steps = []
        for item in items:
            if isinstance(item, slice):
                if item.step not in (None, 1):
                    return None
                steps.append(("slice", bound(item.start), bound(item.stop)))
            elif isinstance(item, int):
                steps.append(("int", bound(item)))
            else:
                return None
        return tuple(steps)
    except ValueError:
        return None


class Access:
    """An array the run reads or writes at element ``i``: ``var`` (``var[i]``), or the
    region ``var[steps]`` (``view`` names it in the emitted prologue)."""

    def __init__(self, var, steps=(), stmt=None):
        self.var, self.steps, self.stmt = var, steps, stmt


class Run:
    """Statements ``stmts[start:end]`` (of a block) as one loop: ``checks`` run before it, ``body``
    in it; ``escaping``: values of the run read after it (materialised as arrays);
    ``length``: an array of the run's shape defined before it; ``regions``: the
    ``index_add`` statements of the body; ``apart``: pairs of accesses (whole arrays or
    regions) that the prologue checks to be disjoint."""

    def __init__(self, stmts, start, end, checks, body, escaping, length, apart):
        self.stmts, self.start, self.end = stmts, start, end
        self.checks, self.body, self.escaping, self.length = checks, body, escaping, length
        self.regions = [s for s in body if region_update(s.prim)]
        self.apart = apart


_ENABLED = Switch("sstad_loop_fusion", default=True)


def fusing_loops(on=True):
    """Within it, code emitted for the numba backend has loop fusion ``on`` (to compare
    with and without it: tests, benchmarks)."""
    return _ENABLED(on)


_REUSING = Switch("sstad_memory_reuse", default=True)


def reusing_memory(on=True):
    """Within it, a run fills a value into the memory of an array it reads for the last
    time where it can (``LoopRuns.donors``), or ``on=False``: always into a new array."""
    return _REUSING(on)


def module_runs(module):
    """The runs of ``module`` (a :class:`ModuleRuns`), or None where loop fusion is off."""
    return ModuleRuns(module) if _ENABLED.get() else None


RECOMPUTED = 16     # statements a run may recompute: a long chain is cheaper read than redone


def rematerialize(module):
    """``module``, where a run reads a cheap elementwise value made earlier in its block,
    with a copy of the functions in which the run recomputes it (``module`` is unchanged).
    Bit for bit: a recomputed ``+ - * /`` gives what the array held."""
    if not _ENABLED.get():
        return module
    functions = []
    for fn in module.functions:
        copy = None
        if any(isinstance(s, (ir.While, ir.For)) for s in ir.walk(fn.body)):
            subst = {p: ir.Var(p.hint, p.type) for p in fn.params}
            body = clone_block(fn.body, subst)      # (fresh again where they are the body's)
            copy = ir.Function(fn.name, [subst[p] for p in fn.params], body, fn.loc, fn.source_lines)
        functions.append(copy if copy is not None and _recompute_in_runs(copy) else fn)
    return ir.Module(functions)


def _recompute_in_runs(fn):
    """Give each run of ``fn`` the cheap values it reads (in place); True if any changed."""
    runs, changed = LoopRuns(fn), False
    for block in ir.blocks(fn.body):
        stmts, k = block.stmts, 0
        while k < len(stmts):
            run = runs.run_at(stmts, k)
            if run is None:
                k += 1
                continue
            clones, undo = _clones(runs, stmts, run)
            if clones:
                stmts[run.start:run.start] = clones
                again = runs.run_at(stmts, run.start)
                if again is not None and again.end == run.end + len(clones):
                    run, changed = again, True
                else:                       # the copies did not join the run: as it was
                    del stmts[run.start:run.start + len(clones)]
                    for stmt, args in undo:
                        stmt.args = args
            k = run.end
    if changed:                     # the arrays the runs now recompute
        dead_code_elimination(ir.Module([fn]))
    return changed


def _clones(runs, stmts, run):
    """Copies of the cheap statements before ``run`` in ``stmts`` whose values it reads,
    in order, with the run's statements reading them; and how to undo that."""
    before = {id(s): j for j, s in enumerate(stmts[:run.start])}
    clones, made = [], {}

    def unchanged(a, since):
        """Is the array ``a`` written by no statement from ``stmts[since]`` to the run's end?"""
        memory = runs.shared(a) | {a}
        later = [t for s in stmts[since:run.start] for t in [s, *(u for r in ir.regions(s) for u in ir.walk(r))]]
        for stmt in later + run.body:
            if isinstance(stmt, ir.Call) and memory & set(stmt.args):
                return False
            if isinstance(stmt, ir.Apply) and stmt.prim.mutates and stmt.args and stmt.args[0] in memory:
                return False
        return True

    def recompute(a):
        if a in made or not _vector(a):
            return made.get(a, a)
        stmt = runs.defs.get(a)
        if (not isinstance(stmt, ir.Apply) or id(stmt) not in before or stmt.prim.per_element != "value"
                or len(clones) >= RECOMPUTED or not all(_vector(x) or _scalar(x) for x in stmt.args)
                or not all(unchanged(x, before[id(stmt)] + 1) for x in [a, *stmt.args] if _vector(x))):
            return a
        args = [recompute(x) for x in stmt.args]
        clones.append(ir.Apply([ir.Var(a.hint, a.type)], stmt.prim, args, dict(stmt.params), stmt.loc))
        made[a] = clones[-1].outs[0]
        return made[a]
    undo = []
    for stmt in run.body:
        args = [recompute(a) if isinstance(a, ir.Var) else a for a in stmt.args]   # (not a written target)
        if args != stmt.args:
            undo.append((stmt, stmt.args))
            stmt.args = args
    return clones, undo


def kept_rows(fn):
    """{a value of a ``for i in range(start, stop)`` loop's body that is carried to the
    next iteration, which appends it to a list: the loop}.  Each iteration's value is
    kept past it (a tape of the loop's states), so a run fills it into row ``i - start``
    of one array made before the loop instead of a new array per iteration: the same
    values, kept alive as long, without an allocation per step."""
    rows = {}
    for loop in ir.walk(fn.body):
        if not isinstance(loop, ir.For) or not (isinstance(loop.step, ir.Const) and loop.step.value == 1):
            continue
        appended = {s.args[1] for s in loop.body.stmts if isinstance(s, ir.Apply) and s.prim.name == "list.append"}
        made = {o for s in loop.body.stmts if isinstance(s, ir.Apply) and s.prim.per_element == "value"
                for o in s.outs}
        for param, v in zip(ir.carried(loop), loop.body.results):
            if param in appended and v in made and _vector(v) and _vector(param):
                rows[v] = loop
    return rows


class ModuleRuns:
    """The runs of a module's functions, found in the module as it is before outlining
    (``ir/outline.py``): a part is then a function whose parameters are the arrays of
    another, and the alias analysis that finds which memory is the function's own needs
    the whole function."""

    def __init__(self, module):
        self.runs = [LoopRuns(fn) for fn in module.functions]
        self.owner = {id(s): r for r in self.runs for s in ir.walk(r.fn.body)}

    def of(self, fn):
        """The runs of ``fn`` (a function of the module, or a part of one)."""
        first = next(iter(ir.walk(fn.body)), None)
        return self.owner.get(id(first))


class LoopRuns:
    """The runs of one function (an ``ir.Function``)."""

    def __init__(self, fn):
        self.fn, self.uses = fn, ir.use_counts(fn.body)
        self.classes = shape_classes(fn)
        self.defs = {o: s for s in ir.walk(fn.body) for o in getattr(s, "outs", ())}
        self.sinks = {a for s in ir.walk(fn.body) if isinstance(s, ir.Call)
                      or isinstance(s, ir.Apply) and s.prim.name.startswith("list.") for a in s.args}
        self.params = set(fn.params)
        # a function holding shape checks was compiled to be rerun on ShapeSpeculation
        self.speculative = any(isinstance(s, ir.Apply) and s.prim.name == "same_shape" for s in ir.walk(fn.body))
        self._owned, self._versions, self._shared = {}, {}, {}
        self._timeline = None
        self.rows = kept_rows(fn)

    def versions(self, v):
        if v not in self._versions:
            self._versions[v] = frozenset(versions(self.fn.body, v))
        return self._versions[v]

    def shared(self, v):
        if v not in self._shared:
            self._shared[v] = shared_memory(self.fn.body, v)
        return self._shared[v]

    def view_of(self, v):
        """(the array ``v`` is a basic-index view of, the steps), through nested views and
        the versions of ``v`` (in-place results, loop and branch plumbing: the same
        memory), or None where versions are made differently (two views, a view and an
        allocation)."""
        steps = ()
        while True:
            made = {self._made(u) for u in self.versions(v)} - {None}
            if not made:
                return v, steps
            if len(made) > 1:
                return None
            kind, = made
            if kind[0] != "view":
                return v, steps
            v, steps = kind[1], kind[2] + steps

    def _made(self, u):
        """How ``u`` is made: ("view", base, steps), ("new",), ("param",), or None (by an
        update, a loop or a branch: as the versions it is linked to)."""
        if u in self.params:
            return ("param",)
        stmt = self.defs.get(u)
        if not isinstance(stmt, ir.Apply) or stmt.prim.mutates:
            return None
        if stmt.prim.name == "getitem":
            steps = basic_steps(stmt.params["index"], stmt.args)
            return ("view", stmt.args[0], steps) if steps is not None else ("other",)
        if stmt.prim.new_memory or stmt.prim.ufunc and not stmt.prim.may_alias:
            return ("new",)
        return ("other",)

    def owned(self, g):
        """Is ``g``'s memory the function's own, reachable through no list or call?"""
        if g not in self._owned:
            found = self.view_of(g)
            ok = found is not None and {self._made(u) for u in self.versions(found[0])} <= {("new",), None}
            self._owned[g] = ok and not self.shared(g) & self.sinks
        return self._owned[g]

    def donors(self, run, pending):
        """{a value the run fills: an array it reads, whose memory the value may take
        instead of a new one}.  The run's loop writes element i of the value after every
        read of element i of that array (no statement of the run after the value's own
        reads it), and nothing reads the array's memory after the run: it is the
        function's own, never in a list or a call, not a view, and every value that may
        share it is read only before the run (and not again by a later iteration of a
        loop it was made outside of) or made after the run (then it holds the run's
        result).  ``pending``: {value: the values its expression, not yet written, reads}
        (the fusion pass's, written where their reader is).  Typical: a loop-carried
        state ``y = y + dt * f(y)`` or cotangent, updated in its own memory."""
        if not _REUSING.get():
            return {}
        if self._timeline is None:
            self._timeline = Timeline(self.fn)
        timeline = self._timeline
        r0 = timeline.span[id(run.stmts[run.start])][0]
        r1 = timeline.span[id(run.stmts[run.end - 1])][1]
        written = {s.args[0] for s in run.body if in_place(s.prim) or region_update(s.prim)}
        made = {s.outs[0] for s in run.body}
        found, taken = {}, set()
        for j, stmt in enumerate(run.body):
            v = stmt.outs[0]
            if v not in run.escaping:
                continue
            later = {a for s in run.body[j + 1:] for a in s.args}
            for d in (a for s in run.body[:j + 1] for a in s.args):
                if d in taken or d in later or d in written or d in made or not _float64(d) or not _vector(d):
                    continue
                if self._free_after(d, v, r0, r1, timeline, pending):
                    found[v] = d
                    taken.add(d)
                    break
        return found

    def _free_after(self, d, v, r0, r1, timeline, pending):
        """Is the memory of ``d`` (read by the run between ticks r0 and r1) read by
        nothing but the run and values made after it (``v``, the run's own, among them)?"""
        if not self.owned(d) or self.view_of(d) != (d, ()):
            return False
        sharing = self.shared(d)
        if any(sharing & reads for reads in pending.values()):
            return False
        for u in sharing:
            born = timeline.defined.get(u, -1)
            if born >= r1 or u is v:
                continue
            if r0 <= born:
                return False            # made in the run: a view in its prologue
            for tick in timeline.read.get(u, ()):
                inside = r0 <= tick <= r1
                if tick > r1 or inside and u is not d or timeline.repeats(tick, r0, u):
                    return False
        return True

    def relation(self, a, w):
        """How access ``a`` stands to ``w`` (written): "apart" (no shared memory), "same"
        (the same elements), "check" (regions of one array: the prologue checks) or None."""
        if a.var not in self.shared(w.var) and w.var not in self.shared(a.var):
            return "apart"
        found_a, found_w = self.view_of(a.var), self.view_of(w.var)
        if found_a is None or found_w is None:
            return None
        (base_a, steps_a), (base_w, steps_w) = found_a, found_w
        if self.versions(base_a) != self.versions(base_w):
            return None
        if steps_a + a.steps == steps_w + w.steps:
            return "same"
        return "check" if self.speculative else None

    def run_at(self, stmts, k):
        """The run that starts at ``stmts[k]``, or None (fewer than two statements, or
        nothing a loop would save).  A shape check in the run proves shapes for all of
        it (it runs before the loop): the run is found again without the checks past its
        end until it holds all it relied on."""
        limit = len(stmts)
        while True:
            run = self._run(stmts, k, limit)
            end = run.end if run is not None else k
            if not any(isinstance(s, ir.Apply) and s.prim.name == "same_shape" for s in stmts[end:limit]):
                return run
            limit = end

    def runs_in(self, stmts):
        """The runs of a block, in order, as the emitter takes them."""
        k = 0
        while k < len(stmts):
            run = self.run_at(stmts, k)
            if run is not None:
                yield run
            k = run.end if run is not None else k + 1

    def _run(self, stmts, k, limit):
        same, views = {}, []

        def find(v):
            key = self.classes.get(v, v)
            while key in same:
                key = same[key]
            return key
        for stmt in stmts[:k]:
            self._learn(stmt, same, find, views)
        for stmt in stmts[k:limit]:
            if isinstance(stmt, ir.Apply) and stmt.prim.name == "same_shape":
                self._learn(stmt, same, find, views)
        run_class, length, local = None, None, set()
        checks, body, reads, writes, apart = [], [], [], [], []
        end = k
        for j in range(k, limit):
            stmt = stmts[j]
            if not isinstance(stmt, ir.Apply):
                break
            if stmt.prim.name == "same_shape" or self._view(stmt) or self._scalar_work(stmt):
                self._learn(stmt, same, find, views)
                if any(a in local for a in stmt.args):
                    break
                checks.append(stmt)         # a check, a view, work on numbers (no element read): before the loop
                end = j + 1
                continue
            found = self._statement(stmt, local, find, views, run_class)
            if found is None:
                break
            cls, new_reads, write = found
            if run_class is None:
                outside = [a.var for a in new_reads if not a.steps]
                if cls is None or not outside:
                    break
                run_class, length = cls, outside[0]
            pairs = [(a, w) for a in new_reads for w in writes]
            if write is not None:
                if not self.owned(write.var):
                    break
                pairs += [(a, write) for a in reads + new_reads + writes]
            relations = [(a, w, self.relation(a, w)) for a, w in pairs]
            if any(r is None for _, _, r in relations):
                break
            apart += [(a, w) for a, w, r in relations if r == "check"]
            reads += new_reads
            if write is not None:
                writes.append(write)
            body.append(stmt)
            self._learn(stmt, same, find, views)
            if not in_place(stmt.prim):            # an update's result is the array it updates
                local.add(stmt.outs[0])
            end = j + 1
        while checks and end > k and stmts[end - 1] is checks[-1] and (
                self._view(checks[-1]) or self._scalar_work(checks[-1])):
            checks.pop()                # trailing views stay where they are (a check proved shapes here)
            end -= 1
        counts = {}
        for stmt in body:
            for a in stmt.args:
                counts[a] = counts.get(a, 0) + 1
        escaping = [s.outs[0] for s in body if not in_place(s.prim)
                    and self.uses.get(s.outs[0], 0) > counts.get(s.outs[0], 0)]
        shared_temp = any(counts.get(s.outs[0], 0) > 1 for s in body)
        kept = any(v in self.rows for v in escaping)
        if len(body) < 2 or not (shared_temp or writes or kept) or len(escaping) >= len(body):
            return None
        return Run(stmts, k, end, checks, body, escaping, length, apart)

    def _statement(self, stmt, local, find, views, run_class):
        """(the shape class of ``stmt``'s operands, the accesses it reads, the one it
        writes or None), or None if it cannot be in a run of ``run_class``."""
        if region_update(stmt.prim):
            x, value = stmt.args[0], stmt.args[1]
            steps = basic_steps(stmt.params["index"], stmt.args)
            region = self._region_class(x, steps, find, views) if steps is not None else None
            if region is None or x in local or not _float64(x) \
                    or not (_vector(value) or _scalar(value)):
                return None
            operands, write = [value], Access(x, steps, stmt)
        elif stmt.prim.per_element is not None:
            if not _vector(stmt.outs[0]) or not all(_vector(a) or _scalar(a) for a in stmt.args):
                return None
            operands, write, region = list(stmt.args), None, None
            if in_place(stmt.prim):
                if stmt.args[0] in local:
                    return None
                write = Access(stmt.args[0], (), stmt)
        else:
            return None
        classes = {find(a) for a in operands if _vector(a)} | ({region} if region is not None else set())
        if run_class is not None:
            classes.add(run_class)
        if len(classes) > 1:
            return None
        reads = [Access(a) for a in operands if _vector(a) and a not in local]
        return (classes.pop() if classes else None), reads, write

    @staticmethod
    def _scalar_work(stmt):
        """Arithmetic on numbers only (``np.sin(t)`` beside a state's update): it runs
        before the loop, as a check does, so it does not end the run."""
        return not (stmt.prim.effect or stmt.prim.mutates) and stmt.outs and stmt.args \
            and all(_scalar(a) for a in [*stmt.args, *stmt.outs])

    @staticmethod
    def _view(stmt):
        """A basic-index view (it reads no element)?"""
        return stmt.prim.name == "getitem" and isinstance(stmt.outs[0].type, A.Array) \
            and basic_steps(stmt.params["index"], stmt.args) is not None

    @staticmethod
    def _region_class(x, steps, find, views):
        """The shape class of ``x[steps]`` (1-D), from a read of the same index of an
        array of ``x``'s shape, or None."""
        for y, y_steps, out in views:
            if y_steps == steps and find(y) == find(x) and _vector(out):
                return find(out)
        return None

    @staticmethod
    def _learn(stmt, same, find, views):
        """Learn from ``stmt`` which arrays share a shape: a ``same_shape`` check, an
        elementwise result with its operands (of one shape, as learnt so far), an
        in-place update with the array it updates, a view with the same view of an array
        of the same shape."""
        if not isinstance(stmt, ir.Apply):
            return
        pairs = []
        if stmt.prim.name == "same_shape":
            pairs = [stmt.args]
        elif stmt.prim.mutates and stmt.args and isinstance(getattr(stmt.args[0], "type", None), A.Array):
            pairs = [(stmt.args[0], stmt.outs[0])]
        elif stmt.prim.name == "getitem" and isinstance(stmt.outs[0].type, A.Array):
            steps = basic_steps(stmt.params["index"], stmt.args)
            if steps is not None:
                x, out = stmt.args[0], stmt.outs[0]
                pairs = [(y_out, out) for y, y_steps, y_out in views if y_steps == steps and find(y) == find(x)][:1]
                views.append((x, steps, out))
        elif len(stmt.outs) == 1 and _vector(stmt.outs[0]) and stmt.prim.ufunc:
            arrays = [a for a in stmt.args if _vector(a)]
            if arrays and len({find(a) for a in arrays}) == 1:
                pairs = [(arrays[0], stmt.outs[0])]
        for u, v in pairs:
            a, b = find(u), find(v)
            if a != b:
                same[b] = a
