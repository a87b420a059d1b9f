"""Indexing: ``x[index]`` reads and ``x[index] = v`` writes (in place).

The index is a static tuple of items, each an atom slot (an int, an int array or a
boolean mask), a ``slice`` whose bounds are slots, ints or None, ``None`` (new axis) or
``Ellipsis``.  Writes mutate their first argument: the emitted code writes in place and
the result is the new version of the array.
"""
import numpy as np

from sstad.runtime import abstract as A
from sstad.runtime.primitive import Primitive, Slot, literal


def _bound_text(bound, args):
    if bound is None:
        return ""
    return args[bound] if isinstance(bound, Slot) else literal(bound)


def index_text(items, args):
    parts = []
    for item in items:
        if isinstance(item, slice):
            text = f"{_bound_text(item.start, args)}:{_bound_text(item.stop, args)}"
            if item.step is not None:
                text += f":{_bound_text(item.step, args)}"
            parts.append(text)
        elif isinstance(item, Slot):
            parts.append(args[item])
        else:
            parts.append(literal(item))
    return ", ".join(parts) if parts else "..."


def result_of_index(x, items, avals):
    """The abstract value of ``x[items]``."""
    if isinstance(x, A.ListOf):
        if len(items) != 1 or isinstance(items[0], slice) or items[0] is None:
            raise TypeError("a run-time list takes one integer index or one slice (for more, make an array "
                            "of it with np.stack(lst))")
        return x.elem
    if not isinstance(x, A.Array):
        raise TypeError(f"cannot index a {x}")
    consumed = kept = 0
    advanced = []
    for item in items:
        if item is None:
            kept += 1
        elif item is Ellipsis:
            continue
        elif isinstance(item, slice):
            consumed += 1
            kept += 1
        elif not isinstance(item, Slot):      # a constant int
            consumed += 1
        else:
            a = avals[item]
            if isinstance(a, A.Scalar) and a.dtype.kind in "iu":
                consumed += 1
            elif isinstance(a, A.Array) and a.dtype.kind in "iu":
                consumed += 1
                advanced.append(a.ndim)
            elif isinstance(a, A.Array) and a.dtype.kind == "b":
                consumed += a.ndim
                advanced.append(1)
            else:
                raise TypeError(f"an index must be an int, a slice, an int array or a boolean mask, not {a}")
    if consumed > x.ndim:
        raise TypeError(f"too many indices: {consumed} for an array of rank {x.ndim}")
    ndim = x.ndim - consumed + kept + (max(advanced) if advanced else 0)
    return A.Array(x.dtype, ndim) if ndim else A.Scalar(x.dtype)


def _getitem_infer(avals, params):
    return result_of_index(avals[0], params["index"], avals)


def _single_mask(items, avals, whole=True):
    """A lone n-d boolean mask (n > 1): Numba only takes 1-d masks, so we ravel.  ``whole``:
    one that covers every axis of the array (a mask of its leading axes only selects
    sub-arrays, which neither ravelling nor ``np.where`` gives)."""
    return (len(items) == 1 and isinstance(items[0], Slot)
            and isinstance(avals[items[0]], A.Array) and avals[items[0]].dtype.kind == "b"
            and avals[items[0]].ndim > 1 and (not whole or avals[items[0]].ndim == avals[0].ndim))


def _getitem_emit(args, params, avals):
    items = params["index"]
    if _single_mask(items, avals):
        return f"{args[0]}.ravel()[{args[items[0]]}.ravel()]"
    if _single_mask(items, avals, whole=False):
        return f"rt.mask_take({args[0]}, {args[items[0]]})"
    return f"{args[0]}[{index_text(items, args)}]"


def concrete_index(items, args):
    """The NumPy index that ``items`` describes, given the argument values."""
    def value(v):
        return args[v] if isinstance(v, Slot) else v
    return tuple(slice(value(i.start), value(i.stop), value(i.step)) if isinstance(i, slice)
                 else value(i) for i in items)


def _getitem_impl(x, *rest, index):
    return x[concrete_index(index, (x, *rest))]


Primitive("getitem", _getitem_impl, _getitem_infer, _getitem_emit)


def _setitem_infer(avals, params):
    x, value = avals[0], avals[1]
    target = result_of_index(x, params["index"], avals)
    if isinstance(x, A.ListOf):
        joined = A.join(x.elem, value)
        # a NumPy scalar goes where Python numbers of its dtype are (np.sum(x) into [0.0] * n)
        same_dtype = isinstance(joined, A.Scalar) and isinstance(x.elem, A.Scalar) and joined.dtype == x.elem.dtype
        if joined != x.elem and not same_dtype:
            raise TypeError(f"cannot store a {value} in a {x}")
        return x
    if isinstance(value, A.Array) and (not isinstance(target, A.Array) or value.ndim > target.ndim):
        raise TypeError(f"cannot assign a {value} to x[...] of type {target}")
    if np.result_type(x.dtype, value.dtype) != x.dtype and not A.is_float(x.dtype):
        raise TypeError(f"storing {value} into a {x} would lose precision")
    return x


def _setitem_emit(args, params, avals):
    items = params["index"]
    if _single_mask(items, avals) and isinstance(avals[1], A.Scalar):
        return f"{args[0]}[...] = np.where({args[items[0]]}, {args[1]}, {args[0]})"
    if _single_mask(items, avals, whole=False):
        return f"rt.mask_put({args[0]}, {args[items[0]]}, {args[1]})"
    return f"{args[0]}[{index_text(items, args)}] = {args[1]}"


def _setitem_impl(x, value, *rest, index):
    x[concrete_index(index, (x, value, *rest))] = value
    return x


Primitive("setitem", _setitem_impl, _setitem_infer, _setitem_emit, mutates=True)


# --- scatter-add: the adjoint of reading with an integer array --------------------
from numba import types  # noqa: E402
from numba.extending import overload  # noqa: E402


def index_add(x, index, values):
    """``x[index] += values`` where repeated indices add up (``np.add.at``)."""
    np.add.at(x, index, values)
    return x


@overload(index_add)
def _index_add_numba(x, index, values):
    if isinstance(index, types.Array) and index.ndim == 1:
        if not isinstance(values, types.Array):          # np.add.at(counts, idx, 1)
            def impl_number(x, index, values):
                for k in range(index.size):
                    x[index[k]] += values
                return x
            return impl_number

        def impl(x, index, values):
            # values broadcast against x[index], as np.add.at's do (one row for every index)
            v = np.broadcast_to(values, (index.size,) + x.shape[1:])
            for k in range(index.size):
                x[index[k]] += v[k]
            return x
        return impl
    if isinstance(index, types.BaseTuple):
        return _index_add_tuple(list(index.types), isinstance(values, types.Array))


def _index_add_tuple(kinds, array_values):
    """``x[s0, ..., a0, a1, ...] += values`` under Numba, for leading slices then 1-d integer
    arrays of one length (``Q[:, rows, cols] += v``, ``logits[np.arange(n), labels]``):
    generated loops, one per slice, then one over the index arrays."""
    n_slices = 0
    while n_slices < len(kinds) and isinstance(kinds[n_slices], types.SliceType):
        n_slices += 1
    arrays = kinds[n_slices:]
    if not arrays or not all(isinstance(t, types.Array) and t.ndim == 1 and isinstance(t.dtype, types.Integer)
                             for t in arrays):
        return None
    lines = ["def impl(x, index, values):"]
    lines.append(f"    v = x[{', '.join(f'index[{j}]' for j in range(n_slices))}]" if n_slices else "    v = x")
    if array_values:                  # broadcast against x[index], as np.add.at's values are
        lines.append(f"    vals = np.broadcast_to(values, v.shape[:{n_slices}] + (index[{n_slices}].size,)"
                     f" + v.shape[{n_slices + len(arrays)}:])")
    counters = [f"s{j}" for j in range(n_slices)]
    depth = 1
    for j, c in enumerate(counters):
        lines.append("    " * depth + f"for {c} in range(v.shape[{j}]):")
        depth += 1
    lines.append("    " * depth + "for k in range(index[%d].size):" % n_slices)
    depth += 1
    where = counters + [f"index[{n_slices + j}][k]" for j in range(len(arrays))]
    source = ("vals[" + ", ".join(counters + ["k"]) + "]") if array_values else "values"
    lines.append("    " * depth + f"v[{', '.join(where)}] += {source}")
    lines.append("    return x")
    namespace = {"np": np}
    exec("\n".join(lines), namespace)
    return namespace["impl"]


def _slice_text(item, args):
    bounds = [("None" if b is None else args[b] if isinstance(b, Slot) else literal(b))
              for b in (item.start, item.stop, item.step)]
    return f"slice({', '.join(bounds)})"


def mask_take(x, mask):
    """``x[mask]`` for a boolean ``mask`` of ``x``'s leading axes (two or more; Numba takes
    1-d masks only): the selected sub-arrays, stacked."""
    return x[mask]


@overload(mask_take)
def _mask_take_numba(x, mask):
    covered = mask.ndim

    def impl(x, mask):
        n = 0
        for idx in np.ndindex(mask.shape):
            if mask[idx]:
                n += 1
        out = np.empty((n,) + x.shape[covered:], x.dtype)
        k = 0
        for idx in np.ndindex(mask.shape):
            if mask[idx]:
                out[k] = x[idx]
                k += 1
        return out
    return impl


def mask_put(x, mask, values):
    """``x[mask] = values`` for a boolean ``mask`` of more than one dimension (Numba
    takes 1-d masks only)."""
    x[mask] = values
    return x


@overload(mask_put)
def _mask_put_numba(x, mask, values):
    if isinstance(values, types.Array):
        def impl(x, mask, values):
            k = 0
            for idx in np.ndindex(mask.shape):
                if mask[idx]:
                    x[idx] = values[k]
                    k += 1
            return x
        return impl

    def impl_number(x, mask, values):
        for idx in np.ndindex(mask.shape):
            if mask[idx]:
                x[idx] = values
        return x
    return impl_number


def mask_add(x, mask, values):
    """``x[mask] += values`` for a boolean ``mask`` of more than one dimension (Numba
    takes 1-d masks only): the adjoint of reading ``x[mask]``."""
    x[mask] += values
    return x


@overload(mask_add)
def _mask_add_numba(x, mask, values):
    if isinstance(values, types.Array):
        def impl(x, mask, values):
            k = 0
            for idx in np.ndindex(mask.shape):
                if mask[idx]:
                    x[idx] += values[k]
                    k += 1
            return x
        return impl

    def impl_number(x, mask, values):
        for idx in np.ndindex(mask.shape):
            if mask[idx]:
                x[idx] += values
        return x
    return impl_number


def _index_add_emit(args, params, avals):
    items = params["index"]
    if _single_mask(items, avals, whole=False):
        return f"rt.mask_add({args[0]}, {args[items[0]]}, {args[1]})"
    fancy = any(isinstance(i, Slot) and isinstance(avals[i], A.Array) and avals[i].dtype.kind in "iu"
                for i in items)
    if not fancy:                     # no index can repeat: a plain in-place add
        return f"{args[0]}[{index_text(items, args)}] += {args[1]}"
    parts = [_slice_text(i, args) if isinstance(i, slice) else args[i] if isinstance(i, Slot)
             else literal(i) for i in items]
    index = parts[0] if len(parts) == 1 else f"({', '.join(parts)},)"
    return f"rt.index_add({args[0]}, {index}, {args[1]})"


def _index_add_impl(x, values, *rest, index):
    return index_add(x, concrete_index(index, (x, values, *rest)), values)


Primitive("index_add", _index_add_impl, lambda avals, params: avals[0], _index_add_emit, mutates=True)


def index_add_at(x, positions, values):
    """``x.flat[positions] += values`` where repeated positions add up (x C-contiguous)."""
    np.add.at(x.reshape(-1), np.ravel(positions), np.ravel(values))
    return x


@overload(index_add_at)
def _index_add_at_numba(x, positions, values):
    if isinstance(values, types.Array):
        def impl(x, positions, values):
            flat, where, v = x.reshape(-1), positions.ravel(), values.ravel()
            for k in range(where.size):
                flat[where[k]] += v[k]
            return x
        return impl

    def impl_number(x, positions, values):
        flat, where = x.reshape(-1), positions.ravel()
        for k in range(where.size):
            flat[where[k]] += values
        return x
    return impl_number


def _tuple_pattern(items, avals):
    """Leading slices, then 1-d integer arrays: the index ``rt.index_add`` loops over."""
    kinds = ["slice" if isinstance(i, slice) else "array" if isinstance(i, Slot) and isinstance(avals[i], A.Array)
             and avals[i].ndim == 1 and avals[i].dtype.kind in "iu" else "other" for i in items]
    n = kinds.index("array") if "array" in kinds else len(kinds)
    return n < len(kinds) and all(k == "slice" for k in kinds[:n]) and all(k == "array" for k in kinds[n:])


from sstad.runtime.primitive import lowering  # noqa: E402


@lowering("numba", "index_add")
def _index_add_numba_emit(args, params, avals):
    """Other mixes of integers, slices and integer arrays (``x[[0, 1], :, :]``,
    ``x[3, 2:, [1, 3]]``): the flat positions the same read gives, read from an array of
    positions as the forward read is written, so Numba lays them out as it laid out the read."""
    items = params["index"]
    text = _index_add_emit(args, params, avals)
    if not text.startswith("rt.index_add(") or _tuple_pattern(items, avals):
        return text
    x = args[0]
    positions = f"np.arange({x}.size).reshape({x}.shape)[{index_text(items, args)}]"
    return f"rt.index_add_at({x}, {positions}, {args[1]})"


# --- take, sort: indexing by computed positions ----------------------------------
from sstad.runtime.primitive import defvjp, emit_call, nondiff, numpy_primitive  # noqa: E402

def _take_infer(avals, params):
    """``np.take``'s rank: the indices' rank, plus the other axes when ``axis`` is given
    (not asked of NumPy on stand-ins: a constant index may exceed their length)."""
    pos, kw = params["layout"]
    given = dict(zip(("a", "indices", "axis", "out", "mode"), pos), **kw)
    indices, axis = given["indices"], given.get("axis")
    if given.get("mode", "raise") not in ("raise", "wrap", "clip"):
        raise ValueError(f"mode={given['mode']!r}: use one of 'raise', 'wrap' or 'clip'")
    index_ndim = avals[indices].ndim if isinstance(indices, Slot) and isinstance(avals[indices], A.Array) \
        else 0 if isinstance(indices, Slot) else np.ndim(indices)
    a = avals[0]
    ndim = index_ndim + (a.ndim - 1 if axis is not None and isinstance(a, A.Array) else 0)
    return A.Array(a.dtype, ndim) if ndim else A.Scalar(a.dtype)


numpy_primitive("take", np.take, _take_infer)


@lowering("numba", "take")
def _take_numba(args, params, avals):
    """Numba's np.take has no ``mode``: the positions it reads, by ``_in_range``'s rule."""
    pos, kw = params["layout"]
    given = dict(zip(("a", "indices", "axis", "out", "mode"), pos), **kw)
    mode = given.pop("mode", "raise")
    if mode == "raise":
        return emit_call("np.take")(args, params, avals)
    a, indices, axis = (text_of(given.get(k), args) for k in ("a", "indices", "axis"))
    if isinstance(given["indices"], (tuple, list)):      # a constant list: Numba's ufuncs take arrays
        indices = f"np.array({indices})"
    n = f"{a}.size" if given.get("axis") is None else f"{a}.shape[{axis}]"
    inside = f"np.mod({indices}, {n})" if mode == "wrap" else f"np.minimum(np.maximum({indices}, 0), {n} - 1)"
    return f"np.take({a}, {inside}{'' if given.get('axis') is None else ', ' + axis})"
numpy_primitive("sort", np.sort)
numpy_primitive("argsort", np.argsort)
nondiff("argsort")


def _in_range(indices, n, mode):
    """The positions ``np.take(..., mode=mode)`` reads: ``'wrap'`` counts around the axis,
    ``'clip'`` stops at its ends (negative indices too: they read the first item)."""
    if mode == "wrap":
        return np.mod(indices, n)
    if mode == "clip":
        return np.clip(indices, 0, n - 1)
    return indices


@defvjp("take")
def _(a, indices, out, dout, axis=None, mode="raise"):
    indices = _in_range(np.asarray(indices), np.size(a) if axis is None else np.shape(a)[axis], mode)
    if axis is None:              # NumPy takes from the flattened array
        flat = index_add(np.zeros_like(np.ravel(a)), np.ravel(indices), np.ravel(dout))
        return (np.reshape(flat, np.shape(a)), None)
    if np.ndim(indices) == 0:     # one index: that axis is gone from the result
        indices = np.full(1, indices)
        dout = np.expand_dims(dout, axis)
    if np.ndim(indices) != 1:
        raise ValueError("the derivative of np.take along an axis takes a 1-d array of indices")
    moved = index_add(np.zeros_like(np.swapaxes(a, 0, axis)), indices, np.swapaxes(dout, 0, axis))
    return (np.swapaxes(moved, 0, axis), None)


@defvjp("sort")
def _(a, out, dout, axis=-1, kind=None):
    if axis is None:              # NumPy sorts the flattened array
        flat = add_along_axis(np.zeros_like(np.ravel(a)), np.argsort(np.ravel(a)), dout, 0)
        return (np.reshape(flat, np.shape(a)),)
    if a.ndim == 1:
        dx = np.zeros_like(a)
        dx[np.argsort(a)] = dout
        return (dx,)
    return (add_along_axis(np.zeros_like(a), np.argsort(a, axis=axis), dout, axis % a.ndim),)


# --- take_along_axis: its adjoint scatters back along the same axis -----------------
numpy_primitive("take_along_axis", np.take_along_axis)


def add_along_axis(x, indices, values, axis):
    """``x`` plus ``values`` scattered to ``indices`` along ``axis`` (repeats add up):
    the adjoint of ``np.take_along_axis``, whose ``indices`` broadcast against ``x`` away
    from ``axis`` (``values`` has the broadcast shape; an axis of length 1 of ``x`` takes
    the sum).  Returns a new array."""
    out = x.copy()
    index = list(np.indices(np.shape(values), sparse=True))
    for d, n in enumerate(x.shape):
        if n == 1:
            index[d] = np.zeros_like(index[d])
    index[axis] = np.broadcast_to(indices, np.shape(values))
    np.add.at(out, tuple(index), values)
    return out


@overload(add_along_axis)
def _add_along_axis_numba(x, indices, values, axis):
    if x.ndim == 1:                                      # the sorts' adjoint: kept tight
        def impl_vector(x, indices, values, axis):
            out = x.copy()
            for k in range(indices.size):
                out[indices[k]] += values[k]
            return out
        return impl_vector

    def impl(x, indices, values, axis):
        out = x.copy()
        flat = out.reshape(out.size)                    # a view: the copy is C-contiguous
        at = np.ascontiguousarray(np.broadcast_to(indices, values.shape)).reshape(values.size)
        vals = np.ascontiguousarray(values).reshape(values.size)
        step = np.ones(out.ndim, np.int64)               # C strides of out, in elements
        for d in range(out.ndim - 2, -1, -1):
            step[d] = step[d + 1] * out.shape[d + 1]
        k = 0
        for idx in np.ndindex(values.shape):
            offset = 0
            for d in range(out.ndim):
                if d == axis:
                    i = at[k] + out.shape[d] if at[k] < 0 else at[k]
                else:
                    i = idx[d] if out.shape[d] > 1 else 0
                offset += i * step[d]
            flat[offset] += vals[k]
            k += 1
        return out
    return impl


numpy_primitive("add_along_axis", add_along_axis, emit=emit_call("rt.add_along_axis"))


@defvjp("add_along_axis")
def _(x, indices, values, axis, out, dout):
    return (dout, None, np.take_along_axis(dout, indices, axis), None)


@defvjp("take_along_axis")
def _(x, indices, out, dout, axis=-1):
    if axis is None:                       # NumPy takes along the flattened array
        flat = add_along_axis(np.zeros_like(np.ravel(x)), indices, dout, 0)
        return (np.reshape(flat, np.shape(x)), None)
    return (add_along_axis(np.zeros_like(x), indices, dout, axis % np.ndim(x)), None)


from sstad.runtime.primitive import declare, lowering, text_of  # noqa: E402


@lowering("numba", "take_along_axis")
def _take_along_axis_numba(args, params, avals):
    """Numba's np.take_along_axis takes no default axis: NumPy's is -1."""
    (arr, indices, *rest), kw = params["layout"]
    axis = rest[0] if rest else kw.get("axis", -1)
    return f"np.take_along_axis({text_of(arr, args)}, {text_of(indices, args)}, {text_of(axis, args)})"


declare("getitem", may_alias=True, multilinear=True)     # basic indexing gives a view
declare("take", "take_along_axis", multilinear=True)
declare("getitem", reads_list=True)                   # L[i] of a list
declare("index_add", per_element="+=")
declare("setitem", per_element="=")


def _sort_numba(arg):
    """Numba sorts 1-d arrays only: along an axis of a larger array, ``rt.sort_axis``."""
    def emit(args, params, avals):
        pos, kw = params["layout"]
        given = dict(zip(("a", "axis", "kind", "order"), pos), **kw)
        axis = given.get("axis", -1)
        if (avals[0].ndim == 1 and isinstance(axis, int) or axis is None) and set(given) <= {"a", "axis", "kind"}:
            # the one axis, named (np.sort(x, axis=0)), or the flattened array (axis=None):
            # Numba's sort takes no axis
            kind = f", kind={text_of(given['kind'], args)}" if "kind" in given and arg else ""
            a = text_of(given["a"], args) if avals[0].ndim == 1 else f"np.ravel({text_of(given['a'], args)})"
            return f"np.{'argsort' if arg else 'sort'}({a}{kind})"
        if avals[0].ndim <= 1 or axis is None or isinstance(axis, Slot) or set(given) - {"a", "axis", "kind"}:
            return emit_call("np.argsort" if arg else "np.sort")(args, params, avals)
        helper = "argsort_axis" if arg else "sort_axis"
        return f"rt.{helper}({text_of(given['a'], args)}, {axis % avals[0].ndim})"
    return emit


lowering("numba", "sort")(_sort_numba(False))
lowering("numba", "argsort")(_sort_numba(True))
