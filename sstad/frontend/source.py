"""Find a function's source and its gast node; positions are absolute in the user's file."""
from __future__ import annotations

import linecache
import os
import site
import sysconfig
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
    if isinstance(fn, types.MethodType):
        shown = fn.__func__.__qualname__
        raise SourceError(f"sstad compiles Python functions from their source; `{shown}` is a method bound "
                          "to an object", hint=f"compile a function that calls it, `def loss(*args): return "
                          f"obj.{fn.__name__}(*args)` with the object a global (its array attributes are read "
                          "at each call), or pass the object as an argument (a dataclass)")
    if not isinstance(fn, types.FunctionType):
        shown = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
        raise SourceError(f"sstad compiles Python functions from their source; `{shown}` is not one",
                          hint=f"wrap it in a function of your own: `def f(x): return {shown}(x)`")
    code = fn.__code__
    filename = code.co_filename
    # IPython and Jupyter keep each cell's source in linecache, named by a hash of the cell.
    if filename.startswith("<") and not filename.startswith("<ipython-input-"):
        raise SourceError(f"the source of {fn.__qualname__} is not in a file ({filename})",
                          hint="define the function in a .py file (or an IPython/Jupyter cell)")
    filename = os.path.abspath(filename) if os.path.exists(filename) else filename
    linecache.checkcache(filename)
    tree = _parse_file(filename)
    found = _nodes.get((code, id(tree)))
    if found is None:
        found = _nodes[(code, id(tree))] = _find(fn, code, tree, filename)
    return found


_nodes: dict = {}     # (code object, parsed file) -> (node, filename): rules are inlined often


_defined: dict = {}   # id(parsed file) -> {(name, line): the nodes defining it there}


def _definitions(tree):
    """Every function and lambda of a parsed file by (name, line): a def under the line
    of its first decorator and its own; a lambda under its line (one walk per file)."""
    if id(tree) not in _defined:
        index = {}
        for node in gast.walk(tree):
            if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                for line in {first, node.lineno}:
                    index.setdefault((node.name, line), []).append(node)
            elif isinstance(node, gast.Lambda):
                index.setdefault(("<lambda>", node.lineno), []).append(node)
        _defined[id(tree)] = index
    return _defined[id(tree)]


def _find(fn, code, tree, filename):
    name = fn.__name__
    candidates = [node for node in _definitions(tree).get((name, code.co_firstlineno), ())
                  if not isinstance(node, gast.Lambda)
                  or [a.id for a in node.args.args] == list(code.co_varnames[:code.co_argcount])]
    if len(candidates) > 1 and name == "<lambda>":       # several lambdas on one line
        candidates = [n for n in candidates if _spans(n, code)]
        if len(candidates) != 1:
            raise SourceError(f"cannot tell which lambda on line {code.co_firstlineno} of {filename} "
                              "this is", hint="put each lambda on a line of its own")
    if not candidates:
        raise SourceError(f"cannot find the source of {fn.__qualname__} in {filename}",
                          hint="was the file edited after the function was defined?")
    if isinstance(candidates[0], gast.AsyncFunctionDef):
        raise UnsupportedSyntaxError("`async def` is not supported", loc_of(candidates[0], filename),
                                     "compile synchronous code only")
    return candidates[0], filename


def _spans(node, code):
    """Does ``node``'s source span hold every position of ``code``'s instructions?"""
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    if not hasattr(code, "co_positions"):              # Python 3.10
        return False
    positions = [(line, col) for line, _, col, end in code.co_positions()
                 if line is not None and col is not None and end is not None and end > col]
    return bool(positions) and all(start <= p <= end for p in positions)


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
    """A plain Python function whose source sstad compiles: the user's own code,
    sstad's runtime (rules and their helpers), its optimizers (``sstad.optim``, NumPy
    code compiled into the caller) and the API functions that only compose transforms
    (``sstad.jvp``: marked ``sstad_from_source``), not library code (docs/architecture.md, decision 9)."""
    if not isinstance(obj, types.FunctionType):
        return False
    module = getattr(obj, "__module__", "") or ""
    if module.startswith("sstad."):
        return module.startswith(("sstad.runtime", "sstad.optim")) or getattr(obj, "sstad_from_source", False)
    return not is_library_function(obj)


LIBRARIES = {"numpy", "numba", "math", "scipy", "sklearn", "pandas", "jax", "torch", "tensorflow",
             "autograd", "sympy", "statsmodels", "networkx"}


def _library_roots():
    """Folders whose files are library code: the standard library and site-packages."""
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots.update(getattr(site, "getsitepackages", lambda: [])())
    if getattr(site, "ENABLE_USER_SITE", False):
        roots.add(site.getusersitepackages())
    return tuple(sorted({os.path.join(os.path.realpath(r), "") for r in roots if r}))


_LIBRARY_ROOTS = _library_roots()


def is_library_function(fn):
    """``fn`` is defined outside the user's files: in the standard library, under a
    site-packages (or dist-packages) folder, or in a module of a known library."""
    module = (getattr(fn, "__module__", "") or "").split(".")[0]
    if module in LIBRARIES:
        return True
    filename = fn.__code__.co_filename
    if filename.startswith("<frozen"):                # the interpreter's own modules
        return True
    if filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    parts = path.split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts or path.startswith(_LIBRARY_ROOTS)
