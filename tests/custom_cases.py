"""Functions with user-defined rules, for tests/test_custom.py."""
import numpy as np

import sstad


@sstad.custom_vjp
def leaky_grad_relu(x):
    """ReLU whose gradient is 0.01 instead of 0 on the negative side (the seeds' example)."""
    return np.maximum(x, 0.0)


def _relu_fwd(x):
    return np.maximum(x, 0.0), x


def _relu_bwd(x, dout):
    return (dout * np.where(x > 0.0, 1.0, 0.01),)


leaky_grad_relu.defvjp(_relu_fwd, _relu_bwd)


@sstad.custom_jvp
def scaled_sin(x, w):
    return np.sin(x) * w


@scaled_sin.defjvp
def _scaled_sin_jvp(primals, tangents):
    x, w = primals
    dx, dw = tangents
    return np.sin(x) * w, np.cos(x) * w * dx + np.sin(x) * dw


@sstad.custom_vjp
def wrong_square(x):
    return x * x


def _wrong_fwd(x):
    return x * x, x


def _wrong_bwd(x, dout):
    return (dout * 3.0 * x,)       # deliberately wrong: 3x, not 2x


wrong_square.defvjp(_wrong_fwd, _wrong_bwd)


def relu_loss(x):
    return np.sum(leaky_grad_relu(x) * 2.0)


def relu_in_a_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(leaky_grad_relu(x - 0.5 * i))
    return s


def sin_loss(x, w):
    return np.sum(scaled_sin(x, w) ** 2)


def wrong_loss(x):
    return np.sum(wrong_square(x))


def stopped(x):
    return np.sum(x * sstad.stop_gradient(x))


@sstad.primitive
def softclip(x):
    """A user primitive: implementation and rules in one place."""
    return np.tanh(x) * 2.0


@softclip.defbprop
def _softclip_bprop(x, out, dout):
    return (dout * 2.0 * (1.0 - np.tanh(x) ** 2),)


def softclip_loss(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + softclip(x[i] * w)
    return s


def relax(x):
    """A loop whose gradient tapes an array per iteration (x is rebuilt each step)."""
    for k in range(50):
        x = np.tanh(x) * 0.9 + 0.1
    return x


relax_remat = sstad.remat(relax)


def chain_taped(x):
    return np.sum(relax(relax(relax(relax(x)))))


def chain_remat(x):
    return np.sum(relax_remat(relax_remat(relax_remat(relax_remat(x)))))
