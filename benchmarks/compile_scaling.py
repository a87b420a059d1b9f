"""How the first compiled gradient call grows with the function's size.

For each size (statements of `compile_program.program`), a fresh process with empty
caches (sstad's and Numba's) lowers and differentiates the function as ``sstad.jit``
does (shape speculation on), emits it, and has Numba compile it; each phase is timed
(wall and CPU seconds: CPU time is what to read on a shared machine).  ``--whole``
compiles the gradient as one function (no outlining), as sstad did before parts were
outlined; ``--no-kernels`` writes every elementwise expression where it is used (no
shared kernel functions, ``sstad/backend/numba_kernels.py``); ``--warm-runtime`` first
compiles another function in a process of its own, so that the runtime's helpers that
Numba caches on disk (``rt.unbroadcast``) are there, as they are for every function a
user compiles after their first.

    python benchmarks/compile_scaling.py                 # 10 30 100 300
    python benchmarks/compile_scaling.py 30 300 --repeat 3 --whole --no-kernels
    python benchmarks/compile_scaling.py 10 300 --warm-runtime
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(__file__))
from compile_program import program  # noqa: E402

DRIVER = textwrap.dedent('''
    import json, sys, time
    import numpy as np
    import sstad
    from sstad.api import Compiled
    from sstad.backend.base import get_backend
    sys.path.insert(0, sys.argv[1])
    if "whole" in sys.argv[2]:
        get_backend("numba").outline = 0
    if "no-kernels" in sys.argv[2]:
        get_backend("numba").kernels = False
    from scaling_program import objective
    args = (np.linspace(0.1, 1.0, 16), np.linspace(-1.0, 1.0, 16), 0.3)
    clocks = lambda: (time.perf_counter(), time.process_time())
    t0 = clocks()
    compiled = Compiled(sstad.grad(objective), args, speculate=True)    # lowering, AD, passes
    t1 = clocks()
    python = compiled.source("python")
    numba_text = compiled.source("numba")
    t2 = clocks()
    compiled.run("python", compiled.leaves(args))
    t3 = clocks()
    compiled.run("numba", compiled.leaves(args))          # Numba: typing, lowering, LLVM
    t4 = clocks()
    phase = lambda a, b: [round(b[0] - a[0], 3), round(b[1] - a[1], 3)]
    print(json.dumps({"lines": len(numba_text.splitlines()), "functions": numba_text.count("\\ndef "),
                      "sstad": phase(t0, t1), "emit": phase(t1, t2), "python_run": phase(t2, t3),
                      "numba": phase(t3, t4)}))
''')


def measure(statements, whole=False, kernels=True, warm_runtime=False):
    """Seconds [wall, cpu] of each phase of the first gradient call, in a fresh process."""
    options = ",".join(["whole"] * whole + ["no-kernels"] * (not kernels)) or "default"
    with tempfile.TemporaryDirectory() as workdir, tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, SSTAD_CACHE_DIR=cache, NUMBA_CACHE_DIR=os.path.join(cache, "numba"),
                   PYTHONDONTWRITEBYTECODE="1")      # the program file is rewritten

        def run(source):
            with open(os.path.join(workdir, "scaling_program.py"), "w") as f:
                f.write(source)
            out = subprocess.run([sys.executable, "-c", DRIVER, workdir, options], env=env,
                                 capture_output=True, text=True)
            if out.returncode:
                raise RuntimeError(out.stderr)
            return json.loads(out.stdout.strip().splitlines()[-1])
        if warm_runtime:
            run(program(10, seed=1))
        return run(program(statements))


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10, 30, 100, 300])
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per size (median)")
    parser.add_argument("--whole", action="store_true", help="compile the gradient as one function")
    parser.add_argument("--no-kernels", action="store_true", help="no shared elementwise kernels")
    parser.add_argument("--warm-runtime", action="store_true",
                        help="the runtime's helpers in Numba's disk cache (another function compiled first)")
    opts = parser.parse_args()
    print(f"{'statements':>10} {'lines':>6} {'funcs':>5}  {'sstad s':>8} {'numba s (cpu)':>14} "
          f"{'total s':>8}")
    for n in opts.sizes:
        runs = [measure(n, opts.whole, not opts.no_kernels, opts.warm_runtime) for _ in range(opts.repeat)]
        pick = lambda key, i: median([r[key][i] for r in runs])
        sstad_s = pick("sstad", 0) + pick("emit", 0)
        numba_s = pick("numba", 0)
        print(f"{n:>10} {runs[0]['lines']:>6} {runs[0]['functions']:>5}  {sstad_s:>8.2f} "
              f"{numba_s:>7.2f} ({pick('numba', 1):.2f}) {sstad_s + numba_s:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
