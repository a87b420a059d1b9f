"""The primitive table: one entry per primitive, defined once.

A primitive carries its NumPy implementation (the semantics; also what the python
backend ends up running), its type rule (abstract values in, abstract value out) and
how the emitted Python spells it.  Derivative rules attach to the same object, next to
the implementation, in the family modules (elementwise, reduce, shape, index, ...).

Arguments that NumPy takes as nested structures (``np.zeros((n, m))``,
``np.concatenate((a, b))``) are flattened into the application's atoms; the structure
is kept as a *layout*: the same nested tuples with :class:`Slot` markers where atoms go.
"""
from __future__ import annotations

import warnings

import numpy as np

from sstad.runtime import abstract as A

PRIMITIVES: dict[str, "Primitive"] = {}
NUMPY_FUNCTIONS: dict[int, str] = {}   # id(np.sin) -> "sin": how the frontend finds primitives


class Primitive:
    """A primitive operation.

    ``infer(avals, params)`` gives the result's abstract value; ``emit(args, params,
    avals)`` the Python expression, from the argument texts.  A primitive that ``mutates``
    updates its first argument in place and its result is the new version of it.
    """

    def __init__(self, name, impl, infer, emit, mutates=False, elementwise=False):
        self.name = name
        self.impl = impl
        self.infer = infer
        self.emit = emit
        self.mutates = mutates
        self.elementwise = elementwise
        self.vjp = None          # rule(*args, out, dout, **params) -> cotangents, per argument
        self.nondiff = False     # a float result whose derivative is zero (floor, sign...)
        if name in PRIMITIVES:
            raise ValueError(f"primitive {name!r} defined twice")
        PRIMITIVES[name] = self

    def __repr__(self):
        return self.name

    @property
    def ufunc(self):
        """An elementwise NumPy ufunc or arithmetic operator: it broadcasts its arguments
        and has no other structure (what Numba fuses, what keeps a shape)."""
        return self.elementwise and not self.mutates and (
            isinstance(self.impl, np.ufunc) or self.name.startswith("op."))


def lookup(name):
    return PRIMITIVES[name]


def defvjp(*names):
    """Attach a reverse-mode rule to primitives: ``rule(*args, out, dout, **params)``
    returns one cotangent per argument (None where there is none).  Rules are plain
    Python over NumPy; the compiler parses and inlines them like user code."""
    def register(rule):
        for name in names:
            PRIMITIVES[name].vjp = rule
        return rule
    return register


def nondiff(*names):
    """Primitives whose result is piecewise constant: zero derivative."""
    for name in names:
        PRIMITIVES[name].nondiff = True


class Slot(int):
    """In a layout: 'the atom at this position of the argument list'."""


def fill(layout, values):
    """Rebuild a layout with ``values[slot]`` at each slot."""
    if isinstance(layout, Slot):
        return values[layout]
    if isinstance(layout, tuple):
        return tuple(fill(item, values) for item in layout)
    if isinstance(layout, dict):
        return {k: fill(v, values) for k, v in layout.items()}
    return layout


def literal(value):
    """Python source for a static value: numbers, strings, None, slices, dtypes."""
    if isinstance(value, type) and issubclass(value, np.generic):
        return f"np.{value.__name__}"
    if isinstance(value, np.dtype):
        return f"np.{value.name}"
    if value is float or value is int or value is bool or value is complex:
        return value.__name__
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, float) and not np.isfinite(value):
        return f"np.{'nan' if np.isnan(value) else 'inf' if value > 0 else '-np.inf'}"
    if isinstance(value, np.generic):
        return f"np.{value.dtype.name}({value.item()!r})"
    if value is Ellipsis:
        return "..."
    text = repr(value)
    return f"({text})" if text.startswith("-") else text


def text_of(layout, texts):
    """Python source of a layout whose slots are already printed atoms."""
    if isinstance(layout, Slot):
        return texts[layout]
    if isinstance(layout, tuple):
        inner = ", ".join(text_of(v, texts) for v in layout)
        return f"({inner},)" if len(layout) == 1 else f"({inner})"
    return literal(layout)


# --- type rules -------------------------------------------------------------------

def run_on_prototypes(impl, avals, params):
    """Run ``impl`` on tiny stand-ins of the arguments and return its result's type."""
    protos = [A.prototype(a) for a in avals]
    layout = params.get("layout")
    args, kwargs = fill(layout, protos) if layout is not None else (protos, {})
    static = {k: v for k, v in params.items() if k != "layout"}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = impl(*args, **kwargs, **static)
    aval = A.of_value(out)
    if aval is None:
        raise TypeError(f"unexpected result of type {type(out).__name__}")
    return aval


def by_prototype(impl):
    """Type rule that asks NumPy itself: run ``impl`` on prototypes of the arguments."""
    return lambda avals, params: run_on_prototypes(impl, avals, params)


# --- emit rules -------------------------------------------------------------------

def emit_call(fname):
    """``fname(a, b, key=value)``; a ``layout`` param gives nested argument structure."""
    def emit(args, params, avals):
        layout = params.get("layout")
        if layout is not None:
            pos, kw = layout
            parts = [text_of(p, args) for p in pos] + [f"{k}={text_of(v, args)}" for k, v in kw.items()]
        else:
            parts = list(args)
        parts += [f"{k}={literal(v)}" for k, v in params.items() if k != "layout"]
        return f"{fname}({', '.join(parts)})"
    return emit


def emit_binary(symbol):
    return lambda args, params, avals: f"{args[0]} {symbol} {args[1]}"


def emit_unary(symbol):
    return lambda args, params, avals: f"{symbol}{args[0]}"


def numpy_primitive(name, fn, infer=None, emit=None, **kw):
    """Register the NumPy function ``fn`` as primitive ``name``, emitted as ``np.name``."""
    prim = Primitive(name, fn, infer or by_prototype(fn), emit or emit_call(f"np.{name}"), **kw)
    NUMPY_FUNCTIONS[id(fn)] = name
    return prim
