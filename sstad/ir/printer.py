"""The IR as stable text: one binding per line, regions indented, user names kept."""
from sstad.ir import nodes as ir
from sstad.ir.names import Namer


class Printer:
    def __init__(self):
        self.name = Namer()
        self.lines = []

    def atom(self, a):
        if isinstance(a, ir.Var):
            return self.name(a)
        if isinstance(a, ir.Undef):
            return f"undef:{a.type}"
        return repr(a.value)

    def typed(self, vars_):
        return ", ".join(f"{self.name(v)}: {v.type}" for v in vars_)

    def out(self, text, depth):
        self.lines.append("  " * depth + text)

    def function(self, fn):
        types = ", ".join(str(r.type) for r in fn.body.results)
        self.out(f"def {fn.name}({self.typed(fn.params)}) -> ({types}):", 0)
        self.stmts(fn.body.stmts, 1)
        results = ", ".join(self.atom(r) for r in fn.body.results)
        self.out(f"return {results}", 1)

    def stmts(self, stmts, depth):
        for s in stmts:
            getattr(self, type(s).__name__)(s, depth)

    def params_text(self, stmt):
        return ", ".join(f"{k}={v!r}" for k, v in stmt.params.items() if k != "layout")

    def Apply(self, s, depth):
        args = ", ".join(self.atom(a) for a in s.args)
        extra = self.params_text(s)
        self.out(f"{self.typed(s.outs)} = {s.prim.name}({args}{'; ' + extra if extra else ''})", depth)

    def Call(self, s, depth):
        args = ", ".join(self.atom(a) for a in s.args)
        self.out(f"{self.typed(s.outs)} = call {s.callee.name}({args})", depth)

    def block(self, label, block, depth):
        self.out(f"{label}:", depth)
        self.stmts(block.stmts, depth + 1)
        self.out(f"-> {', '.join(self.atom(r) for r in block.results)}", depth + 1)

    def If(self, s, depth):
        self.out(f"{self.typed(s.outs) or '()'} = if {self.atom(s.cond)}:", depth)
        self.block("then", s.then, depth + 1)
        self.block("else", s.orelse, depth + 1)

    def carry(self, params, inits):
        return ", ".join(f"{self.name(p)} = {self.atom(i)}" for p, i in zip(params, inits))

    def While(self, s, depth):
        self.out(f"{self.typed(s.outs) or '()'} = while ({self.carry(s.body.params, s.inits)}):", depth)
        self.block("cond", s.cond, depth + 1)
        self.block("body", s.body, depth + 1)

    def For(self, s, depth):
        index, params = s.body.params[0], s.body.params[1:]
        bounds = ", ".join(self.atom(a) for a in (s.start, s.stop, s.step))
        self.out(f"{self.typed(s.outs) or '()'} = for {self.name(index)} in range({bounds}) "
                 f"({self.carry(params, s.inits)}):", depth)
        self.block("body", s.body, depth + 1)


def format_module(module):
    printer = Printer()
    printer.name.taken |= {f.name for f in module.functions}
    for i, fn in enumerate(module.functions):
        if i:
            printer.lines.append("")
        printer.function(fn)
    return "\n".join(printer.lines) + "\n"
