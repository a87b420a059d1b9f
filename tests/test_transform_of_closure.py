"""``sstad.grad`` inside compiled code: of a module-level function it works (argnums picks
what is differentiated); of a nested function or lambda that reads the enclosing
function's values it is refused, naming those values and the module-level form to write."""
import numpy as np
import pytest

import sstad
from sstad.errors import UnsupportedSyntaxError
from sstad.testing import check_grads

W = np.linspace(-0.5, 0.5, 6).reshape(3, 2)
X = np.arange(6.0).reshape(2, 3) / 6


def loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def step_module_level(w, x):
    return np.sum((w - 0.1 * sstad.grad(loss)(w, x)) ** 2)


def step_lambda(w, x):
    g = sstad.grad(lambda v: loss(v, x))(w)
    return w - 0.1 * g


def step_nested_def(w, x):
    def inner(v):
        return loss(v, x) * scale
    scale = 2.0
    return sstad.value_and_grad(inner)(w)


def step_pushforward(w, x):
    return sstad.pushforward(lambda v: loss(v, x))(w, w)


def test_the_module_level_form_works_and_is_differentiated_again():
    check_grads(step_module_level, (W, X), backend="python")


@pytest.mark.parametrize("fn,written,reads", [
    (step_lambda, "sstad.grad", "`x`"),
    (step_nested_def, "sstad.value_and_grad", "`scale`, `x`"),
    (step_pushforward, "sstad.pushforward", "`x`"),
])
def test_a_transform_of_a_closure_says_what_to_write(fn, written, reads):
    with pytest.raises(UnsupportedSyntaxError) as info:
        sstad.jit(fn, backend="python")(W, X)
    message = str(info.value)
    assert "test_transform_of_closure.py:" in message
    assert f"`{written}` of a nested function or lambda is not supported inside compiled code (it reads {reads}" \
        in message
    assert "def f(v, " in message and "define `f` at module level" in message
