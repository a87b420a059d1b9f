"""Reverse mode: one joint function, the forward sweep followed by the backward sweep.

* Straight-line code: each application's cotangents come from its primitive's rule,
  parsed and inlined like user code (so the result is IR again, readable and
  differentiable).  Adjoints start absent (zero) and are assigned on first use.
* ``if``: the backward sweep re-tests the same condition and runs the branch's
  backward sweep; values the branch computed are read directly (exported as outputs).
* loops: the forward loop pushes its carried values on a tape (a typed list) at the
  start of every iteration.  The backward loop runs the iterations in reverse: it takes
  the iteration's carried values from the tape, recomputes the body (a joint forward +
  backward of the body, so nested loops and branches work the same way) and carries
  the adjoints of the loop-carried values.
* in-place writes: the forward sweep saves what a write overwrites; the backward sweep
  restores it before going further back, so earlier statements see their values.
"""
from __future__ import annotations

import inspect

import numpy as np

from sstad.ad import checkpointing
from sstad.ad.activity import active_values, needed_carried
from sstad.ad.lists import ListAdjoints, float_list, list_roots
from sstad.ad.residuals import LoopStore, check_policy, read_from_tapes, recomputation, refuse_calls_made_again
from sstad.ad.structural import shift_slice, differentiable
from sstad.ad.sweep import Sweep
from sstad.custom import CustomFunction, Remat
from sstad.errors import SstadError, UnsupportedSyntaxError, at_users_line
from sstad.frontend.builder import TRUE
from sstad.frontend.lower import Lowerer
from sstad.frontend.source import function_node
from sstad.ir import nodes as ir
from sstad.ir.alias import versions, writes_in_place, written_memory
from sstad.ir.clone import atom as mapped, clone_block, clone_stmt, substitute, without_once
from sstad.runtime import abstract as A
from sstad.runtime.extern import describe as describe_extern
from sstad.runtime.primitive import Slot, default_of, fill, is_default, lookup, parameters, shown_name



def _defined(block):
    out = set(block.params)
    for stmt in ir.walk(block):
        out.update(stmt.outs)
        for region in ir.regions(stmt):
            out.update(region.params)
    return out


class _Ref:
    """Marks argument positions when a layout is filled, to match cotangents to atoms."""

    def __init__(self, k):
        self.k = k


class ReverseMode(ListAdjoints, Sweep):
    transpose_jvp = None     # set by sstad.ad.transpose: cotangents from a JVP-only custom rule
    def __init__(self, lowerer, callees=None, policy="auto", tape_budget=None):
        Sweep.__init__(self, lowerer, "<adjoints>")
        self.tape_budget = tape_budget             # bytes; loops checkpoint past it (checkpointing.py)
        self.loop_depth = 0                        # backward loops being built around this point
        self.adjoints = self.scope                 # adjoints live in its environment
        self.callees = callees if callees is not None else {}   # callee -> (its vjp, wrt, seeded)
        self.policy = check_policy(policy)         # loops: store residuals or recompute (residuals.py)

    # --- adjoints ----------------------------------------------------------------
    @staticmethod
    def key(var):
        return f"d{var.hint.strip('%')}#{var.id}"

    def get(self, var):
        return self.adjoints.env.get(self.key(var))

    def active(self, a):
        """Does a derivative flow into ``a``?  (See :mod:`sstad.ad.activity`.)"""
        return isinstance(a, ir.Var) and a in self.act and differentiable(a)

    def active_list(self, a):
        return isinstance(a, ir.Var) and a in self.act and float_list(a)

    # An adjoint array is *owned* when this sweep allocated it (zeros, a copy, a sum) and
    # no other adjoint shares it: then contributions are added in place, so a read
    # ``x[i]`` in a loop costs O(1) in the backward sweep, not a full-size array.  Rule
    # results may share memory (``d(x + y)`` hands ``dout`` to both), so they are not
    # owned.  The flag lives in the state, so branches and loops keep it only where it
    # holds on every path.
    def put(self, var, value, owned=False):
        self.set_slot(self.key(var), value, owned)

    def set_slot(self, key, value, owned):
        self.adjoints.env[key] = value
        if owned and isinstance(getattr(value, "type", None), A.Array):
            self.adjoints.env["own:" + key] = TRUE
        else:
            self.adjoints.env.pop("own:" + key, None)

    def owned(self, var):
        return self.slot_owned(self.key(var))

    def slot_owned(self, key):
        return self.adjoints.env.get("own:" + key) is TRUE

    def drop(self, vars_):
        for v in vars_:
            self.adjoints.env.pop(self.key(v), None)
            self.adjoints.env.pop("own:" + self.key(v), None)

    def owned_adjoint(self, var, primal):
        """The adjoint of ``var`` as an array this sweep may write into."""
        current = self.get(var)
        if current is None or ir.is_scalar_const(current, 0):
            return self.zeros(var, primal)
        if self.owned(var):
            return current
        return self.L.copy_of(current, "d" + var.hint)

    def accumulate(self, var, ct, owned=False):
        """adjoint(var) += ct, keeping var's type (dtype, rank)."""
        ct = self.L.atom(ct, None)
        target = var.type
        if isinstance(ct.type, A.Array) and not isinstance(target, A.Array) or (
                isinstance(target, A.Array) and isinstance(ct.type, A.Array) and ct.type.ndim != target.ndim):
            raise SstadError(f"internal: a rule gave a {ct.type} cotangent for a {target}", self.L.loc)
        if isinstance(ct.type, A.Array):
            want = A.Array(target.dtype, ct.type.ndim)
        else:
            want = A.Scalar(target.dtype, getattr(ct.type, "weak", False) and ct.type.dtype == target.dtype)
        ct = self.L.cast(ct, want, self.L.stmts)
        if isinstance(ct, ir.Var) and ct.hint == "%t":
            ct.hint = "d" + var.hint
        current = self.get(var)
        if current is None or ir.is_scalar_const(current, 0):
            self.put(var, ct, owned)
        elif self.owned(var) and isinstance(ct.type, A.Array):
            self.put(var, self.L.apply("iop.add", [current, ct], hint="d" + var.hint), owned=True)
        else:
            self.put(var, self.L.apply("op.add", [current, ct], hint="d" + var.hint), owned=True)

    def accumulate_args(self, stmt, pairs):
        """A rule's cotangents, ``(argument position, cotangent)``, into the arguments' adjoints."""
        for k, ct in pairs:
            if ct is not None and self.active(stmt.args[k]):
                self.accumulate(stmt.args[k], ct)

    def materialize(self, vars_, subst):
        """Give these values explicit zero adjoints, so that branch and loop joins see them."""
        for v in vars_:
            if self.active(v) and self.get(v) is None:
                self.put(v, self.zeros(v, mapped(v, subst)), owned=True)

    # --- the joint function --------------------------------------------------------
    def joint(self, fn, wrt, seeded, constant_seed=False):
        """``fn`` -> a function of (params..., seeds...) returning (results..., grads...).

        ``wrt``: indices of the parameters to differentiate; ``seeded``: indices of the
        results that receive a cotangent (a parameter each, or 1.0 if ``constant_seed``)."""
        subst = {}
        params = [ir.Var(p.hint, p.type) for p in fn.params]
        subst.update(zip(fn.params, params))
        seeds = []
        for k in seeded:
            r = fn.body.results[k]
            seeds.append(ir.Const(1.0, r.type) if constant_seed else ir.Var("d" + getattr(r, "hint", "out"), r.type))
        self.act = active_values(fn, wrt)
        self.refuse_lists_of_lists(fn)
        self.defs = {o: s for s in ir.walk(fn.body) if isinstance(s, ir.Apply) for o in s.outs}
        self.uses = ir.use_counts(fn.body)
        self.untaped = {}              # loop -> carried arrays it does not tape (write_only)
        self.L.stmts = []
        saved = {}
        self.roots = list_roots(fn.body, {})
        self.read_lists = set()        # list roots whose adjoint something has added to
        self.list_seeds = {}           # list root -> the adjoint list it starts from (lists.py)
        self.forward(fn.body.stmts, subst, saved)
        results = [mapped(r, subst) for r in fn.body.results]
        for k, seed in zip(seeded, seeds):
            r = fn.body.results[k]
            if self.active(r):
                self.accumulate(r, seed)
        self.backward(fn.body.stmts, subst, saved)
        grads = []
        for i in wrt:
            p = fn.params[i]
            g = self.get(p)
            grads.append(g if g is not None else self.zeros(p, params[i]))
        seed_params = [] if constant_seed else seeds
        body = ir.Block(params + seed_params, self.L.stmts, results + grads)
        return ir.Function(fn.name + "_vjp", params + seed_params, body, fn.loc)

    def refuse_lists_of_lists(self, fn):
        """A list of lists gets no adjoint: refuse one a derivative would flow through (the
        tapes of a nested loop under policy="store", or of a loop over a popped list, when
        that gradient is differentiated again) rather than drop its contribution."""
        for stmt in ir.walk(fn.body):
            if any(o in self.act and isinstance(o.type, A.ListOf) and isinstance(o.type.elem, A.ListOf)
                   for o in stmt.outs):
                raise UnsupportedSyntaxError(
                    "reverse mode through a list of lists is not supported (a gradient taken with "
                    "policy='store' tapes a nested loop's tapes in one; a loop that pops a list or replaces "
                    "it by a new one tapes copies of it in one)", stmt.loc,
                    "differentiate a gradient taken with policy='auto' or policy='recompute', of a loop that "
                    "appends to one list")

    # --- forward sweep -------------------------------------------------------------
    def forward(self, stmts, subst, saved):
        for stmt in stmts:
            self.L.loc = stmt.loc
            if self.forward_list(stmt, subst, saved):
                continue
            if isinstance(stmt, ir.Apply) and stmt.prim.mutates:
                if stmt.args[0] in saved.get("unwritten", ()):
                    subst[stmt.outs[0]] = mapped(stmt.args[0], subst)     # see skipped_writes
                    continue
                self.save_overwritten(stmt, subst, saved)
            if isinstance(stmt, (ir.For, ir.While)):
                self.forward_loop(stmt, subst, saved)
            elif isinstance(stmt, ir.If):
                self.forward_if(stmt, subst, saved)
            else:
                self.L.stmts.append(clone_stmt(stmt, subst))

    def at_virtual_lengths(self, loop, saved):
        """``loop`` (a copy, recomputed in a backward iteration) reading each complete list
        at the length it had then: ``len(L)`` is the virtual length, ``L[i]`` counts a
        negative ``i`` from it; other reads of the whole list are refused."""
        virtual = saved.get("virtual", {})
        reads = [(b, s) for region in ir.regions(loop) for b in ir.blocks(region) for s in b.stmts
                 if isinstance(s, ir.Apply) and s.args and s.args[0] in virtual]
        if not reads:
            return loop
        lengths, mapping = {}, {}
        for block, stmt in reads:
            lst = stmt.args[0]
            if lst not in lengths:
                lengths[lst] = self.list_length(lst, saved)      # before the loop
            if stmt.prim.name == "builtin.len":
                mapping[stmt.outs[0]] = lengths[lst]
                block.stmts.remove(stmt)
            elif stmt.prim.name == "getitem" and len(stmt.params["index"]) == 1 \
                    and isinstance(stmt.params["index"][0], int):
                item = stmt.params["index"][0]
                index = stmt.args[item] if isinstance(item, Slot) else ir.Const(item)
                position = ir.Var("i", A.I64)
                block.stmts.insert(block.stmts.index(stmt), ir.Apply([position], lookup("op.mod"),
                                                                     [index, lengths[lst]], {}, stmt.loc))
                stmt.args, stmt.params = [lst, position], {**stmt.params, "index": (Slot(1),)}
            elif stmt.prim.reads_list or stmt.prim.mutates:
                raise UnsupportedSyntaxError("reverse mode: a loop nested in a loop that appends to a list "
                                             "reads or changes the whole list", stmt.loc,
                                             "read its items by index, or build the list in the inner loop")
        for region in ir.regions(loop):
            substitute(region, mapping)
        return loop

    def forward_if(self, stmt, subst, saved):
        """The forward ``if``; virtual list lengths that differ between the branches
        become outputs."""
        virtual = saved.setdefault("virtual", {})
        before = dict(virtual)
        then = self.collect(lambda: self.forward(stmt.then.stmts, subst, saved))
        after_then = dict(virtual)
        virtual.clear()
        virtual.update(before)
        orelse = self.collect(lambda: self.forward(stmt.orelse.stmts, subst, saved))
        lengths = []
        for lst in [v for v in after_then if after_then[v] != virtual.get(v)]:
            sides = [self.virtual_length(after_then[lst], then),
                     self.virtual_length(virtual[lst], orelse)]
            lengths.append((lst, sides))
        new = ir.If([], mapped(stmt.cond, subst),
                    ir.Block([], then, [mapped(r, subst) for r in stmt.then.results]
                             + [s[0] for _, s in lengths]),
                    ir.Block([], orelse, [mapped(r, subst) for r in stmt.orelse.results]
                             + [s[1] for _, s in lengths]), stmt.loc)
        new.outs = [ir.Var(o.hint, o.type) for o in stmt.outs]
        for lst, _ in lengths:
            n = ir.Var("n", A.I64)
            new.outs.append(n)
            virtual[lst] = (n, 0)
        subst.update(zip(stmt.outs, new.outs))
        for out, a, b in zip(stmt.outs, new.then.results, new.orelse.results):
            if a is b and a in virtual:       # the complete list on both paths
                subst[out] = a
        self.L.stmts.append(new)

    def save_overwritten(self, stmt, subst, saved):
        name = stmt.prim.name
        x = mapped(stmt.args[0], subst)
        if name == "setitem":
            index = tuple(Slot(i - 1) if isinstance(i, Slot) else shift_slice(i) for i in stmt.params["index"])
            old = self.L.apply("getitem", [x] + [mapped(a, subst) for a in stmt.args[2:]], {"index": index},
                               hint="old")
        elif name.startswith("iop.") or name == "index_add":
            old = x
        else:
            return
        if isinstance(old.type, A.Array):
            old = self.L.copy_of(old, "old")
        saved[stmt] = old

    def needs_backward(self, stmt):
        params = ir.carried(stmt)
        inner = _defined(stmt.body)
        free = [a for s in ir.walk(stmt.body) for a in ir.operands(s) if a not in inner]
        return any(self.active(p) or self.replaced(p) and self.active_list(p) for p in params) \
            or any(self.active(a) for a in free) or writes_in_place(stmt.body)

    def tape_needs_copy(self, loop, param, written):
        """Must the tape keep a copy of this carried array, not the array itself?  Only if
        the body may write into its memory (``written``): into it, or into the array it is
        a view of.  (Writes after the loop are undone before the backward loop reads the tape.)"""
        carried = ir.carried(loop)
        k = carried.index(param)
        roots = [self.view_root(a) for a in (param, loop.body.results[k], loop.inits[k])]
        return any(r in written or (r in carried and r is not param) for r in roots)

    def view_root(self, a):
        """The array whose memory ``a`` may share (itself if it is not a view)."""
        stmt = self.defs.get(a)
        while stmt is not None and stmt.prim.may_alias and stmt.args:
            a = stmt.args[0]
            stmt = self.defs.get(a)
        return a

    def write_only(self, loop, param):
        """Is the carried array ``param`` only written by the loop (never read), and its
        initial value a fresh array nothing else reads?  Then the loop need not tape it:
        the backward loop's recomputation only writes and restores it (no reads), so the
        final array serves, and nothing before the loop needs its old content back.
        An initial value that is an enclosing loop's write-only array qualifies too (that
        loop's test covered this loop's body): a triangular fill by two nested loops
        tapes nothing."""
        carried = ir.carried(loop)
        if param not in carried:
            return False                   # a for loop's index
        init = loop.inits[carried.index(param)]
        fresh = init in self.defs and self.uses[init] == 1
        if not (isinstance(param.type, A.Array) and (fresh or self.in_write_only(init))):
            return False
        same = versions(loop.body, param)
        for s in ir.walk(loop.body):
            for k, a in enumerate(ir.operands(s)):
                if a not in same:
                    continue
                if isinstance(s, ir.Apply) and s.prim.name in ("setitem", "index_add") and k == 0:
                    continue
                if isinstance(s, (ir.For, ir.While)) and a in s.inits:
                    continue
                return False
        return True

    def in_write_only(self, value):
        """Is ``value`` a version of an enclosing loop's untaped (write-only) array?"""
        return any(value in versions(loop.body, p) for loop, params in self.untaped.items() for p in params)

    def forward_loop(self, stmt, subst, saved):
        if not self.needs_backward(stmt):
            self.L.stmts.append(self.at_virtual_lengths(clone_stmt(stmt, subst), saved))
            return
        is_for = isinstance(stmt, ir.For)
        # the virtual list lengths as this loop starts (appends after it count later)
        saved["virtual", stmt] = dict(saved.get("virtual", {}))
        self.save_replaced_lengths(stmt, subst, saved)
        written = written_memory(ir.Block([], [stmt], [])) if writes_in_place(stmt.body, lists=False) else None
        untaped = {p for p in stmt.body.params if self.write_only(stmt, p)}
        self.untaped[stmt] = untaped
        tapes = []
        for p in stmt.body.params:                  # a list: see list_tape_type
            tape = ir.Var("tape_" + p.hint, self.list_tape_type(stmt, p) if isinstance(p.type, A.ListOf)
                          else A.ListOf(p.type))
            self.L.stmts.append(ir.Apply([tape], lookup("list.new"), [], {}, stmt.loc))
            tapes.append(tape)
        copies = {p for p in ir.carried(stmt) if written is not None and isinstance(p.type, A.Array)
                  and p not in untaped and self.tape_needs_copy(stmt, p, written)}
        budget = None
        if checkpointing.applies(self, stmt, untaped):      # a memory budget: checkpointing.py
            budget = checkpointing.Checkpoints(self.tape_budget // 2, [p for p in ir.carried(stmt) if p not in untaped],
                                               copies)
            made, ck_inits, ck_params = checkpointing.new_lists(budget, stmt.loc)
            self.L.stmts.extend(made)
        body_subst = dict(subst)
        body = clone_block(stmt.body, body_subst)
        # Tapes nobody reads in the backward sweep are dropped by dce: the trip count
        # comes from a counter of its own, not from a tape's length.
        trips = ir.Var("trips", A.I64)
        tape_params = [ir.Var(t.hint, t.type) for t in tapes] + [trips]

        pushed = []

        def pushes():
            values, now = {}, list(tape_params[:-1])
            for original in stmt.body.params:
                p = mapped(original, body_subst)
                if original not in untaped and not isinstance(p.type, A.ListOf):
                    values[original] = self.L.copy_of(p, p.hint) if original in copies else p
            if budget is not None:
                now, states, used = checkpointing.segment_start(self, budget, now, values, trips, ck_params,
                                                                stmt.loc)
            for original, t in zip(stmt.body.params, now):
                p = mapped(original, body_subst)
                if original in untaped:          # written only: its tape stays empty
                    pushed.append(t)
                elif isinstance(p.type, A.ListOf):
                    pushed.append(self.push_list(stmt, original, p, t))
                else:
                    pushed.append(self.L.apply("list.append", [t, values[original]], hint=t.hint))
            pushed.append(self.L.apply("op.add", [trips, ir.Const(1)], hint="trips"))
            if budget is not None:
                pushed.extend(states + [checkpointing.count(self, used, list(values.values()))])
        push_stmts = self.collect(pushes)
        if budget is not None:
            tape_params += ck_params
        body = ir.Block(body.params + tape_params, push_stmts + body.stmts, body.results + pushed)
        outs = [ir.Var(o.hint, o.type) for o in stmt.outs]
        tape_outs = [ir.Var(t.hint, t.type) for t in tapes] + [ir.Var("trips", A.I64)]
        tapes = tapes + [ir.Const(0)]
        if budget is not None:
            tapes += ck_inits
            extra_outs = [ir.Var(v.hint, v.type) for v in ck_params]
        else:
            extra_outs = []
        if is_for:
            index, carried = body.params[0], body.params[1:]
            body.params = [index] + carried
            new = ir.For(outs + tape_outs + extra_outs, [mapped(a, subst) for a in stmt.inits] + tapes,
                         mapped(stmt.start, subst), mapped(stmt.stop, subst), mapped(stmt.step, subst),
                         body, stmt.loc)
        else:
            cond_subst = dict(subst)
            cond_subst.update(zip(stmt.cond.params, body.params))
            cond = ir.Block(body.params, [clone_stmt(s, cond_subst) for s in stmt.cond.stmts], [])
            cond.results = [mapped(r, cond_subst) for r in stmt.cond.results]
            new = ir.While(outs + tape_outs + extra_outs, [mapped(a, subst) for a in stmt.inits] + tapes, cond,
                           body, stmt.loc)
        subst.update(zip(stmt.outs, outs))
        self.L.stmts.append(self.at_virtual_lengths(new, saved))
        saved[stmt] = tape_outs
        if budget is not None:
            checkpointing.finish_forward(budget, new, len(outs), len(tape_outs) - 1)
            saved["budget", stmt] = budget
        if self.policy != "recompute":
            saved["store", stmt] = LoopStore(stmt, new, self.L.stmts, body_subst, self.view_root, self.defs,
                                             budget, short_lived=self.loop_depth > 0)

    # --- backward sweep ------------------------------------------------------------
    def backward(self, stmts, subst, saved):
        self.create_list_adjoints(stmts, subst)
        for stmt in reversed(stmts):
            self.L.loc = stmt.loc
            if isinstance(stmt, ir.Apply):
                self.back_apply(stmt, subst, saved)
            elif isinstance(stmt, ir.If):
                self.back_if(stmt, subst, saved)
            elif isinstance(stmt, ir.Call):
                self.back_call(stmt, subst)
            else:
                self.back_loop(stmt, subst, saved)

    # --- calls (recursive functions): each callee gets a joint function of its own ----
    def callee_vjp(self, callee):
        """``callee_vjp(params..., seeds...) -> (results..., grads...)``, built once; a
        recursive callee's vjp calls itself."""
        if callee not in self.callees:
            wrt = [i for i, p in enumerate(callee.params) if differentiable(p)]
            seeded = [k for k, r in enumerate(callee.body.results) if differentiable(r)]
            shell = ir.Function(callee.name + "_vjp", [], ir.Block([], [], []), callee.loc)
            self.callees[callee] = (shell, wrt, seeded)
            policy = "recompute" if isinstance(getattr(callee, "custom", None), Remat) else self.policy
            built = ReverseMode(Lowerer(), self.callees, policy, self.tape_budget).joint(callee, wrt, seeded)
            shell.params, shell.body = built.params, built.body
        return self.callees[callee]

    def back_call(self, stmt, subst):
        douts = [self.get(o) for o in stmt.outs]
        if all(d is None for d in douts):
            return
        custom = getattr(stmt.callee, "custom", None)
        if isinstance(custom, CustomFunction):     # (a Remat is differentiated like any callee)
            return self.back_custom(stmt, subst, custom, douts)
        vjp_fn, wrt, seeded = self.callee_vjp(stmt.callee)
        if not wrt:
            return
        seeds = [douts[k] if douts[k] is not None else self.zeros(stmt.outs[k], mapped(stmt.outs[k], subst))
                 for k in seeded]
        n = len(stmt.callee.body.results)
        # typed from the callee, since its vjp may still be being built (recursion)
        outs = [ir.Var(getattr(r, "hint", "r"), r.type) for r in stmt.callee.body.results] + [
            ir.Var("d" + stmt.callee.params[i].hint, stmt.callee.params[i].type) for i in wrt]
        self.L.stmts.append(ir.Call(outs, vjp_fn, [mapped(a, subst) for a in stmt.args] + seeds, stmt.loc))
        for i, g in zip(wrt, outs[n:]):
            if self.active(stmt.args[i]):
                self.accumulate(stmt.args[i], g)

    def back_custom(self, stmt, subst, custom, douts):
        """A function with user rules: inline bwd(fwd(args)[1], dout), or transpose its jvp."""
        if len(stmt.outs) != 1:
            raise UnsupportedSyntaxError("a function with custom rules must return one array or float",
                                         stmt.loc)
        as_apply = ir.Apply(stmt.outs, None, stmt.args, {}, stmt.loc)
        out = mapped(stmt.outs[0], subst)
        rule = custom.vjp_rule(len(stmt.args))
        if rule is not None:
            pairs = self.call_rule(rule, as_apply, subst, out, douts[0])
        elif custom.jvp is not None:
            pairs = self.transpose_jvp(self, custom, stmt, subst, douts[0])
        else:
            raise UnsupportedSyntaxError(f"`{custom.__name__}` has neither defvjp nor defjvp rules", stmt.loc)
        self.accumulate_args(stmt, pairs)

    def back_apply(self, stmt, subst, saved):
        prim, out = stmt.prim, stmt.outs[0]
        if prim.mutates:
            return self.back_inplace(stmt, subst, saved)
        if not self.active(out):
            return
        dout = self.get(out)
        if dout is None:
            return
        if prim.reads_list and stmt.args and self.active_list(stmt.args[0]):
            return self.back_list_read(stmt, subst, saved, dout)
        if any(self.active_list(a) for a in stmt.args):
            raise UnsupportedSyntaxError(
                f"reverse mode through `{prim.name}` of a list built at run time is not supported",
                stmt.loc, "index the list, or use np.stack / np.array / sum on it")
        special = prim.structural_vjp
        if special is not None:
            return special(self, stmt, subst, dout)
        if prim.nondiff or not any(self.active(a) for a in stmt.args):
            return
        if prim.vjp is None and prim.name == "extern":
            raise UnsupportedSyntaxError(
                f"`{describe_extern(stmt.params['name'])}` has no derivative rule, and its input depends on "
                "the arguments being differentiated", stmt.loc,
                "wrap it with sstad.custom_vjp to give it a rule (docs/ad.md, 'Custom rules'), or pass "
                "inputs that do not depend on the differentiated arguments")
        if prim.vjp is None:
            raise UnsupportedSyntaxError(
                f"no reverse-mode rule for `{prim.name}`", stmt.loc,
                "register one next to the primitive with sstad.runtime.primitive.defvjp")
        self.accumulate_args(stmt, self.call_rule(prim.vjp, stmt, subst, mapped(out, subst), dout))

    def call_rule(self, rule, stmt, subst, out, dout, args=None):
        """Inline ``rule`` and pair its cotangents with argument positions."""
        args = args if args is not None else [mapped(a, subst) for a in stmt.args]
        layout = stmt.params.get("layout")
        refs = [_Ref(k) for k in range(len(args))]
        if layout is not None:
            pos_refs = fill(layout[0], refs)
            pos = [_static(v) for v in fill(layout[0], args)]
            kw = {k: _static(v) for k, v in fill(layout[1], args).items()}
        else:
            pos_refs, pos, kw = refs, list(args), {}
        kw.update((k, _static(v)) for k, v in stmt.params.items() if k != "layout")
        node, filename = function_node(rule)
        leading, kwargs = bind_rule(rule, node, stmt, pos, kw)
        what = f"the derivative rule of `{stmt.prim.name if stmt.prim is not None else 'a custom function'}`"
        caller, self.L.caller_loc = self.L.caller_loc, stmt.loc     # run-time checks name the user's call
        try:
            with at_users_line(stmt.loc, what):
                cts = self.L.inline(rule, node, filename, leading + [out, dout], kwargs, node, parent=None)
        finally:
            self.L.caller_loc = caller
        pairs = []
        _pair(pos_refs[:len(leading)], cts, pairs)
        return pairs

    def last_writes_only(self, dv, dout, index_atoms, write, read):
        """``y[idx] = v`` with an index array that repeats a place: NumPy keeps the last
        write there, so only that item of ``v`` gets the place's cotangent.  Each item
        writes its number into a scratch array; an item that reads its own number back won."""
        size = self.L.attribute(dv, "size", None)
        # integer numbers: in dout's dtype (float16, bfloat16) they would stop being exact
        ids = self.L.call_numpy("arange", [ir.Const(1), self.L.binop("add", size, ir.Const(1), None)], {}, None)
        ids = self.L.call_numpy("reshape", [ids, self.L.attribute(dv, "shape", None)], {}, None)
        marks = self.L.call_numpy("zeros", [self.L.attribute(dout, "shape", None)], {"dtype": ir.Const(np.int64)}, None)
        marks = self.L.apply("setitem", [marks, ids] + index_atoms, {"index": write}, hint="marks")
        won = self.L.apply("op.eq", [self.L.apply("getitem", [marks] + index_atoms, {"index": read}), ids])
        return self.L.call_numpy("where", [won, dv, ir.Const(0.0)], {}, None)

    def back_inplace(self, stmt, subst, saved):
        name = stmt.prim.name
        out = stmt.outs[0]
        if name == "list.append":
            return self.back_list_append(stmt, subst, saved)
        if name == "list.pop":            # its item's cotangent came back through L[-1]
            return
        x_now = mapped(out, subst)
        old = saved.get(stmt)              # None: the recomputation skipped the write
        dout = self.get(out)
        if name == "setitem":
            index_atoms = [mapped(a, subst) for a in stmt.args[2:]]
            if old is not None:
                self.L.apply("setitem", [x_now, old] + index_atoms, {"index": stmt.params["index"], "keep": True},
                             hint=x_now.hint)
            if isinstance(out.type, A.ListOf):
                return self.back_list_write(stmt, saved)
            if dout is None:
                return
            read = tuple(Slot(i - 1) if isinstance(i, Slot) else shift_slice(i) for i in stmt.params["index"])
            value = stmt.args[1]
            if self.active(value):
                dv = self.L.apply("getitem", [dout] + index_atoms, {"index": read})
                if any(isinstance(a.type, A.Array) and a.type.dtype.kind in "iu" for a in index_atoms):
                    dv = self.last_writes_only(dv, dout, index_atoms, stmt.params["index"], read)
                elif isinstance(dv.type, A.Array):      # a view: dout's region is zeroed below
                    dv = self.L.copy_of(dv, "d" + value.hint)
                self.accumulate(value, self.L.call_numpy("unbroadcast", [dv, mapped(value, subst)], {}, None))
            if self.active(stmt.args[0]):
                rest = self.owned_adjoint(out, x_now)
                rest = self.L.apply("setitem", [rest, ir.Const(0.0)] + index_atoms,
                                    {"index": stmt.params["index"]}, hint=rest.hint)
                self.drop([out])
                self.accumulate(stmt.args[0], rest, owned=True)
            return
        if name == "index_add":
            return self.back_index_add(stmt, subst, x_now, old, dout)
        # x op= v: restore x, then differentiate ``x op v`` from the restored value
        self.L.apply("setitem", [x_now, old], {"index": (Ellipsis,), "keep": True}, hint=x_now.hint)
        if dout is None:
            return
        op = lookup("op." + name.split(".", 1)[1])
        v = mapped(stmt.args[1], subst)
        result = self.L.apply(op.name, [old, v])
        self.accumulate_args(stmt, self.call_rule(op.vjp, stmt, subst, result, dout, args=[old, v]))

    def back_index_add(self, stmt, subst, x_now, old, dout):
        """``x[idx] += v`` with repeats adding up: dx = dout, dv = dout[idx]."""
        if old is not None:
            self.L.apply("setitem", [x_now, old], {"index": (Ellipsis,), "keep": True}, hint=x_now.hint)
        if dout is None:
            return
        out, values = stmt.outs[0], stmt.args[1]
        if self.active(values):
            read = tuple(Slot(i - 1) if isinstance(i, Slot) else shift_slice(i) for i in stmt.params["index"])
            dv = self.L.apply("getitem", [dout] + [mapped(a, subst) for a in stmt.args[2:]], {"index": read})
            if isinstance(dv.type, A.Array):      # not a view of an adjoint that may be updated in place
                dv = self.L.copy_of(dv, "d" + values.hint)
            self.accumulate(values, self.L.call_numpy("unbroadcast", [dv, mapped(values, subst)], {}, None))
        if self.active(stmt.args[0]):
            self.accumulate(stmt.args[0], dout, self.owned(out))

    def range_length(self, start, stop, step):
        """len(range(start, stop, step)) for a constant positive step: no counter needed,
        so a forward loop whose tapes nobody reads disappears."""
        span = self.L.apply("op.sub", [stop, start], hint="span")
        if step.value != 1:
            span = self.L.apply("op.add", [span, ir.Const(step.value - 1)], hint="span")
            span = self.L.apply("op.floordiv", [span, step], hint="span")
        return self.L.apply("builtin.max", [span, ir.Const(0)], hint="n")

    def back_if(self, stmt, subst, saved):
        douts = [self.get(o) for o in stmt.outs]
        if all(d is None for d in douts) and not (writes_in_place(stmt.then) or writes_in_place(stmt.orelse)):
            return
        inner = _defined(stmt.then) | _defined(stmt.orelse)
        free = {a for a in ir.reads(stmt) if isinstance(a, ir.Var) and a not in inner}
        self.materialize(sorted(free, key=lambda v: v.id), subst)

        def side(block):
            def run():
                for r, d in zip(block.results, douts):
                    if d is not None and self.active(r):
                        self.accumulate(r, d)
                self.backward(block.stmts, subst, saved)
                self.drop(inner)
            return run
        self.L.branch(mapped(stmt.cond, subst), side(stmt.then), side(stmt.orelse))
        self.drop(stmt.outs)

    def skipped_writes(self, loop, untaped):
        """The versions of ``loop``'s untaped arrays: the backward loop's recomputation of
        the body skips its writes into them (and so their restores).  Nothing reads such an
        array in the loop, and nothing needs its content after the backward loop
        (write_only), so writing each element and putting it back again is wasted work."""
        return {v for p in untaped for v in versions(loop.body, p)}

    def rows_visited_once(self, loop):
        """Arrays whose adjoint the backward loop may start uninitialised: ``x`` in
        ``for i in range(len(x))`` (or ``x.shape[0]``) that reads ``x`` only as ``x[i]``
        or ``x[i, ...]``, writes nothing in place, and finds no adjoint of ``x`` yet.
        Iteration ``i`` is then the only one to touch row ``i`` of the adjoint and sets it
        to zero before adding to it: no pass that zeroes the whole array first."""
        if not (isinstance(loop, ir.For) and ir.is_scalar_const(loop.start, 0) and ir.is_scalar_const(loop.step, 1)):
            return []
        dim = self.defs.get(loop.stop)
        first_axis = dim is not None and (dim.prim.name == "builtin.len" or dim.prim.name == "dim"
                                          and dim.params.get("axis") == 0)
        if not first_axis or writes_in_place(loop.body):
            return []
        x, index = dim.args[0], loop.body.params[0]
        if not (self.active(x) and isinstance(x.type, A.Array) and self.get(x) is None):
            return []

        def row_read(s):
            first = s.params["index"][0] if s.params.get("index") else None
            return s.prim.name == "getitem" and isinstance(first, Slot) and s.args[first] is index
        for s in ir.walk(loop.body):
            for k, a in enumerate(ir.operands(s)):
                if a is x and not (k == 0 and isinstance(s, ir.Apply) and row_read(s)):
                    return []
        return [x]

    def back_loop(self, stmt, subst, saved):
        tapes = saved.get(stmt)
        if tapes is None:
            return                                 # nothing differentiable flows through it
        is_for = isinstance(stmt, ir.For)
        params = ir.carried(stmt)
        offset = 1 if is_for else 0
        ckeys = {}
        needed = needed_carried(stmt, params, [self.get(o) is not None or (isinstance(o.type, A.ListOf)
                                                                          and self.list_adjoint_used(o, stmt))
                                               for o in stmt.outs])
        writes = writes_in_place(stmt.body, lists=False)
        for m, (out, p) in enumerate(zip(stmt.outs, params)):
            if self.active(p) and m in needed:
                ckeys[m] = f"%d{p.hint}#c{p.id}"     # the same each time this loop is rebuilt
                d = self.get(out)
                if d is None:
                    d, owned = self.zeros(out, mapped(out, subst)), True
                else:
                    owned = self.owned(out)
                    if writes and not owned and isinstance(out.type, A.Array):
                        # one private copy here, so the body updates it in place every
                        # iteration instead of copying it every iteration
                        d = self.L.copy_of(d, "d" + out.hint)
                        owned = True
                self.set_slot(ckeys[m], d, owned)
        inner = _defined(stmt.body) | (_defined(stmt.cond) if not is_for else set())
        free = {a for s in ir.walk(stmt.body) for a in ir.reads(s) if isinstance(a, ir.Var) and a not in inner}
        free |= {r for r in stmt.body.results if isinstance(r, ir.Var) and r not in inner}
        rows = self.rows_visited_once(stmt)
        for x in rows:                     # uninitialised: each iteration zeroes the row it reads
            self.put(x, self.L.apply("empty_like", [mapped(x, subst)], {"layout": ((Slot(0),), {})},
                                     hint="d" + x.hint), owned=True)
        self.materialize(sorted(free, key=lambda v: v.id), subst)
        *tapes, n = tapes
        budget = saved.get(("budget", stmt))
        step = stmt.step if is_for else None
        if is_for and isinstance(step, ir.Const) and step.value > 0 and budget is None:
            n = self.range_length(mapped(stmt.start, subst), mapped(stmt.stop, subst), step)

        lists = {p: out for p, out in zip(params, stmt.outs) if isinstance(p.type, A.ListOf)}
        untaped = self.untaped.get(stmt, set())
        segment = {}                       # the iterations the backward loop walks: all, or one segment

        def body(k):
            tapes, last, first = segment["tapes"], segment["last"], segment["first"]
            j = self.L.apply("op.sub", [last, k], hint="j")
            sub = dict(subst)
            # lists an enclosing backward iteration sees at a virtual length keep the one
            # they had where this loop started
            local = {"virtual": dict(saved.get(("virtual", stmt), {})), "unwritten": self.skipped_writes(stmt, untaped)}
            for p, tape in zip(stmt.body.params, tapes):
                if p is stmt.body.params[0] and is_for and isinstance(step, ir.Const):
                    trip = j if first is None else self.L.apply("op.add", [first, j], hint="trip")
                    stride = self.L.apply("op.mul", [trip, step])          # i = start + trip * step
                    sub[p] = self.L.apply("op.add", [mapped(stmt.start, subst), stride], hint=p.hint)
                elif p in untaped:                # written only: the final array serves
                    sub[p] = mapped(stmt.outs[params.index(p)], subst)
                elif p in lists:
                    sub[p] = self.list_at_iteration(stmt, p, mapped(lists[p], subst), tape, j, n, local)
                else:
                    sub[p] = self.L.apply("getitem", [tape, j], {"index": (Slot(1),)}, hint=p.hint)
            start = len(self.L.stmts)
            self.loop_depth += 1
            self.forward(stmt.body.stmts, sub, local)
            self.L.stmts[start:] = without_once(ir.Block([], self.L.stmts[start:], [])).stmts
            last_fwd = self.L.stmts[-1] if len(self.L.stmts) > start else None
            for x in rows:                 # next to the first contribution: LLVM merges the two
                d = self.get(x)
                self.put(x, self.L.apply("setitem", [d, ir.Const(0.0), sub[stmt.body.params[0]]],
                                         {"index": (Slot(2),)}, hint=d.hint), owned=True)
            for m, key in ckeys.items():
                r = stmt.body.results[m]
                if self.active(r):
                    self.accumulate(r, self.adjoints.env[key], self.slot_owned(key))
            self.seed_replaced_lists(stmt, sub, j)
            self.backward(stmt.body.stmts, sub, local)
            self.loop_depth -= 1
            for m, key in ckeys.items():
                p = params[m]
                d = self.get(p)
                self.set_slot(key, d if d is not None else self.zeros(p, sub[p]),
                              self.owned(p) if d is not None else True)
            if store is not None:          # the last round of the loop's fixpoint counts
                stored[:] = read_from_tapes(self, store, sub, start, last_fwd, j, local)
            refuse_calls_made_again(*recomputation(self, start, last_fwd), self.adjoints.env)
            self.drop(inner)

        def walk(tapes, count, first):
            segment.update(tapes=tapes, first=first, last=self.L.apply("op.sub", [count, ir.Const(1)], hint="last"))
            self.L.loop(body, bounds=(ir.Const(0), count, ir.Const(1)), index_hint="k")
        store, stored = saved.get(("store", stmt)), []
        self.start_replaced_lists(stmt)
        if budget is None:
            walk(tapes, n, None)
        else:
            checkpointing.backward(self, budget, walk)
        if stored and stored[0]:
            store.patch(*stored)
        if budget is not None:
            checkpointing.complete(self, budget, stmt, mapped(stmt.start, subst) if is_for else None,
                                   mapped(stmt.step, subst) if is_for else None)
        self.finish_replaced_lists(stmt, saved, n)
        for m, key in ckeys.items():
            init = stmt.inits[m]
            if self.active(init):
                self.accumulate(init, self.adjoints.env[key], self.slot_owned(key))
            self.adjoints.env.pop(key)
            self.adjoints.env.pop("own:" + key, None)
        if writes_in_place(stmt.body, lists=False):          # put back what the loop overwrote
            overwritten = [(tape, init) for p, tape, init in zip(params, tapes[offset:], stmt.inits)
                           if isinstance(p.type, A.Array) and isinstance(init, ir.Var) and p not in untaped]
            if budget is not None:         # the first segment's tapes are gone: its checkpoint
                overwritten = [(budget.states[p], init) for p, init in zip(params, stmt.inits)
                               if isinstance(p.type, A.Array) and isinstance(init, ir.Var) and p not in untaped]

            def restore():
                for tape, init in overwritten:
                    first = self.L.apply("getitem", [tape, ir.Const(0)], {"index": (0,)})
                    self.L.apply("setitem", [mapped(init, subst), first], {"index": (Ellipsis,), "keep": True},
                                 hint=init.hint)
            if overwritten:
                self.L.branch(self.L.apply("op.gt", [n, ir.Const(0)], hint="ran"), restore, lambda: None)
        self.drop(stmt.outs)


def bind_rule(rule, node, stmt, pos, kw):
    """Match a primitive's canonical call to its rule ``rule(lead..., out, dout, name=...)``.

    The rule's parameters before ``out`` take the call's leading positions; every other
    parameter of the call goes by its NumPy name.  A parameter the rule does not list is
    refused unless it has NumPy's default value: a rule never silently drops one."""
    names = [a.id for a in node.args.args]
    k = names.index("out")
    listed = set(names[k + 2:]) | {a.id for a in node.args.kwonlyargs}
    prim = stmt.prim
    signature = getattr(prim, "signature", None)
    calls = parameters(signature, pos, kw)
    leading = list(pos[:k])
    if len(leading) < k and signature is not None:      # left-out leading parameters: defaults
        for p in list(signature.parameters.values())[len(leading):k]:
            if p.default is inspect.Parameter.empty:
                break
            leading.append(_static(p.default))
    kwargs = {}
    for position, (name, value) in enumerate(calls):
        if position < len(pos) and position < k:
            continue
        if name.startswith("#") and position - k < len(names) - k - 2:
            name = names[position + 2]                   # no signature: the rule's order
        if name in listed:
            kwargs[name] = value
        elif not is_default(_literal(value), default_of(signature, name)):
            shown = shown_name(prim.name) if prim is not None else getattr(rule, "__qualname__", "rule")
            given = _describe_value(value)
            raise UnsupportedSyntaxError(
                f"the derivative of `{shown}` does not handle `{name}={given}`" if not name.startswith("#")
                else f"the derivative of `{shown}` does not take {len(pos)} arguments", stmt.loc,
                "leave the parameter at its default, or write the computation another way "
                "(docs/ad.md lists what each rule handles)")
    return leading, kwargs


def _literal(value):
    """A rule argument back as the Python value it was written as (for default tests)."""
    if isinstance(value, ir.Const):
        return value.value
    if isinstance(value, tuple):
        return tuple(_literal(v) for v in value)
    return value


def _describe_value(value):
    value = _literal(value)
    if isinstance(value, type):                  # dtype=np.float64, dtype=float
        return value.__name__ if value.__module__ == "builtins" else f"np.{value.__name__}"
    if isinstance(value, np.dtype):              # (the frontend reads dtype=np.float32 as a dtype)
        return f"np.{value.name}" if getattr(np, value.name, None) is value.type else f"np.dtype({value.name!r})"
    return repr(value) if isinstance(value, (bool, int, float, str, tuple, type(None))) else "<a run-time value>"


def _static(value):
    """Layout literals reach rules as constants, structures stay structures."""
    if isinstance(value, tuple):
        return tuple(_static(v) for v in value)
    if isinstance(value, (bool, int, float)):
        return ir.Const(value)
    return value


def _pair(refs, cts, out):
    """Walk the argument structure and the cotangent structure together."""
    if isinstance(refs, _Ref):
        out.append((refs.k, cts))
        return
    if isinstance(refs, (tuple, list)):
        if cts is None:
            return
        for r, c in zip(refs, cts):
            _pair(r, c, out)
