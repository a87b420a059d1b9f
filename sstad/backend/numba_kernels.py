"""Elementwise array expressions as shared kernel functions, for the numba backend.

Numba compiles every array expression of a function as a kernel function of its own (a
whole typing, lowering and LLVM pass each), so a gradient of a few hundred lines with
thousands of them spent most of its compile time there, though most are the same few
expressions over other arrays (``v0 * v1``, ``v0 + v1``, ``-v0``).  The emitter writes
each one as a call of a module-level function named by the expression's shape, its
variables as parameters and its constants kept in the body (folded into the loop as
before), so Numba compiles each distinct expression once per argument types.
"""
from __future__ import annotations

import ast

from sstad.ir.names import RESERVED


class Kernels:
    """The kernel functions of one emitted module, one per distinct expression.

    ``taken``: the module's function names; ``module_names``: other names the module
    binds at top level (extern functions), which an expression reads as globals."""

    def __init__(self, taken, module_names=()):
        self.taken = set(taken)
        self.module_names = RESERVED | set(module_names)
        self.by_body = {}              # the expression over v0, v1, ... -> kernel name
        self.sources = []

    def call(self, text):
        """The text of a call computing the expression ``text`` through its kernel;
        ``text`` itself if it reads no local variable."""
        tree = ast.parse(text, mode="eval")
        params = {}                    # local name -> parameter, in reading order
        _Parametrise(self.module_names, params).visit(tree)
        if not params:
            return text
        body = ast.unparse(tree)
        name = self.by_body.get(body)
        if name is None:
            name = self._fresh_name()
            self.by_body[body] = name
            self.sources.append(f"def {name}({', '.join(params.values())}):\n    return {body}\n")
        return f"{name}({', '.join(params)})"

    def _fresh_name(self):
        k = len(self.by_body) + 1
        while f"ew{k}" in self.taken:
            k += 1
        self.taken.add(f"ew{k}")
        return f"ew{k}"

    def text(self):
        """The kernels' definitions, in the order they were first needed."""
        return "".join("\n\n" + source for source in self.sources)


class _Parametrise(ast.NodeVisitor):
    """Rename the local variables of an expression to v0, v1, ... in reading order."""

    def __init__(self, module_names, params):
        self.module_names = module_names
        self.params = params

    def visit_Name(self, node):
        if node.id not in self.module_names:
            node.id = self.params.setdefault(node.id, f"v{len(self.params)}")
