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

import inspect
import itertools
import sys
import types
import warnings

import numpy as np

from sstad.runtime import abstract as A

PRIMITIVES: dict[str, "Primitive"] = {}
LOWERINGS: dict[str, dict] = {}   # backend name -> primitive name -> emit, where a backend
                                  # spells a primitive its own way (see sstad/backend/base.py)
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
        self.structural_vjp = None   # a reverse rule that builds IR itself (sstad/ad/structural.py)
        self.signature = None    # NumPy's signature: how calls and rules bind parameters
        # Declared properties, which passes and transforms ask (see `declare`):
        self.view = False        # the result is a NumPy view of the first argument
        self.may_alias = False   # the result may share memory with the first argument
        self.multilinear = False  # linear in each argument separately (forward mode's JVP)
        self.shape_only = frozenset()   # argument positions read only for their shape
        self.effect = False      # side effects, or results not a function of the operands:
                                 # never merged, moved or run at compile time
        self.fresh = False       # allocates memory it does not fill (np.empty): never merged
        self.identity = None     # (neutral constant, positions it may take): x * 1 is x
        self.shape_of = None     # the argument position whose shape the result has
        self.reads_list = False  # reads a run-time list's items (reverse mode keeps their adjoints)
        self.superlinear = False  # work grows faster than the result's size (matrix products,
                                  # linalg): reverse mode keeps the result rather than remake it
        self.new_memory = False  # the result is memory no argument shares (zeros_like, copy)
        self.repeatable = False  # an effect a second run of the function repeats harmlessly
                                 # (a check; work on a list the function made)
        self.inexact = False     # computes in float or complex (np.linalg): integer operands
                                 # arrive as float64, mixed precisions as the wider one
        self.once = False        # an effect seen outside (print): a copy that recomputes a
                                 # loop's body for its derivative leaves it out
        self.reduction = False   # reduces its first argument over ``axis``: the result's shape
                                 # follows from that argument's shape and the parameters
        self.matrix_product = False  # a @ b (operator or np.matmul): sums over b's rows can be
                                     # moved onto a (broadcasts)
        self.transcendental = False  # a library function per element (exp, tanh): dearer to
                                     # remake than to keep while an iteration runs
        self.smooth_at_complex = False  # nondiff on real numbers only: z / |z| (np.sign) of
                                        # a complex z changes with z
        self.per_element = None  # its form in a loop over the index (loop fusion), bit for bit:
                                 # "value" (out[i] = f(a[i], ...)), "update" (a[i] op= b[i]),
                                 # or the operator of ``x[index][i] op= v[i]`` ("+=", "=")
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


def lowering(backend, *names):
    """Spell primitives ``names`` another way on ``backend`` (its workaround for a
    feature it lacks): ``emit(args, params, avals) -> text``."""
    def register(emit):
        for name in names:
            LOWERINGS.setdefault(backend, {})[name] = emit
        return emit
    return register


def declare(*names, **properties):
    """Declare properties of primitives: ``view``, ``may_alias``, ``multilinear``,
    ``shape_only`` (argument positions), ``effect``, ``fresh``, ``identity``, ``shape_of``, ``reads_list``,
    ``superlinear``, ``new_memory``, ``per_element``, ``reduction``, ``repeatable``, ``once``, ``inexact``,
    ``matrix_product``, ``transcendental``, ``smooth_at_complex``.
    A view may alias too.  A primitive with effects must have a type rule that does not
    run it (``by_prototype`` runs the implementation on stand-ins)."""
    for name in names:
        prim = PRIMITIVES[name]
        for key, value in properties.items():
            if not hasattr(prim, key) or key in ("name", "impl", "infer", "emit", "vjp"):
                raise ValueError(f"unknown primitive property {key!r}")
            setattr(prim, key, frozenset(value) if key == "shape_only" else value)
        if prim.view:
            prim.may_alias = True
        if prim.effect and getattr(prim.infer, "runs_impl", False):
            raise ValueError(f"primitive {name!r} has effects: give it a type rule that does not run it")


def nondiff(*names):
    """Primitives whose result is piecewise constant: zero derivative."""
    for name in names:
        PRIMITIVES[name].nondiff = True


class Slot(int):
    """In a layout: 'the atom at this position of the argument list'."""

    def __repr__(self):
        # not the bare number: a layout's repr is a key (CSE, cached transposed rules), and
        # np.array([x, 0]) must not read as np.array([0, x])
        return f"Slot({int(self)})"


def fill(layout, values):
    """Rebuild a layout with ``values[slot]`` at each slot."""
    if isinstance(layout, Slot):
        return values[layout]
    if isinstance(layout, tuple):
        return tuple(fill(item, values) for item in layout)
    if isinstance(layout, dict):
        return {k: fill(v, values) for k, v in layout.items()}
    return layout


def dtype_text(dtype):
    """Python source for a dtype's scalar type: ``np.float32``, or for a type NumPy does not
    name (ml_dtypes' ``bfloat16``) ``np.dtype('bfloat16').type``."""
    dtype = np.dtype(dtype)
    if getattr(np, dtype.name, None) is dtype.type:
        return f"np.{dtype.name}"
    return f"np.dtype({dtype.name!r}).type"


def literal(value):
    """Python source for a static value: numbers, strings, None, slices, dtypes."""
    if isinstance(value, type) and issubclass(value, np.generic):
        return dtype_text(value)
    if isinstance(value, np.dtype):
        return dtype_text(value)
    if value is float or value is int or value is bool or value is complex:
        return value.__name__
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, float) and not np.isfinite(value):
        return 'np.nan' if np.isnan(value) else 'np.inf' if value > 0 else '(-np.inf)'
    if isinstance(value, np.generic):
        return f"{dtype_text(value.dtype)}({value.item()!r})"
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
    """Type rule that asks NumPy itself: run ``impl`` on prototypes of the arguments
    (only for pure functions: ``declare(..., effect=True)`` refuses it)."""
    def infer(avals, params):
        return run_on_prototypes(impl, avals, params)
    infer.runs_impl = True
    return infer


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
    prim.signature = signature_of(fn)
    NUMPY_FUNCTIONS[id(fn)] = name
    return prim


def public_name(fn):
    """How user code names the function ``fn``: ``np.diff``, ``np.linalg.norm``,
    ``np.add.reduce``, ``scipy.special.ndtr``, ``scipy.stats.norm.logpdf``,
    ``operator.add``: its module without the private parts, ``numpy`` as ``np``."""
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, np.ufunc):                          # a ufunc's method
        return f"{public_name(owner)}.{fn.__name__}"
    if isinstance(fn, types.MethodType):                      # a distribution's method
        module = _public_module(type(owner).__module__)
        found = [k for k, v in vars(sys.modules.get(module, types)).items() if v is owner]
        return f"{_as_np(module)}.{found[0] if found else type(owner).__name__}.{fn.__name__}"
    module = getattr(fn, "__module__", None)
    if isinstance(fn, np.ufunc) and module is None:           # SciPy's ufuncs do not know their module
        module = next((m for m in ("numpy", "scipy.special")
                       if getattr(sys.modules.get(m), fn.__name__, None) is fn), None)
    shown = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if not module:
        return shown
    top = module.split(".")[0]
    if top.startswith("_") and getattr(sys.modules.get(top.lstrip("_")), shown, None) is fn:
        module = top.lstrip("_")                              # _operator.add -> operator.add
    return f"{_as_np(_public_module(module))}.{shown}"


def _public_module(module):
    """``scipy.special._spfun_stats`` -> ``scipy.special``."""
    return ".".join(itertools.takewhile(lambda part: not part.startswith("_"), module.split("."))) or module


def _as_np(module):
    return "np" + module[5:] if module == "numpy" or module.startswith("numpy.") else module


_PUBLIC_PREFIXES = {"special.": "scipy.special.", "linalg.": "np.linalg.", "math.": "math."}


def shown_name(name):
    """A primitive's name as user code spells the function: ``np.roll``,
    ``np.linalg.svd``, ``scipy.special.erf``, ``math.sin``."""
    for prefix, public in _PUBLIC_PREFIXES.items():
        if name.startswith(prefix):
            return public + name[len(prefix):]
    return name if "." in name else "np." + name


# --- the binder: one way to match arguments to parameters -----------------------------
_P = inspect.Parameter
_UFUNC_KEYWORDS = [_P("out", _P.KEYWORD_ONLY, default=None), _P("where", _P.KEYWORD_ONLY, default=True),
                   _P("casting", _P.KEYWORD_ONLY, default="same_kind"),
                   _P("order", _P.KEYWORD_ONLY, default="K"), _P("dtype", _P.KEYWORD_ONLY, default=None),
                   _P("subok", _P.KEYWORD_ONLY, default=True)]


def signature_of(fn):
    """NumPy's signature of ``fn`` (ufuncs: ``x`` or ``x1, x2`` and their keywords)."""
    if isinstance(fn, np.ufunc):
        inputs = ["x"] if fn.nin == 1 else [f"x{k + 1}" for k in range(fn.nin)]
        return inspect.Signature([_P(n, _P.POSITIONAL_ONLY) for n in inputs] + _UFUNC_KEYWORDS)
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def bind(signature, args, kwargs):
    """Arguments as written -> the canonical call: every parameter given, by name, in the
    signature's order, split into the longest positional prefix and keywords.

    Two calls that mean the same thing bind to the same form (``np.roll(x, 2, 1)`` and
    ``np.roll(x, shift=2, axis=1)``); ``TypeError`` (Python's message) for a call NumPy
    would refuse.  Without a signature the call stays as written."""
    if signature is None:
        return tuple(args), dict(kwargs)
    bound = signature.bind(*args, **kwargs).arguments
    pos, kw = [], {}
    gap = False               # after a left-out parameter, the rest can only go by name
    for p in signature.parameters.values():
        if p.name not in bound:
            gap = gap or p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
            continue
        value = bound[p.name]
        if p.kind is _P.VAR_POSITIONAL:
            pos.extend(value)
        elif p.kind is _P.VAR_KEYWORD:
            kw.update(value)
        elif p.kind is _P.KEYWORD_ONLY or gap:
            kw[p.name] = value
        else:
            pos.append(value)
    return tuple(pos), kw


def parameters(signature, pos, kw):
    """The canonical call ``(pos, kw)`` as ``[(parameter name, value), ...]``, in order.

    Without a signature positions are named ``#0``, ``#1``, ..."""
    if signature is None:
        return [(f"#{k}", v) for k, v in enumerate(pos)] + list(kw.items())
    names = [p.name for p in signature.parameters.values()
             if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)]
    var = next((p.name for p in signature.parameters.values() if p.kind is _P.VAR_POSITIONAL), None)
    named = [(names[k] if k < len(names) else f"{var}[{k - len(names)}]", v) for k, v in enumerate(pos)]
    return named + list(kw.items())


def default_of(signature, name):
    """The parameter's default, or ``inspect.Parameter.empty``."""
    if signature is None or name not in signature.parameters:
        return _P.empty
    return signature.parameters[name].default


def is_default(value, default):
    """``value`` is what NumPy assumes when the parameter is left out."""
    if default is _P.empty:
        return False
    if value is default or (default is np._NoValue and value is None):
        return True
    try:
        return type(value) is type(default) and bool(value == default)
    except Exception:      # arrays, atoms: a run-time value is never 'the default'
        return False
