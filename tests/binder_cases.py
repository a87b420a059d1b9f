"""Calls whose parameters a derivative rule once dropped: each non-array parameter given
positionally and by keyword (sstad reads this source)."""
import numpy as np

W = np.random.default_rng(7).normal(size=64)


def loss(y):
    """Every element of ``y`` matters, each differently."""
    y = np.ravel(y)
    return np.sum(np.sin(y) * W[:y.size])


IDX = np.array([2, 0, 2])


def roll_positional(x):
    return loss(np.roll(x, 2, 1))


def roll_keyword(x):
    return loss(np.roll(x, shift=-1, axis=0))


def roll_flat(x):
    return loss(np.roll(x, 5))


def triu_k(x):
    return loss(np.triu(x, 2))


def tril_k(x):
    return loss(np.tril(x, k=-1))


def transpose_axes(x):
    return loss(np.transpose(x, (1, 0, 2)))


def transpose_method(x):
    return loss(x.transpose(2, 0, 1))


def transpose_negative(x):
    return loss(np.transpose(x, axes=(-1, 0, 1)))


def sort_axis(x):
    return loss(np.sort(x, 0))


def sort_flat(x):
    return loss(np.sort(x, axis=None))


def take_axis(x):
    return loss(np.take(x, IDX, axis=1))


def take_flat(x):
    return loss(np.take(x, IDX))


def repeat_axis(x):
    return loss(np.repeat(x, 2, 1))


def repeat_flat(x):
    return loss(np.repeat(x, repeats=2))


def expand_dims_keyword(x):
    return loss(np.expand_dims(x, axis=1))


def clip_keywords(x):
    return loss(np.clip(x, a_min=-0.5, a_max=0.5))


def swapaxes_keywords(x):
    return loss(np.swapaxes(x, axis1=0, axis2=1))


def reshape_keyword(x):
    return loss(np.reshape(x, shape=(4, 3)))


def moveaxis_keywords(x):
    return loss(np.moveaxis(x, source=0, destination=1))


def take_wrapping(x):
    return loss(np.take(x, IDX + 3, mode="wrap"))


def take_clipping(x):
    return loss(np.take(x, IDX - 3, axis=1, mode="clip"))


def sort_stable(x):
    return loss(np.sort(x, stable=True))               # ERR stable


def roll_unknown_keyword(x):
    return loss(np.roll(x, 1, axes=0))                # ERR keyword


SMOOTH = {   # name -> (function, argument shape)
    "roll(x, 2, 1)": (roll_positional, (3, 4)),
    "roll(x, shift=-1, axis=0)": (roll_keyword, (3, 4)),
    "roll(x, 5)": (roll_flat, (3, 4)),
    "triu(x, 2)": (triu_k, (4, 4)),
    "tril(x, k=-1)": (tril_k, (4, 4)),
    "transpose(x, (1, 0, 2))": (transpose_axes, (2, 3, 4)),
    "x.transpose(2, 0, 1)": (transpose_method, (2, 3, 4)),
    "transpose(x, axes=(-1, 0, 1))": (transpose_negative, (2, 3, 4)),
    "sort(x, 0)": (sort_axis, (3, 4)),
    "sort(x, axis=None)": (sort_flat, (3, 4)),
    "take(x, idx, axis=1)": (take_axis, (3, 4)),
    "take(x, idx)": (take_flat, (3, 4)),
    "take(x, idx + 3, mode='wrap')": (take_wrapping, (3, 4)),
    "take(x, idx - 3, axis=1, mode='clip')": (take_clipping, (3, 4)),
    "repeat(x, 2, 1)": (repeat_axis, (3, 4)),
    "repeat(x, repeats=2)": (repeat_flat, (3, 4)),
    "expand_dims(x, axis=1)": (expand_dims_keyword, (3, 4)),
    "clip(x, a_min=, a_max=)": (clip_keywords, (3, 4)),
    "swapaxes(x, axis1=0, axis2=1)": (swapaxes_keywords, (3, 4)),
    "reshape(x, shape=(4, 3))": (reshape_keyword, (3, 4)),
    "moveaxis(x, source=0, destination=1)": (moveaxis_keywords, (3, 4)),
}
REFUSED = {"sort(stable=True)": (sort_stable, "stable=True"),
           "roll(axes=0)": (roll_unknown_keyword, "axes")}


def write_through_chosen_view(y, flag):
    y = y.copy()
    z = y[::2] if flag > 0 else y[1::2]
    z *= 2.0
    return y


def write_through_chosen_transpose(y, flag):
    y = y.copy()
    t = y.T if flag > 0 else y
    for i in range(t.shape[0]):
        t[i] = t[i] * 2.0                             # ERR view
    return y


def write_through_chosen_alias(y, flag):
    y = y.copy()
    t = y if flag > 0 else y * 3.0
    t[0] = 100.0                                      # ERR view
    return y


def write_into_fresh_join(y, flag):
    t = y * 2.0
    if flag > 0:
        t = t + 1.0
    t[0] = 100.0
    return t
