"""The IR verifier: runs after lowering and after every pass.

Checks that every use is defined in scope, every value is bound once, regions are well
formed (result counts and types match the outputs and carried values) and every
application's output type is what its primitive's type rule says.
"""
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A


class VerificationError(AssertionError):
    """The IR is malformed: a bug in sstad (please report it with the dump)."""


def _same(a, b):
    if isinstance(a, A.Scalar) and isinstance(b, A.Scalar):
        return a.dtype == b.dtype
    if isinstance(a, A.ListOf) and isinstance(b, A.ListOf) and A.UNKNOWN in (a.elem, b.elem):
        return True                              # an empty list typed by a later append
    return a == b


def verify_module(module):
    for fn in module.functions:
        Verifier(fn).run()


class Verifier:
    def __init__(self, fn):
        self.fn = fn
        self.bound = set()

    def fail(self, message, stmt=None):
        where = f" at {stmt.loc}" if stmt is not None and getattr(stmt, "loc", None) else ""
        raise VerificationError(f"{self.fn.name}: {message}{where}")

    def bind(self, var, stmt=None):
        if not isinstance(var, ir.Var):
            self.fail(f"binding a non-variable {var!r}", stmt)
        if var in self.bound:
            self.fail(f"{var!r} is bound twice", stmt)
        if var.type is A.UNKNOWN or var.type is None:
            self.fail(f"{var!r} has no type", stmt)
        self.bound.add(var)

    def use(self, atom, scope, stmt):
        if isinstance(atom, ir.Var) and atom not in scope:
            self.fail(f"{atom!r} is used but not defined here", stmt)

    def run(self):
        for p in self.fn.params:
            self.bind(p)
        self.block(self.fn.body, set(self.fn.params))

    def block(self, block, scope, params_bound=True):
        scope = set(scope) | set(block.params)
        for stmt in block.stmts:
            for a in ir.operands(stmt):
                self.use(a, scope, stmt)
            getattr(self, "check_" + type(stmt).__name__)(stmt, scope)
            for out in stmt.outs:
                self.bind(out, stmt)
            scope |= set(stmt.outs)
        for r in block.results:
            self.use(r, scope, None)

    def results_match(self, block, targets, stmt, what):
        if len(block.results) != len(targets):
            self.fail(f"{what} yields {len(block.results)} values for {len(targets)}", stmt)
        for r, t in zip(block.results, targets):
            if not _same(r.type, t.type):
                self.fail(f"{what} yields {r.type} for {t!r}: {t.type}", stmt)

    def check_Apply(self, stmt, scope):
        expected = stmt.prim.infer([a.type for a in stmt.args], stmt.params)
        if not _same(expected, stmt.outs[0].type):
            self.fail(f"{stmt.prim.name} gives {expected}, not {stmt.outs[0].type}", stmt)

    def check_Call(self, stmt, scope):
        callee = stmt.callee
        if len(stmt.args) != len(callee.params):
            self.fail(f"call to {callee.name} with {len(stmt.args)} arguments", stmt)
        for a, p in zip(stmt.args, callee.params):
            if not _same(a.type, p.type):
                self.fail(f"call to {callee.name}: {a.type} for {p.type}", stmt)
        if len(stmt.outs) != len(callee.body.results) or not all(
                _same(o.type, r.type) for o, r in zip(stmt.outs, callee.body.results)):
            self.fail(f"call to {callee.name} returns other types", stmt)

    def check_If(self, stmt, scope):
        if not (isinstance(stmt.cond.type, A.Scalar) and stmt.cond.type.dtype.kind == "b"):
            self.fail(f"if on a {stmt.cond.type}", stmt)
        for block in (stmt.then, stmt.orelse):
            self.block(block, scope)
            self.results_match(block, stmt.outs, stmt, "a branch")

    def carried(self, stmt, params):
        if not (len(stmt.inits) == len(params) == len(stmt.outs)):
            self.fail("carried values, parameters and outputs differ in number", stmt)
        for i, p, o in zip(stmt.inits, params, stmt.outs):
            if not (_same(i.type, p.type) and _same(p.type, o.type)):
                self.fail(f"carried {p!r}: {i.type} / {p.type} / {o.type}", stmt)

    def check_While(self, stmt, scope):
        if stmt.cond.params != stmt.body.params:
            self.fail("while: condition and body take different parameters", stmt)
        self.carried(stmt, stmt.body.params)
        for p in stmt.body.params:
            self.bind(p, stmt)
        self.block(stmt.cond, scope)
        cond = stmt.cond.results
        if len(cond) != 1 or not isinstance(cond[0].type, A.Scalar) or cond[0].type.dtype.kind != "b":
            self.fail("while condition is not one bool", stmt)
        self.block(stmt.body, scope)
        self.results_match(stmt.body, stmt.body.params, stmt, "a loop body")

    def check_For(self, stmt, scope):
        for a in (stmt.start, stmt.stop, stmt.step):
            if not (isinstance(a.type, A.Scalar) and a.type.dtype.kind in "iu"):
                self.fail(f"range bound of type {a.type}", stmt)
        self.carried(stmt, stmt.body.params[1:])
        for p in stmt.body.params:
            self.bind(p, stmt)
        self.block(stmt.body, scope)
        self.results_match(stmt.body, stmt.body.params[1:], stmt, "a loop body")
