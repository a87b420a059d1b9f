"""Composites that rearrange arrays: differences, padding, rotations, stacks and splits."""
import numpy as np

from sstad.runtime.composites import check_axis, composite, static_range


def last_axis_block(v, m, axis):
    """``prepend``/``append`` of np.diff for ``m`` (its axis moved last); a scalar fills one slice."""
    if np.ndim(v) == 0:
        return np.full(m.shape[:-1] + (1,), v)
    return np.moveaxis(v, axis, -1)


@composite(np.diff)
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """np.diff: the ``n``-th differences along ``axis`` (after joining prepend/append)."""
    if n < 0:
        raise ValueError(f"np.diff: order must be non-negative but got {n}")
    if n == 0:
        return a
    axis = check_axis(axis, np.ndim(a), "np.diff")
    m = np.moveaxis(a, axis, -1)
    if prepend is not None:
        m = np.concatenate((last_axis_block(prepend, m, axis), m), axis=-1)
    if append is not None:
        m = np.concatenate((m, last_axis_block(append, m, axis)), axis=-1)
    for _ in static_range(n):
        if m.dtype == np.bool_:
            m = m[..., 1:] != m[..., :-1]      # NumPy's difference of booleans
        else:
            m = m[..., 1:] - m[..., :-1]
    return np.moveaxis(m, -1, axis)


@composite(np.pad)
def pad(array, pad_width, mode="constant", constant_values=0):
    """np.pad in the modes 'constant', 'edge', 'reflect', 'symmetric' and 'wrap', one axis at
    a time.  A mirror or a wrap wider than the axis (NumPy repeats it) is refused at run time."""
    if mode != "constant" and mode != "edge" and mode != "reflect" and mode != "symmetric" and mode != "wrap":
        raise NotImplementedError(f"np.pad: mode={mode!r} is not supported "
                                  "(only 'constant', 'edge', 'reflect', 'symmetric' and 'wrap')")
    ndim = np.ndim(array)
    widths = np.broadcast_to(np.asarray(pad_width), (ndim, 2))
    values = np.broadcast_to(np.asarray(constant_values), (ndim, 2))
    out = array
    for axis in static_range(ndim):
        m = np.moveaxis(out, axis, 0)
        lo, hi = pad_blocks(m, widths[axis, 0], widths[axis, 1], mode, values[axis])
        out = np.moveaxis(np.concatenate((lo, m, hi)), 0, axis)
    return out


def pad_blocks(m, before, after, mode, values):
    """The blocks np.pad puts before and after ``m`` along its first axis."""
    n = len(m)
    if mode == "constant":
        return (np.full((before,) + m.shape[1:], values[0]).astype(m.dtype),
                np.full((after,) + m.shape[1:], values[1]).astype(m.dtype))
    if mode == "edge":
        return np.broadcast_to(m[:1], (before,) + m.shape[1:]), np.broadcast_to(m[-1:], (after,) + m.shape[1:])
    if mode == "reflect":
        assert before < n and after < n, "np.pad(mode='reflect'): a pad width of the axis' length or more is not supported"
        return np.flip(m[1:before + 1], 0), np.flip(m[n - after - 1:n - 1], 0)
    assert before <= n and after <= n, "np.pad(mode='symmetric' or 'wrap'): a pad width over the axis' length is not supported"
    if mode == "symmetric":
        return np.flip(m[:before], 0), np.flip(m[n - after:], 0)
    return m[n - before:], m[:after]


@composite(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    """np.rot90: ``k`` quarter turns in the plane of ``axes``, by flips and a swap of axes."""
    if len(axes) != 2:
        raise ValueError("np.rot90: len(axes) must be 2")
    first, second = axes
    ndim = np.ndim(m)
    if first == second or abs(first - second) == ndim:
        raise ValueError("np.rot90: axes must be different")
    first, second = check_axis(first, ndim, "np.rot90"), check_axis(second, ndim, "np.rot90")
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return np.flip(np.flip(m, first), second)
    if k == 1:
        return np.swapaxes(np.flip(m, second), first, second)
    return np.flip(np.swapaxes(m, first, second), second)


@composite(np.rollaxis)
def rollaxis(a, axis, start=0):
    """np.rollaxis: ``axis`` moved to just before position ``start`` (np.moveaxis counts the
    destination after the axis is taken out: one less when the axis was before it)."""
    ndim = np.ndim(a)
    axis = check_axis(axis, ndim, "np.rollaxis")
    if start < -ndim or start > ndim:
        raise ValueError(f"np.rollaxis: start {start} is out of bounds for an array of dimension {ndim}")
    start = start + ndim if start < 0 else start
    if axis < start:
        start = start - 1
    if axis == start:
        return a
    return np.moveaxis(a, axis, start)


@composite(np.atleast_3d)
def atleast_3d(ary):
    """np.atleast_3d of one array: a scalar is (1, 1, 1), (N,) is (1, N, 1), (M, N) is (M, N, 1)."""
    ndim = np.ndim(ary)
    if ndim == 0:
        return np.full((1, 1, 1), ary)
    if ndim == 1:
        return ary[None, :, None]
    if ndim == 2:
        return ary[:, :, None]
    return ary


@composite(np.column_stack)
def column_stack(tup):
    """np.column_stack: 1-d arrays (and scalars) become columns, then all join along axis 1."""
    return np.concatenate([np.reshape(v, (-1, 1)) if np.ndim(v) < 2 else v for v in tup], axis=1)


@composite(np.dstack)
def dstack(tup):
    """np.dstack: each array made at least 3-d, then all joined along axis 2."""
    return np.concatenate([np.atleast_3d(v) for v in tup], axis=2)


@composite(np.kron)
def kron(a, b):
    """np.kron: the outer product with each axis of ``a`` just before the same axis of ``b``."""
    ndim = max(np.ndim(a), np.ndim(b))
    if ndim == 0:
        return a * b
    a = np.reshape(a, (1,) * (ndim - np.ndim(a)) + np.shape(a))
    b = np.reshape(b, (1,) * (ndim - np.ndim(b)) + np.shape(b))
    a_shape, b_shape, out_shape = (), (), ()
    for n, m in zip(a.shape, b.shape):
        a_shape, b_shape, out_shape = a_shape + (n, 1), b_shape + (1, m), out_shape + (n * m,)
    return np.reshape(np.reshape(a, a_shape) * np.reshape(b, b_shape), out_shape)


def flat(v):
    """np.ravel, also of a scalar (which Numba's np.ravel does not take)."""
    return np.full(1, v) if np.ndim(v) == 0 else np.ravel(v)


@composite(np.outer)
def outer(a, b, out=None):
    """np.outer: both arguments flattened (as NumPy does), a column times a row."""
    if out is not None:
        raise NotImplementedError("np.outer: out= is not supported; use the returned array")
    return flat(a)[:, None] * flat(b)[None, :]


@composite(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    """np.array_split into a compile-time number of sections, or at a tuple of indices."""
    axis = check_axis(axis, np.ndim(ary), "np.array_split")
    m = np.moveaxis(ary, axis, 0)
    if np.ndim(np.asarray(indices_or_sections)) == 0:
        sections = indices_or_sections
        if sections <= 0:
            raise ValueError("np.array_split: number of sections must be larger than 0")
        each, extra = len(m) // sections, len(m) % sections
        bounds = [i * each + min(i, extra) for i in static_range(sections + 1)]
    else:
        bounds = [0] + [i for i in indices_or_sections] + [len(m)]
    return [np.moveaxis(m[lo:hi], 0, axis) for lo, hi in zip(bounds[:-1], bounds[1:])]


@composite(np.hsplit)
def hsplit(ary, indices_or_sections):
    """np.hsplit: np.split along axis 1 (axis 0 for 1-d arrays)."""
    if np.ndim(ary) == 0:
        raise ValueError("np.hsplit only works on arrays of 1 or more dimensions")
    return np.split(ary, indices_or_sections, 1 if np.ndim(ary) > 1 else 0)


@composite(np.vsplit)
def vsplit(ary, indices_or_sections):
    """np.vsplit: np.split along axis 0 of an array of 2 or more dimensions."""
    if np.ndim(ary) < 2:
        raise ValueError("np.vsplit only works on arrays of 2 or more dimensions")
    return np.split(ary, indices_or_sections, 0)


@composite(np.dsplit)
def dsplit(ary, indices_or_sections):
    """np.dsplit: np.split along axis 2 of an array of 3 or more dimensions."""
    if np.ndim(ary) < 3:
        raise ValueError("np.dsplit only works on arrays of 3 or more dimensions")
    return np.split(ary, indices_or_sections, 2)


@composite(np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """np.diagonal: the two axes moved last and flattened together, then read with a stride
    of one row plus one column (a basic slice, so a stack of any rank works alike)."""
    ndim = np.ndim(a)
    if ndim < 2:
        raise ValueError("np.diagonal: diag requires an array of at least two dimensions")
    axis1 = check_axis(axis1, ndim, "np.diagonal")
    axis2 = check_axis(axis2, ndim, "np.diagonal")
    if axis1 == axis2:
        raise ValueError("np.diagonal: axis1 and axis2 cannot be the same")
    order = ()
    for k in static_range(ndim):
        if k != axis1 and k != axis2:
            order = order + (k,)
    m = np.transpose(a, order + (axis1, axis2))
    rows = m.shape[ndim - 2]
    cols = m.shape[ndim - 1]
    if offset >= 0:
        start = offset
        length = min(rows, cols - offset)
    else:
        start = -offset * cols
        length = min(rows + offset, cols)
    flat = np.reshape(m, m.shape[:ndim - 2] + (rows * cols,))
    return flat[..., start:start + max(length, 0) * (cols + 1):cols + 1]


@composite(np.tile)
def tile(A, reps):
    """np.tile: ``A`` broadcast along new axes interleaved with its own, then merged."""
    reps = tuple(reps) if np.ndim(reps) else (reps,)
    d = np.ndim(A)
    if len(reps) < d:
        reps = (1,) * (d - len(reps)) + reps
    if d < len(reps):
        A = np.reshape(A, (1,) * (len(reps) - d) + np.shape(A))
    inter = ()
    target = ()
    merged = ()
    for n, r in zip(np.shape(A), reps):
        inter = inter + (1, n)
        target = target + (r, n)
        merged = merged + (r * n,)
    return np.reshape(np.broadcast_to(np.reshape(A, inter), target), merged)


@composite(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """np.meshgrid: each 1-d coordinate vector shaped to run along its own axis (the first
    two swapped for ``indexing='xy'``), broadcast to the full grid unless ``sparse``."""
    if indexing != "xy" and indexing != "ij":
        raise ValueError("np.meshgrid: Valid values for `indexing` are 'xy' and 'ij'.")
    n = len(xi)
    sizes = ()
    for k in static_range(n):
        sizes = sizes + (np.size(xi[k]),)
    if indexing == "xy" and n > 1:
        sizes = (sizes[1], sizes[0]) + sizes[2:]
    grids = ()
    for k in static_range(n):
        axis = (1 - k if k < 2 else k) if indexing == "xy" and n > 1 else k
        g = np.reshape(np.ravel(xi[k]), (1,) * axis + (-1,) + (1,) * (n - axis - 1))
        if not sparse:
            g = np.broadcast_to(g, sizes)
        grids = grids + (g.copy() if copy else g,)
    return grids


@composite(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """np.lib.stride_tricks.sliding_window_view: the windows gathered by one index array per
    axis (a new array, not a view; NumPy's view is read-only by default anyway), the window
    axes last, in the order of ``axis``."""
    if writeable:
        raise NotImplementedError("sliding_window_view: writeable=True is not supported (the windows are a copy)")
    window = tuple(window_shape) if np.ndim(window_shape) else (window_shape,)
    if axis is None:
        if len(window) != np.ndim(x):
            raise ValueError("sliding_window_view: window_shape must have one entry per dimension of x "
                             "when axis is None")
        axes = tuple(static_range(np.ndim(x)))
    else:
        axes = tuple(axis) if np.ndim(axis) else (axis,)
        if len(axes) != len(window):
            raise ValueError("sliding_window_view: window_shape and axis must have the same length")
    out = x
    for k in static_range(len(axes)):
        a = check_axis(axes[k], np.ndim(x), "sliding_window_view")
        w = window[k]
        assert w >= 0 and w <= out.shape[a], "sliding_window_view: window shape cannot be larger than input array shape"
        count = out.shape[a] - w + 1
        index = np.ravel(np.reshape(np.arange(count), (-1, 1)) + np.arange(w))
        taken = np.take(out, index, axis=a)
        out = np.moveaxis(np.reshape(taken, out.shape[:a] + (count, w) + out.shape[a + 1:]), a + 1, -1)
    return out
