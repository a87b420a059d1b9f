"""Products and ``np.linalg``."""
import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime.primitive import emit_call, numpy_primitive

for _name in "dot vdot outer trace diag kron cross matmul".split():
    numpy_primitive(_name, getattr(np, _name))


def _inner_emit(args, params, avals):
    """Numba has no np.inner; for vectors it is np.dot."""
    if all(isinstance(a, A.Scalar) or a.ndim <= 1 for a in avals):
        return emit_call("np.dot")(args, params, avals)
    return emit_call("np.inner")(args, params, avals)


numpy_primitive("inner", np.inner, emit=_inner_emit)

for _name in "solve inv det cholesky norm".split():
    numpy_primitive("linalg." + _name, getattr(np.linalg, _name))


# --- reverse-mode rules ----------------------------------------------------------
from sstad.runtime.primitive import defvjp, nondiff  # noqa: E402


@defvjp("op.matmul", "matmul", "dot", "inner")
def _(a, b, out, dout):
    if a.ndim == 0 or b.ndim == 0:
        return (np.sum(dout * b) if a.ndim == 0 else dout * b, np.sum(dout * a) if b.ndim == 0 else dout * a)
    if a.ndim == 1 and b.ndim == 1:
        return (dout * b, dout * a)
    if a.ndim == 1:
        return (b @ dout, np.outer(a, dout))
    if b.ndim == 1:
        return (np.outer(dout, b), a.T @ dout)
    return (dout @ b.T, a.T @ dout)


@defvjp("outer")
def _(a, b, out, dout):
    return (dout @ b, dout.T @ a)


@defvjp("trace")
def _(a, out, dout):
    return (dout * np.eye(a.shape[0], a.shape[1]),)


@defvjp("linalg.solve")
def _(a, b, out, dout):
    db = np.linalg.solve(a.T, dout)
    if b.ndim == 1:
        return (-np.outer(db, out), db)
    return (-(db @ out.T), db)


@defvjp("linalg.inv")
def _(a, out, dout):
    return (-(out.T @ dout @ out.T),)


@defvjp("linalg.det")
def _(a, out, dout):
    return (dout * out * np.linalg.inv(a).T,)


@defvjp("linalg.norm")
def _(x, out, dout):
    # at x == 0 the norm has no derivative: take 0 (a subgradient), not 0 / 0
    return (dout * x / (out + (out == 0.0)),)


@defvjp("diag")
def _(x, out, dout):
    return (np.diag(dout),)


@defvjp("linalg.cholesky")
def _(a, out, dout):
    # For symmetric a (cholesky reads one triangle): a_bar = L^-T phi(L^T L_bar) L^-1,
    # symmetrised, where phi keeps the lower triangle and halves the diagonal.
    s = out.T @ dout
    phi = np.tril(s) - 0.5 * np.diag(np.diag(s))
    inv_l = np.linalg.inv(out)
    da = inv_l.T @ phi @ inv_l
    return (0.5 * (da + da.T),)

# np.einsum('ij,jk->ik', a, b): its reverse rule rewrites the subscripts (sstad/ad/reverse.py).
numpy_primitive("einsum", np.einsum)

# np.tensordot(a, b, axes): its reverse rule is built in sstad/ad/structural.py.
numpy_primitive("tensordot", np.tensordot)


# np.linalg.slogdet(a) -> (sign, logabsdet): the frontend splits it into two primitives,
# so each part has its own rule (the sign is piecewise constant).
def slogdet_sign(a):
    return np.linalg.slogdet(a)[0]


def slogdet_logabs(a):
    return np.linalg.slogdet(a)[1]


numpy_primitive("slogdet_sign", slogdet_sign, emit=lambda args, params, avals: f"np.linalg.slogdet({args[0]})[0]")
numpy_primitive("slogdet_logabs", slogdet_logabs,
                emit=lambda args, params, avals: f"np.linalg.slogdet({args[0]})[1]")
nondiff("slogdet_sign")


@defvjp("slogdet_logabs")
def _(a, out, dout):
    return (dout * np.linalg.inv(a).T,)
