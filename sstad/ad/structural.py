"""Reverse-mode rules about structure rather than arithmetic: indexing, casts, einsum.

They build IR directly (the rule table's rules are parsed Python); each takes the
sweep, the primal statement, the substitution into forward values and the cotangent.
"""
from sstad.errors import UnsupportedSyntaxError
from sstad.ir import nodes as ir
from sstad.ir.clone import atom as mapped
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot, lookup


def differentiable(a):
    t = getattr(a, "type", None)
    return isinstance(a, ir.Var) and isinstance(t, (A.Scalar, A.Array)) and t.dtype.kind in "fc"


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
    """d(operand k) = einsum(out, the other operands -> subscripts of k)."""
    (spec, *slots), kwargs = stmt.params["layout"]
    inputs, arrow, output = spec.replace(" ", "").partition("->")
    subscripts = inputs.split(",")
    if not arrow or "." in spec or kwargs:
        raise UnsupportedSyntaxError("reverse mode through np.einsum needs explicit output "
                                     "subscripts ('ij,jk->ik') and no ellipsis", stmt.loc)
    operands = [mapped(a, subst) for a in stmt.args]
    for k, slot in enumerate(slots):
        a = stmt.args[slot]
        if not ad.active(a):
            continue
        others = [i for i in range(len(slots)) if i != k]
        available = set(output).union(*(subscripts[i] for i in others))
        if not set(subscripts[k]) <= available or len(set(subscripts[k])) < len(subscripts[k]):
            raise UnsupportedSyntaxError(f"reverse mode through np.einsum('{spec}') for operand {k}: "
                                         "an index summed over only there, or repeated", stmt.loc)
        rule = ",".join([output] + [subscripts[i] for i in others]) + "->" + subscripts[k]
        ct = ad.L.call_numpy("einsum", [rule, dout] + [operands[slots[i]] for i in others], {}, None)
        ad.accumulate(a, ct)


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
