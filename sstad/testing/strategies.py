"""Hypothesis strategies for testing sstad: arrays, pytrees, and whole generated programs.

    from hypothesis import given
    from sstad.testing.strategies import arrays, pytrees, programs

    @given(programs())
    def test_gradients(program):
        program.check()                 # check_grads on the generated function

A generated :class:`Program` has ``.source`` (Python text), ``.fn`` (the function,
imported from a real file, since sstad reads source), ``.args``, ``.constructs`` (the
tags of what it uses, see :data:`CONSTRUCTS`) and ``.check()``.  ``str(program)`` and
``repr(program)`` are the source followed by the arguments, so Hypothesis' falsifying
example is a program you can paste into a file.  Programs stay inside the supported
subset (docs/subset.md) and keep every operation inside its domain (``log`` of positive
values, ``arcsin`` of values in (-1, 1), denominators away from zero).
"""
from __future__ import annotations

import atexit
import copy
import hashlib
import importlib.util
import inspect
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sstad.runtime.primitive import signature_of
from sstad.testing.gradcheck import NotSmoothError, check_grads

# --------------------------------------------------------------------------------------
# arrays and pytrees

FLOAT_DTYPES = (np.float64, np.float32)


def safe_floats(dtype=np.float64, low=-2.0, high=2.0):
    """Finite floats in [low, high], representable in ``dtype``; magnitudes below 1e-30
    become 0 (squares of such values underflow, and finite differences cannot see them)."""
    width = 32 if np.dtype(dtype) == np.float32 else 64
    return st.floats(low, high, allow_nan=False, allow_infinity=False, allow_subnormal=False,
                     width=width).map(lambda v: 0.0 if abs(v) < 1e-30 else v)


def shapes(min_dims=0, max_dims=2, min_side=1, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def arrays(dtype=None, shape=None, low=-2.0, high=2.0):
    """Float arrays with values in [low, high]; dtype float64/float32, shape drawn if None."""
    dtypes = st.sampled_from(FLOAT_DTYPES) if dtype is None else st.just(np.dtype(dtype))
    shape_st = shapes() if shape is None else st.just(shape)
    return st.tuples(dtypes, shape_st).flatmap(
        lambda ds: hnp.arrays(ds[0], ds[1], elements=safe_floats(ds[0], low, high)))


def leaves(dtype=np.float64, low=-2.0, high=2.0):
    """A Python float or a float array (any rank up to 2)."""
    return st.one_of(safe_floats(np.float64, low, high).map(float), arrays(dtype, low=low, high=high))


def pytrees(leaf=None, max_leaves=6):
    """Nested tuples, lists and dicts (string keys) of leaves."""
    leaf = leaves() if leaf is None else leaf
    return st.recursive(leaf, lambda children: st.one_of(
        st.tuples(children, children), st.lists(children, min_size=1, max_size=3),
        st.dictionaries(st.sampled_from("abcw"), children, min_size=1, max_size=3)), max_leaves=max_leaves)


# --------------------------------------------------------------------------------------
# programs

#: every construct the generator claims to reach (a program's ``.constructs`` uses these)
CONSTRUCTS = (
    "ufunc", "math", "binop", "broadcast", "maximum_minimum", "where", "ifexp", "nondiff",
    "reduction", "reduction_axis", "keepdims", "scan", "dot", "matmul", "outer", "linalg",
    "reshape", "transpose", "flip", "concatenate", "stack", "index", "slice", "gather", "mask",
    "creation", "comprehension",
    "if", "elif", "for_range", "for_shape", "for_elements", "enumerate", "while", "while_data",
    "break", "continue", "early_return", "helper", "inplace_set", "inplace_add", "inplace_array",
    "list", "pytree_arg", "int_arg", "scalar_arg", "float32", "tuple_out", "dict_out", "array_out",
)

S = ("s",)


def V(n):
    return ("v", n)


def M(n, m):
    return ("m", n, m)


def _is_vec(t):
    return t[0] == "v"


def _is_mat(t):
    return t[0] == "m"


# unary elementwise templates, each inside its domain: (template, construct, python_only)
UNARY = [
    ("np.sin({})", "ufunc"), ("np.cos({})", "ufunc"), ("np.tanh({})", "ufunc"),
    ("np.exp(np.sin({}))", "ufunc"), ("np.log(np.square({}) + 1.0)", "ufunc"),
    ("np.sqrt(np.square({}) + 0.5)", "ufunc"), ("np.arctan({})", "ufunc"), ("np.square({})", "ufunc"),
    ("-{}", "ufunc"), ("np.abs({})", "ufunc"), ("np.log1p(np.square({}))", "ufunc"),
    ("np.expm1(np.cos({}))", "ufunc"), ("np.arcsinh({})", "ufunc"), ("np.sinh(np.sin({}))", "ufunc"),
    ("np.cosh(np.sin({}))", "ufunc"), ("np.arcsin(0.9 * np.tanh({}))", "ufunc"),
    ("np.arccos(0.9 * np.tanh({}))", "ufunc"), ("np.arctanh(0.9 * np.tanh({}))", "ufunc"),
    ("np.arccosh(np.square({}) + 1.5)", "ufunc"), ("np.reciprocal(np.square({}) + 1.0)", "ufunc"),
    ("np.cbrt(np.square({}) + 1.0)", "ufunc"), ("np.log2(np.square({}) + 2.0)", "ufunc"),
    ("np.log10(np.square({}) + 2.0)", "ufunc"), ("np.exp2(np.sin({}))", "ufunc"),
    ("np.tan(0.5 * np.tanh({}))", "ufunc"), ("({}) ** 2", "ufunc"), ("({}) ** 3", "ufunc"),
    ("np.power(np.square({}) + 1.0, 1.5)", "ufunc"),
    ("np.clip({}, -1.0, 1.0)", "nondiff"), ("np.floor({})", "nondiff"), ("np.sign(({}) + 0.3183)", "nondiff"),
    ("np.round({})", "nondiff"),
]
UNARY_SCALAR = [
    ("math.sin({})", "math"), ("math.cos({})", "math"), ("math.tanh({})", "math"),
    ("math.exp(math.sin({}))", "math"), ("math.log(({}) ** 2 + 1.0)", "math"),
    ("math.sqrt(({}) ** 2 + 1.0)", "math"), ("math.atan({})", "math"), ("abs({})", "math"),
    ("math.hypot({}, 1.0)", "math"), ("math.erf({})", "math"),
]
# binary templates over operands of the same type (or a scalar broadcast)
BINARY = [
    ("{} + {}", "binop"), ("{} - {}", "binop"), ("{} * {}", "binop"),
    # maximum/minimum: one side shifted, so operands that meet at round points (0.0, where
    # sin, arctanh and floor all vanish) do not tie there: at a tie the derivative is a
    # convention (sstad splits it) that differences cannot check
    ("{} / (np.square({}) + 1.0)", "binop"), ("np.maximum({}, ({}) + 0.0731)", "maximum_minimum"),
    ("np.minimum({}, ({}) - 0.0731)", "maximum_minimum"), ("np.arctan2({}, np.square({}) + 1.0)", "binop"),
    ("np.hypot({}, {})", "binop"), ("np.logaddexp({}, {})", "binop"),
    ("np.sin({}) * np.cos({})", "binop"), ("np.add({}, {})", "binop"), ("np.multiply({}, {})", "binop"),
]
BINARY_SCALAR = [("max({}, ({}) + 0.0731)", "maximum_minimum"), ("min({}, ({}) - 0.0731)", "maximum_minimum")]

#: np.full(shape, value) with a run-time value (its rule came from a fuzz finding)
FULL_FILL = True

# --------------------------------------------------------------------------------------
# NumPy call forms drawn from NumPy's own signatures

AXES = ["None", "0", "1", "-1", "-2", "(0, 1)", "(0, -1)", "2", "(1, 2)"]
BOOL = ["True", "False"]

#: Representative values per NumPy parameter name (source text); a value NumPy refuses for
#: the drawn shapes is dropped at generation time (the form is tried on NumPy).
SIG_VALUES = {
    "axis": AXES, "keepdims": BOOL, "ddof": ["0", "1"],
    "ord": ["None", "1", "2", "-1", "-2", "np.inf", "-np.inf", "'fro'", "'nuc'", "3"],
    "k": ["0", "1", "-1", "2", "-2"], "offset": ["0", "1", "-1"],
    "axis1": ["0", "1", "-1", "2"], "axis2": ["1", "0", "-1", "2", "-2"],
    "shift": ["1", "-1", "2", "(1, 2)"], "axes": ["None", "(1, 0)", "(1, 0, 2)", "(2, 0, 1)", "(0, 2, 1)", "(-1, 0, 1)"],
    "source": ["0", "-1", "(0, 1)"], "destination": ["-1", "1", "(2, 0)"],
    "n": ["1", "2"], "repeats": ["2", "[1, 2, 1]"], "indices": ["[0, 1]", "1", "[1, 0, 0]", "-1"],
}

#: name -> (operand kinds, shape choices (one string per operand, a letter per dimension:
#: n, m, k sizes and B a batch), parameters drawn, has an ndarray method).  Kinds keep
#: each call away from kinks and singularities: "x" any, "d" distinct values, "p" positive
#: and distinct, "m" well conditioned square, "s" symmetric positive definite.
SIG_CALLS = {
    "np.sum": ("x", ["nm", "n", "Bnm"], ("axis", "keepdims"), True),
    "np.mean": ("x", ["nm", "n", "Bnm"], ("axis", "keepdims"), True),
    "np.prod": ("x", ["nm", "n"], ("axis", "keepdims"), True),
    "np.max": ("d", ["nm", "n", "Bnm"], ("axis", "keepdims"), True),
    "np.min": ("d", ["nm", "n"], ("axis", "keepdims"), True),
    "np.amax": ("d", ["nm", "n"], ("axis", "keepdims"), False),
    "np.var": ("d", ["nm", "n", "Bnm"], ("axis", "ddof", "keepdims"), True),
    "np.std": ("d", ["nm", "n"], ("axis", "ddof", "keepdims"), True),
    "np.cumsum": ("x", ["nm", "n"], ("axis",), True),
    "np.linalg.norm": ("p", ["n", "nm", "Bnm"], ("ord", "axis", "keepdims"), False),
    "np.roll": ("x", ["nm", "n", "Bnm"], ("shift", "axis"), False),
    "np.transpose": ("x", ["nm", "Bnm"], ("axes",), True),
    "np.swapaxes": ("x", ["nm", "Bnm"], ("axis1", "axis2"), True),
    "np.moveaxis": ("x", ["Bnm"], ("source", "destination"), False),
    "np.triu": ("x", ["nn", "nm", "Bnn"], ("k",), False),
    "np.tril": ("x", ["nn", "nm", "Bnn"], ("k",), False),
    "np.diag": ("x", ["n", "nm", "nn"], ("k",), False),
    "np.trace": ("x", ["nn", "nm", "Bnm"], ("offset", "axis1", "axis2"), True),
    "np.diagonal": ("x", ["nn", "nm", "Bnm"], ("offset", "axis1", "axis2"), True),
    "np.sort": ("d", ["n", "nm"], ("axis",), False),
    "np.flip": ("x", ["nm", "n", "Bnm"], ("axis",), False),
    "np.take": ("x", ["nm", "n"], ("indices", "axis"), True),
    "np.repeat": ("x", ["nm", "n"], ("repeats", "axis"), True),
    "np.diff": ("x", ["nm", "n"], ("n", "axis"), False),
    "np.expand_dims": ("x", ["nm", "n"], ("axis",), False),
    "np.concatenate": ("xx", [("nm", "km"), ("nm", "nk"), ("n", "k")], ("axis",), False),
    "np.stack": ("xx", [("nm", "nm"), ("n", "n")], ("axis",), False),
    "np.matmul": ("xx", [("nk", "km"), ("Bnk", "km"), ("nk", "Bkm"), ("Bnk", "Bkm"), ("Bnk", "k"), ("k", "Bkm")], (), False),
    "np.dot": ("xx", [("nk", "k"), ("nk", "km"), ("k", "km"), ("Bnk", "km")], (), False),
    "np.linalg.inv": ("m", ["nn", "Bnn"], (), False),
    "np.linalg.det": ("m", ["nn", "Bnn"], (), False),
    "np.linalg.slogdet": ("m", ["nn", "Bnn"], (), False),
    "np.linalg.solve": ("mx", [("nn", "n"), ("nn", "nm"), ("Bnn", "Bnm"), ("Bnn", "n")], (), False),
    "np.linalg.cholesky": ("s", ["nn", "Bnn"], (), False),
}
#: drawn twice as often: the functions whose parameters change the most (axes, orders, offsets)
SIG_OFTEN = ["np.roll", "np.transpose", "np.linalg.norm", "np.var", "np.std", "np.trace", "np.triu",
             "np.tril", "np.diag", "np.take", "np.sort", "np.linalg.solve"]
EINSUMS = [("ij->ji", "nm"), ("ii->", "nn"), ("ii", "nn"), ("ij->", "nm"), ("ij,jk->ik", "nk", "km"),
           ("ij,ij->", "nm", "nm"), ("ij,j->i", "nm", "m"), ("i,j->ij", "n", "m"), ("bij,bjk->bik", "Bnk", "Bkm")]

#: tags of the call forms the generator reaches (``Program.constructs``; see CONSTRUCTS)
CALL_FORMS = (
    "sig_call", "sig_positional", "sig_keyword", "method_call", "none_axis", "neg_axis", "tuple_axis",
    "keepdims_kw", "ddof", "norm_ord", "offset_k", "roll_axis", "transpose_axes", "index_axis", "batch_linalg",
    "matmul_batch", "cholesky", "slogdet", "einsum", "stack_list", "view_write", "view_join", "inner_grad",
)


class Program:
    """A generated function: source, the function object, its arguments."""

    def __init__(self, source, args, constructs, name="f", python_only=False, dtype=np.float64):
        self.source, self.name = source, name
        self._args = args
        self.constructs = frozenset(constructs)
        self.python_only = python_only
        self.dtype = np.dtype(dtype)
        self._fn = None
        self.used_args = None

    @property
    def args(self):
        return copy.deepcopy(self._args)

    @property
    def fn(self):
        if self._fn is None:
            self._fn = load_source(self.source, self.name)
        return self._fn

    @property
    def path(self):
        return self.fn.__code__.co_filename

    def args_text(self, args=None):
        args = self._args if args is None else args
        with np.printoptions(precision=17, floatmode="unique", threshold=10 ** 6):
            return ", ".join(_literal(a) for a in args)

    def __str__(self):
        return f"{self.source}\n# args: {self.name}({self.args_text()})\n"

    def __repr__(self):
        return "\n" + str(self)

    def check(self, backend="python", modes=("rev", "fwd"), on_not_smooth="reject", tries=4, **kw):
        """``check_grads`` at the program's arguments; where finite differences cannot be
        trusted (kinks, ties, jumps), moves the point a little and tries again.  After
        ``tries``: ``hypothesis.reject()`` (``on_not_smooth="reject"``) or raise
        :class:`NotSmoothError` (``"raise"``)."""
        if backend == "numba" and self.python_only:
            backend = "python"
        args = self.args
        rng = np.random.default_rng(int(hashlib.sha1(self.source.encode()).hexdigest()[:8], 16))
        last = None
        for attempt in range(tries):
            self.used_args = args
            try:
                check_grads(self.fn, args, modes=modes, backend=backend, **kw)
                return
            except NotSmoothError as exc:
                last = exc
                args = _jitter(self._args, rng, 0.05 * (attempt + 1))
            except AssertionError as exc:
                error = AssertionError(f"{exc}\n\nprogram ({self.path}):\n{self.source}\n"
                                       f"# args: {self.name}({self.args_text(args)})")
                error.check_grads_mode = getattr(exc, "check_grads_mode", "?")
                raise error from None
        if on_not_smooth == "reject":
            from hypothesis import reject
            reject()
        raise last


def _jitter(args, rng, size):
    from sstad.testing import trees as T

    def move(leaf, k):
        noise = rng.uniform(-size, size, np.shape(leaf))
        return T.same_kind(np.asarray(leaf, np.float64) * (1 + noise) + noise, leaf)
    return T.map_floats(copy.deepcopy(args), move)


def _literal(a):
    if isinstance(a, np.ndarray):
        if a.dtype.kind == "f":
            return f"np.array({a.tolist()!r}, dtype=np.{a.dtype})"
        return f"np.array({a.tolist()!r})"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k!r}: {_literal(v)}" for k, v in a.items()) + "}"
    if isinstance(a, tuple):
        return "(" + ", ".join(_literal(v) for v in a) + ("," if len(a) == 1 else "") + ")"
    if isinstance(a, list):
        return "[" + ", ".join(_literal(v) for v in a) + "]"
    return repr(a)


_DIR = None
_LOADED = {}


def program_dir():
    """Where generated programs are written: $SSTAD_PROGRAMS_DIR, else a temporary folder
    removed when the process exits (sstad reads a program's source until then)."""
    global _DIR
    if _DIR is None:
        _DIR = os.environ.get("SSTAD_PROGRAMS_DIR")
        if not _DIR:
            _DIR = tempfile.mkdtemp(prefix="sstad_programs_")
            atexit.register(shutil.rmtree, _DIR, ignore_errors=True)
        os.makedirs(_DIR, exist_ok=True)
    return _DIR


def load_source(source, name="f"):
    """Write ``source`` to a file (named by its hash) and import it; returns ``name``."""
    key = hashlib.sha1(source.encode()).hexdigest()[:16]
    if key not in _LOADED:
        module_name = f"sstad_program_{key}"
        path = os.path.join(program_dir(), module_name + ".py")
        if not os.path.exists(path):
            tmp = path + f".{os.getpid()}.tmp"
            with open(tmp, "w") as fh:
                fh.write(source)
            os.replace(tmp, path)
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        _LOADED[key] = module
    return getattr(_LOADED[key], name)


class _Var:
    def __init__(self, name, ty, owned=False):
        self.name, self.ty, self.owned = name, ty, owned

    def __repr__(self):
        return f"{self.name}:{self.ty}"


class _Gen:
    """Draws one program; every choice goes through ``draw`` so Hypothesis shrinks it
    (first options are the simplest)."""

    def __init__(self, draw, max_statements, max_depth, python_only, allow):
        self.draw = draw
        self.max_statements, self.max_depth = max_statements, max_depth
        self.allow_python_only = python_only
        self.allow = allow
        self.tags = set()
        self.python_only = False
        self.count = 0
        self.helpers = []          # (name, param types, return type)
        self.helper_sources = []
        self.loop_depth = 0
        self.in_helper = False
        self.ret_ty = None
        self.f32 = False
        self.grad_source = None

    # -- small helpers -----------------------------------------------------------------
    def choice(self, options):
        return options[self.draw(st.integers(0, len(options) - 1))] if len(options) > 1 else options[0]

    def flag(self):
        return self.draw(st.booleans())

    def fresh(self, prefix="t"):
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self):
        return self.choice(["0.5", "1.0", "2.0", "0.3", "-0.7", "1.5", "0.1"])

    def ok(self, tag):
        return self.allow is None or tag in self.allow

    def size(self):
        return self.choice([3, 2, 1, 4])

    def var_of(self, env, ty):
        return [v for v in env if v.ty == ty]

    # -- expressions -------------------------------------------------------------------
    def expr(self, env, ty, depth):
        """A Python expression of type ``ty`` over the variables in ``env``."""
        options = []
        here = self.var_of(env, ty)
        if here:
            options.append(self.e_var)
        else:
            options.append(self.e_leaf)
        if depth > 0:
            options += [self.e_unary, self.e_binary, self.e_special]
            if ty == S:
                options += [self.e_reduce, self.e_index]
            if self.helpers and self.ok("helper"):
                options.append(self.e_helper)
        pick = self.choice(options)
        return pick(env, ty, depth)

    def e_var(self, env, ty, depth):
        return self.choice(self.var_of(env, ty)).name

    def e_leaf(self, env, ty, depth):
        """Something of type ty built from what there is (always possible)."""
        scalar_src = [v for v in env if v.ty == S]
        if ty == S:
            arrays_ = [v for v in env if v.ty != S and v.ty[0] in "vm"]
            if arrays_ and not self.flag():
                self.tags.add("reduction")
                return f"np.sum({self.choice(arrays_).name})"
            if scalar_src:
                return self.choice(scalar_src).name
            return f"np.float32({self.const()})" if self.f32 else self.const()
        s = self.expr(env, S, 0) if (scalar_src or any(v.ty[0] in "vm" for v in env)) else self.const()
        self.tags.add("creation")
        shape = str(ty[1]) if _is_vec(ty) else f"({ty[1]}, {ty[2]})"
        form = self.choice(["np.ones({}) * ({})", "np.zeros({}) + ({})", "np.full({}, 1.0) * ({})",
                            "np.linspace(0.0, 1.0, {}) * ({})" if _is_vec(ty) else "np.ones({}) * ({})",
                            # entries and derivatives that differ (a rule that mixes axes shows)
                            "np.sin(np.arange(%d).reshape({}) * 0.7 + ({}))" % (ty[1] * (1 if _is_vec(ty) else ty[2]))])
        if FULL_FILL and self.flag() and not self.f32:
            form = "np.full({}, {})"        # a run-time fill value
        if self.f32:
            return f"({form.format(shape, s)}).astype(np.float32)"
        return f"({form.format(shape, s)})"

    def e_unary(self, env, ty, depth):
        table = UNARY + (UNARY_SCALAR if ty == S and not self.f32 else [])
        table = [t for t in table if self.ok(t[1])]
        template, tag = self.choice(table)
        self.tags.add(tag)
        return template.format(self.expr(env, ty, depth - 1))

    def e_binary(self, env, ty, depth):
        table = [t for t in BINARY + (BINARY_SCALAR if ty == S else []) if self.ok(t[1])]
        template, tag = self.choice(table)
        self.tags.add(tag)
        a = self.expr(env, ty, depth - 1)
        bty = ty
        if ty != S and template.startswith("{} ") and self.flag():
            bty = S                             # scalar broadcast
            self.tags.add("broadcast")
        elif _is_mat(ty) and template.startswith("{} ") and self.flag():
            # row or column broadcast
            if self.flag():
                b = self.expr(env, V(ty[2]), depth - 1)
            else:
                b = f"{self.p(env, V(ty[1]), depth - 1)}[:, None]"
            self.tags.add("broadcast")
            return template.format(a, b)
        b = self.expr(env, bty, depth - 1)
        return template.format(a, b)

    def e_reduce(self, env, ty, depth):
        """A scalar from an array."""
        n = self.size()
        src_ty = self.choice([V(n), M(n, self.size())])
        x = self.expr(env, src_ty, depth - 1)
        forms = [("np.sum({})", "reduction"), ("np.mean({})", "reduction"), ("np.max({})", "reduction"),
                 ("np.min({})", "reduction"), ("({}).sum()", "reduction"), ("np.prod(np.tanh({}))", "reduction"),
                 ("np.linalg.norm({})", "linalg"), ("np.amax({})", "reduction"),
                 ("np.sum({0}[{0} > 0.0])", "mask"),
                 ("sum([np.sin(e) for e in np.ravel({})])", "comprehension")]
        if not self.f32:
            forms.append(("float(np.sum({}))", "reduction"))
        if src_ty[0] == "v" or self.flag():
            size = n if src_ty[0] == "v" else n * src_ty[2]
            if size > 1:
                forms.append(("np.var({})", "reduction"))
        if _is_vec(src_ty):
            forms.append(("np.dot({0}, {1})", "dot"))
            forms.append(("(({0}) @ ({1}))", "dot"))
        if _is_mat(src_ty) and src_ty[1] == src_ty[2]:
            forms.append(("np.trace({})", "linalg"))
            # det's rule needs an invertible matrix (docs/ad.md): keep it well away from singular
            forms.append((f"np.linalg.det(np.eye({src_ty[1]}) * 4.0 + np.tanh({{}}))", "linalg"))
        forms = [f for f in forms if self.ok(f[1])] or [("np.sum({})", "reduction")]
        template, tag = self.choice(forms)
        self.tags.add(tag)
        if "{1}" in template:
            return template.format(x, self.expr(env, src_ty, depth - 1))
        if "{0}" in template and not _simple(x):
            return f"np.sum(np.maximum({x}, 0.0))" if self.ok("maximum_minimum") else f"np.sum({x})"
        return template.format(x)

    def e_index(self, env, ty, depth):
        """A scalar element of an array variable (constant or loop index)."""
        arrays_ = [v for v in env if v.ty[0] in "vm"]
        if not arrays_:
            return self.e_reduce(env, ty, depth)
        a = self.choice(arrays_)
        loops = [v for v in env if v.ty[0] == "i"]
        self.tags.add("index")
        if _is_vec(a.ty):
            ok_loops = [v for v in loops if v.ty[1] <= a.ty[1]]
            if ok_loops and self.flag():
                return f"{a.name}[{self.choice(ok_loops).name}]"
            i = self.draw(st.integers(-a.ty[1], a.ty[1] - 1))
            return f"{a.name}[{i}]"
        i = self.draw(st.integers(0, a.ty[1] - 1))
        j = self.draw(st.integers(-a.ty[2], a.ty[2] - 1))
        ok_loops = [v for v in loops if v.ty[1] <= a.ty[1]]
        if ok_loops and self.flag():
            return f"{a.name}[{self.choice(ok_loops).name}, {j}]"
        return f"{a.name}[{i}, {j}]"

    def e_helper(self, env, ty, depth):
        fitting = [h for h in self.helpers if h[2] == ty]
        if not fitting:
            return self.e_unary(env, ty, depth)
        name, ptys, _ = self.choice(fitting)
        self.tags.add("helper")
        return f"{name}({', '.join(self.expr(env, p, depth - 1) for p in ptys)})"

    def e_special(self, env, ty, depth):
        """Shape-changing and structural forms that produce ``ty``."""
        d = depth - 1
        opts = []
        if ty == S:
            opts += [("ifexp", lambda: f"({self.expr(env, S, d)} if {self.cond(env, d)} else {self.expr(env, S, d)})")]
            return self.pick(opts, env, ty, depth)
        opts.append(("where", lambda: "np.where({} > {}, {}, {})".format(
            self.expr(env, ty, d), self.const(), self.expr(env, ty, d), self.expr(env, ty, d))))
        if _is_vec(ty):
            n = ty[1]
            k = self.size()
            opts += [
                ("matmul", lambda: f"({self.p(env, M(n, k), d)} @ {self.p(env, V(k), d)})"),
                ("dot", lambda: f"np.dot({self.expr(env, M(n, k), d)}, {self.expr(env, V(k), d)})"),
                ("reduction_axis", lambda: self.axis_reduce(env, n, d)),
                ("scan", lambda: f"np.cumsum({self.expr(env, V(n), d)})"),
                ("flip", lambda: self.choice([f"{self.p(env, V(n), d)}[::-1]",
                                              f"np.flip({self.expr(env, V(n), d)})"])),
                ("slice", lambda: f"{self.p(env, V(n + k), d)}[{k}:]"),
                ("gather", lambda: self.gather(env, n, d)),
                ("index", lambda: f"{self.p(env, M(k, n), d)}[{self.draw(st.integers(0, k - 1))}]"),
                ("index", lambda: f"{self.p(env, M(n, k), d)}[:, {self.draw(st.integers(0, k - 1))}]"),
            ]
            if n > 1:
                opts.append(("concatenate", lambda: self.concat(env, n, d)))
            if n % 2 == 0 and n > 0:
                opts.append(("reshape", lambda: f"{self.p(env, M(2, n // 2), d)}.ravel()"))
                opts.append(("reshape", lambda: f"{self.p(env, M(n // 2, 2), d)}.reshape({n})"))
            if self.allow_python_only:
                opts.append(("scan", lambda: self.mark_py(f"np.cumprod(np.tanh({self.expr(env, V(n), d)}) + 1.5)")))
        else:
            n, m = ty[1], ty[2]
            k = self.size()
            opts += [
                ("outer", lambda: f"np.outer({self.expr(env, V(n), d)}, {self.expr(env, V(m), d)})"),
                ("matmul", lambda: f"({self.p(env, M(n, k), d)} @ {self.p(env, M(k, m), d)})"),
                ("transpose", lambda: self.choice([f"{self.p(env, M(m, n), d)}.T",
                                                   f"np.transpose({self.expr(env, M(m, n), d)})"])),
                ("reshape", lambda: f"{self.p(env, V(n * m), d)}.reshape(({n}, {m}))"),
                ("keepdims", lambda: "{0} - np.mean({0}, axis={1}, keepdims=True)".format(
                    self.var_or_paren(env, ty, d), self.choice([0, 1]))),
                ("flip", lambda: f"np.flip({self.expr(env, M(n, m), d)}, axis={self.choice([0, 1])})"),
                ("slice", lambda: f"{self.p(env, M(n + 1, m), d)}[1:, :]"),
            ]
            if n <= 3:
                opts.append(("stack", lambda: "np.stack(({},))".format(
                    ", ".join(self.expr(env, V(m), d) for _ in range(n)))))
            if n == m:
                opts.append(("linalg", lambda: f"np.linalg.solve(np.eye({n}) * 5.0 + np.tanh("
                                                f"{self.expr(env, M(n, n), d)}), {self.expr(env, M(n, n), d)})"))
                opts.append(("linalg", lambda: f"np.linalg.inv(np.eye({n}) * 5.0 + np.tanh({self.expr(env, M(n, n), d)}))"))
        return self.pick(opts, env, ty, depth)

    def pick(self, opts, env, ty, depth):
        opts = [o for o in opts if self.ok(o[0])]
        if not opts:
            return self.e_unary(env, ty, depth)
        tag, make = self.choice(opts)
        self.tags.add(tag)
        return make()

    def mark_py(self, text):
        self.python_only = True
        return text

    def var_or_paren(self, env, ty, d):
        return self.p(env, ty, d)

    def p(self, env, ty, d):
        """An expression to apply a postfix operation to: parenthesized unless a name."""
        e = self.expr(env, ty, d)
        return e if _simple(e) else f"({e})"

    def axis_reduce(self, env, n, d):
        k = self.size()
        axis = self.choice([0, 1])
        src = M(k, n) if axis == 0 else M(n, k)
        x = self.expr(env, src, d)
        fn = self.choice(["np.sum", "np.mean", "np.max", "np.min", "np.prod", "np.amin"])
        if self.flag():
            return f"{fn}({x}, axis={axis})"
        method = fn[3:]
        return f"({x}).{method}(axis={axis})" if method != "amin" else f"np.amin({x}, axis={axis})"

    def gather(self, env, n, d):
        k = self.size()
        idx = [self.draw(st.integers(0, k - 1)) for _ in range(n)]
        return f"{self.p(env, V(k), d)}[np.array({idx})]"

    def concat(self, env, n, d):
        a = self.draw(st.integers(1, n - 1))
        return f"np.concatenate(({self.expr(env, V(a), d)}, {self.expr(env, V(n - a), d)}))"

    def cond(self, env, depth):
        x = self.expr(env, S, max(depth - 1, 0))
        form = self.choice(["{} > {}", "{} < {}", "np.sin({}) > {}"])
        c = form.format(x, self.const())
        if self.flag() and self.flag():
            self.tags.add("ifexp")    # a boolean operator in a condition
            c = f"{c} and {self.expr(env, S, 0)} < 1.5"
        return c

    # -- NumPy calls drawn from NumPy's signatures ---------------------------------------
    def npcall(self, env, pad):
        """``tK = <a NumPy call>``: the function from :data:`SIG_CALLS`, each drawn
        parameter in positional or keyword form, the form tried on NumPy first (a form
        NumPy refuses is drawn again).  The result's shape gives the new variable's type
        (3-d results are summed over the batch or indexed)."""
        for _ in range(6):
            made = self._npcall_form(env)
            if made is not None:
                break
        else:
            return self.statement_assign(env, pad)
        template, operands, out_shape, tags, is_tuple = made
        pre, texts = [], []
        for kind, shape in operands:
            text, lines = self.operand(env, kind, shape, pad)
            pre += lines
            texts.append(text)
        call = template.format(*texts)
        if is_tuple:
            call = f"{call}[1]"
        name = self.fresh()
        if len(out_shape) == 3:
            if self.flag():
                call, out_shape = f"np.sum({call}, axis=0)", out_shape[1:]
            else:
                call, out_shape = f"({call})[-1]", out_shape[1:]
        self.tags.update(tags)
        self.tags.add("sig_call")
        ty = S if not out_shape else V(out_shape[0]) if len(out_shape) == 1 else M(*out_shape)
        env.append(_Var(name, ty))
        return pre + [f"{pad}{name} = {call}"]

    def statement_assign(self, env, pad):
        ty = self.pick_type(env)
        name = self.fresh()
        line = f"{pad}{name} = {self.expr(env, ty, 2)}"
        env.append(_Var(name, ty))
        return [line]

    def _npcall_form(self, env=()):
        """``(template, [(kind, shape)], result shape, tags, returns a tuple)`` or None."""
        names = list(SIG_CALLS) + ["einsum"] + SIG_OFTEN
        fname = self.choice(names)
        dims = {"n": self.choice([3, 2, 4]), "m": self.choice([2, 3, 4]), "k": self.choice([2, 3])}
        # sizes of the variables at hand, so operands are often the arguments themselves
        # (random entries: a rule that mixes up axes shows; constant-filled arrays hide it)
        mats = [v for v in env if _is_mat(v.ty)]
        vecs = [v for v in env if _is_vec(v.ty) and v.ty[1] > 1]
        if mats and self.flag():
            dims["n"], dims["m"] = self.choice(mats).ty[1:]
        if vecs and self.flag():
            dims[self.choice(["k", "n", "m"])] = self.choice(vecs).ty[1]
        dims["B"] = self.choice([2, dims["n"]])           # B == n catches rules that reverse all axes
        tags = set()
        if fname == "einsum":
            spec = self.choice(EINSUMS)
            shapes = [tuple(dims[c] for c in s) for s in spec[1:]]
            template = f"np.einsum('{spec[0]}', " + ", ".join("{%d}" % j for j in range(len(shapes))) + ")"
            tags.add("einsum")
            operands = [("x", s) for s in shapes]
            return self._try_form(template, operands, tags)
        kinds, shape_choices, pnames, has_method = SIG_CALLS[fname]
        pick = self.choice(shape_choices)
        pick = (pick,) if isinstance(pick, str) else pick
        shapes = [tuple(dims[c] for c in s) for s in pick]
        operands = list(zip(kinds, shapes))
        if any(len(s) == 3 for s in shapes):
            tags.add("matmul_batch" if fname in ("np.matmul", "np.dot") else "batch_linalg")
        if fname in ("np.linalg.cholesky",):
            tags.add("cholesky")
        if fname == "np.linalg.slogdet":
            tags.add("slogdet")
        sig = signature_of(eval(fname, {"np": np}))
        params = [p for p in sig.parameters.values()][1:]
        chosen = {}
        for p in params:
            if p.name in pnames and (self.draw(st.integers(0, 3)) > 0 or p.default is inspect.Parameter.empty):
                chosen[p.name] = self.choice(SIG_VALUES[p.name])
        if fname == "np.roll" and "shift" not in chosen:
            chosen["shift"] = "1"
        n_ops = len(operands)
        if fname in ("np.concatenate", "np.stack"):
            first = self.choice(["({0}, {1})", "[{0}, {1}]"])
        else:
            first = ", ".join("{%d}" % j for j in range(n_ops))
            params = params[n_ops - 1:]
        # the positional prefix: parameters up to `cut` by position (defaults filled in),
        # the rest by keyword
        cut = 0
        while cut < len(params) and params[cut].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                         inspect.Parameter.POSITIONAL_OR_KEYWORD) \
                and (params[cut].name in chosen or _writable(params[cut].default)):
            cut += 1
        last = max([j + 1 for j, p in enumerate(params) if p.name in chosen], default=0)
        cut = self.draw(st.integers(0, min(cut, last)))
        args = []
        for j, p in enumerate(params):
            if j < cut:
                args.append(chosen.get(p.name, repr(p.default)))
                if p.name in chosen:
                    tags.add("sig_positional")
            elif p.name in chosen:
                args.append(f"{p.name}={chosen[p.name]}")
                tags.add("sig_keyword")
        method = has_method and n_ops == 1 and self.draw(st.integers(0, 2)) == 0
        short = fname.split(".")[-1]
        if method and fname == "np.transpose" and "axes" in chosen and chosen["axes"] != "None" and self.flag():
            template = "{0}.transpose(%s)" % chosen["axes"][1:-1]
        elif method:
            template = "{0}.%s(%s)" % (short, ", ".join(args))
        elif fname == "np.matmul" and self.flag():
            template = "({0} @ {1})"
        else:
            template = f"{fname}({', '.join([first] + args)})"
        if method:
            tags.add("method_call")
        for pname, value in chosen.items():
            if pname in ("axis", "axis1", "axis2", "source", "destination"):
                tags.add("none_axis" if value == "None" else "tuple_axis" if value.startswith("(")
                         else "neg_axis" if value.startswith("-") else "sig_call")
            if pname == "keepdims" and value == "True":
                tags.add("keepdims_kw")
            if pname == "ddof" and value != "0":
                tags.add("ddof")
            if pname == "ord" and value != "None":
                tags.add("norm_ord")
            if pname in ("k", "offset") and value != "0":
                tags.add("offset_k")
            if fname == "np.roll" and pname == "axis" and value != "None":
                tags.add("roll_axis")
            if pname == "axes" and value != "None":
                tags.add("transpose_axes")
            if fname in ("np.take", "np.repeat", "np.diff", "np.sort") and pname == "axis" and value != "None":
                tags.add("index_axis")
        return self._try_form(template, operands, tags)

    def _try_form(self, template, operands, tags):
        """The form run on NumPy with inputs of the operands' kinds and shapes: None if
        NumPy refuses it (or warns, or gives a non-float, non-finite or 4-d result)."""
        rng = np.random.default_rng(len(template))
        names = {"np": np}
        texts = []
        for j, (kind, shape) in enumerate(operands):
            names[f"_o{j}"] = rng.uniform(-2.0, 2.0, shape)
            texts.append(_prepared(kind, shape, f"_o{j}"))
        is_tuple = "slogdet" in template
        try:
            with warnings.catch_warnings(), np.errstate(all="raise"):
                warnings.simplefilter("error")
                out = eval(template.format(*texts), names)
        except Exception:  # noqa: BLE001 - NumPy refuses the form: draw another
            return None
        if is_tuple:
            out = out[1]
        out = np.asarray(out)
        if out.dtype.kind != "f" or out.ndim > 3 or not np.all(np.isfinite(out)) or 0 in out.shape:
            return None
        if ("std" in template or "norm" in template) and np.any(np.abs(out) < 1e-3):
            return None         # a square root at 0 (one value per row): not differentiable there
        return template, operands, out.shape, tags, is_tuple

    def operand(self, env, kind, shape, pad):
        """``(text, statements before)``: an expression of ``shape`` prepared for ``kind``."""
        if len(shape) == 3:
            parts = [self.expr(env, M(shape[1], shape[2]), 1) for _ in range(shape[0])]
            e = f"np.stack(({', '.join(parts)},))"
        else:
            e = self.expr(env, V(shape[0]) if len(shape) == 1 else M(*shape), 1)
        lines = []
        if not _simple(e):
            e = f"({e})"          # a method or an index applies to the whole operand
        if kind == "s" and not _simple(e):
            name = self.fresh("u")
            lines.append(f"{pad}{name} = {e}")
            e = name
        return _prepared(kind, shape, e), lines

    def list_of_arrays(self, env, pad, indent, depth):
        """``hs = []``; a loop appends vectors; ``np.stack(hs)`` / ``np.array(hs)``."""
        self.tags.add("stack_list")
        self.tags.add("list")
        acc, i = self.fresh("hs"), self.fresh("i")
        k, n = self.choice([3, 2, 4]), self.size()
        inner = list(env) + [_Var(i, ("i", k))]
        lines = [f"{pad}{acc} = []", f"{pad}for {i} in range({k}):"]
        lines += self.block(inner, self.draw(st.integers(0, 1)), (len(pad) // 4) + 1, depth + 1, in_loop=False)
        lines.append(f"{pad}    {acc}.append({self.expr(inner, V(n), 2)})")
        name = self.fresh()
        form = self.choice(["np.stack({})", "np.array({})", "np.stack({}, axis=1)", "np.vstack({})"])
        lines.append(f"{pad}{name} = {form.format(acc)}")
        env.append(_Var(name, M(n, k) if "axis=1" in form else M(k, n)))
        return lines

    def view_write(self, env, pad):
        """A write through a view of an owned array: ``z = y[1:]; z[0] = ...``."""
        owned = [v for v in env if v.owned and v.ty[0] in "vm" and v.ty[1] > 1]
        if not owned:
            ty = self.choice([V(self.choice([3, 2, 4])), M(self.choice([3, 2]), self.size())])
            name = self.fresh("y")
            env.append(_Var(name, ty, owned=True))
            lines = [f"{pad}{name} = ({self.expr(env[:-1], ty, 1)}).copy()"]
            v = env[-1]
        else:
            v, lines = self.choice(owned), []
        self.tags.add("view_write")
        n = v.ty[1]
        if _is_vec(v.ty):
            views = [(f"{v.name}[1:]", V(n - 1)), (f"{v.name}[::2]", V((n + 1) // 2)), (f"{v.name}[:-1]", V(n - 1))]
        else:
            m = v.ty[2]
            views = [(f"{v.name}[1:]", M(n - 1, m)), (f"{v.name}.T", M(m, n)), (f"{v.name}[0]", V(m)),
                     (f"{v.name}[:, 1:]", M(n, m - 1)) if m > 1 else (f"{v.name}[1]", V(m)),
                     (f"{v.name}.reshape({n * m})", V(n * m))]
        view, vty = self.choice(views)
        z = self.fresh("z")
        if self.flag():
            alts = [w for w in views if w[1] == vty and w[0] != view]
            if alts:
                self.tags.add("view_join")
                view = f"{view} if {self.cond(env, 1)} else {self.choice(alts)[0]}"
        lines.append(f"{pad}{z} = {view}")
        op = self.choice(["=", "+=", "*="])
        if self.flag():
            target = f"{z}[:]" if op == "=" else z          # `z = ...` would rebind the name
            lines.append(f"{pad}{target} {op} {self.expr(env, vty if self.flag() else S, 1)}")
        elif _is_vec(vty):
            lines.append(f"{pad}{z}[{self.draw(st.integers(0, vty[1] - 1))}] {op} {self.expr(env, S, 1)}")
        else:
            lines.append(f"{pad}{z}[{self.draw(st.integers(0, vty[1] - 1))}] {op} {self.expr(env, V(vty[2]), 1)}")
        return lines

    # -- statements --------------------------------------------------------------------
    def block(self, env, n, indent, depth, in_loop=False):
        """``n`` statements; new variables stay local to the block."""
        env = list(env)
        lines = []
        for _ in range(n):
            lines += self.statement(env, indent, depth, in_loop)
        return lines

    def statement(self, env, indent, depth, in_loop):
        pad = "    " * indent
        kinds = ["assign", "reassign", "augassign", "inplace"]
        if depth < self.max_depth:
            kinds += ["if", "for_range", "for_elements", "while", "list"]
        if self.ok("sig_call") and not self.f32:
            kinds += ["npcall"] * 6 + ["view_write"]
        if in_loop:
            kinds += ["break", "continue"]
            if not self.in_helper:
                kinds.append("early_return")
        kind = self.choice(kinds)
        e = lambda ty, d=2: self.expr(env, ty, d)  # noqa: E731
        if kind == "reassign":
            targets = [v for v in env if v.ty[0] in "svm" and not v.name.startswith("x")]
            if not targets:
                kind = "assign"
            else:
                v = self.choice(targets)
                v.owned = False
                return [f"{pad}{v.name} = {e(v.ty)}"]
        if kind == "assign":
            ty = self.pick_type(env)
            name = self.fresh()
            line = f"{pad}{name} = {e(ty)}"
            env.append(_Var(name, ty))
            return [line]
        if kind == "augassign":
            scal = [v for v in env if v.ty == S and not v.name.startswith("x")]
            if not scal:
                name = self.fresh("s")
                line = f"{pad}{name} = {e(S)}"
                env.append(_Var(name, S))
                return [line]
            v = self.choice(scal)
            op = self.choice(["+=", "-=", "*="])
            rhs = e(S) if op != "*=" else f"np.tanh({e(S)})"
            return [f"{pad}{v.name} {op} {rhs}"]
        if kind == "inplace":
            return self.inplace(env, pad)
        if kind == "npcall":
            return self.npcall(env, pad)
        if kind == "view_write":
            return self.view_write(env, pad)
        if kind == "list" and self.ok("stack_list") and self.draw(st.integers(0, 2)) == 0:
            return self.list_of_arrays(env, pad, indent, depth)
        if kind == "if":
            self.tags.add("if")
            lines = [f"{pad}if {self.cond(env, 2)}:"]
            lines += self.block(env, self.n_inner(), indent + 1, depth + 1, in_loop)
            if self.flag():
                self.tags.add("elif")
                lines.append(f"{pad}elif {self.cond(env, 1)}:")
                lines += self.block(env, self.n_inner(), indent + 1, depth + 1, in_loop)
            if self.flag():
                lines.append(f"{pad}else:")
                lines += self.block(env, self.n_inner(), indent + 1, depth + 1, in_loop)
            return lines
        if kind in ("for_range", "for_elements", "while", "list"):
            return self.loop(kind, env, pad, indent, depth)
        if kind in ("break", "continue"):
            self.tags.add(kind)
            return [f"{pad}if {self.cond(env, 1)}:", f"{pad}    {kind}"]
        if kind == "early_return":
            self.tags.add("early_return")
            return [f"{pad}if {self.cond(env, 1)}:", f"{pad}    return {self.ret_expr(env)}"]
        raise AssertionError(kind)

    def n_inner(self):
        return self.draw(st.integers(1, 2))

    def pick_type(self, env):
        tys = sorted({v.ty for v in env if v.ty[0] in "svm"}, key=str)
        n = self.size()
        return self.choice([S] + tys + [V(n), M(n, self.size())])

    def inplace(self, env, pad):
        owned = [v for v in env if v.owned and v.ty[0] in "vm"]
        if not owned or self.flag():
            ty = self.choice([V(self.size()), M(self.size(), self.size())])
            name = self.fresh("z")
            src = self.expr(env, ty, 1)
            line = f"{pad}{name} = ({src}).copy()" if self.flag() else \
                f"{pad}{name} = np.zeros({ty[1] if _is_vec(ty) else (ty[1], ty[2])}{', dtype=np.float32' if self.f32 else ''})"
            v = _Var(name, ty, owned=True)
            env.append(v)
            return [line] + self.inplace_on(env, v, pad)
        return self.inplace_on(env, self.choice(owned), pad)

    def inplace_on(self, env, v, pad):
        op = self.choice(["=", "+=", "-=", "*="])
        self.tags.add("inplace_set" if op == "=" else "inplace_add")
        loops = [w for w in env if w.ty[0] == "i" and w.ty[1] <= v.ty[1]]
        kind = self.choice(["elem", "whole", "row"])
        if kind == "whole":
            self.tags.add("inplace_array")
            if op == "=":
                op = "+="
            rhs = self.expr(env, v.ty if self.flag() else S, 2)
            return [f"{pad}{v.name} {op} {rhs}"]
        i = self.choice(loops).name if loops and self.flag() else str(self.draw(st.integers(0, v.ty[1] - 1)))
        if _is_vec(v.ty):
            return [f"{pad}{v.name}[{i}] {op} {self.expr(env, S, 2)}"]
        if kind == "row":
            return [f"{pad}{v.name}[{i}] {op} {self.expr(env, V(v.ty[2]), 2)}"]
        j = self.draw(st.integers(0, v.ty[2] - 1))
        return [f"{pad}{v.name}[{i}, {j}] {op} {self.expr(env, S, 2)}"]

    def loop(self, kind, env, pad, indent, depth):
        self.loop_depth += 1
        try:
            return self._loop(kind, env, pad, indent, depth)
        finally:
            self.loop_depth -= 1

    def _loop(self, kind, env, pad, indent, depth):
        inner = list(env)
        lines = []
        if kind == "for_range":
            i = self.fresh("i")
            vecs = [v for v in env if _is_vec(v.ty) or _is_mat(v.ty)]
            if vecs and self.flag():
                a = self.choice(vecs)
                self.tags.add("for_shape")
                k = a.ty[1]
                lines.append(f"{pad}for {i} in range({self.choice([f'{a.name}.shape[0]', f'len({a.name})'])}):")
            else:
                ints = [v for v in env if v.ty[0] == "int"]
                if ints and self.flag():
                    self.tags.add("int_arg")
                    k = ints[0].ty[1]
                    lines.append(f"{pad}for {i} in range({ints[0].name}):")
                else:
                    k = self.choice([3, 2, 1, 4])
                    lines.append(f"{pad}for {i} in range({k}):")
            self.tags.add("for_range")
            inner.append(_Var(i, ("i", k)))
            lines += self.block(inner, self.n_inner(), indent + 1, depth + 1, in_loop=True)
            return lines
        if kind == "for_elements":
            arrs = [v for v in env if v.ty[0] in "vm"]
            self.tags.add("for_elements")
            if not arrs:
                src, ety = f"np.linspace(0.0, 1.0, 3) * ({self.expr(env, S, 1)})", S
            else:
                a = self.choice(arrs)
                src, ety = a.name, (S if _is_vec(a.ty) else V(a.ty[2]))
            e = self.fresh("e")
            if self.flag() and ety == S:
                self.tags.add("enumerate")
                j = self.fresh("j")
                lines.append(f"{pad}for {j}, {e} in enumerate({src}):")
                inner.append(_Var(j, ("idx",)))
            else:
                lines.append(f"{pad}for {e} in {src}:")
            inner.append(_Var(e, ety))
            lines += self.block(inner, self.n_inner(), indent + 1, depth + 1, in_loop=True)
            return lines
        if kind == "while":
            self.tags.add("while")
            k = self.fresh("k")
            bound = self.choice([3, 2, 4])
            lines.append(f"{pad}{k} = 0")
            cond = f"{k} < {bound}"
            if self.flag():
                self.tags.add("while_data")
                cond += f" and {self.cond(env, 1)}"
            lines.append(f"{pad}while {cond}:")
            lines.append(f"{pad}    {k} += 1")
            lines += self.block(inner, self.n_inner(), indent + 1, depth + 1, in_loop=True)
            return lines
        if kind == "list":
            self.tags.add("list")
            acc = self.fresh("acc")
            i = self.fresh("i")
            k = self.choice([3, 2, 4])
            lines.append(f"{pad}{acc} = []")
            lines.append(f"{pad}for {i} in range({k}):")
            inner.append(_Var(i, ("i", k)))
            body = self.block(inner, self.draw(st.integers(0, 2)), indent + 1, depth + 1, in_loop=False)
            lines += body
            lines.append(f"{pad}    {acc}.append({self.expr(inner, S, 2)})")
            name = self.fresh()
            if self.flag():
                lines.append(f"{pad}{name} = sum({acc})")
                env.append(_Var(name, S))
            else:
                lines.append(f"{pad}{name} = np.array({acc})")
                env.append(_Var(name, V(k)))
            return lines
        raise AssertionError(kind)

    def ret_expr(self, env):
        return ", ".join(self.expr(env, t, 2) for t in self.ret_ty) if len(self.ret_ty) > 1 else \
            self.expr(env, self.ret_ty[0], 2)

    # -- whole program -----------------------------------------------------------------
    def helper(self, k):
        n = self.draw(st.integers(1, 2))
        ptys = [self.choice([S, V(self.size())]) for _ in range(n)]
        rty = self.choice([S] + ptys)
        params = [_Var(f"a{j}", t) for j, t in enumerate(ptys)]
        env = list(params)
        saved = self.in_helper
        self.in_helper = True
        body = self.block(env, self.draw(st.integers(0, 2)), 1, self.max_depth - 1)
        # the block's variables are local to it: the return reads the parameters
        ret = self.expr(params, rty, 2)
        self.in_helper = saved
        name = f"h{k}"
        src = [f"def {name}({', '.join(p.name for p in params)}):"] + body + [f"    return {ret}"]
        self.helper_sources.append("\n".join(src))
        self.helpers.append((name, ptys, rty))

    def inner_grad(self, env, v):
        """``tg = sstad.grad(g)(x)`` inside the program, ``g`` a scalar function of a vector."""
        self.tags.add("inner_grad")
        a = _Var("a", v.ty)
        self.grad_source = f"def g(a):\n    return {self.expr([a], S, 2)}\n"
        name = self.fresh("tg")
        env.append(_Var(name, v.ty))
        return [f"    {name} = sstad.grad(g)({v.name})"]

    def program(self):
        self.f32 = self.ok("float32") and self.draw(st.integers(0, 7)) == 7
        if self.f32:
            self.tags.add("float32")
        dtype = np.float32 if self.f32 else np.float64
        n_helpers = self.draw(st.integers(0, 1)) if self.ok("helper") else 0
        for k in range(n_helpers):
            self.helper(k)
        # arguments
        n_args = self.draw(st.integers(1, 3))
        params, env, arg_specs, prologue = [], [], [], []
        for a in range(n_args):
            kind = self.choice(["vec", "mat", "scalar", "pytree", "int"]) if a > 0 else self.choice(["vec", "mat", "scalar", "pytree"])
            name = f"x{a}"
            if kind == "vec":
                ty = V(self.size())
                arg_specs.append(("array", (ty[1],)))
                env.append(_Var(name, ty))
            elif kind == "mat":
                ty = M(self.size(), self.size())
                arg_specs.append(("array", (ty[1], ty[2])))
                env.append(_Var(name, ty))
            elif kind == "scalar" and not self.f32:
                self.tags.add("scalar_arg")
                arg_specs.append(("float", ()))
                env.append(_Var(name, S))
            elif kind == "int":
                self.tags.add("int_arg")      # an int argument (not differentiated); loops use it
                k = self.choice([2, 3, 1])
                arg_specs.append(("int", k))
                env.append(_Var(name, ("int", k)))
            else:
                self.tags.add("pytree_arg")
                n, m = self.size(), self.size()
                if self.flag():
                    arg_specs.append(("dict", {"w": (n, m), "b": (n,)}))
                    prologue += [f"    {name}w = {name}[\"w\"]", f"    {name}b = {name}.get(\"b\")"]
                    env += [_Var(f"{name}w", M(n, m)), _Var(f"{name}b", V(n))]
                else:
                    arg_specs.append(("tuple", ((n,), (m,))))
                    prologue += [f"    {name}p, {name}q = {name}"]
                    env += [_Var(f"{name}p", V(n)), _Var(f"{name}q", V(m))]
            params.append(name)
        out_kind = self.choice(["scalar", "array", "tuple", "dict"])
        if out_kind == "scalar":
            self.ret_ty = [S]
        elif out_kind == "array":
            self.tags.add("array_out")
            self.ret_ty = [self.choice([V(self.size()), M(self.size(), self.size())])]
        elif out_kind == "tuple":
            self.tags.add("tuple_out")
            self.ret_ty = [S, V(self.size())]
        else:
            self.tags.add("dict_out")
            self.ret_ty = [S, V(self.size())]
        body = []
        vecs = [v for v in env if _is_vec(v.ty)]
        if vecs and not self.f32 and self.ok("sig_call") and self.draw(st.integers(0, 24)) == 0:
            body += self.inner_grad(env, self.choice(vecs))
        for _ in range(self.draw(st.integers(1, self.max_statements))):
            body += self.statement(env, 1, 0, False)      # top-level variables stay in env
        ret = self.ret_expr(env)
        if out_kind == "dict":
            a, b = _split_top(ret)
            ret = f"{{\"value\": {a}, \"vector\": {b}}}"
        src = ["import math", "import numpy as np", ""]
        if self.grad_source:
            src = ["import math", "import numpy as np", "import sstad", "", "", self.grad_source, ""]
        for h in self.helper_sources:
            src += ["", h, ""]
        src += ["", f"def f({', '.join(params)}):"] + prologue + body + [f"    return {ret}", ""]
        if out_kind == "dict":
            # early returns must return the same structure
            src = [line.replace("return ", "return _D(") + ")" if line.strip().startswith("return ") and
                   line != f"    return {ret}" else line for line in src]
            if any("_D(" in line for line in src):
                src.insert(3, "\ndef _D(a, b):\n    return {\"value\": a, \"vector\": b}\n")
                self.tags.add("helper")
        return "\n".join(src), arg_specs, dtype


def _simple(text):
    return text.replace("_", "").isalnum()


def _writable(default):
    """A parameter default that can be written positionally (not NumPy's ``<no value>``)."""
    return default is None or isinstance(default, (bool, int, float, str))


def _offsets(shape):
    size = int(np.prod(shape))
    return f"np.arange({size})" if len(shape) == 1 else f"np.arange({size}).reshape{shape}"


def _prepared(kind, shape, e):
    """``e`` moved away from the kinks and singular points of the calls taking ``kind``."""
    if kind == "d":
        return f"({e} + 0.37 * {_offsets(shape)})"
    if kind == "p":
        return f"(np.tanh({e}) + 1.5 + 0.13 * {_offsets(shape)})"
    if kind == "m":
        return f"(np.eye({shape[-1]}) * 6.0 + np.tanh({e}))"
    if kind == "s":
        return f"(np.eye({shape[-1]}) * 2.0 + np.tanh({e}) @ np.swapaxes(np.tanh({e}), -1, -2))"
    return e


def _split_top(text):
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            return text[:i].strip(), text[i + 1:].strip()
    raise AssertionError(text)


def _draw_args(draw, specs, dtype):
    args = []
    for kind, spec in specs:
        if kind == "array":
            args.append(draw(hnp.arrays(dtype, spec, elements=safe_floats(dtype))))
        elif kind == "float":
            args.append(float(draw(safe_floats(np.float64))))
        elif kind == "int":
            args.append(spec)
        elif kind == "dict":
            args.append({k: draw(hnp.arrays(dtype, s, elements=safe_floats(dtype))) for k, s in spec.items()})
        else:
            args.append(tuple(draw(hnp.arrays(dtype, s, elements=safe_floats(dtype))) for s in spec))
    return tuple(args)


@st.composite
def programs(draw, max_statements=4, max_depth=2, python_only=True, constructs=None):
    """Functions in the supported subset, with arguments (see :class:`Program`).

    ``python_only=False`` keeps to what Numba compiles too; ``constructs`` (a set of
    tags from :data:`CONSTRUCTS`) restricts the expression forms used."""
    gen = _Gen(draw, max_statements, max_depth, python_only, None if constructs is None else set(constructs))
    source, specs, dtype = gen.program()
    args = _draw_args(draw, specs, dtype)
    return Program(source, args, gen.tags, python_only=gen.python_only, dtype=dtype)
