"""Reverse-mode transforms: ``grad``, ``value_and_grad`` and ``vjp`` (JAX's names).

Each transform is *lowerable*: ``sstad_lower(args)`` returns the IR module of the
derivative function for those arguments, with the same calling convention as the
primal (argument leaves, then captured globals).  So ``sstad.jit(sstad.grad(f))``
compiles the derivative with Numba, and calling ``sstad.grad(f)`` directly runs the
same code with the python backend.
"""
from __future__ import annotations

import contextvars
import functools
import os

from sstad.ad.residuals import check_policy
from sstad.ad.reverse import ReverseMode, differentiable
from sstad.errors import SstadTypeError
from sstad.api import Jitted, as_positional, jit, unbound
from sstad.frontend.lower import Lowerer, flatten_runtime, lower, python_name
from sstad.ir import nodes as ir
from sstad.ir.escape import export_escaping
from sstad.passes import run_passes
from sstad.runtime import abstract as A


def lower_any(fun, args):
    """Lower a plain function, or another transform (so transforms compose), and
    optimise it: dead code is gone before it is differentiated (no derivative work for
    it, and no ``0 * inf`` from a rule that runs where nothing needs it)."""
    token = _INNER.set(True)       # a derivative it holds is differentiated again: no budget
    try:
        lowered = fun.sstad_lower(args) if hasattr(fun, "sstad_lower") else lower(fun, args)
    finally:
        _INNER.reset(token)
    run_passes(lowered[0], phase="ad")
    return lowered


_INNER = contextvars.ContextVar("sstad_inner_transform", default=False)


def check_tape_budget(tape_budget, policy="auto"):
    """``"auto"``: a quarter of the machine's memory (no budget under ``policy="store"``,
    which keeps everything); ``None``: no budget; else bytes."""
    if tape_budget == "auto" and policy == "store":
        return None
    if tape_budget == "auto":
        try:
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
        except (AttributeError, ValueError, OSError):      # no sysconf (Windows): assume 16 GB
            return 4 << 30
    if tape_budget is None:
        return None
    if isinstance(tape_budget, bool) or not isinstance(tape_budget, (int, float)) or not tape_budget > 0:
        raise ValueError(f"tape_budget={tape_budget!r}: expected a number of bytes > 0, 'auto' or None")
    return int(tape_budget)


def _budget(options):
    """The tape budget of a derivative, none where it is differentiated again (the
    checkpointed loop's bookkeeping has no derivative of its own)."""
    return None if _INNER.get() else options["tape_budget"]


def _count(treedef):
    kind = treedef[0]
    if kind == "leaf":
        return 1
    if kind == "static":
        return 0
    return sum(_count(c) for c in treedef[-1])


def _leaf_ranges(in_tree):
    """For each argument: the positions of its leaves among the parameters."""
    ranges, start = [], 0
    for child in in_tree[1]:
        n = _count(child)
        ranges.append(range(start, start + n))
        start += n
    return ranges


def _check_argnums(fun, in_tree, ranges, picked, loc):
    """Every picked argument exists and holds numbers to differentiate."""
    for a in picked:
        if not isinstance(a, int) or isinstance(a, bool):
            raise SstadTypeError(f"argnums={a!r}: argnums is an int or a tuple of ints, the positions of the "
                                 "arguments to differentiate", loc, "count arguments from 0")
        if not -len(ranges) <= a < len(ranges):
            raise SstadTypeError(f"argnums={a!r} is out of range: `{fun.__name__}` was called with "
                                 f"{len(ranges)} argument(s)", loc, "count arguments from 0")
        if not ranges[a]:
            shown = type(in_tree[1][a][1]).__name__ if in_tree[1][a][0] == "static" else "no numbers"
            raise SstadTypeError(f"cannot differentiate with respect to argument {a} ({shown}): it holds "
                                 "no numbers or arrays sstad can see", loc,
                                 "pass floats, float arrays, or tuples/lists/dicts/dataclasses/NamedTuples of them")


class _Transform:
    # Does the transform take the function's own arguments (so a call may give some by
    # keyword, and a partial or a method may bind some)?  pullback and pushforward do not.
    takes_fun_args = False

    def __init__(self, fun, **options):
        # an sstad.jit object, a functools.partial or a bound method: its function, and the
        # arguments it binds, passed before the caller's
        self.fun, self._args, self._kwargs = unbound(fun)
        self.sstad_binds = bool(self._args or self._kwargs) or getattr(self.fun, "sstad_binds", False)
        self.sstad_shift = len(self._args) + getattr(self.fun, "sstad_shift", 0)
        if self.sstad_binds and not self.takes_fun_args:
            raise SstadTypeError(f"sstad.{self._name()} (which vjp, jvp, jacfwd, jacrev, hessian and hvp use) "
                                 "takes a plain function, not a method or a functools.partial", None,
                                 "write a function of your own that calls it: `def loss(w, x): return "
                                 "model.loss(w, x)`, or use sstad.grad, which takes them")
        if not callable(self.fun):
            raise TypeError(f"sstad.{type(self).__name__.lower().strip('_')} takes a function, not {type(fun).__name__}")
        self.options = options
        functools.update_wrapper(self, self.fun, updated=())
        self.__name__ = python_name(self.fun.__name__) + self.suffix()    # grad(grad(f)) is f_grad_grad
        self._interpreted = Jitted(self, backend="python", fallback=False)

    def __call__(self, *args, **kwargs):
        return self._interpreted(*args, **kwargs)

    def sstad_bind(self, args, kwargs):
        """The arguments of a call by position (see :meth:`sstad.api.Jitted.bind`)."""
        if not self.takes_fun_args and kwargs:
            raise SstadTypeError(f"sstad.{self._name()} takes its arguments by position (primals, then "
                                 f"{'cotangent' if isinstance(self, _VJP) else 'tangents'})", None,
                                 "pass them by position")
        args, kwargs = self._args + args, {**self._kwargs, **kwargs}
        if hasattr(self.fun, "sstad_bind"):
            return self.fun.sstad_bind(args, kwargs)
        return as_positional(self.fun, args, kwargs)

    def suffix(self):
        return ""

    def _name(self):
        return type(self).__name__.lower().strip("_")


class Grad(_Transform):
    """See :func:`grad` and :func:`value_and_grad`."""

    takes_fun_args = True

    def sstad_bind(self, args, kwargs):
        argnums = self.options["argnums"]
        negative = any(a < 0 for a in ([argnums] if isinstance(argnums, int) else argnums) if isinstance(a, int))
        if negative and (kwargs or self.sstad_binds):
            raise SstadTypeError(f"argnums={argnums!r} counts from the end of the positional arguments, which "
                                 "keyword arguments or the arguments of a partial or a method move", None,
                                 "count argnums from 0 (the first argument you pass)")
        return super().sstad_bind(args, kwargs)

    def _argnums(self):
        """``argnums`` among all the arguments, those a partial or a method binds first."""
        argnums, shift = self.options["argnums"], self.sstad_shift
        if isinstance(argnums, int):
            return argnums + shift if argnums >= 0 else argnums
        return tuple(a + shift if isinstance(a, int) and a >= 0 else a for a in argnums)

    def suffix(self):
        return "_value_and_grad" if self.options["with_value"] else "_grad"

    def sstad_lower(self, args):
        argnums, has_aux = self._argnums(), self.options["has_aux"]
        weights, with_value = self.options["weights"], self.options["with_value"]
        module, in_tree, out_tree, captures = lower_any(self.fun, args)
        entry = module.entry
        if has_aux:
            if out_tree[0] != "tuple" or len(out_tree[1]) != 2:
                raise SstadTypeError("with has_aux=True the function must return (value, aux)", entry.loc)
            value_tree, aux_tree = out_tree[1]
        else:
            value_tree, aux_tree = out_tree, None
        ranges = _leaf_ranges(in_tree)
        picked = [argnums] if isinstance(argnums, int) else list(argnums)
        _check_argnums(self.fun, in_tree, ranges, picked, entry.loc)
        wrt, grad_trees = [], []
        for a in picked:
            wrt.extend(ranges[a])
            grad_trees.append(in_tree[1][a])
        n_args = sum(len(r) for r in ranges)
        by_name = {c.name: k for k, c in enumerate(c for c in captures if c.frozen is None)}
        for name in weights:
            if name not in by_name:
                raise SstadTypeError(f"`{self.fun.__name__}` does not read a global array named `{name}`",
                                     entry.loc, "weights names globals or closure arrays the function reads")
            wrt.append(n_args + by_name[name])
            grad_trees.append(("leaf",))
        for i in wrt:
            if not differentiable(entry.params[i]):
                raise SstadTypeError(f"cannot differentiate with respect to `{entry.params[i].hint}` of type "
                                     f"{entry.params[i].type}", entry.loc, "pass floats or float arrays")
        value = entry.body.results[0] if value_tree[0] == "leaf" else None
        if value is None or not (isinstance(value.type, A.Scalar) and A.is_float(value.type.dtype)):
            shown = value.type if value is not None else "a structure"
            raise SstadTypeError(f"grad needs a scalar float output, but `{self.fun.__name__}` returns {shown}",
                                 entry.loc, "reduce it (e.g. .sum()) or use sstad.vjp for other outputs")
        reverse = ReverseMode(Lowerer(), policy=self.options["policy"], tape_budget=_budget(self.options))
        joint = reverse.joint(entry, wrt, seeded=[0], constant_seed=True)
        n_out = len(entry.body.results)
        values, grads = joint.body.results[:n_out], joint.body.results[n_out:]
        if isinstance(argnums, int) and not weights:
            grads_tree = grad_trees[0]
        elif isinstance(argnums, int):
            grads_tree = ("tuple", tuple(grad_trees))
        else:
            args_part = ("tuple", tuple(grad_trees[:len(picked)]))
            grads_tree = ("tuple", (args_part,) + tuple(grad_trees[len(picked):])) if weights else args_part
        if with_value:
            joint.body.results = values + grads
            tree = ("tuple", (out_tree, grads_tree))
        elif has_aux:
            joint.body.results = grads + values[1:]
            tree = ("tuple", (grads_tree, aux_tree))
        else:
            joint.body.results = grads
            tree = grads_tree
        joint.name = self.__name__
        return _module(module, reverse, joint), in_tree, tree, captures


def grad(fun, argnums=0, has_aux=False, weights=(), policy="auto", tape_budget="auto"):
    """The gradient of a scalar-valued NumPy function, by reverse mode.

    ``argnums`` (int or tuple) picks the arguments; arguments may be pytrees (tuples,
    lists, dicts of arrays and floats) and each gradient has its argument's structure.
    ``weights`` names global or closure arrays the function reads; their gradients
    follow the argument gradients.  With ``has_aux`` the function returns
    ``(value, aux)`` and ``grad`` returns ``(gradient, aux)``.  ``policy`` says what the
    backward sweep of a loop does with the forward body's intermediates: ``"store"`` them
    on tapes, ``"recompute"`` them from the taped loop state, or ``"auto"`` (store, except
    arrays larger in rank than the loop's state); see docs/ad.md, "Store or recompute".
    ``tape_budget`` bounds the bytes a loop's tapes hold: past it the loop keeps
    checkpoints and runs segments of its iterations again in the backward sweep
    (``"auto"``: a quarter of the machine's memory, none under ``policy="store"``;
    ``None``: no bound; see docs/ad.md, "Tape memory budget").

    Example, in a ``.py`` file::

        import numpy as np
        import sstad

        def f(x):
            return np.sum(np.sin(x) * x)

        x = np.array([0.0, 1.0])
        assert np.allclose(sstad.grad(f)(x), np.cos(x) * x + np.sin(x))
    """
    return Grad(fun, argnums=argnums, has_aux=has_aux, weights=tuple(weights), with_value=False,
                policy=check_policy(policy), tape_budget=check_tape_budget(tape_budget, policy))


def value_and_grad(fun, argnums=0, has_aux=False, weights=(), policy="auto", tape_budget="auto"):
    """Like :func:`grad`, returning ``(value, gradient)`` (``((value, aux), gradient)``)."""
    return Grad(fun, argnums=argnums, has_aux=has_aux, weights=tuple(weights), with_value=True,
                policy=check_policy(policy), tape_budget=check_tape_budget(tape_budget, policy))


class _VJP(_Transform):
    """The pullback of ``fun`` at given primals: called with (*primals, cotangent)."""

    def suffix(self):
        return "_pullback"

    def sstad_lower(self, args):
        primals, cotangent = args[:-1], args[-1]
        module, in_tree, out_tree, captures = lower_any(self.fun, primals)
        entry = module.entry
        results = entry.body.results
        if self.options["has_aux"]:
            out_tree = out_tree[1][0]
            results = results[:_count(out_tree)]
        seeded = [k for k, r in enumerate(results) if differentiable(r)]
        n_args = len(entry.params) - len([c for c in captures if c.frozen is None])
        wrt = [i for i in range(n_args) if differentiable(entry.params[i])]
        reverse = ReverseMode(Lowerer(), policy=self.options["policy"], tape_budget=_budget(self.options))
        joint = reverse.joint(entry, wrt, seeded=seeded, constant_seed=False)
        by_leaf = dict(zip(seeded, joint.params[len(entry.params):]))
        # one parameter per output leaf; integer leaves take a cotangent nobody reads
        seed_params = [by_leaf.get(k) or ir.Var("dout", r.type) for k, r in enumerate(results)]
        primal_params = joint.params[:n_args]
        capture_params = joint.params[n_args:len(entry.params)]
        joint.params = primal_params + seed_params + capture_params
        joint.body.params = joint.params
        joint.body.results = joint.body.results[len(entry.body.results):]
        tree = _replace_leaves(in_tree, [differentiable(p) for p in entry.params[:n_args]])
        joint.name = self.__name__
        module = _module(module, reverse, joint)
        in_tree_all = ("tuple", tuple(in_tree[1]) + (out_tree,))
        _check_cotangent(cotangent, out_tree)
        return module, in_tree_all, tree, captures


def _module(primal, reverse, joint):
    """The derivative module: recursive primal helpers, their vjps, then the entry."""
    helpers = primal.functions[:-1] + [vjp for vjp, _, _ in reverse.callees.values()]
    for fn in helpers + [joint]:
        export_escaping(fn)
    return ir.Module(helpers + [joint])


def _replace_leaves(treedef, keep):
    """The argument structure with non-differentiable leaves replaced by None."""
    it = iter(keep)

    def walk(d):
        if d[0] == "leaf":
            return d if next(it) else ("static", None)
        if d[0] == "static":
            return d
        return d[:-1] + (tuple(walk(c) for c in d[-1]),)
    return walk(treedef)


def _check_cotangent(cotangent, out_tree):
    tree, _ = flatten_runtime(cotangent)
    if _count(tree) != _count(out_tree):
        raise SstadTypeError("the cotangent must have the structure of the function's output")


def pullback(fun, has_aux=False, policy="auto", tape_budget="auto"):
    """The function ``(*primals, cotangent) -> cotangents of the primals``.

    What :func:`vjp` returns, as one function that ``sstad.jit`` can compile:
    ``sstad.jit(sstad.pullback(f))(x, dout)``."""
    return _VJP(fun, has_aux=has_aux, policy=check_policy(policy), tape_budget=check_tape_budget(tape_budget, policy))


def vjp(fun, *primals, has_aux=False, policy="auto", tape_budget="auto"):
    """``(out, vjp_fn)``: the output at ``primals`` and its pullback.

    ``vjp_fn(cotangent)`` returns one cotangent per primal argument (None for integer
    leaves).  With ``has_aux`` the function returns ``(out, aux)`` and ``vjp`` returns
    ``(out, vjp_fn, aux)``.  ``policy`` and ``tape_budget``: as for :func:`grad`.

    Example, in a ``.py`` file::

        import numpy as np
        import sstad

        def double(x):
            return 2.0 * x

        out, pullback = sstad.vjp(double, np.ones(2))
        (dx,) = pullback(np.array([1.0, 3.0]))
        assert np.array_equal(dx, [2.0, 6.0])
    """
    value = jit(fun, backend="python")(*primals)
    pull = pullback(fun, has_aux=has_aux, policy=policy, tape_budget=tape_budget)

    def vjp_fn(cotangent):
        return pull(*primals, cotangent)
    if has_aux:
        return value[0], vjp_fn, value[1]
    return value, vjp_fn
