"""Dict comprehensions over a static sequence (``{k: v - lr * g[k] for k, v in
params.items()}``, the optimiser step of every tutorial) compile as the dict literal they
unroll to; a run-time sequence or a run-time ``if`` is refused at the user's line."""
import numpy as np
import pytest

import sstad
from sstad.errors import SstadTypeError
from sstad.testing import check_grads


def loss(params, x):
    return np.sum(np.tanh(x @ params["W"] + params["b"]) ** 2)


def sgd_then_loss(params, x, lr=0.1):
    grads = sstad.grad(loss)(params, x)
    stepped = {name: p - lr * grads[name] for name, p in params.items()}
    return loss(stepped, x)


def scaled_except_bias(params):
    scaled = {k: 2.0 * params[k] for k in params if k != "b"}
    return scaled["W"].sum() + len(scaled)


def squares_by_name(a, b):
    d = {name: v ** 2 for name, v in zip(("a", "b"), (a, b))}
    name = 3.0                                  # the target does not leak out of the comprehension
    return d["a"] + d["b"] * name


def keyed_by_runtime_values(x):
    d = {i: v for i, v in enumerate(x)}
    return d[0]


def filtered_at_runtime(params):
    d = {k: v for k, v in params.items() if v.sum() > 0}
    return d["W"].sum()


def _params():
    r = np.random.default_rng(3)
    return {"W": r.normal(size=(3, 2)), "b": r.normal(size=2)}


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_a_dict_comprehension_over_a_dicts_items_through_a_gradient(backend):
    check_grads(sgd_then_loss, (_params(), np.random.default_rng(4).normal(size=(4, 3))), backend=backend)


def test_a_static_if_filters_the_keys():
    p = _params()
    assert sstad.jit(scaled_except_bias, backend="python")(p) == pytest.approx(scaled_except_bias(p))
    assert sstad.jit(squares_by_name, backend="python")(1.5, 2.0) == squares_by_name(1.5, 2.0)


def test_keys_from_a_run_time_sequence_are_refused_at_the_line():
    with pytest.raises(SstadTypeError, match=r"test_dict_comprehensions.py:\d+:\d+: a dict comprehension needs "
                                             r"a sequence known while compiling"):
        sstad.jit(keyed_by_runtime_values, backend="python")(np.ones(3))


def test_a_run_time_if_is_refused_at_its_line():
    with pytest.raises(SstadTypeError, match=r"test_dict_comprehensions.py:\d+:\d+: the `if` of a dict "
                                             r"comprehension must be decided while compiling"):
        sstad.jit(filtered_at_runtime, backend="python")(_params())
