"""Find a function's source and its gast node; positions are absolute in the user's file."""
from __future__ import annotations

import linecache
import os
import types

import gast

from sstad.errors import SourceError, UnsupportedSyntaxError
from sstad.ir.nodes import Loc

_parsed: dict = {}


def _parse_file(filename):
    lines = linecache.getlines(filename)
    if not lines:
        raise SourceError(f"cannot read the source file {filename!r}",
                          hint="sstad compiles functions defined in files, not in a REPL or exec'd strings")
    key = (filename, len(lines), hash("".join(lines)))
    if key not in _parsed:
        _parsed[key] = gast.parse("".join(lines))
    return _parsed[key]


def function_node(fn: types.FunctionType):
    """The gast ``FunctionDef`` or ``Lambda`` node of ``fn`` and its file name."""
    code = fn.__code__
    filename = code.co_filename
    if filename.startswith("<"):
        raise SourceError(f"the source of {fn.__qualname__} is not in a file ({filename})",
                          hint="define the function in a .py file")
    filename = os.path.abspath(filename) if os.path.exists(filename) else filename
    linecache.checkcache(filename)
    tree = _parse_file(filename)
    found = _nodes.get((code, id(tree)))
    if found is None:
        found = _nodes[(code, id(tree))] = _find(fn, code, tree, filename)
    return found


_nodes: dict = {}     # (code object, parsed file) -> (node, filename): rules are inlined often


def _find(fn, code, tree, filename):
    name = fn.__name__
    candidates = []
    for node in gast.walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if code.co_firstlineno in (first, node.lineno):
                candidates.append(node)
        elif isinstance(node, gast.Lambda) and name == "<lambda>" and node.lineno == code.co_firstlineno:
            params = [a.id for a in node.args.args]
            if params == list(code.co_varnames[:code.co_argcount]):
                candidates.append(node)
    if not candidates:
        raise SourceError(f"cannot find the source of {fn.__qualname__} in {filename}",
                          hint="was the file edited after the function was defined?")
    if isinstance(candidates[0], gast.AsyncFunctionDef):
        raise UnsupportedSyntaxError("`async def` is not supported", loc_of(candidates[0], filename),
                                     "compile synchronous code only")
    return candidates[0], filename


def loc_of(node, filename):
    return Loc(filename, getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0)


def closure_values(fn):
    """Free variables of ``fn`` that Python captured in cells, by name."""
    if not fn.__closure__:
        return {}
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
        try:
            out[name] = cell.cell_contents
        except ValueError:       # an empty cell: assigned later in the enclosing function
            pass
    return out


def is_user_function(obj):
    """A plain Python function whose source we follow (not NumPy's, not ours)."""
    if not isinstance(obj, types.FunctionType):
        return False
    module = getattr(obj, "__module__", "") or ""
    if module.startswith("sstad."):
        return module.startswith("sstad.runtime")      # rules and their helpers
    return module.split(".")[0] not in ("numpy", "numba", "math")


