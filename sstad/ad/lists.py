"""Reverse mode through run-time lists (``[]`` + ``append``, comprehensions).

Every version of a list is one Python list that only grows, so its adjoint is one list
of element adjoints, indexed by position.  When a loop body is recomputed in the
backward sweep the list is already complete: its appends are skipped and its length is
*virtual*: the taped length at the iteration's start plus the appends so far
(``saved["virtual"]``: list -> (length atom, count)).
"""
from sstad.errors import UnsupportedSyntaxError
from sstad.ir import nodes as ir
from sstad.ir.clone import atom as mapped
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot, lookup, parameters


def float_list(a):
    t = getattr(a, "type", None)
    return isinstance(t, A.ListOf) and isinstance(t.elem, (A.Scalar, A.Array)) and t.elem.dtype.kind in "fc"


def list_roots(block, roots):
    """Map every version of a run-time list (appends, loop-carried, branch outputs) to the
    value that created it: all versions are one Python list, with one adjoint list."""
    for stmt in block.stmts:
        if isinstance(stmt, ir.Apply) and stmt.prim.mutates and isinstance(stmt.args[0].type, A.ListOf):
            roots[stmt.outs[0]] = roots.get(stmt.args[0], stmt.args[0])
        elif isinstance(stmt, (ir.For, ir.While)):
            params = ir.carried(stmt)
            for init, p, out in zip(stmt.inits, params, stmt.outs):
                if isinstance(p.type, A.ListOf):
                    roots[p] = roots[out] = roots.get(init, init)
        for region in ir.regions(stmt):
            list_roots(region, roots)
        if isinstance(stmt, ir.If):
            for k, out in enumerate(stmt.outs):
                if isinstance(out.type, A.ListOf):
                    result = stmt.then.results[k]
                    roots[out] = roots.get(result, result)
    return roots


LIST_READS = ("getitem", "builtin.sum", "array", "stack")   # what reverse mode reads lists with


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
        if name == "builtin.len" and lst in virtual:
            subst[stmt.outs[0]] = self.list_length(lst, saved)
            return True
        if name in LIST_READS:
            if lst in virtual and name != "getitem":
                raise UnsupportedSyntaxError("reverse mode: reading a whole list while a loop builds it",
                                             stmt.loc, "read it after the loop")
            saved[stmt] = self.list_length(lst, saved)
        return False

    def list_adjoint(self, var):
        root = self.roots.get(var, var)
        return self.adjoints.env.get(f"dlist#{root.id}") if isinstance(root, ir.Var) else None

    def list_adjoint_used(self, var, loop):
        """Can ``var``'s adjoint list hold a nonzero entry when the backward sweep reaches
        ``loop``?  Only if something after the loop read the list, or the loop reads it."""
        root = self.roots.get(var, var)
        return (isinstance(root, ir.Var) and root in self.read_lists) or any(
            isinstance(s, ir.Apply) and s.prim.name in LIST_READS and s.args and float_list(s.args[0])
            for s in ir.walk(loop.body))

    def put_list_adjoint(self, var, value):
        self.adjoints.env[f"dlist#{self.roots.get(var, var).id}"] = value

    def back_list_write(self, stmt, index_atoms):
        """``L[i] = v``: v's cotangent is dL[i], which the write then zeroes."""
        dl = self.list_adjoint(stmt.outs[0])
        if dl is None:
            return
        position = index_atoms[0]
        if self.active(stmt.args[1]):
            self.accumulate(stmt.args[1], self.L.apply("getitem", [dl, position], {"index": (Slot(1),)},
                                                        hint="d" + stmt.args[1].hint))
        zero = ir.Const(0.0, dl.type.elem) if isinstance(dl.type.elem, A.Scalar) else None
        if zero is None:
            raise UnsupportedSyntaxError("reverse mode through writes into a list of arrays is not supported",
                                         stmt.loc, "keep the values in a preallocated array")
        self.put_list_adjoint(stmt.outs[0], self.L.apply("setitem", [dl, zero, position], {"index": (Slot(2),)},
                                                         hint=dl.hint))

    def add_to_list_adjoint(self, lst, position, ct):
        """dL[position] += ct."""
        dl = self.list_adjoint(lst)
        if dl is None or ct is None:
            return
        self.read_lists.add(self.roots.get(lst, lst))
        current = self.L.apply("getitem", [dl, position], {"index": (Slot(1),)}, hint="d" + lst.hint)
        total = self.L.apply("op.add", [current, self.L.cast(self.L.atom(ct, None), current.type, self.L.stmts)],
                             hint="d" + lst.hint)
        self.put_list_adjoint(lst, self.L.apply("setitem", [dl, total, position], {"index": (Slot(2),)},
                                                hint=dl.hint))

    def create_list_adjoints(self, stmts, subst):
        """Zero adjoints for the float lists these statements create (complete by now)."""
        for stmt in stmts:
            if isinstance(stmt, ir.Apply) and stmt.prim.name == "list.new" and float_list(stmt.outs[0]):
                lst, elem = mapped(stmt.outs[0], subst), stmt.outs[0].type.elem
                dl = ir.Var("d" + lst.hint, A.ListOf(elem))
                self.L.stmts.append(ir.Apply([dl], lookup("list.new"), [], {}, stmt.loc))
                self.put_list_adjoint(stmt.outs[0], dl)
                n = self.L.apply("builtin.len", [lst], hint="n")

                def fill_zeros(k, root=stmt.outs[0], lst=lst, elem=elem):
                    item = self.L.apply("getitem", [lst, k], {"index": (Slot(1),)}, hint=lst.hint)
                    zero = self.zeros(ir.Var(lst.hint, elem), item)
                    self.put_list_adjoint(root, self.L.apply("list.append", [self.list_adjoint(root), zero],
                                                             hint=dl.hint))
                self.L.loop(fill_zeros, bounds=(ir.Const(0), n, ir.Const(1)), index_hint="k")

    def back_list_read(self, stmt, subst, saved, dout):
        """getitem / sum / np.array / np.stack of a float list."""
        lst, n = stmt.args[0], saved[stmt]
        if stmt.prim.name == "getitem":
            (item,) = stmt.params["index"]
            index = mapped(stmt.args[item], subst) if isinstance(item, Slot) else ir.Const(item)
            position = self.L.apply("op.mod", [index, n], hint="i")      # negative indices too
            return self.add_to_list_adjoint(lst, position, dout)

        axis = stacking_axis(stmt, dout)

        def each(k):
            ct = dout if stmt.prim.name == "builtin.sum" else self.L.apply(
                "getitem", [dout, k], {"index": (slice(None),) * axis + (Slot(1),)}, hint="d" + lst.hint)
            self.add_to_list_adjoint(lst, k, ct)
        self.L.loop(each, bounds=(ir.Const(0), n, ir.Const(1)), index_hint="k")


def stacking_axis(stmt, dout):
    """The axis along which ``np.stack`` (or ``np.array``: 0) laid out the list's items."""
    layout = stmt.params.get("layout")
    if stmt.prim.name != "stack" or layout is None:
        return 0
    axis = dict(parameters(stmt.prim.signature, *layout)).get("axis", 0)
    if not isinstance(axis, int) or isinstance(axis, Slot):
        raise UnsupportedSyntaxError("np.stack needs a constant axis", stmt.loc)
    return axis % dout.type.ndim
