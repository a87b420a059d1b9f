"""Shape speculation: ``unbroadcast(g, x)`` assumed to be the identity, with a check.

Binary elementwise rules end with ``unbroadcast(g, x)``.  Where ``broadcasts`` cannot
prove that ``g`` has ``x``'s shape (``x * w[3*b:]`` broadcasts if the slice has length
1, which only the run-time shapes tell), the call stays, and it ends the fused
elementwise chain that computes ``g``.  This pass assumes the shapes agree: it drops the
call and checks the assumption with ``same_shape(u, v)`` (raising ``ShapeSpeculation``)
on the arrays the two shapes come from::

    t = dy * w_3;  dx = unbroadcast(t, x)     ->   same_shape(x, w_3);  dx = dy * w_3

Likewise ``np.sum``'s rule spreads a number over its operand's shape, ``d = zeros_like(a)
+ s``, which ``broadcasts`` multiplies into ``b`` directly (``s * b``) only where it
proves that ``b`` has ``a``'s shape; here the shapes they come from are checked instead.

The shape of an elementwise result is the broadcast of its array operands' shapes, so
``g``'s and ``x``'s shapes are followed back through elementwise operations to their
*sources* (arrays that no elementwise operation makes: slices, copies, parameters); if
every source has one shape, ``g`` has ``x``'s.  The checks read only sources, which the
backend does not fuse, so the chains stay whole.  Each check sits right after the later
of its two arrays' definitions, before anything that relies on it; sources already
checked (or proved by ``broadcasts.shape_classes``) to share a shape need no new check.

``sstad.jit`` catches ``ShapeSpeculation``, compiles the function again without
speculation and reruns the call (docs/ad.md, "Shape speculation").  So the pass runs
only when the caller can rerun (``speculating()``), and only on modules that may run
twice: no effects other than checks, asserts and local lists, no writes into an
argument's memory, no calls between functions.  It runs in the backend phase only, so no transform differentiates a check.
"""
from sstad.ir import nodes as ir
from sstad.ir.alias import shared_memory, written_memory
from sstad.ir.clone import substitute
from sstad.passes import Switch, register_pass
from sstad.passes.broadcasts import shape_classes, shaped_like, spread_partner
from sstad.passes.loop_fusion import kept_rows
from sstad.runtime import abstract as A
from sstad.runtime.primitive import lookup

_ENABLED = Switch("sstad_shape_speculation", default=False)


def speculating(on=True):
    """Within it, the pass speculates: for a caller that reruns a call on ``ShapeSpeculation``."""
    return _ENABLED(on)


def rerunnable(module):
    """May a call of ``module`` run again after a failed check: no effects but checks,
    asserts and local lists, no write into memory an argument may share, no calls?"""
    for fn in module.functions:
        if any(isinstance(s, ir.Apply) and s.prim.effect and not s.prim.repeatable
               for s in ir.walk(fn.body)):
            return False
        arguments = shared_memory(fn.body, *(p for p in fn.body.params if isinstance(p.type, A.Array)))
        if any(isinstance(s, ir.Apply) and s.prim.mutates and s.args[0] in arguments for s in ir.walk(fn.body)) \
                or any(isinstance(s, ir.Call) for s in ir.walk(fn.body)):
            return False
    return True


def _may_have_unit_axes(stmt, a):
    """Is ``a``, made by ``stmt``, an array whose axes of length 1 are meant to broadcast
    (``x[:, None]``, ``reshape``, ``keepdims=True``)?  Speculating on it would fail."""
    first = stmt.args[0] if stmt.args else None
    return stmt.prim.name in ("reshape", "expand_dims") or stmt.params.get("keepdims") is True \
        or (isinstance(getattr(first, "type", None), A.Array) and a.type.ndim > first.type.ndim)


class _Speculation:
    def __init__(self, fn):
        self.changed = False
        self.defs = {o: s for s in ir.walk(fn.body) if isinstance(s, ir.Apply) for o in s.outs}
        self.classes = shape_classes(fn)
        self.written = written_memory(fn.body)
        self.mapping = {}       # unbroadcast result -> its first argument
        self.sources = {}
        self.kept = kept_rows(fn)

    def sources_of(self, a, ndim):
        """The arrays whose shapes broadcast to ``a``'s (None: not all of rank ``ndim``, or one
        may broadcast on purpose)."""
        if not isinstance(a, ir.Var) or not isinstance(a.type, A.Array):
            return () if isinstance(getattr(a, "type", None), A.Scalar) else None
        if (a, ndim) not in self.sources:
            stmt = self.defs.get(a)
            like = shaped_like(stmt) if stmt is not None else None
            if a.type.ndim != ndim:
                found = None
            elif stmt is not None and stmt.prim.ufunc and len(stmt.outs) == 1:
                parts = [self.sources_of(b, ndim) for b in stmt.args]
                found = None if None in parts else tuple(dict.fromkeys(v for p in parts for v in p))
            elif like is not None:                 # zeros_like(x), copy(x), unbroadcast(g, x): x's shape
                found = self.sources_of(like, ndim)
            elif stmt is not None and _may_have_unit_axes(stmt, a):
                found = None
            else:
                found = (a,)
            self.sources[a, ndim] = found
        return self.sources[a, ndim]

    def speculable(self, stmt):
        """(the sources that must share a shape, what to do then), or None."""
        if not isinstance(stmt, ir.Apply) or len(stmt.outs) != 1 or stmt.outs[0] in self.written:
            return None
        out = stmt.outs[0]
        if stmt.prim.name == "unbroadcast":
            g, x = stmt.args
            if not isinstance(out.type, A.Array) or g.type != out.type or g in self.written:
                return None
            return self._together([g, x], out.type.ndim, lambda: self.mapping.__setitem__(out, g))
        if out in self.kept and stmt.prim.ufunc:     # a run fills it into its row: one shape
            return self._together([out], out.type.ndim, lambda: setattr(self, "changed", True))
        if stmt.prim.name == "op.mul" and len(stmt.args) == 2:
            for k, f in enumerate(stmt.args):
                spread, b = self._spread_scalar(f), stmt.args[1 - k]
                if spread is not None and spread_partner(spread[0], b, out) and b.type.ndim == out.type.ndim:
                    s, z = spread
                    def multiply(stmt=stmt, s=s, b=b):      # (zeros_like(z) + s) * b -> s * b
                        stmt.args = [s, b]
                        self.changed = True
                    return self._together([z, b], out.type.ndim, multiply)
        return None

    def _together(self, arrays, ndim, then):
        found = [self.sources_of(a, ndim) for a in arrays]
        return None if None in found else (tuple(dict.fromkeys(v for f in found for v in f)), then)

    def _spread_scalar(self, f):
        """``(s, z)`` if ``f = zeros_like(z) + s`` with ``s`` a number (``np.sum``'s rule), else None."""
        add = self.defs.get(f)
        if add is None or add.prim.name != "op.add" or len(add.args) != 2:
            return None
        for z, s in (add.args, add.args[::-1]):
            zeros = self.defs.get(z)
            if zeros is not None and zeros.prim.name == "zeros_like" and shaped_like(zeros) is not None \
                    and isinstance(getattr(s, "type", None), A.Scalar):
                return s, shaped_like(zeros)
        return None

    def block(self, block, same):
        """Speculate in ``block``; ``same``: source -> representative of the sources known
        to share its shape here (a union-find, copied into nested blocks)."""
        position = {o: k for k, s in enumerate(block.stmts) for o in s.outs}
        checks = []                                 # (position to insert at, check)
        for k, stmt in enumerate(block.stmts):
            for region in ir.regions(stmt):
                self.block(region, dict(same))
            found = self.speculable(stmt)
            if not found or not found[0]:
                continue
            sources, then = found
            groups = {}
            for v in sources:
                groups.setdefault(self.find(same, v), v)
            first, *rest = sorted(groups.values(), key=lambda v: position.get(v, -1))
            for v in rest:
                at = max(position.get(first, -1), position.get(v, -1)) + 1
                loc = block.stmts[at - 1].loc if at else stmt.loc     # the line that made the later array
                checks.append((at, ir.Apply([ir.Var("same", A.Scalar(A.BOOL.dtype, weak=True))],
                                            lookup("same_shape"), [first, v], {}, loc)))
                same[self.find(same, v)] = self.find(same, first)   # distinct groups: no cycle
            then()
        for at, check in sorted(checks, key=lambda c: c[0], reverse=True):
            block.stmts.insert(at, check)

    def find(self, same, v):
        key = self.classes.get(v, v)
        while key in same:
            key = same[key]
        return key


@register_pass("shape_speculation", phases=("backend",))
def shape_speculation(module) -> bool:
    """Drop ``unbroadcast`` calls that ``broadcasts`` could not prove to be the identity,
    checking at run time that the shapes they come from agree."""
    if not _ENABLED.get() or not rerunnable(module):
        return False
    changed = False
    for fn in module.functions:
        speculation = _Speculation(fn)
        speculation.block(fn.body, {})
        if speculation.mapping:
            substitute(fn.body, speculation.mapping)
        changed |= bool(speculation.mapping) or speculation.changed
    return changed
