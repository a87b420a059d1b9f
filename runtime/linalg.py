"""Products and ``np.linalg``: primitives and their reverse-mode rules.

Matrix rules work on the last two axes (``np.swapaxes(x, -1, -2)``, ``np.matmul``), so
they hold for stacks ``(..., n, m)`` as NumPy computes them; a batch on one side only is
summed back (``unbroadcast``).  Functions that return several arrays (``eigh``, ``svd``,
``qr``, ``lstsq``) are composites over one primitive per result.  Routines that read
one triangle of their input (``cholesky``, ``eigh``, ``eigvalsh``, ``pinv(hermitian=True)``)
get the gradient with respect to that triangle: the other one does not change the result.
Stacks and parameters that Numba's ``np.linalg`` lacks are emitted as ``rt.*`` calls
(``runtime/linalg_numba.py``).
"""
import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime import linalg_numba as L
from sstad.runtime.broadcast import unbroadcast
from sstad.runtime.composites import composite
from sstad.runtime.primitive import (Slot, declare, defvjp, emit_call, fill, literal, lookup, lowering, nondiff,
                                     numpy_primitive, text_of)


def _stacked(matrix_call, stack_call, core_params=()):
    """Emit ``matrix_call`` for 2-d arguments at NumPy's defaults, else ``stack_call``
    (an ``rt.*`` function that Numba compiles for stacks and every parameter)."""
    plain, stacked = emit_call(matrix_call), emit_call(stack_call)

    def emit(args, params, avals):
        layout = params.get("layout")
        extra = layout is not None and (len(layout[0]) > len(avals) or layout[1])
        if extra or any(isinstance(a, A.Array) and a.ndim > 2 for a in avals):
            return stacked(args, params, avals)
        return plain(args, params, avals)
    return emit


def _matmul_emit(args, params, avals):
    if any(isinstance(a, A.Array) and a.ndim > 2 for a in avals):
        return emit_call("rt.stacked_matmul")(args, params, avals)
    layout = params.get("layout")
    if layout is None:
        return f"{args[0]} @ {args[1]}"
    return f"{text_of(layout[0][0], args)} @ {text_of(layout[0][1], args)}"


def _inner_emit(args, params, avals):
    """Numba has no np.inner: for vectors it is np.dot, for scalars a product (a literal
    number too: it is in the layout, not among the atoms)."""
    layout = params.get("layout")
    if layout is not None and any(not isinstance(v, Slot) for v in layout[0][:2]):
        return f"({text_of(layout[0][0], args)} * {text_of(layout[0][1], args)})"
    if any(isinstance(a, A.Scalar) for a in avals):
        return f"({args[0]} * {args[1]})"
    if all(a.ndim == 1 for a in avals):
        return emit_call("np.dot")(args, params, avals)
    return emit_call("rt.inner_nd")(args, params, avals)


def _vdot_emit(args, params, avals):
    """Numba's np.vdot takes vectors only."""
    if all(isinstance(a, A.Array) and a.ndim == 1 for a in avals):
        return emit_call("np.vdot")(args, params, avals)
    return emit_call("rt.vdot_flat")(args, params, avals)


def _trace_emit(args, params, avals):
    """Numba's np.trace takes a matrix of floats and an offset (integers: the sum of the
    diagonal, which Numba sums in int64 as NumPy does)."""
    layout = params.get("layout")
    trace = "np.trace" if avals[0].dtype.kind in "fc" else "rt.int_trace"
    if avals[0].ndim == 2 and (layout is None or (len(layout[0]) <= 2 and not layout[1])):
        return emit_call(trace)(args, params, avals)
    if avals[0].ndim == 2 and layout is not None:       # a matrix: its trace, or its transpose's
        given = dict(zip(("a", "offset", "axis1", "axis2"), layout[0]), **layout[1])
        axes = (given.get("axis1", 0), given.get("axis2", 1))
        if set(given) <= {"a", "offset", "axis1", "axis2"} and all(isinstance(v, int) and not isinstance(v, Slot)
                                                                   for v in axes):
            x = text_of(given["a"], args)
            x = x if axes[0] % 2 == 0 else f"{x}.T"
            offset = text_of(given.get("offset", 0), args)
            return f"{trace}({x}, {offset})"
    return emit_call("rt.trace_axes")(args, params, avals)


def _cross_emit(args, params, avals):
    """Numba's np.cross has no axis parameters: move the vector axes last and back."""
    pos, kw = params["layout"]
    a, b = text_of(pos[0], args), text_of(pos[1], args)
    names = ("axisa", "axisb", "axisc", "axis")
    given = dict(zip(names, (text_of(p, args) for p in pos[2:])))
    given.update({k: text_of(v, args) for k, v in kw.items()})
    if given.get("axis", "None") != "None":
        given = {k: given["axis"] for k in names[:3]}
    if not given:
        return f"np.cross({a}, {b})"
    axa, axb, axc = (given.get(k, "-1") for k in names[:3])
    return (f"np.moveaxis(np.cross(np.moveaxis({a}, {axa}, -1), np.moveaxis({b}, {axb}, -1)), -1, {axc})")


def _dot_emit(args, params, avals):
    """Numba's np.dot takes 1-d and 2-d arrays: a scalar multiplies, n-d calls rt.dot_nd."""
    pos, kw = params["layout"]
    if len(pos) == 2 and not kw and any(not isinstance(p, Slot) or isinstance(avals[p], A.Scalar) for p in pos):
        return f"({text_of(pos[0], args)} * {text_of(pos[1], args)})"
    if any(a.ndim > 2 for a in avals):
        return emit_call("rt.dot_nd")(args, params, avals)
    return emit_call("np.dot")(args, params, avals)


numpy_primitive("dot", np.dot, emit=_dot_emit)
for _name in "outer diag kron".split():
    numpy_primitive(_name, getattr(np, _name))
numpy_primitive("matmul", np.matmul, emit=_matmul_emit)
lookup("op.matmul").emit = _matmul_emit
numpy_primitive("inner", np.inner, emit=_inner_emit)
numpy_primitive("vdot", np.vdot, emit=_vdot_emit)
numpy_primitive("trace", np.trace, emit=_trace_emit)


def _one_blas_dtype(name, scalar_result):
    """Numba's products (BLAS) take float or complex arrays of one dtype: operands of
    another dtype are cast to the one NumPy computes in, integers and booleans computed in
    float64 and the result cast back (exact while sums stay below 2**53)."""
    spell = lookup(name).emit

    @lowering("numba", name)
    def emit(args, params, avals):
        arrays = [a for a in avals if isinstance(a, A.Array)]
        if len(arrays) < 2 or len(arrays) != len(avals):          # a scalar: a product
            return spell(args, params, avals)
        common = np.result_type(*(a.dtype for a in arrays))
        work = common if common.kind in "fc" else np.dtype(np.float64)
        if all(a.dtype == work for a in arrays):
            return spell(args, params, avals)
        args = [f"{x}.astype(np.{work.name})" if a.dtype != work else x for x, a in zip(args, avals)]
        text = spell(args, params, [A.Array(work, a.ndim) for a in avals])
        if work == common:
            return text
        if scalar_result(arrays):
            return f"np.{common.name}({text})"
        return f"({text}).astype(np.{common.name})"
    return emit


for _name in ("matmul", "op.matmul", "dot", "inner"):
    _one_blas_dtype(_name, lambda arrays: all(a.ndim == 1 for a in arrays))
_one_blas_dtype("vdot", lambda arrays: True)


def _cross_infer(avals, params):
    """NumPy on stand-ins with 3 along every axis (the prototypes' 1 is no vector)."""
    protos = [np.full((3,) * a.ndim, 0.5, a.dtype) if isinstance(a, A.Array) else A.prototype(a) for a in avals]
    pos, kw = params["layout"]
    return A.of_value(np.cross(*fill(pos, protos), **fill(kw, protos)))


numpy_primitive("cross", np.cross, infer=_cross_infer, emit=_cross_emit)

for _name, _rt in [("solve", "stacked_solve"), ("inv", "stacked_inv"), ("det", "stacked_det"),
                   ("cholesky", "stacked_cholesky"), ("eigvalsh", "stacked_eigvalsh"), ("pinv", "stacked_pinv")]:
    numpy_primitive("linalg." + _name, getattr(np.linalg, _name),
                    emit=_stacked("np.linalg." + _name, "rt." + _rt))


def _norm_emit(args, params, avals):
    """Numba's norm takes 1-d and 2-d arrays, numeric ``ord`` and no ``axis``: move the
    reduced axes last and call ``rt.vector_norm_last`` / ``rt.matrix_norm_last``."""
    pos, kw = params["layout"]
    given = dict(zip(("x", "ord", "axis", "keepdims"), pos))
    given.update(kw)
    x, ord, axis, keepdims = text_of(given["x"], args), given.get("ord"), given.get("axis"), given.get("keepdims")
    nd = avals[0].ndim
    exact = avals[0].dtype.kind in "fc"
    if not exact:                           # NumPy's norm casts integers and bools to float first
        x = f"{x}.astype(np.float64)"
    if axis is None and not keepdims and (nd == 1 or (nd == 2 and ord is not None and not isinstance(ord, str))):
        if exact:
            return emit_call("np.linalg.norm")(args, params, avals)
        return f"np.linalg.norm({x})" if ord is None else f"np.linalg.norm({x}, {text_of(ord, args)})"
    if axis is None:
        axes = tuple(range(nd)) if (ord is not None or nd == 1) else None
    else:
        axes = tuple(a % nd for a in (axis if isinstance(axis, tuple) else (axis,)))
    if axes is None:                                    # the 2-norm of the flattened array
        text = f"rt.vector_norm_last(np.ascontiguousarray({x}).ravel(), 2.0)"
        axes = tuple(range(nd))
    elif len(axes) == 1:
        p = 2.0 if ord is None else float(ord)
        text = f"rt.vector_norm_last(np.moveaxis({x}, {axes[0]}, -1), {literal(p)})"
    else:
        kind = L.MATRIX_ORDS.index("fro" if ord is None else ord)
        text = f"rt.matrix_norm_last(np.moveaxis({x}, {axes}, (-2, -1)), {kind})"
    if keepdims:
        if len(axes) == nd:
            return f"np.full({(1,) * nd}, {text})"
        for a in sorted(axes):
            text = f"np.expand_dims({text}, {a})"
    return text


numpy_primitive("linalg.norm", np.linalg.norm, emit=_norm_emit)

# One primitive per result of the functions that return several arrays.
for _fn in (L.eigh_values, L.eigh_vectors, L.svd_u, L.svd_s, L.svd_vh, L.qr_q, L.qr_r, L.lstsq_x,
            L.lstsq_residuals):
    numpy_primitive("linalg." + _fn.__name__, _fn, emit=emit_call("rt." + _fn.__name__))


# np.linalg.slogdet(a) -> (sign, logabsdet): the frontend splits it into two primitives,
# so each part has its own rule (the sign is piecewise constant).
def slogdet_sign(a):
    return np.linalg.slogdet(a)[0]


def slogdet_logabs(a):
    return np.linalg.slogdet(a)[1]


def _slogdet_emit(part, stacked):
    def emit(args, params, avals):
        if avals[0].ndim == 2:
            return f"np.linalg.slogdet({args[0]})[{part}]"
        return f"rt.{stacked}({args[0]})"
    return emit


numpy_primitive("slogdet_sign", slogdet_sign, emit=_slogdet_emit(0, "stacked_slogdet_sign"))
numpy_primitive("slogdet_logabs", slogdet_logabs, emit=_slogdet_emit(1, "stacked_slogdet_logabs"))
nondiff("slogdet_sign")
# NumPy's linalg computes in float64 for integers and in the wider of mixed precisions
declare(*(f"linalg.{n}" for n in ("solve inv det cholesky eigvalsh pinv eigh_values eigh_vectors svd_u svd_s "
                                  "svd_vh qr_q qr_r lstsq_x lstsq_residuals").split()),
        "slogdet_sign", "slogdet_logabs", inexact=True)

# np.einsum('ij,jk->ik', a, b): its reverse rule rewrites the subscripts (sstad/ad/structural.py).
numpy_primitive("einsum", np.einsum)
# np.tensordot(a, b, axes): its reverse rule is built in sstad/ad/structural.py.
numpy_primitive("tensordot", np.tensordot)


# --- composites: several results, one primitive each ------------------------------------

@composite(np.linalg.eigh)
def _eigh(a, UPLO="L"):
    return L.eigh_values(a, UPLO), L.eigh_vectors(a, UPLO)


@composite(np.linalg.svd)
def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    if compute_uv:
        return (L.svd_u(a, full_matrices, hermitian), L.svd_s(a, hermitian),
                L.svd_vh(a, full_matrices, hermitian))
    return L.svd_s(a, hermitian)


@composite(np.linalg.qr)
def _qr(a, mode="reduced"):
    if mode == "r":
        return L.qr_r(a, "r")
    if mode != "reduced":
        raise NotImplementedError(f"np.linalg.qr(mode={mode!r}) is not supported: use mode='reduced' or 'r'")
    return L.qr_q(a, mode), L.qr_r(a, mode)


@composite(np.linalg.lstsq)
def _lstsq(a, b, rcond=None):
    b = np.asarray(b)                          # b = [1.0, 0.5, w[0]]: an array, as NumPy takes it
    return (L.lstsq_x(a, b, rcond), L.lstsq_residuals(a, b, rcond),
            np.linalg.matrix_rank(a), L.svd_s(a))


@composite(np.linalg.multi_dot)
def _multi_dot(arrays, *, out=None):
    if out is not None:
        raise NotImplementedError("np.linalg.multi_dot(out=...) is not supported: use the result")
    result = arrays[0]
    for x in arrays[1:]:
        result = np.dot(result, x)
    return result


numpy_primitive("linalg.matrix_rank", np.linalg.matrix_rank)
nondiff("linalg.matrix_rank")
declare("linalg.matrix_rank", inexact=True)


@lowering("numba", "linalg.matrix_rank")
def _matrix_rank_numba(args, params, avals):
    """Numba's np.linalg.matrix_rank takes ``tol`` only: ``hermitian=False`` is its way
    anyway, and ``rtol`` is ``tol`` relative to the largest singular value (the 2-norm)."""
    (a, *rest), kw = params["layout"]
    given = dict(zip(("tol", "hermitian"), rest), **kw)
    tol, rtol = given.get("tol"), given.get("rtol")
    if any(isinstance(v, Slot) and isinstance(avals[v], A.Array) for v in (tol, rtol)):    # one per matrix
        return emit_call("np.linalg.matrix_rank")(args, params, avals)
    matrix = text_of(a, args)
    if given.get("hermitian", False) is not False or avals[a].ndim != 2:     # rt's loop over the stack
        parts = ", ".join(text_of(given.get(k, default), args)
                          for k, default in (("tol", None), ("hermitian", False), ("rtol", None)))
        if avals[a].ndim == 2:
            return f"rt.stacked_matrix_rank({matrix}[None], {parts})[0]"
        return f"rt.stacked_matrix_rank({matrix}, {parts})"
    if tol is None and rtol is not None:
        return f"np.linalg.matrix_rank({matrix}, {text_of(rtol, args)} * np.linalg.norm({matrix}, 2))"
    return f"np.linalg.matrix_rank({matrix}{'' if tol is None else ', ' + text_of(tol, args)})"


# --- helpers of the rules (inlined like user code) ---------------------------------------

def _mT(x):
    return np.swapaxes(x, -1, -2)


def _fold(g, upper):
    """A gradient ``g`` with respect to a symmetric matrix, as one with respect to the
    triangle a routine reads: ``tril(g + g^T) - diag(g)`` (``triu`` for the upper one)."""
    both = g + _mT(g)
    eye = np.eye(g.shape[-1])
    if upper:
        return np.triu(both) - g * eye
    return np.tril(both) - g * eye


def _matmul_vjp(x1, x2, dout):
    # Without a batch axis the products have their operand's shape exactly: no unbroadcast,
    # and a vector's cotangent is a matrix-vector product, the matrix's an outer product.
    if x1.ndim == 1 and x2.ndim == 1:
        return (dout * x2, dout * x1)
    if x1.ndim == 1 and x2.ndim == 2:
        return (np.matmul(x2, dout), x1[:, None] * dout[None, :])
    if x1.ndim == 2 and x2.ndim == 1:
        return (dout[:, None] * x2, np.matmul(dout, x1))
    if x1.ndim == 2 and x2.ndim == 2:
        return (np.matmul(dout, _mT(x2)), np.matmul(_mT(x1), dout))
    if x1.ndim == 1:
        return (unbroadcast(np.matmul(x2, dout[..., None])[..., 0], x1), x1[:, None] * dout[..., None, :])
    if x2.ndim == 1:
        return (dout[..., :, None] * x2, unbroadcast(np.matmul(dout[..., None, :], x1)[..., 0, :], x2))
    return (unbroadcast(np.matmul(dout, _mT(x2)), x1), unbroadcast(np.matmul(_mT(x1), dout), x2))


# --- reverse-mode rules ----------------------------------------------------------------

@defvjp("op.matmul", "matmul")
def _(x1, x2, out, dout):
    return _matmul_vjp(x1, x2, dout)


@defvjp("dot")
def _(a, b, out, dout):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return (np.sum(dout * b) if np.ndim(a) == 0 else dout * b, np.sum(dout * a) if np.ndim(b) == 0 else dout * a)
    if a.ndim <= 2 and b.ndim <= 2:
        return _matmul_vjp(a, b, dout)
    # dot sums a's last axis against b's second-to-last: as one matrix product
    a2 = np.reshape(a, (-1, a.shape[-1]))
    if b.ndim == 1:
        d2 = np.reshape(dout, (a2.shape[0], 1))
        return (np.reshape(d2 * b, a.shape), np.reshape(_mT(a2) @ d2, b.shape))
    bm = np.moveaxis(b, -2, 0)
    b2 = np.reshape(bm, (b.shape[-2], -1))
    d2 = np.reshape(dout, (a2.shape[0], b2.shape[1]))
    return (np.reshape(d2 @ _mT(b2), a.shape), np.moveaxis(np.reshape(_mT(a2) @ d2, bm.shape), 0, -2))


@defvjp("inner")
def _(a, b, out, dout):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return (np.sum(dout * b) if np.ndim(a) == 0 else dout * b, np.sum(dout * a) if np.ndim(b) == 0 else dout * a)
    if a.ndim == 1 and b.ndim == 1:
        return (dout * b, dout * a)
    # inner sums the last axes of both: as one matrix product a2 @ b2^T
    a2 = np.reshape(a, (-1, a.shape[-1]))
    b2 = np.reshape(b, (-1, b.shape[-1]))
    d2 = np.reshape(dout, (a2.shape[0], b2.shape[0]))
    return (np.reshape(d2 @ b2, a.shape), np.reshape(_mT(d2) @ a2, b.shape))


def _real_only(name, x):
    """Refuse the derivative of a function that is not holomorphic (it conjugates: a norm,
    a Hermitian decomposition) at complex values: these rules are written for real ones."""
    if np.atleast_1d(x).dtype.kind == "c":
        raise NotImplementedError(f"the derivative of {name} of complex values is not supported: "
                                  "write it with np.abs of the complex values (|z| has a derivative)")


@defvjp("vdot")
def _(a, b, out, dout):
    _real_only("np.vdot", a)
    return (np.reshape(dout * np.ravel(b), a.shape), np.reshape(dout * np.ravel(a), b.shape))


@defvjp("outer")
def _(a, b, out, dout):
    da = dout @ np.ravel(b)
    db = _mT(dout) @ np.ravel(a)
    return (np.sum(da) if np.ndim(a) == 0 else np.reshape(da, a.shape),
            np.sum(db) if np.ndim(b) == 0 else np.reshape(db, b.shape))


@defvjp("kron")
def _(a, b, out, dout):
    if a.ndim == 1 and b.ndim == 1:
        d2 = np.reshape(dout, (a.shape[0], b.shape[0]))
        return (d2 @ b, _mT(d2) @ a)
    if a.ndim == 2 and b.ndim == 2:
        d4 = np.reshape(dout, (a.shape[0], b.shape[0], a.shape[1], b.shape[1]))
        return (np.sum(d4 * b[None, :, None, :], axis=(1, 3)), np.sum(d4 * a[:, None, :, None], axis=(0, 2)))
    raise NotImplementedError("the derivative of np.kron takes two vectors or two matrices")


@defvjp("cross")
def _(a, b, out, dout, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        return _cross_vjp(a, b, dout, axis, axis, axis)
    return _cross_vjp(a, b, dout, axisa, axisb, axisc)


def _cross_vjp(a, b, dout, axisa, axisb, axisc):
    # <dout, da x b> = <b x dout, da> and <dout, a x db> = <dout x a, db>; each computed
    # with its vector axis last, summed over the batch, then moved to its place
    da = np.cross(b, dout, axisa=axisb, axisb=axisc, axisc=-1)
    db = np.cross(dout, a, axisa=axisc, axisb=axisa, axisc=-1)
    return (np.moveaxis(unbroadcast(da, np.moveaxis(a, axisa, -1)), -1, axisa),
            np.moveaxis(unbroadcast(db, np.moveaxis(b, axisb, -1)), -1, axisb))


@defvjp("trace")
def _(a, out, dout, offset=0, axis1=0, axis2=1, dtype=None):
    eye = np.eye(a.shape[axis1], a.shape[axis2], offset)
    if a.ndim == 2:
        g = dout * eye
    else:
        g = dout[..., None, None] * eye
    return (np.moveaxis(g, (-2, -1), (axis1, axis2)),)


@defvjp("diag")
def _(v, out, dout, k=0):
    if v.ndim == 1:
        return (np.diag(dout, k),)
    n, m = v.shape
    # entry i of the diagonal sits in row i (k >= 0) or column i (k < 0)
    if k >= 0:
        rows = np.concatenate((dout, np.zeros(n - dout.shape[0])))
        return (np.eye(n, m, k) * rows[:, None],)
    cols = np.concatenate((dout, np.zeros(m - dout.shape[0])))
    return (np.eye(n, m, k) * cols[None, :],)


@defvjp("linalg.solve")
def _(a, b, out, dout):
    # NumPy 2: b is a vector (M,) only when 1-d, else a stack of matrices (..., M, K)
    if b.ndim == 1:
        if a.ndim == 2:
            db = np.linalg.solve(_mT(a), dout)
        else:
            db = np.linalg.solve(_mT(a), dout[..., None])[..., 0]
        return (-(db[..., :, None] * out[..., None, :]), unbroadcast(db, b))
    db = np.linalg.solve(_mT(a), dout)
    return (unbroadcast(-np.matmul(db, _mT(out)), a), unbroadcast(db, b))


@defvjp("linalg.inv")
def _(a, out, dout):
    return (-np.matmul(np.matmul(_mT(out), dout), _mT(out)),)


@defvjp("linalg.det")
def _(a, out, dout):
    if a.ndim == 2:
        return (dout * out * _mT(np.linalg.inv(a)),)
    return ((dout * out)[..., None, None] * _mT(np.linalg.inv(a)),)


@defvjp("slogdet_logabs")
def _(a, out, dout):
    _real_only("np.linalg.slogdet", a)
    if a.ndim == 2:
        return (dout * _mT(np.linalg.inv(a)),)
    return (dout[..., None, None] * _mT(np.linalg.inv(a)),)


@defvjp("linalg.cholesky")
def _(a, out, dout, upper=False):
    _real_only("np.linalg.cholesky", a)
    # a = L L^T.  For symmetric perturbations a_bar = L^-T phi(L^T L_bar) L^-1, where phi
    # keeps the lower triangle and halves the diagonal; then onto the triangle read.
    low, dlow = (_mT(out), _mT(dout)) if upper else (out, dout)
    s = np.matmul(_mT(low), dlow)
    phi = np.tril(s) - 0.5 * s * np.eye(s.shape[-1])
    inv_l = np.linalg.inv(low)
    g = np.matmul(np.matmul(_mT(inv_l), phi), inv_l)
    return (_fold(0.5 * (g + _mT(g)), upper),)


@defvjp("linalg.norm")
def _(x, out, dout, ord=None, axis=None, keepdims=False):
    _real_only("np.linalg.norm", x)
    if axis is None:
        if ord is None or x.ndim == 1:
            return (_vector_norm_vjp(x, out, dout, ord, axis),)
        return (_matrix_norm_vjp(x, out, dout, ord, 0, 1, keepdims),)
    if np.ndim(np.array(axis)) == 1:            # a tuple of axes
        if len(axis) == 2:
            return (_matrix_norm_vjp(x, out, dout, ord, axis[0], axis[1], keepdims),)
        axis = axis[0]
    if not keepdims and x.ndim > 1:
        out, dout = np.expand_dims(out, axis), np.expand_dims(dout, axis)
    return (_vector_norm_vjp(x, out, dout, ord, axis),)


def _vector_norm_vjp(x, out, dout, ord, axis):
    """``out``, ``dout`` broadcast against ``x`` (the reduced axes kept)."""
    if ord is None or ord == 2:
        return dout * x / (out + (out == 0.0))     # at x == 0: 0 (a subgradient), not 0 / 0
    if ord == 0:
        return 0.0 * dout * x
    if ord == 1:
        return dout * np.sign(x)
    if ord == np.inf or ord == -np.inf:
        hit = (np.abs(x) == out) * 1.0             # ties share the cotangent
        return dout * np.sign(x) * hit / np.sum(hit, axis=axis, keepdims=True)
    return dout * np.sign(x) * (np.abs(x) / (out + (out == 0.0))) ** (ord - 1)


_MATRIX_ORD = {"fro": 0, "nuc": 1, 2: 2, -2: -2, 1: 3, -1: 3, np.inf: 4, -np.inf: 4}


def _matrix_norm_vjp(x, out, dout, ord, axis1, axis2, keepdims):
    xm = np.moveaxis(x, (axis1, axis2), (-2, -1))
    if keepdims:
        o, d = np.moveaxis(out, (axis1, axis2), (-2, -1)), np.moveaxis(dout, (axis1, axis2), (-2, -1))
    elif x.ndim == 2:
        o, d = out, dout
    else:
        o, d = out[..., None, None], dout[..., None, None]
    kind = 0
    if ord is not None:
        kind = _MATRIX_ORD[ord]
    if kind == 0:
        g = d * xm / (o + (o == 0.0))
    elif kind == 1 or kind == 2 or kind == -2:
        u, s, vh = np.linalg.svd(xm, full_matrices=False)
        if kind == 1:
            g = d * np.matmul(u, vh)
        elif kind == 2:
            g = d * np.matmul(u[..., :, :1], vh[..., :1, :])
        else:
            g = d * np.matmul(u[..., :, -1:], vh[..., -1:, :])
    else:
        # max/min over columns (1) or rows (inf) of the sums of |x|; ties share
        sums = np.sum(np.abs(xm), axis=-2 if kind == 3 else -1, keepdims=True)
        hit = (sums == o) * 1.0
        g = d * np.sign(xm) * hit / np.sum(hit, axis=(-2, -1), keepdims=True)
    return np.moveaxis(g, (-2, -1), (axis1, axis2))


def _gaps(w):
    """``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal, 0 on it."""
    diff = w[..., None, :] - w[..., :, None]
    eye = np.eye(w.shape[-1])
    return (1.0 - eye) / (diff + eye)


@defvjp("linalg.eigh_values", "linalg.eigvalsh")
def _(a, out, dout, UPLO="L"):
    _real_only("np.linalg.eigh", a)
    v = np.linalg.eigh(a, UPLO)[1]
    return (_fold(np.matmul(v * dout[..., None, :], _mT(v)), UPLO == "U"),)


@defvjp("linalg.eigh_vectors")
def _(a, out, dout, UPLO="L"):
    _real_only("np.linalg.eigh", a)
    w = np.linalg.eigh(a, UPLO)[0]
    g = np.matmul(np.matmul(out, _gaps(w) * np.matmul(_mT(out), dout)), _mT(out))
    return (_fold(0.5 * (g + _mT(g)), UPLO == "U"),)


def _svd_parts(a, hermitian):
    """The reduced SVD of ``a`` and ``F[i, j] = 1 / (s[j]^2 - s[i]^2)``."""
    u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
    return u, s, vh, _gaps(s * s)


def _full_ok(a, full_matrices):
    """``full_matrices=True`` gives a non-square input extra singular vectors: any
    orthonormal completion would do, so they have no derivative: refused."""
    if full_matrices:
        assert a.shape[-1] == a.shape[-2], ("np.linalg.svd: the extra singular vectors of a non-square matrix "
                                            "(full_matrices=True) have no derivative; use full_matrices=False")
    return 1.0


@defvjp("linalg.svd_s")
def _(a, out, dout, hermitian=False):
    _real_only("np.linalg.svd", a)
    u, s, vh, f = _svd_parts(a, hermitian)
    g = np.matmul(u * dout[..., None, :], vh)
    return (_fold(g, False) if hermitian else g,)


@defvjp("linalg.svd_u")
def _(a, out, dout, full_matrices=True, hermitian=False):
    _real_only("np.linalg.svd", a)
    u, s, vh, f = _svd_parts(a, hermitian)
    du = dout[..., :, :s.shape[-1]]
    utdu = np.matmul(_mT(u), du)
    inner = f * (utdu - _mT(utdu)) * s[..., None, :]
    g = np.matmul(np.matmul(u, inner) + (du - np.matmul(u, utdu)) / s[..., None, :], vh)
    g = g * _full_ok(a, full_matrices)
    return (_fold(g, False) if hermitian else g,)


@defvjp("linalg.svd_vh")
def _(a, out, dout, full_matrices=True, hermitian=False):
    _real_only("np.linalg.svd", a)
    u, s, vh, f = _svd_parts(a, hermitian)
    dvh = dout[..., :s.shape[-1], :]
    vdv = np.matmul(vh, _mT(dvh))                  # V^T V_bar
    inner = s[..., :, None] * (f * (vdv - _mT(vdv)))
    g = np.matmul(u, np.matmul(inner, vh) + (dvh - np.matmul(_mT(vdv), vh)) / s[..., :, None])
    g = g * _full_ok(a, full_matrices)
    return (_fold(g, False) if hermitian else g,)


def _copyltu(m):
    return np.tril(m) + _mT(np.tril(m, -1))


def _qr_tall_vjp(q, r, dq, dr):
    """A = QR with Q (m, n), R (n, n), m >= n: A_bar = (Q_bar + Q copyltu(M)) R^-T,
    M = R R_bar^T - Q_bar^T Q."""
    m = np.matmul(r, _mT(dr)) - np.matmul(_mT(dq), q)
    b = dq + np.matmul(q, _copyltu(m))
    return _mT(np.linalg.solve(r, _mT(b)))


def _qr_vjp(a, q, r, dq, dr):
    if a.shape[-2] >= a.shape[-1]:
        g = _qr_tall_vjp(q, r, dq, dr)
    else:
        # wide: A = [X, Y], R = [U, V], X = QU; Y = QV adds Y V_bar^T to Q_bar
        k = a.shape[-2]
        y, dv = a[..., :, k:], dr[..., :, k:]
        dx = _qr_tall_vjp(q, r[..., :, :k], dq + np.matmul(y, _mT(dv)), dr[..., :, :k])
        g = np.concatenate((dx, np.matmul(q, dv)), axis=-1)
    return g


@defvjp("linalg.qr_q")
def _(a, out, dout, mode="reduced"):
    _real_only("np.linalg.qr", a)
    r = np.linalg.qr(a)[1]
    return (_qr_vjp(a, out, r, dout, np.zeros_like(r)),)


@defvjp("linalg.qr_r")
def _(a, out, dout, mode="reduced"):
    _real_only("np.linalg.qr", a)
    q = np.linalg.qr(a)[0]
    return (_qr_vjp(a, q, out, np.zeros_like(q), dout),)


def _pinv_vjp(a, p, dp):
    """P = pinv(A) at constant rank: A_bar = -P^T P_bar P^T + (I - A P) P_bar^T P P^T
    + P^T P P_bar^T (I - P A)."""
    pt, dpt = _mT(p), _mT(dp)
    ap, pa = np.matmul(a, p), np.matmul(p, a)
    return (-np.matmul(np.matmul(pt, dp), pt)
            + np.matmul(np.matmul(dpt - np.matmul(ap, dpt), p), pt)
            + np.matmul(np.matmul(pt, p), dpt - np.matmul(dpt, pa)))


@defvjp("linalg.pinv")
def _(a, out, dout, rcond=None, hermitian=False, rtol=None):
    _real_only("np.linalg.pinv", a)
    g = _pinv_vjp(a, out, dout)
    return (_fold(0.5 * (g + _mT(g)), False) if hermitian else g,)


@defvjp("linalg.lstsq_x")
def _(a, b, out, dout, rcond=None):
    _real_only("np.linalg.lstsq", a)
    # x = pinv(a) @ b
    p = np.linalg.pinv(a)
    if b.ndim == 1:
        return (_pinv_vjp(a, p, dout[:, None] * b[None, :]), _mT(p) @ dout)
    return (_pinv_vjp(a, p, dout @ _mT(b)), _mT(p) @ dout)


@defvjp("linalg.lstsq_residuals")
def _(a, b, out, dout, rcond=None):
    raise NotImplementedError("the derivative of the residuals of np.linalg.lstsq is not supported: "
                              "compute np.sum((b - a @ x) ** 2, axis=0) from the solution x")


from sstad.runtime.primitive import PRIMITIVES  # noqa: E402

declare("diag", may_alias=True)                      # np.diag of a matrix is a view
declare("op.matmul", "matmul", matrix_product=True)
declare("einsum", "tensordot", "dot", "vdot", "inner", "outer", "matmul", "kron", "trace", "diag",
        multilinear=True)
declare("einsum", "tensordot", "dot", "inner", "matmul", *[name for name in PRIMITIVES if name.startswith("linalg.")],
        superlinear=True)
