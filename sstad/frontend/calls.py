"""Lowering of calls: user functions (inlined), closures, NumPy, math, builtins, methods."""
from __future__ import annotations

import ast
import builtins
import functools
import inspect
import operator
import random
import types

import gast
import numpy as np

from sstad.errors import SstadTypeError, UnsupportedSyntaxError, at_users_line, inside_sstad
from sstad.frontend.builder import FALSE, MISSING, TRUE
from sstad.frontend.objects import call_handler as object_call
from sstad.frontend.pytree import PytreeObject, StaticList, flatten, is_atom, unflatten
from sstad.frontend.scope import Scope, assigned_names, resolve
from sstad.frontend.source import closure_values, function_node, is_user_function
from sstad.frontend.values import BoundMethod, Closure, Counted, Enumerate, Partial, RangeValue, Zip
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A
from sstad.runtime.containers import list_of
from sstad.runtime.einsum import from_sublists, without_ellipsis
from sstad.custom import CustomFunction, Remat
from sstad.runtime.composites import definition_of, name_of
from sstad.runtime.composites_stats import MASKED, extremum
from sstad.runtime.extern import describe, extern_name
from sstad.runtime.primitive import NUMPY_FUNCTIONS, Slot, bind, default_of, is_default, lookup, parameters, shown_name
from sstad.runtime.index import index_add
from sstad.runtime.reduce import REDUCTIONS, SCANS

ARRAY_METHODS = set(REDUCTIONS + SCANS) | {"reshape", "copy", "dot", "transpose", "ravel",
                                           "squeeze", "swapaxes", "clip", "round", "repeat",
                                           "trace", "diagonal", "take", "argsort", "conj", "conjugate"}
EXTREMA = ("max", "min", "amax", "amin")
SCALAR_TYPES = {float: np.float64, int: np.int64, bool: np.bool_}


class CallLowering:
    def expr_Call(self, node):
        func = self.expr(node.func)
        if func is builtins.print:
            return print_call(self, node)
        args = []
        for a in node.args:
            if not isinstance(a, gast.Starred):
                args.append(self.expr(a))
                continue
            items = static_items(self, self.expr(a.value), a.value)   # f(*xs): xs static
            if not isinstance(items, tuple):
                raise self.error(UnsupportedSyntaxError, "star-arguments `f(*xs)` need a tuple or list whose "
                                 "length is known at compile time", a,
                                 "pass the arguments one by one, or a tuple or list literal")
            args.extend(items)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is not None:
                self.set_keyword(kwargs, kw.arg, self.expr(kw.value), kw.value)
                continue
            spread = self.expr(kw.value)                             # f(**d): d a static dict
            if not isinstance(spread, dict) or not all(isinstance(k, str) for k in spread):
                raise self.error(UnsupportedSyntaxError, "`f(**d)` needs a dict with string keys known at "
                                 "compile time", kw.value, "pass keyword arguments by name")
            for key, value in spread.items():
                self.set_keyword(kwargs, key, value, kw.value)
        self.at(node)
        return self.call(func, args, kwargs, node)

    def set_keyword(self, kwargs, key, value, node):
        if key in kwargs:
            raise self.error(SstadTypeError, f"the keyword argument `{key}` is given twice", node)
        kwargs[key] = value

    def call(self, func, args, kwargs, node):
        if isinstance(func, Closure):
            return self.call_closure(func, args, kwargs, node)
        if isinstance(func, (CustomFunction, Remat)):
            return self.call_recursive(func.fun, args, kwargs, node, custom=func)
        if isinstance(func, BoundMethod):
            return self.call_method(func, args, kwargs, node)
        if isinstance(func, functools.partial):          # a partial made outside, read as a global
            func = self.partial_of_global(func, node)
        if isinstance(func, Partial):
            return self.call(func.func, list(func.args) + list(args), {**dict(func.kwargs), **kwargs}, node)
        if hasattr(func, "sstad_lower") and not isinstance(func, type):
            return self.call_transform(func, args, kwargs, node)
        definition = definition_of(func)
        if definition is not None:
            return self.call_definition(definition, name_of(func), args, kwargs, node)
        name = NUMPY_FUNCTIONS.get(id(func))
        if func is np.block and len(args) == 1 and not kwargs and isinstance(args[0], StaticList):
            joined = self.blocks_joined(args[0], node)
            if joined is not None:
                return joined
        if name == "where" and len(args) == 1 and not kwargs:
            return self.call(np.nonzero, args, kwargs, node)       # np.where(cond) is np.nonzero(cond)
        if name is not None:
            return self.call_numpy(name, args, kwargs, node)
        handler = BUILTINS.get(id(func)) or object_call(func)    # object_call: dataclasses & co.
        if handler is not None:
            return handler(self, args, kwargs, node)
        if isinstance(func, type) and (issubclass(func, np.generic) or func in SCALAR_TYPES):
            return self.convert_scalar(func, args, node)
        if is_user_function(func):
            return self.call_user(func, args, kwargs, node)
        if isinstance(func, types.MethodType) and is_user_function(func.__func__):
            # `model.loss(w, x)` of an object read from globals or attributes: inlined, `self`
            # the object, whose attributes are read as any object's (arrays at each call)
            return self.call_user(func.__func__, [func.__self__] + list(args), kwargs, node)
        if getattr(func, "__module__", None) in ("sstad.transforms", "sstad.jacobians") and args \
                and isinstance(args[0], Closure):
            return self.transform_closure(func, args, kwargs, node)
        if isinstance(getattr(func, "__self__", None), np.ufunc) and func.__name__ == "at":
            raise self.error(UnsupportedSyntaxError, f"`np.{func.__self__.__name__}.at` is not supported", node,
                             "np.add.at and np.subtract.at are; write this update as a loop over the indices")
        if callable(func) and not isinstance(func, type):
            return self.call_extern(func, args, kwargs, node)
        shown = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
        module = getattr(func, "__module__", None)
        raise self.error(UnsupportedSyntaxError,
                         f"call to `{(module + '.') if module else ''}{shown}` is not supported",
                         node, "call NumPy, math or your own Python functions (docs/subset.md), or "
                         "register it as a primitive with its rule (docs/ad.md, 'The rule table')")

    def partial_of_global(self, partial, node):
        """A ``functools.partial`` object from globals: its function and its arguments, which
        must be numbers or static values (its arrays would be fixed at compile time)."""
        bound = list(partial.args) + list(partial.keywords.values())
        if any(isinstance(v, np.ndarray) for v in bound):
            raise self.error(UnsupportedSyntaxError, "a functools.partial made outside the compiled function "
                             "holds an array", node, "make the partial inside the function, or pass the array "
                             "as an argument")
        value = lambda v: self.static(v, "functools.partial", "value", node)   # noqa: E731
        return Partial(partial.func, tuple(value(v) for v in partial.args),
                       tuple((k, value(v)) for k, v in partial.keywords.items()))

    def transform_closure(self, transform, args, kwargs, node):
        """``sstad.grad(lambda w: loss(w, x))`` inside compiled code, lambda lifted: the
        nested function is compiled again from its source as a function of its own, the
        enclosing values it reads as its globals (arrays and numbers of this function
        become its captured parameters, filled here with their IR values; constants stay
        constants; the module's globals are still read from the module).  Its transform is
        then called as ``sstad.grad(f)(w)`` is."""
        closure = args[0]
        reads = self.closure_reads(closure)
        if closure.defaults or getattr(closure.node, "decorator_list", None):
            raise self.transform_of_closure(transform, closure, node, "it has default values or decorators")
        root = closure.scope
        while root.parent is not None:
            root = root.parent
        namespace, runtime = dict(root.globals), {}
        for name in reads:
            value = resolve(closure.scope, name)[1]
            try:
                namespace[name] = stand_in(value)
            except TypeError:
                raise self.transform_of_closure(transform, closure, node, f"it reads `{name}` from here, "
                                                f"{self.describe(value)} (arrays and numbers, and tuples, list "
                                                "literals and dicts of them, can be read)") from None
            if not isinstance(value, ir.Const):
                runtime[name] = value
        tree = gast.gast_to_ast(closure.node)
        if isinstance(tree, ast.Lambda):
            lifted = eval(compile(ast.fix_missing_locations(ast.Expression(tree)), closure.filename, "eval"), namespace)
        else:
            exec(compile(ast.fix_missing_locations(ast.Module([tree], [])), closure.filename, "exec"), namespace)
            lifted = namespace[tree.name]
        self.lifted[id(namespace)] = (runtime, root.globals, set(reads))
        static = [self.python_value(a, node) for a in args[1:]]
        return transform(lifted, *static, **{k: self.python_value(v, node) for k, v in kwargs.items()})

    def python_value(self, value, node):
        """A compile-time argument as the Python value (a transform's options)."""
        if isinstance(value, ir.Const):
            return value.value
        if isinstance(value, (tuple, StaticList)):
            return type(value)(self.python_value(v, node) for v in value) if type(value) is tuple else \
                [self.python_value(v, node) for v in value]
        if is_atom(value):
            raise self.error(SstadTypeError, "a transform's options must be known at compile time", node)
        return value

    def closure_reads(self, closure):
        """The names a nested function reads from the enclosing compiled function."""
        body = closure.node.body if isinstance(closure.node.body, list) else [closure.node.body]
        own = {a.id for a in closure.node.args.args + closure.node.args.kwonlyargs} | assigned_names(body)
        return sorted({n.id for stmt in body for n in gast.walk(stmt)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in own
                       and resolve(closure.scope, n.id)[0] == "local"})

    def transform_of_closure(self, transform, closure, node, why):
        """A transform of a nested function that :meth:`transform_closure` cannot lift
        (``why``): the error says how to write it at module level instead."""
        read = self.closure_reads(closure)
        name = f"sstad.{transform.__name__}"
        params = [a.id for a in closure.node.args.args]
        call = f"{name}(f)({', '.join(params + read)})"
        how = (f"{call} differentiates with respect to the first argument (argnums=0)"
               if "argnums" in inspect.signature(transform).parameters else
               "give the extra arguments zero tangents (or ignore their cotangents)")
        return self.error(UnsupportedSyntaxError,
                          f"`{name}` of this nested function is not supported inside compiled code: {why}",
                          node, f"define `f` at module level taking those as parameters, "
                          f"`def f({', '.join(params + read)})`, and differentiate it: {how}")

    def call_extern(self, func, args, kwargs, node):
        """Library code and other functions sstad does not see into (docs/architecture.md,
        decision 9): run at compile time when every argument is a compile-time constant;
        a ``scipy.special`` function with a primitive becomes that primitive
        (runtime/special.py); anything else is called from the emitted code
        (runtime/extern.py)."""
        from sstad.frontend.lower import Capture
        from sstad.runtime.special import SCIPY
        name = extern_name(func, self.loc_of(node))
        shown = describe(name)
        if draws_random_numbers(func):
            raise self.error(UnsupportedSyntaxError, f"`{shown}` uses a random generator's hidden state, which "
                             "compiled code does not share: it would run once at compile time on constant "
                             "arguments, draw from Numba's own generator, and a derivative could draw again",
                             node, "draw the numbers outside the compiled function and pass them in "
                             "(`eps = rng.standard_normal(shape)`, then `loss(params, eps)`)")

        class Runtime(Exception):
            """A run-time value among the arguments."""

        def python(value):                 # a compile-time argument as the Python value
            if isinstance(value, ir.Const):
                return value.value
            if is_atom(value) or isinstance(value, (Closure, BoundMethod, RangeValue, Enumerate, Zip, PytreeObject)):
                raise Runtime
            if isinstance(value, StaticList):
                return [python(v) for v in value]
            if isinstance(value, tuple):
                return tuple(python(v) for v in value)
            if isinstance(value, dict):
                return {k: python(v) for k, v in value.items()}
            return value

        def frontend(value):               # a compile-time result as a frontend value
            if isinstance(value, np.ndarray) and value.ndim == 0:
                value = value[()]
            if isinstance(value, (bool, int, float, complex, np.generic)):
                return ir.Const(value)
            if isinstance(value, np.ndarray):      # an input computed before the compiled code
                if not self.in_entry or not (value.dtype.kind in "biu" or A.is_float(value.dtype)):
                    raise Runtime
                var = ir.Var(getattr(func, "__name__", "c"), A.of_value(value))
                self.captures[("extern", id(value))] = Capture(var.hint, "global", {var.hint: value}, value, var)
                return var
            if isinstance(value, list):
                return StaticList(frontend(v) for v in value)
            if type(value) is tuple:
                return tuple(frontend(v) for v in value)
            if type(value) is dict:
                return {k: frontend(v) for k, v in value.items()}
            return value

        try:
            call_args = [python(a) for a in args]
            call_kwargs = {k: python(v) for k, v in kwargs.items()}
        except Runtime:
            pass
        else:
            try:
                value = func(*call_args, **call_kwargs)
            except Exception as exc:    # the library refused: say so, at the user's line
                raise self.error(SstadTypeError, f"`{shown}` failed at compile time: "
                                 f"{type(exc).__name__}: {exc}", node) from None
            try:
                return frontend(value)
            except Runtime:
                pass
        translate = SCIPY.get(id(func))
        if translate is not None:
            unwrap = lambda v: v.value if isinstance(v, ir.Const) else (  # noqa: E731
                tuple(unwrap(x) for x in v) if type(v) is tuple else v)
            try:
                prim, prim_args, prim_kwargs = translate(*map(unwrap, args),
                                                         **{k: unwrap(v) for k, v in kwargs.items()})
            except TypeError as exc:
                raise self.error(SstadTypeError, f"`{shown}`: {exc}", node) from None
            return self.call_numpy(prim, prim_args, prim_kwargs, node)
        atoms = []

        def layout_of(value):
            if isinstance(value, ir.Const):
                return value.value
            if is_atom(value):
                atoms.append(value)
                return Slot(len(atoms) - 1)
            if isinstance(value, (tuple, StaticList)):
                return tuple(layout_of(v) for v in value)
            if value is None or isinstance(value, (str, slice, np.dtype)) or (
                    isinstance(value, type) and issubclass(value, (np.generic, float, int, bool, complex))):
                return value
            raise self.error(UnsupportedSyntaxError, f"`{shown}` cannot take {self.describe(value)} at run time",
                             node, "pass arrays, numbers, and tuples or lists of them")
        layout = (tuple(layout_of(a) for a in args), {k: layout_of(v) for k, v in kwargs.items()})
        try:
            return self.apply("extern", atoms, {"name": name, "layout": layout})
        except Exception as exc:      # its result is not one array or number, or it failed
            raise self.error(UnsupportedSyntaxError, f"call to `{shown}` is not supported: "
                             f"{getattr(exc, 'message', exc)}", node,
                             "sstad calls library functions on run-time values only if they return one "
                             "array or number; call it outside the compiled function, or see "
                             "docs/subset.md") from None

    def call_transform(self, transform, args, kwargs, node):
        """``sstad.grad(f)(x, w)`` inside compiled code: the transform is lowered for the
        arguments' types and called as a function of this module (so it can be
        differentiated again: a gradient penalty is a second derivative)."""
        if kwargs:
            raise self.error(UnsupportedSyntaxError, f"keyword arguments to `{transform.__name__}` are not "
                             "supported in compiled code", node, "pass them by position")
        treedef, leaves = flatten(tuple(args))
        atoms = [self.atom(leaf, node) for leaf in leaves]
        stand_ins = [a.value if isinstance(a, ir.Const) else A.prototype(a.type) for a in atoms]
        module, _, out_tree, guards = transform.sstad_lower(unflatten(treedef, stand_ins, list_type=list))
        for fn in module.functions:
            fn.name = self.unique_name(fn.name)
            self.order.append(fn)
        extra = []
        for g in guards:
            runtime, module_globals, reads = self.lifted.get(id(g.container), ({}, None, ()))
            if g.frozen is None and g.name in runtime:   # a lifted closure's value from here
                leaf = runtime[g.name]
                for key in g.path:                      # (an array inside a tuple, list or dict)
                    leaf = leaf[key]
                extra.append(leaf)
                continue
            if module_globals is not None and g.name not in reads:
                g.container = module_globals         # a global: fetched from the module, as the user sees it
            if g.frozen is None:                     # an array the transform reads from a global
                extra.append(self.capture(g.fetch(), g.name, g.where, node, container=g.container, path=g.path))
            else:
                self.frozen.append(g)
        entry = module.entry
        outs = [ir.Var(getattr(r, "hint", "r"), r.type) for r in entry.body.results]
        self.stmts.append(ir.Call(outs, entry, atoms + extra, self.loc))
        return unflatten(out_tree, outs)

    # --- user functions ----------------------------------------------------------
    def check_signature(self, args, node):
        if getattr(args, "posonlyargs", None):
            raise self.error(UnsupportedSyntaxError, "positional-only parameters (`/`) are not supported",
                             args.posonlyargs[0], "remove the `/` from the signature")

    def bind_arguments(self, params, defaults, args, kwargs, node, name):
        """Match call arguments to parameter names (positional, keyword, defaults); extra
        positional arguments make the ``*args`` tuple, extra keywords the ``**kwargs`` dict."""
        ordered = list(getattr(params, "posonlyargs", None) or []) + params.args
        names = [p.id for p in ordered + params.kwonlyargs]
        positional = len(ordered)
        by_keyword = set(names) - {p.id for p in ordered[:len(ordered) - len(params.args)]}
        if len(args) > positional and params.vararg is None:
            raise self.error(SstadTypeError, f"{name}() takes {positional} positional arguments "
                             f"but {len(args)} were given", node)
        env = dict(zip(names, args[:positional]))
        if params.vararg is not None:
            env[params.vararg.id] = tuple(args[positional:])
        extra = {}
        for key, value in kwargs.items():
            if key in env or key not in by_keyword and params.kwarg is None:
                raise self.error(SstadTypeError, f"{name}() got an unexpected or repeated argument `{key}`", node)
            (env if key in by_keyword else extra)[key] = value
        if params.kwarg is not None:
            env[params.kwarg.id] = extra
        for p in names:
            if p not in env:
                if p not in defaults:
                    raise self.error(SstadTypeError, f"{name}() is missing the argument `{p}`", node)
                env[p] = defaults[p]
        return env

    def call_definition(self, definition, shown, args, kwargs, node):
        """Inline sstad's own definition (a composite) of the function the user calls as
        ``shown``: its compile-time refusals name the user's line."""
        pinned = self.pinned_loc
        if pinned is None and self.loc is not None and not inside_sstad(self.loc.file):
            self.pinned_loc = self.loc
        try:
            with at_users_line(self.loc, f"sstad's definition of `{shown}`"):
                return self.call_user(definition, args, kwargs, node, name=shown)
        finally:
            self.pinned_loc = pinned

    def call_user(self, fn, args, kwargs, node, name=None):
        """Inline ``fn``; ``name`` is how errors in binding its arguments name it."""
        fn_node, filename = function_node(fn)
        if fn in self.inlining:
            return self.call_recursive(fn, args, kwargs, node)
        return self.inline(fn, fn_node, filename, args, kwargs, node, parent=None, name=name)

    def python_defaults(self, fn, fn_node):
        params = fn_node.args
        out = {}
        ordered = list(getattr(params, "posonlyargs", None) or []) + params.args
        positional = ordered[len(ordered) - len(fn.__defaults__ or ()):]
        for p, value in zip(positional, fn.__defaults__ or ()):
            out[p.id] = self.static(value, p.id, "value")
        for key, value in (fn.__kwdefaults__ or {}).items():
            out[key] = self.static(value, key, "value")
        return out

    def inline(self, fn, fn_node, filename, args, kwargs, node, parent, closure_defaults=(), name=None):
        name = name or getattr(fn_node, "name", "<lambda>")
        defaults = self.python_defaults(fn, fn_node) if fn is not None else dict(closure_defaults)
        env = self.bind_arguments(fn_node.args, defaults, args, kwargs, node, name)
        body = [fn_node.body] if isinstance(fn_node, gast.Lambda) else fn_node.body
        local_names = assigned_names(body) | set(env)
        scope = Scope(env, local_names, filename, parent,
                      fn.__globals__ if fn is not None else None,
                      closure_values(fn) if fn is not None else None)
        scope.declared_global = set()
        scope.function = fn
        key = fn if fn is not None else fn_node
        if len(self.inlining) > 64:
            raise self.error(UnsupportedSyntaxError, "calls nest too deeply (recursive nested function?)",
                             node, "make the recursive function a module-level function")
        saved_scope, saved_loc = self.scope, self.loc
        self.inlining.append(key)
        self.scopes.append(scope)
        self.scope = scope
        try:
            if isinstance(fn_node, gast.Lambda):
                return self.expr(fn_node.body)
            self.lower_body(fn_node.body)
            return self.function_result(fn_node)
        finally:
            self.scopes.pop()
            self.inlining.pop()
            self.scope, self.loc = saved_scope, saved_loc

    def function_result(self, fn_node):
        env = self.scope.env
        returned, value = env.get("%ret", FALSE), env.get("%retval", MISSING)
        if isinstance(returned, ir.Const) and returned.value:
            return value
        if value is MISSING or value is None:
            return None
        raise self.error(SstadTypeError, f"`{getattr(fn_node, 'name', 'lambda')}` may reach its end "
                         "without returning a value", fn_node,
                         "add a `return` at the end so that every path returns a value")

    def call_closure(self, closure, args, kwargs, node):
        return self.inline(None, closure.node, closure.filename, args, kwargs, node,
                           parent=closure.scope, closure_defaults=closure.defaults)

    def evaluate_defaults(self, params):
        """A nested function's defaults, evaluated once where it is defined (as Python does)."""
        out = []
        with_defaults = params.args[len(params.args) - len(params.defaults):]
        for p, d in zip(with_defaults, params.defaults):
            out.append((p.id, self.expr(d)))
        for p, d in zip(params.kwonlyargs, params.kw_defaults):
            if d is not None:
                out.append((p.id, self.expr(d)))
        return tuple(out)

    # --- NumPy and math ----------------------------------------------------------
    def call_numpy(self, name, args, kwargs, node):
        if name == "unbroadcast":
            return self.unbroadcast(*args)
        if name in REDUCTIONS or name in SCANS:
            return self.reduction(name, args, kwargs, node)
        if name == "einsum" and args:
            args = self.einsum_arguments(list(args), node)
            # optimize= picks a contraction order, not a result: the compiled code has its own
            kwargs = {k: v for k, v in kwargs.items() if k != "optimize"}
        if lookup(name).reads_list and args and isinstance(args[0], (tuple, StaticList)):
            args = [self.literal_items_as_arrays(args[0], node), *args[1:]]
        if name == "linalg.solve" and len(args) > 1 and isinstance(args[1], (tuple, StaticList)):
            args = [args[0], as_array(self, args[1], node), *args[2:]]   # b = [1.0, 0.5] is an array
        if lookup(name).elementwise:      # a ufunc takes a list or tuple of numbers as an array
            args = [as_array(self, a, node) if isinstance(a, (tuple, StaticList)) else a for a in args]
        if name in ("vstack", "hstack") and len(args) == 1 and not kwargs and is_atom(args[0]) \
                and isinstance(getattr(args[0], "type", None), A.Array) and args[0].type.ndim > 0:
            return self.items_joined(name, args[0], node)
        if name == "hstack" and len(args) == 1 and not kwargs and isinstance(getattr(args[0], "type", None), A.ListOf):
            return self.hstacked_list(args[0], node)
        if name == "tensordot" and any(self.is_number(a) for a in args[:2]) and self.no_axes(args, kwargs):
            return self.binop("mul", args[0], args[1], node)
        if name == "linalg.norm" and args and isinstance(args[0], (tuple, StaticList)):
            # NumPy makes an array of a sequence of numbers first (autograd's norm([x, x + 2]))
            made = self.array_of(args[0], copy=False, node=node)
            if made is not None:
                args = [made, *args[1:]]
        if name in ("array", "asarray") and len(args) <= 2 and set(kwargs) <= {"copy", "dtype"}:
            copy = kwargs.get("copy", ir.Const(name == "array"))
            copying = not isinstance(copy, ir.Const) or bool(copy.value)
            dtype = args[1] if len(args) == 2 else kwargs.get("dtype")
            if dtype is None or isinstance(dtype, ir.Const) and dtype.value is None:
                made = self.array_of(args[0], copy=copying, node=node)
                if made is not None:
                    return made
            else:                                       # np.array(x, dtype=np.float32): then a cast
                made = self.array_of(args[0], copy=False, node=node)
                if made is not None and is_atom(made):
                    try:
                        dtype = np.dtype(dtype)
                    except TypeError:
                        raise self.error(SstadTypeError, f"np.{name}: `dtype=` must be a NumPy dtype known at "
                                         "compile time", node) from None
                    if made.type.dtype != dtype:
                        return self.apply("astype", [made], {"dtype": dtype})
                    return self.copy_of(made, made.hint) if copying and made is args[0] else made
        atoms = []

        def atom_of(value):
            atoms.append(value)
            return Slot(len(atoms) - 1)

        def layout_of(value):
            if isinstance(value, Slot):
                return value
            if isinstance(value, (tuple, StaticList)):
                return tuple(layout_of(v) for v in value)
            if isinstance(value, ir.Const):
                return value.value               # literal: NumPy sees the real value
            if isinstance(value, (bool, int, float, np.generic)):
                return value
            if is_atom(value):
                atoms.append(value)
                return Slot(len(atoms) - 1)
            if isinstance(value, dict) or isinstance(value, (Closure, BoundMethod)):
                raise self.error(SstadTypeError, f"{shown_name(name)} cannot take {self.describe(value)}", node)
            return value
        try:
            args, kwargs = bind(lookup(name).signature, args, kwargs)
        except TypeError as exc:
            raise self.error(SstadTypeError, f"{shown_name(name)}(): {exc}", node) from None
        args, kwargs, order = self.without_memory_order(name, args, kwargs, node)
        args, kwargs = self.dtypes_as_numpy(name, args, kwargs)
        if order == "F" and name in ("reshape", "ravel"):
            return self.fortran_order(name, args, kwargs, node)
        if lookup(name).ufunc or name in ("where", "clip"):
            # numbers an elementwise function combines with arrays are operands, so the
            # emitter can keep their float32 float32 (Numba promotes `f32_array, 0.0`)
            args = tuple(ir.Const(a) if isinstance(a, (int, float)) and not isinstance(a, bool) else a
                         for a in args)
            args = tuple(atom_of(a) if isinstance(a, ir.Const) and not isinstance(a.value, (bool, np.bool_))
                         and isinstance(a.value, (int, float, np.number)) else a for a in args)
        layout = (tuple(layout_of(a) for a in args), {k: layout_of(v) for k, v in kwargs.items()})
        view = lookup(name).view
        hint = next((a.hint for a in atoms if isinstance(a, ir.Var)), "%t") if view else "%t"
        out = self.apply(name, atoms, {"layout": layout}, hint=hint)
        if view and atoms:
            self.view(out, atoms[0])
        return out

    def blocks_joined(self, blocks, node):
        """``np.block([[A, B], [C, D]])`` of arrays of at least the nesting's depth: the
        innermost lists joined along the last axis, the lists of those along the one before,
        as NumPy does; ``None`` (the call as it stands) for other items."""
        def depth(value):
            return 1 + depth(value[0]) if isinstance(value, StaticList) and len(value) else 0

        d = depth(blocks)

        def join(value, level):
            if level == d:
                if not (is_atom(value) and isinstance(getattr(value, "type", None), A.Array)
                        and value.type.ndim >= d):
                    raise LookupError
                return value
            if not isinstance(value, StaticList) or not len(value):
                raise LookupError
            parts = tuple(join(v, level + 1) for v in value)
            return self.call_numpy("concatenate", [parts], {"axis": ir.Const(level - d)}, node)
        try:
            return join(blocks, 0)
        except LookupError:
            return None

    def is_number(self, value):
        """A Python number or a scalar value (not an array, not a sequence)."""
        if isinstance(value, ir.Const):
            return isinstance(value.value, (int, float, np.number)) and not isinstance(value.value, bool)
        if isinstance(value, (bool, int, float, np.number)):
            return True
        return is_atom(value) and isinstance(getattr(value, "type", None), A.Scalar)

    def items_joined(self, name, a, node):
        """np.vstack(a) / np.hstack(a) of one array (autograd's ``np.vstack(x)``): NumPy joins
        its items a[0], a[1], ...; that is a copy of ``a`` reshaped (its first two axes
        swapped first for np.hstack of 3-d and more).  The rules of the primitives read a
        tuple of arrays."""
        ndim, shape, minus_one = a.type.ndim, self.attribute(a, "shape", node), ir.Const(-1)
        if name == "vstack":
            target = (minus_one, ir.Const(1)) if ndim == 1 else (minus_one,) + tuple(shape[2:] if ndim > 2 else shape[1:])
        elif ndim <= 2:
            target = (minus_one,)
        else:
            a = self.call_numpy("swapaxes", [a, ir.Const(0), ir.Const(1)], {}, node)
            target = (shape[1], minus_one) + tuple(shape[3:])
        return self.call_numpy("copy", [self.call_numpy("reshape", [a, target], {}, node)], {}, node)

    def hstacked_list(self, lst, node):
        """np.hstack of a run-time list is what NumPy defines it as: np.concatenate of the
        items made at least 1-d, along axis 0 for numbers and vectors, 1 otherwise."""
        elem = lst.type.elem
        if isinstance(elem, A.Scalar):
            return self.call_numpy("array", [lst], {}, node)
        axis = ir.Const(0 if getattr(elem, "ndim", 1) <= 1 else 1)
        return self.call_numpy("concatenate", [lst], {"axis": axis}, node)

    def no_axes(self, args, kwargs):
        """np.tensordot's ``axes=0`` (nothing contracted: the outer product; with a number
        operand, autograd's ``tensordot(x, 2.0, axes=0)``, that is the plain product)."""
        axes = args[2] if len(args) > 2 else kwargs.get("axes", 2)
        axes = axes.value if isinstance(axes, ir.Const) else axes
        return len(args) <= 3 and set(kwargs) <= {"axes"} and isinstance(axes, int) and axes == 0

    def without_memory_order(self, name, args, kwargs, node):
        """``(args, kwargs, order)``: the canonical call without its ``order=`` memory
        layout ('C', 'F', 'A' or 'K'; np.sort's ``order=`` names fields and stays).  The
        layout of a result does not change its values, except where it is the order the
        elements are read in: np.reshape and np.ravel ('F': :meth:`fortran_order`; 'A'
        and 'K' follow the input's memory, which compiled code does not see: refused)."""
        signature = lookup(name).signature
        default = default_of(signature, "order")
        if not isinstance(default, str):
            return args, kwargs, None
        named = parameters(signature, args, kwargs)
        given = dict(named).get("order", default)
        order = given.value if isinstance(given, ir.Const) else given
        allowed = ("C", "F", "A") if name == "reshape" else ("C", "F", "A", "K")
        if order not in allowed:
            raise self.error(SstadTypeError, f"{shown_name(name)}: order must be one of "
                             f"{', '.join(map(repr, allowed))} as a constant, got {self.describe(given)}", node)
        if name in ("reshape", "ravel") and order in ("A", "K"):
            raise self.error(UnsupportedSyntaxError, f"{shown_name(name)}(..., order={order!r}) reads the "
                             "elements in the input's memory order, which compiled code does not see",
                             node, "write order='C' (the default) or order='F'")
        kept = [(n, v) for n, v in named if n != "order"]
        at = next((k for k, (n, _) in enumerate(named) if n == "order"), len(named))
        pos = [v for n, v in kept[:min(at, len(args))]]
        kw = {n: v for n, v in kept[len(pos):]}
        return *bind(signature, pos, kw), order

    def dtypes_as_numpy(self, name, args, kwargs):
        """``dtype=float`` (``int``, ``'f8'``...) as the NumPy dtype it means, which Numba
        reads (it cannot interpret Python's ``float`` as a data type)."""
        signature = lookup(name).signature
        named = parameters(signature, args, kwargs)
        if not any(n == "dtype" for n, _ in named):
            return args, kwargs

        def numpy(value):
            static = value.value if isinstance(value, ir.Const) else value
            if isinstance(static, (type, str)):
                try:
                    return np.dtype(static)
                except TypeError:
                    return value
            return value
        pos = [numpy(v) if n == "dtype" else v for (n, _), v in zip(named, args)]
        return tuple(pos), {n: numpy(v) if n == "dtype" else v for n, v in kwargs.items()}

    def fortran_order(self, name, args, kwargs, node):
        """np.reshape/np.ravel with order='F' (the first index changing fastest): the
        C-order one between two reversals of the axes (np.transpose)."""
        reverse = lambda x: self.call_numpy("transpose", [x], {}, node)  # noqa: E731
        x = reverse(args[0])
        if name == "ravel":
            return self.call_numpy("ravel", [x], {}, node)
        shape = args[1] if len(args) > 1 else kwargs.get("shape")
        if shape is None:
            raise self.error(SstadTypeError, "np.reshape(): missing the argument `shape`", node)
        if not isinstance(shape, (tuple, StaticList)):
            shape = (shape,)                 # one length (an int, or a run-time one)
        return reverse(self.call_numpy("reshape", [x, tuple(shape)[::-1]], {}, node))

    def einsum_arguments(self, args, node):
        """np.einsum's subscripts as one string without ``...`` (ranks are known here);
        the sublist form becomes subscripts too."""
        static = lambda v: v.value if isinstance(v, ir.Const) else v  # noqa: E731
        first = static(args[0])
        if not isinstance(first, str):
            items = [tuple(static(i) for i in a) if isinstance(a, (tuple, StaticList)) else a for a in args]
            if not all(isinstance(sub, tuple) and all(i is Ellipsis or isinstance(i, int) for i in sub)
                       for sub in items[1::2]):
                raise self.error(SstadTypeError, "np.einsum: subscripts must be a string or lists of "
                                 "constant ints", node)
            first, operands = from_sublists(items)
            args = [first] + operands
        ranks = [a.type.ndim if is_atom(a) and isinstance(a.type, A.Array) else 0 for a in args[1:]]
        return [without_ellipsis(first, ranks)] + args[1:]

    def literal_items_as_arrays(self, items, node):
        """``np.concatenate([d, [1e10]])``: an item written as a list literal is the array
        NumPy makes of it (the derivative rules read each item's shape)."""
        made = (self.array_of(v, copy=False, node=node) if isinstance(v, (tuple, StaticList)) and v else None
                for v in items)
        return type(items)(v if m is None else m for v, m in zip(items, made))

    def array_of(self, value, copy, node):
        """``np.array(value)`` where it is another spelling: of an array (a copy), of a
        number (the number), of a nested sequence of numbers (the flat one, reshaped) or of
        a sequence of arrays (np.stack).  None: the primitive handles it."""
        if is_atom(value):
            if isinstance(value.type, A.Array):
                return self.copy_of(value, value.hint) if copy else value
            return value if isinstance(value.type, A.Scalar) else None
        if not isinstance(value, (tuple, StaticList)) or not value:
            return None
        if all(is_atom(v) and isinstance(v.type, A.Array) for v in value):
            return self.call_numpy("stack", [tuple(value)], {}, node)
        if not copy and all(is_atom(v) and isinstance(v.type, A.Scalar) for v in value):
            return self.call_numpy("array", [tuple(value)], {}, node)      # a new array either way
        if all(isinstance(v, (tuple, StaticList)) for v in value):
            treedef, leaves = flatten(tuple(value))
            if not all(is_atom(v) and isinstance(v.type, A.Scalar) for v in leaves):
                # rows holding arrays: each row is an array, then they are stacked
                rows = tuple(self.call_numpy("array", [v], {}, node) for v in value)
                return self.call_numpy("stack", [rows], {}, node)
            shape = (len(value),) + _nesting(value[0])
            if int(np.prod(shape)) != len(leaves):
                raise self.error(SstadTypeError, "np.array of a ragged nested sequence", node)
            flat = self.call_numpy("array", [tuple(leaves)], {}, node)
            return self.call_numpy("reshape", [flat, tuple(ir.Const(n) for n in shape)], {}, node)
        return None

    def unbroadcast(self, g, x):
        """Static where ranks decide it: a scalar target sums, a scalar cotangent stays."""
        g = self.atom(g, None)
        x_type = x.type if is_atom(x) else A.of_value(x)
        if not isinstance(g.type, A.Array):
            return g
        if not isinstance(x_type, A.Array):
            return self.reduction("sum", [g], {}, None)
        return self.apply("unbroadcast", [g, x], hint=g.hint)

    def reduction(self, name, args, kwargs, node):
        signature = lookup(name).signature
        try:
            bound = dict(parameters(signature, *bind(signature, args, kwargs)))
        except TypeError as exc:
            raise self.error(SstadTypeError, f"np.{name}(): {exc}", node) from None
        x = self.atom(as_array(self, bound.pop("a", None), node), node)
        if x.type is A.UNKNOWN:       # an item of a list still empty in a loop's first round
            return self.apply(name, [x], {"axis": None})
        if name in EXTREMA and (given(bound.get("initial")) is not None or given(bound.get("where")) is not None):
            return self.bounded_extremum(name, x, bound, node)
        if name in MASKED and (given(bound.get("initial")) is not None or given(bound.get("where")) is not None):
            kwargs = {k: given(bound.get(k)) for k in ("axis", "dtype", "out", "keepdims", "initial", "where")}
            kwargs["keepdims"] = kwargs["keepdims"] or FALSE
            kwargs["where"] = kwargs["where"] if kwargs["where"] is not None else TRUE
            return self.call_definition(MASKED[name], f"np.{name}", [x], kwargs, node)
        axis, keepdims = bound.pop("axis", None), bound.pop("keepdims", FALSE)
        keepdims = FALSE if keepdims is np._NoValue else keepdims
        dtype = bound.pop("dtype", None)
        dtype = dtype.value if isinstance(dtype, ir.Const) else dtype
        if dtype is not None:         # NumPy casts each item to `dtype` first (unsafe casting)
            x = self.astype_to(x, dtype, f"np.{name}", node, floats_only=name == "mean")
        for key, value in bound.items():
            value = value.value if isinstance(value, ir.Const) else value
            if not is_default(value, default_of(signature, key)) and value is not None:
                handled = [f"`{p}`" for p in ("axis", "dtype", "keepdims") if p in signature.parameters]
                raise self.error(UnsupportedSyntaxError, f"np.{name}: `{key}=` is not supported", node,
                                 f"only {', '.join(handled[:-1])} and {handled[-1]} are")
        keepdims = self.truth(keepdims, node)
        if not isinstance(keepdims, ir.Const):
            raise self.error(SstadTypeError, "keepdims must be a constant", node)
        ndim = x.type.ndim if isinstance(x.type, A.Array) else 0
        if not ndim and name in ("sum", "prod", "max", "min", "amax", "amin", "mean"):
            return self.reduce_number(name, x, axis, node)
        if axis is not None:
            if isinstance(axis, tuple) and name == "mean" and axis:     # the sum over the count
                total = self.reduction("sum", [x], {"axis": axis, "keepdims": keepdims}, node)
                count = ir.Const(1)
                for a in axis:
                    size = self.attribute(x, "shape", node)[self.static_int(a, node) % ndim]
                    count = self.binop("mul", count, size, node)
                return self.binop("truediv", total, count, node)
            if isinstance(axis, tuple):
                if name not in ("sum", "prod", "max", "min", "amax", "amin", "any", "all") or not axis:
                    raise self.error(UnsupportedSyntaxError, f"np.{name} over a tuple of axes", node,
                                     "reduce one axis at a time")
                axes = sorted((self.static_int(a, node) % ndim for a in axis), reverse=True)
                for a in axes:
                    x = self.reduction(name, [x], {"axis": ir.Const(a), "keepdims": keepdims}, node)
                return x
            axis = self.static_int(axis, node)
            if ndim and not -ndim <= axis < ndim:
                raise self.error(SstadTypeError, f"axis {axis} is out of range for rank {ndim}", node)
            axis = axis % ndim if ndim else axis
            if ndim == 1:
                axis = None               # the same thing, and Numba knows it in more places
        params = {"axis": axis}
        if keepdims.value:
            params["keepdims"] = True
        return self.apply(name, [x], params)

    def bounded_extremum(self, name, x, bound, node):
        """``np.max(a, initial=v, where=m)`` (and min, amax, amin, the methods): NumPy's
        extremum of ``v`` and the entries ``m`` selects, ``v`` cast to ``a``'s dtype."""
        initial, where = (given(bound.get(k)) for k in ("initial", "where"))
        if initial is not None:
            initial = self.atom(initial, node)
            if not isinstance(initial.type, A.Scalar):
                raise self.error(SstadTypeError, f"np.{name}: `initial=` must be a number, not "
                                 f"{self.describe(initial)}", node)
            initial = self.convert_scalar(x.type.dtype.type, [initial], node)
        axis = bound.get("axis")
        axis = (axis,) if isinstance(axis, ir.Const) and axis.value is not None else axis
        kwargs = {"axis": axis, "keepdims": given(bound.get("keepdims")) or FALSE,
                  "initial": initial, "where": where, "out": given(bound.get("out"))}
        return self.call_definition(extremum, f"np.{name}", [x, ir.Const(name in ("max", "amax"))], kwargs, node)

    def astype_to(self, x, dtype, what, node, floats_only=False):
        """``x`` cast to a compile-time ``dtype`` (a reduction's ``dtype=``: NumPy reduces
        in that type; a mean in an integer type, or a sum in bool, is another operation)."""
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise self.error(SstadTypeError, f"{what}: `dtype=` must be a NumPy dtype known at compile time",
                             node) from None
        if not (A.is_float(dtype) or dtype.kind in "iu" and not floats_only):
            raise self.error(UnsupportedSyntaxError, f"{what}: `dtype={dtype}` is not supported", node,
                             "give a float dtype" + ("" if floats_only else " or an integer one"))
        return x if x.type.dtype == dtype else self.apply("astype", [x], {"dtype": dtype})

    def reduce_number(self, name, x, axis, node):
        """``np.sum(3.5)``, ``np.mean(x)`` of a number: the number, as NumPy types the
        result (a 0-d ``keepdims`` result is a number here too)."""
        if axis is not None and axis != ():
            raise self.error(SstadTypeError, f"np.{name} of a number takes no axis (NumPy: out of bounds "
                             "for an array of dimension 0)", node)
        dtype = getattr(np, name)(np.zeros((), x.type.dtype)).dtype
        return self.convert_scalar(dtype.type, [x], node)

    def convert_scalar(self, kind, args, node):
        if len(args) != 1:
            raise self.error(SstadTypeError, f"{kind.__name__}() takes one argument here", node)
        x = self.atom(args[0], node)
        if kind in SCALAR_TYPES:
            if isinstance(x, ir.Const):
                return ir.Const(kind(x.value))
            return self.apply("builtin." + kind.__name__, [x])
        dtype = np.dtype(kind)
        if isinstance(x, ir.Const):
            return ir.Const(dtype.type(x.value))
        return self.apply("astype", [x], {"dtype": dtype})

    def python_number(self, x, node):
        """``x.item()`` of a NumPy number: Python's float, int or bool, on every backend."""
        kind = {"f": float, "i": int, "u": int, "b": bool}.get(x.type.dtype.kind)
        return x if kind is None else self.convert_scalar(kind, [x], node)

    def only_element(self, a, node):
        """The element of an array of size 1 (``a.item()``; NumPy raises ValueError for a
        larger one: so does the compiled code, at run time, naming the line)."""
        loc = self.loc_of(node)
        one = self.apply("op.eq", [self.atom(self.attribute(a, "size", node), node), ir.Const(1)], hint="c")
        self.apply("builtin.assert", [one], {"message": "can only convert an array of size 1 to a Python scalar",
                                             "at": (loc.file, loc.line, loc.col)}, hint="checked")
        return self.subscript(a, (ir.Const(0),) * a.type.ndim, node)

    # --- methods -----------------------------------------------------------------
    def call_method(self, method, args, kwargs, node):
        obj, name = method.obj, method.name
        if is_atom(obj) and isinstance(obj.type, A.ListOf) or isinstance(obj, StaticList):
            if name == "append" and len(args) == 1 and not kwargs:
                return self.list_append(obj, args[0], node)
            if name == "pop" and not kwargs:
                return self.list_pop(obj, args, node)
        if isinstance(obj, dict):
            if name in ("keys", "values", "items") and not args:
                keys = self.dict_keys(obj)
                return {"keys": keys, "values": tuple(obj.values()),
                        "items": tuple(zip(keys, obj.values()))}[name]
            if name == "get":
                key = self.static_key(args[0], node)
                return obj.get(key, args[1] if len(args) > 1 else None)
        if is_atom(obj) and isinstance(obj.type, A.Scalar):         # a NumPy scalar (np.sum(x))
            if name == "astype":
                dtype = args[0] if args else kwargs.get("dtype")
                return self.convert_scalar(np.dtype(getattr(dtype, "value", dtype)).type, [obj], node)
            if name == "item" and not args:
                return self.python_number(obj, node)
        if is_atom(obj) and isinstance(obj.type, A.Array):
            if name == "astype":
                dtype = args[0] if args else kwargs.get("dtype")
                return self.apply("astype", [obj], {"dtype": np.dtype(dtype)}, hint=obj.hint)
            if name == "copy":
                return self.copy_of(obj, obj.hint)
            if name == "item" and not args:
                return self.python_number(self.only_element(obj, node), node)
            if name == "fill":
                return self.fill(obj, args, kwargs, node)
            if name == "sort":
                return self.sort_in_place(obj, args, kwargs, node)
            if name in ("transpose", "reshape") and args:      # a.reshape(4, 3) is a.reshape((4, 3))
                args = [tuple(args)] if len(args) > 1 else args
            if name == "flatten":                                   # a copy of the ravel, in its order
                return self.copy_of(self.call_numpy("ravel", [obj] + list(args), kwargs, node), obj.hint)
            if name == "diagonal":
                return self.call(np.diagonal, [obj] + list(args), kwargs, node)
            if name in ARRAY_METHODS and hasattr(np, name):      # as np.name(x, ...) is called
                return self.call(getattr(np, name), [obj] + list(args), kwargs, node)
            if name in ARRAY_METHODS or name == "diag":
                return self.call_numpy(name, [obj] + list(args), kwargs, node)
        hint = "see docs/subset.md for the supported methods"
        if isinstance(obj, (tuple, list)) and name in ARRAY_METHODS:      # as NumPy refuses it too
            hint = f"a list is not an array: pass an array, or write np.asarray(...).{name}(...)"
        raise self.error(UnsupportedSyntaxError, f"method `.{name}` of {self.describe(obj)} is not supported",
                         node, hint)

    def fill(self, a, args, kwargs, node):
        """``a.fill(value)``: ``a[...] = value`` (in place, through views; the derivative
        reaches ``value`` and no longer ``a``'s old entries).  Returns None, as NumPy does."""
        value = args[0] if len(args) == 1 and not kwargs else kwargs.get("value") if not args else None
        if value is None or len(args) + len(kwargs) != 1:
            raise self.error(SstadTypeError, "fill() takes exactly one argument, the value", node)
        if not (is_atom(value) and isinstance(value.type, A.Scalar)):
            raise self.error(SstadTypeError, f"fill() takes a number, not {self.describe(value)}", node,
                             "to copy an array in, write `a[...] = b`")
        value = self.convert_scalar(a.type.dtype.type, [value], node)       # NumPy casts, as a.astype would
        self.store_subscript(a, (slice(None),) * a.type.ndim, value, node)   # not x[...]: Numba cannot read it
        return None

    def sort_in_place(self, a, args, kwargs, node):
        """``a.sort(axis=-1)``: ``a[...] = np.sort(a, axis)``, in place through views, with
        ``np.sort``'s parameters and derivative.  Returns None, as NumPy does."""
        ordered = self.call(np.sort, [a] + list(args), kwargs, node)
        self.store_subscript(a, (slice(None),) * a.type.ndim, ordered, node)
        return None

    def list_append(self, lst, value, node):
        value = self.atom(value, node)
        if isinstance(lst, StaticList):            # a literal that grows: make it a run-time list
            new = self.apply("list.new", [], hint="items")
            for item in lst:
                item = self.atom(item, node)
                if new.type.elem is A.UNKNOWN:           # typed by its first item, as below
                    new.type = list_of(item.type)
                new = self.apply("list.append", [new, item], hint="items")
            self.rebind_static(lst, new)
            lst = new
        if isinstance(lst.type, A.ListOf) and lst.type.elem is A.UNKNOWN and value.type is not A.UNKNOWN:
            lst.type = list_of(value.type)       # the first append types an empty list
        self.apply("list.append", [lst, value], hint=getattr(lst, "hint", "items"))
        return None

    def list_pop(self, lst, args, node):
        """``L.pop()``: the last item, read as ``L[-1]``, then the list without it (a list
        literal shrinks at compile time)."""
        if args and not (isinstance(args[0], ir.Const) and args[0].value == -1):
            raise self.error(UnsupportedSyntaxError, "`.pop(i)` of a list is supported for the last item only",
                             node, "use `.pop()`: a list is a stack here")
        if isinstance(lst, StaticList):
            if not lst:
                raise self.error(SstadTypeError, "pop from an empty list", node)
            self.rebind_static(lst, StaticList(lst[:-1]))
            return lst[-1]
        item = self.subscript(lst, (ir.Const(-1),), node)
        self.apply("list.pop", [lst], hint=getattr(lst, "hint", "items"))
        return item


def stand_in(value):
    """What a lifted closure (:meth:`CallLowering.transform_closure`) finds as its global for
    a value of the enclosing function: a constant as itself; an array or a number as an
    array of its type, which the lifted function captures as a parameter; a tuple, list
    literal or dict item by item (``params["W"]`` inside ``lambda x: critic(params, x)``).
    Raises ``TypeError`` for anything else."""
    if isinstance(value, ir.Const):
        return value.value
    if is_atom(value) and isinstance(value.type, (A.Array, A.Scalar)):
        return np.asarray(A.prototype(value.type))
    if type(value) is tuple:
        return tuple(stand_in(v) for v in value)
    if isinstance(value, StaticList):
        return [stand_in(v) for v in value]
    if type(value) is dict:
        return {k: stand_in(v) for k, v in value.items()}
    raise TypeError(value)


# --- builtins --------------------------------------------------------------------
def _len(self, args, kwargs, node):
    (x,) = args
    if isinstance(x, (tuple, StaticList, dict)):
        return ir.Const(len(x))
    if isinstance(x, RangeValue):
        raise self.error(UnsupportedSyntaxError, "len(range(...)) is not supported", node)
    return self.apply("builtin.len", [self.atom(x, node)], hint="n")


def _range(self, args, kwargs, node):
    args = [self.atom(a, node) for a in args]
    for a in args:
        if not (isinstance(a.type, A.Scalar) and a.type.dtype.kind in "iu") and a.type is not A.UNKNOWN:
            raise self.error(SstadTypeError, f"range() takes integers, not {a.type}", node,
                             "convert with int(...)")
    if len(args) == 1:
        return RangeValue(ir.Const(0), args[0], ir.Const(1))
    if len(args) == 2:
        return RangeValue(args[0], args[1], ir.Const(1))
    return RangeValue(*args)


def _reversed(self, args, kwargs, node):
    """``reversed(range(...))`` is a range that counts down; a static sequence reversed."""
    seq = args[0] if len(args) == 1 and not kwargs else None
    if isinstance(seq, (tuple, StaticList)):
        return type(seq)(tuple(seq)[::-1])
    if is_atom(seq) and isinstance(seq.type, A.ListOf):       # a run-time list: a reversed copy
        return self.subscript(seq, (slice(None, None, ir.Const(-1)),), node)
    if isinstance(seq, RangeValue) and isinstance(seq.step, ir.Const) and seq.step.value != 0:
        step = seq.step.value
        span = self.binop("sub", seq.stop, seq.start, node) if step > 0 else self.binop("sub", seq.start, seq.stop, node)
        count = self.binop("floordiv", self.binop("add", span, ir.Const(abs(step) - 1), node), ir.Const(abs(step)), node)
        count = _minmax("max")(self, [count, ir.Const(0)], {}, node)
        last = self.binop("add", seq.start, self.binop("mul", self.binop("sub", count, ir.Const(1), node),
                                                       ir.Const(step), node), node)
        return RangeValue(self.atom(last, node), self.atom(self.binop("sub", seq.start, ir.Const(step), node), node),
                          ir.Const(-step))
    raise self.error(UnsupportedSyntaxError, "reversed() takes a range with a constant step, a tuple, or a list",
                     node, "for an array, write `x[::-1]`")


def _sorted(self, args, kwargs, node):
    """``sorted()`` of a tuple or list literal of numbers: a list of them in order, by
    ``np.sort`` (so the gradient follows each value to its place)."""
    seq = args[0] if len(args) == 1 else None
    reverse = kwargs.get("reverse", ir.Const(False))
    items = [self.atom(v, node) for v in seq] if isinstance(seq, (tuple, StaticList)) else None
    if items is None or set(kwargs) - {"reverse"} or not isinstance(reverse, ir.Const) or not all(
            isinstance(v.type, A.Scalar) for v in items):
        raise self.error(UnsupportedSyntaxError, "sorted() takes a tuple or list literal of numbers here "
                         "(with a constant reverse=, no key=)", node, "sort an array with np.sort instead")
    if not items:
        return StaticList(())
    ordered = self.call_numpy("sort", [self.call_numpy("array", [tuple(items)], {}, node)], {}, node)
    out = [self.subscript(ordered, (ir.Const(k),), node) for k in range(len(items))]
    return StaticList(out[::-1] if reverse.value else out)


def _abs(self, args, kwargs, node):
    x = self.atom(args[0], node)
    if isinstance(x, ir.Const):
        return ir.Const(abs(x.value))
    if isinstance(x.type, A.Array):
        return self.call_numpy("abs", [x], {}, node)
    return self.apply("builtin.abs", [x])


def _pow(self, args, kwargs, node):
    """``pow(base, exp)`` is ``base ** exp``; the form with a modulus is integer arithmetic."""
    given = dict(zip(("base", "exp", "mod"), args), **kwargs)
    if set(given) != {"base", "exp"}:
        raise self.error(UnsupportedSyntaxError, "pow() is supported with a base and an exponent only", node,
                         "write `base ** exp` (and `% mod` after it)")
    return self.binop("pow", given["base"], given["exp"], node)


def _divmod(self, args, kwargs, node):
    """``divmod(a, b)``: ``(a // b, a % b)``, a tuple."""
    if len(args) != 2 or kwargs:
        raise self.error(SstadTypeError, "divmod expected 2 arguments", node)
    return (self.binop("floordiv", args[0], args[1], node), self.binop("mod", args[0], args[1], node))


def _minmax(which):
    def lower(self, args, kwargs, node):
        unknown = set(kwargs) - {"key", "default"}
        if unknown:
            raise self.error(SstadTypeError, f"{which}() got an unexpected keyword argument "
                             f"'{sorted(unknown)[0]}'", node)
        key = kwargs.get("key")
        if "default" in kwargs and len(args) != 1:
            raise self.error(SstadTypeError, f"Cannot specify a default for {which}() with multiple "
                             "positional arguments", node)
        if "default" in kwargs or key is not None and not (isinstance(key, ir.Const) and key.value is None):
            return _best(self, which, args, key, kwargs.get("default", MISSING), node)
        if len(args) == 1:
            (seq,) = args
            if isinstance(seq, (tuple, StaticList)):
                args = list(seq)
            elif is_atom(seq) and isinstance(seq.type, A.Array):
                return self.reduction(which, [seq], {}, node)
            elif is_atom(seq) and isinstance(seq.type, A.ListOf) or isinstance(seq, (RangeValue, Enumerate, Zip)):
                return _best(self, which, args, None, MISSING, node)     # max(x[i] * w[i] for i in range(n))
            else:
                raise self.error(UnsupportedSyntaxError, f"{which}() of {self.describe(seq)}", node)
        atoms = [self.atom(a, node) for a in args]
        if all(isinstance(a, ir.Const) for a in atoms):
            return ir.Const(getattr(builtins, which)(a.value for a in atoms))
        best = atoms[0]
        for a in atoms[1:]:      # pairwise, as Python keeps the first best: the rule takes two
            best = self.apply("builtin." + which, [best, a])
        return best
    return lower


def _best(self, which, args, key, default, node):
    """``max(items, key=f, default=d)`` (or min): the first item whose key is largest
    (smallest), as Python picks it; ``d`` for an empty sequence, else ValueError.  Over a
    static sequence the choice unrolls, over a run-time one (``range(n)``, an array's rows,
    a run-time list) it is a loop; the result is the item itself, so a derivative follows it."""
    if not args:
        raise self.error(SstadTypeError, f"{which} expected at least 1 argument, got 0", node)
    key_of = (lambda item: item) if key is None or isinstance(key, ir.Const) and key.value is None else (
        lambda item: self.call(key, [item], {}, node))
    op = gast.Gt() if which == "max" else gast.Lt()

    def better(best, item):
        """``best`` and its key, replaced by ``item`` where its key is strictly better."""
        k = key_of(item)
        beats = self.truth(self.compare(op, k, best[1], node), node)
        return self.branch(beats, lambda: (item, k), lambda: best)
    items = tuple(args) if len(args) > 1 else static_items(self, args[0], node)
    if isinstance(items, tuple):
        if not items:
            if default is MISSING:
                raise self.error(SstadTypeError, f"{which}() iterable argument is empty", node)
            return default
        best = (items[0], key_of(items[0]))
        for item in items[1:]:
            best = better(best, item)
        return best[0]
    if not isinstance(items.step, ir.Const):
        raise self.error(UnsupportedSyntaxError, f"{which}() with key= or default= over a range with a "
                         "run-time step", node, "use a range with a constant step")
    before = gast.Lt() if items.step.value > 0 else gast.Gt()
    nonempty = self.truth(self.compare(before, items.start, items.stop, node), node)

    def choose():
        first = items.element(items.start)
        rest = Counted(self.atom(self.binop("add", items.start, items.step, node), node), items.stop, items.step,
                       items.element)
        return fold(self, rest, (first, key_of(first)), better)[0]
    if default is not MISSING:
        return self.branch(nonempty, choose, lambda: default)
    self.apply("builtin.assert", [nonempty], {"message": f"{which}() iterable argument is empty",
                                              "error": "ValueError"}, hint="checked")
    return choose()


def _sum(self, args, kwargs, node):
    seq = args[0]
    start = args[1] if len(args) > 1 else kwargs.get("start")
    if isinstance(seq, (tuple, StaticList)):
        total = start
        for v in seq:
            total = v if total is None else self.binop("add", total, v, node)
        return total if total is not None else ir.Const(0)
    x = self.atom(seq, node)
    if isinstance(x.type, A.Array):
        total = self.reduction("sum", [x], {"axis": ir.Const(0)}, node)
    elif isinstance(x.type, A.ListOf) and isinstance(x.type.elem, A.Array):     # arrays, elementwise
        total = self.reduction("sum", [as_array(self, x, node)], {"axis": ir.Const(0)}, node)
    else:
        total = self.apply("builtin.sum", [x])
    return total if start is None else self.binop("add", start, total, node)


def given(value):
    """A keyword argument as passed, or None where it was left out (NumPy's ``_NoValue``)."""
    plain = value.value if isinstance(value, ir.Const) else value
    return None if plain is None or plain is np._NoValue else value


def as_array(self, value, node):
    """What NumPy makes of an array-like argument: a tuple or list literal of numbers is
    ``np.array`` of it, of arrays ``np.stack`` of them (nested literals level by level); a
    run-time list likewise.  Anything else is returned as it is."""
    if isinstance(value, (tuple, StaticList)):
        items = [as_array(self, v, node) for v in value]
        if not items:
            raise self.error(SstadTypeError, "an empty sequence has no element type here", node,
                             "use np.zeros(0)")
        if all(is_atom(v) and isinstance(v.type, A.Scalar) for v in items):
            return self.call_numpy("array", [StaticList(items)], {}, node)
        ranks = {v.type.ndim if is_atom(v) and isinstance(v.type, A.Array) else None for v in items}
        if None in ranks or len(ranks) != 1:
            raise self.error(SstadTypeError, "a sequence mixing numbers, arrays of different ranks or "
                             "other values is not an array (NumPy refuses it too)", node,
                             "give every item the same shape")
        return self.call_numpy("stack", [tuple(items)], {}, node)
    if is_atom(value) and isinstance(value.type, A.ListOf):
        return self.call_numpy("stack" if isinstance(value.type.elem, A.Array) else "array", [value], {}, node)
    return value


def _enumerate(self, args, kwargs, node):
    """``enumerate(x)`` and ``enumerate(x, start)`` (``start=`` too): the index counts from
    ``start``, an integer known at compile time or at run time."""
    if not 1 <= len(args) + len(kwargs) <= 2 or len(args) > 2 or set(kwargs) - {"start"} or not args:
        raise self.error(SstadTypeError, "enumerate() takes an iterable and an optional start", node)
    start = args[1] if len(args) == 2 else kwargs.get("start")
    if start is not None and not (is_atom(start) and isinstance(start.type, A.Scalar)
                                  and start.type.dtype.kind in "iub"):
        raise self.error(SstadTypeError, f"enumerate()'s start must be an integer, not {self.describe(start)}", node)
    if isinstance(start, ir.Const) and start.value == 0:
        start = None
    return Enumerate(args[0], start)


def _zip(self, args, kwargs, node):
    """``zip`` of tuples and list literals is a tuple of tuples (``xs, ys = zip(*pairs)``
    unpacks it); of anything else, an iteration space."""
    if args and not kwargs and all(isinstance(a, (tuple, StaticList)) for a in args):
        return tuple(zip(*args))
    return Zip(tuple(args))


def _np_shape(self, args, kwargs, node):
    x = args[0]
    if is_atom(x) and isinstance(x.type, A.Array):
        return self.attribute(x, "shape", node)
    return ()


def _np_ndim(self, args, kwargs, node):
    x = args[0]
    if isinstance(x, (tuple, StaticList)):      # a nested sequence, as np.asarray would see it
        return ir.Const(1 + (_np_ndim(self, [x[0]], {}, node).value if len(x) else 0))
    return ir.Const(x.type.ndim if is_atom(x) and isinstance(x.type, A.Array) else 0)


def _index_add(self, args, kwargs, node):
    """``index_add(x, index, values)``: ``index`` one integer array, or a tuple of them
    (``np.add.at(K, (rows, cols), v)``)."""
    x, index, values = args
    items = tuple(index) if isinstance(index, (tuple, StaticList)) else (index,)
    x, values = self.atom(x, node), self.atom(values, node)
    atoms = [self.atom(i, node) for i in items]
    return self.apply("index_add", [x, values] + atoms, {"index": tuple(Slot(2 + k) for k in range(len(atoms)))},
                      hint=x.hint)


def _np_split(self, args, kwargs, node):
    """np.split(x, k or [i, j, ...], axis): a static number of slices (views) of x."""
    names = ("ary", "indices_or_sections", "axis")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    x = self.atom(bound["ary"], node)
    axis = self.static_int(bound.get("axis", ir.Const(0)), node)
    sections = bound["indices_or_sections"]
    if not isinstance(x.type, A.Array) or not -x.type.ndim <= axis < x.type.ndim:
        raise self.error(SstadTypeError, f"np.split of {self.describe(x)} along axis {axis}: "
                         f"the axis is outside its {getattr(x.type, 'ndim', 0)} dimensions", node)
    axis %= x.type.ndim
    n = self.attribute(x, "shape", node)[axis]
    if isinstance(sections, (tuple, StaticList)):
        bounds = [ir.Const(0), *sections, n]
    elif isinstance(sections, ir.Const):
        k = self.static_int(sections, node)
        size = self.binop("floordiv", n, ir.Const(k), node)
        loc = self.loc_of(node)
        equal = self.apply("op.eq", [self.atom(self.binop("mod", n, ir.Const(k), node), node), ir.Const(0)], hint="c")
        self.apply("builtin.assert", [equal], {"message": "array split does not result in an equal division",
                                               "at": (loc.file, loc.line, loc.col)}, hint="checked")
        bounds = [ir.Const(0)] + [self.binop("mul", size, ir.Const(j), node) for j in range(1, k)] + [n]
    else:
        raise self.error(UnsupportedSyntaxError, "np.split needs a constant number of sections or a "
                         "tuple of split points", node, "write the slices x[a:b] yourself")
    lead = (slice(None),) * axis
    return StaticList(self.subscript(x, lead + (slice(lo, hi),), node) for lo, hi in zip(bounds, bounds[1:]))


def _slice(self, args, kwargs, node):
    """``slice(stop)``, ``slice(start, stop[, step])``: the slice object an index reads."""
    if kwargs or not 1 <= len(args) <= 3:
        raise self.error(SstadTypeError, "slice() takes 1 to 3 positional arguments", node)
    bounds = [None if b is None or isinstance(b, ir.Const) and b.value is None else self.atom(b, node) for b in args]
    return slice(*bounds)


def _np_slogdet(self, args, kwargs, node):
    a = self.atom(args[0], node)
    return (self.call_numpy("slogdet_sign", [a], {}, node), self.call_numpy("slogdet_logabs", [a], {}, node))


def _isinstance(self, args, kwargs, node):
    raise self.error(UnsupportedSyntaxError, "isinstance() is not supported in compiled code", node,
                     "compile one function per argument type (it is specialised per signature anyway)")


def _callable(self, args, kwargs, node):
    """``callable(f)``, known at compile time: functions are static values, and so is
    whether an object's class has ``__call__``; numbers, arrays and containers are not
    callable."""
    if len(args) != 1 or kwargs:
        raise self.error(SstadTypeError, "callable() takes exactly one argument", node)
    (x,) = args
    if isinstance(x, (Closure, BoundMethod, CustomFunction, Remat, Partial)):
        return ir.Const(True)
    if isinstance(x, PytreeObject):
        return ir.Const(any("__call__" in vars(k) for k in x.cls.__mro__))
    if is_atom(x) or isinstance(x, (tuple, StaticList, dict, RangeValue, Enumerate, Zip)):
        return ir.Const(isinstance(x, ir.Const) and callable(x.value))
    return ir.Const(callable(x))


def _print(self, args, kwargs, node):
    """``print(...)`` called by reference (``f = print``): its arguments already values."""
    atoms = []
    return emit_print(self, [print_pieces(self, v, atoms, node) for v in args], atoms, kwargs, node)


def print_call(self, node):
    """``print(...)``, its f-strings kept as pieces: it prints the primal values when the
    compiled code runs, and has no derivative."""
    atoms, arguments = [], []
    for a in node.args:
        if isinstance(a, gast.Starred):
            raise self.error(UnsupportedSyntaxError, "print(*xs) is not supported", a, "print the items one by one")
        if not isinstance(a, gast.JoinedStr):
            arguments.append(print_pieces(self, self.expr(a), atoms, a))
            continue
        pieces = []
        for part in a.values:
            if isinstance(part, gast.Constant):
                pieces.append(str(part.value))
                continue
            spec = "" if part.format_spec is None else self.static_text(part.format_spec)
            conversion = None if part.conversion in (None, -1) else chr(part.conversion)
            pieces.extend(print_pieces(self, self.expr(part.value), atoms, part, conversion, spec))
        arguments.append(tuple(pieces))
    kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords if kw.arg is not None}
    return emit_print(self, arguments, atoms, kwargs, node)


def print_pieces(self, value, atoms, node, conversion=None, spec=""):
    """The pieces of one printed value: text known now, and (slot, conversion, spec) of a
    run-time number or array (its slot in ``atoms``)."""
    if isinstance(value, ir.Const) or value is None or isinstance(value, (str, bool, int, float)):
        plain = value.value if isinstance(value, ir.Const) else value
        shown = {None: lambda v: v, "s": str, "r": repr, "a": ascii}[conversion](plain)
        return (format(shown, spec),)
    if is_atom(value) and isinstance(value.type, (A.Scalar, A.Array)):
        atoms.append(value)
        return ((Slot(len(atoms) - 1), conversion, spec),)
    if isinstance(value, (tuple, StaticList)) and conversion is None and not spec:
        opening, closing = ("(", ",)" if len(value) == 1 else ")") if isinstance(value, tuple) else ("[", "]")
        pieces = [opening]
        for k, item in enumerate(value):
            pieces += ([", "] if k else []) + list(print_pieces(self, item, atoms, node, "r"))
        return tuple(pieces + [closing])
    raise self.error(UnsupportedSyntaxError, f"print() of {self.describe(value)} is not supported in compiled "
                     "code", node, "print numbers, arrays, strings and tuples of them")


def emit_print(self, arguments, atoms, kwargs, node):
    unknown = set(kwargs) - {"sep", "end", "flush"}
    if unknown:
        raise self.error(UnsupportedSyntaxError, f"print(..., {sorted(unknown)[0]}=...) is not supported in "
                         "compiled code", node, "print to standard output")
    params = {"args": tuple(arguments)}
    for key, value in kwargs.items():
        plain = value.value if isinstance(value, ir.Const) else value
        if not (plain is None or isinstance(plain, str) and key != "flush" or isinstance(plain, bool) and key == "flush"):
            raise self.error(SstadTypeError, f"print(..., {key}=) takes a constant here", node)
        params[key] = plain
    self.apply("builtin.print", list(atoms), params, hint="printed")
    return None


# --- containers: list(), tuple(), dict() ------------------------------------------
def static_items(self, value, node):
    """The items of ``value`` as a tuple when they are known at compile time (tuples, list
    literals, dict keys, ranges with constant bounds, enumerate/zip of those), else the
    :class:`Counted` run-time space of the statements' iteration."""
    if isinstance(value, RangeValue) and all(isinstance(b, ir.Const) for b in vars(value).values()):
        return tuple(ir.Const(k) for k in range(value.start.value, value.stop.value, value.step.value))
    if isinstance(value, Enumerate):
        inner = static_items(self, value.inner, node)
        if isinstance(inner, tuple):
            return tuple((self.enumerated_index(ir.Const(k), value.start, node), v) for k, v in enumerate(inner))
    if isinstance(value, Zip):
        spaces = [static_items(self, v, node) for v in value.items]
        if all(isinstance(s, tuple) for s in spaces):
            return tuple(zip(*spaces))
    if isinstance(value, str) or value is None:
        raise self.error(UnsupportedSyntaxError, f"iterating {self.describe(value)} is not supported", node)
    return self.iteration_space(value, node)


def fold(self, space, initial, step):
    """``acc = initial; for item in space: acc = step(acc, item)`` as a loop over a run-time
    iteration space; returns the final ``acc``."""
    key = "%acc"
    saved = self.scope.env.get(key, MISSING)
    self.scope.env[key] = initial

    def body(i):
        self.scope.env[key] = step(self.scope.env[key], space.element(i))
    self.loop(body, bounds=(space.start, space.stop, space.step))
    out = self.scope.env.pop(key)
    if saved is not MISSING:
        self.scope.env[key] = saved
    return out


def runtime_list(self, space, node, what):
    """A run-time list of the items of a run-time iteration space (``list(x)``)."""
    def append(items, item):
        if not is_atom(item):
            raise self.error(UnsupportedSyntaxError, f"{what} of {self.describe(item)} items at run time: "
                             "a run-time list holds numbers or arrays", node,
                             "loop over the items with `for` instead")
        return self.apply("list.append", [items, item], hint="items")
    return fold(self, space, self.apply("list.new", [], hint="items"), append)


def _list(self, args, kwargs, node):
    if kwargs or len(args) > 1:
        raise self.error(SstadTypeError, "list() takes at most one positional argument", node)
    if not args:
        return self.apply("list.new", [], hint="items")
    items = static_items(self, args[0], node)
    if isinstance(items, tuple):
        return StaticList(items)
    return runtime_list(self, items, node, "list()")


def _tuple(self, args, kwargs, node):
    if kwargs or len(args) > 1:
        raise self.error(SstadTypeError, "tuple() takes at most one positional argument", node)
    if not args:
        return ()
    items = static_items(self, args[0], node)
    if not isinstance(items, tuple):
        raise self.error(SstadTypeError, f"tuple() of {self.describe(args[0])}: its length is known only "
                         "at run time, and tuples are static here", node,
                         "use list(...) for a run-time list, unpack it (`a, b = x`), or index it")
    return items


def _dict(self, args, kwargs, node):
    if len(args) > 1:
        raise self.error(SstadTypeError, "dict() takes at most one positional argument", node)
    out = {}
    if args and isinstance(args[0], dict):
        out.update(args[0])
    elif args:
        pairs = static_items(self, args[0], node)
        if not isinstance(pairs, tuple):
            raise self.error(SstadTypeError, f"dict() of {self.describe(args[0])}: its keys are known only "
                             "at run time", node, "build the dict from a tuple or list literal of pairs")
        for pair in pairs:
            if not isinstance(pair, (tuple, StaticList)) or len(pair) != 2:
                raise self.error(SstadTypeError, "dict() takes (key, value) pairs", node)
            out[self.static_key(pair[0], node)] = pair[1]
    out.update(kwargs)
    return out


def _partial(self, args, kwargs, node):
    """``functools.partial(fn, *args, **kwargs)``: a static value; calls of it are inlined."""
    if not args:
        raise self.error(SstadTypeError, "partial() takes the function first", node)
    return Partial(args[0], tuple(args[1:]), tuple(kwargs.items()))


def draws_random_numbers(func):
    """np.random's functions, the methods of a Generator or RandomState, Python's random."""
    if isinstance(getattr(func, "__self__", None), (np.random.Generator, np.random.RandomState, random.Random)):
        return True
    module = getattr(func, "__module__", None) or ""
    return module == "random" or module == "numpy.random" or module.startswith("numpy.random.")


# --- functools.reduce and the operator module ---------------------------------------
def _reduce(self, args, kwargs, node):
    """``functools.reduce(fn, seq[, initial])``: unrolled over a static sequence, a loop
    over a run-time one (which needs ``initial``)."""
    if kwargs or not 2 <= len(args) <= 3:
        raise self.error(SstadTypeError, "reduce() takes a function, a sequence and an optional initial "
                         "value, by position", node)
    fn, seq = args[0], args[1]
    items = static_items(self, seq, node)
    if isinstance(items, tuple):
        items = list(items)
        if len(args) == 3:
            acc = args[2]
        elif items:
            acc = items.pop(0)
        else:
            raise self.error(SstadTypeError, "reduce() of an empty sequence with no initial value", node)
        for item in items:
            acc = self.call(fn, [acc, item], {}, node)
        return acc
    if len(args) < 3:
        raise self.error(SstadTypeError, f"reduce() over {self.describe(seq)} needs an initial value here "
                         "(the sequence may be empty at run time)", node, "pass it: reduce(fn, seq, initial)")
    return fold(self, items, args[2], lambda acc, item: self.call(fn, [acc, item], {}, node))


def _operator(arity, lower):
    def handler(self, args, kwargs, node):
        if kwargs or len(args) != arity:
            raise self.error(SstadTypeError, f"this operator function takes {arity} positional arguments", node)
        return lower(self, *args, node)
    return handler


def _binary(name):
    return _operator(2, lambda self, a, b, node: self.binop(name, a, b, node))


def _compare(op):
    return _operator(2, lambda self, a, b, node: self.compare(op, a, b, node))


def _unary(name):
    def lower(self, a, node):
        a = self.atom(a, node)
        if isinstance(a, ir.Const) and name != "invert":
            return ir.Const(-a.value if name == "neg" else +a.value)
        return self.apply("op." + name, [a])
    return _operator(1, lower)


def _getitem(self, obj, index, node):
    items = tuple(index) if type(index) is tuple and is_atom(obj) else (index,)
    return self.subscript(obj, items, node)


def _not(self, a, node):
    return self.logical_not(self.truth(a, node))


def _truth(self, a, node):
    return self.truth(a, node)


OPERATORS = {
    **{getattr(operator, name): _binary(name) for name in (
        "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor")},
    **{getattr(operator, name): _compare(op()) for name, op in (
        ("lt", gast.Lt), ("le", gast.LtE), ("gt", gast.Gt), ("ge", gast.GtE), ("eq", gast.Eq),
        ("ne", gast.NotEq))},
    operator.neg: _unary("neg"), operator.pos: _unary("pos"), operator.invert: _unary("invert"),
    operator.abs: _abs,
    operator.not_: _operator(1, _not), operator.truth: _operator(1, _truth),
    operator.getitem: _operator(2, _getitem),
}

BUILTINS = {id(builtins.len): _len, id(builtins.range): _range, id(builtins.abs): _abs,
            id(builtins.pow): _pow, id(builtins.divmod): _divmod,
            id(builtins.min): _minmax("min"), id(builtins.max): _minmax("max"),
            id(builtins.sum): _sum, id(builtins.enumerate): _enumerate, id(builtins.zip): _zip,
            id(builtins.isinstance): _isinstance, id(builtins.print): _print, id(builtins.callable): _callable,
            id(np.shape): _np_shape, id(np.ndim): _np_ndim, id(index_add): _index_add,
            id(np.split): _np_split, id(np.linalg.slogdet): _np_slogdet,
            id(builtins.list): _list, id(builtins.tuple): _tuple, id(builtins.dict): _dict,
            id(builtins.slice): _slice, id(builtins.reversed): _reversed,
            id(builtins.sorted): _sorted,
            id(functools.reduce): _reduce, id(functools.partial): _partial, **{id(f): handler for f, handler in OPERATORS.items()}}


def _nesting(value):
    """The shape of a nested static sequence (its first items decide)."""
    if isinstance(value, (tuple, StaticList)):
        return (len(value),) + (_nesting(value[0]) if value else ())
    return ()
