"""Name resolution: locals, enclosing lowering scopes, closure cells, globals, builtins."""
from __future__ import annotations

import builtins

import gast


class Scope:
    """The names of one function body being lowered (the entry, an inlined helper or a
    nested ``def``/``lambda``).  ``parent`` is the scope a nested function was defined
    in; the outermost scope of a Python function object sees its cells and globals."""

    def __init__(self, env, local_names, filename, parent=None, fn_globals=None, cells=None):
        self.env = env
        self.local_names = local_names
        self.filename = filename
        self.parent = parent
        self.globals = fn_globals if fn_globals is not None else {}
        self.cells = cells or {}
        self.ended_targets = frozenset()   # variables of comprehensions that have ended here


MISSING = object()


def resolve(scope, name):
    """``(where, value)``: where is 'local', 'cell', 'global', 'builtin' or None."""
    s = scope
    while True:
        if name in s.env:
            return "local", s.env[name]
        if name in s.local_names:
            return "unbound", MISSING
        if s.parent is None:
            break
        s = s.parent
    if name in s.cells:
        return ("cell", s.cells[name])
    if name in s.globals:
        return ("global", s.globals[name])
    if hasattr(builtins, name):
        return ("builtin", getattr(builtins, name))
    return None, MISSING


def assigned_names(body):
    """Names a function body binds (its locals), not descending into nested functions."""
    names = set()

    def visit(node):
        if isinstance(node, (gast.FunctionDef,)):
            names.add(node.name)
            return
        if isinstance(node, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.SetComp,
                             gast.DictComp)):
            return
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            names.add(node.id)
        for child in gast.iter_child_nodes(node):
            visit(child)
    for stmt in body:
        visit(stmt)
    return names
