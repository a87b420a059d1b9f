"""The two built-in backends: ``python`` (the emitted text under ``exec``) and ``numba``
(the same IR, elementwise chains fused, compiled by ``numba.njit`` in nopython mode)."""
from __future__ import annotations

import os
import re

import numba

from sstad.backend.base import Backend, register
from sstad.backend import collectives_numba  # noqa: F401  (the numba lowerings of the collectives)
from sstad.backend.loader import emitted_functions, load_numba, load_python
from sstad.errors import BackendError
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A
from sstad.runtime.primitive import PRIMITIVES, lowering


class PythonBackend(Backend):
    name = "python"

    def load(self, source, module, label):
        return load_python(source, module.entry.name, label)


class NumbaBackend(Backend):
    name = "numba"
    fuse = True
    outline = 250      # LLVM's time grows faster than one function's size (measured: docs/performance.md)
    kernels = True     # array expressions as shared functions (backend/numba_kernels.py)
    ERRORS = (numba.core.errors.TypingError, numba.core.errors.UnsupportedError,
              numba.core.errors.LoweringError)

    def emit(self, module):
        _refuse_dtypes_numba_lacks(module)
        return super().emit(module)

    def load(self, source, module, label):
        return load_numba(source, emitted_functions(source), module.entry.name, label)[0]

    def compile(self, fn, leaves):
        fn.compile(tuple(numba.typeof(v) for v in leaves))

    def translate_error(self, exc, fn_name, loc):
        if isinstance(exc, BackendError):
            return exc
        if not isinstance(exc, self.ERRORS) and not _raised_inside_numba(exc):
            return None
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        # the first line that says something (Numba opens with "Failed in nopython mode")
        detail = next((line for line in lines if "nopython" not in line), lines[0] if lines else "")
        if not detail:                 # Numba failed inside itself without a message
            detail = f"Numba raised {type(exc).__name__} while typing the emitted code"
        return BackendError(
            f"Numba cannot compile `{fn_name}` in nopython mode: {detail}", loc,
            "use sstad.jit(f, backend='python'), or sstad.jit(f, fallback=True) to fall back "
            "automatically; `sstad.dump(f, *args, emit='numba')` shows the code Numba saw")


def _refuse_dtypes_numba_lacks(module):
    """ml_dtypes' floats (``bfloat16``, ``float8_*``) have no Numba type: a clear error at
    the user's function rather than Numba's "non-precise type pyobject"."""
    for function in module.functions:
        values = list(function.params) + [v for s in ir.walk(function.body) for v in getattr(s, "outs", ())]
        for v in values:
            t = v.type.elem if isinstance(v.type, A.ListOf) else v.type
            if isinstance(t, (A.Scalar, A.Array)) and t.dtype.kind == "V":
                raise BackendError(f"Numba has no {t.dtype} type (`{v.hint}` is {t})", function.loc,
                                   "use sstad.jit(f, backend='python'), or cast to float32 for Numba")


PYTHON = register(PythonBackend())
NUMBA = register(NumbaBackend())


@lowering("numba", "swapaxes")
def _swapaxes_emit(args, params, avals):
    """A matrix's transpose as ``x.T``: Numba types it Fortran-ordered, where
    ``np.swapaxes`` gives layout 'A', so ``@`` hands it to BLAS transposed instead of
    copying it first (the ``@`` rule's ``x.T @ dout``)."""
    pos, kw = params.get("layout", ((), {}))
    axes = [a for a in pos[1:] if type(a) is int]         # constants (atoms are Slots)
    if isinstance(avals[0], A.Array) and avals[0].ndim == 2 and not kw and len(axes) == len(pos) - 1 == 2 \
            and axes[0] % 2 != axes[1] % 2:
        return f"{args[0]}.T"
    return PRIMITIVES["swapaxes"].emit(args, params, avals)


@lowering("numba", "where")
def _where_emit(args, params, avals):
    """``rt.broadcast.where`` for arrays: NumPy's ``np.where`` in Numba's disk cache
    (Numba's own is compiled again in every process)."""
    text = PRIMITIVES["where"].emit(args, params, avals)
    return "rt.broadcast." + text[3:] if text.startswith("np.where(") else text


def _raised_inside_numba(exc):
    """An internal error of Numba's typing (an AssertionError, say): Numba cannot compile.
    An error the compiled code raises as it runs (a shape mismatch in ``np.dot``) comes from
    no frame of Numba's compiler (``numba/core``): it is the program's, not a compile failure."""
    compiler = f"{os.sep}numba{os.sep}core{os.sep}"
    tb = exc.__traceback__
    while tb is not None:
        if compiler in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False
