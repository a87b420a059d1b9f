"""Reverse-mode rules about structure rather than arithmetic: indexing, casts, einsum.

They build IR directly (the rule table's rules are parsed Python); each takes the
sweep, the primal statement, the substitution into forward values and the cotangent.
"""
from sstad.errors import UnsupportedSyntaxError
from sstad.ir import nodes as ir
from sstad.ir.clone import atom as mapped
from sstad.runtime import abstract as A
from sstad.runtime.einsum import explicit
from sstad.runtime.primitive import Slot, lookup


def differentiable(a):
    t = getattr(a, "type", None)
    return isinstance(a, ir.Var) and isinstance(t, (A.Scalar, A.Array)) and A.is_inexact(t.dtype)


def shift_slice(item):
    """An index item of ``setitem`` (slots from 2) as one of ``getitem`` (slots from 1)."""
    if isinstance(item, slice):
        shift = lambda b: Slot(b - 1) if isinstance(b, Slot) else b   # noqa: E731
        return slice(shift(item.start), shift(item.stop), shift(item.step))
    return item


def _getitem(ad, stmt, subst, dout):
    x = stmt.args[0]
    if not ad.active(x):
        return
    if isinstance(x.type, A.ListOf):
        raise UnsupportedSyntaxError("reverse mode through run-time lists is not supported yet", stmt.loc,
                                     "collect values in a preallocated array instead of a list")
    index_atoms = [mapped(a, subst) for a in stmt.args[1:]]
    items = stmt.params["index"]
    dx = ad.owned_adjoint(x, mapped(x, subst))
    index = tuple(Slot(i + 1) if isinstance(i, Slot) else grow_slice(i) for i in items)
    dx = ad.L.apply("index_add", [dx, dout] + index_atoms, {"index": index}, hint="d" + x.hint)
    ad.drop([x])
    ad.accumulate(x, dx, owned=True)


def grow_slice(item):
    if isinstance(item, slice):
        grow = lambda b: Slot(b + 1) if isinstance(b, Slot) else b   # noqa: E731
        return slice(grow(item.start), grow(item.stop), grow(item.step))
    return item


def _astype(ad, stmt, subst, dout):
    x = stmt.args[0]
    if ad.active(x):
        ad.accumulate(x, dout)


def _einsum(ad, stmt, subst, dout):
    """d(operand k) = einsum(dout, the other operands -> subscripts of k).

    An index of operand k that appears nowhere else (summed there alone) comes back as a
    broadcast: a ``ones`` operand carries it; a repeated index (``'ii'``, a diagonal) puts
    the cotangent on the diagonal: an ``eye`` operand ties the two positions."""
    (spec, *slots), kwargs = stmt.params["layout"]
    spec = explicit(spec)
    inputs, _, output = spec.partition("->")
    subscripts = inputs.split(",")
    if "." in spec or kwargs:
        raise UnsupportedSyntaxError("reverse mode through np.einsum with `...` or keywords is not supported",
                                     stmt.loc, "write the batch axes as letters")
    operands = [mapped(a, subst) for a in stmt.args]
    used = set(spec)
    fresh = iter(c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used)
    for k, slot in enumerate(slots):
        a = stmt.args[slot]
        if not ad.active(a):
            continue
        others = [i for i in range(len(slots)) if i != k]
        available = set(output).union(*(subscripts[i] for i in others))
        terms = [output] + [subscripts[i] for i in others]
        values = [dout] + [operands[slots[i]] for i in others]
        target, seen = "", set()
        for position, c in enumerate(subscripts[k]):
            size = ad.L.apply("dim", [operands[slot]], {"axis": position}, hint="n")
            if c in seen:                       # a repeat: tie it to its first place
                f = next(fresh)
                terms.append(c + f)
                values.append(ad.L.call_numpy("eye", [size], {}, None))
                target += f
                continue
            seen.add(c)
            if c not in available:              # summed only here: broadcast back along it
                terms.append(c)
                values.append(ad.L.call_numpy("ones", [size], {}, None))
                available.add(c)
            target += c
        rule = ",".join(terms) + "->" + target
        ad.accumulate(a, ad.L.call_numpy("einsum", [rule] + values, {}, None))


def _tensordot(ad, stmt, subst, dout):
    """Contract dout with the other operand over its free axes, then restore axis order."""
    (a_slot, b_slot, *rest), kwargs = stmt.params["layout"]
    axes = rest[0] if rest else kwargs.get("axes", 2)
    a, b = stmt.args[a_slot], stmt.args[b_slot]
    na, nb = a.type.ndim, b.type.ndim
    if isinstance(axes, int):
        a_axes, b_axes = list(range(na - axes, na)), list(range(axes))
    else:
        a_axes, b_axes = ([k % n for k in (ax if isinstance(ax, tuple) else (ax,))]
                          for ax, n in zip(axes, (na, nb)))
    free_a = [k for k in range(na) if k not in a_axes]
    free_b = [k for k in range(nb) if k not in b_axes]
    out_a = list(range(len(free_a)))                     # dout's axes: free_a, then free_b
    out_b = list(range(len(free_a), len(free_a) + len(free_b)))
    operands = {a_slot: mapped(a, subst), b_slot: mapped(b, subst)}
    for x, other, x_free, x_axes, out_x, out_other, other_free, other_axes, first in (
            (a, b_slot, free_a, a_axes, out_a, out_b, free_b, b_axes, True),
            (b, a_slot, free_b, b_axes, out_b, out_a, free_a, a_axes, False)):
        if not ad.active(x):
            continue
        contracted = (tuple(out_other), tuple(other_free))
        pair = [dout, operands[other]] if first else [operands[other], dout]
        spec = contracted if first else (contracted[1], contracted[0])
        ct = ad.L.call_numpy("tensordot", pair, {"axes": spec}, None)
        # the other operand's contracted axes stay in its own order in the result
        paired = [x_axes[other_axes.index(j)] for j in sorted(other_axes)]
        order = (x_free + paired) if first else (paired + x_free)
        inverse = tuple(sorted(range(len(order)), key=order.__getitem__))
        if inverse != tuple(range(len(order))):
            ct = ad.L.call_numpy("transpose", [ct, inverse], {}, None)
        ad.accumulate(x, ct)


for _name, _rule in (("getitem", _getitem), ("astype", _astype), ("einsum", _einsum), ("tensordot", _tensordot)):
    lookup(_name).structural_vjp = _rule
