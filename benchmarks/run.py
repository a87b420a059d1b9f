"""Run every benchmark side by side and print the tables.

    python benchmarks/run.py [NAME_FILTER ...] [--repeat N] [--quick] [--peers P,...]
                             [--markdown] [--budget S]

Three tables, each filtered by NAME_FILTER (a case runs when its name contains one):

1. speed-up: a module in MODULES whose `cases()` returns `(name, func, args)` tuples. Each
   `func` is plain Python; its CPython result is the reference that every other runner must
   reproduce before it is timed.
2. gradient: sstad's reverse mode against the function itself (gradients.py).
3. side by side (peers.py): objectives and gradients under sstad (Numba and python
   backends), a hand-written NumPy gradient, JAX jit, PyTorch, autograd and tangent, each
   checked against a reference first; ADBench GMM and LSTM when the data is there.
   `--quick` keeps it to a few minutes (the small instances, slow peers skipped).
"""
import os

# Pin thread pools before NumPy/Numba/JAX/PyTorch load so runs are comparable across machines.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
for var in THREAD_VARS:
    os.environ[var] = "1"
os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["JAX_ENABLE_X64"] = "1"

import argparse  # noqa: E402
import importlib  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
import peers  # noqa: E402

import sstad  # noqa: E402

MODULES = ("rk4",)
PEER_MODULES = ("gradients", "mlp", "gmm", "lstm")  # each with peer_cases() or cases()
RUNNERS = {
    "cpython": lambda f: f,
    "sstad-python": lambda f: sstad.jit(f, backend="python"),
    "sstad-numba": lambda f: sstad.jit(f, backend="numba"),
}
TARGET_SPEEDUP = 30.0  # cpython / sstad-numba


def median_seconds(call, repeat):
    """Median seconds per call; each repeat runs long enough (>= 0.2 s) to time reliably."""
    timer = timeit.Timer(call, timer=peers.CLOCK)
    number, _ = timer.autorange()
    return statistics.median(t / number for t in timer.repeat(repeat=repeat, number=number))


def same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    return np.allclose(a, b, rtol=1e-7, atol=1e-10)


def run_case(func, args, repeat):
    """Seconds per call for each runner, after checking each against the CPython result."""
    reference = func(*args)
    seconds = {}
    for runner, make in RUNNERS.items():
        f = make(func)
        result = f(*args)  # also compiles, so compilation is never timed
        if not same(result, reference):
            raise AssertionError(f"{runner}: {func.__name__}{args} returned {result!r}, "
                                 f"CPython returned {reference!r}")
        seconds[runner] = median_seconds(lambda: f(*args), repeat)
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("filters", nargs="*", help="run only cases whose name contains one of these")
    parser.add_argument("--repeat", type=int, default=5, help="timed repeats per runner (median)")
    parser.add_argument("--quick", action="store_true",
                        help="side-by-side table: small instances only, slow peers skipped")
    parser.add_argument("--peers", default=",".join(peers.PEERS),
                        help="side-by-side table: comma-separated peers (default: all)")
    parser.add_argument("--budget", type=float, default=None,
                        help="side-by-side table: seconds spent timing each call (default 3, "
                             "1 with --quick)")
    parser.add_argument("--markdown", action="store_true",
                        help="side-by-side table as Markdown")
    parser.add_argument("--cpu", action="store_true",
                        help="time by this process's CPU time instead of wall time (a loaded machine)")
    opts = parser.parse_args()
    if opts.cpu:
        peers.CLOCK = time.process_time

    print(f"python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
          f"sstad {getattr(sstad, '__version__', '?')} on {platform.machine()}")
    print("threads: " + ", ".join(f"{var}={os.environ[var]}" for var in THREAD_VARS))
    print(f"time per call ({'CPU' if opts.cpu else 'wall'}): median of {opts.repeat} repeats, compilation excluded; "
          f"speed-up = cpython / sstad-numba (target >= {TARGET_SPEEDUP:.0f}x)\n")
    header = f"{'benchmark':<24}" + "".join(f"{r:>15}" for r in RUNNERS) + f"{'speed-up':>11}"
    print(header)
    print("-" * len(header))

    for module in MODULES:
        for name, func, args in importlib.import_module(module).cases():
            if opts.filters and not any(s in name for s in opts.filters):
                continue
            seconds = run_case(func, args, opts.repeat)
            speedup = seconds["cpython"] / seconds["sstad-numba"]
            print(f"{name:<24}" + "".join(f"{seconds[r] * 1e3:12.3f} ms" for r in RUNNERS)
                  + f"{speedup:10.1f}x" + ("  below target" if speedup < TARGET_SPEEDUP else ""),
                  flush=True)
    gradient_table(opts)
    return peer_table(opts)


def gradient_table(opts):
    """grad/objective for reverse mode, both compiled by Numba (target <= 3)."""
    gradients = importlib.import_module("gradients")
    print(f"\n{'gradient (reverse mode)':<24}{'f, numba':>15}{'grad, numba':>15}{'grad/f':>9}")
    print("-" * 63)
    for name, func, args, reference in gradients.cases():
        if opts.filters and not any(s in name for s in opts.filters):
            continue
        f, g = sstad.jit(func), sstad.jit(sstad.grad(func))
        f(*args)
        if not np.allclose(g(*args), reference, rtol=1e-5, atol=1e-8):
            raise AssertionError(f"{name}: the gradient differs from the reference")
        tf = median_seconds(lambda: f(*args), opts.repeat)
        tg = median_seconds(lambda: g(*args), opts.repeat)
        print(f"{name:<24}{tf * 1e3:12.3f} ms{tg * 1e3:12.3f} ms{tg / tf:8.2f}x"
              + ("  above target" if tg / tf > 3 else ""), flush=True)



def peer_table(opts):
    """Objective and gradient per peer; returns 1 when a peer's value or gradient is wrong."""
    chosen = [p.strip() for p in opts.peers.split(",") if p.strip()]
    unknown = set(chosen) - set(peers.PEERS)
    if unknown:
        raise SystemExit(f"unknown peers {sorted(unknown)}; choose from {', '.join(peers.PEERS)}")
    budget = opts.budget if opts.budget is not None else (1.0 if opts.quick else 3.0)
    print("\nside by side: objective (f) and gradient, milliseconds per call, median "
          f"({budget:g} s of timing per call{', --quick' if opts.quick else ''})")
    print(f"  {peers.versions()}")
    print(f"  threads: {peers.thread_note()}")
    print("  grad/f = gradient / objective of the same peer; sstad/peer = sstad-numba time / "
          "peer time (< 1: sstad is faster); 1st grad s = first gradient call (compilation, "
          "where that signature was not compiled before)")
    print("  numpy = the objective under CPython, and a hand-written NumPy gradient where "
          "there is one\n")
    failed, references = 0, []
    lines = peers.header(opts.markdown)
    print("\n".join(lines), flush=True)
    for module in PEER_MODULES:
        mod = importlib.import_module(module)
        try:
            cases = getattr(mod, "peer_cases", getattr(mod, "cases", None))()
        except FileNotFoundError as exc:
            print(f"  {module}: skipped ({exc})", flush=True)
            continue
        for case in cases:
            if opts.filters and not any(s in case.name for s in opts.filters):
                continue
            if opts.quick and not case.quick:
                continue
            rows = peers.run_case(case, chosen, quick=opts.quick, budget_s=budget,
                                  log=references.append)
            failed += sum(r.failed for r in rows)
            print("\n".join(peers.format_rows(rows, opts.markdown)), flush=True)
    print("\nchecked before timing against:\n" + "\n".join(references))
    if not opts.filters or any(s in "compile latency" for s in opts.filters):
        import compile_latency
        cold, warm = compile_latency.measure()
        print(f"\nfirst gradient call of a 30-line function (fresh process each): cold cache {cold:.2f} s "
              f"(target 1.5), from the disk cache {warm:.2f} s (target 0.2)")
    if failed:
        print(f"\n{failed} peer result(s) differ from the reference (WRONG above)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
