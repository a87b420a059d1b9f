"""Algebraic identities: ``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0``, ``x / 1``.

Derivative rules meet constant seeds and zero offsets often (``1.0 * t``, ``0 + t``);
the identity is dropped on scalars when it does not change the type.  Arrays keep it:
``y = x * 1.0`` is a new array, and folding it would let ``y += v`` write into ``x``.
Uses of the result read the operand instead; dce removes the rest.
"""
from sstad.ir import nodes as ir
from sstad.ir.clone import substitute
from sstad.passes import register_pass
from sstad.runtime import abstract as A

IDENTITIES = {"op.mul": (1, (0, 1)), "op.add": (0, (0, 1)), "op.sub": (0, (1,)),
              "op.truediv": (1, (1,))}


def _same_type(a, b):
    if isinstance(a, A.Scalar) and isinstance(b, A.Scalar):
        return a.dtype == b.dtype
    return a == b


def _identity_operand(stmt):
    """The operand ``stmt`` merely passes through, or None."""
    rule = IDENTITIES.get(stmt.prim.name)
    if rule is None or not isinstance(stmt.outs[0].type, A.Scalar):
        return None
    neutral, positions = rule
    for k in positions:
        const, other = stmt.args[k], stmt.args[1 - k]
        if ir.is_scalar_const(const, neutral) and not isinstance(const.value, bool) \
                and _same_type(other.type, stmt.outs[0].type):
            return other
    return None


@register_pass("simplify")
def simplify(module) -> bool:
    """Replace uses of ``x * 1``, ``x + 0`` ... by ``x``."""
    changed = False
    for fn in module.functions:
        mapping = {}
        for stmt in ir.walk(fn.body):
            if isinstance(stmt, ir.Apply) and not stmt.prim.mutates:
                other = _identity_operand(stmt)
                if other is not None:
                    mapping[stmt.outs[0]] = other
        if mapping:
            substitute(fn.body, mapping)
            changed = True
    return changed
