"""sstad: source-to-source automatic differentiation for Python and NumPy.

sstad compiles a function from its source, so the function must be defined in a file (or
an IPython/Jupyter cell).  Example, in a ``.py`` file::

    import numpy as np
    import sstad

    @sstad.jit
    def norm(x):
        s = 0.0
        for v in x:
            s += v * v
        return np.sqrt(s)

    assert norm(np.array([3.0, 4.0])) == 5.0
"""
import importlib

from sstad import errors  # noqa: F401

__version__ = "0.1.0"
from sstad.api import dump, jit  # noqa: F401
from sstad.transforms import grad, pullback, value_and_grad, vjp  # noqa: F401
from sstad.custom import custom_jvp, custom_vjp, primitive, remat, stop_gradient  # noqa: F401
from sstad.jacobians import hessian, hvp, jacfwd, jacrev, jvp, pushforward  # noqa: F401

jacobian = jacrev      # JAX's name: reverse mode, a row per output element
from sstad.backend import source_key as _source_key

_source_key.mark_pristine()       # the rule tables as imported (see sstad/backend/source_key.py)

# Imported at first use (`sstad.optim.adam`, `from sstad import checkpoint`): they pull in
# mpi4py, ml_dtypes and the like, which a program that only differentiates never needs.
_SUBMODULES = ("distributed", "tree", "optim", "checkpoint", "parallel")


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"sstad.{name}")
    raise AttributeError(f"module 'sstad' has no attribute {name!r}")

__all__ = ["jit", "dump", "grad", "value_and_grad", "vjp", "pullback", "jvp", "pushforward", "jacfwd",
           "jacrev", "jacobian", "hessian", "hvp", "custom_vjp", "custom_jvp", "primitive", "remat",
           "stop_gradient", "errors", "optim"]
