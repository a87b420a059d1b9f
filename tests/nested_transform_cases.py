"""Transforms called inside compiled code (sstad reads this source)."""
import numpy as np

import sstad

SHIFT = np.array([0.1, -0.2, 0.3])


def critic(x, w):
    return np.sum(np.tanh(x * w + SHIFT))


def gradient_penalty(x, w):
    """WGAN-GP: the critic's gradient with respect to its input, its norm pushed to 1."""
    g = sstad.grad(critic, argnums=0)(x, w)
    return (np.sqrt(np.sum(g ** 2)) - 1.0) ** 2


def value_and_slope(x, w):
    value, slope = sstad.value_and_grad(critic)(x, w)
    return value + np.sum(slope * w)
