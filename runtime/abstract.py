"""Abstract values: what the compiler knows about a runtime value before it exists.

Compilation is specialised per signature, so an abstract value records exactly what
Numba needs to type the emitted code: the dtype, and for arrays the rank.  Shapes stay
dynamic.  Python scalars are *weak* (NEP 50): ``x32 * 2.0`` stays float32.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Scalar:
    dtype: np.dtype
    weak: bool = False

    def __str__(self):
        return short(self.dtype) + ("~" if self.weak else "")


@dataclass(frozen=True)
class Array:
    dtype: np.dtype
    ndim: int

    def __str__(self):
        return f"{short(self.dtype)}[{','.join(':' * self.ndim)}]"


@dataclass(frozen=True)
class ListOf:
    """A Python list built at run time (``[]`` then ``.append``, comprehensions)."""
    elem: object

    def __str__(self):
        return f"list[{self.elem}]"


class _Unknown:
    """Not yet known: a loop-carried or recursive value during the type fixpoint."""

    def __repr__(self):
        return "?"


UNKNOWN = _Unknown()

F64 = Scalar(np.dtype(np.float64))
I64 = Scalar(np.dtype(np.int64))
BOOL = Scalar(np.dtype(np.bool_))

_SHORT = {"float64": "f64", "float32": "f32", "int64": "i64", "int32": "i32", "bool": "bool",
          "complex128": "c128", "complex64": "c64"}


def short(dtype):
    return _SHORT.get(np.dtype(dtype).name, np.dtype(dtype).name)


ARRAY_TYPES = []     # array types of other memories a backend accepts (device arrays)


def of_value(value):
    """The abstract value of a runtime leaf, or None if it is not a number or array."""
    if ARRAY_TYPES and isinstance(value, tuple(ARRAY_TYPES)):
        return Array(np.dtype(value.dtype), value.ndim)
    if isinstance(value, np.generic):      # first: np.float64 is a float, np.complex128 a complex,
        return Scalar(value.dtype)         # yet strong (np.sum(x) * x32 is float64, as NumPy has it)
    if isinstance(value, bool):
        return Scalar(np.dtype(np.bool_), weak=True)
    if isinstance(value, int):
        return Scalar(np.dtype(np.int64), weak=True)
    if isinstance(value, float):
        return Scalar(np.dtype(np.float64), weak=True)
    if isinstance(value, complex):
        return Scalar(np.dtype(np.complex128), weak=True)
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return Scalar(value.dtype)
        return Array(value.dtype, value.ndim)
    return None


def prototype(aval):
    """A small concrete value of this abstract value, used to ask NumPy for result types."""
    if isinstance(aval, Scalar):
        if aval.dtype.kind == "b":
            return True if aval.weak else np.True_
        one = np.ones((), aval.dtype) * (0.5 if is_inexact(aval.dtype) else 1)
        return one.item() if aval.weak else one[()]
    if isinstance(aval, Array):     # int arrays hold 0: always a valid index
        return np.full((1,) * aval.ndim, 0.5 if is_inexact(aval.dtype) else 0, aval.dtype)
    if isinstance(aval, ListOf):
        return [prototype(aval.elem)]
    raise TypeError(f"no prototype for {aval}")


def join(a, b):
    """The least abstract value that holds both, or None if none does (type instability)."""
    if a is UNKNOWN:
        return b
    if b is UNKNOWN or a == b:
        return a
    if isinstance(a, Scalar) and isinstance(b, Scalar):
        return Scalar(np.result_type(a.dtype, b.dtype), weak=a.weak and b.weak)
    if isinstance(a, Array) and isinstance(b, Array) and a.ndim == b.ndim:
        return Array(np.result_type(a.dtype, b.dtype), a.ndim)
    if isinstance(a, ListOf) and isinstance(b, ListOf):
        elem = join(a.elem, b.elem)
        return None if elem is None else ListOf(elem)
    return None


@functools.lru_cache(maxsize=None)
def is_float(dtype):
    """A real floating-point dtype: NumPy's (kind ``"f"``) or ml_dtypes' (``bfloat16``,
    ``float8_*``, whose kind is ``"V"``).  ml_dtypes is asked only once a program has
    imported it (its dtypes come from nowhere else)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return True
    ml_dtypes = sys.modules.get("ml_dtypes")
    if ml_dtypes is None or dtype.kind != "V":
        return False
    try:
        ml_dtypes.finfo(dtype)
    except (ValueError, TypeError):
        return False
    return True


def is_inexact(dtype):
    """Float or complex: a dtype that carries derivatives."""
    return is_float(dtype) or np.dtype(dtype).kind == "c"


def is_numeric(aval):
    return isinstance(aval, (Scalar, Array))
