"""A method of an object read from globals (``model.loss(w, x)``, a class as tutorials
write it) is inlined with ``self`` the object, whose attributes are read as any object's:
arrays at each call, other values compiled in and checked.  ``sstad.grad(model.loss)``
itself differentiates with respect to the arguments given at the call (``self`` is passed
as bound)."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads


class TwoLayerNet:
    def __init__(self, rng, n_in, n_hidden, scale=1.0):
        self.W1 = 0.5 * rng.normal(size=(n_in, n_hidden))
        self.w2 = rng.normal(size=n_hidden)
        self.scale = scale

    def forward(self, x):
        return np.tanh(x @ self.W1) @ self.w2 * self.scale

    def loss(self, x, y):
        return np.mean((self.forward(x) - y) ** 2)


NET = TwoLayerNet(np.random.default_rng(0), 3, 4)


def input_sensitivity(x, y):
    return NET.loss(x, y) + 0.1 * np.sum(x ** 2)


def _args():
    r = np.random.default_rng(1)
    return r.normal(size=(5, 3)), r.normal(size=5)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_a_global_objects_method_is_inlined(backend):
    check_grads(input_sensitivity, _args(), backend=backend)


def test_the_objects_attributes_are_read_as_they_are_now():
    f = sstad.jit(input_sensitivity, backend="python")
    old_W1, old_scale = NET.W1, NET.scale
    try:
        for W1, scale in [(old_W1, 1.0), (2.0 * old_W1, 1.0), (old_W1, 3.0)]:
            NET.W1, NET.scale = W1, scale
            assert f(*_args()) == pytest.approx(input_sensitivity(*_args()), rel=1e-12)
    finally:
        NET.W1, NET.scale = old_W1, old_scale


def test_a_bound_method_given_to_grad_differentiates_the_arguments_given():
    x, y = _args()
    np.testing.assert_allclose(sstad.grad(NET.loss)(x, y), sstad.grad(TwoLayerNet.loss, argnums=1)(NET, x, y),
                               rtol=1e-13)
    check_grads(NET.loss, (x, y), backend="python")
