"""The timeline of a tiered first call (``sstad.jit(..., tiered=True)``): when the first
result comes back, and when Numba's code takes over from the python backend.

The program is the 30-line function of `compile_latency.py`, called in a loop in a fresh
process, with an empty cache (cold) and with the cache the cold run left (warm: the disk
record keyed on the source gives the python text at once, and Numba loads its code).

    python benchmarks/compile_tiered.py
"""
import os
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(__file__))
from compile_latency import PROGRAM  # noqa: E402

DRIVER = textwrap.dedent('''
    import sys, time
    import numpy as np, sstad
    sys.path.insert(0, sys.argv[1])
    from latency_program import objective
    x = np.linspace(-1.0, 1.0, 50)
    g = sstad.jit(sstad.grad(objective), tiered=True)
    compiled = None
    start = time.perf_counter()
    first = g(0.7, x, 3)
    first_at = time.perf_counter() - start
    python_run = None
    calls = 1
    while True:
        compiled = compiled or next(iter(g._compiled.values()))
        native = compiled.ready(g.backend).name == "numba"
        t = time.perf_counter()
        value = g(0.7, x, 3)
        calls += 1
        if python_run is None:
            python_run = time.perf_counter() - t
        if native:
            assert abs(value - first) <= 1e-12 * abs(first), (value, first)
            break
        time.sleep(0.001)
    print(f"{first_at:.3f} {python_run:.4f} {time.perf_counter() - start:.2f} {calls} {compiled.module is None}")
''')


def timeline(workdir, cache):
    """(seconds to the first result, one python-backend call, seconds until the native
    code ran, calls made until then, whether it ran from the disk record)."""
    out = subprocess.run([sys.executable, "-c", DRIVER, workdir], env=dict(os.environ, SSTAD_CACHE_DIR=cache),
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    first, python_run, native, calls, recorded = out.stdout.split()
    return float(first), float(python_run), float(native), int(calls), recorded == "True"


def main():
    with tempfile.TemporaryDirectory() as workdir, tempfile.TemporaryDirectory() as cache:
        with open(os.path.join(workdir, "latency_program.py"), "w") as f:
            f.write(PROGRAM)
        for label in ("cold", "warm", "warm", "warm"):
            first, python_run, native, calls, recorded = timeline(workdir, cache)
            print(f"{label}: first result {first:.3f} s (a python-backend call takes {python_run:.3f} s); "
                  f"native code from {native:.2f} s, after {calls} calls{', from the record' if recorded else ''}")


if __name__ == "__main__":
    main()
