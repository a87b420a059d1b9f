"""NumPy functions given a number where they take arrays (NumPy converts it with
``np.asarray``; tests/test_scalar_arguments.py)."""
import numpy as np
def at1(a): return np.atleast_1d(a[0, 0]) * 2
def at2(a): return np.atleast_2d(a[0, 0]) * 2
def asarr(a): return np.asarray(a[0, 0]) * 2
def arr(a): return np.array(a[0, 0]) * 2
def ravel(a): return np.ravel(a[0, 0]) * 2
def zl(a): return np.zeros_like(a[0, 0]) + 1
def ndim(a): return np.ndim(a[0, 0]) + np.size(a[0,0]) + len(np.shape(a[0,0]))
def stack(a): return np.stack([a[0, 0], a[1, 1]])
def hst(a): return np.hstack([a[0, 0], a[1, 1]])
def hst_mixed(a): return np.hstack([a[0, 0], a[1], a[2, 2]])
def concat(a): return np.concatenate([np.array([a[0, 0]]), a[1]])
def sumsc(a): return np.sum(a[0, 0]) + np.mean(a[0, 1]) + np.max(a[1, 1])
def clip(a): return np.clip(a[0, 0], 0, 1)
def where(a): return np.where(a[0, 0] > 1, a[0, 1], 0.0)
def exp(a): return np.exp(a[0, 0])
def reshape(a): return np.reshape(a[0, 0], (1, 1))
def expand(a): return np.expand_dims(a[0, 0], 0)
def sqrt(a): return np.sqrt(a[0, 0]) + np.abs(a[0, 1])
def fullsc(a): return np.full(3, a[0, 0])
def isnan(a): return np.isnan(a[0, 0])
def roundsc(a): return np.round(a[0, 0], 1)
def dotsc(a): return np.dot(a[0, 0], a[0, 1])
def outer(a): return np.outer(a[0, 0], a[1])
def cumsum(a): return np.cumsum(a[0, 0])
def sign(a): return np.sign(a[0, 0])


CASES = [fn for name, fn in list(globals().items()) if callable(fn) and not name.startswith(("_", "np", "every"))]


def every_one(a):
    """All the cases in one function (one Numba compilation), as one float."""
    total = 0.0
    for fn in CASES:
        total = total + np.sum(fn(a) * 1.0)
    return total
