"""Programs that once gave silently wrong results (sstad reads this source)."""
import numpy as np

ROLLERS = [lambda x: np.sum(x * 2.0), lambda x: np.sum(x ** 3)]   # two lambdas, one line


def rnn_stacked(w, xs):
    """The RNN idiom: hidden states appended to a list, then stacked."""
    h = np.zeros(xs.shape[1])
    hs = []
    for t in range(xs.shape[0]):
        h = np.tanh(w * h + xs[t])
        hs.append(h)
    H = np.stack(hs)
    return np.sum(H * np.arange(H.size).reshape(H.shape))


def rnn_stacked_last_axis(w, xs):
    h = np.zeros(xs.shape[1])
    hs = []
    for t in range(xs.shape[0]):
        h = np.tanh(w * h + xs[t])
        hs.append(h)
    H = np.stack(hs, axis=-1)
    return np.sum(H * np.arange(H.size).reshape(H.shape))


def rnn_array(w, xs):
    h = np.zeros(xs.shape[1])
    hs = []
    for t in range(xs.shape[0]):
        h = np.tanh(w * h + xs[t])
        hs.append(h)
    H = np.array(hs)
    return np.sum(H * np.arange(H.size).reshape(H.shape))


def rnn_concatenated(w, xs):
    h = np.zeros(xs.shape[1])
    hs = []
    for t in range(xs.shape[0]):
        h = np.tanh(w * h + xs[t])
        hs.append(h)
    return np.sum(np.concatenate(hs) ** 2)            # ERR list


def rec_pow(x, n):
    return 1.0 if n == 0 else x * rec_pow(x, n - 1)


def through_recursion(x):
    return np.sin(rec_pow(x, 3))


class Config:
    """A mutable configuration object, as users keep them."""

    def __init__(self, scale, weights):
        self.scale, self.weights = scale, weights


CONFIG = Config(2.0, np.ones(3))
weights = np.full(3, 100.0)       # the same name as the attribute: must not be read instead


def scaled_by_global_config(x):
    return np.sum(CONFIG.weights * x) * CONFIG.scale


def scaled_by_config_argument(x, config):
    return np.sum(config.weights * x) * config.scale


def loss_of_config(config, x):
    return np.sum(config.weights * x) * config.scale
