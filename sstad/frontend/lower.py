"""Lower a Python function, specialised to one argument signature, into an IR module.

Lowering and type inference happen together: each primitive's type rule runs as its
application is built, so the lowering knows shapes of containers, ranks of arrays and
which ``+=`` writes in place.  Helper functions are inlined; recursive ones become
separate IR functions called with :class:`ir.Call`.
"""
from __future__ import annotations

import gast

import numpy as np

from sstad.errors import SstadTypeError, UnsupportedSyntaxError, inside_sstad
from sstad.frontend.builder import Builder
from sstad.frontend.calls import CallLowering
from sstad.frontend.expressions import ExpressionLowering
from sstad.frontend.pytree import (NamedTupleValue, PytreeObject, flatten, is_atom, object_layout,
                                   object_values, same_treedef, unflatten)
from sstad.frontend.scope import Scope, assigned_names
from sstad.frontend.source import closure_values, function_node, loc_of
from sstad.frontend.statements import StatementLowering
from sstad.frontend.views import ViewWrites
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A

MAX_RECURSION_PASSES = 6


class Capture:
    """An array the function reads from its globals or a closure cell.

    It becomes a parameter of the entry function, fetched afresh at every call, so
    rebinding the global is seen and Numba never freezes it as a constant."""

    def __init__(self, name, where, container, value, var, frozen=None, path=()):
        self.name, self.where, self.container, self.var = name, where, container, var
        self.type = A.of_value(value)
        self.frozen = frozen
        self.path = path         # where in the global's tuple/list/dict the array sits

    def still_valid(self):
        """Is the captured value still of the compiled type (and value, for numbers)?"""
        try:
            value = self.fetch()
        except (KeyError, ValueError, IndexError, TypeError):
            return False
        if self.frozen is not None:
            return type(value) is type(self.frozen) and value == self.frozen
        return A.of_value(value) == self.type

    def fetch(self):
        if self.where == "cell":
            value = self.container.cell_contents
        elif self.where == "attr":
            value = getattr(self.container, self.name)
        elif self.where == "value":          # a default argument: the object itself
            value = self.container
        else:
            value = self.container[self.name]
        for key in self.path:
            value = value[key]
        return value


def fingerprint(value):
    """What compiled code assumes about a global's value: numbers and strings by value,
    arrays by dtype and rank (their contents are read at each call), containers by their
    structure, any other object by identity (its attributes have guards of their own)."""
    if isinstance(value, (bool, int, float, complex, str, bytes, np.generic, type(None))):
        return (type(value), value)
    if isinstance(value, np.ndarray):
        return ("array", value.dtype, value.ndim)
    if type(value) in (tuple, list):
        return (type(value), tuple(fingerprint(v) for v in value))
    if type(value) is dict:
        return (dict, tuple((k, fingerprint(v)) for k, v in value.items()))
    return ("object", id(value))


class ValueGuard(Capture):
    """A global or closure variable holding a structure or an object: checked before each
    call, so rebinding it (or changing a number inside it) recompiles."""

    def __init__(self, name, where, container, value):
        super().__init__(name, where, container, value, None, frozen=True)
        self.expected = fingerprint(value)

    def still_valid(self):
        try:
            return fingerprint(self.fetch()) == self.expected
        except (KeyError, ValueError):
            return False


class AttributeGuard:
    """An attribute of an object compiled in as a constant: checked before each call."""
    frozen = True      # compiled in, not passed

    def __init__(self, obj, attr, value):
        self.obj, self.name, self.value = obj, attr, value

    def still_valid(self):
        try:
            now = getattr(self.obj, self.name)
        except AttributeError:
            return False
        if now is self.value:
            return True
        try:
            return type(now) is type(self.value) and bool(now == self.value)
        except Exception:            # no plain equality: a new object means a new compile
            return False


class Lowerer(ViewWrites, Builder, StatementLowering, ExpressionLowering, CallLowering):
    def __init__(self):
        super().__init__()
        self.scope = None
        self.inlining = []
        self.views = set()
        self.pinned_loc = None       # the user's call while a composite is inlined
        self.caller_loc = None       # the user's call whose derivative rule is being inlined
        self.lifted = {}             # id(a lifted closure's globals) -> {name: IR value here}
        self.view_origin = {}        # a view -> the statement that made it (sstad/frontend/views.py)
        self.newer = {}              # an array or view -> (the block, its version after a write there)
        self.unfollowed = {}         # an array whose aliases sstad cannot follow -> (what it is, hint)
        self.listed = set()          # arrays whose memory a run-time list holds
        self.captures = {}
        self.frozen = []             # global numbers compiled in as constants
        self.functions = {}          # recursion: (fn, signature) -> [Function | None, guess]
        self.first_guesses = set()   # recursive calls' results before their type is known
        self.order = []
        self.in_entry = True

    # --- locations -----------------------------------------------------------------
    def loc_of(self, node):
        return loc_of(node, self.scope.filename if self.scope else "<unknown>")

    def at(self, node):
        if getattr(node, "lineno", None):
            loc = self.loc_of(node)
            # inside sstad's definition of a NumPy function, statements belong to the call
            self.loc = self.pinned_loc if self.pinned_loc is not None and inside_sstad(loc.file) else loc

    # --- captured arrays -----------------------------------------------------------
    def attribute_guard(self, obj, attr, value):
        return AttributeGuard(obj, attr, value)

    def value_guard(self, name, where, value):
        return ValueGuard(name, where, self._container_of(name, where), value)

    def capture(self, value, name, where, node, container=None, path=()):
        key = (id(value), path)
        if key not in self.captures or not self.in_entry:
            if not self.in_entry:
                raise self.error(UnsupportedSyntaxError,
                                 f"recursive functions cannot read the global array `{name}`", node,
                                 "pass the array as an argument")
            container = container if container is not None else self._container_of(name, where)
            var = ir.Var(name or "g", A.of_value(value))
            self.captures[key] = Capture(name, where, container, value, var, path=path)
        return self.captures[key].var

    def frozen_constant(self, name, where, value):
        """A global number compiled in as a constant: the cache checks it before each call."""
        return Capture(name, where, self._container_of(name, where), value, None, frozen=value)

    def _container_of(self, name, where):
        s = self.scope
        while s.parent is not None:
            s = s.parent
        if where == "cell":
            fn = s.function
            return fn.__closure__[fn.__code__.co_freevars.index(name)]
        return s.globals

    # --- functions -----------------------------------------------------------------
    def function_scope(self, fn, env):
        fn_node, filename = function_node(fn)
        self.check_signature(fn_node.args, fn_node)
        scope = Scope(env, assigned_names(statements_of(fn_node)) | set(env), filename, None,
                      fn.__globals__, closure_values(fn))
        scope.declared_global = set()
        scope.function = fn
        return fn_node, scope

    def lower_function(self, fn, arg_values, name):
        """An IR function for ``fn`` applied to ``arg_values`` (atoms and structures)."""
        fn_node, filename = function_node(fn)
        self.scope = Scope({}, set(), filename)       # for errors while binding arguments
        _, params = flatten(tuple(arg_values))
        env = self.bind_arguments(fn_node.args, self.python_defaults(fn, fn_node),
                                  list(arg_values), {}, fn_node, fn.__name__)
        fn_node, scope = self.function_scope(fn, env)
        self.scopes, self.scope, self.stmts = [scope], scope, []
        self.inlining = [fn]
        self.at(fn_node)
        loc = self.loc
        self.lower_body(statements_of(fn_node))
        result = self.function_result(fn_node)
        out_tree, leaves = flatten(result)
        results = [self.atom(leaf, fn_node) for leaf in leaves]
        for r in results:
            if r.type is A.UNKNOWN:
                raise self.error(SstadTypeError, "cannot infer the type of the result", fn_node)
        body = ir.Block([p for p in params if isinstance(p, ir.Var)], self.stmts, results)
        return ir.Function(name, body.params, body, loc), out_tree

    def call_recursive(self, fn, args, kwargs, node, custom=None):
        """A call to a function being lowered: a real call to its own specialisation.
        (Also how a function with custom rules is called: ``custom`` is its
        :class:`sstad.custom.CustomFunction`, which the derivative transforms read.)"""
        fn_node, _ = function_node(fn)
        special = fn_node.args.vararg or fn_node.args.kwarg
        if special is not None:        # its specialisation binds its arguments by position
            raise self.error(UnsupportedSyntaxError, f"`{fn.__name__}` has `{special.id}` as `*args` or "
                             "`**kwargs`: a recursive or custom-rule function cannot take them",
                             node, "list the parameters explicitly")
        env = self.bind_arguments(fn_node.args, self.python_defaults(fn, fn_node), args, kwargs,
                                  node, fn.__name__)
        ordered = tuple(env[p.id] for p in fn_node.args.args + fn_node.args.kwonlyargs)
        treedef, leaves = flatten(ordered)
        atoms = [self.atom(v, node) for v in leaves]
        key = (fn, custom, repr(treedef), tuple(str(a.type) for a in atoms))
        if key not in self.functions:
            self.functions[key] = {"function": None, "guess": (("leaf",), [A.UNKNOWN]), "used": False}
            self.specialise(fn, key, treedef, atoms)
            self.functions[key]["function"].custom = custom
        entry = self.functions[key]
        out_tree, out_types = entry["guess"]
        entry["used"] = True
        outs = [ir.Var(python_name(fn.__name__), t) for t in out_types]
        self.first_guesses.update(o for o in outs if o.type is A.UNKNOWN)
        self.stmts.append(ir.Call(outs, entry, atoms, self.loc))   # callee resolved in lower()
        return unflatten(out_tree, outs)

    def specialise(self, fn, key, treedef, atoms):
        saved = (self.scope, self.scopes, self.stmts, self.inlining, self.loc, self.in_entry)
        entry = self.functions[key]
        try:
            self.in_entry = False
            for _ in range(MAX_RECURSION_PASSES):
                params = [ir.Var(getattr(a, "hint", "x"), a.type) for a in atoms]
                args = unflatten(treedef, params)
                entry["used"] = False
                function, out_tree = self.lower_function(fn, list(args), self.unique_name(python_name(fn.__name__)))
                function.params = params
                function.body.params = params
                guess = (out_tree, [r.type for r in function.body.results])
                settled = same_treedef(guess[0], entry["guess"][0]) and guess[1] == entry["guess"][1]
                entry["guess"] = guess
                entry["function"] = function
                if settled or not entry["used"]:
                    break
            else:
                raise self.error(SstadTypeError, f"cannot infer the result type of recursive `{fn.__name__}`")
        finally:
            self.scope, self.scopes, self.stmts, self.inlining, self.loc, self.in_entry = saved
        self.order.append(entry["function"])

    def unique_name(self, base):
        """Specialisations are ``f_1``, ``f_2``...; the entry keeps the plain name."""
        taken = {f.name for f in self.order}
        k = 1
        while f"{base}_{k}" in taken:
            k += 1
        return f"{base}_{k}"


def lower(fn, args, name=None):
    """Lower ``fn`` for the run-time arguments ``args`` (a tuple of pytrees).

    Returns ``(module, in_tree, out_tree, captures)``: the IR module, the structure of
    the arguments and of the result, and the captured globals: arrays (extra parameters
    after the argument leaves) and numbers compiled in as constants."""
    lowerer = Lowerer()
    in_tree, leaves = flatten_runtime(args)
    params = [ir.Var("x", A.of_value(v)) for v in leaves]
    arg_values = unflatten_runtime(in_tree, params)
    function, out_tree = lowerer.lower_function(fn, arg_values, name or python_name(fn.__name__))
    _name_params(function, fn, arg_values)
    captures = list(lowerer.captures.values())
    function.params = function.params + [c.var for c in captures]
    function.body.params = function.params
    # recursive specialisations refer to their table entries; resolve them now
    for stmt in _all_calls(lowerer.order + [function]):
        stmt.callee = stmt.callee["function"] if isinstance(stmt.callee, dict) else stmt.callee
    module = ir.Module(lowerer.order + [function])
    return module, in_tree, out_tree, captures + lowerer.frozen


def _all_calls(functions):
    for f in functions:
        for stmt in ir.walk(f.body):
            if isinstance(stmt, ir.Call):
                yield stmt


def _name_params(function, fn, arg_values):
    """Give argument leaves the user's parameter names (``W``, ``params_b``)."""
    fn_node, _ = function_node(fn)
    for param, value in zip(fn_node.args.args, arg_values):
        _, leaves = flatten(value)
        keyed = _leaf_paths(value, param.id)
        for leaf, path in zip(leaves, keyed):
            leaf.hint = path


def _leaf_paths(value, prefix):
    if is_atom(value):
        return [prefix]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaf_paths(v, f"{prefix}_{k}")]
    if isinstance(value, (PytreeObject, NamedTupleValue)):
        return [p for k, v in zip(value.layout[1], value.values) if k not in value.layout[2]
                for p in _leaf_paths(v, f"{prefix}_{k}")]
    if isinstance(value, (tuple, list)):
        return [p for i, v in enumerate(value) for p in _leaf_paths(v, f"{prefix}{i}")]
    return []


# --- run-time arguments ------------------------------------------------------------
def flatten_runtime(value):
    """Flatten run-time arguments: numbers and arrays are leaves, the rest is static.

    Tuples, lists, dicts, dataclasses, NamedTuples and SimpleNamespaces are walked; a
    field of a dataclass declared ``field(metadata={"static": True})`` is static whatever
    it holds (a hashable value: it is part of the signature)."""
    leaves = []
    return _walk_runtime(value, leaves), leaves


def _walk_runtime(v, leaves):
    """(A module-level function, not a closure: a recursive closure is a reference cycle
    that would keep the caller's arrays alive until the next garbage collection.)"""
    if isinstance(v, (bool, int, float, complex, np.generic, np.ndarray, *A.ARRAY_TYPES)):
        if isinstance(v, np.ndarray) and v.dtype == object:
            raise UnsupportedSyntaxError("arrays of Python objects are not supported")
        # a 0-d array is compiled as the number it holds (its abstract value is a scalar's)
        leaves.append(v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v)
        return ("leaf",)
    layout = object_layout(v)
    if layout is not None:
        fields = zip(layout[1], object_values(v, layout))
        return ("object", layout, tuple(static_field(layout, name, x) if name in layout[2] else _walk_runtime(x, leaves)
                                        for name, x in fields))
    if isinstance(v, (list, tuple)):
        return ("list" if isinstance(v, list) else "tuple", tuple(_walk_runtime(x, leaves) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple(v), tuple(_walk_runtime(x, leaves) for x in v.values()))
    return ("static", v)


def static_field(layout, name, value):
    try:
        hash(value)
    except TypeError:
        raise SstadTypeError(f"the field `{name}` of {layout[0].__name__} is static, so it must hold a "
                             f"hashable value, not a {type(value).__name__}", None,
                             "hold arrays in fields that are not static") from None
    return ("static", value)


unflatten_runtime = unflatten


def statements_of(fn_node):
    """A function's body as statements (a lambda's expression is its return)."""
    if isinstance(fn_node, gast.Lambda):
        return [gast.copy_location(gast.Return(value=fn_node.body), fn_node.body)]
    return fn_node.body


def python_name(name):
    """A name for emitted code: ``<lambda>`` becomes ``lambda_``."""
    return name if name.isidentifier() else "".join(c if c.isalnum() else "_" for c in name).strip("_") + "_"
