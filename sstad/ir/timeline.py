"""Program positions: when is a value read, and can a later point still reach it?

Each statement of a function gets a tick where it starts and one where it ends (its
regions lie between).  A value is defined at a tick (a block's parameters where the
block starts, an ``Apply``'s outs where it starts, a compound statement's outs where it
ends) and read at ticks (operands where their statement starts, a region's results
where the region ends).  A loop's regions (a ``While``'s test and body, a ``For``'s
body) span the ticks between its start and end: a read inside that span happens again
in the next iteration, so it comes *after* any point of the same span for a value
defined outside the loop.
"""
from collections import defaultdict

from sstad.ir import nodes as ir


class Timeline:
    def __init__(self, fn):
        self.tick = 0
        self.defined = {p: -1 for p in fn.params}
        self.read = defaultdict(list)       # var -> ticks
        self.span = {}                      # id(stmt) -> (start, end)
        self.loops = []                     # (start, end) of each loop statement
        self._block(fn.body)

    def _next(self):
        self.tick += 1
        return self.tick

    def _block(self, block):
        start = self._next()
        for p in block.params:
            self.defined[p] = start
        for stmt in block.stmts:
            self._stmt(stmt)
        end = self._next()
        for r in block.results:
            if isinstance(r, ir.Var):
                self.read[r].append(end)

    def _stmt(self, stmt):
        start = self._next()
        for a in ir.operands(stmt):
            if isinstance(a, ir.Var):
                self.read[a].append(start)
        for region in ir.regions(stmt):
            self._block(region)
        end = self._next()
        self.span[id(stmt)] = (start, end)
        if isinstance(stmt, (ir.While, ir.For)):
            self.loops.append((start, end))
        at = start if isinstance(stmt, (ir.Apply, ir.Call)) else end
        for o in stmt.outs:
            self.defined[o] = at

    def repeats(self, tick, point, var):
        """Does a read of ``var`` at ``tick`` run again after ``point`` with the same
        value: both inside a loop that ``var`` is defined outside of?"""
        born = self.defined.get(var, -1)
        return any(a < tick < b and a < point < b and not a < born < b for a, b in self.loops)
