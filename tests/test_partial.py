"""functools.partial in compiled code (``f = partial(loss, X=X, y=y)``, a module's
``act = partial(leaky_relu, slope=0.1)``): calls of it are inlined with its arguments
first, keywords at the call overriding its own, as in Python."""
import functools

import numpy as np
import pytest

import sstad
from sstad.errors import UnsupportedSyntaxError
from sstad.testing import check_grads


def leaky_relu(x, slope=0.01):
    return np.where(x > 0, x, slope * x)


ACTIVATION = functools.partial(leaky_relu, slope=0.2)
CLIP = functools.partial(np.clip, a_min=-1.5, a_max=1.5)
SHIFTED = functools.partial(np.add, np.ones(3))


def loss(w, X, y, lam=0.1):
    return np.mean((ACTIVATION(X @ w) - y) ** 2) + lam * np.sum(w ** 2)


def objective(w, X, y):
    f = functools.partial(loss, X=X, y=y)
    g = functools.partial(loss, lam=0.5)
    return f(w) + f(w, lam=1.0) + g(w, X, y) + np.sum(CLIP(3.0 * w)) * callable(f)


def reads_a_partial_holding_an_array(w):
    return np.sum(SHIFTED(w))


def _args():
    r = np.random.default_rng(11)
    return r.normal(size=3), r.normal(size=(6, 3)), r.normal(size=6)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_partials_made_inside_and_read_from_globals(backend):
    check_grads(objective, _args(), backend=backend)


def test_a_global_partial_holding_an_array_is_refused_at_the_call():
    with pytest.raises(UnsupportedSyntaxError, match=r"test_partial.py:\d+:\d+: a functools.partial made outside "
                                                     r"the compiled function holds an array"):
        sstad.jit(reads_a_partial_holding_an_array, backend="python")(np.ones(3))
