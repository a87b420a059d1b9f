"""Activity analysis: which values depend on the differentiated inputs.

A value is *active* when a derivative can flow into it from a parameter we differentiate
with respect to.  Both modes skip derivative work on everything else: data arrays, loop
counters, values computed by piecewise-constant primitives (``floor``, comparisons), and
calls to functions without rules whose inputs are inactive (they run as constants).
The analysis is forward only and conservative: a loop's carried values are found by a
fixpoint, a branch's outputs are active when either branch's result is.
"""
from sstad.errors import UnsupportedSyntaxError
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A


def active_values(fn, wrt):
    """The set of Vars of ``fn`` (a Function) that depend on ``fn.params[i]`` for i in ``wrt``."""
    active = {fn.params[i] for i in wrt}
    _block(fn.body, active)
    return active


def _is_complex(atom):
    t = getattr(atom, "type", None)
    return isinstance(t, (A.Scalar, A.Array)) and t.dtype.kind == "c"


def _is_active(atom, active):
    return isinstance(atom, ir.Var) and atom in active


def _block(block, active):
    for stmt in block.stmts:
        _stmt(stmt, active)


def _stmt(stmt, active):
    if isinstance(stmt, ir.Apply):
        if not stmt.prim.nondiff and any(_is_active(a, active) for a in stmt.args):
            active.update(stmt.outs)
        elif stmt.prim.smooth_at_complex and any(_is_active(a, active) and _is_complex(a) for a in stmt.args):
            raise UnsupportedSyntaxError(f"the derivative of {stmt.prim.name} of complex values is not supported "
                                         "(it is z / |z|, not piecewise constant)", stmt.loc,
                                         "write z / np.abs(z), which has a derivative")
    elif isinstance(stmt, ir.Call):
        if any(_is_active(a, active) for a in stmt.args):
            active.update(stmt.outs)
    elif isinstance(stmt, ir.If):
        _block(stmt.then, active)
        _block(stmt.orelse, active)
        for out, a, b in zip(stmt.outs, stmt.then.results, stmt.orelse.results):
            if _is_active(a, active) or _is_active(b, active):
                active.add(out)
    else:
        _loop(stmt, active)


def _loop(stmt, active):
    carried = ir.carried(stmt)
    regions = [stmt.body] if isinstance(stmt, ir.For) else [stmt.cond, stmt.body]
    for p, init in zip(carried, stmt.inits):
        if _is_active(init, active):
            _mark(stmt, p, active)
    while True:
        before = len(active)
        for region in regions:
            _block(region, active)
        for k, r in enumerate(stmt.body.results):
            if _is_active(r, active):
                _mark(stmt, carried[k], active)
        if len(active) == before:
            break
    for out, p in zip(stmt.outs, carried):
        if p in active:
            active.add(out)


def _mark(stmt, param, active):
    """A carried value is active: so is its twin in a while loop's condition block."""
    active.add(param)
    if isinstance(stmt, ir.While):
        k = stmt.body.params.index(param)
        active.add(stmt.cond.params[k])


def needed_carried(loop, params, has_adjoint):
    """The carried values of ``loop`` whose adjoints can be nonzero: those whose output
    has an adjoint, and those that a needed one depends on in the body.  The backward
    loop carries adjoints only for these, so a dead value's rule never runs on a zero
    cotangent (``0 * inf`` would be NaN)."""
    feeds = []
    for p in params:
        reach = {p}
        _block(loop.body, reach)
        feeds.append({k for k, r in enumerate(loop.body.results) if _is_active(r, reach)})
    needed = {m for m, flag in enumerate(has_adjoint) if flag}
    grew = True
    while grew:
        grew = False
        for m in range(len(params)):
            if m not in needed and feeds[m] & needed:
                needed.add(m)
                grew = True
    return needed
