"""Programs over dataclasses, NamedTuples and SimpleNamespaces (objects as pytrees), for
tests/test_pytree_objects.py.  Each is written as a user would write it with JAX."""
import dataclasses
import types
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np


# --- the types ------------------------------------------------------------------------------
@dataclass
class Params:
    """An MLP's parameters, with a string that picks the activation (a static leaf)."""
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: float
    activation: str = "tanh"


class TupleParams(NamedTuple):
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: float


@dataclass(frozen=True)
class Layer:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return x @ self.W + self.b

    def apply(self, x):
        return np.tanh(x @ self.W + self.b)

    @property
    def width(self):
        return self.W.shape[1]


@dataclass
class Network:
    """Layers in a list, a tuple of scales, and a static depth (JAX's static field)."""
    layers: list
    scales: tuple
    depth: int = field(default=2, metadata={"static": True})


@dataclass
class WithCount:
    """An int field is a run-time leaf, as in a tuple: not differentiable."""
    W: np.ndarray
    steps: int


@dataclass
class Validated:
    W: np.ndarray

    def __post_init__(self):
        if self.W.ndim != 2:
            raise ValueError("W must be a matrix")


class Config:
    """A plain class: an opaque object whose attributes are compiled in and guarded."""

    def __init__(self, scale):
        self.scale = scale


def mlp_params(r, cls=Params):
    values = dict(W1=r.normal(size=(3, 4)), b1=r.normal(size=4), W2=r.normal(size=4), b2=0.3)
    if cls is types.SimpleNamespace:
        return types.SimpleNamespace(**values, activation="tanh")
    return cls(**values)


def network(r):
    return Network(layers=[Layer(r.normal(size=(3, 4)), r.normal(size=4)),
                           Layer(r.normal(size=(4, 2)), r.normal(size=2))],
                   scales=(r.normal(size=2), 0.5))


# --- losses over objects ----------------------------------------------------------------------
def mlp(p, x):
    """Works for Params, TupleParams and a SimpleNamespace alike (attribute reads)."""
    h = x @ p.W1 + p.b1
    h = np.tanh(h)
    return np.sum((h @ p.W2 + p.b2) ** 2)


def mlp_by_activation(p, x):
    h = x @ p.W1 + p.b1
    h = np.tanh(h) if p.activation == "tanh" else np.maximum(h, 0.0)
    return np.sum((h @ p.W2 + p.b2) ** 2)


def mlp_unpacked(p, x):
    """A NamedTuple is a tuple too: unpacking and indexing."""
    W1, b1, W2, b2 = p
    return np.sum((np.tanh(x @ W1 + b1) @ p[2] + b2) ** 2)


def network_loss(net, x):
    h = x
    for layer in net.layers:
        h = layer.apply(h)
    return np.sum((h * net.scales[0]) ** 2) * net.scales[1] + net.layers[0].width


def network_static_depth(net, x):
    h = x
    for i in range(net.depth):
        h = np.tanh(h @ net.layers[i].W + net.layers[i].b)
    return np.sum(h ** 2)


def count_loss(p, x):
    return np.sum(x @ p.W) * p.steps


# --- objects built, replaced and returned inside ---------------------------------------------
def sgd_step(p, x, lr):
    """Returns a new Params: the parameters after one step on ``mlp`` (a returned object)."""
    h = np.tanh(x @ p.W1 + p.b1)
    return dataclasses.replace(p, W1=p.W1 * (1.0 - lr), W2=p.W2 - lr * np.sum(h, axis=0))


def rebuilt_inside(W1, b1, W2, b2, x):
    p = Params(W1=W1, b1=b1, W2=W2, b2=b2)
    q = TupleParams(W1, b1, W2, b2)
    s = types.SimpleNamespace(W1=W1, b1=b1, W2=W2, b2=b2)
    return mlp(p, x) + mlp(q, x) * 0.5 + mlp(s, x) * 0.25


def replaced_in_branch(p, x, flag):
    q = p._replace(W1=p.W1 * 2.0) if flag > 0.0 else p
    return mlp(q, x)


def carried_in_loop(p, x):
    for _ in range(3):
        p = p._replace(W1=p.W1 * 0.9, b2=p.b2 + 0.1)
    return mlp(p, x)


def as_dict(p, x):
    d = p._asdict()
    return np.sum(x @ d["W1"] + d["b1"])


def layer_out(layer, x):
    """Returns a Layer built inside (a frozen dataclass)."""
    return Layer(W=layer.W * np.sum(x), b=np.sin(layer.b))


def returns_network(net, x):
    first = net.layers[0]
    return Network(layers=[Layer(first.W * 2.0, first.b), net.layers[1]],
                   scales=(net.scales[0] * np.sum(x), net.scales[1]), depth=net.depth)


def scaled_by_config(x, config):
    return np.sum(x * config.scale)


def scaled_by_params(x, p):
    return np.sum(x @ p.W1) * p.b2


# --- refused --------------------------------------------------------------------------------
def builds_validated(W):
    v = Validated(W)          # ERR post_init
    return np.sum(v.W)


def reads_missing_field(p, x):
    return np.sum(x @ p.W3)   # ERR field


def static_from_runtime(net, n):
    return Network(net.layers, net.scales, depth=n)   # ERR static


def calls_layers(net, x):
    return np.sum(net.layers[1](net.layers[0](x)) ** 2)


def network_as_dict(net, x):
    d = dataclasses.asdict(net)
    return np.sum(x @ d["layers"][0]["W"]) * d["scales"][1] + d["depth"]


GLOBAL_PARAMS = TupleParams(W1=np.ones((3, 4)), b1=np.zeros(4), W2=np.ones(4), b2=0.5)
GLOBAL_CONFIG = WithCount(W=np.ones((3, 2)), steps=2)


def reads_global_objects(x):
    """Objects read from globals are not arguments: arrays are read afresh, numbers guarded."""
    return mlp(GLOBAL_PARAMS, x) + np.sum(x @ GLOBAL_CONFIG.W) * GLOBAL_CONFIG.steps


def reads_dunder(p):
    return len(p.__dict__)    # ERR dunder


def calls_vars(p):
    return vars(p)            # ERR vars
