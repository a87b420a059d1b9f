"""Forward-mode transforms and Jacobians: ``jvp``, ``pushforward``, ``jacfwd``, ``jacrev``,
``hessian`` and ``hvp`` (JAX's names).

``pushforward(f)`` is lowerable like the reverse transforms, so it compiles with
``sstad.jit`` and composes with them: ``pushforward(grad(f))`` is forward-over-reverse.
The Jacobians call a compiled derivative once per basis vector.
"""
from __future__ import annotations

import numpy as np

from sstad.ad.forward import ForwardMode, _is_float
from sstad.ad.structural import differentiable
from sstad.api import jit
from sstad.errors import SstadTypeError
from sstad.frontend.lower import flatten_runtime
from sstad.frontend.pytree import build_object, object_layout, object_values
from sstad.ir import nodes as ir
from sstad.ir.escape import export_escaping
from sstad.runtime import abstract as A
from sstad.transforms import _count, _replace_leaves, _Transform, grad, lower_any, pullback


class _Pushforward(_Transform):
    """``(*primals, *tangents) -> (out, tangent of out)``."""

    def suffix(self):
        return "_jvp"

    def sstad_lower(self, args):
        if len(args) % 2:
            raise SstadTypeError("pushforward takes the primals, then one tangent per primal")
        primals, tangents = args[:len(args) // 2], args[len(args) // 2:]
        module, in_tree, out_tree, captures = lower_any(self.fun, primals)
        tangent_tree, tangent_leaves = flatten_runtime(tangents)
        if _count(tangent_tree) != _count(in_tree):
            raise SstadTypeError("each tangent must have the structure of its primal")
        entry = module.entry
        n_args = _count(in_tree)
        wrt = [i for i in range(n_args) if differentiable(entry.params[i])]
        forward = ForwardMode()
        fn = forward.jvp(entry, wrt)
        by_leaf = dict(zip(wrt, fn.params[len(entry.params):]))
        tangent_params = [by_leaf.get(i) or ir.Var("dx", A.of_value(v)) for i, v in enumerate(tangent_leaves)]
        fn.params = fn.params[:n_args] + tangent_params + fn.params[n_args:len(entry.params)]
        fn.body.params = fn.params
        fn.name = self.__name__
        helpers = module.functions[:-1] + list(forward.callees.values())
        for f in helpers + [fn]:
            export_escaping(f)
        tangent_out = _replace_leaves(out_tree, [_is_float(r) for r in entry.body.results])
        tree = ("tuple", (out_tree, tangent_out))
        return ir.Module(helpers + [fn]), ("tuple", tuple(in_tree[1]) + tuple(tangent_tree[1])), tree, captures


def pushforward(fun):
    """The function ``(*primals, *tangents) -> (out, tangent_out)``, by forward mode.

    What :func:`jvp` calls, as one function that ``sstad.jit`` can compile."""
    return _Pushforward(fun)


def _from_source(fn):
    """Compiled from its source where compiled code calls it: it only composes transforms."""
    fn.sstad_from_source = True
    return fn


@_from_source
def jvp(fun, primals, tangents):
    """``(out, tangent_out)``: ``fun(*primals)`` and its directional derivative along
    ``tangents`` (one per primal, same structure), by forward mode.

    Example, in a ``.py`` file::

        import numpy as np
        import sstad

        def f(x):
            return np.sin(x)

        assert sstad.jvp(f, (0.0,), (2.0,)) == (0.0, 2.0)
    """
    return pushforward(fun)(*primals, *tangents)


def _basis(x):
    """Unit vectors shaped like ``x``: 1.0 for a scalar."""
    if not isinstance(x, np.ndarray):
        yield 1.0
        return
    for k in range(x.size):
        e = np.zeros(x.size, x.dtype)
        e[k] = 1.0
        yield e.reshape(x.shape)


def _zeros_like_tree(value):
    layout = object_layout(value)
    if layout is not None:
        return build_object(layout, [v if name in layout[2] else _zeros_like_tree(v)
                                     for name, v in zip(layout[1], object_values(value, layout))])
    if isinstance(value, tuple):
        return tuple(_zeros_like_tree(v) for v in value)
    if isinstance(value, list):
        return [_zeros_like_tree(v) for v in value]
    if isinstance(value, dict):
        return {k: _zeros_like_tree(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return np.zeros_like(value)
    return type(value)(0) if isinstance(value, (int, float, complex, np.generic)) else value


def jacfwd(fun, argnums=0, backend="python"):
    """The Jacobian of ``fun`` with respect to argument ``argnums`` (a float or a float
    array), column by column in forward mode: shape ``out.shape + x.shape``."""
    compiled = jit(pushforward(fun), backend=backend)

    def jacobian(*args):
        x = args[argnums]
        zero = [_zeros_like_tree(a) for a in args]
        columns = []
        for e in _basis(x):
            tangents = list(zero)
            tangents[argnums] = e
            columns.append(np.asarray(compiled(*args, *tangents)[1]))
        out_shape = columns[0].shape
        return np.stack(columns, axis=-1).reshape(out_shape + np.shape(x))
    jacobian.sstad_jit = lambda backend: jacfwd(fun, argnums, backend)
    return jacobian


def jacrev(fun, argnums=0, backend="python"):
    """The Jacobian of ``fun`` with respect to argument ``argnums``, row by row in
    reverse mode: shape ``out.shape + x.shape``."""
    compiled = jit(pullback(fun), backend=backend)
    primal = jit(fun, backend=backend)

    def jacobian(*args):
        out = np.asarray(primal(*args))
        rows = []
        for e in _basis(out if out.ndim else out.item()):
            rows.append(np.asarray(compiled(*args, e)[argnums]))
        return np.stack(rows).reshape(out.shape + np.shape(args[argnums]))
    jacobian.sstad_jit = lambda backend: jacrev(fun, argnums, backend)
    return jacobian


def hessian(fun, argnums=0, backend="python"):
    """The Hessian of a scalar function: forward mode over its reverse-mode gradient."""
    return jacfwd(grad(fun, argnums=argnums), argnums=argnums, backend=backend)


@_from_source
def hvp(fun, primals, tangents):
    """The Hessian-vector product ``H v`` of a scalar ``fun`` (forward over reverse),
    without building ``H``: one forward sweep through the gradient.

    ``primals`` and ``tangents`` are tuples; the result has the structure of the
    gradient with respect to the first argument."""
    return jvp(grad(fun), primals, tangents)[1]


__all__ = ["pushforward", "jvp", "jacfwd", "jacrev", "hessian", "hvp"]
