"""How the cuda backend writes the IR: host Python for control flow and scalars, a call
into ``cu`` (``sstad.backend.cuda_ops``) per array primitive, and one generated kernel
per chain of elementwise operations (the ``fusion`` pass's chains).

Array primitives are spelled through the backend's lowering table
(``LOWERINGS["cuda"]``, filled here with ``@lowering("cuda", ...)``).  Elementwise
primitives are spelled per element (:data:`SCALAR`) and written into the kernel of the
chain that reads them.  :func:`unsupported` says why a statement cannot run on the
device; the backend raises that at the statement's line before anything runs.
"""
from __future__ import annotations

from sstad.backend.python import HEADER, FunctionEmitter
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A
from sstad.runtime.index import index_text
from sstad.runtime.primitive import PRIMITIVES, Slot, fill, literal, lowering, text_of

# --- elementwise primitives, one element at a time ------------------------------------
_BINARY = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/",
           "floor_divide": "//", "remainder": "%", "mod": "%", "power": "**",
           "less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
           "equal": "==", "not_equal": "!="}
_OPS = {"op.add": "+", "op.sub": "-", "op.mul": "*", "op.truediv": "/", "op.floordiv": "//",
        "op.mod": "%", "op.pow": "**", "op.lt": "<", "op.le": "<=", "op.gt": ">", "op.ge": ">=",
        "op.eq": "==", "op.ne": "!="}
_MATH = {"exp": "exp", "log": "log", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan",
         "tanh": "tanh", "sinh": "sinh", "cosh": "cosh", "arcsin": "asin", "arccos": "acos",
         "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
         "log1p": "log1p", "expm1": "expm1", "log2": "log2", "log10": "log10", "isnan": "isnan",
         "isinf": "isinf", "isfinite": "isfinite", "trunc": "trunc"}
SCALAR = {name: f"({{0}} {sym} {{1}})" for table in (_BINARY, _OPS) for name, sym in table.items()}
SCALAR.update({name: f"math.{fn}({{0}})" for name, fn in _MATH.items()})
SCALAR.update({
    "negative": "(-{0})", "op.neg": "(-{0})", "positive": "(+{0})", "op.pos": "(+{0})",
    "abs": "abs({0})", "square": "({0} * {0})", "reciprocal": "(1.0 / {0})",
    "exp2": "(2.0 ** {0})", "floor": "math.floor({0})", "ceil": "math.ceil({0})",
    "sign": "(1.0 if {0} > 0 else (-1.0 if {0} < 0 else {0} * 0.0))",
    "maximum": "({0} if {0} > {1} or {0} != {0} else {1})",
    "minimum": "({0} if {0} < {1} or {0} != {0} else {1})",
    "fmax": "({0} if {0} > {1} or {1} != {1} else {1})",
    "fmin": "({0} if {0} < {1} or {1} != {1} else {1})",
    "arctan2": "math.atan2({0}, {1})", "hypot": "math.hypot({0}, {1})",
    "copysign": "math.copysign({0}, {1})",
    "logaddexp": "(max({0}, {1}) + math.log1p(math.exp(-abs({0} - {1}))))",
    "logical_and": "({0} and {1})", "logical_or": "({0} or {1})", "logical_xor": "({0} != {1})",
    "logical_not": "(not {0})", "op.not_": "(not {0})", "op.and_": "({0} & {1})",
    "op.or_": "({0} | {1})", "op.xor": "({0} ^ {1})", "op.invert": "(~{0})",
    "where": "({1} if {0} else {2})", "special.expit": "(1.0 / (1.0 + math.exp(-{0})))",
})


def kernel_statement(stmt):
    """An elementwise primitive with an array result, its operands bound positionally:
    written into a generated kernel."""
    if not (isinstance(stmt, ir.Apply) and stmt.prim.name in SCALAR and stmt.outs
            and isinstance(stmt.outs[0].type, A.Array)):
        return False
    layout = stmt.params.get("layout")
    extra = [k for k in stmt.params if k != "layout"]
    return not extra and (layout is None or (not layout[1] and all(isinstance(p, Slot) for p in layout[0])))


def operands(stmt):
    """The statement's atoms in the primitive's parameter order."""
    layout = stmt.params.get("layout")
    return list(stmt.args) if layout is None else list(fill(layout, stmt.args)[0])


# --- array primitives: the cuda lowering table -----------------------------------------
def _out(name, avals, params):
    return PRIMITIVES[name].infer(avals, params)


def _is_scalar(aval):
    return not isinstance(aval, A.Array)


def _index_lambda(items, args, view):
    """``lambda a: a[index]``; with ``view``, ``a[index, ...]``: a 0-d view, not a copy,
    when the index picks one element."""
    text = index_text(items, args)
    return f"lambda a: a[{text}, ...]" if view and Ellipsis not in items else f"lambda a: a[{text}]"


def _fancy(items, avals):
    return [i for i in items if isinstance(i, Slot) and isinstance(avals[i], A.Array)]


@lowering("cuda", "getitem")
def _getitem(args, params, avals):
    items = params["index"]
    if isinstance(avals[0], A.ListOf):
        return PRIMITIVES["getitem"].emit(args, params, avals)
    if _fancy(items, avals):                       # x[idx]: 1-d int array on the first axis
        return f"cu.take_rows({args[0]}, {args[items[0]]})"
    scalar = _is_scalar(_out("getitem", avals, params))
    fn = "cu.item" if scalar else "cu.view"
    return f"{fn}({args[0]}, {_index_lambda(items, args, scalar)})"


@lowering("cuda", "setitem")
def _setitem(args, params, avals):
    if isinstance(avals[0], A.ListOf):
        return PRIMITIVES["setitem"].emit(args, params, avals)
    return f"cu.assign({args[0]}, {_index_lambda(params['index'], args, True)}, {args[1]})"


@lowering("cuda", "index_add")
def _index_add(args, params, avals):
    items = params["index"]
    if _fancy(items, avals):
        return f"cu.scatter_add({args[0]}, {args[items[0]]}, {args[1]})"
    return f"cu.add_into({args[0]}, {_index_lambda(items, args, True)}, {args[1]})"


_INPLACE = {"iop.add": "+", "iop.sub": "-", "iop.mul": "*", "iop.truediv": "/",
            "iop.floordiv": "//", "iop.mod": "%", "iop.pow": "**"}


def _inplace(symbol):
    def emit(args, params, avals):
        rank = None if _is_scalar(avals[1]) else avals[1].ndim
        return f"cu.inplace({args[0]}, 'v0 {symbol} v1', ({avals[0].ndim}, {rank}), [{args[1]}])"
    return emit


for _name, _symbol in _INPLACE.items():
    lowering("cuda", _name)(_inplace(_symbol))


def _dtype(aval):
    return f"np.{aval.dtype.name}"


def _creation(name, value):
    def emit(args, params, avals):
        out = _out(name, avals, params)
        shape = _text(params["layout"][0][0], args)
        fill_value = _text(params["layout"][0][1], args) if value is None else value
        return f"cu.full({shape}, {fill_value}, {_dtype(out)})"
    return emit


def _like(name, value):
    def emit(args, params, avals):
        out = _out(name, avals, params)
        fill_value = _text(params["layout"][0][1], args) if value is None else value
        return f"cu.full_like({args[0]}, {fill_value}, {_dtype(out)})"
    return emit


def _text(item, args):
    return text_of(item, args)


for _name, _value in (("zeros", "0"), ("ones", "1"), ("empty", "0"), ("full", None)):
    lowering("cuda", _name)(_creation(_name, _value))
    lowering("cuda", _name + "_like")(_like(_name + "_like", _value))


@lowering("cuda", "copy")
def _copy(args, params, avals):
    return f"cu.copy({args[0]})"


@lowering("cuda", "astype")
def _astype(args, params, avals):
    return f"cu.copy({args[0]}, {_dtype(_out('astype', avals, params))})"


def _reduction(name, op):
    def emit(args, params, avals):
        out = _out(name, avals, params)
        axis = params.get("axis")
        keepdims = params.get("keepdims") is True
        return (f"cu.reduction({args[0]}, {op!r}, {literal(axis)}, {keepdims}, {_dtype(out)}, "
                f"{_is_scalar(out)})")
    return emit


for _name, _op in (("sum", "sum"), ("max", "max"), ("amax", "max"), ("min", "min"),
                   ("amin", "min"), ("mean", "mean")):
    lowering("cuda", _name)(_reduction(_name, _op))


@lowering("cuda", "special.logsumexp")
def _logsumexp(args, params, avals):
    out = _out("special.logsumexp", avals, params)
    return (f"cu.logsumexp({args[0]}, {literal(params.get('axis'))}, {params.get('keepdims') is True}, "
            f"{_is_scalar(out)})")


def _softmax(log):
    def emit(args, params, avals):
        return f"cu.softmax_last({args[0]}, {log})"
    return emit


lowering("cuda", "special.softmax")(_softmax(False))
lowering("cuda", "special.log_softmax")(_softmax(True))


@lowering("cuda", "unbroadcast")
def _unbroadcast(args, params, avals):
    return f"cu.unbroadcast({args[0]}, cu.shape_of({args[1]}))"


@lowering("cuda", "matmul", "op.matmul", "dot")
def _matmul(args, params, avals):
    layout = params.get("layout")
    a, b = (args[0], args[1]) if layout is None else [_text(p, args) for p in layout[0][:2]]
    return f"cu.matmul({a}, {b})"


@lowering("cuda", "diag")
def _diag(args, params, avals):
    pos = params["layout"][0]
    k = _text(pos[1], args) if len(pos) > 1 else "0"
    return f"cu.diag({_text(pos[0], args)}, {k})"


@lowering("cuda", "concatenate")
def _concatenate(args, params, avals):
    pos, kw = params["layout"]
    axis = _text(pos[1], args) if len(pos) > 1 else _text(kw.get("axis", 0), args)
    return f"cu.concatenate({_text(pos[0], args)}, {axis})"


_VIEWS = ("transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze", "broadcast_to",
          "reshape", "ravel", "atleast_1d", "atleast_2d")


def _view(name):
    def emit(args, params, avals):
        inner = PRIMITIVES[name].emit(["a"] + list(args[1:]), params, avals)
        retry = name in ("reshape", "ravel")
        return f"cu.view({args[0]}, lambda a: {inner}{', True' if retry else ''})"
    return emit


for _name in _VIEWS:
    lowering("cuda", _name)(_view(_name))




# --- what the device cannot run yet ----------------------------------------------------
HOST = {"dim", "size", "list.new", "list.append", "builtin.len", "stop_gradient", "tape_nbytes"}


def _has_array(stmt):
    return any(isinstance(t, (A.Array,)) for t in [a.type for a in stmt.args] + [o.type for o in stmt.outs])


def unsupported(stmt):
    """Why ``stmt`` cannot run on the cuda backend, or None."""
    if not isinstance(stmt, ir.Apply):
        return None
    name = stmt.prim.name
    if any(isinstance(a, ir.Const) and isinstance(a.type, A.Array) for a in stmt.args):
        return "an array constant in the compiled code"
    if name in HOST or not _has_array(stmt):
        return None if name != "extern" else "a call into code sstad does not compile"
    if kernel_statement(stmt):
        return None
    if name in SCALAR:
        return f"`{name}` with parameters other than its operands"
    if name not in _LOWERED:
        return f"no CUDA kernel for `{name}`"
    return _CHECKS.get(name, lambda stmt: None)(stmt)


def _reduction_check(stmt):
    extra = {k: v for k, v in stmt.params.items() if k not in ("axis", "keepdims", "layout")}
    if extra:
        return f"`{stmt.prim.name}` with {', '.join(extra)}"
    layout = stmt.params.get("layout")
    if layout is not None and (len(layout[0]) > 1 or layout[1]):
        return f"`{stmt.prim.name}` with arguments other than the array, axis and keepdims"
    return None


def _index_check(stmt):
    items = stmt.params["index"]
    if isinstance(stmt.args[0].type, A.ListOf):
        return None
    fancy = _fancy(items, [a.type for a in stmt.args])
    if not fancy:
        return None
    first = stmt.args[items[0]].type if isinstance(items[0], Slot) else None
    if not (len(fancy) == 1 and isinstance(first, A.Array) and first.ndim == 1
            and first.dtype.kind in "iu" and all(i == slice(None) for i in items[1:])):
        return "indexing with arrays other than one 1-d integer array on the first axis"
    return None


def _matmul_check(stmt):
    if any(isinstance(a.type, A.Array) and a.type.ndim > 2 for a in stmt.args):
        return "a matrix product of stacks (rank > 2)"
    return None


def _softmax_check(stmt):
    axis = stmt.params.get("axis", stmt.params.get("layout", ((), {}))[1].get("axis"))
    if axis not in (-1, stmt.args[0].type.ndim - 1):
        return "softmax along an axis other than the last"
    return None


def _logsumexp_check(stmt):
    layout = stmt.params.get("layout")
    if layout is not None and (len(layout[0]) > 1 or "b" in layout[1]):
        return "logsumexp with weights b"
    return None


_CHECKS = {name: _reduction_check for name in ("sum", "max", "amax", "min", "amin", "mean")}
_CHECKS.update({"getitem": _index_check, "setitem": _index_check, "index_add": _index_check,
                "matmul": _matmul_check, "op.matmul": _matmul_check, "dot": _matmul_check,
                "special.softmax": _softmax_check, "special.log_softmax": _softmax_check,
                "special.logsumexp": _logsumexp_check})
_LOWERED = set()       # filled from the lowering table below


def first_unsupported(module):
    """The first statement of ``module`` the device cannot run, with the reason."""
    from sstad.runtime.primitive import LOWERINGS
    _LOWERED.update(LOWERINGS.get("cuda", {}))
    for function in module.functions:
        for stmt in ir.walk(function.body):
            reason = unsupported(stmt)
            if reason:
                return stmt, reason
    return None


# --- the emitter -------------------------------------------------------------------------
class CudaFunctionEmitter(FunctionEmitter):
    """The python emitter, with each chain of elementwise operations written as one
    ``cu.elementwise(expression, ranks, operands, dtype)`` launch."""

    def __init__(self, function, function_names, backend):
        super().__init__(function, function_names, backend)
        self.pending = {}           # Var -> its elementwise Apply, written into its reader's kernel

    def block(self, stmts, depth):
        for k, stmt in enumerate(stmts):
            if kernel_statement(stmt) and self.fusable(stmts, k):
                self.pending[stmt.outs[0]] = stmt
                continue
            self.source_comment(stmt, depth)
            getattr(self, "stmt_" + type(stmt).__name__)(stmt, depth)

    def stmt_Apply(self, stmt, depth):
        if not kernel_statement(stmt):
            return super().stmt_Apply(stmt, depth)
        leaves = []
        expr = self.kernel_expression(stmt, leaves)
        ranks = tuple(None if not isinstance(a.type, A.Array) else a.type.ndim for a in leaves)
        texts = ", ".join(self.atom(a) for a in leaves)
        out = stmt.outs[0]
        self.out(f"{self.name(out)} = cu.elementwise_op({expr!r}, {ranks!r}, [{texts}], "
                 f"np.{out.type.dtype.name})", depth)

    def kernel_expression(self, stmt, leaves):
        """The per-element expression of ``stmt`` and the chain fused into it; ``leaves``
        collects the operands (``v0``, ``v1``, ... in order)."""
        parts = []
        for a in operands(stmt):
            if isinstance(a, ir.Var) and a in self.pending:
                parts.append(self.kernel_expression(self.pending.pop(a), leaves))
            elif isinstance(a, ir.Const):
                parts.append(self.atom(a))
            else:
                if a not in leaves:
                    leaves.append(a)
                parts.append(f"v{leaves.index(a)}")
        return SCALAR[stmt.prim.name].format(*parts)


def emit_module(module, backend):
    """The host module: every function, entry last; the ``cu`` namespace is given at load."""
    names = [f.name for f in module.functions]
    parts = [HEADER]
    for function in module.functions:
        parts.append("\n\n" + CudaFunctionEmitter(function, names, backend).emit())
    return "".join(parts)
