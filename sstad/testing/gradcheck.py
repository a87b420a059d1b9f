"""``check_grads``: sstad's derivatives against central finite differences (JAX semantics).

For a random direction ``v`` over the float leaves of the arguments, the numerical JVP
``J v`` is taken by central differences of the *plain Python* function (NumPy is the
reference semantics).  Then

* ``"fwd"``: ``sstad.pushforward(f)(*args, *v)`` must give ``J v``;
* ``"rev"``: for a random output cotangent ``u``, ``<vjp(u), v> == <u, J v>`` (the
  dot-product test, with ``sstad.vjp``'s pullback compiled on ``backend``).

``order > 1`` checks the derivative functions themselves, recursively (the pullback
``(*args, u) -> vjp(u)`` at the next order).
"""
from __future__ import annotations

import copy
import inspect
import warnings

import numpy as np

from sstad.runtime import abstract as A
from sstad.testing import trees as T

#: default step and tolerance per dtype (the lowest float precision among args and outputs)
EPS = {np.dtype(np.float64): 1e-5, np.dtype(np.float32): 1e-2}
TOL = {np.dtype(np.float64): 1e-5, np.dtype(np.float32): 5e-3}



class NotSmoothError(Exception):
    """The finite-difference derivative is not reliable at this point: the function has a
    kink or a jump within the step (``abs``, ``max``, ``where``, an ``if`` on data), or its
    values are not finite.  Not a failure of sstad: move the point (or the seed)."""

    def __init__(self, message, reason="kink"):
        super().__init__(message)
        self.reason = reason


class SstadCrash(Exception):
    """sstad itself failed an internal ``assert`` (a compiler bug, not a wrong derivative)."""


def _sstad(fn, *args):
    """Run a call into sstad; its internal AssertionErrors become :class:`SstadCrash` so
    that only check_grads' own mismatches are AssertionErrors."""
    try:
        return fn(*args)
    except AssertionError as exc:
        raise SstadCrash(f"sstad raised AssertionError: {exc}") from exc


def _plain(f):
    """The Python function behind an ``sstad.jit`` object (the reference semantics)."""
    from sstad.api import Jitted
    return f.fn if isinstance(f, Jitted) else f


def _name(f):
    f = _plain(f)
    return getattr(f, "__name__", None) or type(f).__name__


def _where(f):
    f = getattr(_plain(f), "fun", _plain(f))
    try:
        return f"{inspect.getsourcefile(f)}:{inspect.getsourcelines(f)[1]}"
    except (TypeError, OSError):
        return "?"


def _param_names(f, n):
    try:
        params = list(inspect.signature(getattr(_plain(f), "fun", _plain(f))).parameters)
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"arg{i}" for i in range(n)]


def _call(fn, args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*copy.deepcopy(args))


class _Numerical:
    """Central differences of ``fn`` at ``args`` along ``direction``, projected on ``u``."""

    def __init__(self, fn, args, eps, tol):
        self.fn, self.args, self.eps, self.tol = fn, args, eps, tol
        self.here = _call(fn, args)

    def jvp(self, direction, u, what="f"):
        """``(J v as a tree, <u, J v>, its error estimate)``; raises
        :class:`NotSmoothError` where differences cannot be trusted."""
        here, eps = self.here, self.eps
        if not T.all_finite(here):
            raise NotSmoothError(f"{what} is not finite at this point", "nonfinite")
        estimates, gaps, trees = [], [], []
        h0 = T.inner(u, here)

        def differences(step):
            plus = _call(self.fn, T.axpy(self.args, direction, step))
            minus = _call(self.fn, T.axpy(self.args, direction, -step))
            if not (T.other_leaves(plus) == T.other_leaves(minus) == T.other_leaves(here)):
                raise NotSmoothError(f"an integer or boolean output of {what} changes within the step", "jump")
            if not (T.all_finite(plus) and T.all_finite(minus)):
                raise NotSmoothError(f"{what} is not finite within the step", "nonfinite")
            hp, hm = T.inner(u, plus), T.inner(u, minus)
            gaps.append(abs((hp - h0) / step - (h0 - hm) / step))
            estimates.append((hp - hm) / (2 * step))
            trees.append(T.sub_scaled(plus, minus, 1 / (2 * step)))
        differences(eps)
        differences(eps / 8)
        scale = 1.0 + abs(estimates[0]) + T.abs_inner(u, trees[0])
        floor = self.tol * (1.0 + _largest(trees[0]))
        if _largest(T.sub_scaled(trees[0], trees[1], 1.0)) > floor:
            # The step matters: a third, smaller one.  Central differences of a smooth
            # function move 64x less from eps/8 to eps/64 than from eps to eps/8; with a
            # kink between eps/64 and eps/8 from the point they move more, and the
            # one-sided slopes below can look smooth (compared leaf by leaf: in the
            # projection on u two outputs' kinks can cancel).
            differences(eps / 64)
            moved = [_largest(T.sub_scaled(trees[k], trees[k + 1], 1.0)) for k in (0, 1)]
            if moved[1] > moved[0] / 8 + floor:
                raise NotSmoothError(f"the difference quotients of {what} keep moving as the step shrinks "
                                     f"(by {moved[0]:.3g}, then {moved[1]:.3g}): a kink within the step", "kink")
        # Smooth: the one-sided slopes meet as the step shrinks (their gap falls 8x).  At a
        # kink the gap stays: the slopes differ.
        if gaps[1] > self.tol * scale and gaps[1] > 0.25 * gaps[0]:
            raise NotSmoothError(f"{what} has a kink within the step along the direction "
                                 f"(one-sided slopes differ by {gaps[1]:.3g})", "kink")
        err = abs(estimates[0] - estimates[1])
        if err > 10 * self.tol * scale:
            raise NotSmoothError(f"the difference quotient of {what} moves with the step "
                                 f"({estimates[0]:.6g} vs {estimates[1]:.6g}): a jump", "jump")
        # Central differences are off by ~c step^2: the two steps extrapolate that away
        # (Richardson), which leaves of a fast-turning output need (sin(16 x) in float32).
        extrapolated = T.axpy(trees[1], T.sub_scaled(trees[1], trees[0], 1.0), 1 / 63)
        return extrapolated, estimates[1] + (estimates[1] - estimates[0]) / 63, err


def _largest(tree):
    """The largest magnitude among a tree's float values."""
    return max((float(np.max(np.abs(leaf), initial=0.0)) for leaf in T.float_leaves(tree)), default=0.0)


def _tolerances(dtype, atol, rtol):
    tol = TOL[dtype]
    return (tol if atol is None else atol), (tol if rtol is None else rtol)


def _dump_hint(f, n_args, mode):
    name = _name(f)
    where = _where(f)
    file = where.rsplit(":", 1)[0]
    lines = ["to see the code sstad generated:"]
    if mode == "rev":
        lines.append(f"    print(sstad.dump(sstad.pullback({name}), *args, u, emit='python'))")
        lines.append(f"    print(sstad.dump(sstad.grad({name}), *args, emit='python'))   # scalar output")
        lines.append(f"    sstad dump {file}:{name} --vjp --args '<args>, <u>' --emit python")
        lines.append(f"    sstad dump {file}:{name} --grad --args '<args>' --emit python")
    else:
        lines.append(f"    print(sstad.dump({name}, *args, emit='python'))   # the primal")
    return "\n".join(lines)


def _fmt(x):
    with np.printoptions(precision=6, suppress=False, threshold=40, linewidth=100):
        return repr(np.asarray(x)) if isinstance(x, np.ndarray) else repr(x)


class _Checker:
    def __init__(self, f, args, eps, atol, rtol, backend, seed, order, top_order):
        self.f, self.args = f, tuple(args)
        self.backend, self.order, self.top_order = backend, order, top_order
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.fn = _plain(f)
        self.num0 = None
        self.dtype = T.lowest_precision(self.args)
        if self.dtype not in EPS:
            raise ValueError(f"check_grads: finite differences in {self.dtype} are too coarse to check derivatives; "
                             "check the function on float32 or float64 arguments")
        self.user_eps = eps
        self.eps = EPS[self.dtype] if eps is None else eps
        self.atol, self.rtol = _tolerances(self.dtype, atol, rtol)
        self.numerical = _Numerical(self.fn, self.args, self.eps, self.rtol)
        self.out = self.numerical.here
        out_dtype = T.lowest_precision(self.out)
        if out_dtype.itemsize < self.dtype.itemsize:      # float32 output of float64 inputs
            self.dtype = out_dtype
            self.atol, self.rtol = _tolerances(self.dtype, atol, rtol)
            self.eps = EPS[self.dtype] if eps is None else eps
            self.numerical = _Numerical(self.fn, self.args, self.eps, self.rtol)
        if not T.float_leaves(self.args):
            raise ValueError(f"check_grads: `{_name(f)}` has no float arguments to differentiate")
        self.v = T.random_like(self.args, self.rng)
        self.u = T.cotangent_like(self.out, self.rng)
        self.names = _param_names(f, len(self.args))

    # -- reporting ---------------------------------------------------------------------
    def header(self, mode, what):
        return (f"check_grads: `{_name(self.f)}` ({_where(self.f)}) fails at order {self.top_order - self.order + 1}, "
                f"mode {mode!r} ({what}), backend {self.backend!r}, dtype {self.dtype}, seed {self.seed}")

    def fail(self, mode, what, lines):
        report = [self.header(mode, what)] + ["  " + line for line in lines]
        report.append(_dump_hint(self.f, len(self.args), mode))
        raise AssertionError("\n".join(report))

    def close(self, a, b, scale, err=0.0):
        return abs(a - b) <= self.atol + self.rtol * scale + 10 * err

    def arg_label(self, path):
        # args[1]['w'] -> args[1]['w'] (`params`)
        try:
            i = int(path.split("[")[1].split("]")[0])
            return f"{path} (`{self.names[i]}`)"
        except (IndexError, ValueError):
            return path

    # -- value -----------------------------------------------------------------------------
    def check_value(self):
        import sstad
        got = _sstad(sstad.jit(self.f, backend=self.backend), *copy.deepcopy(self.args))
        want = self.out
        lw, lg = T.leaves_with_paths(want, "out"), T.leaves_with_paths(got, "out")
        if len(lw) != len(lg):
            self.fail("value", "compiled output vs Python", [
                f"the compiled function returns {len(lg)} leaves, Python returns {len(lw)}",
                f"Python: {_fmt(want)}", f"sstad:  {_fmt(got)}"])
        for (path, w), (_, g) in zip(lw, lg):
            if np.shape(w) != np.shape(g):
                self.fail("value", "compiled output vs Python",
                          [f"{path}: shape {np.shape(g)}, Python gives {np.shape(w)}"])
            wa, ga = np.asarray(w), np.asarray(g)
            if A.is_inexact(wa.dtype):
                ok = np.allclose(ga.astype(np.float64), wa.astype(np.float64), rtol=self.rtol, atol=self.atol,
                                 equal_nan=True)
            else:
                ok = np.array_equal(ga, wa)
            if not ok:
                self.fail("value", "compiled output vs Python",
                          [f"{path}: Python gives {_fmt(w)}", f"{' ' * len(path)}  sstad gives  {_fmt(g)}"])

    # -- reverse ---------------------------------------------------------------------------
    def check_rev(self):
        import sstad
        pull = sstad.jit(sstad.pullback(self.f), backend=self.backend)
        args_copy = copy.deepcopy(self.args)
        cts = _sstad(pull, *args_copy, copy.deepcopy(self.u))
        for (path, before), (_, after) in zip(T.leaves_with_paths(self.args), T.leaves_with_paths(args_copy)):
            if not T.same_leaf(before, after):
                self.fail("rev", "vjp dot-product test", [f"the pullback wrote into its argument {path}"])
        self.check_structure(cts)
        jv, num, err = self.numerical.jvp(self.v, self.u)
        got = T.inner(cts, self.v)
        scale = max(abs(num), abs(got), T.abs_inner(self.u, jv), T.abs_inner(cts, self.v))
        if not self.close(num, got, scale, err):
            lines = [f"<u, J v> by central differences: {num!r}",
                     f"<vjp(u), v> from sstad:          {got!r}",
                     f"|difference| {abs(num - got):.3g} > tolerance {self.atol + self.rtol * scale + 10 * err:.3g} "
                     f"(atol {self.atol:g}, rtol {self.rtol:g}, eps {self.eps:g})"]
            lines += self.by_leaf(cts)
            self.fail("rev", "vjp dot-product test", lines)
        return cts

    def check_structure(self, cts):
        if not isinstance(cts, tuple) or len(cts) != len(self.args):
            self.fail("rev", "cotangent structure", [
                f"vjp returned {type(cts).__name__} of {len(cts) if hasattr(cts, '__len__') else '?'} items "
                f"for {len(self.args)} arguments"])
        want = T.float_paths(self.args)
        got = {p: leaf for p, leaf in T.leaves_with_paths(cts)}
        for path, leaf in want:
            g = got.get(path, "missing")
            if g is None or (isinstance(g, str) and g == "missing"):
                self.fail("rev", "cotangent structure", [f"no cotangent for float argument {self.arg_label(path)}"])
            if np.shape(g) != np.shape(leaf):
                self.fail("rev", "cotangent structure", [
                    f"the cotangent of {self.arg_label(path)} has shape {np.shape(g)}, the argument {np.shape(leaf)}"])

    def by_leaf(self, cts):
        """Which argument leaves disagree: each leaf's own directional derivative; for small
        leaves the whole numerical gradient of <u, f> against sstad's."""
        lines = ["by argument (each float leaf alone):"]
        paths = T.float_paths(self.args)
        ct_by_path = {p: leaf for p, leaf in T.leaves_with_paths(cts)}
        for k, (path, leaf) in enumerate(paths):
            v_k = T.only(self.v, {k})
            try:
                _, num, err = self.numerical.jvp(v_k, self.u)
            except NotSmoothError as exc:
                lines.append(f"  {self.arg_label(path)}: not checkable alone ({exc})")
                continue
            ct = ct_by_path.get(path)
            got = 0.0 if ct is None else float(np.sum(np.asarray(ct, np.float64) * np.asarray(
                T.float_leaves(v_k)[k], np.float64)))
            scale = max(abs(num), abs(got), abs(float(np.sum(np.abs(np.asarray(ct if ct is not None else 0.0) *
                                                                     np.asarray(T.float_leaves(v_k)[k]))))))
            ok = self.close(num, got, scale, err)
            mark = "ok" if ok else "MISMATCH"
            lines.append(f"  {self.arg_label(path)} {T.describe(leaf)}: numeric {num!r}, sstad {got!r}  {mark}")
            if not ok and np.size(leaf) <= 24:
                numeric = self.numerical_gradient(k, leaf)
                if numeric is not None:
                    lines.append(f"      gradient of <u, f> by differences: {_fmt(numeric)}")
                    lines.append(f"      gradient of <u, f> from sstad:      {_fmt(ct_by_path.get(path))}")
        return lines

    def numerical_gradient(self, k, leaf):
        grads = np.zeros(np.shape(leaf))
        for idx in np.ndindex(np.shape(leaf)):
            e = np.zeros(np.shape(leaf))
            e[idx] = 1.0
            v = T.map_floats(T.zeros_like(self.args), lambda lf, j: T.same_kind(e, lf) if j == k else lf)
            try:
                _, num, _ = self.numerical.jvp(v, self.u)
            except NotSmoothError:
                return None
            grads[idx] = num
        return grads if isinstance(leaf, np.ndarray) else float(grads)

    # -- forward ---------------------------------------------------------------------------
    def check_fwd(self):
        import sstad
        primals, tangents = copy.deepcopy(self.args), copy.deepcopy(self.v)
        push = sstad.jit(sstad.pushforward(self.f), backend=self.backend)
        _, t_out = _sstad(push, *primals, *tangents)
        jv, num, err = self.numerical.jvp(self.v, self.u)
        lw, lg = T.leaves_with_paths(jv, "tangent_out"), T.leaves_with_paths(t_out, "tangent_out")
        bad = []
        for (path, w), (_, g) in zip(T.float_paths(jv, "tangent_out"), T.float_paths(t_out, "tangent_out")):
            wa, ga = np.asarray(w, np.float64), np.asarray(g, np.float64)
            if wa.shape != ga.shape or not np.allclose(ga, wa, rtol=self.rtol, atol=self.atol + 10 * err):
                bad.append(f"{path}: by differences {_fmt(wa)}\n{' ' * (len(path) + 4)}from sstad.jvp  {_fmt(ga)}")
        if len(T.float_leaves(jv)) != len(T.float_leaves(t_out)) or bad:
            lines = [f"J v by central differences vs sstad.jvp(f, args, v) (eps {self.eps:g}, "
                     f"atol {self.atol:g}, rtol {self.rtol:g}):"] + bad
            if len(lw) != len(lg):
                lines.append(f"sstad.jvp returns {len(lg)} tangent leaves, the output has {len(lw)}")
            self.fail("fwd", "jvp against differences", lines)


def _unbound(f, args):
    """A ``functools.partial`` or a bound method as its function, with what it binds passed
    as arguments (the pullback and pushforward compile plain functions): the numbers a
    partial binds are checked as arguments too."""
    from sstad.api import as_positional, unbound
    fn, bound, keywords = unbound(f)
    if fn is f:
        return f, args
    return fn, as_positional(fn, bound + tuple(args), keywords)


def check_grads(f, args, order=1, modes=("fwd", "rev"), eps=None, atol=None, rtol=None, backend="numba",
                seed=0, check_value=True, _top=None):
    """Check sstad's derivatives of ``f`` at ``args`` against finite differences.

    ``args`` is the tuple of arguments (pytrees of arrays and floats).  ``modes``: "fwd"
    (``sstad.pushforward``) and/or "rev" (``sstad.pullback``), compiled with ``backend``.  ``order`` > 1 checks the derivative
    functions too.  ``eps``, ``atol``, ``rtol`` default by dtype (float64: 1e-5; float32:
    eps 1e-2, tolerances 5e-3).  ``check_value`` also compares ``sstad.jit(f)`` with the
    Python function.

    Raises ``AssertionError`` with a report on a mismatch, and :class:`NotSmoothError` when
    finite differences cannot be trusted at this point (kinks, jumps, non-finite values).
    """
    top = order if _top is None else _top
    if isinstance(modes, str):
        modes = (modes,)
    unknown = set(modes) - {"fwd", "rev"}
    if unknown:
        raise ValueError(f"check_grads: unknown modes {sorted(unknown)}; use 'fwd' and/or 'rev'")
    if _top is None:
        f, args = _unbound(f, args)
    checker = _Checker(f, args, eps, atol, rtol, backend, seed, order, top)
    if check_value and _top is None:
        _tagged(checker.check_value, "value", order)
    if "rev" in modes:
        _tagged(checker.check_rev, "rev", order)
    if "fwd" in modes:
        _tagged(checker.check_fwd, "fwd", order)
    if order > 1:
        import sstad
        if "rev" in modes:
            # the pullback (*args, u) -> vjp(u) is itself a function to differentiate
            _higher(sstad.pullback(f), checker.args + (checker.u,), order - 1, ("rev",),
                    eps, atol, rtol, backend, seed + 1, top)
        if "fwd" in modes:
            # the pushforward (*args, *v) -> (out, J v) likewise
            _higher(sstad.pushforward(f), checker.args + tuple(checker.v), order - 1, ("fwd",),
                    eps, atol, rtol, backend, seed + 1, top)


def _tagged(check, mode, order):
    """Run one mode's check; an exception says which mode and order raised it."""
    try:
        return check()
    except Exception as exc:
        if not hasattr(exc, "check_grads_mode"):
            exc.check_grads_mode = mode
            exc.check_grads_order = order
            if not isinstance(exc, AssertionError):
                exc.add_note(f"(raised by check_grads, mode {mode!r})")
        raise


def _higher(g, args, order, modes, eps, atol, rtol, backend, seed, top):
    from sstad.errors import SstadError
    try:
        check_grads(g, args, order, modes, eps, atol, rtol, backend, seed, check_value=False, _top=top)
    except SstadError as exc:
        exc.add_note(f"check_grads: order {top - order + 1} differentiates sstad's own derivative "
                     f"functions (mode {modes[0]!r}); this needs higher-order AD in sstad")
        raise
