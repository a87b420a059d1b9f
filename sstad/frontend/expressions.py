"""Lowering of expressions into atoms (run-time values) and static values."""
from __future__ import annotations

import types

import gast
import numpy as np
from numba.extending import overload

from sstad.errors import SstadTypeError, UnsupportedSyntaxError, at_users_line
from sstad.frontend.builder import FALSE, TRUE, Conflict
from sstad.frontend.objects import is_object, member
from sstad.frontend.pytree import StaticList, flatten, is_atom, same_treedef
from sstad.frontend.scope import resolve
from sstad.frontend.values import BoundMethod, Closure, Counted, RangeValue
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A
from sstad.runtime.containers import list_of
from sstad.runtime.primitive import Slot

BINOPS = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "truediv",
          gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul",
          gast.BitAnd: "and_", gast.BitOr: "or_", gast.BitXor: "xor"}
COMPARES = {gast.Lt: "lt", gast.LtE: "le", gast.Gt: "gt", gast.GtE: "ge", gast.Eq: "eq",
            gast.NotEq: "ne"}
PYTHON_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
              "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b,
              "mod": lambda a, b: a % b, "pow": lambda a, b: a ** b}
UNSUPPORTED_EXPRESSIONS = {
    gast.Yield: ("`yield` is not supported: generators cannot be compiled",
                 "build and return a list or array instead"),
    gast.YieldFrom: ("`yield from` is not supported", "build and return a list or array instead"),
    gast.Await: ("`await` is not supported", "compile synchronous code only"),
    gast.NamedExpr: ("the walrus operator `:=` is not supported", "assign on a separate line"),
    gast.Set: ("set literals are not supported", "use a tuple or a list"),
    gast.SetComp: ("set comprehensions are not supported", "use a list comprehension"),
    gast.JoinedStr: ("f-strings are not supported in compiled code", "format outside the function"),
    gast.Starred: ("star-arguments `*args` are not supported", "pass the arguments one by one"),
}


class ExpressionLowering:
    INPLACE = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow")

    def expr(self, node):
        self.at(node)
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            message, hint = UNSUPPORTED_EXPRESSIONS.get(
                type(node), (f"`{type(node).__name__}` expressions are not supported", None))
            raise self.error(UnsupportedSyntaxError, message, node, hint)
        return method(node)

    # --- helpers ---------------------------------------------------------------
    def describe(self, value):
        if is_atom(value):
            return f"a value of type {value.type}"
        if is_object(value):
            return f"a {value.cls.__name__}"
        if isinstance(value, StaticList):          # a list argument or literal: its length is known
            return "a list"
        return f"a {type(value).__name__}"

    def atom(self, value, node):
        """``value`` as an IR atom (numbers become constants)."""
        if is_atom(value):
            return value
        if isinstance(value, (bool, int, float, complex, np.generic)):
            return ir.Const(value)
        raise self.error(SstadTypeError, f"expected a number or an array, got {self.describe(value)}", node)

    def truth(self, value, node):
        if isinstance(value, ir.Const):
            return TRUE if value.value else FALSE
        if is_atom(value):
            if isinstance(value.type, A.Array):
                raise self.error(SstadTypeError, "the truth value of an array is ambiguous", node,
                                 "use (...).any() or (...).all(), or compare a scalar")
            if isinstance(value.type, A.Scalar) and value.type.dtype == np.bool_:
                return value
            if isinstance(value.type, A.ListOf):         # `while stack:`: not empty
                return self.apply("op.gt", [self.apply("builtin.len", [value], hint="n"), ir.Const(0)], hint="c")
            return self.apply("op.truth", [value], hint="c")
        return TRUE if value else FALSE

    def logical_not(self, a):
        if isinstance(a, ir.Const):
            return FALSE if a.value else TRUE
        return self.apply("op.not_", [a], hint="c")

    def logical_or(self, a, b):
        if isinstance(a, ir.Const):
            return b if not a.value else TRUE
        if isinstance(b, ir.Const):
            return a if not b.value else TRUE
        return self.apply("op.or_", [a, b], hint="c")

    # --- leaves ----------------------------------------------------------------
    def expr_Constant(self, node):
        v = node.value
        if v is None or isinstance(v, (str, bytes)) or v is Ellipsis:
            return v
        return ir.Const(v)

    def expr_Name(self, node):
        return self.lookup(node.id, node)

    def lookup(self, name, node):
        where, value = resolve(self.scope, name)
        if where in ("global", "cell") and isinstance(value, (bool, int, float, complex, np.generic)):
            self.frozen.append(self.frozen_constant(name, where, value))
        elif where in ("global", "cell") and not isinstance(value, (np.ndarray, types.ModuleType, type)) \
                and not callable(value):
            self.frozen.append(self.value_guard(name, where, value))    # tuples, configs, ...
        if where == "local":
            if isinstance(value, Conflict):
                raise value.error
            return value
        if where == "unbound":
            raise self.error(SstadTypeError, f"`{name}` is used before it is assigned", node)
        if where is None:
            s = self.scope
            while s is not None and name not in s.ended_targets:
                s = s.parent
            if s is not None:       # Python's late binding: every such function sees the last item
                raise self.error(UnsupportedSyntaxError, f"`{name}` is the variable of a comprehension that has "
                                 "ended: a function made in it and called later reads it then", node,
                                 f"bind the item when the function is made: `lambda ..., {name}={name}: ...`")
            raise self.error(SstadTypeError, f"name `{name}` is not defined", node)
        return self.static(value, name, where, node)

    def static(self, value, name="", where="global", node=None, path=(), container=None):
        """A Python object from globals, a closure cell (``where``), an attribute of
        ``container`` (``"attr"``) or a default argument (``"value"``); ``path``: where it
        sits inside that value (arrays are fetched from there at each call)."""
        if where == "value" and container is None:
            container = value
        if isinstance(value, (bool, int, float, complex, np.generic)):
            return ir.Const(value)
        if isinstance(value, np.ndarray):
            return self.capture(value, name, where, node, container=container, path=path)
        inner = lambda v, k: self.static(v, name, where, node, path + (k,), container)   # noqa: E731
        if type(value) is tuple:
            return tuple(inner(v, k) for k, v in enumerate(value))
        if type(value) is list:
            return StaticList(inner(v, k) for k, v in enumerate(value))
        if type(value) is dict:
            return {k: inner(v, k) for k, v in value.items()}
        return value

    # --- containers ------------------------------------------------------------
    def expr_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node):
        if not node.elts:                        # `[]` grows at run time
            return self.apply("list.new", [], hint="items")
        return StaticList(self.expr(e) for e in node.elts)

    def expr_Dict(self, node):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise self.error(UnsupportedSyntaxError, "`**` in a dict literal is not supported", v)
            out[self.static_key(self.expr(k), k)] = self.expr(v)
        return out

    @staticmethod
    def dict_keys(d):
        """A static dict's keys as values: strings stay static, numbers become constants."""
        return tuple(k if isinstance(k, str) else ir.Const(k) for k in d)

    def static_key(self, key, node):
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if isinstance(key, ir.Const):
            return key.value
        if isinstance(key, str):
            return key
        raise self.error(SstadTypeError, "dict keys must be constants (strings or numbers): a dict is "
                         "resolved while compiling", node, "for a key known only at run time (a loop's "
                         "index) use a list (`d = []` then `d.append(v)`, read as `d[i]`), or loop over a "
                         "tuple of constants (`for i in (0, 1, 2):`), which unrolls")

    def expr_ListComp(self, node):
        return self.comprehension(node)

    expr_GeneratorExp = expr_ListComp

    def only_generator(self, node):
        if len(node.generators) != 1 or node.generators[0].is_async:
            raise self.error(UnsupportedSyntaxError, "only one `for` per comprehension is supported",
                             node, "nest two loops explicitly")
        return node.generators[0]

    def restore_targets(self, gen, saved):
        """Comprehension targets do not leak: give their names back their earlier values
        (a lambda made in the comprehension that reads one is refused where it reads it)."""
        names = {n.id for n in gast.walk(gen.target) if isinstance(n, gast.Name)}
        self.scope.ended_targets |= names - set(saved)
        for name in names:
            if name in saved:
                self.scope.env[name] = saved[name]
            else:
                self.scope.env.pop(name, None)

    def expr_DictComp(self, node):
        """``{k: v - lr * g[k] for k, v in params.items()}``: a static dict, unrolled over a
        static sequence (a dict's keys or items, a tuple or list literal) as a dict literal
        is; its keys must be constants and its ``if``s decided while compiling."""
        gen = self.only_generator(node)
        space = self.iteration_space(self.expr(gen.iter), gen.iter)
        if not isinstance(space, tuple):
            raise self.error(SstadTypeError, "a dict comprehension needs a sequence known while compiling "
                             "(a dict is resolved while compiling)", gen.iter,
                             "iterate a dict, a tuple or a list literal (`for k, v in params.items()`); "
                             "for entries known only at run time build a list")
        saved = dict(self.scope.env)
        out = {}
        for item in space:
            self.assign(gen.target, item)
            if all(self.static_condition(cond) for cond in gen.ifs):
                out[self.static_key(self.expr(node.key), node.key)] = self.expr(node.value)
        self.restore_targets(gen, saved)
        return out

    def static_condition(self, cond):
        truth = self.truth(self.expr(cond), cond)
        if not isinstance(truth, ir.Const):
            raise self.error(SstadTypeError, "the `if` of a dict comprehension must be decided while "
                             "compiling: the dict's keys are", cond,
                             "keep every key and choose the value with np.where, or test a key (`if k != \"b\"`)")
        return bool(truth.value)

    def comprehension(self, node):
        gen = self.only_generator(node)
        space = self.iteration_space(self.expr(gen.iter), gen.iter)
        saved = dict(self.scope.env)
        if isinstance(space, tuple) and self.decided(gen, space):
            items = []
            for v in space:
                self.assign(gen.target, v)
                if all(self.truth(self.expr(c), c).value for c in gen.ifs):
                    items.append(self.expr(node.elt))
            result = StaticList(items)
        else:
            key = "%comp"
            self.scope.env[key] = self.apply("list.new", [], hint="items")

            def append():
                keep = TRUE
                for cond in gen.ifs:
                    keep = self.branch(keep, lambda c=cond: self.truth(self.expr(c), c), lambda: FALSE)
                self.branch(keep, lambda: self.append_item(key, self.atom(self.expr(node.elt), node.elt)),
                            lambda: None)
            self.for_each(gen.target, space, append, exits=False)
            result = self.scope.env.pop(key)
        self.restore_targets(gen, saved)
        return result

    def not_yet_known(self):
        """A part of a value whose type is not known yet: a recursive function's result in
        the first pass over its body, taken as one value until its ``return``s say what it
        is (``a, b = rec(x, n - 1)``); that pass is lowered again with the result's type."""
        part = ir.Var("r", A.UNKNOWN)
        self.first_guesses.add(part)
        return part

    def decided(self, gen, space):
        """Are a comprehension's ``if``s over the static ``space`` all decided while compiling
        (``if k != "c"`` over a dict's items)?  Then it is a list literal, as without them."""
        for v in space:
            self.assign(gen.target, v)
            if not all(isinstance(self.truth(self.expr(c), c), ir.Const) for c in gen.ifs):
                return False
        return True

    def append_item(self, key, value):
        """Append to the list a comprehension builds (typed by its first item)."""
        lst = self.scope.env[key]
        if isinstance(lst.type, A.ListOf) and lst.type.elem is A.UNKNOWN and value.type is not A.UNKNOWN:
            lst.type = list_of(value.type)
        return self.apply("list.append", [lst, value], hint="items")

    def expr_Lambda(self, node):
        self.check_signature(node.args, node)
        return Closure(node, self.scope, self.scope.filename, "<lambda>", self.evaluate_defaults(node.args))

    # --- operators -------------------------------------------------------------
    def binop_name(self, op, node):
        name = BINOPS.get(type(op))
        if name is None:
            raise self.error(UnsupportedSyntaxError, f"operator {type(op).__name__} is not supported", node)
        return name

    def expr_BinOp(self, node):
        return self.binop(self.binop_name(node.op, node), self.expr(node.left), self.expr(node.right), node)

    def binop(self, name, a, b, node):
        if isinstance(a, (tuple, StaticList)) or isinstance(b, (tuple, StaticList)):
            return self.sequence_op(name, a, b, node)
        a, b = self.atom(a, node), self.atom(b, node)
        if isinstance(a, ir.Const) and isinstance(b, ir.Const) and name in PYTHON_OPS:
            try:
                return ir.Const(PYTHON_OPS[name](a.value, b.value))
            except (ZeroDivisionError, OverflowError):
                pass
        if name == "pow" and ir.is_scalar_const(b, 2) and getattr(a.type, "dtype", None) is not None \
                and A.is_float(a.type.dtype):
            return self.apply("op.mul", [a, a])      # x ** 2 is x * x (exactly), with a simpler rule
        if name == "pow" and isinstance(b, ir.Const) and type(b.value) is int and b.value == 2 \
                and isinstance(a.type, A.Array) and a.type.dtype.kind == "b":
            return self.apply("square", [a])         # NumPy's `array ** 2` is np.square: int8 here
        return self.apply("op." + name, [a, b])

    def sequence_op(self, name, a, b, node):
        kind = StaticList if isinstance(a, StaticList) or isinstance(b, StaticList) else tuple
        if name == "add" and isinstance(a, (tuple, StaticList)) and isinstance(b, (tuple, StaticList)):
            return kind(tuple(a) + tuple(b))
        if name == "mul":
            seq, n = (a, b) if isinstance(a, (tuple, StaticList)) else (b, a)
            if isinstance(n, ir.Const) and isinstance(n.value, int):
                return kind(tuple(seq) * n.value)
            if isinstance(seq, StaticList) and seq and is_atom(n) and isinstance(n.type, A.Scalar) \
                    and n.type.dtype.kind in "iu":
                return self.repeated_list(tuple(seq), n, node)
        raise self.error(UnsupportedSyntaxError, f"`{name}` on tuples/lists is not supported here", node,
                         "sequences support + with another sequence and * with a constant int; a list literal "
                         "times a run-time int is a run-time list ([0.0] * n)")

    def repeated_list(self, items, n, node):
        """``[0.0] * len(x)``: a run-time list of ``n`` copies of the items (numbers or arrays)."""
        from sstad.frontend.calls import runtime_list
        k = len(items)

        def element(i):
            if k == 1:
                return items[0]
            return self.select_item(StaticList(items), self.binop("mod", i, ir.Const(k), node), node)
        total = self.binop("mul", n, ir.Const(k), node)
        return runtime_list(self, Counted(ir.Const(0), total, ir.Const(1), element), node, "a repeated list")

    def expr_UnaryOp(self, node):
        value = self.expr(node.operand)
        if isinstance(node.op, gast.Not):
            return self.logical_not(self.truth(value, node.operand))
        a = self.atom(value, node.operand)
        name = {gast.USub: "neg", gast.UAdd: "pos", gast.Invert: "invert"}[type(node.op)]
        if isinstance(a, ir.Const) and name != "invert":
            return ir.Const(-a.value if name == "neg" else +a.value)
        return self.apply("op." + name, [a])

    def expr_Compare(self, node):
        left = self.expr(node.left)
        pairs = list(zip(node.ops, node.comparators))

        def chain(left, pairs):
            op, right_node = pairs[0]
            right = self.expr(right_node)
            result = self.compare(op, left, right, node)
            if len(pairs) == 1:
                return result
            return self.branch(self.truth(result, node), lambda: chain(right, pairs[1:]),
                               lambda: result, hint="c")
        return chain(left, pairs)

    def compare(self, op, a, b, node):
        if isinstance(op, (gast.Is, gast.IsNot)):
            same = (a is b) or (isinstance(a, ir.Const) and isinstance(b, ir.Const) and a.value is b.value)
            if not (a is None or b is None or same):
                raise self.error(UnsupportedSyntaxError, "`is` is supported only to compare with None", node)
            result = same or (a is None and b is None)
            return ir.Const(result if isinstance(op, gast.Is) else not result)
        if isinstance(op, (gast.In, gast.NotIn)):
            raise self.error(UnsupportedSyntaxError, "`in` is not supported", node,
                             "compare explicitly, e.g. `x == a or x == b`")
        name = COMPARES[type(op)]
        static = (str, type(None), np.dtype, type)              # mode="same", x.dtype == np.float32
        if isinstance(a, static) and isinstance(b, static) and name in ("eq", "ne"):
            return ir.Const((a == b) == (name == "eq"))
        a, b = self.atom(a, node), self.atom(b, node)
        if isinstance(a, ir.Const) and isinstance(b, ir.Const):
            return ir.Const(bool(getattr(__import__("operator"), name)(a.value, b.value)))
        return self.apply("op." + name, [a, b], hint="c")

    def expr_BoolOp(self, node):
        def chain(values):
            first = self.expr(values[0])
            if len(values) == 1:
                return first
            cond = self.truth(first, values[0])
            rest = lambda: chain(values[1:])   # noqa: E731
            # a list's truth stands for it (`while stack and n < 7:`; a list and a bool do not join)
            kept = cond if is_atom(first) and isinstance(first.type, A.ListOf) else first
            keep = lambda: kept                # noqa: E731
            if isinstance(node.op, gast.And):
                return self.branch(cond, rest, keep, hint="c")
            return self.branch(cond, keep, rest, hint="c")
        return chain(node.values)

    def expr_IfExp(self, node):
        cond = self.truth(self.expr(node.test), node.test)
        return self.branch(cond, lambda: self.expr(node.body), lambda: self.expr(node.orelse))

    # --- attributes and subscripts ---------------------------------------------
    def expr_Attribute(self, node):
        return self.attribute(self.expr(node.value), node.attr, node)

    def attribute(self, value, attr, node):
        if is_atom(value) and isinstance(value.type, A.Array):
            x = value
            if attr == "shape":
                return tuple(self.apply("dim", [x], {"axis": k}, hint="n") for k in range(x.type.ndim))
            if attr == "ndim":
                return ir.Const(x.type.ndim)
            if attr == "size":
                return self.apply("size", [x], hint="n")
            if attr == "T":
                return self.view(self.apply("transpose", [x], hint=x.hint), x)
            if attr == "dtype":
                return x.type.dtype
            if attr in ("real", "imag"):          # np.real / np.imag (views, as in NumPy)
                return self.call(getattr(np, attr), [x], {}, node)
            return BoundMethod(x, attr)
        if is_atom(value) and isinstance(value.type, A.Scalar) and attr in ("real", "imag"):
            return self.call(getattr(np, attr), [value], {}, node)
        if is_atom(value) and isinstance(value.type, A.Scalar) and attr in SCALAR_ATTRIBUTES:
            # a number is shaped like a 0-d array, as NumPy's scalars (np.sum(x)) are; rules
            # read these of any argument
            return SCALAR_ATTRIBUTES[attr](value)
        if is_atom(value) or isinstance(value, (StaticList, dict)):
            return BoundMethod(value, attr)
        if is_object(value):                  # a dataclass, NamedTuple or SimpleNamespace
            return member(self, value, attr, node)
        if isinstance(value, types.ModuleType) or not isinstance(value, tuple) or hasattr(type(value), "_fields"):
            try:
                found = getattr(value, attr)
            except AttributeError:
                pass
            else:
                if isinstance(value, (types.ModuleType, type)) or callable(found):
                    return self.static(found, attr)
                return self.object_attribute(value, attr, found, node)
        raise self.error(SstadTypeError, f"{self.describe(value)} has no attribute `{attr}`", node)

    def object_attribute(self, obj, attr, value, node):
        """``obj.attr`` of a Python object (a config, a dataclass): an array is read
        afresh at every call; anything else is compiled in and guarded, so that a
        change recompiles instead of going unseen."""
        if isinstance(value, np.ndarray):
            return self.capture(value, attr, "attr", node, container=obj)
        self.frozen.append(self.attribute_guard(obj, attr, value))
        return self.static(value, attr, "attr", node, container=obj)

    def expr_Subscript(self, node):
        return self.subscript(self.expr(node.value), self.index_of(node.slice), node)

    def index_of(self, node):
        """The items of an index expression: atoms, slices, None, Ellipsis, statics."""
        if isinstance(node, gast.Tuple):
            return tuple(self.index_item(e) for e in node.elts)
        return (self.index_item(node),)

    def index_item(self, node):
        if isinstance(node, gast.Slice):
            bound = lambda b: None if b is None else self.expr(b)   # noqa: E731
            return slice(bound(node.lower), bound(node.upper), bound(node.step))
        return self.expr(node)

    def subscript(self, base, index, node):
        if base is np.r_ or base is np.c_:
            return self.index_concatenation(base is np.c_, index, node)
        if isinstance(base, (tuple, StaticList)):
            if len(index) != 1:
                raise self.error(SstadTypeError, "a tuple takes one index", node)
            item = index[0]
            if isinstance(item, slice):
                parts = [None if b is None else self.static_int(b, node) for b in (item.start, item.stop, item.step)]
                return type(base)(tuple(base)[slice(*parts)])
            if is_atom(item) and not isinstance(item, ir.Const):
                return self.select_item(base, item, node)
            return base[self.static_int(item, node)]
        if isinstance(base, dict):
            key = self.static_key(index, node)
            if key not in base:
                raise self.error(SstadTypeError, f"key {key!r} is not in the dict", node)
            return base[key]
        if is_atom(base) and base in self.first_guesses:
            return self.not_yet_known()
        if not is_atom(base) or not isinstance(base.type, (A.Array, A.ListOf)):
            raise self.error(SstadTypeError, f"cannot index {self.describe(base)}", node)
        if isinstance(base.type, A.ListOf) and len(index) == 1 and isinstance(index[0], slice):
            with at_users_line(self.loc_of(node), "list slicing"):
                return self.call_user(list_slice, [base, index[0].start, index[0].stop, index[0].step], {}, node)
        index = spliced(index)
        atoms, layout = self.index_layout(index, first_slot=1, node=node)
        out = self.apply("getitem", [base] + atoms, {"index": layout}, hint=base.hint)
        if isinstance(base.type, A.Array) and isinstance(out.type, A.Array) and all(
                isinstance(i, (slice, type(None))) or (is_atom(i) and isinstance(i.type, A.Scalar)) for i in index):
            self.view(out, base)          # (an item of a list is the item, not a view of the list)
        elif isinstance(base.type, A.ListOf) and isinstance(out.type, A.Array):
            self.unfollowable(out, "an array read from a run-time list (the list holds it by reference: other "
                              "names may share its memory, which sstad cannot follow)",
                              "write into the array it came from (`X[i] *= 2.0`), or keep the arrays in a list "
                              "literal (`[a, b]`, writes through its items are followed) or in one array")
        return out

    def select_item(self, items, index, node):
        """``[a, b, c][i]`` with ``i`` known at run time: a balanced tree of ``if``s on ``i``
        picks the item (checked against the length first, as Python does; negative ``i``
        counts from the end).  The items must share one structure and joinable types."""
        if not (isinstance(index.type, A.Scalar) and index.type.dtype.kind in "iu"):
            raise self.error(SstadTypeError, f"tuple and list indices must be integers, not {index.type}", node)
        flat = [flatten(v) for v in items]
        uniform = bool(items) and all(same_treedef(t, flat[0][0]) for t, _ in flat)
        joined = [leaf.type for leaf in flat[0][1]] if uniform else []
        for _, leaves in flat[1:] if uniform else ():
            joined = [A.join(a, b.type) for a, b in zip(joined, leaves)]
        if not uniform or None in joined or any(t[0] == "static" for t, _ in flat):
            shown = ", ".join(self.describe(v) for v in items[:4]) + (", ..." if len(items) > 4 else "")
            raise self.error(SstadTypeError, "a tuple or list literal indexed by a run-time integer needs "
                             f"items of one type and structure, not ({shown})", node,
                             "give the items one type, or index with a constant")
        position = self.call_extern(literal_index, [index, ir.Const(len(items))], {}, node)

        def pick(lo, hi):
            if hi - lo == 1:
                return items[lo]
            mid = (lo + hi) // 2
            below = self.apply("op.lt", [position, ir.Const(mid)], hint="c")
            return self.branch(below, lambda: pick(lo, mid), lambda: pick(mid, hi), hint="item")
        return pick(0, len(items))

    def index_concatenation(self, columns, items, node):
        """``np.r_[a, b, 1.0, 0:3]``: the items as 1-d (or n-d) arrays joined along the first
        axis; ``np.c_[a, b]``: 1-d items as columns, joined along the last axis."""
        shown = "np.c_" if columns else "np.r_"
        parts = []
        for item in items:
            if isinstance(item, slice):
                item = self.index_range(item, node, shown)
            elif isinstance(item, (tuple, StaticList)):
                item = self.call_numpy("array", [StaticList(item)], {}, node)
            elif not is_atom(item):
                raise self.error(UnsupportedSyntaxError, f"{shown}[...] of {self.describe(item)} is not "
                                 "supported", node, "join arrays, numbers and slices with constant bounds")
            item = self.atom(item, node)
            if isinstance(item.type, A.Scalar):
                item = self.call_numpy("array", [StaticList([item])], {}, node)
            elif item.type.ndim == 0:
                item = self.call_numpy("atleast_1d", [item], {}, node)
            if columns and item.type.ndim == 1:
                item = self.subscript(item, (slice(None), None), node)
            parts.append(item)
        ranks = {p.type.ndim for p in parts}
        if len(ranks) != 1:
            raise self.error(SstadTypeError, f"{shown}[...] joins arrays of one rank (numbers count as "
                             f"{'1-d columns' if columns else '1-d'}), not of ranks {sorted(ranks)}", node)
        axis = ir.Const(-1 if columns else 0)
        return self.call_numpy("concatenate", [tuple(parts)], {"axis": axis}, node)

    def index_range(self, item, node, shown):
        """A slice inside ``np.r_``: ``a:b:s`` is ``np.arange``, ``a:b:nj`` ``np.linspace``."""
        start = ir.Const(0) if item.start is None else item.start
        step = ir.Const(1) if item.step is None else item.step
        if item.stop is None:
            raise self.error(SstadTypeError, f"a slice in {shown}[...] needs an end", node)
        if isinstance(step, ir.Const) and isinstance(step.value, complex):
            count = int(abs(step.value))
            return self.call_numpy("linspace", [start, item.stop, ir.Const(count)], {}, node)
        return self.call_numpy("arange", [start, item.stop, step], {}, node)

    def masks_beside_arrays(self, index, node):
        """``x[mask, idx]``: a boolean array beside other index arrays is its ``nonzero()``
        index arrays, as NumPy reads it (Numba miscompiles the mixed form)."""
        arrays = [i for i in index if is_atom(i) and isinstance(i.type, A.Array)]
        if len(arrays) < 2 or not any(a.type.dtype == np.bool_ for a in arrays):
            return index
        spread = []
        for item in index:
            if is_atom(item) and isinstance(item.type, A.Array) and item.type.dtype == np.bool_:
                spread.extend(self.call(np.nonzero, [item], {}, node))
            else:
                spread.append(item)
        return tuple(spread)

    def static_int(self, value, node):
        if isinstance(value, ir.Const) and isinstance(value.value, (int, np.integer)):
            return int(value.value)
        raise self.error(SstadTypeError, "expected a constant integer here", node)

    def index_layout(self, index, first_slot, node):
        """Flatten an index into atoms and a layout of Slots, slices, None, Ellipsis."""
        index = self.masks_beside_arrays(index, node)
        atoms = []

        def slot(value):
            if isinstance(value, ir.Const) and isinstance(value.value, (int, np.integer)) and not isinstance(value.value, bool):
                return int(value.value)
            atoms.append(self.atom(value, node))
            return Slot(first_slot + len(atoms) - 1)

        layout = []
        for item in index:
            if isinstance(item, slice):
                layout.append(slice(*[None if b is None else slot(b) for b in (item.start, item.stop, item.step)]))
            elif item is None or item is Ellipsis:
                layout.append(item)
            elif isinstance(item, (tuple, StaticList)):
                layout.append(slot(self.call_numpy("array", [item], {}, node)))
            elif isinstance(item, RangeValue):          # a sequence of ints, to NumPy: x[range(n), range(n)]
                layout.append(slot(self.call_numpy("arange", [item.start, item.stop, item.step], {}, node)))
            else:
                layout.append(slot(item))
        return atoms, tuple(layout)



SCALAR_ATTRIBUTES = {"shape": lambda x: (), "ndim": lambda x: ir.Const(0), "size": lambda x: ir.Const(1),
                     "T": lambda x: x, "dtype": lambda x: x.type.dtype}


def literal_index(i, n):
    """``i`` as a position in a tuple or list literal of ``n`` items, as Python indexes one."""
    if i < -n or i >= n:
        raise IndexError("tuple or list literal index out of range")
    return i + n if i < 0 else i


literal_index.result_type = A.I64        # (its trial call on stand-ins, 1 of 1 item, would fail)


@overload(literal_index)
def _literal_index_numba(i, n):
    return literal_index


def list_slice(items, start, stop, step):
    """``items[start:stop:step]`` of a run-time list, inlined: a new list of the items at
    the positions the same slice of ``np.arange(len(items))`` picks (Python's rules)."""
    return [items[k] for k in np.arange(len(items))[start:stop:step]]


def spliced(index):
    """``x[t]`` with ``t`` a tuple (``np.triu_indices(n)``) indexes as ``x[t[0], t[1]]``."""
    if len(index) == 1 and type(index[0]) is tuple:
        return index[0]
    return index
