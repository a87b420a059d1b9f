"""Broadcast simplification: derivative code broadcasts scalars to full arrays and sums
them back.  ``np.sum``'s rule hands on ``zeros_like(a) + dout``, an array of one value,
and binary rules end with ``unbroadcast(g, x)``.  Where shapes are known to agree, the
scalar is used directly and ``unbroadcast`` is the identity:

    d = zeros_like(a) + s;  t = d * b      ->   t = s * b          (b shaped like a)
    d = zeros_like(a) + e;  t = d * b      ->   t = e * b          (e an array, e.g. dout[:, None])
    unbroadcast(g, x)                      ->   g                  (g shaped like x)

Shapes are compared symbolically: elementwise operations keep the shape of their array
operands when those agree, ``*_like(x)`` and ``unbroadcast(g, x)`` have x's shape.
"""
import itertools

from sstad.ir import nodes as ir
from sstad.ir.alias import written_memory
from sstad.ir.clone import substitute
from sstad.passes import register_pass
from sstad.runtime import abstract as A

_ids = itertools.count()


def _is_array(a):
    return isinstance(getattr(a, "type", None), A.Array)


def shape_classes(fn):
    """Var -> a shape class: two Vars with one class have the same shape at run time.

    In-place writes keep their array's shape; a loop's carried array keeps its initial
    value's class when every iteration's result has it too (checked, else the parameter
    is given a class of its own and the walk repeats); a branch's output has its two
    results' class when they agree."""
    mixed = set()
    while True:
        shape, failed = {}, set()
        _classify(fn.body, shape, mixed, failed)
        if not failed:
            return shape
        mixed |= failed


def _classify(block, shape, mixed, failed):
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
                _classify(region, shape, mixed, failed)
            for k, p in enumerate(params):
                if p in shape and p not in mixed:
                    if of(stmt.body.results[k]) != shape[p]:
                        failed.add(p)
                    else:
                        shape[stmt.outs[k]] = shape[p]
            continue
        if isinstance(stmt, ir.If):
            for region in ir.regions(stmt):
                _classify(region, shape, mixed, failed)
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
            classes = {of(a) for a in stmt.args if _is_array(a)}
            if len(classes) == 1 and all(a.type.ndim == out.type.ndim for a in stmt.args if _is_array(a)):
                shape[out] = classes.pop()


def shaped_like(stmt):
    """The argument whose shape ``stmt``'s result has (``zeros_like(x)``, ``copy(x)``,
    ``unbroadcast(g, x)``), or None (``zeros_like(x, shape=...)`` has another shape)."""
    like, layout = stmt.prim.shape_of, stmt.params.get("layout")
    if like is None or like >= len(stmt.args) or layout is not None and ("shape" in layout[1] or len(layout[0]) > 2):
        return None
    return stmt.args[like]


@register_pass("broadcasts")
def broadcasts(module) -> bool:
    """Multiply a scalar spread by ``zeros_like(a) + s`` directly; drop ``unbroadcast`` to
    the same shape."""
    changed = False
    for fn in module.functions:
        shape = shape_classes(fn)
        written = written_memory(fn.body)
        same = lambda a, b: a in shape and b in shape and shape[a] == shape[b]   # noqa: E731
        filled, zeros, mapping = {}, set(), {}
        for stmt in ir.walk(fn.body):
            if not isinstance(stmt, ir.Apply) or stmt.prim.mutates or len(stmt.outs) != 1:
                continue
            out, name, args = stmt.outs[0], stmt.prim.name, stmt.args
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
                    if s is not None and _is_array(b) and same(z, b) and b.type.dtype == out.type.dtype \
                            and (getattr(s.type, "weak", False) or s.type.dtype == out.type.dtype):
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
    r)``) reduces an operand of the elementwise value it was given, one of the same
    shape and dtype: ``r = sum(z * z, axis=1)`` -> ``r = sum(z, axis=1)``, so the product
    is not computed (``dce`` calls this, after ``shape_speculation`` has left checks)."""
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
    changed = False
    for stmt in ir.walk(fn.body):
        if not isinstance(stmt, ir.Apply) or not stmt.prim.reduction or not stmt.args \
                or len(stmt.outs) != 1 or stmt.outs[0] in valued:
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
    return changed
