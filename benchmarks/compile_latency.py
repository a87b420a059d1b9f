"""First-call latency of a gradient: transform + emit + Numba compile, with an empty
sstad cache (cold) and with the cache a previous process left on disk (warm: the record
keyed on the source, so no lowering), waiting for Numba's code and with ``tiered=True``
(the first result from the python backend's recorded text).

Each measurement runs in a fresh Python process, so nothing is cached in memory; the
warm numbers are medians of ``--runs`` processes (default 3).

    python benchmarks/compile_latency.py [--runs 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

# A 30-line user function: loops, a branch, in-place writes, a helper.
PROGRAM = textwrap.dedent('''
    import numpy as np

    def smooth_step(v):
        return v * v * (3.0 - 2.0 * v)

    def objective(w, x, steps):
        n = x.shape[0]
        h = np.zeros(n)
        total = 0.0
        for t in range(steps):
            for i in range(n):
                if x[i] > 0.0:
                    h[i] = np.tanh(w * x[i] + h[i])
                else:
                    h[i] = smooth_step(0.5 * np.sin(w * x[i]) + 0.5) - h[i]
            s = np.sum(h * h)
            k = 0
            while s > 1.0 and k < 20:
                s = 0.5 * s
                k += 1
            total = total + s * w
        return total / steps
''')

DRIVER = textwrap.dedent('''
    import sys, time
    start = time.perf_counter()
    import numpy as np, sstad
    sys.path.insert(0, sys.argv[1])
    from latency_program import objective
    ready = time.perf_counter()
    g = sstad.jit(sstad.grad(objective), tiered=sys.argv[2] == "tiered")
    g(0.7, np.linspace(-1.0, 1.0, 50), 3)
    done = time.perf_counter()
    (compiled,) = g._compiled.values()
    for job in compiled._background.values():      # let a tiered run leave Numba's code on disk
        job.done.wait()
    print(f"{ready - start:.3f} {done - ready:.3f} {compiled.module is None}")
''')


def first_call(workdir, cache, mode="wait"):
    """(seconds to import sstad and the program, seconds to the first result, whether
    it ran from the disk record)."""
    env = dict(os.environ, SSTAD_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", DRIVER, workdir, mode], env=env, capture_output=True, text=True,
                         check=True)
    imported, first, recorded = out.stdout.strip().splitlines()[-1].split()
    return float(imported), float(first), recorded == "True"


def rows(runs=3):
    """{what: (import seconds, first-call seconds, from the record)}; warm rows are medians."""
    with tempfile.TemporaryDirectory() as workdir, tempfile.TemporaryDirectory() as cache:
        with open(os.path.join(workdir, "latency_program.py"), "w") as f:
            f.write(PROGRAM)
        out = {"cold": first_call(workdir, cache)}
        for mode in ("wait", "tiered"):
            samples = [first_call(workdir, cache, mode) for _ in range(runs)]
            out[f"warm, {mode}"] = (statistics.median(s[0] for s in samples),
                                    statistics.median(s[1] for s in samples), all(s[2] for s in samples))
    return out


def measure(runs=3):
    """(cold seconds, warm seconds) for the first gradient call of ``objective``, waiting
    for Numba's code."""
    timings = rows(runs)
    return timings["cold"][1], timings["warm, wait"][1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    for what, (imported, first, recorded) in rows(parser.parse_args().runs).items():
        print(f"{what:12s} first gradient result {first:.3f} s after importing sstad and the program "
              f"({imported:.2f} s){', from the record' if recorded else ''}")
