"""Writes through views: ``z = y[1:]; z[0] = 5.0`` writes into ``y``, as NumPy does.

A view (basic indexing, ``.T``, ``reshape``, ``transpose``, ...) remembers the statement
that made it (its *origin*: the view operation and its base).  A write through a view
becomes a write into its base: the view's new content is computed in a copy, then put
back where the view sits in the base (``y[1:] = content``; for a transpose, the
transposed content into the whole base).  Every write into an array re-derives the live
views of it from its new version, so no name keeps reading a stale value; reverse mode
needs nothing new, since only ordinary writes into the base remain.  A view chosen at an
``if`` or loop join has no single origin: writes through it are refused.
"""
from sstad.errors import AliasingError
from sstad.frontend.pytree import flatten, is_atom
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot


class ViewWrites:
    def view(self, out, base):
        """Remember that ``out`` is a view of ``base``, made by the last statement."""
        self.views.add(out)
        made = self.stmts[-1] if self.stmts else None
        if isinstance(made, ir.Apply) and made.outs and made.outs[0] is out and made.args and made.args[0] is base:
            self.view_origin[out] = made
        return out

    def after_write(self, old, new):
        """``old`` was written (its new version is ``new``): derive its live views again,
        and views of those views (``part = y[1][1:3]``, ``row = y[1]; part = row[1:3]``)."""
        self.newer.setdefault(old, []).append((self.stmts, new))
        live = {leaf for scope in self.scopes for v in scope.env.values()
                for leaf in ([v] if is_atom(v) else flatten(v)[1]) if leaf in self.view_origin}
        fresh = {}
        for view in live:
            made = self.derive_again(view, old, new, fresh)
            if made is not None:
                self.rebind(view, made)

    def as_read_now(self, atom):
        """``atom`` read before a write into its memory and used after it in the same block
        (``B * f(B)``, ``B[0] * f(B)`` where ``f`` writes ``B``): Python reads the written
        values, so the array's latest version, or the view made again from it."""
        if not isinstance(atom, ir.Var):
            return atom
        atom = self.current(atom)
        origin = self.view_origin.get(atom)
        if origin is None:
            return atom
        base = self.as_read_now(origin.args[0])
        if base is origin.args[0]:
            return atom
        made = self.remake(origin, base, atom.hint)
        self.newer.setdefault(atom, []).append((self.stmts, made))
        return made

    def remake(self, origin, base, hint):
        """The view that the statement ``origin`` made, made again from ``base``."""
        made = self.apply(origin.prim.name, [base] + list(origin.args[1:]), dict(origin.params), hint=hint)
        self.view(made, base)
        return made

    def written_from(self, new, old):
        """Is ``new`` ``old`` after writes in place (in any block)?"""
        todo, seen = [old], set()
        while todo:
            var = todo.pop()
            for _, later in self.newer.get(var, ()):
                if later is new:
                    return True
                if later not in seen:
                    seen.add(later)
                    todo.append(later)
        return False

    def join_writes(self, before, ends, after):
        """After an ``if`` or a loop: an array some path wrote in place (each path's value
        for its name is ``before``'s, written or not) is, in this block, the joined value
        (``B * f(B)`` where ``f`` writes ``B`` under an ``if``).  ``ends``: per path, the
        names' values where it starts and where it ends (two states)."""
        for key, old in before.items():
            new = after.get(key)
            if not isinstance(old, ir.Var) or not isinstance(new, ir.Var) or new is old:
                continue
            paths = [(end.get(key), start.get(key, old)) for start, end in ends]
            if any(self.written_from(v, s) for v, s in paths) and \
                    all(v is s or self.written_from(v, s) for v, s in paths):
                self.newer.setdefault(old, []).append((self.stmts, new))

    def derive_again(self, view, old, new, fresh):
        """``view`` made again from ``new`` if ``old`` is its base or its base's base, ...;
        else None.  ``fresh`` holds the views already made again (shared bases)."""
        if view in fresh:
            return fresh[view]
        origin = self.view_origin.get(view)
        if origin is None:
            return None
        base = origin.args[0]
        base = new if base is old else self.derive_again(base, old, new, fresh)
        if base is None:
            return None
        made = fresh[view] = self.remake(origin, base, view.hint)
        return made

    def unfollowable(self, array, what, hint):
        """``array`` may share memory with arrays sstad cannot name (an item of a run-time
        list): a write through it is refused, saying ``what`` it is and ``hint``."""
        self.views.add(array)
        self.unfollowed[array] = (what, hint)
        return array

    def before_write(self, args):
        """An array put into a run-time list is held there by reference, as in Python:
        remember its memory; a later in-place write into that memory would change the
        list's item too, which the dataflow cannot say, so it is refused."""
        target = args[0]
        if not self.lowering_user_code():
            return                       # a derivative's sweep owns its tapes and arrays
        if isinstance(target.type, A.ListOf):
            if len(args) > 1 and is_atom(args[1]) and isinstance(args[1].type, A.Array):
                self.listed.add(self.storage_of(args[1]))
            return
        if self.storage_of(target) in self.listed:
            raise self.error(AliasingError, f"writing in place into `{target.hint.strip('%')}` (or a view of it) "
                             "after it was put into a run-time list: the list holds the same memory, and sstad "
                             "cannot follow the write into the list's item",
                             hint="append a copy (`items.append(x.copy())`), or finish writing before "
                             "appending it")

    def held_by_list(self, value):
        """Does a run-time list hold the memory of an array in ``value``?"""
        return any(is_atom(leaf) and isinstance(leaf.type, A.Array) and self.storage_of(leaf) in self.listed
                   for leaf in ([value] if is_atom(value) else flatten(value)[1]))

    def lowering_user_code(self):
        """Is the user's function being lowered (not a derivative's sweep)?"""
        return bool(self.scopes) and hasattr(self.scopes[0], "function")

    def storage_of(self, array):
        """The array whose memory ``array`` (a view of a view of ...) shares."""
        origin = self.view_origin.get(array)
        return array if origin is None else self.storage_of(origin.args[0])

    def write_view(self, view, index, value, node):
        """``view[index] = value`` where ``view`` shares memory with a base array."""
        return self.write_through(view, lambda content: self.store_subscript(content, index, value, node), node)

    def write_into_view(self, prim_name, args, params, hint):
        """Any other in-place write into a view (``np.add.at(row, idx, v)``) goes through it
        into its base, as assignments do; the written content is returned."""
        view = args[0]
        if not (is_atom(view) and view in self.views and self.lowering_user_code()):
            return None
        return self.write_through(view, lambda content: self.apply(prim_name, [content] + list(args[1:]),
                                                                   dict(params), hint), None)

    def write_through(self, view, write, node):
        """``write(content)`` writes in place into a copy of ``view``'s elements, which then
        go back where the view sits in its base.  Returns the written content."""
        if view in self.unfollowed:
            what, hint = self.unfollowed[view]
            raise self.error(AliasingError, f"writing into {what}", node, hint)
        origin = self.view_origin.get(view)
        if origin is None:
            raise self.error(
                AliasingError, "writing into an array chosen by an `if` or a loop from arrays that share "
                "memory with others", node,
                "make it a copy first (`y = x[...].copy()`), or write into the original array in each branch")
        name = origin.prim.name
        if name == "broadcast_to":
            raise self.error(AliasingError, "writing into np.broadcast_to's result (NumPy makes it read-only)",
                             node, "make it a copy first")
        if name in ("reshape", "ravel") and not self.one_block(origin.args[0]):
            # NumPy's reshape of a view is a copy where the view's memory is not one block
            # (a transpose, a column slice, order='F'): whether the write reaches the
            # original array depends on strides sstad does not follow
            raise self.error(AliasingError, f"writing into the {name} of a view (NumPy copies it where the view's "
                             "elements are not contiguous, and the write then does not reach the original)", node,
                             "make it a copy first (`b = np.reshape(...).copy()`), or write into the original")
        content = self.copy_of(view, view.hint)
        write(content)
        content = self.current(content)
        base = origin.args[0]
        if name == "getitem":
            self.store_subscript(base, _index_of(origin), content, node)
        else:
            self.store_subscript(base, everything(base), self.undo_view(origin, content, node), node)
        return content

    def one_block(self, a):
        """Is ``a`` an array sstad made, or an item of one taken by integers (a row):
        memory NumPy reshapes without a copy?"""
        origin = self.view_origin.get(a)
        if origin is None:
            return True
        index = origin.params.get("index") if origin.prim.name == "getitem" else None
        return index is not None and all(isinstance(i, int) for i in index) and self.one_block(origin.args[0])

    def undo_view(self, origin, content, node):
        """``content`` laid out as the base of the view that ``origin`` made."""
        name, base = origin.prim.name, origin.args[0]
        pos, kw = origin.params.get("layout", ((), {}))
        given = dict(zip(("a", "p1", "p2"), pos))
        if name == "transpose":
            axes = given.get("p1", kw.get("axes"))
            if axes is None:
                return self.call_numpy("transpose", [content], {}, node)
            inverse = tuple(sorted(range(len(axes)), key=lambda k: axes[k] % len(axes)))
            return self.call_numpy("transpose", [content, _consts(inverse)], {}, node)
        if name == "swapaxes":
            return self.call_numpy("swapaxes", [content, _const(given["p1"]), _const(given["p2"])], {}, node)
        if name == "moveaxis":
            return self.call_numpy("moveaxis", [content, _consts(given["p2"]), _consts(given["p1"])], {}, node)
        if name in ("flip", "fliplr", "flipud"):
            return self.call_numpy(name, [content] + [_consts(p) for p in pos[1:]],
                                   {k: _consts(v) for k, v in kw.items()}, node)
        # reshape, ravel, squeeze, expand_dims, atleast_*: the same elements, the base's shape
        return self.call_numpy("reshape", [content, self.attribute(base, "shape", node)], {}, node)

    def current(self, var):
        """The latest version of ``var`` in this block, after the writes in place here (and
        in the ``if``s and loops here that wrote it)."""
        while True:
            later = next((new for block, new in self.newer.get(var, ()) if block is self.stmts), None)
            if later is None:
                return var
            var = later


def everything(array):
    """``[:, :, ...]``: the whole array, spelled as Numba can index it (it lowers no ``...``)."""
    return (slice(None),) * array.type.ndim


def _const(value):
    return value if is_atom(value) else ir.Const(value)


def _consts(value):
    return tuple(_consts(v) for v in value) if isinstance(value, tuple) else _const(value)


def _index_of(origin):
    """The index items a ``getitem`` statement applied (atoms in place of its slots)."""
    def item(i):
        if isinstance(i, Slot):
            return origin.args[i]
        if isinstance(i, slice):
            return slice(*(item(b) if b is not None else None for b in (i.start, i.stop, i.step)))
        if isinstance(i, int):
            return ir.Const(i)
        return i
    return tuple(item(i) for i in origin.params["index"])
