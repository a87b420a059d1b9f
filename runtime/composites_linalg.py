"""``scipy.linalg`` functions and ``np.linalg.tensorsolve`` written over ``np.linalg``
(inlined, so both modes, every order and both backends follow from ``np.linalg``'s
rules), and ``np.linalg.eig`` / ``eigvals``, refused with the reason.

SciPy's parameters are taken by SciPy's names and defaults.  Those that only tune the
computation (``overwrite_*``, ``check_finite``, ``driver``) change nothing here; those
that change the result are followed (``lower``, ``trans``, ``unit_diagonal``,
``assume_a``, ``transposed``, ``eigvals_only``) or refused by name (a generalized
eigenproblem, a subset of eigenvalues).  A function that reads one triangle of its
input reads only that triangle here too, so its derivative has no part in the other.
"""
import numpy as np
import scipy.linalg as sla

from sstad.runtime.composites import composite


def matrix(a, name):
    """``a``, refused unless it is a matrix or a stack of them (np.triu of a vector
    would make a square matrix of it, where SciPy refuses)."""
    if np.ndim(a) < 2:
        raise ValueError(f"scipy.linalg.{name}: expected a square matrix, not an array of dimension {np.ndim(a)}")
    return a


def triangle(a, lower, unit_diagonal=False):
    """The lower (or upper) triangle of ``a`` that a triangular routine reads."""
    if unit_diagonal:
        n = a.shape[-1]
        return (np.tril(a, -1) if lower else np.triu(a, 1)) + np.eye(n)
    return np.tril(a) if lower else np.triu(a)


def symmetric_from(a, lower):
    """The symmetric matrix whose lower (or upper) triangle is that of ``a``."""
    t = np.tril(a, -1) if lower else np.triu(a, 1)
    return t + np.swapaxes(t, -1, -2) + (np.tril(a) - np.tril(a, -1))


TRANSPOSED = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}   # conjugate: real values


@composite(sla.solve_triangular)
def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    """scipy.linalg.solve_triangular: ``a x = b`` with the triangle of ``a`` that ``lower``
    names; ``trans`` 1/'T' (or 2/'C', the same for real values) solves ``a^T x = b``."""
    transposed = TRANSPOSED.get(trans)
    if transposed is None:
        raise ValueError(f"scipy.linalg.solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")
    t = triangle(matrix(a, "solve_triangular"), lower, unit_diagonal)
    if transposed:
        t = np.swapaxes(t, -1, -2)
    return np.linalg.solve(t, b)


@composite(sla.solve)
def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
          transposed=False):
    """scipy.linalg.solve; a symmetric or positive definite ``assume_a`` reads the triangle
    that ``lower`` names, a triangular one that triangle."""
    a = matrix(a, "solve")
    if assume_a is None or assume_a == "gen" or assume_a == "general":
        m = a
    elif (assume_a == "sym" or assume_a == "symmetric" or assume_a == "her" or assume_a == "hermitian"
          or assume_a == "pos" or assume_a == "positive definite"):
        m = symmetric_from(a, lower)
    elif assume_a == "lower triangular":
        m = np.tril(a)
    elif assume_a == "upper triangular":
        m = np.triu(a)
    else:
        raise NotImplementedError("scipy.linalg.solve: this assume_a is not supported; pass the full matrix "
                                  "with assume_a='gen'")
    if transposed:
        m = np.swapaxes(m, -1, -2)
    return np.linalg.solve(m, b)


@composite(sla.inv)
def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    """scipy.linalg.inv."""
    a = matrix(a, "inv")
    if assume_a is None or assume_a == "gen" or assume_a == "general":
        return np.linalg.inv(a)
    if (assume_a == "sym" or assume_a == "symmetric" or assume_a == "her" or assume_a == "hermitian"
            or assume_a == "pos" or assume_a == "positive definite"):
        return np.linalg.inv(symmetric_from(a, lower))
    if assume_a == "lower triangular" or assume_a == "upper triangular":
        return np.linalg.inv(triangle(a, assume_a == "lower triangular"))
    raise NotImplementedError("scipy.linalg.inv: this assume_a is not supported")


@composite(sla.det)
def det(a, overwrite_a=False, check_finite=True):
    """scipy.linalg.det."""
    return np.linalg.det(a)


@composite(sla.cholesky)
def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """scipy.linalg.cholesky: the upper factor ``U`` (``a = U^T U``) unless ``lower``;
    reads that triangle of ``a``."""
    if lower:
        return np.linalg.cholesky(a)
    return np.swapaxes(np.linalg.cholesky(np.swapaxes(a, -1, -2)), -1, -2)


@composite(sla.cho_factor)
def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """scipy.linalg.cho_factor: ``(c, lower)``, ``c`` the Cholesky factor in the triangle
    ``lower`` names and ``a``'s own entries in the other (LAPACK leaves them there)."""
    a = matrix(a, "cho_factor")
    if lower:
        return cholesky(a, True) + np.triu(a, 1), lower
    return cholesky(a) + np.tril(a, -1), lower


@composite(sla.cho_solve)
def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """scipy.linalg.cho_solve((c, lower), b): ``b`` solved with ``L L^T``, ``L`` the factor's
    triangle ``c`` (from cholesky or cho_factor; the other triangle is not read)."""
    c, lower = c_and_lower
    c = matrix(c, "cho_solve")
    factor = np.tril(c) if lower else np.swapaxes(np.triu(c), -1, -2)
    return np.linalg.solve(np.swapaxes(factor, -1, -2), np.linalg.solve(factor, b))


@composite(np.linalg.tensorsolve)
def tensorsolve(a, b, axes=None):
    """np.linalg.tensorsolve: ``x`` of shape ``a.shape[b.ndim:]`` with ``tensordot(a, x, x.ndim) == b``."""
    if axes is not None:
        raise NotImplementedError("np.linalg.tensorsolve: axes= is not supported; np.moveaxis a first")
    x = np.linalg.solve(np.reshape(a, (np.size(b), -1)), np.ravel(b))
    return np.reshape(x, a.shape[np.ndim(b):])


def _plain_eigenproblem(name, b, type, subset_by_index, subset_by_value):
    if b is not None:
        raise NotImplementedError(f"scipy.linalg.{name} of a generalized eigenproblem (b=) is not supported: "
                                  "reduce it with a Cholesky factor of b first")
    if subset_by_index is not None or subset_by_value is not None:
        raise NotImplementedError(f"scipy.linalg.{name}: subset_by_index/subset_by_value are not supported; "
                                  "compute all eigenvalues and index the result")


@composite(sla.eigh)
def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
         check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """scipy.linalg.eigh of one symmetric matrix: reads the triangle ``lower`` names."""
    _plain_eigenproblem("eigh", b, type, subset_by_index, subset_by_value)
    if eigvals_only:
        return np.linalg.eigvalsh(a, "L" if lower else "U")
    return np.linalg.eigh(a, "L" if lower else "U")


@composite(sla.eigvalsh)
def eigvalsh(a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1, check_finite=True,
             subset_by_index=None, subset_by_value=None, driver=None):
    """scipy.linalg.eigvalsh of one symmetric matrix."""
    _plain_eigenproblem("eigvalsh", b, type, subset_by_index, subset_by_value)
    return np.linalg.eigvalsh(a, "L" if lower else "U")


@composite(np.linalg.eig, sla.eig)
def eig(a, *args, **kwargs):
    """np.linalg.eig / scipy.linalg.eig: refused (complex results)."""
    raise NotImplementedError("eig is not supported: eigenvalues and eigenvectors of a general matrix are "
                              "complex, and sstad differentiates real values only; for a symmetric matrix use "
                              "np.linalg.eigh (np.linalg.eigvalsh for the eigenvalues), for singular values "
                              "np.linalg.svd")


@composite(np.linalg.eigvals, sla.eigvals)
def eigvals(a, *args, **kwargs):
    """np.linalg.eigvals / scipy.linalg.eigvals: refused (complex results)."""
    raise NotImplementedError("eigvals is not supported: eigenvalues and eigenvectors of a general matrix are "
                              "complex, and sstad differentiates real values only; for a symmetric matrix use "
                              "np.linalg.eigh (np.linalg.eigvalsh for the eigenvalues), for singular values "
                              "np.linalg.svd")


# Padé [13/13] coefficients and the largest 1-norm it is accurate for (Higham 2005, the
# scaling and squaring method SciPy's expm is built on)
PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
          10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
THETA13 = 5.371920351148152


@composite(sla.expm)
def expm(A):
    """scipy.linalg.expm by scaling and squaring with a Padé [13/13] approximant (agrees
    with SciPy's to rounding); its derivative is that of the algorithm."""
    b = PADE13
    norm = np.max(np.sum(np.abs(A), axis=-2))        # the 1-norm (of the largest in a stack)
    s = np.maximum(np.ceil(np.log2(norm / THETA13)), 0.0)
    A = A / 2.0 ** s
    eye = np.eye(A.shape[-1])
    A2 = A @ A
    A4 = A2 @ A2
    A6 = A4 @ A2
    U = A @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
    V = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * eye
    R = np.linalg.solve(V - U, V + U)
    k = 0.0
    while k < s:
        R = R @ R
        k = k + 1.0
    return R


@composite(sla.sqrtm)
def sqrtm(A, disp=None, blocksize=None):
    """scipy.linalg.sqrtm, the principal square root, by the Denman-Beavers iteration (real
    matrices without eigenvalues on the closed negative real axis, where SciPy's result is
    real); iterates two more times once converged so that the derivative settles too."""
    Y = A
    Z = np.eye(A.shape[-1]) + 0.0 * A
    settled = 0
    k = 0
    while settled < 3 and k < 100:
        Y, Z = 0.5 * (Y + np.linalg.inv(Z)), 0.5 * (Z + np.linalg.inv(Y))
        change = np.max(np.abs(Y @ Y - A)) <= 1e-13 * np.max(np.abs(A))
        settled = settled + 1 if change else 0
        k = k + 1
    assert settled == 3, "scipy.linalg.sqrtm: the matrix has eigenvalues on the negative real axis or is singular (its square root is complex or not unique); sstad computes real principal square roots only"
    return Y
