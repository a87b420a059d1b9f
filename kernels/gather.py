"""Gather and scatter-add along the first axis: ``x[idx]`` and ``np.add.at(x, idx, v)``
(``index_add``, the adjoint of indexing with an integer array), with atomics.

Indices are wrapped like NumPy's (``-1`` is the last row).  A kernel cannot raise: an
index out of bounds sets ``err[0] = 1`` and is skipped; the caller checks ``err``.
"""
import numba
import numpy as np
from numba import cuda

from sstad.kernels.launch import BLOCK, empty, grid, strided_view


@cuda.jit(device=True)
def _row(idx, i, rows, err):
    """The row ``idx[i]`` names, wrapped like NumPy's; -1 (and ``err[0] = 1``) when out of bounds."""
    j = idx[i]
    if j < 0:
        j += rows
    if j < 0 or j >= rows:
        err[0] = 1
        return -1
    return j


@cuda.jit
def _gather(x, idx, out, err):
    """out[i, c] = x[idx[i], c] for 2-d x and out."""
    t = cuda.grid(1)
    while t < out.size:
        i = t // out.shape[1]
        c = t - i * out.shape[1]
        j = _row(idx, i, x.shape[0], err)
        if j >= 0:
            out[i, c] = x[j, c]
        t += cuda.gridsize(1)


@cuda.jit
def _scatter_add(x, idx, values, err):
    """x[idx[i], c] += values[i, c], repeated indices adding up (atomics)."""
    t = cuda.grid(1)
    while t < values.size:
        i = t // values.shape[1]
        c = t - i * values.shape[1]
        j = _row(idx, i, x.shape[0], err)
        if j >= 0:
            cuda.atomic.add(x, (j, c), values[i, c])
        t += cuda.gridsize(1)


def _rows(a):
    """``a`` as a 2-d (rows, rest) view; ``a`` must be C-contiguous past its first axis."""
    rest = 1
    for n in a.shape[1:]:
        rest *= n
    return strided_view(a, lambda v: v.reshape(v.shape[0], rest))


def take_rows(x, idx, err):
    """``x[idx]`` for a contiguous device array ``x`` and a 1-d integer device array."""
    out = empty((idx.shape[0],) + tuple(x.shape[1:]), x.dtype)
    if out.size:
        _gather[grid(out.size), BLOCK](_rows(x), idx, _rows(out), err)
    return out


def index_add_rows(x, idx, values, err):
    """``np.add.at(x, idx, values)`` in place; ``x`` contiguous, ``values`` of shape
    ``(len(idx),) + x.shape[1:]`` and contiguous."""
    if values.size:
        _scatter_add[grid(values.size), BLOCK](_rows(x), idx, _rows(values), err)
    return x


@numba.njit(cache=True)
def take_rows_cpu(x, idx):
    out = np.empty((idx.shape[0], x.shape[1]), x.dtype)
    for i in range(idx.shape[0]):
        j = idx[i] + x.shape[0] if idx[i] < 0 else idx[i]
        out[i] = x[j]
    return out


@numba.njit(cache=True)
def index_add_rows_cpu(x, idx, values):
    for i in range(idx.shape[0]):
        j = idx[i] + x.shape[0] if idx[i] < 0 else idx[i]
        x[j] += values[i]
    return x
