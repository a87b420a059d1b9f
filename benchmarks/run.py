"""Run every benchmark side by side and print one table.

    python benchmarks/run.py [NAME_FILTER ...] [--repeat N]

A benchmark is a module in this folder, listed in MODULES, whose `cases()` returns
`(name, func, args)` tuples. Each `func` is plain Python; its CPython result is the reference
that every other runner must reproduce before it is timed.
"""
import os

# Pin thread pools before NumPy/Numba load so runs are comparable across machines.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
for var in THREAD_VARS:
    os.environ[var] = "1"

import argparse  # noqa: E402
import importlib  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import timeit  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402

import sstad  # noqa: E402

MODULES = ("rk4",)
RUNNERS = {
    "cpython": lambda f: f,
    "sstad-python": lambda f: sstad.jit(f, backend="python"),
    "sstad-numba": lambda f: sstad.jit(f, backend="numba"),
}
TARGET_SPEEDUP = 30.0  # cpython / sstad-numba


def median_seconds(call, repeat):
    """Median seconds per call; each repeat runs long enough (>= 0.2 s) to time reliably."""
    timer = timeit.Timer(call)
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
    opts = parser.parse_args()

    print(f"python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
          f"sstad {getattr(sstad, '__version__', '?')} on {platform.machine()}")
    print("threads: " + ", ".join(f"{var}={os.environ[var]}" for var in THREAD_VARS))
    print(f"time per call: median of {opts.repeat} repeats, compilation excluded; "
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


if __name__ == "__main__":
    main()
