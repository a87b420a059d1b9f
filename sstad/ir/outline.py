"""Outlining: split long blocks into functions of their own, called in sequence.

Numba types, lowers and optimises each function as one unit, and LLVM's cost grows
faster than the size of one function; a gradient of a few hundred lines compiled as one
function takes minutes.  :func:`outline_module` cuts every block heavier than ``limit``
into consecutive parts of about ``limit`` primitive applications, each a function whose
parameters are the values it reads from before and whose results are the values read
after it; the block becomes a sequence of calls.  A part never splits a statement: a
branch whose body is heavy is outlined inside, so the part that holds it stays small; a
loop is not (a call in each iteration costs run time), so a heavy loop is a part of its
own.  Arrays are passed by reference, so in-place writes inside a part are seen by
the caller, as they would be in one function.

The original module is left as it is: parts reuse its statements and variables.
"""
from __future__ import annotations

from sstad.ir import nodes as ir


def weight(stmt, cache):
    """The number of primitive applications in ``stmt``, its regions included."""
    if stmt not in cache:
        cache[stmt] = 1 if isinstance(stmt, (ir.Apply, ir.Call)) else 1 + sum(
            weight(s, cache) for region in ir.regions(stmt) for s in region.stmts)
    return cache[stmt]


def defined_and_read(stmt):
    """(the vars a statement binds at any depth, the vars it reads), region parameters
    counting as bound."""
    bound, read = set(stmt.outs), set()
    todo = [stmt]
    while todo:
        s = todo.pop()
        read.update(a for a in ir.operands(s) if isinstance(a, ir.Var))
        for region in ir.regions(s):
            bound.update(region.params)
            read.update(r for r in region.results if isinstance(r, ir.Var))
            for inner in region.stmts:
                bound.update(inner.outs)
                todo.append(inner)
    return bound, read


class Outliner:
    def __init__(self, function, limit, taken):
        self.function = function
        self.limit = limit
        self.taken = taken            # function names in use
        self.parts = []               # new functions, in the order they are needed
        self.weights = {}

    def name(self):
        k = len(self.parts) + 1
        while f"{self.function.name}_part{k}" in self.taken:
            k += 1
        name = f"{self.function.name}_part{k}"
        self.taken.add(name)
        return name

    def block(self, block):
        """``block`` with each heavy region outlined and its statements grouped into calls."""
        stmts = [self.statement(s) for s in block.stmts]
        if sum(weight(s, self.weights) for s in stmts) <= self.limit:
            return ir.Block(block.params, stmts, block.results)
        groups, current, size = [], [], 0
        for s in stmts:
            w = weight(s, self.weights)
            if current and size + w > self.limit:
                groups.append(current)
                current, size = [], 0
            current.append(s)
            size += w
        groups.append(current)
        # what each group must hand on: the values read by later groups or the results
        needed = {r for r in block.results if isinstance(r, ir.Var)}
        signatures = []
        for group in reversed(groups):
            bound, read = set(), set()
            for s in group:
                b, r = defined_and_read(s)
                bound |= b
                read |= r
            outs = sorted((v for s in group for v in s.outs if v in needed), key=lambda v: v.id)
            ins = sorted(read - bound, key=lambda v: v.id)
            signatures.append((ins, outs))
            needed = (needed - bound) | set(ins)
        calls = [self.part(group, ins, outs) for group, (ins, outs) in zip(groups, reversed(signatures))]
        return ir.Block(block.params, calls, block.results)

    def part(self, stmts, ins, outs):
        loc = next((s.loc for s in stmts if s.loc is not None), self.function.loc)
        fn = ir.Function(self.name(), list(ins), ir.Block([], stmts, list(outs)), loc,
                         self.function.source_lines)
        self.parts.append(fn)
        return ir.Call(list(outs), fn, list(ins), loc)

    def statement(self, stmt):
        """A heavy branch is outlined inside; a loop stays whole (a call per iteration
        would cost run time in the hot loop), and becomes a part of its own."""
        if weight(stmt, self.weights) <= self.limit or not isinstance(stmt, ir.If):
            return stmt
        return ir.If(stmt.outs, stmt.cond, self.block(stmt.then), self.block(stmt.orelse), stmt.loc)


def outline_module(module, limit):
    """A module in which no function body (outside its nested regions' own parts) has
    much more than ``limit`` applications; ``module`` itself is unchanged.  Parts come
    before the function that calls them, so the entry stays last."""
    taken = {f.name for f in module.functions}
    functions = []
    for fn in module.functions:
        outliner = Outliner(fn, limit, taken)
        body = outliner.block(fn.body)
        if not outliner.parts:
            functions.append(fn)
            continue
        functions.extend(outliner.parts)
        functions.append(ir.Function(fn.name, fn.params, body, fn.loc, fn.source_lines))
    return ir.Module(functions)
