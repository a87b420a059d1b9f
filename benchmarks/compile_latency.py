"""First-call latency of a gradient: transform + emit + Numba compile, with an empty
sstad cache (cold) and with the cache a previous process left on disk (warm).

Each measurement runs in a fresh Python process, so nothing is cached in memory.
"""
import os
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
    g = sstad.jit(sstad.grad(objective))(0.7, np.linspace(-1.0, 1.0, 50), 3)
    print(f"{time.perf_counter() - ready:.3f}")
''')


def first_call_seconds(workdir, cache):
    env = dict(os.environ, SSTAD_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", DRIVER, workdir], env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def measure():
    """(cold seconds, warm seconds) for the first gradient call of ``objective``."""
    with tempfile.TemporaryDirectory() as workdir, tempfile.TemporaryDirectory() as cache:
        with open(os.path.join(workdir, "latency_program.py"), "w") as f:
            f.write(PROGRAM)
        cold = first_call_seconds(workdir, cache)
        warm = min(first_call_seconds(workdir, cache) for _ in range(3))
    return cold, warm


if __name__ == "__main__":
    cold, warm = measure()
    print(f"first gradient call of a 30-line function: cold {cold:.2f} s, from the disk cache {warm:.2f} s")
