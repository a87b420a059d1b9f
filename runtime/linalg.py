"""Products and ``np.linalg``."""
import numpy as np

from sstad.runtime.primitive import numpy_primitive

for _name in "dot vdot inner outer trace diag kron cross matmul".split():
    numpy_primitive(_name, getattr(np, _name))

for _name in "solve inv det cholesky norm".split():
    numpy_primitive("linalg." + _name, getattr(np.linalg, _name))
