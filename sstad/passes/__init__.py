"""Named IR passes.  Each returns True if it changed the module; the verifier runs after
every pass, and ``sstad dump --after NAME`` shows the IR after it."""
from sstad.ir.verify import verify_module

PASSES = {}


def register_pass(name):
    def register(fn):
        PASSES[name] = fn
        return fn
    return register


def run_passes(module, until=None):
    """Run the pipeline in order (stopping after ``until`` if given)."""
    for name, fn in PASSES.items():
        fn(module)
        verify_module(module)
        if name == until:
            break
    return module


from sstad.passes import simplify, broadcasts, cse, dce  # noqa: E402,F401  (registers, in pipeline order)
