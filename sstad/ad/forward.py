"""Forward mode: one function computing the primal values and their tangents together.

* Straight-line code: a tangent follows each active value (see :mod:`sstad.ad.activity`).
  Primitives that are linear in each argument separately (indexing, reshapes,
  reductions, products) apply themselves to the tangent.  Every other primitive's JVP is
  derived from its reverse-mode rule by transposition: the rule is linear in its
  cotangent, so reverse mode through the rule, with respect to that cotangent, gives
  ``J v``.  One rule per primitive serves both modes, and the result is IR again.
* ``if``: each branch computes its outputs' tangents, which become extra outputs.
* loops: tangents of carried values are carried too; no tape is needed.
* in-place writes update the tangent in place as well, after copying it once if
  another value may share its memory (tangents are *owned* only when this sweep
  allocated them).
* calls of recursive functions: each callee gets a JVP function of its own.
"""
from __future__ import annotations

from sstad.ad.activity import active_values
from sstad.ad.lists import float_list, forward_list_write, list_roots
from sstad.ad.structural import differentiable
from sstad.ad.sweep import Sweep
from sstad.ad.transpose import transposed_rule
from sstad.custom import CustomFunction
from sstad.errors import SstadError, UnsupportedSyntaxError
from sstad.frontend.lower import Lowerer
from sstad.ir import nodes as ir
from sstad.ir.alias import writes_in_place
from sstad.ir.clone import atom as mapped, clone_stmt, inline
from sstad.runtime import abstract as A
from sstad.frontend.source import function_node
from sstad.runtime.custom import jvp_rule
from sstad.runtime.extern import describe as describe_extern
from sstad.runtime.primitive import lookup



class ForwardMode(Sweep):
    def __init__(self, callees=None):
        super().__init__(Lowerer(), "<tangents>")
        self.callees = callees if callees is not None else {}   # callee -> its jvp function
        self.tan = {}        # primal Var -> its tangent atom in the new code
        self.owned = set()   # primal Vars whose tangent array no other tangent shares

    def active(self, a):
        return isinstance(a, ir.Var) and a in self.act and (differentiable(a) or float_list(a))

    # --- the function ------------------------------------------------------------------
    def jvp(self, fn, wrt):
        """``fn`` -> a function of (params..., tangents of params[wrt]...) returning
        (results..., tangents of the float results...)."""
        self.act = active_values(fn, wrt)
        roots = list_roots(fn.body, {})        # all versions of a list share one tangent list
        active_roots = {roots.get(v, v) for v in self.act if float_list(v)}
        self.act |= {v for v, root in roots.items() if root in active_roots} | active_roots
        self.new_lists = {s.outs[0] for s in ir.walk(fn.body) if isinstance(s, ir.Apply) and s.prim.name == "list.new"}
        subst = {p: ir.Var(p.hint, p.type) for p in fn.params}
        params = [subst[p] for p in fn.params]
        tangents = []
        for i in wrt:
            t = ir.Var("d" + fn.params[i].hint, fn.params[i].type)
            self.tan[fn.params[i]] = t
            tangents.append(t)
        self.L.stmts = []
        self.block(fn.body.stmts, subst)
        results = [mapped(r, subst) for r in fn.body.results]
        douts = [self.tangent_or_zeros(r, subst) for r in fn.body.results if _is_float(r)]
        body = ir.Block(params + tangents, self.L.stmts, results + douts)
        return ir.Function(fn.name + "_jvp", params + tangents, body, fn.loc)

    def block(self, stmts, subst):
        for stmt in stmts:
            self.L.loc = stmt.loc
            if isinstance(stmt, ir.Apply):
                self.apply(stmt, subst)
            elif isinstance(stmt, ir.If):
                self.branch(stmt, subst)
            elif isinstance(stmt, ir.Call):
                self.call(stmt, subst)
            else:
                self.loop(stmt, subst)

    # --- tangents ----------------------------------------------------------------------
    def tangent(self, a):
        return self.tan.get(a) if self.active(a) else None

    def set(self, var, t, owned=False):
        t = self.L.atom(t, None)
        if isinstance(t, ir.Var) and t.hint.startswith(("ddout", "%", "d_t")):
            t.hint = "d" + var.hint.strip("%")       # name it after its primal
        if not isinstance(var.type, A.ListOf):
            t = self.fit(t, var)
        self.tan[var] = t
        if owned:
            self.owned.add(var)
        else:
            self.owned.discard(var)

    def fit(self, t, var):
        """``t`` with ``var``'s type: same dtype and rank (broadcast up if needed)."""
        target = var.type
        if isinstance(target, A.Array) and not (isinstance(t.type, A.Array) and t.type.ndim == target.ndim):
            raise SstadError(f"internal: a {t.type} tangent for a {target}", self.L.loc)
        if isinstance(t.type, A.Array) and not isinstance(target, A.Array):
            raise SstadError(f"internal: a {t.type} tangent for a {target}", self.L.loc)
        want = A.Array(target.dtype, target.ndim) if isinstance(target, A.Array) else target
        return self.L.cast(t, want, self.L.stmts)

    def tangent_or_zeros(self, a, subst):
        t = self.tangent(a)
        if t is not None:
            return t
        if isinstance(a, ir.Const):
            return ir.Const(a.value * 0, a.type)
        if isinstance(a, ir.Undef):
            return ir.Undef(_tangent_list(a.type) if isinstance(a.type, A.ListOf) else a.type)
        return self.zeros(a, mapped(a, subst))

    def own(self, var, subst):
        """``var``'s tangent as an array this sweep may write into."""
        t = self.tangent(var)
        if t is None:
            return self.zeros(var, mapped(var, subst))
        if var in self.owned:
            return t
        return self.L.copy_of(t, "d" + var.hint)

    def share(self, args):
        """A new tangent may alias these arguments' tangents: they are no longer owned."""
        for a in args:
            self.owned.discard(a)

    # --- applications ----------------------------------------------------------------
    def apply(self, stmt, subst):
        prim, out = stmt.prim, stmt.outs[0]
        args = [mapped(a, subst) for a in stmt.args]
        skip = prim.shape_only
        tans = [None if k in skip else self.tangent(a) for k, a in enumerate(stmt.args)]
        if prim.mutates:
            return self.apply_inplace(stmt, subst, args, tans)
        new = clone_stmt(stmt, subst)
        self.L.stmts.append(new)
        if prim.name == "list.new" and self.active(out):
            self.tan[out] = ir.Var("d" + out.hint, _tangent_list(out.type))
            self.L.stmts.append(ir.Apply([self.tan[out]], prim, [], {}, stmt.loc))
            return
        if not self.active(out) or all(t is None for t in tans):
            return
        if prim.multilinear or any(t is not None and isinstance(a.type, A.ListOf)
                                           for a, t in zip(args, tans)):
            t = self.multilinear(stmt, args, tans)
        elif prim.vjp is not None:
            t = self.transposed(stmt, args, new.outs[0], tans)
        elif prim.name == "extern":
            raise UnsupportedSyntaxError(
                f"`{describe_extern(stmt.params['name'])}` has no derivative rule, and its input depends on "
                "the arguments being differentiated", stmt.loc,
                "wrap it with sstad.custom_jvp or sstad.custom_vjp to give it a rule (docs/ad.md, 'Custom rules')")
        else:
            raise UnsupportedSyntaxError(f"no derivative rule for `{prim.name}`", stmt.loc,
                                         "register one next to the primitive with defvjp (docs/ad.md)")
        if isinstance(out.type, A.Array):
            self.share(a for a, t0 in zip(stmt.args, tans) if t0 is not None)
        self.set(out, t, owned=prim.name == "copy")

    def multilinear(self, stmt, args, tans):
        total = None
        for k, t in enumerate(tans):
            if t is None:
                continue
            replaced = list(args)
            replaced[k] = t
            part = self.L.apply(stmt.prim.name, replaced, dict(stmt.params), hint="d" + stmt.outs[0].hint)
            total = part if total is None else self.L.apply("op.add", [total, part], hint=part.hint)
        return total

    def transposed(self, stmt, args, out, tans, rule=None):
        """``J v`` from the reverse rule ``dout -> J^T dout``, by reverse mode through it
        (the primitive's rule unless ``rule`` is given)."""
        active = [k for k, t in enumerate(tans) if t is not None]
        joint = transposed_rule(stmt, active, rule or stmt.prim.vjp)
        actual = [a for a, orig in zip(args, stmt.args) if isinstance(orig, ir.Var)] + [out, out]
        actual += [tans[k] for k in joint.active]
        return inline(joint, actual, self.L.stmts)[-1]

    def apply_inplace(self, stmt, subst, args, tans):
        name, out, x = stmt.prim.name, stmt.outs[0], stmt.args[0]
        if name == "list.append":
            self.L.stmts.append(clone_stmt(stmt, subst))
            if self.active(out):
                dl = self.tan.get(x)
                if dl is None:
                    raise SstadError("internal: an active list without a tangent list", stmt.loc)
                value = tans[1] if tans[1] is not None else self.zeros(stmt.args[1], args[1])
                value = self.L.cast(self.L.atom(value, None), dl.type.elem, self.L.stmts)
                self.tan[out] = self.L.apply("list.append", [dl, value], hint=dl.hint)
            return
        if name == "setitem" and isinstance(x.type, A.ListOf):
            return forward_list_write(self, stmt, subst, args, tans)
        if name == "list.pop":            # the tangent list pops too
            self.L.stmts.append(clone_stmt(stmt, subst))
            if self.tan.get(x) is not None:
                self.tan[out] = self.L.apply("list.pop", [self.tan[x]], hint=self.tan[x].hint)
            return
        if not self.active(out):
            self.L.stmts.append(clone_stmt(stmt, subst))
            return
        if name in ("setitem", "index_add") or name in ("iop.add", "iop.sub"):
            dx = self.own(x, subst)
            value = tans[1]
            if value is None and name == "setitem":
                value = ir.Const(0.0)
            if value is not None:
                dx = self.L.apply(name, [dx, value] + args[2:], dict(stmt.params), hint=dx.hint)
            self.L.stmts.append(clone_stmt(stmt, subst))
            self.set(out, dx, owned=True)
            return
        # x op= v: the tangent of ``x op v`` from the values before the write
        op = lookup("op." + name.split(".", 1)[1])
        result = self.L.apply(op.name, args[:2])
        probe = ir.Apply([ir.Var("t", result.type)], op, [stmt.args[0], stmt.args[1]], {}, stmt.loc)
        t = self.transposed(probe, args[:2], result, tans[:2])
        if isinstance(out.type, A.Array):
            t = self.L.copy_of(self.fit(self.L.atom(t, None), out), "d" + out.hint)
        self.L.stmts.append(clone_stmt(stmt, subst))
        self.set(out, t, owned=True)

    # --- calls ----------------------------------------------------------------------
    def callee_jvp(self, callee):
        if callee not in self.callees:
            wrt = [i for i, p in enumerate(callee.params) if differentiable(p)]
            shell = ir.Function(callee.name + "_jvp", [], ir.Block([], [], []), callee.loc)
            self.callees[callee] = shell
            built = ForwardMode(self.callees).jvp(callee, wrt)
            shell.params, shell.body = built.params, built.body
        return self.callees[callee]

    def call(self, stmt, subst):
        if not any(self.active(o) for o in stmt.outs):
            self.L.stmts.append(clone_stmt(stmt, subst))
            return
        custom = getattr(stmt.callee, "custom", None)
        if isinstance(custom, CustomFunction):     # (a Remat is differentiated like any callee)
            return self.call_custom(stmt, subst, custom)
        fn = self.callee_jvp(stmt.callee)
        args = [mapped(a, subst) for a in stmt.args]
        tangents = [self.tangent_or_zeros(a, subst) for a, p in zip(stmt.args, stmt.callee.params)
                    if differentiable(p)]
        outs = [ir.Var(o.hint, o.type) for o in stmt.outs]
        floats = [o for o in stmt.outs if _is_float(o)]
        douts = [ir.Var("d" + o.hint, o.type) for o in floats]
        self.L.stmts.append(ir.Call(outs + douts, fn, args + tangents, stmt.loc))
        subst.update(zip(stmt.outs, outs))
        for o, d in zip(floats, douts):
            if self.active(o):
                self.set(o, d)

    def call_custom(self, stmt, subst, custom):
        """A function with user rules: inline its jvp, or transpose its bwd."""
        new = clone_stmt(stmt, subst)
        self.L.stmts.append(new)
        args = [mapped(a, subst) for a in stmt.args]
        tans = [self.tangent_or_zeros(a, subst) for a in stmt.args]
        out = stmt.outs[0]
        if custom.jvp is not None:
            rule = jvp_rule(custom.jvp, len(args))
            node, filename = function_node(rule)
            t = self.L.inline(rule, node, filename, args + tans, {}, node, parent=None)
        elif custom.vjp_rule(len(args)) is not None:
            probe = ir.Apply(stmt.outs, None, stmt.args, {}, stmt.loc)
            t = self.transposed(probe, args, new.outs[0], [self.tangent(a) for a in stmt.args],
                                rule=custom.vjp_rule(len(args)))
        else:
            raise UnsupportedSyntaxError(f"`{custom.__name__}` has neither defvjp nor defjvp rules", stmt.loc)
        self.set(out, t)

    # --- control flow -------------------------------------------------------------------
    def branch(self, stmt, subst):
        before_tan, before_owned = dict(self.tan), set(self.owned)
        active_outs = [k for k, o in enumerate(stmt.outs) if self.active(o)]

        def side(block):
            self.tan, self.owned = dict(before_tan), set(before_owned)
            stmts = self.collect(lambda: self.block(block.stmts, subst))
            douts = []

            def finish():
                for k in active_outs:
                    douts.append(self.tangent_or_zeros(block.results[k], subst))
            stmts += self.collect(finish)
            return ir.Block([], stmts, [mapped(r, subst) for r in block.results] + douts), self.owned
        then, owned_then = side(stmt.then)
        orelse, owned_else = side(stmt.orelse)
        new = ir.If([], mapped(stmt.cond, subst), then, orelse, stmt.loc)
        new.outs = [ir.Var(o.hint, o.type) for o in stmt.outs]
        subst.update(zip(stmt.outs, new.outs))
        self.tan, self.owned = before_tan, before_owned & owned_then & owned_else
        n = len(stmt.outs)
        for j, k in enumerate(active_outs):
            d = ir.Var("d" + stmt.outs[k].hint, then.results[n + j].type if isinstance(stmt.outs[k].type, A.ListOf)
                       else stmt.outs[k].type)
            new.outs.append(d)
            self.tan[stmt.outs[k]] = d
        self.L.stmts.append(new)

    def loop(self, stmt, subst):
        is_for = isinstance(stmt, ir.For)
        params = ir.carried(stmt)
        active = [m for m, p in enumerate(params) if self.active(p)]
        if not active and not any(self.active(o) for o in stmt.outs):
            self.L.stmts.append(clone_stmt(stmt, subst))
            return
        mutates = writes_in_place(stmt.body)
        inits = [mapped(a, subst) for a in stmt.inits]
        tan_inits = []
        for m in active:
            init, p = stmt.inits[m], params[m]
            if isinstance(p.type, A.ListOf):
                t = ir.Undef(_tangent_list(p.type)) if isinstance(init, ir.Undef) else self.tan.get(init)
                if t is None and init in self.new_lists:     # empty (`vals = []`), replaced in the body
                    t = ir.Var("d" + init.hint, _tangent_list(p.type))
                    self.L.stmts.append(ir.Apply([t], lookup("list.new"), [], {}, stmt.loc))
                if t is None:
                    raise UnsupportedSyntaxError("forward mode through a list that a loop starts filling "
                                                 "with constants", stmt.loc, "start from an empty list")
            elif mutates and isinstance(p.type, A.Array) and isinstance(init, ir.Var):
                t = self.own(init, subst)       # the body writes into it: one private copy
            else:
                t = self.tangent_or_zeros(init, subst)
            tan_inits.append(t)
        new_params = [ir.Var(p.hint, p.type) for p in stmt.body.params]
        tan_params = [ir.Var("d" + params[m].hint, t.type if isinstance(params[m].type, A.ListOf) else params[m].type)
                      for m, t in zip(active, tan_inits)]
        body_subst = dict(subst)
        body_subst.update(zip(stmt.body.params, new_params))
        outer_tan, outer_owned = dict(self.tan), set(self.owned)
        for m, t in zip(active, tan_params):
            self.tan[params[m]] = t
            if mutates:
                self.owned.add(params[m])

        def body():
            self.block(stmt.body.stmts, body_subst)
            results = []
            for m in active:
                r = stmt.body.results[m]
                t = self.tangent_or_zeros(r, body_subst)
                if mutates and isinstance(r.type, A.Array) and isinstance(r, ir.Var) and r not in self.owned:
                    t = self.L.copy_of(t, t.hint)   # next iteration writes into it
                results.append(t)
            return results
        tan_results = []
        body_stmts = self.collect(lambda: tan_results.extend(body()))
        new_body = ir.Block(new_params + tan_params, body_stmts,
                            [mapped(r, body_subst) for r in stmt.body.results] + tan_results)
        outs = [ir.Var(o.hint, o.type) for o in stmt.outs]
        tan_outs = [ir.Var("d" + stmt.outs[m].hint, t.type) for m, t in zip(active, tan_params)]
        if is_for:
            new = ir.For(outs + tan_outs, inits + tan_inits, mapped(stmt.start, subst), mapped(stmt.stop, subst),
                         mapped(stmt.step, subst), new_body, stmt.loc)
        else:
            cond_subst = dict(subst)
            carried = new_params + tan_params
            cond_subst.update(zip(stmt.cond.params, new_params))
            cond = ir.Block(carried, [clone_stmt(s, cond_subst) for s in stmt.cond.stmts],
                            [mapped(r, cond_subst) for r in stmt.cond.results])
            new = ir.While(outs + tan_outs, inits + tan_inits, cond, new_body, stmt.loc)
        subst.update(zip(stmt.outs, outs))
        self.tan, self.owned = outer_tan, outer_owned
        for m, d in zip(active, tan_outs):
            self.tan[stmt.outs[m]] = d
            if mutates:
                self.owned.add(stmt.outs[m])
        self.L.stmts.append(new)


def _tangent_list(list_type):
    """Tangent lists are strong-typed, so any tangent appended keeps their type."""
    elem = list_type.elem
    return A.ListOf(A.Scalar(elem.dtype) if isinstance(elem, A.Scalar) else elem)


def _is_float(a):
    t = getattr(a, "type", None)
    return isinstance(t, (A.Scalar, A.Array)) and A.is_inexact(t.dtype)
