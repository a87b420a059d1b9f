"""``np.einsum`` in a canonical form (explicit output), and its Numba lowering.

Numba has no ``np.einsum``: under the numba backend a call becomes ``rt.einsum(spec,
...)``, whose Numba implementation is generated for the literal subscripts and the
operands' ranks as plain nested loops (a product summed over the indices not in the
output).  The ``...`` ellipsis is not supported there.
"""
import numpy as np
import numba
from numba.core import types
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from sstad.runtime.primitive import Slot, emit_call, lowering, text_of


def explicit(spec):
    """``'ij,jk'`` -> ``'ij,jk->ik'``: NumPy's implicit output made explicit (the indices
    that appear once, in alphabetical order)."""
    spec = spec.replace(" ", "")
    if "->" in spec:
        return spec
    letters = spec.replace(",", "")
    return spec + "->" + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))


LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def from_sublists(items):
    """``np.einsum(a, [0, 1], b, [1, 2], [0, 2])`` -> ``('ab,bc->ac', [a, b])``: NumPy's
    sublist form as subscripts (``items``: operands and sublists of ints or ``...``)."""
    output = items[-1] if len(items) % 2 else None
    pairs = items[:len(items) - len(items) % 2]

    def letters(sublist):
        return "".join("..." if i is Ellipsis else LETTERS[i] for i in sublist)
    spec = ",".join(letters(sub) for sub in pairs[1::2])
    if output is not None:
        spec += "->" + letters(output)
    return spec, list(pairs[0::2])


def without_ellipsis(spec, ranks):
    """``'...ij,...jk->...ik'`` for operands of these ranks -> letters for the batch axes
    (``'aij,ajk->aik'``), NumPy's implicit output made explicit: one form for every
    backend and for the reverse rule."""
    spec = spec.replace(" ", "")
    if "..." not in spec:
        return spec
    inputs, arrow, output = spec.partition("->")
    subscripts = inputs.split(",")
    if not arrow:
        named = inputs.replace(",", "").replace(".", "")
        output = "..." + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    batch_ranks = [rank - (len(s) - 3) for s, rank in zip(subscripts, ranks) if "..." in s]
    n = max(batch_ranks + [0])
    batch = "".join(c for c in LETTERS if c not in spec)[:n]
    subscripts = [s.replace("...", batch[n - (rank - (len(s) - 3)):]) if "..." in s else s
                  for s, rank in zip(subscripts, ranks)]
    return ",".join(subscripts) + "->" + output.replace("...", batch)


def einsum(spec, *operands):
    """``np.einsum(spec, *operands)``, also under Numba (see the module docstring)."""
    return np.einsum(spec, *operands)


def _loops(spec, ndims):
    """Python source of the loop nest for ``spec`` (explicit, no ellipsis)."""
    inputs, output = spec.split("->")
    subscripts = inputs.split(",")
    if len(subscripts) != len(ndims) or any(len(s) != n for s, n in zip(subscripts, ndims)):
        raise numba.core.errors.TypingError(f"einsum {spec!r}: subscripts do not match the operands' ranks")
    letters = list(dict.fromkeys("".join(subscripts)))
    lines = ["def impl(spec, *operands):"]
    for k in range(len(subscripts)):
        lines.append(f"    a{k} = operands[{k}]")
    for c in letters:
        k = next(k for k, s in enumerate(subscripts) if c in s)
        lines.append(f"    n_{c} = a{k}.shape[{subscripts[k].index(c)}]")
    if output:
        lines.append(f"    out = np.zeros(({', '.join('n_' + c for c in output)},), DTYPE)")
    else:
        lines.append("    out = DTYPE(0)")
    depth = 1
    for c in letters:
        lines.append("    " * depth + f"for {c} in range(n_{c}):")
        depth += 1
    product = " * ".join(f"a{k}[{', '.join(s)}]" if s else f"a{k}" for k, s in enumerate(subscripts))
    target = f"out[{', '.join(output)}]" if output else "out"
    lines.append("    " * depth + f"{target} += {product}")
    lines.append("    return out")
    return "\n".join(lines)


@overload(einsum)
def _einsum_numba(spec, *operands):
    if not isinstance(spec, types.StringLiteral):
        return lambda spec, *operands: numba.literally(spec)
    text = explicit(spec.literal_value)
    if "." in text:
        raise numba.core.errors.TypingError("einsum with `...` is not supported under Numba")
    ndims = [getattr(op, "ndim", 0) for op in operands]
    dtype = np.result_type(*[as_dtype(getattr(op, "dtype", op)) for op in operands])
    namespace = {"np": np, "DTYPE": dtype.type}
    exec(_loops(text, ndims), namespace)
    return namespace["impl"]


@lowering("numba", "einsum")
def _einsum_emit(args, params, avals):
    pos, kw = params["layout"]
    if kw or not isinstance(pos[0], str):
        return emit_call("np.einsum")(args, params, avals)     # Numba will refuse it at your line
    operands = ", ".join(text_of(p, args) for p in pos[1:])
    return f"rt.einsum({explicit(pos[0])!r}, {operands})"


def tensordot_spec(ndim_a, ndim_b, axes):
    """The einsum subscripts of ``np.tensordot(a, b, axes)`` for arrays of these ranks."""
    if isinstance(axes, int):
        pairs = list(zip(range(ndim_a - axes, ndim_a), range(axes)))
    else:
        first, second = ((ax,) if isinstance(ax, int) else tuple(ax) for ax in axes)
        pairs = [(i % ndim_a, j % ndim_b) for i, j in zip(first, second)]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    a = [next(letters) for _ in range(ndim_a)]
    b = [next(letters) for _ in range(ndim_b)]
    for i, j in pairs:
        b[j] = a[i]
    contracted_a = {i for i, _ in pairs}
    contracted_b = {j for _, j in pairs}
    out = [c for k, c in enumerate(a) if k not in contracted_a] + [c for k, c in enumerate(b) if k not in contracted_b]
    return f"{''.join(a)},{''.join(b)}->{''.join(out)}"


@lowering("numba", "tensordot")
def _tensordot_emit(args, params, avals):
    """Numba has no np.tensordot: the same contraction as generated einsum loops."""
    pos, kw = params["layout"]
    given = dict(zip(("a", "b", "axes"), pos), **kw)
    axes = given.get("axes", 2)
    if isinstance(axes, Slot) or any(isinstance(x, Slot) for x in (axes if isinstance(axes, tuple) else ())):
        return emit_call("np.tensordot")(args, params, avals)
    spec = tensordot_spec(getattr(avals[0], "ndim", 0), getattr(avals[1], "ndim", 0), axes)
    return f"rt.einsum({spec!r}, {text_of(given['a'], args)}, {text_of(given['b'], args)})"
