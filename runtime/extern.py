"""Calls to functions sstad does not see into: library code (SciPy, the standard library,
anything installed in site-packages), an ``@njit`` helper, a C function.

The frontend runs such a call at compile time when every argument is a compile-time
constant; otherwise it becomes an ``extern`` application, which the emitted code calls
through a module-level name bound from :data:`EXTERNS`.  Under the python backend any
function can be called so.  Under Numba only what Numba can call (a ``numba.njit``
function, a ctypes/cffi function, a function Numba already knows); any other function
is bound to a stand-in whose Numba typing raises an error at the user's line that names
the function and says what to do.  An extern has no derivative rule: reverse and forward
mode accept it only where its inputs are inactive (do not depend on the differentiated
arguments); otherwise the error says to give it rules with ``sstad.custom_vjp``.
"""
import re
import warnings

import numpy as np
from numba.core.registry import cpu_target
from numba.extending import overload

from sstad.runtime import abstract as A
from sstad.runtime.primitive import Primitive, fill, public_name, text_of

EXTERNS = {}      # emitted name -> what the emitted code calls
FUNCTIONS = {}    # emitted name -> the user's function (for messages and type inference)
_NAMES = {}       # (id(function), call site or None) -> emitted name


def numba_can_call(fn):
    """Does Numba know how to call ``fn`` from nopython code?"""
    context = cpu_target.typing_context
    context.refresh()
    try:
        context.resolve_value_type(fn)
    except Exception:       # Numba raises several kinds for "no type for this value"
        return False
    return True


def extern_name(fn, loc=None):
    """A stable identifier for ``fn`` called at ``loc`` in emitted code (registered on
    first use).  Functions Numba cannot call get one stand-in per call site, so that the
    error names the line."""
    site = None if numba_can_call(fn) else loc
    key = (id(fn), site)
    name = _NAMES.get(key)
    if name is not None and FUNCTIONS[name] is fn:
        return name
    qualname = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    base = "ext_" + re.sub(r"\W", "_", qualname)
    name, k = base, 1
    while name in EXTERNS:
        k += 1
        name = f"{base}_{k}"
    FUNCTIONS[name] = fn
    EXTERNS[name] = fn if site is None and numba_can_call(fn) else _python_only(fn, name, loc)
    _NAMES[key] = name
    return name


def extern_function(name):
    return EXTERNS[name]


def describe(name):
    """The function behind an emitted name, as users import it (``scipy.special.multigammaln``)."""
    return public_name(FUNCTIONS[name])


def draws_random_numbers(name, depth=3):
    """Does the outside function ``name`` (or a function its code calls, a few calls
    deep) read a random generator (a name ``random`` in its code: ``np.random.normal``,
    ``random.random``)?  Its results then differ from one call to the next."""
    def draws(fn, depth):
        fn = getattr(fn, "py_func", fn)
        code = getattr(fn, "__code__", None)
        if code is None or depth == 0:
            return False
        names = set()
        todo = [code]
        while todo:
            c = todo.pop()
            names.update(c.co_names)
            todo.extend(k for k in c.co_consts if hasattr(k, "co_names"))
        if "random" in names:
            return True
        scope = getattr(fn, "__globals__", {})
        return any(callable(scope.get(n)) and draws(scope[n], depth - 1) for n in names if n in scope)
    return draws(FUNCTIONS[name], depth)


def _python_only(fn, name, loc):
    """A stand-in for ``fn`` that Python calls and Numba refuses, at the user's line."""
    def call(*args, **kwargs):
        return fn(*args, **kwargs)

    @overload(call)
    def _numba(*args, **kwargs):
        from sstad.errors import BackendError        # raised from Numba's typing, unwrapped
        raise BackendError(
            f"`{describe(name)}` is library code, and Numba cannot call it on run-time values", loc,
            "call it outside the compiled function and pass the result in, call it on compile-time "
            "constants only (it then runs at compile time), use an @numba.njit function instead, or "
            "compile with backend='python'")
    call.__qualname__ = call.__name__ = name
    return call


def _impl(*args, name, **kwargs):
    return FUNCTIONS[name](*args, **kwargs)


def _infer(avals, params):
    """Run the function itself on small stand-ins of its arguments, unless it declares its
    result type (``fn.result_type``: a check that the stand-ins could fail, such as a
    bounds check of 1 against a length of 1)."""
    declared = getattr(FUNCTIONS[params["name"]], "result_type", None)
    if declared is not None:
        return declared
    protos = [A.prototype(a) for a in avals]
    pos, kw = fill(params["layout"], protos) if "layout" in params else (protos, {})
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = FUNCTIONS[params["name"]](*pos, **kw)
    aval = A.of_value(out)
    if aval is None:
        raise TypeError(f"unexpected result of type {type(out).__name__}")
    return aval


def _emit(args, params, avals):
    layout = params.get("layout")
    if layout is None:
        return f"{params['name']}({', '.join(args)})"
    pos, kw = layout
    parts = [text_of(p, args) for p in pos] + [f"{k}={text_of(v, args)}" for k, v in kw.items()]
    return f"{params['name']}({', '.join(parts)})"


Primitive("extern", _impl, _infer, _emit)


from sstad.runtime.primitive import declare  # noqa: E402

declare("extern", effect=True, superlinear=True)   # unseen code: never merged or moved; its result
#                                                    is kept for the backward sweep, not remade (its
#                                                    work is unknown, and np.random draws anew)
