"""Linear algebra the emitted code calls as ``rt.NAME``: stacks ``(..., n, m)`` and the
parameters Numba's ``np.linalg`` lacks (it takes 2-d arrays and default parameters only).

Each function is plain NumPy (what the python backend runs) with a Numba overload of the
same function (what compiled code runs): the overload loops over the stack and applies
Numba's 2-d routine to each matrix, so one emitted text serves both backends.

>>> import numpy as np
>>> stacked_inv(np.stack([np.eye(2), 2 * np.eye(2)]))[1]
array([[0.5, 0. ],
       [0. , 0.5]])
"""
import inspect

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import overload
from numba.np.numpy_support import as_dtype
from numba.np.unsafe.ndarray import to_fixed_tuple

__all__ = """stacked_matmul stacked_inv stacked_det stacked_slogdet_sign stacked_slogdet_logabs
stacked_solve stacked_cholesky eigh_values eigh_vectors stacked_eigvalsh svd_u svd_s svd_vh qr_q qr_r
stacked_pinv stacked_matrix_rank lstsq_x lstsq_residuals vector_norm_last matrix_norm_last int_trace trace_axes dot_nd inner_nd vdot_flat""".split()


# --- plain NumPy (the python backend, and the semantics) ------------------------------

def stacked_matmul(x1, x2):
    """``np.matmul(x1, x2)``, also for stacks under Numba."""
    return np.matmul(x1, x2)


def stacked_inv(a):
    """``np.linalg.inv(a)`` of a stack."""
    return np.linalg.inv(a)


def stacked_det(a):
    """``np.linalg.det(a)`` of a stack."""
    return np.linalg.det(a)


def stacked_slogdet_sign(a):
    """``np.linalg.slogdet(a)[0]`` of a stack."""
    return np.linalg.slogdet(a)[0]


def stacked_slogdet_logabs(a):
    """``np.linalg.slogdet(a)[1]`` of a stack."""
    return np.linalg.slogdet(a)[1]


def stacked_solve(a, b):
    """``np.linalg.solve(a, b)`` of stacks (NumPy 2: ``b`` is a vector only when 1-d)."""
    return np.linalg.solve(a, b)


def stacked_cholesky(a, upper=False):
    """``np.linalg.cholesky(a, upper=upper)`` of a stack."""
    return np.linalg.cholesky(a, upper=upper)


def eigh_values(a, UPLO="L"):
    """``np.linalg.eigh(a, UPLO)[0]``: the eigenvalues, ascending."""
    return np.linalg.eigh(a, UPLO)[0]


def eigh_vectors(a, UPLO="L"):
    """``np.linalg.eigh(a, UPLO)[1]``: the eigenvectors, as columns."""
    return np.linalg.eigh(a, UPLO)[1]


def stacked_eigvalsh(a, UPLO="L"):
    """``np.linalg.eigvalsh(a, UPLO)``."""
    return np.linalg.eigvalsh(a, UPLO)


def svd_u(a, full_matrices=True, hermitian=False):
    """``np.linalg.svd(a, full_matrices)[0]``."""
    return np.linalg.svd(a, full_matrices, True, hermitian)[0]


def svd_s(a, hermitian=False):
    """``np.linalg.svd(a, compute_uv=False)``: the singular values, descending."""
    return np.linalg.svd(a, compute_uv=False, hermitian=hermitian)


def svd_vh(a, full_matrices=True, hermitian=False):
    """``np.linalg.svd(a, full_matrices)[2]``."""
    return np.linalg.svd(a, full_matrices, True, hermitian)[2]


def qr_q(a, mode="reduced"):
    """``np.linalg.qr(a, mode)[0]``."""
    return np.linalg.qr(a, mode)[0]


def qr_r(a, mode="reduced"):
    """``np.linalg.qr(a, mode)[1]`` (mode ``'r'``: the only result)."""
    return np.linalg.qr(a, mode) if mode == "r" else np.linalg.qr(a, mode)[1]


def stacked_pinv(a, rcond=None, hermitian=False, rtol=None):
    """``np.linalg.pinv(a, rcond, hermitian, rtol=rtol)``."""
    if rtol is None:
        return np.linalg.pinv(a, rcond, hermitian)
    return np.linalg.pinv(a, rcond, hermitian, rtol=rtol)


def stacked_matrix_rank(a, tol=None, hermitian=False, rtol=None):
    """``np.linalg.matrix_rank(a, tol, hermitian, rtol=rtol)`` of a stack, ``tol`` and
    ``rtol`` numbers."""
    if rtol is None:
        return np.linalg.matrix_rank(a, tol, hermitian)
    return np.linalg.matrix_rank(a, tol, hermitian, rtol=rtol)


def lstsq_x(a, b, rcond=None):
    """``np.linalg.lstsq(a, b, rcond)[0]``."""
    return np.linalg.lstsq(a, b, rcond)[0]


def lstsq_residuals(a, b, rcond=None):
    """``np.linalg.lstsq(a, b, rcond)[1]``."""
    return np.linalg.lstsq(a, b, rcond)[1]


def vector_norm_last(x, ord):
    """``np.linalg.norm(x, ord, axis=-1)`` (``ord`` a number)."""
    return np.linalg.norm(x, ord, axis=-1)


MATRIX_ORDS = ("fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf)


def matrix_norm_last(x, kind):
    """``np.linalg.norm(x, MATRIX_ORDS[kind], axis=(-2, -1))``."""
    return np.linalg.norm(x, MATRIX_ORDS[kind], axis=(-2, -1))


def int_trace(a, offset=0):
    """``np.trace(a, offset)`` of a matrix of integers or booleans (Numba's takes floats)."""
    return np.sum(np.diag(a, offset))


def trace_axes(a, offset=0, axis1=0, axis2=1):
    """``np.trace(a, offset, axis1, axis2)`` of an n-d array."""
    return np.trace(a, offset, axis1, axis2)


def dot_nd(a, b):
    """``np.dot(a, b)`` of n-d arrays: a's last axis against b's second-to-last."""
    return np.dot(a, b)


def inner_nd(a, b):
    """``np.inner(a, b)``: the last axes of both summed."""
    return np.inner(a, b)


def vdot_flat(a, b):
    """``np.vdot(a, b)``: the dot product of the flattened arrays."""
    return np.vdot(a, b)


# --- Numba: loops over the stack ------------------------------------------------------

@njit(cache=True)
def _broadcast_index(out_shape, x_shape):
    """For each flat position of the batch ``out_shape``, the flat position in the batch
    ``x_shape`` (same length, 1 where ``x`` is broadcast) that it reads."""
    total = 1
    for n in out_shape:
        total *= n
    index = np.empty(total, np.int64)
    for k in range(total):
        rest, xi, stride = k, 0, 1
        for ax in range(out_shape.size - 1, -1, -1):
            coord = rest % out_shape[ax]
            rest //= out_shape[ax]
            if x_shape[ax] != 1:
                xi += coord * stride
            stride *= x_shape[ax]
        index[k] = xi
    return index


@njit(cache=True)
def _batch_shapes(s1, s2):
    """The broadcast batch shape of two batch shapes, and both padded to its length."""
    n = max(s1.size, s2.size)
    p1 = np.ones(n, np.int64)
    p2 = np.ones(n, np.int64)
    p1[n - s1.size:] = s1
    p2[n - s2.size:] = s2
    out = np.empty(n, np.int64)
    for k in range(n):
        if p1[k] != p2[k] and p1[k] != 1 and p2[k] != 1:
            raise ValueError("stack shapes do not broadcast")
        out[k] = max(p1[k], p2[k])
    return out, p1, p2


_UNARY = """
def build({header}):
    if not isinstance(a, types.Array) or a.ndim < 2:
        raise TypingError("a stack of matrices (..., n, m) is expected")
    batch = a.ndim - 2
    out_ndim = batch + out_core_ndim

    def impl({header}):
        shape = np.array(a.shape)
        stack = np.ascontiguousarray(a).reshape((-1, shape[-2], shape[-1]))
        first = np.asarray(core(stack[0].copy(){rest}))
        core_shape = np.array(first.shape)
        out = np.empty((stack.shape[0], first.size), first.dtype)
        for k in range(stack.shape[0]):
            out[k] = np.asarray(core(stack[k].copy(){rest})).ravel()
        full = np.empty(out_ndim, np.int64)
        full[:batch] = shape[:batch]
        full[batch:] = core_shape
        return out.reshape(to_fixed_tuple(full, out_ndim))
    return impl
"""


def _define_unary(fn, core, out_core_ndim):
    """Overload ``fn(a, *params)`` by ``core(matrix, *params)`` applied matrix by matrix
    over the stack; ``core`` returns an array of rank ``out_core_ndim`` (0: a scalar).
    The overload is generated with ``fn``'s own signature, so keywords work too."""
    params = list(inspect.signature(fn).parameters.values())
    rest = "".join(", " + p.name for p in params[1:])
    scope = {"np": np, "types": types, "TypingError": TypingError, "to_fixed_tuple": to_fixed_tuple,
             "core": njit(core), "out_core_ndim": out_core_ndim}
    exec(_UNARY.format(header=", ".join(str(p) for p in params), rest=rest), scope)
    overload(fn)(scope["build"])


_define_unary(stacked_inv, lambda m: np.linalg.inv(m), 2)
_define_unary(stacked_det, lambda m: np.linalg.det(m), 0)
_define_unary(stacked_slogdet_sign, lambda m: np.linalg.slogdet(m)[0], 0)
_define_unary(stacked_slogdet_logabs, lambda m: np.linalg.slogdet(m)[1], 0)


@njit(cache=True)
def _lower(m, upper):
    """The symmetric matrix that LAPACK reads from one triangle of ``m``."""
    n = m.shape[0]
    s = m.copy()
    for i in range(n):
        for j in range(i + 1, n):
            if upper:
                s[j, i] = m[i, j]
            else:
                s[i, j] = m[j, i]
    return s


def _cholesky_core(m, upper):
    low = np.linalg.cholesky(_lower(m, upper))
    return np.ascontiguousarray(low.T) if upper else low


_define_unary(stacked_cholesky, _cholesky_core, 2)
_define_unary(eigh_values, lambda m, UPLO: np.linalg.eigh(_lower(m, UPLO == "U"))[0], 1)
_define_unary(eigh_vectors, lambda m, UPLO: np.linalg.eigh(_lower(m, UPLO == "U"))[1], 2)
_define_unary(stacked_eigvalsh, lambda m, UPLO: np.linalg.eigvalsh(_lower(m, UPLO == "U")), 1)


def _svd_core(part):
    def core(m, full_matrices, hermitian):
        if hermitian:
            m = _lower(m, False)
        return np.linalg.svd(m, full_matrices)[part]
    return core


_define_unary(svd_u, _svd_core(0), 2)
_define_unary(svd_vh, _svd_core(2), 2)
_define_unary(svd_s, lambda m, hermitian: np.linalg.svd(_lower(m, False) if hermitian else m, False)[1], 1)


def _qr_core(part):
    def core(m, mode):
        if mode != "reduced" and mode != "r":
            raise ValueError("np.linalg.qr under Numba: only mode='reduced' and 'r'")
        return np.linalg.qr(m)[part]
    return core


_define_unary(qr_q, _qr_core(0), 2)
_define_unary(qr_r, _qr_core(1), 2)


def _pinv_core(m, rcond, hermitian, rtol):
    if hermitian:
        m = _lower(m, False)
    if rtol is not None:
        cut = rtol
    elif rcond is not None:
        cut = rcond
    else:
        cut = 1e-15
    return np.linalg.pinv(m, cut)


_define_unary(stacked_pinv, _pinv_core, 2)


def _matrix_rank_core(m, tol, hermitian, rtol):
    """NumPy's rank: the singular values above ``tol``, else above ``rtol`` (else
    max(n, m) * eps) times the largest."""
    if hermitian:
        s = np.abs(np.linalg.eigvalsh(_lower(m, False)))
    else:
        s = np.linalg.svd(m, False)[1]
    if tol is not None:
        cut = tol
    elif rtol is not None:
        cut = np.max(s) * rtol
    else:
        cut = np.max(s) * max(m.shape[0], m.shape[1]) * np.finfo(s.dtype).eps
    return np.sum(s > cut)


_define_unary(stacked_matrix_rank, _matrix_rank_core, 0)


def _lstsq_part(part):
    def build(a, b, rcond=None):
        if isinstance(rcond, (types.NoneType, types.Omitted)) or rcond is None:
            return lambda a, b, rcond=None: np.linalg.lstsq(a, b)[part]
        return lambda a, b, rcond=None: np.linalg.lstsq(a, b, rcond)[part]
    return build


overload(lstsq_x)(_lstsq_part(0))
overload(lstsq_residuals)(_lstsq_part(1))


@overload(stacked_matmul)
def _matmul_numba(x1, x2):
    if not (isinstance(x1, types.Array) and isinstance(x2, types.Array)):
        raise TypingError("matmul takes arrays")
    v1, v2 = x1.ndim == 1, x2.ndim == 1
    b1 = 0 if v1 else x1.ndim - 2
    b2 = 0 if v2 else x2.ndim - 2
    batch = max(b1, b2)
    out_ndim = batch + (0 if v1 else 1) + (0 if v2 else 1)
    dtype = np.result_type(as_dtype(x1.dtype), as_dtype(x2.dtype))

    def impl(x1, x2):
        s1, s2 = np.array(x1.shape), np.array(x2.shape)
        m1 = np.ascontiguousarray(x1).reshape((-1, 1 if v1 else s1[-2], s1[-1]))
        m2 = np.ascontiguousarray(x2).reshape((-1, s2[0] if v2 else s2[-2], 1 if v2 else s2[-1]))
        shape, p1, p2 = _batch_shapes(s1[:b1], s2[:b2])
        i1, i2 = _broadcast_index(shape, p1), _broadcast_index(shape, p2)
        out = np.empty((i1.size, m1.shape[1], m2.shape[2]), dtype)
        for k in range(i1.size):
            out[k] = np.dot(m1[i1[k]], m2[i2[k]])
        full = np.empty(out_ndim, np.int64)
        full[:batch] = shape
        j = batch
        if not v1:
            full[j] = m1.shape[1]
            j += 1
        if not v2:
            full[j] = m2.shape[2]
        return out.reshape(to_fixed_tuple(full, out_ndim))
    return impl


@overload(stacked_solve)
def _solve_numba(a, b):
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
        raise TypingError("solve takes arrays")
    vec = b.ndim == 1
    ba, bb = a.ndim - 2, (0 if vec else b.ndim - 2)
    batch = max(ba, bb)
    out_ndim = batch + (1 if vec else 2)
    dtype = np.result_type(as_dtype(a.dtype), as_dtype(b.dtype))

    def impl(a, b):
        sa, sb = np.array(a.shape), np.array(b.shape)
        ma = np.ascontiguousarray(a).reshape((-1, sa[-2], sa[-1]))
        mb = np.ascontiguousarray(b).reshape((-1, sb[0] if vec else sb[-2], 1 if vec else sb[-1]))
        shape, pa, pb = _batch_shapes(sa[:ba], sb[:bb])
        ia, ib = _broadcast_index(shape, pa), _broadcast_index(shape, pb)
        out = np.empty((ia.size, mb.shape[1], mb.shape[2]), dtype)
        for k in range(ia.size):
            out[k] = np.linalg.solve(ma[ia[k]], mb[ib[k]])
        full = np.empty(out_ndim, np.int64)
        full[:batch] = shape
        full[batch] = mb.shape[1]
        if not vec:
            full[batch + 1] = mb.shape[2]
        return out.reshape(to_fixed_tuple(full, out_ndim))
    return impl


@overload(dot_nd)
def _dot_numba(a, b):
    na, nb = a.ndim, b.ndim
    out_ndim = na - 1 + max(nb - 1, 0)

    def impl(a, b):
        sa, sb = np.array(a.shape), np.array(b.shape)
        a2 = np.ascontiguousarray(a).reshape((-1, sa[-1]))
        if nb == 1:
            b2 = np.ascontiguousarray(b).reshape((-1, 1))
        else:
            b2 = np.ascontiguousarray(np.moveaxis(b, -2, 0)).reshape((sb[-2], -1))
        full = np.empty(out_ndim, np.int64)
        full[:na - 1] = sa[:-1]
        if nb > 1:
            full[na - 1:out_ndim - 1] = sb[:-2]
            full[out_ndim - 1] = sb[-1]
        return np.dot(a2, b2).reshape(to_fixed_tuple(full, out_ndim))
    return impl


@overload(inner_nd)
def _inner_numba(a, b):
    na, nb = a.ndim, b.ndim
    out_ndim = na + nb - 2

    def impl(a, b):
        sa, sb = np.array(a.shape), np.array(b.shape)
        a2 = np.ascontiguousarray(a).reshape((-1, sa[-1]))
        b2 = np.ascontiguousarray(b).reshape((-1, sb[-1]))
        full = np.empty(out_ndim, np.int64)
        full[:na - 1] = sa[:-1]
        full[na - 1:] = sb[:-1]
        return np.dot(a2, np.ascontiguousarray(b2.T)).reshape(to_fixed_tuple(full, out_ndim))
    return impl


@overload(vdot_flat)
def _vdot_numba(a, b):
    return lambda a, b: np.dot(np.ascontiguousarray(a).ravel(), np.ascontiguousarray(b).ravel())


@njit(cache=True)
def _matrix_norm(m, kind):
    """Norm of one matrix, ``kind`` indexing MATRIX_ORDS."""
    if kind == 0:
        return np.sqrt(np.sum(m * m))
    if kind <= 3:
        s = np.linalg.svd(m, False)[1]
        if kind == 1:
            return np.sum(s)
        return s[0] if kind == 2 else s[-1]
    sums = np.sum(np.abs(m), axis=0) if kind <= 5 else np.sum(np.abs(m), axis=1)
    return np.max(sums) if kind % 2 == 0 else np.min(sums)


@njit(cache=True)
def _vector_norm(v, p):
    a = np.abs(v)
    if p == np.inf:
        return np.max(a)
    if p == -np.inf:
        return np.min(a)
    if p == 0:
        return float(np.sum(a != 0))
    if p == 1:
        return np.sum(a)
    if p == 2:
        return np.sqrt(np.sum(a * a))
    return np.sum(a ** p) ** (1.0 / p)


def _reduce_last(reduce_, k):
    """Overload body: ``reduce_`` over the last ``k`` axes."""
    def build(x, param):
        out_ndim = x.ndim - k
        if out_ndim == 0:
            return lambda x, param: reduce_(np.ascontiguousarray(x), param)

        def impl(x, param):
            shape = np.array(x.shape)
            inner = 1
            for n in shape[out_ndim:]:
                inner *= n
            rows = np.ascontiguousarray(x).reshape((-1, inner))
            out = np.empty(rows.shape[0], x.dtype)
            for r in range(rows.shape[0]):
                if k == 1:
                    out[r] = reduce_(rows[r], param)
                else:
                    out[r] = reduce_(rows[r].reshape((shape[-2], shape[-1])), param)
            return out.reshape(to_fixed_tuple(shape[:out_ndim], out_ndim))
        return impl
    return build


overload(vector_norm_last)(_reduce_last(_vector_norm, 1))
overload(matrix_norm_last)(_reduce_last(_matrix_norm, 2))


def _literal(t):
    """The Python value of a Numba literal type (or of a default left out)."""
    if isinstance(t, int):
        return t
    if isinstance(t, types.Omitted):
        return t.value
    if isinstance(t, types.Literal):
        return t.literal_value
    raise TypingError("trace: `axis1` and `axis2` must be literal constants")


@overload(int_trace)
def _int_trace_numba(a, offset=0):
    return lambda a, offset=0: np.sum(np.diag(a, offset))


@overload(trace_axes, prefer_literal=True)
def _trace_numba(a, offset=0, axis1=0, axis2=1):
    nd = a.ndim
    ax1, ax2 = _literal(axis1) % nd, _literal(axis2) % nd
    kept = tuple(k for k in range(nd) if k not in (ax1, ax2))
    perm = np.array(kept + (ax1, ax2), np.int64)
    out_ndim = nd - 2

    def impl(a, offset=0, axis1=0, axis2=1):
        shape = np.array(a.shape)
        moved = np.ascontiguousarray(np.transpose(a, to_fixed_tuple(perm, nd)))
        n1, n2 = shape[perm[nd - 2]], shape[perm[nd - 1]]
        cube = moved.reshape((-1, n1, n2))
        out = np.zeros(cube.shape[0], a.dtype)
        for k in range(cube.shape[0]):
            for i in range(n1):
                j = i + offset
                if 0 <= j < n2:
                    out[k] += cube[k, i, j]
        full = np.empty(out_ndim, np.int64)
        for k in range(out_ndim):
            full[k] = shape[perm[k]]
        return out.reshape(to_fixed_tuple(full, out_ndim))
    return impl
