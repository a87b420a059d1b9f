"""Float32 programs as people write them: Python numbers mixed with float32 arrays
(sstad reads this source)."""
import numpy as np


def mlp(W1, b1, W2, b2, x, y):
    h = np.maximum(x @ W1 + b1, 0.0)
    h = np.tanh(h)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def scaled(x):
    n = x.shape[0]
    return np.sum(np.where(x > 0.5, x * 2, 1.0) / n + np.clip(x, 0.0, 1.0))


def traces_in_a_list(x):
    acc = []
    for i in range(3):
        acc.append(np.trace(np.ones((4, 4), dtype=np.float32) * np.sum(x)))
    return np.sum(np.array(acc))
