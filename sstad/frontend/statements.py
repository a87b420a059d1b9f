"""Lowering of statements: assignment, control flow, return/break/continue as flags.

``break``, ``continue`` and ``return`` set flags in the state (``%brk``, ``%cont``,
``%ret``); the statements after one that may have exited run under ``if not flag``,
and loop conditions test the flags.  What remains is structured control flow only.
"""
from __future__ import annotations

import ast
import builtins
import linecache
import os

import gast
import numpy as np

from sstad.errors import AliasingError, SstadTypeError, UnsupportedSyntaxError, inside_sstad
from sstad.frontend.expressions import spliced
from sstad.frontend.views import everything
from sstad.frontend.builder import FALSE, MISSING, TRUE
from sstad.frontend.pytree import StaticList, is_atom
from sstad.frontend.values import Closure, Counted, Enumerate, RangeValue, Zip
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A
from sstad.runtime.helpers import RAISABLE

UNSUPPORTED_STATEMENTS = {
    gast.Try: ("`try` is not supported", "handle errors outside the compiled function"),
    gast.With: ("`with` is not supported (other than `with np.errstate(...)`)",
                "move the `with` block outside the compiled function"),
    gast.AsyncWith: ("`async with` is not supported", "compile synchronous code only"),
    gast.AsyncFor: ("`async for` is not supported", "compile synchronous code only"),
    gast.AsyncFunctionDef: ("`async def` is not supported", "compile synchronous code only"),
    gast.ClassDef: ("a `class` inside a compiled function is not supported",
                    "define the class at module level and pass arrays instead"),
    gast.Delete: ("`del` is not supported", "rebind the name instead, or let it go out of use"),
    gast.Import: ("`import` inside a compiled function is not supported",
                  "import at module level; sstad resolves module names through globals"),
    gast.ImportFrom: ("`import` inside a compiled function is not supported",
                      "import at module level; sstad resolves module names through globals"),
}


class StatementLowering:
    # --- sequences with exits ----------------------------------------------------
    def flag(self, name):
        value = self.scope.env.get(name, FALSE)
        return value if value is not None else FALSE

    def exited(self, with_continue=True):
        """The atom 'an exit (return, break, continue) happened on this path'."""
        flags = [self.flag("%ret"), self.flag("%brk")] + ([self.flag("%cont")] if with_continue else [])
        out = FALSE
        for f in flags:
            out = self.logical_or(out, f)
        return out

    def run_sequence(self, thunks):
        """Run thunks in order; after one that may exit, guard the rest by the flags."""
        for i, thunk in enumerate(thunks):
            thunk()
            done = self.exited()
            if isinstance(done, ir.Const):
                if done.value:
                    return
                continue
            rest = thunks[i + 1:]
            if rest:
                self.branch(self.logical_not(done), lambda: self.run_sequence(rest),
                            lambda: self.mark_exited(done))
            return

    def mark_exited(self, done):
        """On the path that skipped the rest, the one flag that was unknown is now set."""
        for name in ("%ret", "%brk", "%cont"):
            if self.flag(name) is done:
                self.scope.env[name] = TRUE

    def lower_body(self, stmts):
        self.run_sequence([lambda s=s: self.lower_stmt(s) for s in stmts])

    # --- statements ----------------------------------------------------------------
    def lower_stmt(self, node):
        if not hasattr(self.scope, "entry"):      # a body's first statement: where it was entered
            self.scope.entry = (self.stmts, self.loc)
        self.at(node)
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            message, hint = UNSUPPORTED_STATEMENTS.get(
                type(node), (f"`{type(node).__name__}` statements are not supported", None))
            raise self.error(UnsupportedSyntaxError, message, node, hint)
        method(node)

    def stmt_Pass(self, node):
        pass

    def stmt_With(self, node):
        """``with np.errstate(...):`` only chooses which floating-point warnings NumPy
        gives: the body is compiled as it stands.  Other context managers are refused."""
        for item in node.items:
            ctx = item.context_expr
            if not (isinstance(ctx, gast.Call) and item.optional_vars is None
                    and self.expr(ctx.func) is np.errstate):
                message, hint = UNSUPPORTED_STATEMENTS[gast.With]
                raise self.error(UnsupportedSyntaxError, message, node, hint)
        self.lower_body(node.body)

    def stmt_Assert(self, node):
        """``assert test, message``: checked at run time, raising AssertionError as Python
        does (with the message if it is a string constant, else the file, line and test)."""
        cond = self.truth(self.expr(node.test), node.test)
        if isinstance(cond, ir.Const) and cond.value:
            return
        message = node.msg.value if isinstance(node.msg, gast.Constant) and isinstance(node.msg.value, str) else None
        loc = self.loc_of(node)
        if message is None:
            line = linecache.getline(loc.file, loc.line).strip()
            message = f"{os.path.basename(loc.file)}:{loc.line}: {line}"
        params = {"message": message}
        user = self.pinned_loc or self.caller_loc
        if inside_sstad(loc.file) and user is not None and not inside_sstad(user.file):
            # sstad's own check (in a rule or a composite) of what only the run time knows,
            # a shape: the compiled code raises RunTimeRefusal at the user's call
            params["at"] = (user.file, user.line, user.col)
        self.apply("builtin.assert", [cond], params, hint="checked")

    def stmt_Expr(self, node):
        if isinstance(node.value, gast.Constant) and isinstance(node.value.value, str):
            return                                    # a docstring
        self.expr(node.value)

    def stmt_Assign(self, node):
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.expr(node.value))

    def stmt_AugAssign(self, node):
        op = self.binop_name(node.op, node)
        target = node.target
        if isinstance(target, gast.Name):
            current = self.lookup(target.id, target)
            rhs = self.expr(node.value)
            if self.updates_in_place(current, op):
                return self.update_in_place(op, current, rhs, node, target.id)
            self.assign(target, self.binop(op, current, rhs, node))
        elif isinstance(target, gast.Subscript):
            base = self.expr(target.value)
            index = self.index_of(target.slice)
            self.check_list_literal_index(base, index, target)
            current = self.subscript(base, index, target)
            rhs = self.expr(node.value)
            if (not is_atom(base) or not isinstance(base.type, A.Array)) and self.updates_in_place(current, op):
                # an array held by a list or dict (`rows[0] *= 2.0`): updated in place, as
                # Python does, so every other name for it sees the change too
                self.update_in_place(op, current, rhs, node, "x")
                base = self.expr(target.value)
                return self.store_subscript(base, index, self.subscript(base, index, target), target)
            self.store_subscript(base, index, self.binop(op, current, rhs, node), target)
        else:
            raise self.error(UnsupportedSyntaxError, "only names and subscripts can be augmented",
                             node, "write `x = x + v` with a local name")

    def updates_in_place(self, current, op):
        """Does ``current op= v`` write into ``current`` (an array) rather than rebind?"""
        return is_atom(current) and isinstance(current.type, A.Array) and op in self.INPLACE

    def update_in_place(self, op, current, rhs, node, hint):
        """``current op= rhs`` into the array's memory: every alias sees the change."""
        if current in self.views:                 # a write into its base
            new = self.binop(op, current, rhs, node)
            return self.write_view(current, everything(current), new, node)
        rhs = self.atom(rhs, node.value)
        if rhs is not current and rhs in self.views and self.storage_of(rhs) is current:
            # `B += B.T`, `B *= B[0]`: NumPy reads a view of the array it writes as it was
            # (it buffers overlapping operands); Numba's loop would read items already written
            rhs = self.copy_of(rhs, rhs.hint)
        self.apply("iop." + op, [current, rhs], hint=hint)

    def stmt_Global(self, node):
        self.scope.declared_global.update(node.names)

    stmt_Nonlocal = stmt_Global

    def stmt_FunctionDef(self, node):
        if node.decorator_list:
            raise self.error(UnsupportedSyntaxError, "decorators on nested functions are not supported",
                             node.decorator_list[0], "define it without a decorator")
        self.check_signature(node.args, node)
        self.scope.env[node.name] = Closure(node, self.scope, self.scope.filename, node.name,
                                            self.evaluate_defaults(node.args))

    def stmt_Return(self, node):
        value = self.expr(node.value) if node.value is not None else None
        self.scope.env["%retval"] = value
        self.scope.env["%ret"] = TRUE

    def stmt_Raise(self, node):
        """A ``raise`` reached through compile-time values only (a branch on ranks, dtypes or
        literal parameters) is an error at compile time.  In sstad's own code (a composite
        refusing a parameter value) it is reported at the user's call; in user code, at the
        ``raise``.  A user's ``raise`` on a run-time path raises when the compiled code
        reaches it, and ends the path as a ``return`` does."""
        library = self.library_scopes()
        owner = library[0] if library else self.scopes[0]
        static = owner.entry[0] is self.stmts and (library or self.in_entry)
        kind, text = self.raised(node.exc)
        if not static and not library:
            self.raise_unless(FALSE, kind, text, node)
            self.scope.env["%ret"] = TRUE
            return
        if not static:
            raise UnsupportedSyntaxError(f"cannot check this call at compile time ({text})", owner.entry[1],
                                         "pass the parameters that check depends on as constants")
        cls = UnsupportedSyntaxError if issubclass(kind, NotImplementedError) else SstadTypeError
        if library:
            raise cls(text or kind.__name__, owner.entry[1])
        raise cls(f"{kind.__name__}: {text}" if text else kind.__name__, self.loc_of(node))

    def raise_unless(self, condition, kind, text, node):
        """The compiled ``if not condition: raise kind(text)`` of a user's ``raise``."""
        if kind.__name__ not in RAISABLE or getattr(builtins, kind.__name__) is not kind:
            raise self.error(UnsupportedSyntaxError, f"raising `{kind.__name__}` at run time: compiled code "
                             "raises Python's built-in exceptions only", node,
                             "raise ValueError(...) or another built-in exception, or check before calling")
        self.apply("builtin.assert", [condition], {"message": text, "error": kind.__name__}, hint="checked")

    def library_scopes(self):
        """The run of scopes, innermost last, lowering sstad's own code (composites and
        their helpers) that the current one belongs to; empty in user code."""
        def in_library(scope):
            while scope.parent is not None:
                scope = scope.parent
            module = getattr(getattr(scope, "function", None), "__module__", "") or ""
            return module.startswith("sstad.runtime")
        run = []
        for scope in reversed(self.scopes):
            if not in_library(scope):
                break
            run.insert(0, scope)
        return run

    def raised(self, exc):
        """``(exception class, message)`` of ``raise E``, ``raise E("...")`` or an f-string."""
        call = exc if isinstance(exc, gast.Call) else None
        kind = self.expr(call.func if call else exc) if exc is not None else RuntimeError
        if not (isinstance(kind, type) and issubclass(kind, BaseException)):
            kind = type(kind) if isinstance(kind, BaseException) else RuntimeError
        parts = call.args[:1] if call else ()
        return kind, "".join(self.static_text(p) for p in parts)

    def static_text(self, node):
        if isinstance(node, gast.JoinedStr):
            return "".join(self.static_text(v) for v in node.values)
        if isinstance(node, gast.FormattedValue):
            value = self.expr(node.value)
            value = value.value if isinstance(value, ir.Const) else value
            if is_atom(value):            # known at run time only: the expression as written
                return "{" + ast.unparse(gast.gast_to_ast(node.value)) + "}"
            return repr(value) if node.conversion == ord("r") else format(value)
        if isinstance(node, gast.Constant):
            return str(node.value)
        value = self.expr(node)
        return str(value.value if isinstance(value, ir.Const) else value)

    def stmt_Break(self, node):
        self.scope.env["%brk"] = TRUE

    def stmt_Continue(self, node):
        self.scope.env["%cont"] = TRUE

    def stmt_If(self, node):
        cond = self.truth(self.expr(node.test), node.test)
        if self.only_raises(cond, node):          # a check: no branch, nothing after it guarded
            self.at(node.body[0])
            self.raise_unless(self.logical_not(cond), *self.raised(node.body[0].exc), node.body[0])
            return
        self.branch(cond, lambda: self.lower_body(node.body), lambda: self.lower_body(node.orelse))

    def only_raises(self, cond, node):
        """``if <run-time test>: raise E(...)`` in user code, with no ``else``."""
        return (not isinstance(cond, ir.Const) and not node.orelse and len(node.body) == 1
                and isinstance(node.body[0], gast.Raise) and not self.library_scopes())

    # --- loops ---------------------------------------------------------------------
    def _loop_frame(self, run):
        """Give a loop its own break/continue flags, restoring the outer loop's after."""
        env = self.scope.env
        saved = {k: env.get(k, MISSING) for k in ("%brk", "%cont")}
        env["%brk"], env["%cont"] = FALSE, FALSE
        run()
        env = self.scope.env
        for k, v in saved.items():
            if v is MISSING:
                env.pop(k, None)
            else:
                env[k] = v

    def _iteration(self, bind, run_body):
        """One iteration: reset `continue`, bind the target, run the body."""
        def run():
            env = self.scope.env
            env["%cont"] = FALSE
            for flag in ("%brk", "%ret"):   # set, the loop's test (or the unrolled sequence) left it
                if flag in env:
                    env[flag] = FALSE
            bind()
            run_body()
            self.scope.env["%cont"] = FALSE
        return run

    def stmt_While(self, node):
        if node.orelse:
            raise self.error(UnsupportedSyntaxError, "`while ... else` is not supported",
                             node, "use a flag variable after the loop")

        def cond():
            stop = self.exited(with_continue=False)
            return self.branch(stop, lambda: FALSE,
                               lambda: self.truth(self.expr(node.test), node.test), hint="go")

        def run():
            self.loop(self._iteration(lambda: None, lambda: self.lower_body(node.body)), cond_thunk=cond)
        self._loop_frame(run)
        forever = isinstance(node.test, gast.Constant) and node.test.value is True
        if forever and not self.has_exit(node.body, gast.Break):
            self.scope.env["%ret"] = TRUE       # `while True` without break leaves only by return

    def stmt_For(self, node):
        if node.orelse:
            raise self.error(UnsupportedSyntaxError, "`for ... else` is not supported",
                             node, "use a flag variable after the loop")
        outer, self.held_iterables = self.held_iterables, []
        try:
            iterable = self.iteration_space(self.expr(node.iter), node.iter)
        finally:
            held, self.held_iterables = self.held_iterables, outer
        self.for_each(node.target, iterable, lambda: self.lower_body(node.body),
                      self.has_exit(node.body, gast.Break) or self.has_exit(node.body, gast.Return))
        for name in held:
            self.scope.env.pop(name, None)

    def for_each(self, target, iterable, run_body, exits):
        """Loop ``target`` over an iteration space (static items, or a counted range)."""
        hint = target.id if isinstance(target, gast.Name) else "i"
        if isinstance(iterable, tuple):                 # static: unroll
            item = self.held_items(iterable)

            def run():
                self.run_sequence([
                    self._iteration(lambda k=k: self.assign(target, item(k)), run_body)
                    for k in range(len(iterable))])
            self._loop_frame(run)
            return self.scope.env.pop(item.name, None)
        start, stop, step, element = iterable.start, iterable.stop, iterable.step, iterable.element
        if not exits:
            def run():
                self.loop(lambda i: self._iteration(lambda: self.assign(target, element(i)), run_body)(),
                          bounds=(start, stop, step), index_hint=hint)
            return self._loop_frame(run)
        # break or return inside: a while loop over a hidden counter
        if not isinstance(step, ir.Const):
            raise self.error(UnsupportedSyntaxError,
                             "a loop with `break`/`return` needs a constant range step", target)
        counter = "%i"
        saved = self.scope.env.get(counter, MISSING)
        self.scope.env[counter] = start

        def cond():
            stop_now = self.exited(with_continue=False)
            i = self.scope.env[counter]
            return self.branch(stop_now, lambda: FALSE,
                               lambda: self.apply("op.lt" if step.value > 0 else "op.gt", [i, stop]),
                               hint="go")

        def step_and_bind():
            i = self.scope.env[counter]
            self.scope.env[counter] = self.apply("op.add", [i, step], hint=hint)
            self.assign(target, element(i))

        self._loop_frame(lambda: self.loop(self._iteration(step_and_bind, run_body), cond_thunk=cond))
        if saved is MISSING:
            self.scope.env.pop(counter, None)
        else:
            self.scope.env[counter] = saved

    @staticmethod
    def has_exit(body, kind):
        """Does ``body`` contain ``kind`` (Break/Return) that leaves *this* loop?"""
        def visit(node, in_loop):
            if isinstance(node, (gast.FunctionDef, gast.Lambda)):
                return False
            if isinstance(node, kind) and not (kind is gast.Break and in_loop):
                return True
            nested = in_loop or isinstance(node, (gast.For, gast.While))
            return any(visit(c, nested) for c in gast.iter_child_nodes(node))
        return any(visit(s, False) for s in body)

    held_iterables = None    # in a `for` header: hidden names holding the arrays it iterates

    def held(self, array):
        """A function giving the array a `for` loop iterates as it is now: its rows are views,
        and a write through one (`for row in X: row *= 2`) makes a new version of the array,
        which the loop carries under a hidden name (bound to the same array as `X`, so the
        two share one version).  Outside a `for` header (a comprehension), the array itself."""
        if not isinstance(array.type, A.Array) or self.held_iterables is None:
            return lambda: array
        scope = self.scope
        name = f"%iterated{sum(k.startswith('%iterated') for k in scope.env)}"
        scope.env[name] = array
        self.held_iterables.append(name)
        return lambda: scope.env[name]

    def held_items(self, items):
        """A function giving the ``k``-th of the static items a loop is unrolled over, as it is
        now: the items sit in the state under a hidden name, so a write through one
        (``for r in [X[0], X[1]]: r *= 3.0``) reaches the views of X among the others."""
        scope = self.scope
        name = f"%items{sum(k.startswith('%items') for k in scope.env)}"
        scope.env[name] = tuple(items)

        def item(k):
            return scope.env[name][k]
        item.name = name
        return item

    def iteration_space(self, value, node):
        """A tuple of static items (unrolled), or a :class:`Counted` run-time space."""
        if isinstance(value, (tuple, StaticList)):
            return tuple(value)
        if isinstance(value, dict):
            return self.dict_keys(value)
        if isinstance(value, RangeValue):
            return Counted(value.start, value.stop, value.step, lambda i: i)
        if is_atom(value) and isinstance(value.type, (A.Array, A.ListOf)):
            n = self.apply("builtin.len", [value], hint="n")
            current = self.held(value)
            return Counted(ir.Const(0), n, ir.Const(1), lambda i: self.subscript(current(), (i,), node))
        if isinstance(value, Enumerate):
            inner = self.iteration_space(value.inner, node)
            if isinstance(inner, tuple):
                return tuple((self.enumerated_index(ir.Const(k), value.start, node), v) for k, v in enumerate(inner))
            start, stop, step, element = inner.start, inner.stop, inner.step, inner.element
            if not (ir.is_scalar_const(start, 0) and ir.is_scalar_const(step, 1)):
                raise self.error(UnsupportedSyntaxError, "enumerate over a range that does not start at 0",
                                 node, "enumerate an array or list, or use range directly")
            return Counted(start, stop, step, lambda i: (self.enumerated_index(i, value.start, node), element(i)))
        if isinstance(value, Zip):
            spaces = [self.iteration_space(v, node) for v in value.items]
            if all(isinstance(s, tuple) for s in spaces):
                return tuple(zip(*spaces))
            spaces = [self.stacked_space(s, node) if isinstance(s, tuple) and all(is_atom(v) for v in s) else s
                      for s in spaces]
            if any(isinstance(s, tuple) for s in spaces) or not all(
                    ir.is_scalar_const(s.start, 0) and ir.is_scalar_const(s.step, 1) for s in spaces):
                raise self.error(UnsupportedSyntaxError, "zip of these iterables is not supported", node,
                                 "zip arrays, run-time lists or ranges starting at 0")
            stop = spaces[0].stop
            for s in spaces[1:]:
                stop = self.apply("builtin.min", [stop, s.stop], hint="n")
            return Counted(ir.Const(0), stop, ir.Const(1), lambda i: tuple(s.element(i) for s in spaces))
        raise self.error(UnsupportedSyntaxError, f"cannot iterate over {self.describe(value)}", node,
                         "iterate over range(...), an array, a list, enumerate(...) or zip(...)")

    def enumerated_index(self, k, start, node):
        """Item ``k``'s index in ``enumerate(x, start)``: ``k`` plus ``start`` (None: 0)."""
        return k if start is None else self.binop("add", k, start, node)

    def stacked_space(self, items, node):
        """The static ``items`` zipped with a run-time sequence, iterated as one new array
        stacked from them: arrays among them are copies there, so writes through them
        (which Python makes into the original arrays) are refused."""
        space = self.iteration_space(self.call_numpy("array", [StaticList(items)], {}, node), node)
        if not any(isinstance(v.type, A.Array) for v in items):
            return space
        return Counted(space.start, space.stop, space.step, lambda i: self.unfollowable(
            space.element(i), "an array from a list literal zipped with a run-time sequence (sstad stacks "
            "the literal's arrays into one new array: a write would not reach the originals)",
            "enumerate the literal and index the other (`for k, r in enumerate(rows): r *= w[k]`), "
            "or zip two literals"))

    # --- targets -----------------------------------------------------------------
    def assign(self, target, value):
        if isinstance(target, gast.Name):
            if target.id in self.scope.declared_global:
                raise self.error(UnsupportedSyntaxError,
                                 f"assigning to global/nonlocal `{target.id}` is not supported", target,
                                 "return the new value instead of writing an outer variable")
            if isinstance(value, ir.Var) and (value.hint == "%t" or (
                    self.stmts and value in getattr(self.stmts[-1], "outs", ()))):
                value.hint = target.id            # name a fresh value after the user's name
            self.scope.env[target.id] = value
        elif isinstance(target, (gast.Tuple, gast.List)) and any(isinstance(t, gast.Starred) for t in target.elts):
            self.assign_starred(target, value)
        elif isinstance(target, (gast.Tuple, gast.List)):
            # the items go to the targets one by one, so a write by one target reaches the
            # items still to come that are views of what it wrote (`A[0], A[1] = A[1], A[0]`
            # gives both rows the old row 1, as NumPy does): held in the scope meanwhile, they
            # are derived again after each write, as named views are
            pending = f" unpacked by {id(target)}"         # (nested targets: each its own)
            self.scope.env[pending] = tuple(self.unpack(value, len(target.elts), target))
            try:
                for k, t in enumerate(target.elts):
                    self.assign(t, self.scope.env[pending][k])
            finally:
                self.scope.env.pop(pending, None)
        elif isinstance(target, gast.Subscript):
            base = self.expr(target.value)
            self.store_subscript(base, self.index_of(target.slice), value, target)
        else:
            raise self.error(UnsupportedSyntaxError, f"cannot assign to {type(target).__name__}", target,
                             "assign to a local name or a subscript")

    def assign_starred(self, target, value):
        """``a, *rest = seq``, ``x, *_ = np.linalg.lstsq(...)``: of a sequence whose length
        is known at compile time; the starred name gets the middle items as a list."""
        elts = target.elts
        star = next(k for k, t in enumerate(elts) if isinstance(t, gast.Starred))
        if not isinstance(value, (tuple, StaticList)):
            raise self.error(UnsupportedSyntaxError, f"starred unpacking of {self.describe(value)} is not supported",
                             target, "its length is known only at run time: index the items you need "
                             "(`first, second = x[0], x[1]`)")
        if len(value) < len(elts) - 1:
            raise self.error(SstadTypeError, f"not enough values to unpack (expected at least {len(elts) - 1}, "
                             f"got {len(value)})", target)
        items, end = list(value), len(value) - (len(elts) - star - 1)
        for t, v in zip(elts, items[:star] + [StaticList(items[star:end])] + items[end:]):
            self.assign(t.value if isinstance(t, gast.Starred) else t, v)

    def unpack(self, value, count, node):
        if isinstance(value, (tuple, StaticList)):
            if len(value) != count:
                raise self.error(SstadTypeError, f"cannot unpack {len(value)} values into {count}", node)
            return list(value)
        if is_atom(value) and isinstance(value.type, (A.Array, A.ListOf)):
            return [self.subscript(value, (ir.Const(k),), node) for k in range(count)]
        if is_atom(value) and value in self.first_guesses:   # a recursive call's result in its first pass: see not_yet_known
            return [self.not_yet_known() for _ in range(count)]
        raise self.error(SstadTypeError, f"cannot unpack {self.describe(value)}", node)

    def check_list_literal_index(self, base, index, node):
        """A list literal is written only at constant indices (its items are compile-time names)."""
        if not (isinstance(base, StaticList) and len(index) == 1):
            return
        item = index[0]
        if not (isinstance(item, ir.Const) and isinstance(item.value, int)):
            raise self.error(UnsupportedSyntaxError, "writing into a list literal at a run-time index is not "
                             "supported", node, "build the list at run time (`hs = []` then `hs.append(v)`) "
                             "to write hs[i], or write at a constant index")

    def store_subscript(self, base, index, value, node):
        if isinstance(base, dict):
            key = self.static_key(index, node)
            self.rebind_static(base, {**base, key: value})
            return
        if isinstance(base, StaticList) and len(index) == 1:
            self.check_list_literal_index(base, index, node)
            item = index[0]
            items = list(base)
            if not -len(items) <= item.value < len(items):
                raise self.error(SstadTypeError, f"list assignment index {item.value} out of range for a list of "
                                 f"{len(items)} items", node)
            items[item.value] = value
            self.rebind_static(base, StaticList(items))
            return
        if not is_atom(base):
            raise self.error(UnsupportedSyntaxError, f"cannot assign into {self.describe(base)}", node,
                             "tuples are immutable; build a new one")
        if base in self.views:
            return self.write_view(base, index, value, node)
        atoms, layout = self.index_layout(spliced(index), first_slot=2, node=node)
        self.apply("setitem", [base, self.atom(value, node)] + atoms, {"index": layout},
                   hint=getattr(base, "hint", "x"))

    def rebind_static(self, old, new):
        for scope in self.scopes:
            for name, v in list(scope.env.items()):
                if v is old:
                    scope.env[name] = new

