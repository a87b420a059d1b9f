"""The ANF IR: one primitive application per binding, structured control flow.

Every value is a :class:`Var` bound exactly once.  Control flow is structured: an
:class:`If` has two blocks whose results become its outputs; a :class:`While` or
:class:`For` has explicit loop-carried parameters, and its outputs are their final
values.  There are no jumps: ``break``, ``continue`` and ``return`` are lowered to flags.
"""
from __future__ import annotations

import collections
import itertools
from dataclasses import dataclass, field

import numpy as np

from sstad.runtime import abstract as A

_ids = itertools.count()


@dataclass(frozen=True)
class Loc:
    """A position in the user's source."""
    file: str
    line: int
    col: int = 0

    def __str__(self):
        return f"{self.file}:{self.line}"


class Var:
    """A value.  ``hint`` is the user's name for it (``x``), kept for readable output."""
    __slots__ = ("hint", "type", "id")

    def __init__(self, hint, type):
        self.hint = hint
        self.type = type
        self.id = next(_ids)

    def __repr__(self):
        return f"{self.hint}#{self.id}"


class Const:
    """A literal: a Python or NumPy scalar, a string or None."""
    __slots__ = ("value", "type")

    def __init__(self, value, type=None):
        self.value = value
        self.type = type if type is not None else A.of_value(value)

    def __repr__(self):
        return repr(self.value)


class Undef:
    """A placeholder of a known type for a value that a path never defines.

    Python would raise ``UnboundLocalError`` if it were read; emitting a dummy of the
    right type keeps the code type-stable for Numba."""
    __slots__ = ("type",)

    def __init__(self, type):
        self.type = type

    def __repr__(self):
        return f"undef[{self.type}]"


Atom = Var | Const | Undef


@dataclass(eq=False)
class Block:
    params: list[Var]
    stmts: list
    results: list


@dataclass(eq=False)
class Apply:
    outs: list[Var]
    prim: object            # runtime.primitive.Primitive
    args: list
    params: dict
    loc: Loc | None = None


@dataclass(eq=False)
class Call:
    """A call to another function of the module (a user helper, possibly recursive)."""
    outs: list[Var]
    callee: "Function"
    args: list
    loc: Loc | None = None


@dataclass(eq=False)
class If:
    outs: list[Var]
    cond: object
    then: Block
    orelse: Block
    loc: Loc | None = None


@dataclass(eq=False)
class While:
    """``outs = while cond(params): params = body(params)``, starting from ``inits``."""
    outs: list[Var]
    inits: list
    cond: Block             # params = carried; results = [bool]
    body: Block             # params = carried; results = next carried
    loc: Loc | None = None


@dataclass(eq=False)
class For:
    """``for index in range(start, stop, step)`` with carried values ``inits``."""
    outs: list[Var]
    inits: list
    start: object
    stop: object
    step: object
    body: Block             # params = [index] + carried; results = next carried
    loc: Loc | None = None


@dataclass(eq=False)
class Function:
    name: str
    params: list[Var]
    body: Block
    loc: Loc | None = None
    source_lines: dict = field(default_factory=dict)   # file -> lines, for `# file:line`

    @property
    def out_types(self):
        return [r.type for r in self.body.results]


@dataclass(eq=False)
class Module:
    """The entry function and every function it calls, in dependency order."""
    functions: list[Function]

    @property
    def entry(self):
        return self.functions[-1]


def carried(loop):
    """A loop's carried parameters (a ``For`` body's first parameter is its index)."""
    return loop.body.params[1:] if isinstance(loop, For) else loop.body.params


def regions(stmt):
    """The blocks nested directly in a statement."""
    if isinstance(stmt, If):
        return [stmt.then, stmt.orelse]
    if isinstance(stmt, While):
        return [stmt.cond, stmt.body]
    if isinstance(stmt, For):
        return [stmt.body]
    return []


def operands(stmt):
    """The atoms a statement reads directly (not those read inside its regions)."""
    if isinstance(stmt, (Apply, Call)):
        return list(stmt.args)
    if isinstance(stmt, If):
        return [stmt.cond]
    if isinstance(stmt, While):
        return list(stmt.inits)
    if isinstance(stmt, For):
        return [stmt.start, stmt.stop, stmt.step, *stmt.inits]
    raise TypeError(stmt)


def reads(stmt):
    """Every atom a statement reads, inside its regions too (results included)."""
    yield from operands(stmt)
    for region in regions(stmt):
        for inner in region.stmts:
            yield from reads(inner)
        yield from region.results


def walk(block):
    """Every statement in a block and its nested regions, outer first."""
    for stmt in block.stmts:
        yield stmt
        for region in regions(stmt):
            yield from walk(region)


def blocks(block):
    """``block`` and every block nested in it, outer first."""
    yield block
    for stmt in block.stmts:
        for region in regions(stmt):
            yield from blocks(region)


def use_counts(block):
    """How many times each Var is read in ``block``: operands and region results."""
    reads = [a for s in walk(block) for a in operands(s)]
    reads += [r for s in walk(block) for region in regions(s) for r in region.results]
    reads += block.results
    return collections.Counter(a for a in reads if isinstance(a, Var))


def last_uses(block):
    """{var: the position in ``block.stmts`` of the last statement that reads it} (a read
    anywhere inside a statement's regions counts for that statement; the block's own
    results are position ``len(block.stmts)``).  A var is live after position k, for a
    value defined at or before k, exactly when its last use is after k."""
    last = {}
    for k, stmt in enumerate(block.stmts):
        for a in reads(stmt):
            if isinstance(a, Var):
                last[a] = k
    for r in block.results:
        if isinstance(r, Var):
            last[r] = len(block.stmts)
    return last


def live_after(block, k):
    """The vars defined by ``block`` (its parameters, or statements up to position ``k``)
    that something after position ``k`` still reads."""
    defined = set(block.params) | {o for stmt in block.stmts[:k + 1] for o in stmt.outs}
    return {v for v, at in last_uses(block).items() if at > k and v in defined}


def is_scalar_const(atom, value=None):
    return isinstance(atom, Const) and isinstance(atom.value, (int, float, np.number)) and (
        value is None or atom.value == value)
