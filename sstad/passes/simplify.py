"""Algebraic identities (``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0``, ``x / 1``),
scalar operations on constants folded to constants, ``where`` with a constant
condition on scalars, and ``x + x`` on a real or integer array written ``x * 2`` (the
same values, bit for bit): a product's two adjoints add up so when its operands are one
array (``z * z``), and ``x * 2`` reads ``x`` once, so the backend fuses ``x`` into it
instead of making an array of it.  A sum (or mean) of ``-x`` to a number is the negated
sum of ``x``, bit for bit (rounding to nearest is symmetric): no array for ``-x``.

Derivative rules meet constant seeds and zero offsets often (``1.0 * t``, ``0 + t``);
the identity is dropped on scalars when it does not change the type.  Arrays keep it:
``y = x * 1.0`` is a new array, and folding it would let ``y += v`` write into ``x``.
Uses of the result read the operand instead; dce removes the rest.
"""
import numpy as np

from sstad.ir import nodes as ir
from sstad.ir.clone import substitute
from sstad.passes import register_pass
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot, lookup

def _same_type(a, b):
    if isinstance(a, A.Scalar) and isinstance(b, A.Scalar):
        return a.dtype == b.dtype
    return a == b


def _identity_operand(stmt):
    """The operand ``stmt`` merely passes through, or None."""
    rule = stmt.prim.identity
    if rule is None or not isinstance(stmt.outs[0].type, A.Scalar):
        return None
    neutral, positions = rule
    for k in positions:
        const, other = stmt.args[k], stmt.args[1 - k]
        if ir.is_scalar_const(const, neutral) and not isinstance(const.value, bool) \
                and _same_type(other.type, stmt.outs[0].type):
            return other
    return None


def _fold_constant(stmt):
    """A scalar elementwise operation on constants, evaluated now (as a Const)."""
    out = stmt.outs[0].type
    if not (stmt.prim.elementwise and isinstance(out, A.Scalar) and stmt.args
            and all(isinstance(a, ir.Const) for a in stmt.args)) or "layout" in stmt.params:
        return None
    try:
        with np.errstate(all="ignore"):
            value = stmt.prim.impl(*(a.value for a in stmt.args))
    except (ArithmeticError, TypeError, ValueError):
        return None
    value = np.asarray(value).astype(out.dtype)[()]
    return ir.Const(value.item() if out.weak else value, out)


def _chosen_branch(stmt):
    """``c ? x : y`` on scalars with a constant ``c``: the chosen operand."""
    layout = stmt.params.get("layout")
    if stmt.prim.name != "where" or layout is None or layout[1] or len(layout[0]) != 3:
        return None
    cond, *sides = layout[0]
    if isinstance(cond, Slot):
        if not isinstance(stmt.args[cond], ir.Const):
            return None
        cond = stmt.args[cond].value
    chosen = sides[0] if cond else sides[1]
    atom = stmt.args[chosen] if isinstance(chosen, Slot) else ir.Const(chosen)
    out = stmt.outs[0].type
    if isinstance(out, A.Scalar) and isinstance(atom.type, A.Scalar) and atom.type.dtype == out.dtype:
        return atom
    return None


def doubled(stmt):
    """Rewrite ``x + x`` on a real or integer array as ``x * 2``; True if it did (``cse``
    calls it too, where merging makes the two operands one).  Not complex:
    ``(inf + 1j) * 2`` multiplies by ``2 + 0j``, and ``inf * 0`` is nan."""
    out = stmt.outs[0].type
    if stmt.prim.name != "op.add" or len(stmt.args) != 2 or stmt.args[0] is not stmt.args[1] \
            or stmt.params or not isinstance(out, A.Array) or out.dtype.kind not in "fiu" \
            or stmt.args[0].type != out:
        return False
    stmt.prim = lookup("op.mul")
    stmt.args = [stmt.args[0], ir.Const(out.dtype.type(2).item(), A.Scalar(out.dtype))]
    return True


def _negation_outside(block, uses):
    """``s = sum(-x)`` to a number, the negation read nowhere else: ``s = -sum(x)``."""
    producer = {s.outs[0]: s for s in ir.walk(block) if isinstance(s, ir.Apply) and len(s.outs) == 1}
    changed = False
    for b in ir.blocks(block):
        for k in range(len(b.stmts) - 1, -1, -1):
            stmt = b.stmts[k]
            neg = producer.get(stmt.args[0]) if isinstance(stmt, ir.Apply) and stmt.args else None
            if (neg is None or neg.prim is not lookup("op.neg") or uses.get(neg.outs[0]) != 1
                    or not (stmt.prim.reduction and stmt.prim.multilinear) or len(stmt.args) != 1
                    or not set(stmt.params) <= {"axis", "keepdims"} or len(stmt.outs) != 1
                    or not isinstance(stmt.outs[0].type, A.Scalar)):
                continue
            out = stmt.outs[0]
            total = ir.Var(out.hint, out.type)
            stmt.args, stmt.outs = [neg.args[0]], [total]
            b.stmts.insert(k + 1, ir.Apply([out], neg.prim, [total], {}, stmt.loc))
            changed = True
    return changed


@register_pass("simplify")
def simplify(module) -> bool:
    """Replace uses of ``x * 1``, ``x + 0`` ... by ``x``."""
    changed = False
    for fn in module.functions:
        done = set()
        changed |= _negation_outside(fn.body, ir.use_counts(fn.body))
        for _ in range(8):               # a fold can expose another (``x + (0 * y)``)
            mapping = {}
            for stmt in ir.walk(fn.body):
                if isinstance(stmt, ir.Apply) and doubled(stmt):
                    changed = True
                if isinstance(stmt, ir.Apply) and not stmt.prim.mutates and stmt.outs[0] not in done:
                    other = _identity_operand(stmt) or _fold_constant(stmt) or _chosen_branch(stmt)
                    if other is not None:
                        mapping[stmt.outs[0]] = other
            if not mapping:
                break
            done.update(mapping)
            substitute(fn.body, mapping)
            changed = True
    return changed
