"""Products and np.linalg: every rule against central finite differences, in reverse and
forward mode, on both backends, with each parameter given by position and by keyword,
and with stacks ``(B, n, n)``, ``(B1, B2, n, n)`` and ``B == n`` (where ``.T`` used to pass
for a transpose of the last two axes)."""
import numpy as np
import pytest

import sstad
from sstad.errors import RunTimeRefusal, SstadError
from sstad.testing import check_grads

rng = np.random.default_rng(7)


def mat(*shape):
    return rng.normal(size=shape)


def well(*shape):
    """Well-conditioned square matrices (a stack when ``shape`` has more than two axes)."""
    return mat(*shape) + 4.0 * np.eye(shape[-1])


def spd(*shape):
    m = mat(*shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def separated(*shape):
    """Symmetric matrices with eigenvalues 1, 3, 5, ... (well separated)."""
    q = np.linalg.qr(mat(*shape))[0]
    w = 1.0 + 2.0 * np.arange(shape[-1])
    return (q * w[..., None, :]) @ np.swapaxes(q, -1, -2)


def unit_cols(m):
    """``m`` times its first row: a function of singular/eigen vectors that does not depend
    on the sign LAPACK picks for each vector."""
    return m * m[..., :1, :]


# --- the functions under test: module level, one per call form ------------------------

def matmul_op(a, b):
    return a @ b


def matmul_fn(a, b):
    return np.matmul(a, b)


def dot(a, b):
    return np.dot(a, b)


def inner(a, b):
    return np.inner(a, b)


def vdot(a, b):
    return np.vdot(a, b)


def outer(a, b):
    return np.outer(a, b)


def kron(a, b):
    return np.kron(a, b)


def cross(a, b):
    return np.cross(a, b)


def cross_axes_kw(a, b):
    return np.cross(a, b, axisa=0, axisb=0, axisc=0)


def cross_axes_pos(a, b):
    return np.cross(a, b, 0, -1, 1)


def cross_axis(a, b):
    return np.cross(a, b, axis=0)


def trace(x):
    return np.trace(x)


def trace_offset_pos(x):
    return np.trace(x, 1)


def trace_offset_kw(x):
    return np.trace(x, offset=-1)


def trace_axes_pos(x):
    return np.trace(x, 1, 2, 0)


def trace_axes_kw(x):
    return np.trace(x, axis1=-1, axis2=0)


def diag(x):
    return np.diag(x)


def diag_k_pos(x):
    return np.diag(x, 1)


def diag_k_kw(x):
    return np.diag(x, k=-2)


def solve(a, b):
    return np.linalg.solve(a, b)


def inv(a):
    return np.linalg.inv(a)


def det(a):
    return np.linalg.det(a)


def slogdet(a):
    sign, logabs = np.linalg.slogdet(a)
    return sign * logabs


def cholesky(a):
    return np.linalg.cholesky(a)


def cholesky_upper(a):
    return np.linalg.cholesky(a, upper=True)


def norm(x):
    return np.linalg.norm(x)


def norm_keepdims(x):
    return np.linalg.norm(x, keepdims=True)


def norm_ord(ord, by_keyword):
    """``np.linalg.norm(x, ord)`` with ``ord`` by position or by keyword."""
    if by_keyword:
        def norm_kw(x):
            return np.linalg.norm(x, ord=ord)
        return norm_kw

    def norm_pos(x):
        return np.linalg.norm(x, ord)
    return norm_pos


def norm_axis_kw(x):
    return np.linalg.norm(x, axis=1)


def norm_axis_pos(x):
    return np.linalg.norm(x, 3, -1)


def norm_axis_keepdims(x):
    return np.linalg.norm(x, np.inf, 0, True)


def norm_axes_pos(x):
    return np.linalg.norm(x, "nuc", (1, 2))


def norm_axes_kw(x):
    return np.linalg.norm(x, ord=2, axis=(2, 0), keepdims=True)


def norm_axes_fro(x):
    return np.linalg.norm(x, axis=(0, 1))


def norm_axes_inf(x):
    return np.linalg.norm(x, -np.inf, (-1, -2))


def norm_axes_one(x):
    return np.linalg.norm(x, ord=1, axis=(1, 2))


def eigh_w(a):
    return np.linalg.eigh(a)[0]


def eigh_v(a):
    return unit_cols(np.linalg.eigh(a)[1])


def eigh_both_upper_pos(a):
    w, v = np.linalg.eigh(a, "U")
    return w[..., :, None] * unit_cols(v)


def eigh_upper_kw(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(w) + unit_cols(v)


def eigvalsh(a):
    return np.linalg.eigvalsh(a)


def eigvalsh_upper(a):
    return np.linalg.eigvalsh(a, UPLO="U")


def svd_s(a):
    return np.linalg.svd(a, compute_uv=False)


def svd_s_pos(a):
    return np.linalg.svd(a, False, False)


def svd_reduced(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(unit_cols(u)) + np.sum(s * s) + np.sum(unit_cols(np.swapaxes(vh, -1, -2)))


def svd_square(a):
    u, s, vh = np.linalg.svd(a)
    return unit_cols(u) + s[..., None, :] + unit_cols(np.swapaxes(vh, -1, -2))


def svd_hermitian(a):
    u, s, vh = np.linalg.svd(a, hermitian=True)
    return s[..., None, :] * unit_cols(u)


def qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(q * 1.5) + np.sum(r * r * 0.5) + q[..., :1, :] * r[..., :1]


def qr_kw(a):
    q, r = np.linalg.qr(a, mode="reduced")
    return np.sum(q * q[..., :1, :]) + r


def qr_r(a):
    return np.linalg.qr(a, "r")


def pinv(a):
    return np.linalg.pinv(a)


def pinv_params(a):
    return np.linalg.pinv(a, 1e-12, True)


def pinv_kw(a):
    return np.linalg.pinv(a, rcond=1e-10, hermitian=False)


def lstsq(a, b):
    return np.linalg.lstsq(a, b)[0]


def lstsq_rcond(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(x) + np.sum(s)


def multi_dot(a, b, c):
    return np.linalg.multi_dot([a, b, c])


def multi_dot_vectors(v, b, c, w):
    return np.linalg.multi_dot((v, b, c, w))


# --- the cases: (name, function, arguments) --------------------------------------------

CASES = [
    # @ and np.matmul: batches on both sides, on one side, B == n, vectors against stacks
    ("a@b (3,3,3)@(3,3,3)", matmul_op, lambda: (mat(3, 3, 3), mat(3, 3, 3))),
    ("a@b (2,3,4,3)@(2,3,3,2)", matmul_op, lambda: (mat(2, 3, 4, 3), mat(2, 3, 3, 2))),
    ("a@b (3,4,3)@(3,2) batch left only", matmul_op, lambda: (mat(3, 4, 3), mat(3, 2))),
    ("a@b (4,3)@(2,3,2) batch right only", matmul_op, lambda: (mat(4, 3), mat(2, 3, 2))),
    ("a@b (2,1,4,3)@(3,3,2) broadcast batch", matmul_op, lambda: (mat(2, 1, 4, 3), mat(3, 3, 2))),
    ("a@b (3,)@(2,3,4)", matmul_op, lambda: (mat(3), mat(2, 3, 4))),
    ("a@b (2,4,3)@(3,)", matmul_op, lambda: (mat(2, 4, 3), mat(3))),
    ("a@b (3,4)@(4,)", matmul_op, lambda: (mat(3, 4), mat(4))),
    ("a@b (4,)@(4,)", matmul_op, lambda: (mat(4), mat(4))),
    ("np.matmul (3,3,3)@(3,3)", matmul_fn, lambda: (mat(3, 3, 3), mat(3, 3))),
    ("np.matmul (2,2,3,4)@(2,2,4,3)", matmul_fn, lambda: (mat(2, 2, 3, 4), mat(2, 2, 4, 3))),
    # np.dot: n-d sums a's last axis against b's second-to-last
    ("np.dot (3,4)@(4,2)", dot, lambda: (mat(3, 4), mat(4, 2))),
    ("np.dot (2,3,4)@(4,)", dot, lambda: (mat(2, 3, 4), mat(4))),
    ("np.dot (3,3,3)@(3,3,3)", dot, lambda: (mat(3, 3, 3), mat(3, 3, 3))),
    ("np.dot (3,4)@(2,4,5)", dot, lambda: (mat(3, 4), mat(2, 4, 5))),
    ("np.dot scalar", dot, lambda: (1.5, mat(3))),
    # np.inner sums the last axes of both
    ("np.inner (3,4),(5,4)", inner, lambda: (mat(3, 4), mat(5, 4))),
    ("np.inner (3,3),(3,3)", inner, lambda: (mat(3, 3), mat(3, 3))),
    ("np.inner (2,3,4),(4,)", inner, lambda: (mat(2, 3, 4), mat(4))),
    ("np.inner (4,),(4,)", inner, lambda: (mat(4), mat(4))),
    ("np.vdot (3,4),(3,4)", vdot, lambda: (mat(3, 4), mat(3, 4))),
    ("np.vdot (12,),(3,4)", vdot, lambda: (mat(12), mat(3, 4))),
    ("np.vdot (5,),(5,)", vdot, lambda: (mat(5), mat(5))),
    ("np.outer (3,),(4,)", outer, lambda: (mat(3), mat(4))),
    ("np.outer (2,3),(4,) flattens", outer, lambda: (mat(2, 3), mat(4))),
    ("np.kron (3,),(2,)", kron, lambda: (mat(3), mat(2))),
    ("np.kron (2,3),(3,2)", kron, lambda: (mat(2, 3), mat(3, 2))),
    ("np.cross (3,),(3,)", cross, lambda: (mat(3), mat(3))),
    ("np.cross (4,3),(3,) batch", cross, lambda: (mat(4, 3), mat(3))),
    ("np.cross axisa/b/c by keyword", cross_axes_kw, lambda: (mat(3, 4), mat(3, 4))),
    ("np.cross axes by position", cross_axes_pos, lambda: (mat(3, 4), mat(4, 3))),
    ("np.cross axis=0", cross_axis, lambda: (mat(3, 2), mat(3, 2))),
    # trace and diag with their offsets and axes
    ("np.trace (3,3)", trace, lambda: (mat(3, 3),)),
    ("np.trace(x, 1) (3,4)", trace_offset_pos, lambda: (mat(3, 4),)),
    ("np.trace(x, offset=-1) (4,3)", trace_offset_kw, lambda: (mat(4, 3),)),
    ("np.trace(x, 1, 2, 0) (3,2,4)", trace_axes_pos, lambda: (mat(3, 2, 4),)),
    ("np.trace(x, axis1=-1, axis2=0) (3,2,3)", trace_axes_kw, lambda: (mat(3, 2, 3),)),
    ("np.trace (3,3,3) B == n", trace, lambda: (mat(3, 3, 3),)),
    ("np.diag vector", diag, lambda: (mat(4),)),
    ("np.diag matrix", diag, lambda: (mat(3, 4),)),
    ("np.diag(v, 1)", diag_k_pos, lambda: (mat(3),)),
    ("np.diag(v, k=-2)", diag_k_kw, lambda: (mat(3),)),
    ("np.diag(x, 1) (3,4)", diag_k_pos, lambda: (mat(3, 4),)),
    ("np.diag(x, 1) (4,3)", diag_k_pos, lambda: (mat(4, 3),)),
    ("np.diag(x, k=-2) (4,3)", diag_k_kw, lambda: (mat(4, 3),)),
    ("np.diag(x, k=-2) (3,5)", diag_k_kw, lambda: (mat(3, 5),)),
    # solve, inv, det, slogdet, cholesky: matrices and stacks
    ("solve (3,3),(3,)", solve, lambda: (well(3, 3), mat(3))),
    ("solve (3,3),(3,2)", solve, lambda: (well(3, 3), mat(3, 2))),
    ("solve (3,3,3),(3,3,2) B == n", solve, lambda: (well(3, 3, 3), mat(3, 3, 2))),
    ("solve (2,4,3,3),(2,4,3,2)", solve, lambda: (well(2, 4, 3, 3), mat(2, 4, 3, 2))),
    ("solve (3,3,3),(3,) vector for every matrix", solve, lambda: (well(3, 3, 3), mat(3))),
    ("solve (3,3),(2,3,2) batch on b only", solve, lambda: (well(3, 3), mat(2, 3, 2))),
    ("solve (2,3,3),(3,2) batch on a only", solve, lambda: (well(2, 3, 3), mat(3, 2))),
    ("inv (3,3)", inv, lambda: (well(3, 3),)),
    ("inv (3,3,3) B == n", inv, lambda: (well(3, 3, 3),)),
    ("inv (2,4,3,3)", inv, lambda: (well(2, 4, 3, 3),)),
    ("det (3,3)", det, lambda: (well(3, 3),)),
    ("det (3,3,3) B == n", det, lambda: (well(3, 3, 3),)),
    ("det (2,4,3,3)", det, lambda: (well(2, 4, 3, 3),)),
    ("slogdet (3,3)", slogdet, lambda: (well(3, 3),)),
    ("slogdet (3,3,3) B == n", slogdet, lambda: (well(3, 3, 3),)),
    ("slogdet (2,4,3,3)", slogdet, lambda: (well(2, 4, 3, 3),)),
    ("cholesky (3,3)", cholesky, lambda: (spd(3, 3),)),
    ("cholesky (3,3,3) B == n", cholesky, lambda: (spd(3, 3, 3),)),
    ("cholesky (2,2,3,3)", cholesky, lambda: (spd(2, 2, 3, 3),)),
    ("cholesky(upper=True) (3,3)", cholesky_upper, lambda: (spd(3, 3),)),
    ("cholesky(upper=True) (4,3,3)", cholesky_upper, lambda: (spd(4, 3, 3),)),
    # norm: every ord, by position and keyword; axis, keepdims
    ("norm vector", norm, lambda: (mat(5),)),
    ("norm (3,4) flat", norm, lambda: (mat(3, 4),)),
    ("norm (2,3,4) flat", norm, lambda: (mat(2, 3, 4),)),
    ("norm keepdims=True (3,4)", norm_keepdims, lambda: (mat(3, 4),)),
    ("norm(x, axis=1) (2,3,4)", norm_axis_kw, lambda: (mat(2, 3, 4),)),
    ("norm(x, 3, -1) (2,4)", norm_axis_pos, lambda: (mat(2, 4),)),
    ("norm(x, inf, 0, True) (3,4)", norm_axis_keepdims, lambda: (mat(3, 4),)),
    ("norm(x, 'nuc', (1, 2)) (2,3,4)", norm_axes_pos, lambda: (mat(2, 3, 4),)),
    ("norm(x, ord=2, axis=(2, 0), keepdims=True) (3,2,4)", norm_axes_kw, lambda: (mat(3, 2, 4),)),
    ("norm(x, axis=(0, 1)) (3,4,2)", norm_axes_fro, lambda: (mat(3, 4, 2),)),
    ("norm(x, -inf, (-1, -2)) (2,3,4)", norm_axes_inf, lambda: (mat(2, 3, 4),)),
    ("norm(x, ord=1, axis=(1, 2)) (3,3,3)", norm_axes_one, lambda: (mat(3, 3, 3),)),
]
for _ord in (None, 1, 2, 3, 0.5, -1, -2.5, np.inf, -np.inf, 0):
    for _kw in (False, True):
        CASES.append((f"norm(v, {'ord=' if _kw else ''}{_ord!r})", norm_ord(_ord, _kw), lambda: (mat(5),)))
for _ord in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
    for _kw in (False, True):
        CASES.append((f"norm(A, {'ord=' if _kw else ''}{_ord!r})", norm_ord(_ord, _kw), lambda: (mat(3, 4),)))
CASES += [
    # eigh, eigvalsh: symmetric with separated eigenvalues; gradients onto the triangle read
    ("eigh w (3,3)", eigh_w, lambda: (separated(3, 3),)),
    ("eigh w (3,3,3) B == n", eigh_w, lambda: (separated(3, 3, 3),)),
    ("eigh v (3,3)", eigh_v, lambda: (separated(3, 3),)),
    ("eigh v (2,2,3,3)", eigh_v, lambda: (separated(2, 2, 3, 3),)),
    ("eigh(a, 'U') (4,4)", eigh_both_upper_pos, lambda: (separated(4, 4),)),
    ("eigh(a, UPLO='U') (2,3,3)", eigh_upper_kw, lambda: (separated(2, 3, 3),)),
    ("eigvalsh (3,3)", eigvalsh, lambda: (separated(3, 3),)),
    ("eigvalsh (3,3,3) B == n", eigvalsh, lambda: (separated(3, 3, 3),)),
    ("eigvalsh(UPLO='U') (2,3,3)", eigvalsh_upper, lambda: (separated(2, 3, 3),)),
    # svd: reduced for any shape, full for square, singular values alone
    ("svd(compute_uv=False) (4,3)", svd_s, lambda: (mat(4, 3),)),
    ("svd(a, False, False) (2,3,4)", svd_s_pos, lambda: (mat(2, 3, 4),)),
    ("svd(full_matrices=False) (4,3)", svd_reduced, lambda: (mat(4, 3),)),
    ("svd(full_matrices=False) (3,5)", svd_reduced, lambda: (mat(3, 5),)),
    ("svd(full_matrices=False) (3,4,3) B == n", svd_reduced, lambda: (mat(3, 4, 3),)),
    ("svd (3,3) full square", svd_square, lambda: (mat(3, 3),)),
    ("svd (2,3,3) full square", svd_square, lambda: (mat(2, 3, 3),)),
    ("svd(hermitian=True) (3,3)", svd_hermitian, lambda: (separated(3, 3),)),
    # qr: tall, square, wide, stacks; mode='r'
    ("qr (4,3)", qr, lambda: (mat(4, 3),)),
    ("qr (3,3)", qr, lambda: (mat(3, 3),)),
    ("qr (3,5) wide", qr, lambda: (mat(3, 5),)),
    ("qr(mode='reduced') (3,4,3) B == n", qr_kw, lambda: (mat(3, 4, 3),)),
    ("qr(mode='reduced') (2,2,3,4) wide", qr_kw, lambda: (mat(2, 2, 3, 4),)),
    ("qr(a, 'r') (4,3)", qr_r, lambda: (mat(4, 3),)),
    # pinv, lstsq, multi_dot
    ("pinv (4,3)", pinv, lambda: (mat(4, 3),)),
    ("pinv (3,5)", pinv, lambda: (mat(3, 5),)),
    ("pinv (3,4,3) B == n", pinv, lambda: (mat(3, 4, 3),)),
    ("pinv(a, 1e-12, True) (3,3)", pinv_params, lambda: (spd(3, 3),)),
    ("pinv(rcond=, hermitian=False) (2,3,4)", pinv_kw, lambda: (mat(2, 3, 4),)),
    ("lstsq (5,3),(5,)", lstsq, lambda: (mat(5, 3), mat(5))),
    ("lstsq (5,3),(5,2)", lstsq, lambda: (mat(5, 3), mat(5, 2))),
    ("lstsq (3,5),(3,) underdetermined", lstsq, lambda: (mat(3, 5), mat(3))),
    ("lstsq(rcond=None) x and s", lstsq_rcond, lambda: (mat(5, 3), mat(5))),
    ("multi_dot [A, B, C]", multi_dot, lambda: (mat(2, 3), mat(3, 4), mat(4, 2))),
    ("multi_dot (v, B, C, w)", multi_dot_vectors, lambda: (mat(3), mat(3, 4), mat(4, 2), mat(2))),
]


# Numba compiles three functions per case (up to minutes each for stacks): a slice runs in
# `make test`, every case in `make test-slow`.
# `make test` compiles one stacked regression under Numba (B == n catches `.T`);
# `make test-slow` compiles them all.
FAST_NUMBA = {"det (3,3,3) B == n"}
NUMBA = [pytest.param(*c, marks=() if c[0] in FAST_NUMBA else pytest.mark.slow, id=c[0]) for c in CASES]


@pytest.mark.parametrize("name,fn,make", CASES, ids=[c[0] for c in CASES])
def test_rule(name, fn, make):
    check_grads(fn, make(), modes=("rev", "fwd"), backend="python")


@pytest.mark.parametrize("name,fn,make", NUMBA)
def test_rule_numba(name, fn, make):
    check_grads(fn, make(), modes=("rev", "fwd"), backend="numba")


# --- what has no derivative is refused, never silently wrong -------------------------

def svd_full_tall(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(u * u[:1, :])


def qr_complete(a):
    q, r = np.linalg.qr(a, mode="complete")
    return np.sum(q)


def lstsq_residuals(a, b):
    return np.sum(np.linalg.lstsq(a, b)[1])


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_svd_full_matrices_of_non_square_has_no_derivative(backend):
    # the extra columns of U are any orthonormal completion: refused, not a number that looks right
    with pytest.raises(RunTimeRefusal, match=r"test_linalg_rules.py:\d+:.*full_matrices=False"):
        sstad.jit(sstad.grad(svd_full_tall), backend=backend)(mat(4, 3))
    assert np.isfinite(sstad.grad(svd_full_tall)(mat(3, 3))).all()


@pytest.mark.parametrize("fn,args,words", [
    (qr_complete, lambda: (mat(4, 3),), "mode='complete'"),
    (lstsq_residuals, lambda: (mat(5, 3), mat(5)), "residuals"),
])
def test_refused(fn, args, words):
    with pytest.raises(SstadError, match=words.replace("(", r"\(").replace(")", r"\)")):
        sstad.grad(fn)(*args())
