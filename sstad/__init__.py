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
from sstad import errors  # noqa: F401

__version__ = "0.1.0"
from sstad.api import dump, jit  # noqa: F401
from sstad.transforms import grad, pullback, value_and_grad, vjp  # noqa: F401
from sstad.custom import custom_jvp, custom_vjp, primitive, remat, stop_gradient  # noqa: F401
from sstad.jacobians import hessian, hvp, jacfwd, jacrev, jvp, pushforward  # noqa: F401
from sstad import distributed  # noqa: F401
from sstad import tree  # noqa: F401
from sstad import optim  # noqa: F401
from sstad import checkpoint  # noqa: F401
from sstad import parallel  # noqa: F401

__all__ = ["jit", "dump", "grad", "value_and_grad", "vjp", "pullback", "jvp", "pushforward", "jacfwd",
           "jacrev", "hessian", "hvp", "custom_vjp", "custom_jvp", "primitive", "remat",
           "stop_gradient", "errors", "optim"]
