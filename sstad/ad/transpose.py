"""Transposition: a linear map's other direction, by reverse mode through it.

Forward mode gets each primitive's JVP by transposing its reverse rule (linear in
``dout``); reverse mode gets a custom function's cotangents from a JVP-only rule by
transposing the JVP (linear in the tangents).  Both run :class:`ReverseMode` over a
small function built from the rule; this module depends on reverse mode, and forward
and reverse mode do not import each other.
"""
from __future__ import annotations

from sstad.ad.reverse import ReverseMode
from sstad.ad.sweep import detached_lowerer
from sstad.frontend.lower import Lowerer
from sstad.frontend.source import function_node
from sstad.ir import nodes as ir
from sstad.ir.clone import atom as mapped, inline
from sstad.runtime import abstract as A
from sstad.runtime.custom import jvp_rule

_TRANSPOSED = {}


def transposed_rule(stmt, active, rule):
    """The reverse ``rule`` of ``stmt`` (a primitive's or a custom function's),
    transposed: a function of (variable args..., out, dout, tangents of args[active]...)
    whose last result is J v.  Cached by the rule itself and the types it sees."""
    key = (rule, tuple(repr(a.type) if isinstance(a, ir.Var) else ("const", repr(a.value))
                                 for a in stmt.args), repr(stmt.params), repr(stmt.outs[0].type), tuple(active))
    joint = _TRANSPOSED.get(key)
    if joint is None:
        joint = _build_transposed(stmt, active, rule)
        _TRANSPOSED[key] = joint
    return joint


def _build_transposed(stmt, active, rule):
    lowerer = Lowerer()
    reverse = ReverseMode(lowerer)
    lowerer.stmts, lowerer.loc = [], stmt.loc
    args = [ir.Var(a.hint, a.type) if isinstance(a, ir.Var) else a for a in stmt.args]
    out = ir.Var("out", stmt.outs[0].type)
    dout = ir.Var("dout", out.type)
    cts = dict(reverse.call_rule(rule, stmt, {}, out, dout, args=args))
    results, seeded_args = [], []
    for k in active:
        ct = cts.get(k)
        if ct is None:
            continue
        ct = lowerer.atom(ct, None)
        target = args[k].type
        if isinstance(target, A.Array) and not isinstance(ct.type, A.Array):
            ct = lowerer.apply("op.add", [lowerer.zeros_like(args[k]), ct])
        ct = lowerer.cast(ct, A.Array(target.dtype, ct.type.ndim) if isinstance(ct.type, A.Array)
                          else A.Scalar(target.dtype, getattr(target, "weak", False)), lowerer.stmts)
        results.append(ct)
        seeded_args.append(k)
    params = [a for a in args if isinstance(a, ir.Var)] + [out, dout]
    fn = ir.Function("rule", params, ir.Block(params, lowerer.stmts, results), stmt.loc)
    joint = ReverseMode(Lowerer()).joint(fn, [len(params) - 1], list(range(len(results))))
    joint.active = seeded_args
    return joint


def transposed_jvp(reverse, custom, stmt, subst, dout):
    """Cotangents of a custom function with only a JVP rule: reverse mode through
    ``jvp_rule(args..., tangents...)`` with respect to the tangents (it is linear in them)."""
    lowerer = detached_lowerer("<jvp rule>")
    lowerer.loc = stmt.loc
    args = [ir.Var(a.hint, a.type) if isinstance(a, ir.Var) else a for a in stmt.args]
    tangents = [ir.Var("d" + getattr(a, "hint", "x"), a.type) for a in stmt.args]
    rule = jvp_rule(custom.jvp, len(args))
    node, filename = function_node(rule)
    t = lowerer.atom(lowerer.inline(rule, node, filename, args + tangents, {}, node, parent=None), None)
    params = [a for a in args if isinstance(a, ir.Var)] + tangents
    fn = ir.Function("jvp_rule", params, ir.Block(params, lowerer.stmts, [t]), stmt.loc)
    n_var = len(params) - len(tangents)
    joint = ReverseMode(Lowerer()).joint(fn, list(range(n_var, len(params))), [0])
    actual = [mapped(a, subst) for a in stmt.args if isinstance(a, ir.Var)]
    actual += [mapped(a, subst) for a in stmt.args]     # any value: the rule is linear in them
    return list(enumerate(inline(joint, actual + [dout], reverse.L.stmts)[1:]))


ReverseMode.transpose_jvp = staticmethod(transposed_jvp)   # reverse mode's way to JVP-only rules
