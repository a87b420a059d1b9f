"""The collectives in nopython code: Numba overloads of ``rt.collectives.*``.

The emitted text is the same on both backends (``rt.collectives.all_reduce(x, 'sum')``);
under Numba these overloads call the MPI C functions directly, so a compiled gradient
with a collective in the middle stays one compiled function.

Why not numba-mpi's functions: they reach MPI through ctypes function pointers, which
Numba refuses to cache ("uses dynamic globals"), so every rank of every launch would
compile every such gradient again (seconds each), and it has no ``Reduce_scatter``,
``Alltoallv``, ``Allgatherv`` or ``Iallreduce``.  Here each MPI function is a
``numba.types.ExternalFunction``, linked by symbol name when the code is loaded, so
Numba's disk cache works; numba-mpi's own lookup finds the MPI library to link.  MPI
handles (communicator, datatypes, operations) are compile-time integers, which holds
for MPICH and its derivatives (their handles are fixed integers of the ABI); another MPI
gets a clear error and the python backend.  ``all_to_all`` runs its python
implementation in an object-mode block: its two axes make the nopython packing long,
and it is the least used of the collectives.
"""
from __future__ import annotations

import sys

import numba
import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import overload, register_jitable

from sstad.runtime import collectives as C
from sstad.runtime.primitive import PRIMITIVES, lowering

_STATE = {}
_INT, _PTR = types.int32, types.voidptr
_SIGNATURES = {
    "MPI_Allreduce": (_PTR, _PTR, _INT, _INT, _INT, _INT),
    "MPI_Iallreduce": (_PTR, _PTR, _INT, _INT, _INT, _INT, _PTR),
    "MPI_Wait": (_PTR, _PTR),
    "MPI_Allgather": (_PTR, _INT, _INT, _PTR, _INT, _INT, _INT),
    "MPI_Allgatherv": (_PTR, _INT, _INT, _PTR, _PTR, _PTR, _INT, _INT),
    "MPI_Reduce_scatter": (_PTR, _PTR, _PTR, _INT, _INT, _INT),
    "MPI_Bcast": (_PTR, _INT, _INT, _INT, _INT),
    "MPI_Reduce": (_PTR, _PTR, _INT, _INT, _INT, _INT, _INT),
    "MPI_Sendrecv": (_PTR, _INT, _INT, _INT, _INT, _PTR, _INT, _INT, _INT, _INT, _INT, _PTR),
    "MPI_Barrier": (_INT,),
    "MPI_Comm_rank": (_INT, _PTR),
    "MPI_Comm_size": (_INT, _PTR),
}
MPI = {name: types.ExternalFunction(name, types.int32(*args)) for name, args in _SIGNATURES.items()}
_MADVISE = types.ExternalFunction("madvise", types.int32(_PTR, types.uintp, _INT))
_LINUX = sys.platform.startswith("linux")


def mpi():
    """Link the MPI library (once per process) and return its handles as integers."""
    if not _STATE:
        import llvmlite.binding as llvm
        from mpi4py import MPI as M
        from numba_mpi.common import LIB
        if M._sizeof(M.Comm) != 4 or M._sizeof(M.Datatype) != 4:
            raise TypingError("collectives under Numba need an MPI whose handles are integers (MPICH and "
                              "its derivatives); use backend='python'")
        llvm.load_library_permanently(LIB)
        C.world()
        dtypes = {np.dtype(np.float64): M.DOUBLE, np.dtype(np.float32): M.FLOAT, np.dtype(np.int64): M.INT64_T,
                  np.dtype(np.int32): M.INT32_T, np.dtype(np.bool_): M.C_BOOL}
        _STATE.update(comm=M.COMM_WORLD.py2f(), ops={op: C._mpi_op(op).py2f() for op in C.OPS},
                      dtypes={k: v.py2f() for k, v in dtypes.items()}, int64=M.INT64_T.py2f())
    return _STATE


def _linked(name):
    """The lowering of a collective: the python spelling, after linking MPI (Numba's
    cached code names MPI's symbols, which are resolved when it is loaded)."""
    emit = PRIMITIVES[name].emit

    def lower(args, params, avals):
        mpi()
        return emit(args, params, avals)
    return lower


def _handle(numba_dtype):
    dtype = np.dtype(str(numba_dtype))
    if dtype not in mpi()["dtypes"]:
        raise TypingError(f"collectives under Numba move float64, float32, int64, int32 and bool, not {dtype}")
    return mpi()["dtypes"][dtype]


def _op(op):
    value = getattr(op, "literal_value", op)
    if value not in C.OPS:
        raise TypingError(f"op must be one of {C.OPS}, not {value!r}")
    return value


@register_jitable
def _hugepages(out):
    """``out`` (fresh, not yet written) backed by huge pages where it is large, as NumPy
    does for its own arrays (``madvise(MADV_HUGEPAGE)`` for 4 MB and more): else a
    64 MB result costs 16384 page faults, more than the all-reduce that fills it."""
    if _LINUX and out.nbytes >= 1 << 22:
        page = np.uintp(4096)
        start = np.uintp(out.ctypes.data)
        skip = (page - start % page) % page
        _MADVISE(start + skip, np.uintp(out.nbytes) - skip, 14)      # 14: MADV_HUGEPAGE
    return out


@register_jitable
def _layouts(x):
    """Every rank's (ndim, shape...) as rows, for the checks across ranks."""
    mine = np.full(1 + 32, -1, dtype=np.int64)
    mine[0] = x.ndim
    for k in range(x.ndim):
        mine[1 + k] = x.shape[k]
    return mine


def _checker(name, free):
    """A nopython check that every rank's shape agrees (but along axis ``free``, if not
    None); returns every rank's lengths along ``free``."""
    state = mpi()
    comm, i64 = state["comm"], state["int64"]
    allgather, size_of = MPI["MPI_Allgather"], MPI["MPI_Comm_size"]
    message = f"{name}: ranks disagree on the shape; backend='python' says how"

    @numba.njit
    def check(x):
        size = np.empty(1, dtype=np.int32)
        size_of(comm, size.ctypes.data)
        p = size[0]
        mine = _layouts(x)
        every = np.empty((p, mine.size), dtype=np.int64)
        allgather(mine.ctypes.data, mine.size, i64, every.ctypes.data, mine.size, i64, comm)
        lengths = np.empty(p, dtype=np.int64)
        for r in range(p):
            for k in range(mine.size):
                if k != free + 1 and every[r, k] != every[0, k]:
                    raise C.CollectiveError(message)
            lengths[r] = every[r, free + 1] if free >= 0 else 0
        return lengths
    return check


def _comm_int(name):
    state = mpi()
    comm, fn = state["comm"], MPI[name]

    @numba.njit
    def get():
        out = np.empty(1, dtype=np.int32)
        fn(comm, out.ctypes.data)
        return np.int64(out[0])
    return get


@overload(C.rank, prefer_literal=True)
def _rank():
    get = _comm_int("MPI_Comm_rank")
    return lambda: get()


@overload(C.world_size, prefer_literal=True)
def _world_size():
    get = _comm_int("MPI_Comm_size")
    return lambda: get()


def _scalar_or_array(x, array_impl, parameter, default):
    """The overload's implementation (Numba wants a plain function with the overloaded
    function's signature); scalars travel as one-element arrays."""
    operand = "x" if isinstance(x, types.Array) else "np.full(1, x)"
    index = "" if isinstance(x, types.Array) else "[0]"
    text = (f"def impl(x, {parameter}{'' if default is None else '=' + repr(default)}):\n"
            f"    return array_impl({operand}, {parameter}){index}\n")
    namespace = {"array_impl": array_impl, "np": np}
    exec(text, namespace)
    return namespace["impl"]


@overload(C.all_reduce, prefer_literal=True)
def _all_reduce(x, op="sum"):
    op = _op(op)
    state = mpi()
    dtype, comm, mpi_op = _handle(getattr(x, "dtype", x)), state["comm"], state["ops"][op]
    allreduce, size_of = MPI["MPI_Allreduce"], _comm_int("MPI_Comm_size")
    check = _checker("all_reduce", -1)
    mean = op == "mean"

    @numba.njit
    def array_impl(x, op="sum"):
        send = np.ascontiguousarray(x)
        out = _hugepages(np.empty_like(send))
        if size_of() > 1:
            check(send)
        allreduce(send.ctypes.data, out.ctypes.data, send.size, dtype, mpi_op, comm)
        if mean:
            out /= size_of()
        return out
    return _scalar_or_array(x, array_impl, "op", "sum")


@overload(C.broadcast, prefer_literal=True)
def _broadcast(x, root=0):
    state = mpi()
    dtype, comm, bcast = _handle(getattr(x, "dtype", x)), state["comm"], MPI["MPI_Bcast"]
    check, size_of = _checker("broadcast", -1), _comm_int("MPI_Comm_size")

    @numba.njit
    def array_impl(x, root=0):
        out = _hugepages(np.empty_like(np.ascontiguousarray(x)))
        out[...] = x
        if size_of() > 1:
            check(out)
        bcast(out.ctypes.data, out.size, dtype, root, comm)
        return out
    return _scalar_or_array(x, array_impl, "root", 0)


@overload(C.reduce, prefer_literal=True)
def _reduce(x, root=0):
    state = mpi()
    dtype, comm, total, reduce = _handle(getattr(x, "dtype", x)), state["comm"], state["ops"]["sum"], MPI["MPI_Reduce"]
    check, size_of = _checker("reduce", -1), _comm_int("MPI_Comm_size")

    @numba.njit
    def array_impl(x, root=0):
        send = np.ascontiguousarray(x)
        out = _hugepages(np.empty_like(send))
        out[...] = 0
        if size_of() > 1:
            check(send)
        reduce(send.ctypes.data, out.ctypes.data, send.size, dtype, total, root, comm)
        return out
    return _scalar_or_array(x, array_impl, "root", 0)


@register_jitable
def _check_perm(perm, p):
    """A rank outside 0..p-1, as ``C.check_perm`` refuses it (the world's size is known
    only here; a rank named twice was refused when the call was typed)."""
    for pair in perm:
        if pair[0] < 0 or pair[0] >= p or pair[1] < 0 or pair[1] >= p:
            raise ValueError("ppermute: perm names a rank outside the world")


@overload(C.ppermute, prefer_literal=True)
def _ppermute(x, perm):
    state = mpi()
    dtype, comm, sendrecv = _handle(getattr(x, "dtype", x)), state["comm"], MPI["MPI_Sendrecv"]
    rank_of, size_of = _comm_int("MPI_Comm_rank"), _comm_int("MPI_Comm_size")
    check = _checker("ppermute", -1)

    @numba.njit
    def array_impl(x, perm):
        send = np.ascontiguousarray(x)
        out = _hugepages(np.empty_like(send))
        out[...] = 0
        me, dest, source = rank_of(), -1, -1          # -1: MPI_PROC_NULL, nothing to move
        _check_perm(perm, size_of())
        if size_of() > 1:
            check(send)
        for pair in perm:
            if pair[0] == me:
                dest = pair[1]
            if pair[1] == me:
                source = pair[0]
        status = np.empty(8, dtype=np.int32)
        sendrecv(send.ctypes.data, send.size, dtype, dest, 7, out.ctypes.data, out.size, dtype, source, 7,
                 comm, status.ctypes.data)
        return out
    return _scalar_or_array(x, array_impl, "perm", None)


@register_jitable
def _three(x, axis):
    """``x`` as a C-contiguous (outer, n, inner) array: ``axis`` in the middle."""
    outer, inner = 1, 1
    for k in range(axis):
        outer *= x.shape[k]
    for k in range(axis + 1, x.ndim):
        inner *= x.shape[k]
    return np.ascontiguousarray(x).reshape((outer, x.shape[axis], inner))


@register_jitable
def _rows_first(x3):
    """(outer, n, inner) -> a contiguous (n, outer, inner): what MPI moves by rows."""
    if x3.shape[0] == 1:                         # axis 0: the rows are already in order
        return x3.reshape((x3.shape[1], 1, x3.shape[2]))
    out = np.empty((x3.shape[1], x3.shape[0], x3.shape[2]), dtype=x3.dtype)
    for j in range(x3.shape[1]):
        out[j] = x3[:, j, :]
    return out


@register_jitable
def _rows_back(rows, shape, axis):
    """(n, outer, inner) -> an array of ``shape`` with n along ``axis``."""
    if rows.shape[1] == 1:
        return rows.reshape(tuple_setitem(shape, axis, rows.shape[0]))
    out = np.empty((rows.shape[1], rows.shape[0], rows.shape[2]), dtype=rows.dtype)
    for j in range(rows.shape[0]):
        out[:, j, :] = rows[j]
    return out.reshape(tuple_setitem(shape, axis, rows.shape[0]))


@overload(C.all_gather, prefer_literal=True)
def _all_gather(x, axis=0):
    state = mpi()
    ax = getattr(axis, "literal_value", axis) % x.ndim
    dtype, comm, gatherv = _handle(getattr(x, "dtype", x)), state["comm"], MPI["MPI_Allgatherv"]
    check = _checker("all_gather", ax)
    message = "all_gather: the ranks' lengths are not an even split (np.array_split); pad the pieces"

    def impl(x, axis=0):
        lengths = check(x)
        p, n = lengths.size, lengths.sum()
        for r in range(p):
            if lengths[r] != n // p + (1 if r < n % p else 0):
                raise C.CollectiveError(message)
        rows = _rows_first(_three(x, ax))
        row = rows.shape[1] * rows.shape[2]
        counts = (lengths * row).astype(np.int32)
        displs = np.zeros(p, dtype=np.int32)
        displs[1:] = np.cumsum(counts)[:-1]
        out = _hugepages(np.empty((n, rows.shape[1], rows.shape[2]), dtype=rows.dtype))
        gatherv(rows.ctypes.data, rows.size, dtype, out.ctypes.data, counts.ctypes.data, displs.ctypes.data,
                dtype, comm)
        return _rows_back(out, x.shape, ax)
    return impl


@overload(C.reduce_scatter, prefer_literal=True)
def _reduce_scatter(x, op="sum", axis=0):
    op = _op(op)
    state = mpi()
    ax = getattr(axis, "literal_value", axis) % x.ndim
    dtype, comm, mpi_op = _handle(getattr(x, "dtype", x)), state["comm"], state["ops"][op]
    scatter, rank_of = MPI["MPI_Reduce_scatter"], _comm_int("MPI_Comm_rank")
    check = _checker("reduce_scatter", -1)
    mean = op == "mean"

    def impl(x, op="sum", axis=0):
        p = check(x).size
        rows = _rows_first(_three(x, ax))
        n, row = rows.shape[0], rows.shape[1] * rows.shape[2]
        counts = np.empty(p, dtype=np.int32)
        for r in range(p):
            counts[r] = (n // p + (1 if r < n % p else 0)) * row
        me = rank_of()
        out = _hugepages(np.empty((counts[me] // max(row, 1) if row else n // p + (1 if me < n % p else 0),
                                   rows.shape[1], rows.shape[2]), dtype=rows.dtype))
        scatter(rows.ctypes.data, out.ctypes.data, counts.ctypes.data, dtype, mpi_op, comm)
        if mean:
            out /= p
        return _rows_back(out, x.shape, ax)
    return impl


@overload(C.barrier)
def _barrier():
    comm, barrier = mpi()["comm"], MPI["MPI_Barrier"]

    def impl():
        barrier(comm)
        return 0
    return impl


@overload(C.grad_average)
def _grad_average(x, bucket_mb=25, nbytes=0):
    return lambda x, bucket_mb=25, nbytes=0: C.all_reduce(x, "mean")


_IN_PLACE = (1 << 64) - 1          # MPI_IN_PLACE of MPICH: (void *) -1


def _generated(lines, **namespace):
    """An overload's implementation from source lines (one per member of a tuple)."""
    namespace.update(np=np, numba=numba)
    exec("\n".join(lines), namespace)
    return namespace["impl"]


@overload(C.bucket_start)
def _bucket_start(grads):
    """Pack the tuple ``grads`` into one buffer and start its sum (MPI_Iallreduce in
    place); the request lives in the buffer's extra last element."""
    state = mpi()
    first = list(grads)[0]
    dtype = np.dtype(str(getattr(first, "dtype", first)))
    lines = ["def impl(grads):", "    n = 0"]
    lines += [f"    n += grads[{k}].size" if isinstance(t, types.Array) else "    n += 1" for k, t in enumerate(grads)]
    lines += ["    buffer = hugepages(np.empty(n + 1, dtype))", "    offset = 0"]
    for k, t in enumerate(grads):
        if isinstance(t, types.Array):
            lines += [f"    size = grads[{k}].size",
                      f"    buffer[offset:offset + size] = np.ascontiguousarray(grads[{k}]).ravel()",
                      "    offset += size"]
        else:
            lines += [f"    buffer[offset] = grads[{k}]", "    offset += 1"]
    lines += ["    iallreduce(in_place, buffer.ctypes.data, n, handle, total, comm, buffer[n:].ctypes.data)",
              "    return buffer"]
    return _generated(lines, dtype=dtype, hugepages=_hugepages, iallreduce=MPI["MPI_Iallreduce"], in_place=_IN_PLACE,
                      handle=_handle(dtype), total=state["ops"]["sum"], comm=state["comm"])


@overload(C.bucket_wait)
def _bucket_wait(buffer):
    wait, size_of = MPI["MPI_Wait"], _comm_int("MPI_Comm_size")

    def impl(buffer):
        n = buffer.size - 1
        status = np.empty(8, dtype=np.int32)
        wait(buffer[n:].ctypes.data, status.ctypes.data)
        flat = buffer[:n]
        flat /= size_of()
        return flat
    return impl


@overload(C.bucket_piece, prefer_literal=True)
def _bucket_piece(flat, grads, index):
    index = getattr(index, "literal_value", None)
    if index is None:
        raise TypingError("bucket_piece needs a literal index")
    lines = ["def impl(flat, grads, index):", "    offset = 0"]
    lines += [f"    offset += grads[{k}].size" if isinstance(t, types.Array) else "    offset += 1"
              for k, t in enumerate(list(grads)[:index])]
    if isinstance(list(grads)[index], types.Array):
        lines.append(f"    return np.ascontiguousarray(flat[offset:offset + grads[{index}].size])"
                     f".reshape(grads[{index}].shape)")
    else:
        lines.append("    return flat[offset]")
    return _generated(lines)


@overload(C.all_to_all, prefer_literal=True)
def _all_to_all(x, split_axis, concat_axis):
    result = types.Array(x.dtype, x.ndim, "C")

    def impl(x, split_axis, concat_axis):
        with numba.objmode(out=result):
            out = np.ascontiguousarray(C.all_to_all(x, split_axis, concat_axis))
        return out
    return impl


for _name in C.NAMES:
    lowering("numba", _name)(_linked(_name))
