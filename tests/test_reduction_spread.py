"""A reduction's cotangent spread over its operand (``zeros_like(x) + dout[:, None]``) and
multiplied elementwise is multiplied directly (``dout[:, None] * y``): the broadcasts
pass drops the array of copies. Checked against finite differences on both backends."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads

RNG = np.random.default_rng(7)
X = RNG.normal(size=(4, 3))
Y = RNG.normal(size=(4, 3))
COL = RNG.normal(size=(4, 1))


def count(text, needle):
    return sum(line.count(needle) for line in text.splitlines() if not line.lstrip().startswith("#"))


def sum_axis0(x, y):
    return np.sum(np.sin(np.sum(x * y, axis=0)))


def sum_axis1(x, y):
    return np.sum(np.sin(np.sum(x * y, axis=1)))


def sum_axis_neg(x, y):
    return np.sum(np.cos(np.sum(y * x, axis=-1)))


def sum_keepdims(x, y):
    return np.sum(np.sin(np.sum(x * y, axis=1, keepdims=True)) * x)


def sum_tuple(x, y):
    return np.sin(np.sum(x * y, axis=(0, 1)))


def sum_all(x, y):
    return np.sin(np.sum(x * y))


def mean_axis1(x, y):
    return np.sum(np.sin(np.mean(x * y, axis=1)))


def self_products(x, y):     # x and sin(x) have one shape, provably: the copy goes
    return np.sum(np.sin(np.sum(x * np.sin(x), axis=0))) + np.sum(np.sin(np.sum(np.exp(x) * x, axis=-1)))


def squares(x, y):          # the GMM pattern: z * z summed along rows
    z = x @ np.transpose(y)
    return np.sum(np.exp(-0.5 * np.sum(z * z, axis=1)))


def spread_over_column(x, c):   # y broadcasts against x: the product keeps x's shape
    return np.sum(np.sin(np.sum(x * c, axis=1)))


CASES = [(f, (X, Y)) for f in (sum_axis0, sum_axis1, sum_axis_neg, sum_keepdims, sum_tuple,
                               sum_all, mean_axis1, self_products, squares)] + [(spread_over_column, (X, COL))]


@pytest.mark.parametrize("f,args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_spread_cotangent_matches_finite_differences(f, args):
    check_grads(f, args, modes=("rev", "fwd"), backend="python")


@pytest.mark.parametrize("f", [self_products, squares])     # where the copy goes
def test_spread_cotangent_compiled(f):
    check_grads(f, (X, Y), modes=("rev", "fwd"), backend="numba")


@pytest.mark.parametrize("f", [self_products, squares])
def test_no_array_of_copies_is_made(f):
    text = sstad.dump(sstad.grad(f), X, Y, emit="python")
    assert count(text, "zeros_like") == 0, text


def test_operands_that_may_broadcast_keep_the_copy():
    # x * y: y may be (1, 3) and x (4, 3); dout[None, :] * y would then lose a row count
    text = sstad.dump(sstad.grad(sum_axis0), X, Y, emit="python")
    assert count(text, "zeros_like") == 1, text
    g = sstad.jit(sstad.grad(sum_axis0), backend="python")(X, Y[:1])
    np.testing.assert_allclose(g, np.cos(np.sum(X * Y[:1], axis=0)) * Y[:1] + 0 * X, rtol=1e-12)


def row_squares(x, w):      # the GMM's rows: in the backward loop only the shape of the row
    n = x.shape[0]          # sums is read (the check that main[:, k]'s cotangent has it)
    out = np.zeros((n, w.shape[0]))
    for k in range(w.shape[0]):
        z = x * w[k]
        out[:, k] = -0.5 * np.sum(z * z, axis=1)
    return np.sum(np.exp(out))


def col_maxima(x, w):
    out = np.zeros((w.shape[0], x.shape[1]))
    for k in range(w.shape[0]):
        z = np.sin(x) * w[k]
        out[k, :] = np.max(z * x, axis=0)
    return np.sum(np.exp(out))


W = RNG.normal(size=(2, 3))


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("f", [row_squares, col_maxima])
def test_reduction_read_for_its_shape(f, backend):
    check_grads(f, (X, W), modes=("rev", "fwd"), backend=backend)


def test_reduction_read_for_its_shape_skips_the_product():
    text = sstad.dump(sstad.grad(row_squares, argnums=(0, 1)), X, W, emit="numba")
    sums = [line for line in text.splitlines() if "np.sum(" in line and "axis=1" in line
            and not line.lstrip().startswith("#")]
    assert len(sums) == 2 and any("np.sum(z_" in line for line in sums), text
