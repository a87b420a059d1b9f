"""What the broadcasts pass proves about shapes, and the rewrites it makes of them, each
checked against finite differences on both backends, next to a case where the shapes
really broadcast and the ``unbroadcast`` must stay:

* a reduction's cotangent with its axis put back (``expand_dims(dout, 1)``, ``dout[:, None]``,
  ``keepdims=True``) broadcasts into the reduction's operand, so ``dout[:, None] * z``
  has z's shape and needs no ``unbroadcast``;
* ``unbroadcast(-(a @ b), v)`` for a vector ``v`` sums the rows of ``a`` first;
* a reduction read only for its shape (a shape check) reads the first entry of its axes;
* ``x + x`` (the two adjoints of ``z * z``) is ``x * 2``, so it fuses;
* ``b + (zeros_like(a) + s)`` (a sum's cotangent added to another) is ``b + s`` where
  ``b`` has ``a``'s shape.
"""
import re

import numpy as np
import pytest

import sstad
from sstad.api import Compiled
from sstad.ir import nodes as ir
from sstad.testing import check_grads

RNG = np.random.default_rng(11)
Z = RNG.normal(size=(5, 3))
W = RNG.normal(size=5)
SQ = RNG.normal(size=(4, 4))
SQ2 = RNG.normal(size=(4, 4))
COL = RNG.normal(size=(5, 1))
MU = RNG.normal(size=3)
Q = RNG.normal(size=(3, 3))
BACKENDS = ["python", "numba"]


def count(text, needle):
    return sum(line.count(needle) for line in text.splitlines() if not line.lstrip().startswith("#"))


def rows_of_squares(z, w):                 # the GMM pattern: d/dz is dout[:, None] * z, twice
    return np.sum(np.sin(np.sum(z * z, axis=1)) * w)


def rows_put_back_by_index(z, w):          # the reduction's axis put back by hand: s[:, None]
    s = np.sum(z, axis=1)
    return np.sum(np.sin(s[:, None] * z)) + np.sum(s * w)


def rows_kept(z, w):
    return np.sum(np.cos(np.sum(z * z, axis=-1, keepdims=True) * z))


def columns_of_squares(z, w):
    return np.sum(np.exp(-np.sum(z * z, axis=0)))


def wrong_axis_put_back(a, b):             # square: sum over axis 1, axis 0 put back
    s = np.sum(a * a, axis=1)
    return np.sum(np.sin(np.expand_dims(s, 0) * b))


def column_put_back_across(c, z):          # c is (5, 1): (1, 5) * (5, 1) is (5, 5), not c's shape
    return np.sum(np.sin(np.expand_dims(np.sum(c, axis=1), 0) * c)) + np.sum(z)


def column_that_broadcasts(z, c):          # c is (5, 1): its sum over axis 1 keeps the 1
    s = np.sum(c, axis=1)
    return np.sum(np.sin(s[:, None] * z)) + np.sum(np.sum(c, axis=1, keepdims=True) * z)


def centred_product(mu, z, q):             # d/dmu is -(sum of the rows of dout @ q.T)
    return np.sum(np.sin((z - mu) @ q))


def centred_product_one(mu1, z, q):        # mu1 is (1,): the row sums still sum to one entry
    return np.sum(np.sin((z - mu1) @ q))


PROVED = [rows_of_squares, rows_put_back_by_index, rows_kept, columns_of_squares]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f,args", [(f, (Z, W)) for f in PROVED]
                         + [(wrong_axis_put_back, (SQ, SQ2)), (column_that_broadcasts, (Z, COL)),
                            (column_put_back_across, (COL, Z)),
                            (centred_product, (MU, Z, Q)), (centred_product_one, (MU[:1], Z, Q))],
                         ids=lambda c: getattr(c, "__name__", ""))
def test_gradients_match_finite_differences(f, args, backend):
    check_grads(f, args, modes=("rev",), backend=backend)


@pytest.mark.parametrize("f", PROVED)
def test_a_reductions_cotangent_spread_over_its_operand_needs_no_unbroadcast(f):
    # those summing over the restored axis stay (rows_kept's d/d(row sums)); none to z's shape
    text = _proved(f, (Z, W))
    assert not re.search(r"unbroadcast\([^,]+, z\)", text), text


@pytest.mark.parametrize("f,args,argnums", [(wrong_axis_put_back, (SQ, SQ2), 1), (column_that_broadcasts, (Z, COL), 1),
                                            (column_put_back_across, (COL, Z), 0)])
def test_an_axis_that_really_broadcasts_keeps_its_unbroadcast(f, args, argnums):
    text = _proved(f, args, argnums=argnums)
    assert "unbroadcast" in text, text


def _proved(f, args, argnums=0):
    """The gradient's Python text without shape speculation: what the passes proved,
    not what a run-time check allows."""
    return Compiled(sstad.grad(f, argnums=argnums), args, speculate=False).source("python")


def _applications(f, args, name, after=None):
    module = Compiled(sstad.grad(f), args, after=after, speculate=True).module
    return [s for fn in module.functions for s in ir.walk(fn.body) if isinstance(s, ir.Apply) and s.prim.name == name]


def test_the_rows_are_summed_before_the_matrix_product():
    products = _applications(centred_product, (MU, Z, Q), "matmul")
    # the cotangent of z - mu, (5, 3), is never made: its row sum times q.T, (3,), is
    assert [p.outs[0].type.ndim for p in products] == [1], products
    text = sstad.dump(sstad.grad(centred_product), MU, Z, Q, emit="python")
    assert "np.sum(" in text and "axis=0)" in text, text


def test_summing_rows_first_changes_only_the_order_of_the_additions():
    z = RNG.normal(size=(2000, 3))
    g = sstad.jit(sstad.grad(centred_product), backend="python")(MU, z, Q)
    dout = np.cos((z - MU) @ Q)
    full = -(dout @ Q.T)                              # the rows summed after the product
    bound = 8 * np.finfo(float).eps * (np.abs(dout) @ np.abs(Q.T)).sum(axis=0) * z.shape[0]
    assert np.all(np.abs(g - full.sum(axis=0)) <= bound)


def test_a_product_read_elsewhere_is_not_summed_first():
    def both(mu, z, q):
        y = (z - mu) @ q
        return np.sum(np.sin(y)) + np.sum(y * y)
    check_grads(both, (MU, Z, Q), modes=("rev",), backend="numba")


def components(means, x):                 # the GMM's loop: the row sums' shape is checked backwards
    main = np.zeros((x.shape[0], means.shape[0]))
    for k in range(means.shape[0]):
        z = x - means[k]
        main[:, k] = -0.5 * np.sum(z * z, axis=1)
    return np.sum(np.exp(main))


MEANS = RNG.normal(size=(2, 3))


def test_a_reduction_read_for_its_shape_reads_one_entry_per_row():
    text = sstad.dump(sstad.grad(components), MEANS, Z, emit="python")
    checked = [line for line in text.splitlines() if "np.sum(" in line and "axis=1" in line]
    assert checked, "no shape check on the row sums: pick another case\n" + text
    assert "[:, :1]" in text and "np.sum(z_1 * z_1" not in text, text     # not z * z, all of it


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_narrowed_reduction_matches_finite_differences(backend):
    check_grads(components, (MEANS, Z), modes=("rev",), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_narrowed_reduction_over_an_empty_axis_has_the_same_shape(backend):
    means, x = np.zeros((2, 0)), np.zeros((5, 0))
    assert sstad.jit(sstad.grad(components), backend=backend)(means, x).shape == (2, 0)


def test_x_plus_x_is_doubled_and_fused():
    def square_of_sin(x):
        return np.sum(np.sin(x) * np.sin(x))
    x = RNG.normal(size=6)
    text = sstad.dump(sstad.grad(square_of_sin), x, emit="numba")
    assert count(text, "dx = ") == 1 and "* 2.0" in text, text      # one fused expression
    s = np.sin(x)
    np.testing.assert_array_equal(sstad.jit(sstad.grad(square_of_sin), backend="python")(x), (s + s) * np.cos(x))
    check_grads(square_of_sin, (x,), modes=("rev", "fwd"), backend="numba")


def test_complex_sums_stay_sums():
    def twice(x):
        y = x * 1j
        return y + y
    text = sstad.dump(twice, RNG.normal(size=3), after="cse")
    assert "op.add(y, y)" in text, text


def spread_sum_added(q, w):              # dq: an array of q's shape plus the sum's -3 spread over q
    return np.sum(np.exp(2.0 * q) * w) - 3.0 * np.sum(q)


def spread_by_hand(q, c):                # c is (1,): c + (zeros_like(q) + 3) has q's shape, c + 3 not
    return np.sum(np.sin(c + (np.zeros_like(q) + 3.0)) * q)


def test_a_spread_sum_added_to_an_array_of_its_shape_adds_the_number():
    q, w, c = RNG.normal(size=4), RNG.normal(size=4), RNG.normal(size=1)
    text = _proved(spread_sum_added, (q, w))
    assert re.search(r"dq = \(-3\.0\) \+ t\d+$", text, re.M), text
    assert count(sstad.dump(spread_by_hand, q, c, emit="python"), "np.zeros_like(q)") == 1
    assert sstad.jit(spread_by_hand)(q, c) == pytest.approx(spread_by_hand(q, c), rel=1e-14)
    for backend in BACKENDS:
        check_grads(spread_sum_added, (q, w), modes=("rev",), backend=backend)
        check_grads(spread_by_hand, (q, c), modes=("rev",), backend=backend)
