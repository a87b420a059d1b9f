"""Functions the toy backend runs (sstad reads this source)."""
import numpy as np


def loss(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s = s + w * x[i] ** 2
        else:
            s = s - np.sin(w * x[i])
    return s


def chain(x):
    return np.sum(np.tanh(np.exp(-x) * 2.0 + 1.0))
