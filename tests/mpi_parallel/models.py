"""The small models the parallel checks train: each strategy's run is compared with one
process training the same model on the whole batch."""
import numpy as np

from sstad import distributed as dist

D, H, O = 3, 6, 2


def mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    return {"W1": rng.normal(size=(D, H)) / 2, "b1": rng.normal(size=H) / 4,
            "W2": rng.normal(size=(H, O)) / 2, "b2": np.full(O, 0.1)}


def mlp_loss(p, x, t):
    h = np.tanh(x @ p["W1"] + p["b1"])
    return np.mean((h @ p["W2"] + p["b2"] - t) ** 2)


def data(rows, seed=1):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(rows, D)), rng.normal(size=(rows, O))


# --- a pipeline of stages of one width --------------------------------------------------
def stage_params(n_stages, seed=2):
    rng = np.random.default_rng(seed)
    widths = [D] + [H] * (n_stages - 1) + [O]
    return [{"W": rng.normal(size=(widths[i], widths[i + 1])) / 2, "b": rng.normal(size=widths[i + 1]) / 4}
            for i in range(n_stages)]


def hidden(p, x):
    return np.tanh(x @ p["W"] + p["b"])


def head(p, x, t):
    return np.mean((x @ p["W"] + p["b"] - t) ** 2)


def whole_model(stages, x, t):
    for p in stages[:-1]:
        x = np.tanh(x @ p["W"] + p["b"])
    return head(stages[-1], x, t)


# --- batch norm: across ranks, and in one process ------------------------------------------
def bn_params(seed=3):
    rng = np.random.default_rng(seed)
    return {"W0": rng.normal(size=(D, H)), "gamma": 1.0 + rng.normal(size=H) / 4,
            "beta": rng.normal(size=H) / 4, "W": rng.normal(size=(H, O)) / 2}


def sync_bn_loss(p, x, t):
    """This rank's share of the global batch's loss: the statistics are over every rank's
    rows (all_reduce inside), the loss a sum over this rank's rows / the global count."""
    z = x @ p["W0"]
    n = dist.all_reduce(z.shape[0] * 1.0)
    mean = dist.all_reduce(np.sum(z, axis=0)) / n
    var = dist.all_reduce(np.sum((z - mean) ** 2, axis=0)) / n
    y = p["gamma"] * (z - mean) / np.sqrt(var + 1e-5) + p["beta"]
    return np.sum((np.tanh(y) @ p["W"] - t) ** 2) / n


def bn_loss(p, x, t):
    """The same model in one process holding the whole batch."""
    z = x @ p["W0"]
    mean = np.sum(z, axis=0) / z.shape[0]
    var = np.sum((z - mean) ** 2, axis=0) / z.shape[0]
    y = p["gamma"] * (z - mean) / np.sqrt(var + 1e-5) + p["beta"]
    return np.sum((np.tanh(y) @ p["W"] - t) ** 2) / z.shape[0]
