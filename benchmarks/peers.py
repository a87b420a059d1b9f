"""Objectives and their gradients side by side: sstad against other AD tools.

A `Case` is one objective written once in plain NumPy (what sstad compiles and CPython
runs), the argument positions to differentiate, and small versions for the peers that need
their own (JAX, PyTorch, autograd), each a function `fn(ops, *args)` where `ops` holds the
framework's array module (`ops.xp`) and its `logsumexp`. Every peer's value and gradient are
checked against a reference before anything is timed: the ADBench reference where there is
one, else the first peer that ran (sstad's python backend first), itself checked against
central finite differences of the NumPy objective along random directions.

Thread pools are pinned to one thread before any of the libraries loads (run.py does it
too): OMP/OPENBLAS/MKL/NUMBA, XLA_FLAGS for JAX, torch.set_num_threads(1).
"""
import os

THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "JAX_PLATFORMS": "cpu",
    "JAX_ENABLE_X64": "1",
}
for _var, _value in THREAD_ENV.items():
    os.environ.setdefault(_var, _value)

import dataclasses  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from types import SimpleNamespace  # noqa: E402
from typing import Callable, Optional  # noqa: E402

import numpy as np  # noqa: E402

import sstad  # noqa: E402

PEERS = ("sstad-numba", "sstad-python", "numpy", "jax-jit", "torch", "autograd", "tangent")


@dataclasses.dataclass
class Case:
    name: str
    objective: Callable           # plain NumPy, the user's code
    args: tuple                   # NumPy arrays and Python numbers
    argnums: tuple                # positions differentiated
    jax: Optional[Callable] = None       # fn(ops, *args) in jax.numpy
    torch: Optional[Callable] = None     # fn(ops, *args) on tensors
    autograd: Optional[Callable] = None  # fn(ops, *args) in autograd.numpy
    numpy_grad: Optional[Callable] = None  # hand-written gradient, same arguments
    reference: Optional[Callable] = None   # () -> (value or None, grads): ADBench values
    reference_note: str = ""
    quick: bool = True            # part of --quick
    slow_peers: tuple = ()        # peers too slow for --quick (shown as skipped)
    rtol: float = 1e-6


# --------------------------------------------------------------------------- frameworks

_FRAMEWORKS = {}


def framework(name):
    """`(module namespace, ops)` for "jax", "torch", "autograd" or "tangent"; raises
    ImportError (with the reason) where it cannot be used."""
    if name in _FRAMEWORKS:
        result = _FRAMEWORKS[name]
        if isinstance(result, Exception):
            raise result
        return result
    try:
        if name == "jax":
            import jax
            import jax.numpy as jnp
            import jax.scipy.special as jsp
            jax.config.update("jax_enable_x64", True)
            ops = SimpleNamespace(xp=jnp, logsumexp=jsp.logsumexp, jax=jax)
            result = (jax, ops)
        elif name == "torch":
            import torch
            torch.set_num_threads(1)
            try:
                torch.set_num_interop_threads(1)
            except RuntimeError:  # already set, or parallel work already started
                pass

            def logsumexp(a, axis=None, keepdims=False):
                dims = tuple(range(a.ndim)) if axis is None else axis
                return torch.logsumexp(a, dim=dims, keepdim=keepdims)
            ops = SimpleNamespace(xp=torch, logsumexp=logsumexp)
            result = (torch, ops)
        elif name == "autograd":
            import autograd
            import autograd.numpy as anp
            import autograd.scipy.special as asp
            ops = SimpleNamespace(xp=anp, logsumexp=asp.logsumexp)
            result = (autograd, ops)
        elif name == "tangent":
            try:
                import tangent
            except ImportError as exc:
                raise ImportError("tangent 0.1.9 does not import on Python 3.11 "
                                  "(needs gast 0.2 and TensorFlow)") from exc
            result = (tangent, SimpleNamespace(xp=np))
        else:
            raise ValueError(name)
    except Exception as exc:  # noqa: BLE001 - any import failure means "skip this peer"
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        err = ImportError(reason if name == "tangent" else f"{name} not importable: {reason}")
        _FRAMEWORKS[name] = err
        raise err from None
    _FRAMEWORKS[name] = result
    return result


def versions():
    out = [f"numpy {np.__version__}", f"sstad {getattr(sstad, '__version__', '?')}"]
    try:
        import numba
        out.append(f"numba {numba.__version__}")
    except ImportError:
        pass
    for name in ("jax", "torch", "autograd"):
        try:
            mod = framework(name)[0]
            version = getattr(mod, "__version__", None)
            if version is None:
                from importlib.metadata import version as dist_version
                version = dist_version(name)
            out.append(f"{name} {version}")
        except ImportError:
            out.append(f"{name} -")
    return ", ".join(out)


def thread_note():
    note = ", ".join(f"{k}={os.environ.get(k)}" for k in THREAD_ENV if "NUM_THREADS" in k)
    note += f", XLA_FLAGS='{os.environ.get('XLA_FLAGS')}'"
    try:
        torch = framework("torch")[0]
        note += f", torch.get_num_threads()={torch.get_num_threads()}"
    except ImportError:
        pass
    return note


# --------------------------------------------------------------------------- peer builders
# Each returns (f, g, to_numpy): zero-argument calls with the arguments bound (converted
# once, outside the timed region) and a function turning g's result into a tuple of arrays.

def _as_tuple(g):
    return tuple(g) if isinstance(g, (tuple, list)) else (g,)


def _np_tuple(g):
    return tuple(np.asarray(v, dtype=np.float64) for v in _as_tuple(g))


def build_sstad(case, backend):
    f = sstad.jit(case.objective, backend=backend)
    g = sstad.jit(sstad.grad(case.objective, argnums=case.argnums), backend=backend)
    args = case.args
    return (lambda: f(*args)), (lambda: g(*args)), _np_tuple


def build_numpy(case):
    args = case.args
    g = None if case.numpy_grad is None else (lambda: case.numpy_grad(*args))
    return (lambda: case.objective(*args)), g, _np_tuple


def build_jax(case):
    jax, ops = framework("jax")
    if case.jax is None:
        raise NotImplementedError("no JAX version")
    jnp = ops.xp
    # Python numbers that are not differentiated are static (like gamma, m); arrays and
    # differentiated numbers are traced arguments.
    static = tuple(i for i, a in enumerate(case.args)
                   if not isinstance(a, np.ndarray) and i not in case.argnums)
    args = tuple(a if i in static else jnp.asarray(a, dtype=jnp.float64)
                 for i, a in enumerate(case.args))

    def fn(*a):
        return case.jax(ops, *a)
    f = jax.jit(fn, static_argnums=static)
    g = jax.jit(jax.grad(fn, argnums=case.argnums), static_argnums=static)
    return (lambda: jax.block_until_ready(f(*args))), \
        (lambda: jax.block_until_ready(g(*args))), _np_tuple


def build_torch(case):
    torch, ops = framework("torch")
    if case.torch is None:
        raise NotImplementedError("no PyTorch version")
    args = []
    for i, a in enumerate(case.args):
        if isinstance(a, np.ndarray) or i in case.argnums:
            a = torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=i in case.argnums)
        args.append(a)
    wrt = [args[i] for i in case.argnums]

    def f():
        with torch.no_grad():
            return case.torch(ops, *args)

    def g():
        return torch.autograd.grad(case.torch(ops, *args), wrt)
    return f, g, lambda gs: tuple(v.detach().numpy() for v in gs)


def build_autograd(case):
    autograd, ops = framework("autograd")
    if case.autograd is None:
        raise NotImplementedError("no autograd version")
    args = case.args

    def fn(*a):
        return case.autograd(ops, *a)
    argnum = case.argnums if len(case.argnums) > 1 else case.argnums[0]
    g = autograd.grad(fn, argnum)
    return (lambda: fn(*args)), (lambda: g(*args)), _np_tuple


def build_tangent(case):
    tangent, _ = framework("tangent")
    g = tangent.grad(case.objective, wrt=case.argnums)
    args = case.args
    return (lambda: case.objective(*args)), (lambda: g(*args)), _np_tuple


BUILDERS = {
    "sstad-numba": lambda c: build_sstad(c, "numba"),
    "sstad-python": lambda c: build_sstad(c, "python"),
    "numpy": build_numpy,
    "jax-jit": build_jax,
    "torch": build_torch,
    "autograd": build_autograd,
    "tangent": build_tangent,
}


# --------------------------------------------------------------------------- checks

def first_line(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:160]


def max_error(grads, reference):
    """Largest |g - ref| / (rtol-scale), per component scaled by the reference's size."""
    worst = 0.0
    if len(grads) != len(reference):
        return np.inf
    for g, r in zip(grads, reference):
        g, r = np.asarray(g, dtype=np.float64), np.asarray(r, dtype=np.float64)
        if g.shape != r.shape:
            return np.inf
        scale = max(float(np.max(np.abs(r))) if r.size else 0.0, 1e-300)
        err = np.abs(g - r) / (np.abs(r) + 1e-3 * scale)
        worst = max(worst, float(np.max(err)) if err.size else 0.0)
    return worst


def check_gradient(value, grads, ref_value, ref_grads, rtol):
    """Raise AssertionError when a value or gradient differs from the reference."""
    if ref_value is not None and not np.isclose(value, ref_value, rtol=rtol, atol=0.0):
        raise AssertionError(f"value {value!r} differs from the reference {ref_value!r}")
    err = max_error(grads, ref_grads)
    if not err <= rtol:
        raise AssertionError(f"gradient differs from the reference: max relative error {err:.2e}"
                             f" > {rtol:.0e}")


def finite_difference_check(objective, args, argnums, grads, directions=2, rtol=1e-5, seed=0):
    """Compare directional derivatives `grads . v` with central differences of `objective`."""
    rng = np.random.default_rng(seed)
    for _ in range(directions):
        dirs = [rng.standard_normal(np.shape(args[i])) for i in argnums]
        sizes = [max(float(np.max(np.abs(args[i]))), 1.0) for i in argnums]
        eps = 1e-6 * max(sizes)

        def at(sign, dirs=dirs, eps=eps):
            moved = list(args)
            for i, v in zip(argnums, dirs):
                moved[i] = args[i] + sign * eps * v if np.ndim(args[i]) else \
                    float(args[i] + sign * eps * v)
            return float(objective(*moved))
        fd = (at(1.0) - at(-1.0)) / (2 * eps)
        exact = float(sum(np.sum(np.asarray(g) * v) for g, v in zip(grads, dirs)))
        scale = sum(float(np.sum(np.abs(np.asarray(g) * v))) for g, v in zip(grads, dirs))
        if not abs(fd - exact) <= rtol * max(scale, 1e-12):
            raise AssertionError(f"finite differences {fd!r} vs gradient . v {exact!r}")


# --------------------------------------------------------------------------- timing

# The clock every table reads: wall time, or with `run.py --cpu` this process's CPU time
# (all its threads), which a loaded machine's scheduler does not stretch.
CLOCK = time.perf_counter


def median_ms(call, budget_s, max_repeat=7, min_sample_s=0.02):
    """Median milliseconds per call. Each sample runs the call often enough to last
    >= min_sample_s; samples are taken until budget_s is spent (at least one, at most
    max_repeat, three where the budget allows)."""
    t0 = CLOCK()
    call()
    once = CLOCK() - t0
    number = max(1, int(min_sample_s / max(once, 1e-9)))
    samples = []
    spent = once
    while len(samples) < max_repeat:
        t0 = CLOCK()
        for _ in range(number):
            call()
        dt = CLOCK() - t0
        samples.append(dt / number)
        spent += dt
        if spent > budget_s and len(samples) >= (3 if once * 3 < budget_s else 1):
            break
    return 1e3 * statistics.median(samples), len(samples)


# --------------------------------------------------------------------------- running

@dataclasses.dataclass
class Row:
    case: str
    peer: str
    f_ms: Optional[float] = None
    g_ms: Optional[float] = None
    first_s: Optional[float] = None  # first gradient call: compilation for sstad-numba, JAX
    note: str = ""
    failed: bool = False             # a wrong value or gradient (not a skip)


def run_case(case, peers=PEERS, quick=False, budget_s=2.0, log=print):
    """Rows for one case: each peer built, checked against the reference, then timed."""
    built, rows = {}, {}
    for peer in peers:
        row = rows[peer] = Row(case.name, peer)
        if quick and peer in case.slow_peers:
            row.note = "skipped: --quick"
            continue
        try:
            f, g, to_np = BUILDERS[peer](case)
            t0 = time.perf_counter()
            value = float(f())
            grads = None
            if g is not None:
                t1 = time.perf_counter()
                grads = to_np(g())
                row.first_s = time.perf_counter() - t1
            del t0
        except NotImplementedError as exc:
            row.note = f"skipped: {exc}"
            continue
        except ImportError as exc:
            row.note = f"skipped: {exc}"
            continue
        except Exception as exc:  # noqa: BLE001 - a peer that fails is reported, not fatal
            row.note = f"skipped: {first_line(exc)}"
            continue
        built[peer] = (f, g, value, grads)

    # The reference: ADBench values, else the first peer with a gradient, checked by FD.
    if case.reference is not None:
        ref_value, ref_grads = case.reference()
        ref_name = case.reference_note or "ADBench reference"
    else:
        ref_name, ref_value, ref_grads = None, None, None
        for peer in ("sstad-python", "numpy", "jax-jit", "sstad-numba", "torch", "autograd"):
            if peer in built and built[peer][3] is not None:
                ref_name, ref_grads = peer, built[peer][3]
                break
        if ref_grads is None:
            log(f"  {case.name}: no peer computed a gradient to check against; nothing timed")
            for peer in built:
                rows[peer].note = "not timed: no reference gradient"
            return [rows[p] for p in peers]
        finite_difference_check(case.objective, case.args, case.argnums, ref_grads)
        ref_name += " (checked by finite differences)"
        ref_value = float(case.objective(*case.args))
    log(f"  {case.name}: {ref_name}")

    for peer, (f, g, value, grads) in built.items():
        row = rows[peer]
        try:
            check_gradient(value, grads if grads is not None else ref_grads,
                           ref_value, ref_grads, case.rtol)
        except AssertionError as exc:
            row.note, row.failed = f"WRONG: {exc}", True
            continue
        row.f_ms, _ = median_ms(f, budget_s)
        if g is not None:
            row.g_ms, _ = median_ms(g, budget_s)
    return [rows[p] for p in peers]


def fmt_ms(v):
    if v is None:
        return "-"
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def ratios(row, base):
    """(grad/f, sstad-numba f / peer f, sstad-numba grad / peer grad)."""
    gf = row.g_ms / row.f_ms if row.g_ms and row.f_ms else None
    rf = base.f_ms / row.f_ms if base and base.f_ms and row.f_ms else None
    rg = base.g_ms / row.g_ms if base and base.g_ms and row.g_ms else None
    return gf, rf, rg


def _r(v):
    return "-" if v is None else f"{v:.2f}"


HEADER = ("case", "peer", "f ms", "grad ms", "grad/f", "sstad/peer f", "sstad/peer grad",
          "1st grad s", "note")


def format_rows(rows, markdown=False):
    base = next((r for r in rows if r.peer == "sstad-numba"), None)
    lines = []
    for row in rows:
        gf, rf, rg = ratios(row, base)
        cells = (row.case, row.peer, fmt_ms(row.f_ms), fmt_ms(row.g_ms), _r(gf), _r(rf), _r(rg),
                 "-" if row.first_s is None else f"{row.first_s:.2f}", row.note)
        if markdown:
            lines.append("| " + " | ".join(cells) + " |")
        else:
            lines.append(f"{cells[0]:<22}{cells[1]:<13}{cells[2]:>9}{cells[3]:>10}{cells[4]:>8}"
                         f"{cells[5]:>13}{cells[6]:>16}{cells[7]:>11}  {cells[8]}")
    return lines


def header(markdown=False):
    if markdown:
        return ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    h = (f"{HEADER[0]:<22}{HEADER[1]:<13}{HEADER[2]:>9}{HEADER[3]:>10}{HEADER[4]:>8}"
         f"{HEADER[5]:>13}{HEADER[6]:>16}{HEADER[7]:>11}  {HEADER[8]}")
    return [h, "-" * len(h)]
