"""Elementwise array expressions as shared kernel functions, for the numba backend.

Numba lowers every array expression of a function as a loop of its own (its kernel is
typed, lowered and optimised separately), so a generated gradient of 300 lines with 1839
of them compiled the same few dozen expressions (``v0 * v1``, ``v0 + v1``, ``-v0``) over
and over.  The emitter writes an expression that occurs more than once as a call of a
module-level function, its variables as parameters and its constants kept in the body
(folded into the loop as before), so Numba compiles each distinct expression once per
argument types and the calling function holds a call.  An in-place update of an array
(``g += e``, which Numba also lowers as a loop of its own at each site) is shared the same
way, as a function whose body is the update.  Inside loops the expressions stay where
they are: a call per iteration costs run time on small arrays, and a loop body is
compiled once however many times it runs.
"""
from __future__ import annotations

import ast
import collections
import re

from sstad.backend.numba_linking import CALLEE_MARK
from sstad.ir.names import RESERVED


class Kernels:
    """The kernel functions of one emitted module, one per expression that occurs more
    than once (an expression of its own is left where it is: a kernel would only add a
    function for Numba to compile).

    ``taken``: the module's function names; ``module_names``: other names the module
    binds at top level (extern functions), which an expression reads as globals."""

    def __init__(self, taken, module_names=()):
        self.taken = set(taken)
        self.module_names = RESERVED | set(module_names)
        self.sites = []                # (expression text, body, call arguments) per site
        self.uses = collections.Counter()    # body -> sites

    def call(self, text):
        """A placeholder for the expression ``text``, replaced by :meth:`resolve` with a
        call of its kernel or with ``text`` itself."""
        return self._site(text, "eval", "return ")

    def update(self, text):
        """A placeholder for the statement ``text`` (an in-place update of an array), as
        :meth:`call` for an expression."""
        return self._site(text, "exec", "")

    def _site(self, text, mode, keyword):
        tree = ast.parse(text, mode=mode)
        params = {}                    # local name -> parameter, in reading order
        _Parametrise(self.module_names, params).visit(tree)
        if not params:
            return text
        body = keyword + ast.unparse(tree)
        self.sites.append((text, body, list(params)))
        self.uses[body] += 1
        return f"{_SITE}{len(self.sites) - 1}{_SITE}"

    def resolve(self, source):
        """``source`` with its placeholders replaced, and the kernels' definitions ahead
        of the first function, in the order the kernels are first used."""
        names, definitions = {}, []
        self.taken |= set(re.findall(r"\bew[0-9]+\b", source))     # a user's variable `ew1`
        for text, body, args in self.sites:
            if self.uses[body] > 1 and body not in names:
                names[body] = self._fresh_name()
                params = ", ".join(f"v{k}" for k in range(len(args)))
                definitions.append(f"\n\n{CALLEE_MARK}\ndef {names[body]}({params}):\n    {body}\n")

        def site(match):
            text, body, args = self.sites[int(match.group(1))]
            return f"{names[body]}({', '.join(args)})" if body in names else text
        source = re.sub(f"{_SITE}([0-9]+){_SITE}", site, source)
        first = re.search(r"\n\n(# callee[^\n]*\n)?def ", source).start()       # a part's mark too
        return source[:first] + "".join(definitions) + source[first:]

    def _fresh_name(self):
        k = 1
        while f"ew{k}" in self.taken:
            k += 1
        self.taken.add(f"ew{k}")
        return f"ew{k}"


_SITE = "__kernel_site__"      # no emitted name contains two underscores at both ends


class _Parametrise(ast.NodeVisitor):
    """Rename the local variables of an expression to v0, v1, ... in reading order."""

    def __init__(self, module_names, params):
        self.module_names = module_names
        self.params = params

    def visit_Name(self, node):
        if node.id not in self.module_names:
            node.id = self.params.setdefault(node.id, f"v{len(self.params)}")
