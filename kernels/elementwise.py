"""Fused elementwise kernels, generated from one scalar expression.

A chain of elementwise operations is described by an expression over ``v0, v1, ...``
(``"v0 * math.exp(v1) + 2.0"``) and each operand's rank (``None`` for a scalar).  One
kernel is generated per (expression, ranks, output rank): a grid-stride loop over the
output's elements, each array operand read with NumPy broadcasting (aligned to the last
axes; an axis of length 1 is read at 0).  When every operand has the output's shape and
is contiguous, :func:`launch` runs the rank-1 kernel on flat views instead.

``cpu_twin(expr, ranks, out_rank)`` is the same loop compiled by ``numba.njit``.
"""
import functools
import math

import numba
import numpy as np
from numba import cuda

from sstad.kernels.launch import BLOCK, empty, grid, strided_view


def source(expr, ranks, out_rank, target="cuda", exact=False):
    """The kernel's text: ``def kernel(out, a0, a1, ...)``; target "cuda" or "cpu".
    ``exact``: every array operand has the output's shape (no broadcasting tests)."""
    names = [f"a{k}" for k in range(len(ranks))]
    lines = [f"def kernel(out, {', '.join(names)}):" if names else "def kernel(out):"]
    if target == "cuda":
        lines += ["    i = cuda.grid(1)", "    step = cuda.gridsize(1)", "    while i < out.size:"]
    else:
        lines += ["    for i in range(out.size):"]
    body = ["r = i"]
    idx = [f"i{d}" for d in range(out_rank)]
    for d in range(out_rank - 1, 0, -1):
        body += [f"i{d} = r % out.shape[{d}]", f"r = r // out.shape[{d}]"]
    body.append("i0 = r")
    for k, rank in enumerate(ranks):
        if rank is None:
            body.append(f"v{k} = a{k}")
            continue
        lead = out_rank - rank
        at = [f"i{lead + d}" if exact else f"(i{lead + d} if a{k}.shape[{d}] != 1 else 0)" for d in range(rank)]
        body.append(f"v{k} = a{k}[{', '.join(at)}]")
    body.append(f"out[{', '.join(idx)}] = {expr}")
    lines += ["        " + line for line in body]
    if target == "cuda":
        lines.append("        i += step")
    return "\n".join(lines) + "\n"


def _compile(expr, ranks, out_rank, target, exact=False):
    namespace = {"cuda": cuda, "math": math, "np": np}
    exec(compile(source(expr, ranks, out_rank, target, exact), f"<sstad kernel {expr}>", "exec"), namespace)
    fn = namespace["kernel"]
    return cuda.jit(fn) if target == "cuda" else numba.njit(fn)


@functools.lru_cache(maxsize=None)
def kernel(expr, ranks, out_rank, exact=False):
    """The CUDA kernel for ``expr`` (compiled by Numba at its first launch per dtype)."""
    return _compile(expr, tuple(ranks), out_rank, "cuda", exact)


@functools.lru_cache(maxsize=None)
def cpu_twin(expr, ranks, out_rank):
    return _compile(expr, tuple(ranks), out_rank, "cpu")


def broadcast_shape(operands, ranks):
    return np.broadcast_shapes(*[tuple(a.shape) for a, r in zip(operands, ranks) if r is not None])


def launch(expr, ranks, operands, dtype, out=None):
    """Evaluate ``expr`` elementwise on device ``operands`` (scalars where the rank is
    None) into ``out`` (a new array of ``dtype`` and the broadcast shape when None)."""
    ranks = tuple(ranks)
    if out is None:
        out = empty(broadcast_shape(operands, ranks), dtype)
    if out.size == 0:
        return out
    flat = out.is_c_contiguous() and all(
        r is None or (tuple(a.shape) == tuple(out.shape) and a.is_c_contiguous())
        for a, r in zip(operands, ranks))
    if flat:
        flatten = functools.partial(strided_view, view=lambda a: a.reshape(-1))
        k = kernel(expr, tuple(None if r is None else 1 for r in ranks), 1, exact=True)
        k[grid(out.size), BLOCK](flatten(out), *[a if r is None else flatten(a) for a, r in zip(operands, ranks)])
    else:
        kernel(expr, ranks, out.ndim)[grid(out.size), BLOCK](out, *operands)
    return out


def run_cpu(expr, ranks, operands, dtype):
    """The CPU twin of :func:`launch` on NumPy arrays."""
    out = np.empty(broadcast_shape(operands, ranks), dtype)
    cpu_twin(expr, tuple(ranks), out.ndim)(out, *operands)
    return out
