"""Dataclasses, NamedTuples and SimpleNamespaces are pytrees: differentiable arguments,
results and values inside compiled code, like JAX's registered dataclasses.  Other objects
stay opaque: their attributes are compiled in and guarded."""
import dataclasses
import inspect
import re
import types

import numpy as np
import pytest

import pytree_object_cases as pc
import sstad
from sstad.errors import SstadError
from sstad.testing import check_grads

R = np.random.default_rng(3)
X = R.normal(size=(5, 3))
BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
KINDS = {"dataclass": pc.Params, "NamedTuple": pc.TupleParams, "SimpleNamespace": types.SimpleNamespace}


def params(kind):
    return pc.mlp_params(np.random.default_rng(7), KINDS[kind])


def numeric_grad(f, p, x, eps=1e-6):
    """The gradient of ``f`` with respect to the float fields of ``p``, by central
    differences, as a dict field -> array."""
    out = {}
    for name in ("W1", "b1", "W2", "b2"):
        value = np.asarray(getattr(p, name), np.float64)
        g = np.zeros(value.shape)
        for idx in np.ndindex(value.shape):
            for sign in (1, -1):
                nudged = value.copy()
                nudged[idx] += sign * eps
                moved = nudged if nudged.ndim else float(nudged)
                q = p._replace(**{name: moved}) if isinstance(p, tuple) else _replace(p, name, moved)
                g[idx] += sign * f(q, x) / (2 * eps)
        out[name] = g
    return out


def _replace(p, name, value):
    if isinstance(p, types.SimpleNamespace):
        return types.SimpleNamespace(**{**vars(p), name: value})
    return dataclasses.replace(p, **{name: value})


# --- arguments ------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_grad_with_respect_to_an_object_is_an_object_of_its_type(kind, backend):
    p = params(kind)
    g = sstad.jit(sstad.grad(pc.mlp), backend=backend)(p, X)
    assert type(g) is type(p)
    want = numeric_grad(pc.mlp, p, X)
    for name, value in want.items():
        np.testing.assert_allclose(getattr(g, name), value, rtol=1e-6, atol=1e-6)
    if kind != "NamedTuple":
        assert g.activation == "tanh"          # a static field comes back as it was


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_check_grads_of_an_mlp_over_objects(kind, backend):
    check_grads(pc.mlp, (params(kind), X), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_and_grad_vjp_and_jvp_over_a_dataclass(backend):
    p = params("dataclass")
    value, g = sstad.jit(sstad.value_and_grad(pc.mlp_by_activation), backend=backend)(p, X)
    assert value == pytest.approx(pc.mlp_by_activation(p, X))
    out, pull = sstad.vjp(pc.mlp_by_activation, p, X)
    dp, dx = pull(1.0)
    assert type(dp) is pc.Params and dp.activation == "tanh"
    for name in ("W1", "b1", "W2", "b2"):
        np.testing.assert_allclose(getattr(dp, name), getattr(g, name), rtol=1e-12)
    tangent = pc.Params(W1=np.ones((3, 4)), b1=np.zeros(4), W2=np.zeros(4), b2=0.0)
    _, t_out = sstad.jvp(pc.mlp_by_activation, (p, X), (tangent, np.zeros_like(X)))
    assert t_out == pytest.approx(np.sum(g.W1))
    relu = dataclasses.replace(p, activation="relu")
    check_grads(pc.mlp_by_activation, (relu, X), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_named_tuple_unpacks_and_indexes_as_a_tuple(backend):
    check_grads(pc.mlp_unpacked, (params("NamedTuple"), X), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_layers_in_a_list_with_methods_and_a_property(backend):
    net = pc.network(np.random.default_rng(1))
    check_grads(pc.network_loss, (net, X), backend=backend)
    check_grads(pc.calls_layers, (net, X), backend=backend)
    check_grads(pc.network_as_dict, (net, X), backend=backend)
    g = sstad.grad(pc.network_loss)(net, X)
    assert type(g) is pc.Network and type(g.layers) is list and type(g.layers[0]) is pc.Layer
    assert type(g.scales) is tuple and g.depth == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_static_field_is_compiled_in_and_recompiles_when_it_changes(backend):
    net = pc.network(np.random.default_rng(1))
    f = sstad.jit(pc.network_static_depth, backend=backend)
    assert f(net, X) == pytest.approx(pc.network_static_depth(net, X))
    one = dataclasses.replace(net, depth=1)
    assert f(one, X) == pytest.approx(pc.network_static_depth(one, X))
    assert len(f._compiled) == 2
    assert "for i in range(2):" in sstad.dump(pc.network_static_depth, net, X, emit="python")
    check_grads(pc.network_static_depth, (net, X), backend=backend)


def test_float_fields_of_a_dataclass_are_run_time_values():
    """Changing a field of a mutable dataclass argument is seen without recompiling."""
    f = sstad.jit(pc.scaled_by_params, backend="python")
    p = params("dataclass")
    assert f(X, p) == pytest.approx(pc.scaled_by_params(X, p))
    p.b2 = 5.0
    p.W1 = p.W1 * 2.0
    assert f(X, p) == pytest.approx(pc.scaled_by_params(X, p))
    assert len(f._compiled) == 1


def test_an_int_field_is_a_run_time_leaf_and_not_differentiable():
    p = pc.WithCount(W=R.normal(size=(3, 2)), steps=3)
    f = sstad.jit(pc.count_loss, backend="python")
    assert f(p, X) == pytest.approx(pc.count_loss(p, X))
    assert f(pc.WithCount(p.W, 4), X) == pytest.approx(pc.count_loss(pc.WithCount(p.W, 4), X))
    assert len(f._compiled) == 1
    with pytest.raises(SstadError, match="`p_steps` of type i64"):
        sstad.grad(pc.count_loss)(p, X)
    dp, _ = sstad.vjp(pc.count_loss, p, X)[1](1.0)
    assert type(dp) is pc.WithCount and dp.steps is None
    np.testing.assert_allclose(dp.W, 3 * np.sum(X, axis=0)[:, None] * np.ones((1, 2)))
    check_grads(pc.count_loss, (p, X), backend="python")


# --- built, replaced and returned inside ------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_object_built_by_replace_is_returned_with_its_type(backend):
    p = params("dataclass")
    out = sstad.jit(pc.sgd_step, backend=backend)(p, X, 0.1)
    want = pc.sgd_step(p, X, 0.1)
    assert type(out) is pc.Params and out.activation == "tanh"
    for name in ("W1", "b1", "W2", "b2"):
        np.testing.assert_allclose(getattr(out, name), getattr(want, name), rtol=1e-12)
    check_grads(pc.sgd_step, (p, X, 0.1), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_objects_built_inside_the_function(backend):
    p = params("dataclass")
    check_grads(pc.rebuilt_inside, (p.W1, p.b1, p.W2, p.b2, X), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("flag", [1.0, -1.0])
def test_replace_in_a_branch_and_in_a_loop(flag, backend):
    p = params("NamedTuple")
    check_grads(pc.replaced_in_branch, (p, X, flag), backend=backend)
    check_grads(pc.carried_in_loop, (p, X), backend=backend)
    check_grads(pc.as_dict, (p, X), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_frozen_dataclass_argument_and_result(backend):
    layer = pc.Layer(R.normal(size=(3, 4)), R.normal(size=4))
    out = sstad.jit(pc.layer_out, backend=backend)(layer, X)
    assert type(out) is pc.Layer
    np.testing.assert_allclose(out.W, pc.layer_out(layer, X).W, rtol=1e-12)
    check_grads(pc.layer_out, (layer, X), backend=backend)
    g = sstad.grad(lambda l, x: np.sum(l.apply(x)))(layer, X)
    assert type(g) is pc.Layer
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.W = None


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_returned_network_keeps_its_nesting(backend):
    net = pc.network(np.random.default_rng(2))
    out = sstad.jit(pc.returns_network, backend=backend)(net, X)
    want = pc.returns_network(net, X)
    assert type(out) is pc.Network and type(out.layers) is list and type(out.layers[1]) is pc.Layer
    np.testing.assert_allclose(out.layers[0].W, want.layers[0].W, rtol=1e-12)
    np.testing.assert_allclose(out.scales[0], want.scales[0], rtol=1e-12)
    check_grads(pc.returns_network, (net, X), backend=backend)


# --- opaque objects stay guarded; refusals -----------------------------------------------------
def test_a_plain_class_config_is_compiled_in_and_a_change_recompiles():
    f = sstad.jit(pc.scaled_by_config, backend="python")
    config = pc.Config(2.0)
    assert f(X, config) == pytest.approx(np.sum(X) * 2.0)
    config.scale = 3.0
    assert f(X, config) == pytest.approx(np.sum(X) * 3.0)
    assert "3.0" in sstad.dump(pc.scaled_by_config, X, config, emit="python")
    with pytest.raises(SstadError, match=r"argument 1 \(Config\)"):
        sstad.grad(pc.scaled_by_config, argnums=1)(X, config)


def test_objects_read_from_globals_are_guarded():
    f = sstad.jit(pc.reads_global_objects, backend="python")
    assert f(X) == pytest.approx(pc.reads_global_objects(X))
    pc.GLOBAL_CONFIG.steps = 5
    pc.GLOBAL_CONFIG.W = np.full((3, 2), 2.0)
    try:
        assert f(X) == pytest.approx(pc.reads_global_objects(X))
    finally:
        pc.GLOBAL_CONFIG.steps, pc.GLOBAL_CONFIG.W = 2, np.ones((3, 2))


def test_jacobians_and_hvp_take_objects():
    p = params("NamedTuple")
    x = X[0]
    jac = sstad.jacfwd(lambda x, p: np.tanh(x @ p.W1), argnums=0)(x, p)
    np.testing.assert_allclose(jac, (1 - np.tanh(x @ p.W1) ** 2)[:, None] * p.W1.T, rtol=1e-12)
    tangent = pc.TupleParams(W1=np.zeros((3, 4)), b1=np.zeros(4), W2=np.ones(4), b2=0.0)
    hv = sstad.hvp(pc.mlp, (p, X), (tangent, np.zeros_like(X)))
    assert type(hv) is pc.TupleParams
    h = np.tanh(X @ p.W1 + p.b1)
    np.testing.assert_allclose(hv.W2, 2 * h.T @ h @ np.ones(4), rtol=1e-10)


def _line_of(fn, tag):
    lines, start = inspect.getsourcelines(fn)
    return next(start + i for i, text in enumerate(lines) if text.rstrip().endswith(f"# ERR {tag}"))


@pytest.mark.parametrize("fn, args, tag, message", [
    (pc.builds_validated, (np.ones((2, 2)),), "post_init", "has a __post_init__"),
    (pc.reads_missing_field, (pc.mlp_params(np.random.default_rng(0)), X), "field",
     "Params has no field `W3`"),
    (pc.static_from_runtime, (pc.network(np.random.default_rng(0)), 2), "static",
     "the field `depth` of Network is static"),
    (pc.reads_dunder, (pc.mlp_params(np.random.default_rng(0)),), "dunder", "`.__dict__` of a Params"),
    (pc.calls_vars, (pc.mlp_params(np.random.default_rng(0)),), "vars", "cannot take a Params"),
])
def test_refusals_name_the_users_line(fn, args, tag, message):
    with pytest.raises(SstadError, match=re.escape(message)) as info:
        sstad.jit(fn, backend="python")(*args)
    assert re.search(rf"pytree_object_cases\.py:{_line_of(fn, tag)}\b", str(info.value))


def test_a_static_field_holding_an_array_is_refused():
    net = pc.Network(layers=[], scales=(), depth=np.ones(2))
    with pytest.raises(SstadError, match="`depth` of Network is static"):
        sstad.jit(pc.network_static_depth, backend="python")(net, X)
