"""Every kernel against its CPU twin (and NumPy), under the simulator: tiny sizes."""
import numpy as np
import pytest
import scipy.special as sp
from numba import cuda

from sstad.kernels import buckets, elementwise, gather, gemm, optim, reduce, softmax
from sstad.kernels.launch import strided_view

rng = np.random.default_rng(0)


def dev(x):
    return cuda.to_device(x)


@pytest.mark.parametrize("expr, shapes, expected", [
    ("v0 * math.exp(v1) + v2", [(3, 4), (4,), None], lambda a, b, c: a * np.exp(b) + c),
    ("(v0 if v1 > v0 else v1) - math.tanh(v0)", [(5, 1), (1, 6)], lambda a, b: np.minimum(a, b) - np.tanh(a)),
    ("v0 > v1", [(7,), None], lambda a, b: a > b),
])
def test_fused_elementwise_matches_its_twin(expr, shapes, expected):
    args = [rng.standard_normal(s) if s else 0.25 for s in shapes]
    ranks = tuple(len(s) if s else None for s in shapes)
    want = expected(*args)
    on_device = elementwise.launch(expr, ranks, [dev(a) if s else a for a, s in zip(args, shapes)],
                                   want.dtype).copy_to_host()
    twin = elementwise.run_cpu(expr, ranks, args, want.dtype)
    np.testing.assert_array_equal(on_device, twin)
    np.testing.assert_allclose(on_device, want, rtol=1e-14)


def test_fused_elementwise_reads_strided_views():
    a = rng.standard_normal((4, 6))
    view = strided_view(dev(a), lambda x: x[:, ::2].T)          # (3, 4), non-contiguous
    out = elementwise.launch("v0 * 2.0", (2,), [view], np.float64).copy_to_host()
    np.testing.assert_array_equal(out, a[:, ::2].T * 2.0)


@pytest.mark.parametrize("shape, axis, keepdims", [
    ((200,), None, False), ((2, 100), 1, True), ((6, 50), 0, False), ((3, 4, 5), (0, 2), True),
    ((3, 4, 5), (1, 2), False)])
@pytest.mark.parametrize("op", reduce.OPS)
def test_reductions_match_their_twin(shape, axis, keepdims, op):
    x = rng.standard_normal(shape)
    got = reduce.reduce(dev(x), op, axis, keepdims).copy_to_host()
    twin = reduce.reduce_cpu(x, op, axis, keepdims)
    assert got.shape == twin.shape == getattr(np, op)(x, axis=axis, keepdims=keepdims).shape
    np.testing.assert_allclose(got, twin, rtol=1e-13)
    np.testing.assert_allclose(got, getattr(np, op)(x, axis=axis, keepdims=keepdims), rtol=1e-13)


def test_max_propagates_nan_and_sum_of_bools_counts():
    x = np.array([1.0, np.nan, 3.0])
    assert np.isnan(reduce.reduce(dev(x), "max").copy_to_host())
    b = np.array([[True, False, True], [True, True, True]])
    got = reduce.reduce(dev(b), "sum", 1, False, np.int64).copy_to_host()
    np.testing.assert_array_equal(got, b.sum(axis=1))


@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, True), (0, False)])
def test_mean_and_logsumexp(axis, keepdims):
    x = rng.standard_normal((5, 40))
    np.testing.assert_allclose(reduce.logsumexp(dev(x), axis, keepdims).copy_to_host(),
                               sp.logsumexp(x, axis=axis, keepdims=keepdims), rtol=1e-13)
    np.testing.assert_allclose(reduce.mean(dev(x), axis, keepdims).copy_to_host(),
                               x.mean(axis=axis, keepdims=keepdims), rtol=1e-13)


@pytest.mark.parametrize("m, k, n", [(5, 7, 3), (17, 9, 11)])
def test_tiled_gemm_matches_its_twin(m, k, n):
    A, B = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    got = gemm.gemm(dev(A), dev(B), method="own").copy_to_host()
    np.testing.assert_allclose(got, gemm.matmul_cpu(A, B), rtol=1e-13)
    np.testing.assert_allclose(got, A @ B, rtol=1e-13)
    Bt = dev(np.ascontiguousarray(B.T))
    transposed = gemm.matmul(dev(A), strided_view(Bt, lambda x: x.T), method="own").copy_to_host()
    np.testing.assert_allclose(transposed, A @ B, rtol=1e-13)


def test_matmul_with_vectors():
    A, v = rng.standard_normal((5, 7)), rng.standard_normal(7)
    np.testing.assert_allclose(gemm.matmul(dev(A), dev(v), method="own").copy_to_host(), A @ v, rtol=1e-13)
    np.testing.assert_allclose(gemm.matmul(dev(v), dev(A.T.copy()), method="own").copy_to_host(), v @ A.T,
                               rtol=1e-13)
    assert gemm.matmul(dev(v), dev(v), method="own") == pytest.approx(v @ v, rel=1e-13)


def test_gather_and_scatter_add_with_repeated_indices():
    x = rng.standard_normal((6, 3))
    idx = np.array([4, 0, -1, 4])
    err = dev(np.zeros(1, np.int32))
    got = gather.take_rows(dev(x), dev(idx), err).copy_to_host()
    np.testing.assert_array_equal(got, x[idx])
    np.testing.assert_array_equal(got, gather.take_rows_cpu(x, idx))
    values = rng.standard_normal((4, 3))
    target = dev(np.zeros((6, 3)))
    gather.index_add_rows(target, dev(idx), dev(values), err)
    want = np.zeros((6, 3))
    np.add.at(want, idx, values)
    np.testing.assert_allclose(target.copy_to_host(), want, rtol=1e-14)
    np.testing.assert_allclose(gather.index_add_rows_cpu(np.zeros((6, 3)), idx, values), want, rtol=1e-14)
    assert err.copy_to_host()[0] == 0


def test_gather_out_of_bounds_sets_the_error_flag():
    err = dev(np.zeros(1, np.int32))
    gather.take_rows(dev(np.ones((3, 2))), dev(np.array([0, 3])), err)
    assert err.copy_to_host()[0] == 1


def test_softmax_log_softmax_cross_entropy():
    x = rng.standard_normal((4, 37))
    labels = np.array([0, 36, 5, 5])
    np.testing.assert_allclose(softmax.softmax(dev(x)).copy_to_host(), softmax.softmax_cpu(x), rtol=1e-13)
    np.testing.assert_allclose(softmax.log_softmax(dev(x)).copy_to_host(), sp.log_softmax(x, axis=-1),
                               rtol=1e-13)
    got = softmax.cross_entropy(dev(x), dev(labels)).copy_to_host()
    np.testing.assert_allclose(got, softmax.cross_entropy_cpu(x, labels), rtol=1e-13)
    np.testing.assert_allclose(got, -sp.log_softmax(x, axis=-1)[np.arange(4), labels], rtol=1e-13)


def test_adam_and_sgd_match_their_twins():
    p, g = rng.standard_normal(50), rng.standard_normal(50)
    m, v = rng.standard_normal(50) * 0.1, rng.random(50) * 0.1
    dp, dm, dv = dev(p), dev(m), dev(v)
    optim.adam(dp, dev(g), dm, dv, step=3, lr=0.01)
    cp, cm, cv = p.copy(), m.copy(), v.copy()
    optim.adam_cpu(cp, g, cm, cv, 3, 0.01)
    for d, c in ((dp, cp), (dm, cm), (dv, cv)):
        np.testing.assert_allclose(d.copy_to_host(), c, rtol=1e-13)
    buf = np.zeros(50)
    dp, dbuf = dev(p), dev(buf)
    optim.sgd(dp, dev(g), dbuf, 0.1, 0.9)
    cp, cbuf = p.copy(), buf.copy()
    optim.sgd_cpu(cp, g, cbuf, 0.1, 0.9)
    np.testing.assert_allclose(dp.copy_to_host(), cp, rtol=1e-14)
    np.testing.assert_allclose(p - 0.1 * g, cp, rtol=1e-14)


def test_buckets_pack_and_unpack():
    arrays = [rng.standard_normal((3, 4)), rng.standard_normal(5), rng.standard_normal((2, 2))]
    bucket = buckets.pack([dev(a) for a in arrays])
    want = np.concatenate([a.ravel() for a in arrays])
    np.testing.assert_array_equal(bucket.copy_to_host(), want)
    np.testing.assert_array_equal(buckets.pack_cpu(tuple(a.ravel() for a in arrays), want.size), want)
    targets = [dev(np.zeros_like(a)) for a in arrays]
    buckets.unpack(dev(want * 2.0), targets)
    for t, a in zip(targets, arrays):
        np.testing.assert_array_equal(t.copy_to_host(), a * 2.0)
