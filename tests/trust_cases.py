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
    return np.sum(np.concatenate(hs) ** 2)


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


def upper_triangle_by_indices(A):
    iu = np.triu_indices(3)
    return np.sum(A[iu] ** 2)


def upper_triangle_assigned(A):
    Q = np.zeros((3, 3))
    iu = np.triu_indices(3)
    Q[iu] = A[iu] * 2.0
    return np.sum(Q * np.arange(9.0).reshape(3, 3))


def full_of_a_row(s):
    return np.sum(np.sin(np.full((3, 4), s)) * np.arange(12.0).reshape(3, 4))


def full_like_of_a_row(s):
    return np.sum(np.sin(np.full_like(np.ones((3, 4)), s)) * np.arange(12.0).reshape(3, 4))


def stacked_on_the_last_axis(a, b):
    return np.sum(np.sin(np.stack((a, b), axis=-1)) * np.arange(24.0).reshape(3, 4, 2))


def take_with_a_matrix_of_indices(a):
    return np.sum(np.sin(np.take(a, np.array([[0, 2], [1, 1]]), axis=-1)))   # ERR take


def variance_method_with_ddof(a):
    return np.sum(a.var(None, None, None, 1) * 1.0) + np.sum(a.std(0, None, None, 1))


def max_with_positional_keepdims(a):
    return np.sum(np.max(a, 0, None, True) * np.arange(4.0))


PAIR = (np.ones(2), np.full(2, 3.0))      # a global tuple of arrays
FACTORS = (1.0, 2.0)                      # a global tuple of numbers
w = np.full(2, 100.0)                     # the same name as a default argument below


def scaled_by_rebound_config(x):
    return np.sum(x * CONFIG.scale)


def times_second_of_pair(x):
    return np.sum(x * PAIR[1])


def times_second_factor(x):
    return np.sum(x * FACTORS[1])


def with_a_default_array(x, w=np.ones(2)):
    return np.sum(x * w)


def mean_over_two_axes(x):
    return np.sum(np.sin(np.mean(np.stack((x, 2.0 * x)), axis=(0, -1))))


def diagonal_method(x):
    return np.sum(np.sin(x.diagonal(offset=-1))) + np.sum(np.diagonal(x, 1, 1, 0) ** 2)


def dead_after_a_type_change(x):
    if np.sum(x) > 0.5:
        z = x * 2.0
    else:
        z = np.sum(x)
    return np.sum(np.sin(x))


def read_after_a_type_change(x):
    if np.sum(x) > 0.5:
        z = x * 2.0
    else:
        z = np.sum(x)
    return np.sum(np.sin(z))      # ERR conflict


def repeat_by_a_list(x):
    return np.sum(np.sin(np.repeat(x, [1, 2, 1], axis=0)))


def take_a_constant_list(x):
    return np.sum(np.sin(np.take(x, [1, 0, 0]))) + np.sum(np.sin(x.take([2, 1])))


def take_a_constant_list_along_an_axis(A):
    return np.sum(np.sin(np.take(A, [0, 1], -1)))


def concatenate_flattened(A):
    return np.sum(np.sin(np.concatenate((A, 2.0 * A), axis=None)) * np.arange(18.0))


def vstack_of_an_appended_list(x):
    hs = []
    for i in range(3):
        hs.append(x * i)
    return np.sum(np.sin(np.vstack(hs)) * np.arange(9.0).reshape(3, 3))


def roll_by_a_tuple(x):
    return np.sum(np.sin(np.roll(x, (1, 2))) * np.arange(3.0))


def cumprod_through_a_zero(x):
    return np.sum(np.cumprod(x) * np.arange(1.0, x.size + 1))


def cumprod_along_rows(A):
    return np.sum(np.sin(np.cumprod(A, axis=1)))


def array_of_an_array_and_of_nested_numbers(x):
    nested = np.array([[x[0], x[1]], [x[2], x[0] * x[1]]])
    return np.sum(np.sin(np.array(x))) + np.sum(np.sin(nested) * np.arange(4.0).reshape(2, 2)) \
        + np.sum(np.asarray([x, 2.0 * x])) + np.sum(np.asarray([x[0], x[1]]))


def take_one_index_along_an_axis(x):
    return np.sum(np.sin(np.take(x, -1, axis=-2)) * np.arange(3.0))


def repeat_along_an_axis(x):
    return np.sum(np.sin(np.repeat(x, 2, axis=0)) * np.arange(18.0).reshape(6, 3))


def full_of_a_trace_over_swapped_axes(x):
    t = np.trace(x, 0, 1, 0)
    return np.sum(np.full(4, t) * np.arange(4.0)) + np.trace(x, 1, 1, 0)


def sort_rows_and_columns(x):
    w = np.arange(9.0).reshape(3, 3)
    return np.sum(np.sin(np.sort(x, axis=-1)) * w) + np.sum(np.sin(np.sort(x, 0)) * w)
