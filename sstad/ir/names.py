"""Readable, unique Python names for IR values, derived from the user's names."""
import builtins
import keyword
import re

RESERVED = set(keyword.kwlist) | set(dir(builtins)) | {"np", "math", "rt"}


class Namer:
    def __init__(self, taken=()):
        self.names = {}
        self.taken = set(taken) | RESERVED
        self.counters = {}

    def fresh(self, hint):
        if not hint or hint == "%t":          # a temporary: t1, t2, ...
            return self._numbered("t", sep="")
        base = re.sub(r"\W", "_", hint).strip("_") or "v"
        if base[0].isdigit():
            base = "v" + base
        if base not in self.taken:
            self.taken.add(base)
            return base
        return self._numbered(base, sep="_")

    def _numbered(self, base, sep):
        k = self.counters.get(base, 0)
        while True:
            k += 1
            name = f"{base}{sep}{k}"
            if name not in self.taken:
                self.counters[base] = k
                self.taken.add(name)
                return name

    def __call__(self, var):
        """The name of ``var``, chosen on first sight."""
        if var not in self.names:
            self.names[var] = self.fresh(var.hint)
        return self.names[var]

    def alias(self, var, other):
        """``var`` lives in the same Python variable as ``other`` (in-place, loop-carried)."""
        self.names[var] = self(other)
