"""Emit an IR module as readable Python source, one primitive per line.

The same text runs under ``exec`` (the python backend) and, decorated with
``numba.njit``, compiled in nopython mode (the numba backend).  A comment
``# file:line  source`` precedes the statements of each line of the user's code.
"""
from __future__ import annotations

import linecache
import os

import numpy as np

from sstad.backend.fused_loops import emit_run
from sstad.backend.numba_kernels import Kernels
from sstad.backend.numba_linking import CALLEE_MARK, GLUE_MARK
from sstad.ir import nodes as ir
from sstad.ir.names import Namer
from sstad.ir.outline import outline_module
from sstad.passes.fusion import elementwise_array, fused_into
from sstad.passes.loop_fusion import module_runs, rematerialize
from sstad.runtime import abstract as A
from sstad.runtime.primitive import dtype_text, literal

_NATIVE = (np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_))
HEADER = "import math\n\nimport numpy as np\n\nfrom sstad import runtime as rt\n"


def undef_text(aval):
    """A dummy of the right type for a value that a path never defines."""
    if isinstance(aval, A.Scalar):
        return literal(np.zeros((), aval.dtype)[()] if not aval.weak else np.zeros((), aval.dtype).item())
    if isinstance(aval, A.Array):
        return f"np.empty({literal((0,) * aval.ndim)}, {dtype_text(aval.dtype)})"
    if isinstance(aval, A.ListOf):
        return f"[{undef_text(aval.elem)}][:0]"
    raise TypeError(aval)


class FunctionEmitter:
    def __init__(self, function, function_names, backend, kernels=None, runs=None):
        self.fn = function
        self.kernels = kernels     # Kernels: elementwise array expressions as shared functions
        self.loops = 0             # loops around the statement being emitted
        self.backend = backend
        self.name = Namer(taken=function_names)
        self.lines = []
        self.last_line = None
        self.fuse = backend.fuse
        self.inlined = {}          # Var -> the expression that computes it (fuse)
        self.inlined_reads = {}    # Var -> the values that expression reads
        if self.fuse:
            self.uses = ir.use_counts(function.body)
        self.runs = runs.of(function) if runs is not None else None     # loop fusion (ModuleRuns)
        self.rows = {}             # Var -> (array, row): where a run fills a loop's kept state

    def atom(self, a):
        if isinstance(a, ir.Var):
            if a in self.inlined:
                return self.inlined.pop(a)
            return self.name(a)
        if isinstance(a, ir.Undef):
            return undef_text(a.type)
        t = a.type
        if isinstance(t, A.Scalar) and not t.weak and t.dtype not in _NATIVE:
            return f"{dtype_text(t.dtype)}({literal(a.value.item() if hasattr(a.value, 'item') else a.value)})"
        return literal(a.value)

    def out(self, text, depth):
        self.lines.append("    " * depth + text)

    def source_comment(self, stmt, depth):
        loc = stmt.loc
        if loc is None or (loc.file, loc.line) == self.last_line:
            return
        self.last_line = (loc.file, loc.line)
        code = linecache.getline(loc.file, loc.line).strip()
        self.out(f"# {os.path.basename(loc.file)}:{loc.line}  {code}", depth)

    def emit(self):
        params = ", ".join(self.name(p) for p in self.fn.params)
        self.out(f"def {self.fn.name}({params}):", 0)
        self.block(self.fn.body.stmts, 1)
        results = [self.atom(r) for r in self.fn.body.results]
        self.out(f"return {self.tuple_text(results) if results else 'None'}", 1)
        return "\n".join(self.lines) + "\n"

    @staticmethod
    def tuple_text(texts):
        return texts[0] if len(texts) == 1 else "(" + ", ".join(texts) + ")"

    def block(self, stmts, depth):
        done = 0
        for k, stmt in enumerate(stmts):
            if k < done:
                continue
            run = self.runs.run_at(stmts, k) if self.runs is not None and self.loops else None
            if run is not None:         # loops only: what a run saves is allocations per iteration
                emit_run(self, run, depth)
                done = run.end
                continue
            if self.fuse and self.fusable(stmts, k):
                self.inlined_reads[stmt.outs[0]] = set(stmt.args).union(
                    *(self.inlined_reads.get(a, ()) for a in stmt.args if a in self.inlined))
                self.inlined[stmt.outs[0]] = f"({self.expression(stmt)})"
                continue
            self.source_comment(stmt, depth)
            getattr(self, "stmt_" + type(stmt).__name__)(stmt, depth)

    def fusable(self, stmts, k):
        """The fusion pass's decision (written into its reader's expression), unless a
        statement in between reuses a Python name the expression may read."""
        reader = fused_into(stmts, k, self.uses)
        return reader is not None and not any(later.outs[0] in self.name.names for later in stmts[k + 1:reader])

    def assign(self, targets, values, depth):
        pairs = [(t, v) for t, v in zip(targets, values) if t != v]
        if pairs:
            self.out(f"{', '.join(t for t, _ in pairs)} = {', '.join(v for _, v in pairs)}", depth)

    def expression(self, stmt):
        args = [self.atom(a) for a in stmt.args]
        out = stmt.outs[0].type if stmt.outs else None
        narrow = isinstance(out, (A.Array, A.Scalar)) and A.is_float(out.dtype) and out.dtype.itemsize < 8
        if stmt.prim.elementwise and (isinstance(out, A.Array) or narrow):
            # Numba promotes float32 with a Python or int64 scalar to float64 (NumPy's
            # NEP 50 does not): give such operands the result's dtype
            for i, a in enumerate(stmt.args):
                t = a.type
                if isinstance(t, A.Scalar) and t.dtype != out.dtype and A.is_inexact(out.dtype) and (
                        A.is_inexact(t.dtype) or t.dtype.kind in "iu" and narrow):
                    args[i] = f"{dtype_text(out.dtype)}({args[i]})"
        return self.backend.lower(stmt.prim)(args, stmt.params, [a.type for a in stmt.args])

    def stmt_Apply(self, stmt, depth):
        if stmt.prim.name == "list.new":      # typed empty list: Numba must know the element
            self.out(f"{self.name(stmt.outs[0])} = [{undef_text(stmt.outs[0].type.elem)}][:0]", depth)
            return
        text = self.expression(stmt)
        # a kernel call costs run time per iteration (small arrays): loops keep the expression
        if self.kernels is not None and not self.loops and elementwise_array(stmt) and not stmt.prim.mutates:
            text = self.kernels.call(text)
        elif self.kernels is not None and not self.loops and stmt.prim.per_element == "update":
            text = self.kernels.update(text)        # g += e: an array updated in place
        if stmt.prim.mutates:
            self.name.alias(stmt.outs[0], stmt.args[0])
            self.out(text, depth)
        else:
            self.out(f"{self.name(stmt.outs[0])} = {text}", depth)

    def stmt_Call(self, stmt, depth):
        args = ", ".join(self.atom(a) for a in stmt.args)
        outs = [self.name(o) for o in stmt.outs]
        self.out(f"{', '.join(outs) if outs else '_'} = {stmt.callee.name}({args})", depth)

    def stmt_If(self, stmt, depth):
        cond = self.atom(stmt.cond)
        outs = [self.name(o) for o in stmt.outs]
        then, orelse = stmt.then, stmt.orelse
        if len(outs) == 1 and not then.stmts and not orelse.stmts:
            self.out(f"{outs[0]} = {self.atom(then.results[0])} if {cond} else "
                     f"{self.atom(orelse.results[0])}", depth)
            return
        self.out(f"if {cond}:", depth)
        self.region(then, stmt.outs, depth + 1)
        if orelse.stmts or outs:
            mark = len(self.lines)
            self.out("else:", depth)
            self.region(orelse, stmt.outs, depth + 1)
            if self.lines[mark + 1:] == ["    " * (depth + 1) + "pass"]:
                del self.lines[mark:]                  # an else with nothing to do

    def coalesce(self, block, targets):
        """Compute each result straight into its target variable, saving a copy.

        A result defined at the top of ``block`` takes its target's name.  The target's
        Python variable may already hold a live value (a loop's carried parameter, or a
        branch output that shares it), so this is only safe when nothing after the
        definition still reads that variable's old value."""
        defined = {o: k for k, st in enumerate(block.stmts) if isinstance(st, (ir.Apply, ir.Call, ir.If))
                   and not (isinstance(st, ir.Apply) and st.prim.mutates) for o in st.outs}
        for pos, (result, target) in enumerate(zip(block.results, targets)):
            if result not in defined or result in self.name.names or block.results.count(result) > 1:
                continue
            k = defined[result]
            taken = self.name(target)
            versions = {target}          # in-place writes keep the parameter's name
            for st in ir.walk(block):
                if isinstance(st, ir.Apply) and st.prim.mutates and st.args and st.args[0] in versions:
                    versions.add(st.outs[0])
            later = [a for st in block.stmts[k + 1:] for a in ir.reads(st)]
            later += [r for i, r in enumerate(block.results) if i != pos]
            if any(isinstance(a, ir.Var) and (a in versions or self.name.names.get(a) == taken) for a in later):
                continue
            self.name.alias(result, target)

    def region(self, block, targets, depth):
        """A branch or loop body: its statements, then its results into ``targets``."""
        self.coalesce(block, targets)
        start = len(self.lines)
        self.block(block.stmts, depth)
        self.assign([self.name(t) for t in targets], [self.atom(r) for r in block.results], depth)
        if len(self.lines) == start:
            self.out("pass", depth)

    def carried(self, stmt, params, depth):
        """Carried values live in one variable: init -> param -> out."""
        for out, param in zip(stmt.outs, params):
            self.name.alias(out, param)
        self.assign([self.name(p) for p in params], [self.atom(a) for a in stmt.inits], depth)

    def stmt_While(self, stmt, depth):
        self.loops += 1
        self.emit_while(stmt, depth)
        self.loops -= 1

    def stmt_For(self, stmt, depth):
        self.loops += 1
        self.emit_for(stmt, depth)
        self.loops -= 1

    def emit_while(self, stmt, depth):
        params = stmt.body.params
        self.carried(stmt, params, depth)
        for p, q in zip(stmt.cond.params, params):
            if p is not q:
                self.name.alias(p, q)
        cond = stmt.cond
        simple = (len(cond.stmts) == 1 and isinstance(cond.stmts[0], ir.Apply)
                  and cond.stmts[0].outs[0] is cond.results[0] and not cond.stmts[0].prim.mutates)
        if simple:
            self.out(f"while {self.expression(cond.stmts[0])}:", depth)
        elif not cond.stmts:
            self.out(f"while {self.atom(cond.results[0])}:", depth)
        else:
            self.out("while True:", depth)
            self.block(cond.stmts, depth + 1)
            self.out(f"if not {self.atom(cond.results[0])}:", depth + 1)
            self.out("break", depth + 2)
        self.region(stmt.body, params, depth + 1)

    def emit_for(self, stmt, depth):
        index, params = stmt.body.params[0], stmt.body.params[1:]
        self.carried(stmt, params, depth)
        bounds = [self.atom(stmt.start), self.atom(stmt.stop), self.atom(stmt.step)]
        self.state_rows(stmt, bounds, depth)
        if bounds[2] == "1":
            bounds = bounds[1:2] if bounds[0] == "0" else bounds[:2]
        self.out(f"for {self.name(index)} in range({', '.join(bounds)}):", depth)
        self.region(stmt.body, params, depth + 1)

    def state_rows(self, loop, bounds, depth):
        """Before ``loop``, one array of rows for each state it keeps that a run of its
        body fills (``loop_fusion.kept_rows``); a row of another length is a new array."""
        if self.runs is None:
            return
        start, stop = bounds[:2]
        index = self.name(loop.body.params[0])
        row = index if start == "0" else f"{index} - {start}"
        for run in self.runs.runs_in(loop.body.stmts):
            for v in run.escaping:
                if self.runs.rows.get(v) is loop:
                    state = self.name(ir.carried(loop)[loop.body.results.index(v)])
                    block = self.name.fresh("rows")
                    self.out(f"{block} = np.empty((max({stop} - {start}, 0), len({state})), np.float64)", depth)
                    self.rows[v] = (block, row)


def emit_module(module, backend="python"):
    """The Python source of every function in the module, entry last, each primitive
    spelled by ``backend``'s lowering table.  A backend that fuses writes chains of
    elementwise operations as nested expressions (Numba then fuses them into one loop);
    otherwise one primitive per line.  A backend with ``outline`` set splits long
    functions into parts of about that many applications (see ``sstad/ir/outline.py``);
    one with ``kernels`` set writes each elementwise array expression as a call of a
    function shared by all equal expressions (``sstad/backend/numba_kernels.py``)."""
    from sstad.backend.base import get_backend
    backend = get_backend(backend)
    own = {f.name for f in module.functions}
    if backend.name == "numba":
        module = rematerialize(module)
    runs = module_runs(module) if backend.name == "numba" else None
    if backend.outline:
        module = outline_module(module, backend.outline)
    names = [f.name for f in module.functions]
    parts = [HEADER]
    externs = sorted({s.params["name"] for f in module.functions for s in ir.walk(f.body)
                      if isinstance(s, ir.Apply) and s.prim.name == "extern"})
    kernels = Kernels(names, externs) if getattr(backend, "kernels", False) else None
    if externs:      # functions sstad does not see into (runtime/extern.py)
        parts.append("\n" + "".join(f"{e} = rt.extern_function({e!r})\n" for e in externs))
    for function in module.functions:
        loops = any(isinstance(s, (ir.While, ir.For)) for s in ir.walk(function.body))
        mark = "" if function.name in own else (CALLEE_MARK if loops else GLUE_MARK) + "\n"    # a part
        parts.append("\n\n" + mark + FunctionEmitter(function, names, backend, kernels, runs).emit())
    return kernels.resolve("".join(parts)) if kernels is not None else "".join(parts)
