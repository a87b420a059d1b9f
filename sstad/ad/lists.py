"""Run-time lists (``[]`` + ``append``, comprehensions, ``L[i] = v``) in both modes.

Every version of a list is one Python list, so its adjoint is one list of element
adjoints, indexed by position; a write ``L[i] = v`` hands ``dL[i]`` to ``v`` and zeroes it.
When a loop body is recomputed in the backward sweep the list is already complete: its
appends are skipped and its length is *virtual*: the taped length at the iteration's
start plus the appends so far (``saved["virtual"]``: list -> (length atom, count)).  A
loop that writes into a list tapes its items instead, at the start of every iteration,
and the backward sweep recomputes each iteration on a list rebuilt from that tape.

A loop that replaces its list by one its body makes (``kept = fresh``) holds another
list every iteration: it tapes a copy of each iteration's list, and the backward loop
carries the adjoint list of the list an iteration made to the iteration before, where it
is the adjoint of the list that iteration started from (``replaced``).

``L.pop()`` is ``L[-1]`` then ``list.pop``.  A list that is popped anywhere reuses
positions, so an append's reverse takes ``dL[i]`` and zeroes it, ``dL`` grows on demand
(it starts at the final length, which pops made shorter), and a loop that carries such a
list tapes a copy of it every iteration (the final list no longer holds what was popped).
"""
from sstad.errors import SstadError, UnsupportedSyntaxError
from sstad.ir import nodes as ir
from sstad.ir.clone import atom as mapped, clone_stmt
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot, lookup, parameters


def float_list(a):
    t = getattr(a, "type", None)
    return isinstance(t, A.ListOf) and isinstance(t.elem, (A.Scalar, A.Array)) and A.is_inexact(t.elem.dtype)


def list_roots(block, roots):
    """Map every version of a run-time list (appends, loop-carried, branch outputs) to the
    value that created it: all versions are one Python list, with one adjoint list.  A
    list an ``if`` chooses among lists its branches create is a root of its own (the
    branches' lists map to it), so its adjoint exists before the backward sweep reaches
    the branches."""
    merges = []
    _collect_roots(block, roots, merges)
    for out, inner in merges:
        for r in inner:
            roots[r] = out
    for v in list(roots):
        roots[v] = _root_of(roots, v)
    return roots


def _collect_roots(block, roots, merges):
    for stmt in block.stmts:
        if isinstance(stmt, ir.Apply) and stmt.prim.mutates and isinstance(stmt.args[0].type, A.ListOf):
            roots[stmt.outs[0]] = roots.get(stmt.args[0], stmt.args[0])
        elif isinstance(stmt, (ir.For, ir.While)):
            for p in ir.carried(stmt):
                if isinstance(p.type, A.ListOf):
                    roots[p] = p         # until the body's versions of it are known
        for region in ir.regions(stmt):
            _collect_roots(region, roots, merges)
        if isinstance(stmt, (ir.For, ir.While)):
            _loop_roots(stmt, roots)
        if isinstance(stmt, ir.If):
            for k, out in enumerate(stmt.outs):
                if isinstance(out.type, A.ListOf):
                    _branch_root(stmt, out, [roots.get(r, r) for r in (stmt.then.results[k], stmt.orelse.results[k])],
                                 roots, merges)


def _loop_roots(loop, roots):
    """A carried list the body appends to is one list with its initial value and the
    loop's result.  One the body replaces by a list it makes is a list of its own each
    iteration: the parameter and the result are roots (see ``replaced``)."""
    for init, p, out, result in zip(loop.inits, ir.carried(loop), loop.outs, loop.body.results):
        if not isinstance(p.type, A.ListOf):
            continue
        if _root_of(roots, result) is p:
            roots[p] = roots[out] = roots.get(init, init)
        else:
            roots[out] = out


def _root_of(roots, v):
    while v in roots and roots[v] is not v:
        v = roots[v]
    return v


def _branch_root(stmt, out, chosen, roots, merges):
    created = {s.outs[0] for s in ir.walk(stmt.then) if isinstance(s, ir.Apply) and s.prim.name == "list.new"}
    created |= {s.outs[0] for s in ir.walk(stmt.orelse) if isinstance(s, ir.Apply) and s.prim.name == "list.new"}
    lists = [r for r in chosen if isinstance(r, ir.Var)]
    inner = [r for r in lists if r in created]
    if not inner:
        roots[out] = lists[0] if lists else chosen[0]
        return
    if len(inner) != len(lists):
        raise UnsupportedSyntaxError("a run-time list chosen by an `if` between a list made before it and one "
                                     "made in a branch is not supported", stmt.loc,
                                     "make the list before the `if` and append to it in the branches")
    roots[out] = out
    merges.append((out, inner))


def list_ops(block, root, roots, name):
    """The applications of ``name`` (``setitem``, ``list.append``) to versions of the list
    ``root`` in ``block`` and its nested regions."""
    return [s for s in ir.walk(block) if isinstance(s, ir.Apply) and s.prim.name == name and s.args
            and isinstance(s.args[0].type, A.ListOf) and roots.get(s.args[0], s.args[0]) is root]


def write_position(lowerer, stmt, index, length):
    """The position ``L[index] = v`` writes, in ``[0, length)`` (negative indices count from
    the end); a slice is refused at the user's line."""
    (item,) = stmt.params["index"]
    if isinstance(item, Slot):
        index = index[0]
    elif isinstance(item, int):
        index = ir.Const(item)
    else:
        raise UnsupportedSyntaxError("derivatives through a slice assignment into a list are not supported",
                                     stmt.loc, "write one item at a time: `L[i] = v`")
    return lowerer.apply("op.mod", [index, length], hint="i")


class ListAdjoints:
    """The list part of :class:`sstad.ad.reverse.ReverseMode`."""

    def list_length(self, lst, saved):
        virtual = saved.setdefault("virtual", {})
        if lst in virtual:
            base, count = virtual[lst]
            return base if count == 0 else self.L.apply("op.add", [base, ir.Const(count)], hint="n")
        return self.L.apply("builtin.len", [lst], hint="n")

    def virtual_length(self, state, stmts):
        """The atom base + count, computed at the end of ``stmts``."""
        base, count = state
        if count == 0:
            return base
        saved, self.L.stmts = self.L.stmts, stmts
        try:
            return self.L.apply("op.add", [base, ir.Const(count)], hint="n")
        finally:
            self.L.stmts = saved

    def forward_list(self, stmt, subst, saved):
        """Lists in the forward sweep; True if the statement was handled here."""
        if not isinstance(stmt, ir.Apply) or not stmt.args or not float_list(stmt.args[0]):
            return False
        name, lst = stmt.prim.name, mapped(stmt.args[0], subst)
        virtual = saved.setdefault("virtual", {})
        if name == "list.append":
            saved[stmt] = self.list_length(lst, saved)
            if lst in virtual:
                base, count = virtual[lst]
                virtual[lst] = (base, count + 1)
                subst[stmt.outs[0]] = lst
                return True
            return False
        if name == "setitem":
            saved["position", stmt] = write_position(self.L, stmt, [mapped(a, subst) for a in stmt.args[2:]],
                                                     self.list_length(lst, saved))
            return False
        if name == "list.pop" and lst in virtual:
            raise SstadError("internal: a popped list with a virtual length", stmt.loc)
        if name == "builtin.len" and lst in virtual:
            subst[stmt.outs[0]] = self.list_length(lst, saved)
            return True
        if stmt.prim.reads_list:
            if lst in virtual and name != "getitem":
                raise UnsupportedSyntaxError("reverse mode: reading a whole list while a loop builds it",
                                             stmt.loc, "read it after the loop")
            saved[stmt] = self.list_length(lst, saved)
            items = stmt.params["index"] if name == "getitem" else ()
            item = items[0] if len(items) == 1 else None
            if lst in virtual and isinstance(item, int):
                # the complete list: an index from the end counts from the virtual length
                index = mapped(stmt.args[item], subst) if isinstance(item, Slot) else ir.Const(item)
                position = self.L.apply("op.mod", [index, saved[stmt]], hint="i")
                subst[stmt.outs[0]] = self.L.apply("getitem", [lst, position], {"index": (Slot(1),)},
                                                   hint=stmt.outs[0].hint)
                return True
        return False

    def list_adjoint(self, var):
        root = self.roots.get(var, var)
        return self.adjoints.env.get(f"dlist#{root.id}") if isinstance(root, ir.Var) else None

    def list_adjoint_used(self, var, loop):
        """Can ``var``'s adjoint list hold a nonzero entry when the backward sweep reaches
        ``loop``?  Only if something after the loop read the list, or the loop reads it."""
        root = self.roots.get(var, var)
        return (isinstance(root, ir.Var) and root in self.read_lists) or any(
            isinstance(s, ir.Apply) and s.prim.reads_list and s.args and float_list(s.args[0])
            for s in ir.walk(loop.body))

    def put_list_adjoint(self, var, value):
        self.adjoints.env[f"dlist#{self.roots.get(var, var).id}"] = value

    def back_list_write(self, stmt, saved):
        """``L[i] = v``: v's cotangent is dL[i], which the write then zeroes (the item it
        overwrote, ``saved[stmt]``, no longer reaches the result through the list)."""
        dl = self.list_adjoint(stmt.outs[0])
        if dl is None:
            return
        position = saved["position", stmt]
        if self.popped(stmt.outs[0]):
            dl = self.grow_list_adjoint(stmt.outs[0], position, saved[stmt])
        if self.active(stmt.args[1]):
            self.accumulate(stmt.args[1], self.L.apply("getitem", [dl, position], {"index": (Slot(1),)},
                                                        hint="d" + stmt.args[1].hint))
        elem = dl.type.elem
        zero = ir.Const(0.0, elem) if isinstance(elem, A.Scalar) else self.L.zeros_like(saved[stmt], dl.hint)
        self.put_list_adjoint(stmt.outs[0], self.L.apply("setitem", [dl, zero, position], {"index": (Slot(2),)},
                                                         hint=dl.hint))

    def back_list_append(self, stmt, subst, saved):
        """``L.append(v)``: v's cotangent is dL at the position it took.  If the list is
        popped somewhere, that position may be taken again by an earlier append: hand it
        over and zero it."""
        out = stmt.outs[0]
        dl = self.list_adjoint(out)
        if dl is None:
            return
        position, value = saved[stmt], mapped(stmt.args[1], subst)
        if self.popped(out):
            dl = self.grow_list_adjoint(out, position, value)
        if self.active(stmt.args[1]):
            self.accumulate(stmt.args[1], self.L.apply("getitem", [dl, position], {"index": (Slot(1),)},
                                                       hint="d" + out.hint))
        if self.popped(out):
            zero = self.zeros(ir.Var(out.hint, dl.type.elem), value)
            self.put_list_adjoint(out, self.L.apply("setitem", [dl, zero, position], {"index": (Slot(2),)},
                                                    hint=dl.hint))

    def grow_list_adjoint(self, lst, position, like):
        """dL with zeros (shaped like ``like``) appended up to ``position``: a popped list's
        adjoint starts at the final length, shorter than it was."""
        elem = self.list_adjoint(lst).type.elem
        zero = self.zeros(ir.Var(lst.hint, elem), like)
        stop = self.L.apply("op.add", [position, ir.Const(1)], hint="n")

        def pad(k):
            self.put_list_adjoint(lst, self.L.apply("list.append", [self.list_adjoint(lst), zero],
                                                    hint="d" + lst.hint))
        start = self.L.apply("builtin.len", [self.list_adjoint(lst)], hint="n")
        self.L.loop(pad, bounds=(start, stop, ir.Const(1)), index_hint="k")
        return self.list_adjoint(lst)

    # --- loops that write into a list: the list's items are taped every iteration --------
    def list_written(self, loop, param):
        """Does ``loop`` write into the list ``param`` (one of its carried values)?"""
        root = self.roots.get(param, param)
        if not list_ops(loop.body, root, self.roots, "setitem"):
            return False
        if list_ops(loop.body, root, self.roots, "list.append"):
            raise UnsupportedSyntaxError(
                "reverse mode through a loop that both appends to a list and writes into it is not supported",
                loop.loc, "build the list in one loop, then update its items in another")
        return True

    def list_tape_type(self, loop, param):
        """A loop's tape of the carried list ``param``: its items (if the loop writes into
        it), else its lengths."""
        if self.popped(param) or self.replaced(param):
            return A.ListOf(param.type)
        return A.ListOf(param.type.elem if self.list_written(loop, param) else A.I64)

    def popped(self, var):
        """Is the list ``var`` (any version of it) popped anywhere in the function?"""
        if getattr(self, "_popped_of", None) is not self.defs:
            self._popped_of = self.defs
            self._popped = {self.roots.get(s.args[0], s.args[0]) for s in self.defs.values()
                            if s.prim.name == "list.pop"}
        return self.roots.get(var, var) in self._popped

    def replaced(self, param):
        """Does the loop replace its carried list ``param`` by a list its body makes?  Then
        each iteration's list is another Python list: the loop tapes a copy of it at every
        iteration's start, and the backward loop carries the adjoint list of the one the
        body made to the iteration before, where it is the adjoint of ``param``."""
        return isinstance(param.type, A.ListOf) and self.roots.get(param) is param

    def push_list(self, loop, param, lst, tape):
        """At an iteration's start: push ``lst`` (the carried ``param``) on its tape."""
        if self.popped(param) or self.replaced(param):
            return self.L.apply("list.append", [tape, self.L.apply("list.copy", [lst], hint=lst.hint)],
                                hint=tape.hint)
        if not self.list_written(loop, param):
            return self.L.apply("list.append", [tape, self.L.apply("builtin.len", [lst], hint="n")], hint=tape.hint)
        key = f"%tape#{tape.id}"
        self.adjoints.env[key] = tape

        def push(k):
            item = self.L.apply("getitem", [lst, k], {"index": (Slot(1),)}, hint=lst.hint)
            self.adjoints.env[key] = self.L.apply("list.append", [self.adjoints.env[key], item], hint=tape.hint)
        # (an index name of its own: this loop is built inside a loop body the builder does
        # not see, so it must not carry what loops at the same site carried)
        self.L.loop(push, bounds=(ir.Const(0), self.L.apply("builtin.len", [lst], hint="n"), ir.Const(1)),
                    index_hint="m")
        return self.adjoints.env.pop(key)

    def list_at_iteration(self, loop, param, final, tape, j, trips, local):
        """The carried list ``param`` as the backward sweep's recomputation of iteration
        ``j`` sees it.  A loop that writes into it: a list rebuilt from the items taped at
        that iteration's start.  A loop that only appends: the complete list ``final``
        with a virtual length (its appends are skipped), or, where an inner loop appends
        (inner loops are recomputed as they ran), its first ``tape[j]`` items as a list."""
        root = self.roots.get(param, param)
        if self.popped(param) or self.replaced(param):   # the copy taped at that iteration's start (used once)
            return self.L.apply("getitem", [tape, j], {"index": (Slot(1),)}, hint=param.hint)
        if self.list_written(loop, param):
            size = self.L.apply("op.floordiv", [self.L.apply("builtin.len", [tape], hint="n"), trips], hint="n")
            return self.rebuilt_list(loop, param, tape, self.L.apply("op.mul", [j, size], hint="start"), size)
        length = self.L.apply("getitem", [tape, j], {"index": (Slot(1),)}, hint="n")
        if any(isinstance(s, (ir.For, ir.While)) and list_ops(s.body, root, self.roots, "list.append")
               for s in ir.walk(loop.body)):
            return self.rebuilt_list(loop, param, final, ir.Const(0), length)
        local["virtual"][final] = (length, 0)
        return final

    # --- loops that replace a carried list: its adjoint list is carried backwards ------
    def replaced_lists(self, loop):
        """``(param, init, out)`` for the float lists ``loop`` replaces each iteration."""
        return [(p, init, out) for p, init, out in zip(ir.carried(loop), loop.inits, loop.outs)
                if self.replaced(p) and float_list(p)]

    def save_replaced_lengths(self, loop, subst, saved):
        """Before the forward loop: the length of each list it will replace (what the loop
        took from it; the list may grow later)."""
        made = {o for s in ir.walk(loop.body) for o in s.outs}
        for p, init, _ in self.replaced_lists(loop):
            result = loop.body.results[ir.carried(loop).index(p)]
            if self.roots.get(result, result) not in made:
                raise UnsupportedSyntaxError(
                    f"reverse mode through a loop that replaces the list `{p.hint}` by a list it did not make in "
                    "the same iteration is not supported", loop.loc,
                    "build the new list in the loop (append the items to an empty list)")
            saved["length", loop, p] = self.L.apply("builtin.len", [mapped(init, subst)], hint="n")

    def start_replaced_lists(self, loop):
        """Before the backward loop: the adjoint of the list the last iteration made is the
        adjoint of the loop's result."""
        for p, _, out in self.replaced_lists(loop):
            self.put_list_adjoint(p, self.list_adjoint(out))

    def seed_replaced_lists(self, loop, sub, j):
        """In the backward loop (iteration ``j``), once the body is recomputed: the list the
        body made gets the carried adjoint list, the carried list a zero one.  Iteration 0's
        list is the initial list itself: if the body appends to it, pops or writes it, what
        read the initial list after the loop read that list as the body left it, so its
        adjoint starts from the initial list's."""
        for p, init, _ in self.replaced_lists(loop):
            result = loop.body.results[ir.carried(loop).index(p)]
            made = self.roots.get(result, result)
            self.list_seeds[made] = self.list_adjoint(p)
            key = f"dlist#{p.id}"
            complete = mapped(final_version(loop.body.stmts, p, self.roots), sub)

            def zeros(p=p, key=key, complete=complete):
                self.adjoints.env[key] = self.zero_list_adjoint(p, complete, loop.loc)
            if not self.mutated(loop, p):
                zeros()
                continue
            dinit = self.list_adjoint(init)
            self.L.branch(self.L.apply("op.eq", [j, ir.Const(0)], hint="first"),
                          lambda key=key, dinit=dinit: self.adjoints.env.__setitem__(key, dinit), zeros)

    def mutated(self, loop, p):
        """Does ``loop``'s body append to, pop or write into its carried list ``p``?"""
        return any(isinstance(s, ir.Apply) and s.prim.mutates and s.args and self.roots.get(s.args[0]) is p
                   for s in ir.walk(loop.body))

    def finish_replaced_lists(self, loop, saved, trips):
        """After the backward loop: the adjoint of the first iteration's list goes to the
        loop's initial list, item by item over what that list held before the loop; all of
        it if the body changed that list (see seed_replaced_lists) and the loop ran."""
        for p, init, _ in self.replaced_lists(loop):
            dl = self.adjoints.env.pop(f"dlist#{p.id}")
            if isinstance(init, ir.Undef):   # a list first made in the body: nothing before it
                continue

            def add(init=init, dl=dl, n=saved["length", loop, p]):
                def each(k):
                    self.add_to_list_adjoint(init, k, self.L.apply("getitem", [dl, k], {"index": (Slot(1),)},
                                                                   hint="d" + init.hint))
                self.L.loop(each, bounds=(ir.Const(0), n, ir.Const(1)), index_hint="k")
            if not self.mutated(loop, p):
                add()
                continue
            self.L.branch(self.L.apply("op.gt", [trips, ir.Const(0)], hint="ran"),
                          lambda init=init, dl=dl: self.put_list_adjoint(init, dl), add)

    def rebuilt_list(self, loop, param, source, start, size):
        """A new list of ``source[start:start + size]``."""
        rebuilt = ir.Var(param.hint, A.ListOf(param.type.elem))
        self.L.stmts.append(ir.Apply([rebuilt], lookup("list.new"), [], {}, loop.loc))
        key = f"%rebuilt#{rebuilt.id}"
        self.adjoints.env[key] = rebuilt

        def take(k):
            at = self.L.apply("op.add", [start, k], hint="k")
            item = self.L.apply("getitem", [source, at], {"index": (Slot(1),)}, hint=param.hint)
            self.adjoints.env[key] = self.L.apply("list.append", [self.adjoints.env[key], item], hint=param.hint)
        self.L.loop(take, bounds=(ir.Const(0), size, ir.Const(1)), index_hint="k")
        return self.adjoints.env.pop(key)

    def add_to_list_adjoint(self, lst, position, ct):
        """dL[position] += ct."""
        dl = self.list_adjoint(lst)
        if dl is None or ct is None:
            return
        self.read_lists.add(self.roots.get(lst, lst))
        if self.popped(lst):
            dl = self.grow_list_adjoint(lst, position, self.L.atom(ct, None))
        current = self.L.apply("getitem", [dl, position], {"index": (Slot(1),)}, hint="d" + lst.hint)
        total = self.L.apply("op.add", [current, self.L.cast(self.L.atom(ct, None), current.type, self.L.stmts)],
                             hint="d" + lst.hint)
        self.put_list_adjoint(lst, self.L.apply("setitem", [dl, total, position], {"index": (Slot(2),)},
                                                hint=dl.hint))

    def create_list_adjoints(self, stmts, subst):
        """Zero adjoints for the float lists these statements create (complete by now)."""
        for stmt in stmts:
            made = []
            if isinstance(stmt, ir.Apply) and stmt.prim.name == "list.new":
                made = stmt.outs
            elif isinstance(stmt, (ir.If, ir.For, ir.While)):   # see list_roots
                made = [o for o in stmt.outs if isinstance(o.type, A.ListOf)]
            for root in made:
                if not float_list(root) or self.roots.get(root, root) is not root:
                    continue
                seed = self.list_seeds.pop(root, None)       # see seed_replaced_lists
                # the complete list: its last version here (an earlier one would let the
                # appends after it go as unread)
                lst = mapped(final_version(stmts, root, self.roots), subst)
                self.put_list_adjoint(root, seed if seed is not None else self.zero_list_adjoint(root, lst, stmt.loc))

    def zero_list_adjoint(self, root, lst, loc):
        """A new adjoint list for ``lst``: a zero for each of its items."""
        elem = root.type.elem
        dl = ir.Var("d" + lst.hint, A.ListOf(elem))
        self.L.stmts.append(ir.Apply([dl], lookup("list.new"), [], {}, loc))
        key = f"%zeros#{dl.id}"
        self.adjoints.env[key] = dl
        n = self.L.apply("builtin.len", [lst], hint="n")

        def fill_zeros(k):
            item = self.L.apply("getitem", [lst, k], {"index": (Slot(1),)}, hint=lst.hint)
            zero = self.zeros(ir.Var(lst.hint, elem), item)
            self.adjoints.env[key] = self.L.apply("list.append", [self.adjoints.env[key], zero], hint=dl.hint)
        self.L.loop(fill_zeros, bounds=(ir.Const(0), n, ir.Const(1)), index_hint="k")
        return self.adjoints.env.pop(key)

    def back_list_read(self, stmt, subst, saved, dout):
        """getitem / sum / np.array / np.stack of a float list."""
        lst, n = stmt.args[0], saved[stmt]
        if stmt.prim.name == "getitem":
            (item,) = stmt.params["index"]
            index = mapped(stmt.args[item], subst) if isinstance(item, Slot) else ir.Const(item)
            position = self.L.apply("op.mod", [index, n], hint="i")      # negative indices too
            return self.add_to_list_adjoint(lst, position, dout)

        if stmt.prim.name == "concatenate":
            return self.back_concatenated_list(stmt, subst, lst, n, dout)
        rank = getattr(lst.type.elem, "ndim", 0)
        if stmt.prim.name == "vstack" and rank > 1:
            raise UnsupportedSyntaxError("reverse mode through np.vstack of a run-time list of arrays of rank "
                                         f"{rank} is not supported", stmt.loc,
                                         "use np.concatenate of a tuple, or np.stack")
        axis = stacking_axis(stmt, dout)
        column = (0,) if stmt.prim.name == "vstack" and rank == 0 else ()     # numbers: rows of one

        def each(k):
            ct = dout if stmt.prim.name == "builtin.sum" else self.L.apply(
                "getitem", [dout, k], {"index": (slice(None),) * axis + (Slot(1),) + column}, hint="d" + lst.hint)
            self.add_to_list_adjoint(lst, k, ct)
        self.L.loop(each, bounds=(ir.Const(0), n, ir.Const(1)), index_hint="k")

    def back_concatenated_list(self, stmt, subst, lst, n, dout):
        """``np.concatenate(L, axis)``: item k's cotangent is dout's piece from the end of
        item k - 1's along the axis, as long as item k is there."""
        axis = dict(parameters(stmt.prim.signature, *stmt.params["layout"])).get("axis", 0)
        if axis is None or isinstance(axis, Slot):
            raise UnsupportedSyntaxError("reverse mode through np.concatenate of a list built at run time needs "
                                         "a constant axis", stmt.loc, "write axis=0 (or another constant), or "
                                         "np.ravel each item first")
        axis %= dout.type.ndim
        items, key = mapped(lst, subst), f"offset#{id(stmt)}"
        self.adjoints.env[key] = ir.Const(0)

        def each(k):
            item = self.L.apply("getitem", [items, k], {"index": (Slot(1),)}, hint=lst.hint)
            start = self.adjoints.env[key]
            stop = self.L.binop("add", start, self.L.attribute(item, "shape", None)[axis], None)
            self.add_to_list_adjoint(lst, k, self.L.subscript(dout, (slice(None),) * axis + (slice(start, stop),),
                                                              None))
            self.adjoints.env[key] = stop
        self.L.loop(each, bounds=(ir.Const(0), n, ir.Const(1)), index_hint="k")
        self.adjoints.env.pop(key)


def final_version(stmts, root, roots):
    """The last version of the list ``root`` these statements make (``root`` if none)."""
    last = root
    for stmt in stmts:
        for o in stmt.outs:
            if isinstance(o.type, A.ListOf) and roots.get(o, o) is root:
                last = o
    return last


def stacking_axis(stmt, dout):
    """The axis along which ``np.stack`` (or ``np.array``: 0) laid out the list's items."""
    layout = stmt.params.get("layout")
    if stmt.prim.name != "stack" or layout is None:
        return 0
    axis = dict(parameters(stmt.prim.signature, *layout)).get("axis", 0)
    if not isinstance(axis, int) or isinstance(axis, Slot):
        raise UnsupportedSyntaxError("np.stack needs a constant axis", stmt.loc)
    return axis % dout.type.ndim


def forward_list_write(fm, stmt, subst, args, tans):
    """``L[i] = v`` in forward mode (``fm``, a ForwardMode): the same write into L's tangent
    list, of v's tangent (zero if v is inactive)."""
    fm.L.stmts.append(clone_stmt(stmt, subst))
    out = stmt.outs[0]
    if not fm.active(out):
        return
    dl = fm.tan.get(stmt.args[0])
    if dl is None:
        raise SstadError("internal: an active list without a tangent list", stmt.loc)
    value = tans[1] if tans[1] is not None else fm.zeros(stmt.args[1], args[1])
    value = fm.L.cast(fm.L.atom(value, None), dl.type.elem, fm.L.stmts)
    fm.tan[out] = fm.L.apply("setitem", [dl, value] + args[2:], dict(stmt.params), hint=dl.hint)
