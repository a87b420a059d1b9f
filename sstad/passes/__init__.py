"""Named IR passes.  Each returns True if it changed the module; the verifier runs after
every pass, and ``sstad dump --after NAME`` shows the IR after it.

Passes run in two phases: ``"ad"``, on a function about to be differentiated (so dead
code has no derivative work, and nothing runs a rule where no value needs it), and
``"backend"``, on what a backend will emit (the primal or the derivative).  A pass
declares the phases it belongs to; a pass that is only valid once no transform will
read the IR again (an outliner of loop regions, say, where a ``Call`` would otherwise
look like recursion to reverse mode) registers for ``"backend"`` only."""
import contextlib
import contextvars

from sstad.ir.verify import verify_module

PASSES = {}
PHASES = ("ad", "backend")


def register_pass(name, phases=PHASES):
    def register(fn):
        unknown = set(phases) - set(PHASES)
        if unknown:
            raise ValueError(f"unknown pass phases {sorted(unknown)}; phases: {PHASES}")
        fn.phases = tuple(phases)
        PASSES[name] = fn
        return fn
    return register


class Switch:
    """A pass's on/off state for what is compiled within ``with switch(on):``."""

    every = []          # all switches: their states are part of a compilation's disk key

    def __init__(self, name, default):
        self._var = contextvars.ContextVar(name, default=default)
        Switch.every.append(self)

    def get(self):
        return self._var.get()

    @contextlib.contextmanager
    def __call__(self, on=True):
        token = self._var.set(on)
        try:
            yield
        finally:
            self._var.reset(token)


def switch_states():
    """(name, state) of every switch: code compiled under other states is other code."""
    return tuple(sorted((s._var.name, repr(s.get())) for s in Switch.every))


def run_passes(module, until=None, phase="backend"):
    """Run the pipeline of ``phase`` in order (stopping after ``until`` if given)."""
    for name, fn in PASSES.items():
        if phase in fn.phases:
            fn(module)
            verify_module(module)
        if name == until:
            break
    return module


PIPELINE = ("simplify", "broadcasts", "shape_speculation", "restores", "cse", "dce", "copies", "hoist_lists",
            "overlap", "slice_adjoints")

from sstad.passes import simplify, broadcasts, shape_speculation, restores, cse, dce, copies, hoist_lists, overlap, slice_adjoints  # noqa: E402,F401  (registers)

from sstad.passes import loop_fusion  # noqa: E402,F401  (the emitter's decisions: their switches are keyed)

# the pipeline's order, whatever order the modules were first imported in (one pass's
# module may import another's)
PASSES.update({name: PASSES.pop(name) for name in PIPELINE})
