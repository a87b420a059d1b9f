"""Collectives across MPI ranks as primitives, with their rules.

``all_reduce``, ``all_gather``, ``reduce_scatter``, ``broadcast``, ``reduce``,
``all_to_all`` and ``ppermute`` are primitives like ``np.sin``: a call in the user's code
(as ``sstad.distributed.all_reduce(x)``) becomes one application, and reverse mode uses
the rule below it; forward mode transposes that rule.  The functions here are also what
the python backend's code calls: mpi4py's buffer methods (``Allreduce``, ``Allgatherv``,
...), which move NumPy memory without pickling.  The numba backend calls the same MPI
functions from nopython code (sstad/backend/collectives_numba.py).

Without ``mpiexec`` the world has one rank (MPI's singleton) and every collective is the
identity it should be: a sum over one rank, a gather of one piece.

Splits follow ``np.array_split``: an axis of length n over p ranks gives the first n % p
ranks one row more.  So ``reduce_scatter`` works on any length, and ``all_gather`` takes
pieces of equal length or in that pattern (what a ``reduce_scatter`` made): with that,
each collective's transpose is again a collective.  Ranks whose shapes do not fit
together raise :class:`CollectiveError` on every rank (no rank waits forever, no data
is read past a buffer).
"""
import inspect
import sys
import time

import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime.primitive import Primitive, declare, defvjp, emit_call, nondiff, numpy_primitive, parameters

OPS = ("sum", "mean", "max", "min")


class CollectiveError(ValueError):
    """Ranks called a collective with arguments that do not fit together."""


# --- the world ------------------------------------------------------------------------
_WORLD = []


def world():
    """``MPI.COMM_WORLD``, imported on first use (``import mpi4py.MPI`` starts MPI).  In a
    world of several ranks, an uncaught exception on one rank aborts all of them."""
    if not _WORLD:
        from mpi4py import MPI
        _WORLD.append(MPI.COMM_WORLD)
        if MPI.COMM_WORLD.Get_size() > 1:
            _abort_on_uncaught_exception(MPI.COMM_WORLD)
    return _WORLD[0]


def _abort_on_uncaught_exception(comm):
    """A rank that raises would leave the others waiting in their next collective
    forever: print the error with the rank's number, then ``MPI_Abort``, which ends
    every rank (mpiexec exits non-zero).  The rank's line comes first and the abort waits
    a moment: mpiexec stops forwarding a rank's output when the abort reaches it."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        sys.stderr.write(f"sstad.distributed: rank {comm.Get_rank()} of {comm.Get_size()} raised "
                         f"{kind.__name__}; aborting all ranks\n")
        sys.stderr.flush()
        previous(kind, value, tb)
        sys.stderr.flush()
        time.sleep(0.5)
        comm.Abort(1)
    sys.excepthook = hook


def rank():
    """This process's rank in ``MPI.COMM_WORLD`` (0 without ``mpiexec``)."""
    return world().Get_rank()


def world_size():
    """The number of ranks (1 without ``mpiexec``)."""
    return world().Get_size()


def barrier():
    """Wait until every rank gets here (in compiled functions too: a primitive with an
    effect, which no pass removes).  Returns 0."""
    world().Barrier()
    return 0


def split_sizes(n, p):
    """Lengths of ``np.array_split`` of n rows into p pieces."""
    return np.array([n // p + (1 if r < n % p else 0) for r in range(p)], dtype=np.int64)


# --- checks across ranks ----------------------------------------------------------------
_MAX_RANK = 32


def _layouts(comm, x):
    """Every rank's (ndim, dtype number, shape...) as rows of an int64 array."""
    x = np.asarray(x)
    mine = np.full(2 + _MAX_RANK, -1, dtype=np.int64)
    mine[0], mine[1] = x.ndim, x.dtype.num
    mine[2:2 + x.ndim] = x.shape
    every = np.empty((comm.Get_size(), mine.size), dtype=np.int64)
    comm.Allgather(mine, every)
    return every


def _shape_text(row):
    return str(tuple(int(n) for n in row[2:2 + row[0]]))


def check_layouts(comm, name, x, free_axis=None):
    """Every rank has the same dtype and shape (except along ``free_axis``): else
    ``CollectiveError`` on every rank.  Returns every rank's length along ``free_axis``."""
    every = _layouts(comm, x)
    mask = np.ones(every.shape[1], dtype=bool)
    if free_axis is not None:
        mask[2 + free_axis] = False
    for r in range(every.shape[0]):
        if not np.array_equal(every[r, mask], every[0, mask]):
            what = "dtype" if every[r, 1] != every[0, 1] else "shape"
            raise CollectiveError(
                f"{name}: ranks disagree on the {what}"
                f"{'' if free_axis is None else f' (other than along axis {free_axis})'}: rank 0 has "
                f"{_describe(every[0])}, "
                f"rank {r} has {_describe(every[r])}")
    return None if free_axis is None else every[:, 2 + free_axis].copy()


def _describe(row):
    dtype = next((t for t in np.sctypeDict.values() if np.dtype(t).num == row[1]), None)
    return f"{np.dtype(dtype).name if dtype is not None else '?'}{_shape_text(row)}"


def _check_split(name, lengths):
    """Pieces along an axis must be the ``np.array_split`` pattern of their total."""
    if not np.array_equal(lengths, split_sizes(int(lengths.sum()), lengths.size)):
        raise CollectiveError(f"{name}: the ranks' lengths {tuple(int(n) for n in lengths)} are not an even "
                              f"split (np.array_split) of {int(lengths.sum())}; pad the pieces to equal lengths")


# --- transport (mpi4py, buffers) ----------------------------------------------------------
def _mpi_op(op):
    from mpi4py import MPI
    return {"sum": MPI.SUM, "mean": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN}[op]


def _wire(x):
    """A C-contiguous array MPI can move (float16 travels as float32)."""
    x = np.asarray(x)
    return np.asarray(x, dtype=np.float32 if x.dtype == np.float16 else x.dtype, order="C")


def _like(result, x):
    """``result`` in ``x``'s kind: a Python float for a Python float, a NumPy scalar for
    a NumPy scalar, else an array of x's dtype."""
    if isinstance(x, (bool, int, float, complex)):
        return type(x)(result[()])
    dtype = np.asarray(x).dtype
    result = result.astype(dtype, copy=False) if result.dtype != dtype else result
    return result[()] if np.ndim(x) == 0 else result


def _check_op(op):
    if op not in OPS:
        raise ValueError(f"op must be one of {', '.join(map(repr, OPS))}, not {op!r}")


def all_reduce(x, op="sum"):
    """Every rank gets the elementwise ``op`` ("sum", "mean", "max" or "min") of ``x``
    over all ranks.  Example (one rank without mpiexec)::

        assert all_reduce(2.0) == 2.0 * world_size()
    """
    _check_op(op)
    comm = world()
    if comm.Get_size() > 1:
        check_layouts(comm, "all_reduce", x)
    send = _wire(x)
    out = np.empty_like(send)
    comm.Allreduce(send, out, op=_mpi_op(op))
    if op == "mean":
        out = out / comm.Get_size() if out.dtype.kind in "iub" else np.divide(out, comm.Get_size(), out=out)
    return _like(out, x)


def all_gather(x, axis=0):
    """The ranks' pieces, concatenated along ``axis`` in rank order."""
    comm, x = world(), np.asarray(x)
    lengths = check_layouts(comm, "all_gather", x, free_axis=axis % x.ndim)
    _check_split("all_gather", lengths)
    send = _wire(np.moveaxis(x, axis, 0))
    row = int(np.prod(send.shape[1:], dtype=np.int64))
    out = np.empty((int(lengths.sum()),) + send.shape[1:], dtype=send.dtype)
    counts = lengths * row
    comm.Allgatherv(send, [out, (counts, _offsets(counts))])
    return _like(np.ascontiguousarray(np.moveaxis(out, 0, axis)), x)


def reduce_scatter(x, op="sum", axis=0):
    """The elementwise ``op`` over ranks, split along ``axis``: rank r gets piece r
    (``np.array_split`` lengths)."""
    _check_op(op)
    comm, x = world(), np.asarray(x)
    check_layouts(comm, "reduce_scatter", x)
    send = _wire(np.moveaxis(x, axis, 0))
    lengths = split_sizes(send.shape[0], comm.Get_size())
    row = int(np.prod(send.shape[1:], dtype=np.int64))
    out = np.empty((int(lengths[comm.Get_rank()]),) + send.shape[1:], dtype=send.dtype)
    comm.Reduce_scatter(send, out, recvcounts=lengths * row, op=_mpi_op(op))
    if op == "mean":
        out = out / comm.Get_size() if out.dtype.kind in "iub" else np.divide(out, comm.Get_size(), out=out)
    return _like(np.ascontiguousarray(np.moveaxis(out, 0, axis)), x)


def broadcast(x, root=0):
    """Every rank gets rank ``root``'s ``x``."""
    comm = world()
    if comm.Get_size() > 1:
        check_layouts(comm, "broadcast", x)
    out = _wire(x).copy()
    comm.Bcast(out, root=root)
    return _like(out, x)


def reduce(x, root=0):
    """Rank ``root`` gets the sum of ``x`` over ranks; the others get zeros (the
    transpose of ``broadcast``)."""
    comm = world()
    if comm.Get_size() > 1:
        check_layouts(comm, "reduce", x)
    send = _wire(x)
    out = np.zeros_like(send)
    comm.Reduce(send, out, op=_mpi_op("sum"), root=root)
    return _like(out, x)


def all_to_all(x, split_axis, concat_axis):
    """Split ``x`` along ``split_axis`` into one piece per rank (``np.array_split``),
    send piece j to rank j, and concatenate what arrives along ``concat_axis`` in rank
    order.  Ranks agree on every length but ``concat_axis``'s, which must be equal or in
    the ``np.array_split`` pattern."""
    comm, x = world(), np.asarray(x)
    p, me = comm.Get_size(), comm.Get_rank()
    concat = check_layouts(comm, "all_to_all", x, free_axis=concat_axis % x.ndim)
    _check_split("all_to_all", concat)
    pieces = [_wire(c) for c in np.array_split(x, p, axis=split_axis)]
    send = np.concatenate([c.ravel() for c in pieces]) if p > 1 else pieces[0].ravel()
    send_counts = np.array([c.size for c in pieces], dtype=np.int64)
    shapes = []
    for s in range(p):
        shape = list(pieces[me].shape)
        shape[concat_axis] = int(concat[s])
        shapes.append(tuple(shape))
    recv_counts = np.array([int(np.prod(s, dtype=np.int64)) for s in shapes], dtype=np.int64)
    recv = np.empty(int(recv_counts.sum()), dtype=send.dtype)
    comm.Alltoallv([send, (send_counts, _offsets(send_counts))], [recv, (recv_counts, _offsets(recv_counts))])
    parts = np.split(recv, np.cumsum(recv_counts)[:-1])
    out = np.concatenate([part.reshape(shape) for part, shape in zip(parts, shapes)], axis=concat_axis)
    return _like(out, x)


def _offsets(counts):
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)


def check_perm(perm, p):
    """``perm``: pairs (source, destination), each rank at most once on each side."""
    pairs = tuple(tuple(int(r) for r in pair) for pair in perm)
    if any(len(pair) != 2 for pair in pairs):
        raise ValueError(f"perm must be a tuple of (source, destination) pairs, not {perm!r}")
    for k, what in ((0, "source"), (1, "destination")):
        ends = [pair[k] for pair in pairs]
        if len(set(ends)) != len(ends):
            raise ValueError(f"perm names a {what} twice: {perm!r}")
        if any(not 0 <= r < p for r in ends):
            raise ValueError(f"perm names a {what} outside ranks 0..{p - 1}: {perm!r}")
    return pairs


def ppermute(x, perm):
    """Send ``x`` along the pairs ``(source, destination)`` of ``perm``: rank d gets
    rank s's ``x``; a rank no pair sends to gets zeros."""
    comm = world()
    pairs = check_perm(perm, comm.Get_size())
    if comm.Get_size() > 1:
        check_layouts(comm, "ppermute", x)
    me = comm.Get_rank()
    send = _wire(x)
    out = np.zeros_like(send)
    requests = [comm.Isend(send, dest=d) for s, d in pairs if s == me]
    requests += [comm.Irecv(out, source=s) for s, d in pairs if d == me]
    for request in requests:
        request.Wait()
    return _like(out, x)


def inverse_perm(perm):
    """The pairs of ``perm`` reversed: where ``ppermute`` sends cotangents back."""
    return tuple((d, s) for s, d in perm)


# --- gradient averaging in buckets (data parallel; placed by sstad/passes/overlap.py) ------
def grad_average(x, bucket_mb=25, nbytes=0):
    """The mean of ``x`` over ranks: what ``data_parallel`` applies to each gradient.
    The ``overlap`` pass replaces these by :func:`bucket_start` right where the backward
    sweep finishes the gradients of a bucket and :func:`bucket_wait` at the end
    (``bucket_mb``: the bucket bound, ``nbytes``: this gradient's size)."""
    return all_reduce(x, "mean")


_PENDING = {}        # id(buffer) -> its mpi4py request (the python backend's bucket handles)


def _bucket_dtype(x):
    dtype = np.asarray(x).dtype
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def bucket_start(grads):
    """Pack ``grads`` (arrays and numbers of one dtype) into one buffer and start its sum
    over ranks (``Iallreduce`` in place).  Returns the buffer, one element longer than
    the gradients (the numba backend keeps the MPI request there); ``bucket_wait``
    takes it."""
    dtype = _bucket_dtype(grads[0])
    n = sum(np.size(g) for g in grads)
    buffer = np.empty(n + 1, dtype=dtype)
    offset = 0
    for g in grads:
        buffer[offset:offset + np.size(g)] = np.ravel(g)
        offset += np.size(g)
    from mpi4py import MPI
    _PENDING[id(buffer)] = world().Iallreduce(MPI.IN_PLACE, buffer[:n], op=MPI.SUM)
    return buffer


def bucket_wait(buffer):
    """Wait for ``bucket_start``'s sum and return the gradients' mean over ranks, flat."""
    _PENDING.pop(id(buffer)).Wait()
    flat = buffer[:-1]
    flat /= world().Get_size()
    return flat


def bucket_piece(flat, grads, index):
    """Gradient ``index`` of a bucket: its piece of ``flat``, in ``grads[index]``'s shape
    and kind."""
    offset = sum(np.size(g) for g in grads[:index])
    g = grads[index]
    return _like(flat[offset:offset + np.size(g)].reshape(np.shape(g)), g)


def _bucket_start_type(avals, params):
    dtypes = {a.dtype for a in avals}
    if len(dtypes) != 1 or not all(isinstance(a, (A.Array, A.Scalar)) for a in avals):
        raise TypeError(f"a bucket holds arrays and numbers of one dtype, not {avals}")
    return A.Array(_bucket_dtype(np.zeros(0, avals[0].dtype)), 1)


def _emit_tuple(fname, before=0, after=()):
    """``fname(a, (g1, g2,), k)``: ``before`` leading atoms, the rest as one tuple, then
    params ``after`` by position."""
    def emit(args, params, avals):
        parts = list(args[:before]) + ["(" + ", ".join(args[before:]) + ",)"]
        return f"{fname}({', '.join(parts + [repr(params[k]) for k in after])})"
    return emit


# --- type rules: the result has the argument's type -------------------------------------
def _bound(fn):
    signature = inspect.signature(fn)

    def bound(params):
        pos, kw = params["layout"]
        values = dict(parameters(signature, pos, kw))
        return {name: values.get(name, p.default) for name, p in signature.parameters.items()}
    return bound


def _same_type(fn, array_axes=(), ops=False):
    """Type rule: the argument's type; ``array_axes`` name parameters that are axes of
    an array (so the argument must be one); ``ops``: ``op`` is checked."""
    bound = _bound(fn)

    def infer(avals, params):
        values = bound(params)
        x = avals[0] if avals else A.of_value(values[next(iter(values))])   # a constant operand
        if ops:
            _check_op(values["op"])
            if values["op"] == "mean" and not A.is_float(x.dtype):
                raise TypeError("op='mean' needs a float argument")
        if not isinstance(x, (A.Array, A.Scalar)) or not (x.dtype.kind in "biu" or A.is_float(x.dtype)):
            raise TypeError(f"{fn.__name__} takes arrays and numbers, not {x}")
        for name in array_axes:
            axis = values[name]
            if not isinstance(x, A.Array) or x.ndim == 0:
                raise TypeError(f"{fn.__name__} needs an array of rank >= 1 (it splits or joins along an axis)")
            if not isinstance(axis, (int, np.integer)) or not -x.ndim <= axis < x.ndim:
                raise TypeError(f"{name}={axis!r} is not an axis of an array of rank {x.ndim}")
        if "perm" in values:
            check_perm(values["perm"], 1 << 30)
        if "root" in values and not isinstance(values["root"], (int, np.integer)):
            raise TypeError(f"root must be a compile-time integer, not {values['root']!r}")
        return x
    return infer


def _no_args(aval):
    def infer(avals, params):
        return aval
    return infer


_EMIT = "rt.collectives."
for _fn, _infer in ((all_reduce, _same_type(all_reduce, ops=True)),
                    (all_gather, _same_type(all_gather, ("axis",))),
                    (reduce_scatter, _same_type(reduce_scatter, ("axis",), ops=True)),
                    (broadcast, _same_type(broadcast)),
                    (reduce, _same_type(reduce)),
                    (all_to_all, _same_type(all_to_all, ("split_axis", "concat_axis"))),
                    (ppermute, _same_type(ppermute)),
                    (rank, _no_args(A.I64)),
                    (world_size, _no_args(A.I64)),
                    (barrier, _no_args(A.I64))):
    numpy_primitive("mpi." + _fn.__name__, _fn, infer=_infer, emit=emit_call(_EMIT + _fn.__name__))
Primitive("mpi.average", grad_average, lambda avals, params: avals[0], emit_call(_EMIT + "grad_average"))
Primitive("mpi.bucket_start", bucket_start, _bucket_start_type, _emit_tuple(_EMIT + "bucket_start"))
Primitive("mpi.bucket_wait", bucket_wait, lambda avals, params: avals[0], emit_call(_EMIT + "bucket_wait"))
Primitive("mpi.bucket_piece", bucket_piece, lambda avals, params: avals[1 + params["index"]],
          _emit_tuple(_EMIT + "bucket_piece", before=1, after=("index",)))
# Collectives talk to other processes: never merged, moved, removed or run at compile time.
NAMES = tuple("mpi." + n for n in ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                                   "all_to_all", "ppermute", "rank", "world_size", "barrier", "average",
                                   "bucket_start", "bucket_wait"))
declare(*NAMES, effect=True)
NAMES += ("mpi.bucket_piece",)
nondiff("mpi.rank", "mpi.world_size", "mpi.barrier")


# --- reverse rules (forward mode transposes them) -------------------------------------------
@defvjp("mpi.all_reduce")
def _(x, out, dout, op="sum"):
    if op == "sum" or op == "mean":
        return (all_reduce(dout, op),)
    hit = x == out                       # the winning ranks share the cotangent, as np.maximum's ties
    count = all_reduce(np.where(hit, 1.0, 0.0), "sum")
    return (np.where(hit, all_reduce(dout, "sum") / count, 0.0),)


@defvjp("mpi.all_gather")
def _(x, out, dout, axis=0):
    return (reduce_scatter(dout, "sum", axis),)


@defvjp("mpi.reduce_scatter")
def _(x, out, dout, op="sum", axis=0):
    if op == "sum":
        return (all_gather(dout, axis),)
    if op == "mean":
        return (all_gather(dout, axis) / world_size(),)
    hit = x == all_gather(out, axis)
    count = all_reduce(np.where(hit, 1.0, 0.0), "sum")
    return (np.where(hit, all_gather(dout, axis) / count, 0.0),)


@defvjp("mpi.broadcast")
def _(x, out, dout, root=0):
    return (reduce(dout, root),)


@defvjp("mpi.reduce")
def _(x, out, dout, root=0):
    return (broadcast(dout, root),)


@defvjp("mpi.all_to_all")
def _(x, split_axis, concat_axis, out, dout):
    return (all_to_all(dout, concat_axis, split_axis),)


@defvjp("mpi.ppermute")
def _(x, perm, out, dout):
    return (ppermute(dout, inverse_perm(perm)),)


def clip_by_global_norm(grads, max_norm):
    """``grads``, a tuple of arrays that are each rank's pieces of the gradient (tensor
    parallel, sharded optimizer state), scaled so that the norm of the whole gradient,
    over every rank's pieces, is at most ``max_norm``: the sum of squares is
    all-reduced, so every rank scales by the same factor.  Gradients that every rank
    holds whole (data parallel, after averaging) are clipped by
    ``data_parallel(..., clip_norm=c)``."""
    total = 0.0
    for g in grads:
        total = total + np.sum(g * g)
    norm = np.sqrt(all_reduce(total, "sum"))
    scale = np.minimum(1.0, max_norm / np.maximum(norm, 1e-30))
    return tuple(g * scale for g in grads)

