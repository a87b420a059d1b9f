"""The Adam and SGD updates of the training runtime, in place, one thread per element
(parameters, gradients and moments as 1-d device arrays of one length)."""
import math

import numba
from numba import cuda

from sstad.kernels.launch import BLOCK, grid


@cuda.jit
def _sgd(p, g, buf, lr, momentum):
    i = cuda.grid(1)
    while i < p.size:
        b = momentum * buf[i] + g[i]
        buf[i] = b
        p[i] -= lr * b
        i += cuda.gridsize(1)


@cuda.jit
def _adam(p, g, m, v, lr, b1, b2, eps, c1, c2):
    i = cuda.grid(1)
    while i < p.size:
        mi = b1 * m[i] + (1.0 - b1) * g[i]
        vi = b2 * v[i] + (1.0 - b2) * g[i] * g[i]
        m[i] = mi
        v[i] = vi
        p[i] -= lr * (mi / c1) / (math.sqrt(vi / c2) + eps)
        i += cuda.gridsize(1)


def sgd(p, g, buf, lr, momentum=0.0):
    """``buf = momentum * buf + g; p -= lr * buf`` (plain SGD when momentum is 0)."""
    _sgd[grid(p.size), BLOCK](p, g, buf, lr, momentum)


def adam(p, g, m, v, step, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """One Adam step (``step`` counts from 1): moments updated, bias-corrected, applied."""
    _adam[grid(p.size), BLOCK](p, g, m, v, lr, b1, b2, eps, 1.0 - b1 ** step, 1.0 - b2 ** step)


@numba.njit(cache=True)
def sgd_cpu(p, g, buf, lr, momentum=0.0):
    for i in range(p.size):
        buf[i] = momentum * buf[i] + g[i]
        p[i] -= lr * buf[i]


@numba.njit(cache=True)
def adam_cpu(p, g, m, v, step, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    c1, c2 = 1.0 - b1 ** step, 1.0 - b2 ** step
    for i in range(p.size):
        m[i] = b1 * m[i] + (1.0 - b1) * g[i]
        v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i]
        p[i] -= lr * (m[i] / c1) / (math.sqrt(v[i] / c2) + eps)
