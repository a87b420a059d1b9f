"""The structured-control-flow machinery the lowering is built on.

The *state* is every name bound in every active scope (the function being lowered and
the helpers inlined into it).  A branch or loop runs its body on a copy of the state;
afterwards the states are compared and each value that differs becomes an output of the
``If``, or a carried value of the loop.  Types are joined (int with float gives float)
and casts inserted so that the emitted code stays type-stable.
"""
from __future__ import annotations

import numpy as np

from sstad.errors import AliasingError, SstadTypeError
from sstad.frontend.pytree import StaticList, flatten, is_atom, same_static, same_treedef, unflatten
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A
from sstad.runtime.containers import list_of
from sstad.runtime.primitive import Slot, lookup

TRUE, FALSE = ir.Const(True), ir.Const(False)
MISSING = object()


class Conflict:
    """A name whose paths disagree on its type or structure after an ``if``: reading it
    raises ``error``; a name nothing reads afterwards is no error (valid Python)."""

    def __init__(self, error):
        self.error = error
MAX_FIXPOINT = 8


def same_value(a, b):
    if a is b:
        return True
    if isinstance(a, ir.Const) and isinstance(b, ir.Const):
        return same_static(a.value, b.value) and type(a.value) is type(b.value)
    if is_atom(a) or is_atom(b):
        return False
    ta, la = flatten(a)
    tb, lb = flatten(b)
    return same_treedef(ta, tb) and len(la) == len(lb) and all(map(same_value, la, lb))


def same_storage(a, b):
    """Equal for Numba: weak and strong scalars of one dtype are stored alike."""
    if isinstance(a, A.Scalar) and isinstance(b, A.Scalar):
        return a.dtype == b.dtype
    return a == b


def hint_of(key):
    name = key[1].split("#")[0]
    return name.strip("%") or "t"


def _resized(literal, end):
    """Does a loop body leave the list literal ``literal`` grown (a run-time list) or
    shrunk (a shorter literal, by ``pop``)?  Its length then depends on the trip count."""
    if is_atom(end):
        return isinstance(end.type, A.ListOf)
    return isinstance(end, StaticList) and len(end) < len(literal) and all(map(_atomic, end))


def _atomic(item):
    """An item a run-time list can hold: an atom or a number (not a container)."""
    return is_atom(item) or isinstance(item, (bool, int, float, complex, np.generic))


class Builder:
    """Emits IR statements into the current block and owns the state of names."""

    def __init__(self):
        self.stmts = []
        self.scopes = []
        self.loc = None
        self.loop_seeds = {}     # loop site -> the carried values it settled on last time
        self.unsettled = None    # in a loop's trial round: type errors a later round may resolve

    # --- emitting --------------------------------------------------------------
    def error(self, cls, message, node=None, hint=None):
        loc = self.loc_of(node) if node is not None else self.loc
        return cls(message, loc, hint)

    def apply(self, prim_name, args, params=None, hint="%t"):
        """Append ``out = prim(args)`` and return ``out`` (type inferred from the args)."""
        prim = lookup(prim_name)
        params = params or {}
        args = [self.as_read_now(a) for a in args]
        if prim.inexact:
            args = self.as_inexact(args)
        avals = [a.type for a in args]
        if any(t is A.UNKNOWN for t in avals):
            out_type = A.UNKNOWN
        else:
            try:
                out_type = prim.infer(avals, params)
            except (TypeError, ValueError, IndexError, np.linalg.LinAlgError) as exc:
                shown = ", ".join(map(str, avals))
                raise self.error(SstadTypeError, f"{prim_name}({shown}): {exc}") from None
        if prim.mutates:
            through = self.write_into_view(prim_name, args, params, hint)
            if through is not None:
                return through
            self.before_write(args)
        out = ir.Var(hint, out_type)
        self.stmts.append(ir.Apply([out], prim, list(args), params, self.loc))
        if prim.mutates:
            self.rebind(args[0], out)
            self.after_write(args[0], out)
        return out

    def as_inexact(self, args):
        """The array operands of a routine that computes in floating point, in the dtype
        NumPy's computes in (``np.linalg``: integers and booleans as float64, float32 with
        float64 as float64); Numba's routines take nothing else."""
        arrays = [a.type.dtype for a in args if isinstance(a.type, A.Array)]
        if not arrays:
            return args
        target = np.result_type(*(d if d.kind in "fc" else np.float64 for d in arrays))
        return [self.apply("astype", [a], {"dtype": target}, hint=a.hint)
                if isinstance(a.type, A.Array) and a.type.dtype != target else a for a in args]

    def write_into_view(self, prim_name, args, params, hint):
        """A hook: an in-place write into a view made a write into its base (the written
        content), or None where ``args[0]`` is no view."""
        return None

    def before_write(self, args):
        """A hook: ``args[0]`` is about to be written in place (``args`` of the write)."""

    def as_read_now(self, atom):
        """A hook: ``atom`` as it reads now, after the writes since it was made."""
        return atom

    def join_writes(self, before, ends, after):
        """A hook: the arrays written in place on the paths of an ``if`` or a loop."""

    def after_write(self, old, new):
        """A hook: ``old`` was written in place and is now ``new``."""

    def held_by_list(self, value):
        """A hook: does a run-time list hold the memory of an array in ``value``?"""
        return False

    def copy_of(self, atom, hint="%t"):
        """``np.copy(atom)``: an array of its own."""
        return self.apply("copy", [atom], {"layout": ((Slot(0),), {})}, hint=hint)

    def zeros_like(self, atom, hint="%t"):
        return self.apply("zeros_like", [atom], {"layout": ((Slot(0),), {})}, hint=hint)

    def cast(self, atom, target, stmts):
        """``atom`` converted to ``target`` (appending the cast to ``stmts`` if needed)."""
        if atom.type is A.UNKNOWN or same_storage(atom.type, target):
            return atom
        if isinstance(atom, ir.Undef):
            return ir.Undef(target)
        if isinstance(atom.type, A.ListOf) and atom.type.elem is A.UNKNOWN:
            atom.type = target                   # an empty list: its first append types it
            return atom
        if isinstance(atom.type, A.ListOf) or isinstance(target, A.ListOf):
            raise self.error(SstadTypeError, f"a list holds items of one type: `{getattr(atom, 'hint', 'the list').strip('%')}` "
                             f"is a {atom.type} here and a {target} on another path (a branch, or the loop's next round)",
                             hint="append numbers of one kind (e.g. float(k) to a list of floats)")
        if isinstance(atom, ir.Const) and isinstance(target, A.Scalar):
            value = np.asarray(atom.value).astype(target.dtype)[()]
            return ir.Const(value.item() if target.weak else value, target)
        out = ir.Var(getattr(atom, "hint", "%t"), target)
        stmts.append(ir.Apply([out], lookup("astype"), [atom], {"dtype": target.dtype}, self.loc))
        return out

    # --- the state -------------------------------------------------------------
    def get_state(self):
        return {(i, name): v for i, s in enumerate(self.scopes) for name, v in s.env.items()}

    def set_state(self, state):
        envs = [dict() for _ in self.scopes]
        for (i, name), v in state.items():
            envs[i][name] = v
        for scope, env in zip(self.scopes, envs):
            scope.env = env

    def rebind(self, old, new):
        """After an in-place write, every name bound to ``old`` now sees ``new``."""
        def swap(v):
            treedef, leaves = flatten(v)
            if not any(leaf is old for leaf in leaves):
                return v
            return unflatten(treedef, [new if leaf is old else leaf for leaf in leaves])
        for scope in self.scopes:
            scope.env = {name: new if v is old else v if is_atom(v) else swap(v) for name, v in scope.env.items()}

    def collect(self, thunk):
        """The statements ``thunk`` appends, in a list of their own."""
        saved, self.stmts = self.stmts, []
        try:
            thunk()
            return self.stmts
        finally:
            self.stmts = saved

    def region(self, thunk, state):
        """Run ``thunk`` into a fresh statement list from ``state``."""
        saved_stmts, saved_state = self.stmts, self.get_state()
        self.stmts = []
        self.set_state(state)
        try:
            result = thunk()
            return self.stmts, self.get_state(), result
        finally:
            self.stmts = saved_stmts
            self.set_state(saved_state)

    def regions_apart(self, thunks, state):
        """Each thunk's region from ``state`` (the two paths of an ``if``): the arrays one
        path puts into run-time lists are held by them only after the join."""
        listed = getattr(self, "listed", set())
        before, added, sides = set(listed), set(), []
        for thunk in thunks:
            sides.append(self.region(thunk, state))
            added |= listed - before
            listed.intersection_update(before)
        listed |= added
        return sides

    # --- joins -----------------------------------------------------------------
    def join_leaves(self, key, values):
        """Flatten each path's value of ``key``; check one structure; join leaf types."""
        present = [v for v in values if v is not MISSING]
        treedef, _ = flatten(present[0])
        flat = []
        for v in values:
            if v is MISSING:
                flat.append(None)
                continue
            t, leaves = flatten(v)
            if not same_treedef(t, treedef):
                if any(isinstance(p, StaticList) for p in present) and any(
                        is_atom(p) and isinstance(p.type, A.ListOf) for p in present):
                    raise self.error(SstadTypeError, f"`{hint_of(key)}` is a list literal on one path and a "
                                     "run-time list on another (appending to a literal in a loop or a branch)",
                                     hint=f"make it a run-time list from the start: `{hint_of(key)} = []` "
                                     "followed by `.append(...)` of its first items")
                raise self.error(SstadTypeError,
                                 f"`{hint_of(key)}` has a different structure on different paths",
                                 hint="give it the same kind of value (tuple, dict, ...) on every path")
            flat.append(leaves)
        width = len(next(f for f in flat if f is not None))
        types = []
        for i in range(width):
            t = A.UNKNOWN
            for leaves in flat:
                if leaves is not None:
                    joined = A.join(t, leaves[i].type)
                    if joined is None:
                        raise self.error(
                            SstadTypeError,
                            f"`{hint_of(key)}` is a {t} on one path and a {leaves[i].type} on another",
                            hint="give it one type on every path (e.g. start from an array of zeros)")
                    t = joined
            types.append(t)
        return treedef, flat, types

    def branch(self, cond, then_thunk, else_thunk, hint="%t"):
        """Lower ``if cond: then else: else`` and return the joined value of the thunks."""
        if isinstance(cond, ir.Const):
            return (then_thunk if cond.value else else_thunk)()
        loc = self.loc
        state0 = self.get_state()
        derived = self.derived_views(state0)
        sides = self.regions_apart((then_thunk, else_thunk), state0)
        states = [{**s, (-1, "%value"): r} for _, s, r in sides]
        sliced = self.joinable_slices(states)
        # a name neither path rebound keeps its value: only the others are compared
        keys = [k for k in {**states[0], **states[1]}
                if not all(s.get(k, MISSING) is state0.get(k, MISSING) for s in states)
                and not self.still_derived(k, derived, states) and k not in sliced]
        outs, results, joined = [], ([], []), []
        after = dict(state0)
        for key in keys:
            a, b = states[0].get(key, MISSING), states[1].get(key, MISSING)
            if a is not MISSING and b is not MISSING and same_value(a, b):
                after[key] = a
                continue
            if (a is None or b is None) and key[1] == "%value":
                after[key] = None
                continue
            if key[1] in ("%ret", "%brk", "%cont"):
                a, b = (FALSE if v is MISSING else v for v in (a, b))
                if same_value(a, b):
                    after[key] = a
                    continue
            try:
                treedef, flat, types = self.join_leaves(key, [a, b])
            except SstadTypeError as error:
                if key[0] == -1 or key[1].startswith("%"):
                    raise
                after[key] = Conflict(error)     # an error only if something reads it later
                continue
            new = [ir.Var(hint if key[1] == "%value" else hint_of(key), t) for t in types]
            for side, leaves in enumerate(flat):
                stmts = sides[side][0]
                leaves = leaves or [ir.Undef(t) for t in types]
                results[side].extend(self.cast(leaf, t, stmts) for leaf, t in zip(leaves, types))
            outs.extend(new)
            joined.extend((out, [leaves[i] for leaves in flat if leaves is not None]) for i, out in enumerate(new))
            after[key] = unflatten(treedef, new)
        value = after.pop((-1, "%value"), None)
        bounds = {k: after.pop(k) for k in list(after) if k[0] == -1 and k[1].startswith("%bound")}
        self.join_views(joined, after)
        if outs or sides[0][0] or sides[1][0]:
            self.stmts.append(ir.If(outs, cond, ir.Block([], sides[0][0], results[0]),
                                    ir.Block([], sides[1][0], results[1]), loc))
        self.loc = loc
        self.join_writes(state0, [(state0, s) for _, s, _ in sides], after)
        self.rederive(derived, after, [k for k in derived if k in sliced or self.still_derived(k, derived, states)])
        for key, (base_key, layout) in sliced.items():       # the view, from the joined bounds
            view = self.subscript(after[base_key], _rebuild(layout, bounds), None)
            if key == (-1, "%value"):
                value = view
            else:
                after[key] = view
        self.set_state(after)
        return value

    def joinable_slices(self, states):
        """Names bound on each path to a basic-indexing view of the same base name
        (``z = y[::2] if c else y[1:]``): their bounds join as numbers and the view is
        made again after the join (so writes through it reach ``y``).  Each slice needs a
        constant positive step; a left-out start is 0 and a left-out stop is past the end.
        Adds the bounds to ``states`` as ``%bound`` keys; returns {key: (base key, layout)}."""
        origins = getattr(self, "view_origin", {})
        out = {}
        for key in list(states[0]):
            views = [s.get(key, MISSING) for s in states]
            made = [origins.get(v) if is_atom(v) else None for v in views]
            if (key[0] == -1 and key[1] != "%value") or any(o is None or o.prim.name != "getitem" for o in made):
                continue
            holders = [{id(v): k for k, v in s.items() if is_atom(v)} for s in states]
            base_keys = {h.get(id(o.args[0])) for h, o in zip(holders, made)}
            layouts = [_canonical_index(o) for o in made]
            if len(base_keys) != 1 or None in base_keys or None in layouts or \
                    len({_shape_of_index(layout) for layout in layouts}) != 1:
                continue
            names = [(-1, f"%bound{key[1]}#{j}") for j in range(len(_atoms_of(layouts[0])))]
            for s, layout in zip(states, layouts):
                s.update(zip(names, _atoms_of(layout)))
            out[key] = (base_keys.pop(), _with_names(layouts[0], names))
        return out

    # --- views across joins ------------------------------------------------------
    def derived_views(self, state):
        """{key: (its base's key, the view's origin)} for names bound to a view of an array
        that another name holds: across a join the view is made again from the joined
        base, instead of joining two views (whose base would be unknown)."""
        origins = getattr(self, "view_origin", {})
        holder = {id(v): k for k, v in state.items() if is_atom(v)}
        out = {}
        for key, v in state.items():
            origin = origins.get(v) if is_atom(v) else None
            if origin is not None and id(origin.args[0]) in holder and holder[id(origin.args[0])] != key:
                out[key] = (holder[id(origin.args[0])], origin)
        return out

    def still_derived(self, key, derived, states):
        """Is ``key`` on every path still a view of its base, made the same way?"""
        if key not in derived:
            return False
        base_key, origin = derived[key]
        origins = getattr(self, "view_origin", {})
        for state in states:
            v, base = state.get(key, MISSING), state.get(base_key, MISSING)
            o = origins.get(v) if is_atom(v) else None
            if o is None or o.args[0] is not base or o.prim is not origin.prim or o.params != origin.params \
                    or o.args[1:] != origin.args[1:]:
                return False
        return True

    def rederive(self, derived, state, keys):
        """Make the views ``keys`` again from their bases' values in ``state``."""
        for key in keys:
            base_key, origin = derived[key]
            state[key] = self.remake(origin, state[base_key], origin.outs[0].hint)

    def join_views(self, joined, after):
        """``[(out, its inputs on each path)]``: an array joined from a view, or from an
        array still bound to another name, may share memory with it, so writes through
        the joined value are refused (AliasingError) rather than lost."""
        bound = {id(leaf) for v in after.values() for leaf in _leaves(v)}
        for out, inputs in joined:
            if self.held_by_list(tuple(inputs)):
                self.listed.add(out)
            if isinstance(out.type, A.Array) and any(
                    is_atom(a) and (a in self.views or id(a) in bound) for a in inputs):
                self.views.add(out)

    # --- loops -----------------------------------------------------------------
    def unknown_type(self, error):
        """A value whose type is not known yet: an error, unless an enclosing loop is still
        trying types (a list empty in its first round gets its items' type from the
        round's appends), in which case the round's result decides."""
        if self.unsettled is None:
            raise error
        self.unsettled.append(error)

    def runtime_list(self, items):
        """A run-time list of ``items`` (atoms), made here: a list literal that grows."""
        new = self.apply("list.new", [], hint="items")
        for item in items:
            if new.type.elem is A.UNKNOWN:           # typed by its first item
                new.type = list_of(item.type)
            new = self.apply("list.append", [new, item], hint="items")
        return new

    def literals_made_lists(self, state, keys):
        """``state`` with the list literals bound to ``keys`` made run-time lists before a
        loop whose body appends to them (a literal only grows at compile time)."""
        state = dict(state)
        for key in keys:
            literal = state[key]
            made = self.runtime_list([v if is_atom(v) else ir.Const(v) for v in literal])
            state = {k: made if v is literal else v for k, v in state.items()}
        self.set_state(state)
        return state

    @staticmethod
    def sharing(key, state0, carry, start_state, unshared):
        """The carried name, already given loop parameters, bound before the loop to the same
        array as ``key`` (an in-place write through either name reaches both), or None."""
        init = state0.get(key, MISSING)
        if key in unshared or not (isinstance(init, ir.Var) and isinstance(init.type, A.Array)):
            return None
        return next((k for k in carry if k != key and k in start_state and k not in unshared
                     and state0.get(k) is init and carry[k] == carry[key] and start_state[k] is not init), None)

    def refuse_write_while_shared(self, parted, aliases, start_state, stmts):
        """Names that share one array when the loop starts and part in its body (``z = y``,
        then ``z[0] = ...; z = z * 2.0`` in the body) are carried apart; a write into the
        array in the body would reach the other name at run time in the first round
        only (shared memory), which the dataflow cannot say: refused at the write."""
        def shown(key):
            return f"`{key[1]}`" if key[1] in self.scopes[key[0]].local_names else "the array the `for` loop iterates"
        for key in sorted(parted):
            first = aliases[key]
            users = [k for k in (key, first) if k[1] in self.scopes[k[0]].local_names]
            write = _first_write_into(stmts, {start_state[first]})
            if not users or write is None:       # a derivative's sweep owns its arrays
                continue
            copy = f"make `{key[1]}` a copy before the loop (`{key[1]} = {first[1]}.copy()`) if the two are " \
                "separate arrays, or " if len(users) == 2 else ""
            raise AliasingError(
                f"writing in place into one array held by {shown(key)} and by {shown(first)} when this loop "
                "starts, in a loop that rebinds one of them: the write reaches the other in the first round "
                "only (shared memory), which sstad cannot follow", write.loc,
                copy + f"give the array made in the loop a name of its own instead of rebinding `{users[0][1]}`")

    def loop(self, body_thunk, cond_thunk=None, bounds=None, index_hint="i"):
        """Lower a ``while`` (``cond_thunk``) or a ``for`` over ``bounds`` = (start, stop, step).

        The carried values are found by running the body: whatever it changes is
        carried.  Types and the carried set are iterated to a fixpoint (``s = 0`` then
        ``s += 0.5`` carries a float)."""
        loc = self.loc
        state0 = self.get_state()
        # Start from what this loop site carried when last built (a nested loop is built
        # again each time its enclosing body is): usually right at once, so building
        # is linear in the nesting depth instead of exponential.  The fixpoint still
        # checks it, so a stale seed only costs another round.
        site = (loc, index_hint, cond_thunk is None)
        carry = {k: v for k, v in self.loop_seeds.get(site, {}).items() if k in state0}
        derived = self.derived_views(state0)

        def with_views(thunk, *a):
            """Views of carried arrays are made again from the carried arrays."""
            def run():
                state = self.get_state()
                self.rederive(derived, state, [k for k in derived if derived[k][0] in carry and k not in carry])
                self.set_state(state)
                return thunk(*a)
            return run
        outer, pending = self.unsettled, []
        unshared = set()             # names that stopped sharing an array with another name
        listed = set()               # names whose arrays a run-time list holds by the body's end
        try:
            for _ in range(MAX_FIXPOINT):
                self.unsettled = pending = []
                params, start_state, aliases = [], dict(state0), {}
                for key, (treedef, types) in carry.items():
                    first = self.sharing(key, state0, carry, start_state, unshared)
                    if first is not None:        # `Y = X` before the loop: one array, one version
                        aliases[key] = first
                        start_state[key] = start_state[first]
                        continue
                    leaves = [ir.Var(hint_of(key), t) for t in types]
                    if key in listed:    # the next round starts from memory a list holds
                        self.listed.update(leaves)
                    params.extend(leaves)
                    start_state[key] = unflatten(treedef, leaves)
                index = ir.Var(index_hint, A.I64) if bounds is not None else None
                if cond_thunk is not None:
                    cond_stmts, _, cond = self.region(with_views(cond_thunk), start_state)
                body_stmts, end_state, _ = self.region(
                    with_views(body_thunk, index) if index is not None else with_views(body_thunk), start_state)
                grown = [key for key, end in end_state.items() if isinstance(state0.get(key), StaticList)
                         and all(map(_atomic, state0[key])) and _resized(state0[key], end)]
                if grown:                # `xs = [x0]` then `xs.append(x)` or `xs.pop()` in the body
                    state0 = self.literals_made_lists(state0, grown)
                    continue
                parted = {key for key, first in aliases.items() if end_state.get(key) is not end_state.get(first)}
                if parted:               # one name was rebound to another array in the body
                    self.refuse_write_while_shared(parted, aliases, start_state,
                                                   body_stmts + (cond_stmts if cond_thunk is not None else []))
                    unshared |= parted
                    continue
                now_listed = {key for key, end in end_state.items() if self.held_by_list(end)}
                if now_listed - listed:  # `items.append(x[i])` in the body: x's memory is the list's
                    listed |= now_listed
                    continue
                new_carry = {}
                for key in {**start_state, **end_state}:
                    if key in derived and self.still_derived(key, derived, [end_state]):
                        continue             # made again from its base (with_views, and below)
                    start, end = start_state.get(key, MISSING), end_state.get(key, MISSING)
                    if key not in carry and (end is MISSING or same_value(start, end)):
                        continue
                    if end is MISSING:       # bound before the loop, but not by this body?
                        continue
                    treedef, _, types = self.join_leaves(key, [state0.get(key, MISSING), end])
                    new_carry[key] = (treedef, types)
                if new_carry.keys() == carry.keys() and all(
                        same_treedef(new_carry[k][0], carry[k][0]) and new_carry[k][1] == carry[k][1]
                        for k in carry):
                    break
                carry = new_carry
            else:
                raise self.error(SstadTypeError, "the types in this loop do not settle",
                                 hint="give loop variables one type before the loop")
        finally:
            self.unsettled = outer
        for error in pending:
            self.unknown_type(error)
        self.loop_seeds[site] = carry
        self.loc = loc
        inits, results, outs, after, joined = [], [], [], dict(state0), []
        for key, (treedef, types) in carry.items():
            if key in aliases:
                continue
            if any(t is A.UNKNOWN for t in types):
                self.unknown_type(self.error(
                    SstadTypeError, f"cannot infer the type of `{hint_of(key)}` in this loop",
                    hint="it reads a list that is still empty here (`[]` with no append before this "
                    "point); append a first item before the loop, or build the list before using it"))
            init = state0.get(key, MISSING)
            init_leaves = flatten(init)[1] if init is not MISSING else [ir.Undef(t) for t in types]
            inits.extend(self.cast(a, t, self.stmts) for a, t in zip(init_leaves, types))
            end_leaves = flatten(end_state[key])[1]
            results.extend(self.cast(a, t, body_stmts) for a, t in zip(end_leaves, types))
            new = [ir.Var(hint_of(key), t) for t in types]
            if key in listed:
                self.listed.update(new)
            outs.extend(new)
            after[key] = unflatten(treedef, new)
        for key, first in aliases.items():
            after[key] = after[first]
        self.join_views(joined, after)
        if cond_thunk is not None:
            stmt = ir.While(outs, inits, ir.Block(list(params), cond_stmts, [cond]),
                            ir.Block(params, body_stmts, results), loc)
        else:
            start, stop, step = bounds
            stmt = ir.For(outs, inits, start, stop, step,
                          ir.Block([index] + params, body_stmts, results), loc)
        self.stmts.append(stmt)
        self.join_writes(state0, [(start_state, end_state)], after)
        self.rederive(derived, after, [k for k in derived if derived[k][0] in carry and k not in carry])
        self.set_state(after)


def _first_write_into(stmts, arrays):
    """The first statement in ``stmts`` (or a block inside) writing in place into one of
    ``arrays`` (a set of atoms), or a loop parameter it starts, else None."""
    for stmt in stmts:
        if isinstance(stmt, ir.Apply) and stmt.prim.mutates and stmt.args and stmt.args[0] in arrays:
            return stmt
        blocks = []
        if isinstance(stmt, ir.If):
            blocks, inner = [stmt.then, stmt.orelse], arrays
        elif isinstance(stmt, (ir.For, ir.While)):
            params = stmt.body.params[1:] if isinstance(stmt, ir.For) else stmt.body.params
            inner = arrays | {p for p, init in zip(params, stmt.inits) if init in arrays}
            blocks = [stmt.body] + ([stmt.cond] if isinstance(stmt, ir.While) else [])
        for block in blocks:
            found = _first_write_into(block.stmts, inner)
            if found is not None:
                return found
    return None


def _leaves(*values):
    """The atoms of these values (MISSING and None contribute none)."""
    out = []
    for v in values:
        if v is MISSING or v is None:
            continue
        out.extend([v] if is_atom(v) else flatten(v)[1])
    return out


# --- basic indexing in a canonical form, for joining views ----------------------------
_PAST_THE_END = 2 ** 62


def _canonical_index(origin):
    """A getitem's index with every slice bound an atom: [("slice", start, stop, step) |
    ("at", atom) | ("static", item)], or None if a step is not a positive constant."""
    out = []

    def atom(b, default):
        if b is None:
            return ir.Const(default)
        return origin.args[b] if isinstance(b, Slot) else ir.Const(b)
    for item in origin.params["index"]:
        if isinstance(item, slice):
            step = 1 if item.step is None else item.step
            if isinstance(step, Slot) or step <= 0:
                return None
            out.append(("slice", atom(item.start, 0), atom(item.stop, _PAST_THE_END), ir.Const(step)))
        elif isinstance(item, Slot):
            if not isinstance(origin.args[item].type, A.Scalar):
                return None              # fancy indexing makes a copy, not a view
            out.append(("at", origin.args[item]))
        elif isinstance(item, int):
            out.append(("at", ir.Const(item)))
        else:
            out.append(("static", item))
    return out


def _shape_of_index(layout):
    return tuple(part[0] if part[0] != "static" else ("static", repr(part[1])) for part in layout)


def _atoms_of(layout):
    return [a for part in layout if part[0] != "static" for a in part[1:]]


def _with_names(layout, names):
    names, out = iter(names), []
    for part in layout:
        out.append(part if part[0] == "static" else (part[0],) + tuple(next(names) for _ in part[1:]))
    return out


def _rebuild(layout, bounds):
    """The index, with the joined bounds in place of their names."""
    out = []
    for part in layout:
        if part[0] == "slice":
            out.append(slice(*(bounds[name] for name in part[1:])))
        elif part[0] == "at":
            out.append(bounds[part[1]])
        else:
            out.append(part[1])
    return tuple(out)
