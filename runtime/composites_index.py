"""Index composites: the triangle and diagonal index functions (and their ``_from`` forms), np.nonzero, np.fill_diagonal, np.put_along_axis."""
import numpy as np

from sstad.runtime.composites import composite, static_range


def triangle_indices(n, cols, lo, hi):
    """Row and column indices, row by row, of the entries (i, j) of an n x cols grid with
    ``lo <= j - i < hi`` (NumPy's order for triu_indices and tril_indices).  No loops and
    no writes: nothing for the backward sweep to recompute or restore."""
    flat = np.arange(n * cols)
    rows = flat // cols if cols > 0 else flat
    columns = flat - rows * cols
    keep = (columns - rows >= lo) & (columns - rows < hi)
    return rows[keep], columns[keep]


@composite(np.triu_indices)
def triu_indices(n, k=0, m=None):
    """np.triu_indices: the indices of the upper triangle (on and above diagonal ``k``)."""
    cols = n if m is None else m
    return triangle_indices(n, cols, k, cols)


@composite(np.tril_indices)
def tril_indices(n, k=0, m=None):
    """np.tril_indices: the indices of the lower triangle (on and below diagonal ``k``)."""
    cols = n if m is None else m
    return triangle_indices(n, cols, -n, k + 1)


@composite(np.diag_indices)
def diag_indices(n, ndim=2):
    """np.diag_indices: ``ndim`` copies of ``arange(n)``."""
    idx = np.arange(n)
    return tuple(idx for _ in static_range(ndim))


@composite(np.diag_indices_from)
def diag_indices_from(arr):
    """np.diag_indices_from: the main diagonal's indices of an array with equal sides."""
    if np.ndim(arr) < 2:
        raise ValueError("np.diag_indices_from: input array must be at least 2-d")
    for k in static_range(np.ndim(arr)):
        assert arr.shape[k] == arr.shape[0], "np.diag_indices_from: all dimensions of input must be of equal length"
    return diag_indices(arr.shape[0], np.ndim(arr))


@composite(np.triu_indices_from)
def triu_indices_from(arr, k=0):
    """np.triu_indices_from: triu_indices of a matrix's shape."""
    if np.ndim(arr) != 2:
        raise ValueError("np.triu_indices_from: input array must be 2-d")
    return triu_indices(arr.shape[0], k, arr.shape[1])


@composite(np.tril_indices_from)
def tril_indices_from(arr, k=0):
    """np.tril_indices_from: tril_indices of a matrix's shape."""
    if np.ndim(arr) != 2:
        raise ValueError("np.tril_indices_from: input array must be 2-d")
    return tril_indices(arr.shape[0], k, arr.shape[1])


@composite(np.ix_)
def ix_(*args):
    """np.ix_: an open mesh, each 1-d sequence of indices shaped to run along its own axis
    (``A[np.ix_(rows, cols)]`` is the sub-matrix of those rows and columns)."""
    n = len(args)
    mesh = ()
    for k in static_range(n):
        a = np.asarray(args[k])
        if np.ndim(a) != 1:
            raise ValueError("np.ix_: each index sequence must be 1-dimensional")
        if a.dtype == np.bool_:
            raise NotImplementedError("np.ix_ of a boolean mask is not supported: pass np.nonzero(mask)[0]")
        mesh = mesh + (np.reshape(a, (1,) * k + (-1,) + (1,) * (n - k - 1)),)
    return mesh


@composite(np.nonzero)
def nonzero(a):
    """np.nonzero: for each axis, the coordinates of the nonzero items in C order (a boolean
    mask of each axis' coordinates broadcast over the array)."""
    if np.ndim(a) == 0:
        raise ValueError("np.nonzero: calling nonzero on 0d arrays is not allowed; use np.atleast_1d(a).nonzero()")
    mask = a != 0
    coordinates = ()
    for k in static_range(np.ndim(a)):
        shape = (1,) * k + (-1,) + (1,) * (np.ndim(a) - k - 1)
        coordinates = coordinates + (np.broadcast_to(np.reshape(np.arange(a.shape[k]), shape), a.shape)[mask],)
    return coordinates



@composite(np.fill_diagonal)
def fill_diagonal(a, val, wrap=False):
    """np.fill_diagonal of a matrix, in place: ``a[k, k] = val`` for k < min(a.shape) (``val``
    a number, or one value per diagonal item)."""
    if np.ndim(a) != 2:
        raise NotImplementedError("np.fill_diagonal of an array that is not a matrix is not supported")
    if wrap:
        raise NotImplementedError("np.fill_diagonal(wrap=True) is not supported: write the diagonals "
                                  "of the blocks with a[k, k] = val")
    k = np.arange(min(a.shape[0], a.shape[1]))
    a[k, k] = val


@composite(np.put_along_axis)
def put_along_axis(arr, indices, values, axis):
    """np.put_along_axis, in place: ``arr`` at ``indices`` along ``axis`` (the other axes
    matched item for item, as np.take_along_axis reads them) set to ``values``."""
    if axis is None:
        raise NotImplementedError("np.put_along_axis(axis=None) is not supported: write a.ravel()[indices] = values")
    nd = np.ndim(arr)
    if np.ndim(indices) != nd:
        raise ValueError("np.put_along_axis: `indices` and `arr` must have the same number of dimensions")
    axis = axis % nd
    where = ()
    for k in static_range(nd):
        if k == axis:
            where = where + (indices,)
        else:
            where = where + (np.reshape(np.arange(arr.shape[k]), (1,) * k + (-1,) + (1,) * (nd - k - 1)),)
    arr[where] = values
