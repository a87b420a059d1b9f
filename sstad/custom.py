"""User-defined derivative rules: ``custom_vjp``, ``custom_jvp`` and ``stop_gradient``.

A custom function is lowered as a function of its own (like a recursive helper) and
called; the derivative transforms see the call and use the user's rules instead of
differentiating its body:

* reverse mode inlines ``bwd(residuals, dout)``, with the residuals from ``fwd(*args)``
  (JAX semantics: ``fwd`` returns ``(out, residuals)``, ``bwd`` a tuple of cotangents);
* forward mode inlines ``jvp(primals, tangents) -> (out, tangent_out)``; with only a
  VJP rule it transposes ``bwd`` (it is linear in ``dout``), and reverse mode with only a
  JVP rule transposes ``jvp`` (linear in the tangents).

The arguments are arrays or floats and the result one array or float.
"""
import functools

from sstad.runtime.custom import stop_gradient, vjp_rule  # noqa: F401  (stop_gradient: sstad.stop_gradient)


class CustomFunction:
    """A function with user-given derivative rules; call it like the function."""

    def __init__(self, fun):
        self.fun = fun
        self.fwd = self.bwd = self.jvp = self.bprop = None
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def defvjp(self, fwd, bwd):
        """``fwd(*args) -> (out, residuals)``; ``bwd(residuals, dout) -> (d_arg, ...)``."""
        self.fwd, self.bwd = fwd, bwd
        return self

    def defbprop(self, bprop):
        """The rule-table format: ``bprop(*args, out, dout) -> (d_arg, ...)``."""
        self.bprop = bprop
        return bprop

    def vjp_rule(self, arity):
        """``rule(*args, out, dout)``, whichever way the user gave it."""
        if self.bprop is not None:
            return self.bprop
        if self.bwd is not None:
            return vjp_rule(self.fwd, self.bwd, arity)
        return None

    def defjvp(self, jvp):
        """``jvp(primals, tangents) -> (out, tangent_out)``, both tuples in."""
        self.jvp = jvp
        return jvp


class Remat:
    """A function whose derivative recomputes it: see :func:`remat`."""

    def __init__(self, fun):
        self.fun = fun
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)


def remat(fun):
    """Recompute ``fun`` in the backward sweep instead of keeping what it taped.

    ``fun`` is compiled as a function of its own: the forward sweep runs it plainly (no
    tapes), and the backward sweep runs its joint derivative, whose tapes live only
    while that runs.  For a sequence of expensive calls, peak memory falls from the sum
    of their tapes to the largest one, for one more evaluation of each.

    >>> import numpy as np, sstad
    >>> step = sstad.remat(lambda x: np.tanh(x) * 2.0)
    """
    return Remat(fun)


def custom_vjp(fun):
    """Give ``fun`` a reverse-mode rule with ``.defvjp(fwd, bwd)`` (JAX semantics).

    >>> import numpy as np, sstad
    >>> relu = sstad.custom_vjp(lambda x: np.maximum(x, 0.0))
    """
    return CustomFunction(fun)


def custom_jvp(fun):
    """Give ``fun`` a forward-mode rule with ``.defjvp(jvp)`` (JAX semantics)."""
    return CustomFunction(fun)


def primitive(fun):
    """A new primitive from user code: its implementation is ``fun``; give it rules in
    the same place with ``@f.defbprop`` (``bprop(*args, out, dout) -> cotangents``, the
    rule-table format), ``f.defvjp(fwd, bwd)`` and/or ``@f.defjvp``.

    >>> import numpy as np, sstad
    >>> @sstad.primitive
    ... def cube(x):
    ...     return x ** 3
    >>> @cube.defbprop
    ... def _(x, out, dout):
    ...     return (3.0 * x * x * dout,)
    """
    return CustomFunction(fun)
