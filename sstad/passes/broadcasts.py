"""Broadcast simplification: derivative code broadcasts scalars to full arrays and sums
them back.  ``np.sum``'s rule hands on ``zeros_like(a) + dout``, an array of one value,
and binary rules end with ``unbroadcast(g, x)``.  Where shapes are known to agree, the
scalar is used directly and ``unbroadcast`` is the identity:

    d = zeros_like(a) + s;  t = d * b      ->   t = s * b          (b shaped like a)
    d = zeros_like(a) + s;  t = b + d      ->   t = b + s          (likewise - and with d first)
    d = zeros_like(a) + e;  t = d * b      ->   t = e * b          (e an array, e.g. dout[:, None])
    unbroadcast(g, x)                      ->   g                  (g shaped like x)

Shapes are compared symbolically: elementwise operations keep the shape of their array
operands when those agree, ``*_like(x)`` and ``unbroadcast(g, x)`` have x's shape.  A
reduction's axis put back (``expand_dims(g, 1)`` or ``g[:, None]`` of a ``g`` shaped like
``sum(a, axis=1)``, or ``sum(a, axis=1, keepdims=True)``) broadcasts into a's shape, so
``expand_dims(dout, 1) * a`` has a's shape: a reduction's cotangent spread over its
operand needs no ``unbroadcast``.
"""
import itertools

from sstad.ir import nodes as ir
from sstad.ir.alias import written_memory
from sstad.ir.clone import substitute
from sstad.passes import register_pass
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot, lookup

_ids = itertools.count()


def _is_array(a):
    return isinstance(getattr(a, "type", None), A.Array)


def spread_partner(s, b, out):
    """Can ``b`` take ``s`` directly in place of ``s`` spread over an array of ``b``'s shape
    (``b * (zeros_like(z) + s)`` -> ``b * s``), the shapes being equal: ``b`` an array of the
    result's dtype, and ``s`` of that dtype too, or a weak Python number."""
    return _is_array(b) and b.type.dtype == out.type.dtype \
        and (getattr(s.type, "weak", False) or s.type.dtype == out.type.dtype)


def shape_classes(fn):
    """Var -> a shape class: two Vars with one class have the same shape at run time.

    In-place writes keep their array's shape; a loop's carried array keeps its initial
    value's class when every iteration's result has it too (checked, else the parameter
    is given a class of its own and the walk repeats); a branch's output has its two
    results' class when they agree."""
    mixed = set()
    while True:
        shape, failed = {}, set()
        _classify(fn.body, shape, _Spread(), mixed, failed)
        if not failed:
            return shape
        mixed |= failed


class _Spread:
    """What the walk learns about arrays that broadcast into a shape class.

    ``into[V] = C``: arrays of class V have C's rank and each of their axes is C's or 1,
    so an elementwise operation of one with an array of class C has class C.  ``reduced[R] = (C, axes)``:
    arrays of class R have C's shape without ``axes`` (a reduction of a C-array)."""

    def __init__(self):
        self.into, self.reduced = {}, {}


def _axes(axis, ndim):
    """A literal ``axis`` (int, tuple of ints or None: every axis) as sorted axes in
    ``range(ndim)``; None if it is not a literal."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(type(a) is int for a in axes) or not all(-ndim <= a < ndim for a in axes):
        return None
    return tuple(sorted({a % ndim for a in axes}))


def _new_axes(stmt):
    """The axes ``stmt`` inserts into its first argument (``expand_dims(g, 1)``,
    ``g[:, None]``), or None if it does something else or they are not literals."""
    if not stmt.args or not _is_array(stmt.args[0]):
        return None
    g, out = stmt.args[0], stmt.outs[0]
    if stmt.prim.name == "expand_dims":
        layout = stmt.params.get("layout")
        if layout is None:
            return None
        positional, keywords = layout
        axis = keywords.get("axis", positional[1] if len(positional) > 1 else None)
        return None if axis is None or isinstance(axis, Slot) else _axes(axis, out.type.ndim)
    if stmt.prim.name == "getitem":
        index = stmt.params.get("index", ())
        whole = slice(None, None, None)
        if all(i is None or i == whole for i in index) and sum(i == whole for i in index) == g.type.ndim:
            return tuple(k for k, i in enumerate(index) if i is None)
    return None


def _spread(stmt, of, spread):
    """Record what ``stmt`` (one array result, not elementwise) tells about broadcasting
    into a class: a reduction's result class, or an axis put back."""
    out = stmt.outs[0]
    if stmt.prim.reduction and stmt.args and _is_array(stmt.args[0]):
        a = stmt.args[0]
        axes = _axes(stmt.params.get("axis"), a.type.ndim)
        if axes is None:
            return
        if stmt.params.get("keepdims"):
            spread.into[of(out)] = of(a)
        elif out.type.ndim == a.type.ndim - len(axes):
            spread.reduced[of(out)] = (of(a), axes)
        return
    axes = _new_axes(stmt)
    if axes is not None:
        base, removed = spread.reduced.get(of(stmt.args[0]), (None, None))
        if removed == axes and stmt.args[0].type.ndim + len(axes) == out.type.ndim:
            spread.into[of(out)] = base


def _classify(block, shape, spread, mixed, failed):
    def of(a):
        if a not in shape:
            shape[a] = next(_ids)
        return shape[a]
    for stmt in block.stmts:
        if isinstance(stmt, (ir.For, ir.While)):
            params = ir.carried(stmt)
            for k, p in enumerate(params):
                if p not in mixed and _is_array(p):
                    shape[p] = of(stmt.inits[k])
                    if isinstance(stmt, ir.While):
                        shape[stmt.cond.params[k]] = shape[p]
            for region in ir.regions(stmt):
                _classify(region, shape, spread, mixed, failed)
            for k, p in enumerate(params):
                if p in shape and p not in mixed:
                    if of(stmt.body.results[k]) != shape[p]:
                        failed.add(p)
                    else:
                        shape[stmt.outs[k]] = shape[p]
            continue
        if isinstance(stmt, ir.If):
            for region in ir.regions(stmt):
                _classify(region, shape, spread, mixed, failed)
            for k, out in enumerate(stmt.outs):
                then, orelse = stmt.then.results[k], stmt.orelse.results[k]
                if _is_array(out) and _is_array(then) and _is_array(orelse) and of(then) == of(orelse):
                    shape[out] = shape[then]
            continue
        if not isinstance(stmt, ir.Apply) or len(stmt.outs) != 1 or not _is_array(stmt.outs[0]):
            continue
        out, source = stmt.outs[0], shaped_like(stmt)
        if stmt.prim.mutates and stmt.args and _is_array(stmt.args[0]):
            shape[out] = of(stmt.args[0])          # x[i] = v, x += v: x keeps its shape
        elif source is not None:
            if _is_array(source) and source.type.ndim == out.type.ndim:
                shape[out] = of(source)
        elif stmt.prim.ufunc:
            arrays = [a for a in stmt.args if _is_array(a)]
            if any(a.type.ndim != out.type.ndim for a in arrays):
                continue
            into = {spread.into.get(of(a)) for a in arrays}
            for c in dict.fromkeys(of(a) for a in arrays):     # every operand is C or broadcasts into C
                if all(of(a) == c or spread.into.get(of(a)) == c for a in arrays):
                    shape[out] = c
                    break
            else:
                if len(into) == 1 and None not in into:         # every operand broadcasts into one class
                    spread.into[of(out)] = into.pop()
        else:
            _spread(stmt, of, spread)


def shaped_like(stmt):
    """The argument whose shape ``stmt``'s result has (``zeros_like(x)``, ``copy(x)``,
    ``unbroadcast(g, x)``), or None (``zeros_like(x, shape=...)`` has another shape)."""
    like, layout = stmt.prim.shape_of, stmt.params.get("layout")
    if like is None or like >= len(stmt.args) or layout is not None and ("shape" in layout[1] or len(layout[0]) > 2):
        return None
    return stmt.args[like]


def _unread_unbroadcasts(block, uses):
    """Drop ``unbroadcast`` calls whose result nothing reads (an inactive operand's
    adjoint): ``shape_speculation`` would otherwise check their shapes, keeping alive the
    arrays they were given."""
    kept = [s for s in block.stmts if not (isinstance(s, ir.Apply) and s.prim.name == "unbroadcast"
                                           and uses[s.outs[0]] == 0)]
    changed = len(kept) < len(block.stmts)
    block.stmts = kept
    for stmt in kept:
        for region in ir.regions(stmt):
            changed |= _unread_unbroadcasts(region, uses)
    return changed


def _is_matrix_product(stmt):
    """``a @ b`` or ``np.matmul(a, b)`` of two matrices of one floating dtype."""
    if not isinstance(stmt, ir.Apply) or not stmt.prim.matrix_product or len(stmt.args) != 2:
        return False
    layout = stmt.params.get("layout", ((Slot(0), Slot(1)), {}))
    a, b, out = *stmt.args, stmt.outs[0]
    return layout == ((Slot(0), Slot(1)), {}) and all(
        _is_array(v) and v.type.ndim == 2 and v.type.dtype == out.type.dtype for v in (a, b, out)) \
        and out.type.dtype.kind in "fc"


def _linear_unary(stmt):
    """An elementwise operation linear in its one argument that keeps its dtype (``-g``)."""
    return isinstance(stmt, ir.Apply) and stmt.prim.ufunc and stmt.prim.multilinear and len(stmt.args) == 1 \
        and _is_array(stmt.args[0]) and stmt.args[0].type == stmt.outs[0].type


def _rows_summed_first(block, uses):
    """``unbroadcast(f(a @ b), v)`` with ``v`` a vector and ``f`` linear elementwise (``-``):
    the unbroadcast sums the product's rows, and ``sum(a @ b, axis=0)`` is ``sum(a,
    axis=0) @ b``, a vector-matrix product instead of a matrix one.  The two sums add
    the same terms in another order (each entry differs by at most a few units of
    roundoff times ``sum(|a| @ |b|)``).  Only where the product and ``f``'s values
    are read by nothing else, in the same block."""
    changed = False
    producer, stmts = {}, []
    for stmt in block.stmts:
        for region in ir.regions(stmt):
            changed |= _rows_summed_first(region, uses)
        if isinstance(stmt, ir.Apply) and stmt.prim.name == "unbroadcast" and _is_array(stmt.args[0]) \
                and stmt.args[0].type.ndim == 2 and _is_array(stmt.args[1]) and stmt.args[1].type.ndim == 1:
            chain, g = [], stmt.args[0]
            while _linear_unary(producer.get(g)) and uses[g] == 1:
                chain.append(producer[g])
                g = producer[g].args[0]
            product = producer.get(g)
            if _is_matrix_product(product) and uses[g] == 1:
                a, b = product.args
                rows = ir.Var(a.hint, A.Array(a.type.dtype, 1))
                stmts.append(ir.Apply([rows], lookup("sum"), [a], {"axis": 0}, product.loc))
                value = ir.Var(g.hint, product.prim.infer([rows.type, b.type], product.params))
                stmts.append(ir.Apply([value], product.prim, [rows, b], dict(product.params), product.loc))
                for link in reversed(chain):
                    out = ir.Var(link.outs[0].hint, value.type)
                    stmts.append(ir.Apply([out], link.prim, [value], dict(link.params), link.loc))
                    value = out
                stmt.args = [value, stmt.args[1]]
                changed = True
        if isinstance(stmt, ir.Apply) and len(stmt.outs) == 1:
            producer[stmt.outs[0]] = stmt
        stmts.append(stmt)
    block.stmts = stmts
    return changed


@register_pass("broadcasts")
def broadcasts(module) -> bool:
    """Multiply a scalar spread by ``zeros_like(a) + s`` directly; drop ``unbroadcast`` to
    the same shape, and those nothing reads; sum a matrix product's rows before the
    product where only their sum is read."""
    changed = False
    for fn in module.functions:
        changed |= _unread_unbroadcasts(fn.body, ir.use_counts(fn.body))
        changed |= _rows_summed_first(fn.body, ir.use_counts(fn.body))
        shape = shape_classes(fn)
        written = written_memory(fn.body)
        same = lambda a, b: a in shape and b in shape and shape[a] == shape[b]   # noqa: E731
        filled, zeros, mapping = {}, set(), {}
        for stmt in ir.walk(fn.body):
            if not isinstance(stmt, ir.Apply) or stmt.prim.mutates or len(stmt.outs) != 1:
                continue
            out, name, args = stmt.outs[0], stmt.prim.name, stmt.args
            if name in ("op.add", "op.sub") and len(args) == 2 and any(a in filled for a in args):
                for k, (f, b) in enumerate((args, args[::-1])):
                    s, z = filled.get(f, (None, None))
                    # b + (zeros_like(z) + s) with b shaped like z: b + s, the same values
                    if s is not None and isinstance(getattr(s, "type", None), A.Scalar) and spread_partner(s, b, out) \
                            and same(z, b) and b.type == out.type:
                        stmt.args = [b, s] if k else [s, b]
                        changed = True
                        break
            if name == "zeros_like":
                zeros.add(out)
            elif name == "op.add" and len(args) == 2:
                for z, s in (args, args[::-1]):
                    if z in zeros and (isinstance(getattr(s, "type", None), A.Scalar) and same(z, out)
                                       or _is_array(s) and s not in written):
                        filled[out] = (s, z)     # s spread over z's shape (and s's own, if larger)
            elif name == "op.mul" and out not in written:
                for f, b in (args, args[::-1]):
                    s, z = filled.get(f, (None, None))
                    # b shaped like z: s * b has the shape of broadcast(z, s) * b and its values
                    if s is not None and spread_partner(s, b, out) and same(z, b):
                        stmt.args = [s, b]       # s * b: the same values, no array of ones
                        changed = True
                        break
            elif name == "unbroadcast" and same(args[0], args[1]) and out not in written \
                    and args[0] not in written and args[0].type == out.type:
                mapping[out] = args[0]
        if mapping:
            substitute(fn.body, mapping)
            changed = True
    return changed


def reduce_shape_sources(fn):
    """A reduction whose result only gives a shape (``same_shape(r, v)``, ``unbroadcast(g,
    r)``) reads as little as gives that shape: an operand of the elementwise value it was
    given, one of the same shape and dtype (``r = sum(z * z, axis=1)`` -> ``r = sum(z,
    axis=1)``, so the product is not computed), and of that only the first entry along
    each reduced axis (``sum(z[:, :1], axis=1)``: the same shape, and the same error
    where the axis is empty and the reduction has no identity).  ``dce`` calls this,
    after ``shape_speculation`` has left checks."""
    shape = shape_classes(fn)
    valued = set(fn.body.results)
    producer = {}
    for stmt in ir.walk(fn.body):
        skip = stmt.prim.shape_only if isinstance(stmt, ir.Apply) else ()
        valued.update(a for k, a in enumerate(ir.operands(stmt)) if k not in skip)
        for region in ir.regions(stmt):
            valued.update(region.results)
        if isinstance(stmt, ir.Apply) and len(stmt.outs) == 1:
            producer[stmt.outs[0]] = stmt
    shape_only = lambda stmt: isinstance(stmt, ir.Apply) and stmt.prim.reduction and stmt.args \
        and len(stmt.outs) == 1 and stmt.outs[0] not in valued       # noqa: E731
    changed = False
    for stmt in ir.walk(fn.body):
        if not shape_only(stmt):
            continue
        a = stmt.args[0]
        made = producer.get(a)
        if made is None or not made.prim.ufunc or made.prim.mutates or a not in shape:
            continue
        for b in made.args:
            if _is_array(b) and shape.get(b) == shape[a] and b.type.ndim == a.type.ndim \
                    and b.type.dtype == a.type.dtype:
                stmt.args = [b, *stmt.args[1:]]
                changed = True
                break
    return _narrow(fn.body, shape_only, producer) or changed


def _first_entries(a, axes):
    """The index of ``a[:, :1]``-like views: the first entry along ``axes``."""
    return tuple(slice(None, 1, None) if k in axes else slice(None, None, None) for k in range(a.type.ndim))


def _narrow(block, shape_only, producer):
    """Let each reduction read for its shape only reduce the first entry along its axes."""
    changed, getitem = False, lookup("getitem")
    stmts = []
    for stmt in block.stmts:
        for region in ir.regions(stmt):
            changed |= _narrow(region, shape_only, producer)
        a = stmt.args[0] if shape_only(stmt) else None
        axes = _axes(stmt.params.get("axis"), a.type.ndim) if _is_array(a) else None
        if axes:
            index = _first_entries(a, axes)
            made = producer.get(a)
            if made is None or made.prim is not getitem or made.params.get("index") != index:
                view = ir.Var(a.hint, a.type)
                stmts.append(ir.Apply([view], getitem, [a], {"index": index}, stmt.loc))
                producer[view] = stmts[-1]
                stmt.args = [view, *stmt.args[1:]]
                changed = True
        stmts.append(stmt)
    block.stmts = stmts
    return changed
