"""The Euler loop's gradient with and without a tape budget (docs/performance.md, "Tape
memory budget").

An explicit-Euler `while` loop over a 64-element state, 10^3 to 10^6 steps, compiled by
Numba: the objective, the gradient without a budget (`tape_budget=None`) and under
100 MB, their CPU times (`time.process_time`, medians, so other work on the machine does
not stretch them) and each gradient's peak memory (growth of the peak RSS over one call,
measured in a fresh process per row,
Linux's VmHWM reset by /proc/self/clear_refs).  The budgeted gradient is checked against the
unbudgeted one before it is timed.

    python3 benchmarks/tape_budget.py                 # 1e3 1e4 1e5 1e6 steps
    python3 benchmarks/tape_budget.py 1000 100000     # chosen step counts
"""
import os
import subprocess
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import sstad  # noqa: E402

BUDGET = 100_000_000
N = 64


def euler(y0, k, steps):
    y = y0.copy()
    t = 0.0
    dt = 1.0 / steps
    while t < 1.0 - 0.5 * dt:
        y = y + dt * (-k * y + np.sin(t))
        t = t + dt
    return np.sum(y * y)


def inputs():
    return np.linspace(0.5, 1.5, N), np.linspace(0.2, 2.0, N)


def compiled(budget):
    if budget == "objective":
        return sstad.jit(euler)
    return sstad.jit(sstad.grad(euler, argnums=1, tape_budget=budget))


def cpu_time(fn, *args, seconds=2.0):
    """Median CPU seconds of one call, over calls sampled for about ``seconds``."""
    samples, spent = [], 0.0
    while len(samples) < 3 or spent < seconds and len(samples) < 50:
        t0 = time.process_time()
        fn(*args)
        samples.append(time.process_time() - t0)
        spent += samples[-1]
    return float(np.median(samples))


def peak_growth(steps, budget):
    """Bytes the peak RSS grows by over one call, in a fresh process (this file, --memory)."""
    out = subprocess.run([sys.executable, __file__, "--memory", str(steps), repr(budget)],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def rss(field):
    """``VmRSS`` (now) or ``VmHWM`` (the peak since the last reset) in bytes (Linux)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith(field))


def memory_row(steps, budget):
    fn = compiled(budget)
    y0, k = inputs()
    fn(y0, k, 10)
    with open("/proc/self/clear_refs", "w") as refs:      # the peak starts again from here
        refs.write("5")
    before = rss("VmRSS")
    fn(y0, k, steps)
    print(rss("VmHWM") - before)


def main(steps_list):
    y0, k = inputs()
    f, plain, budgeted = compiled("objective"), compiled(None), compiled(BUDGET)
    f(y0, k, 10), plain(y0, k, 10), budgeted(y0, k, 10)
    print(f"Euler, {N}-element state, numba, CPU ms (median); peak = RSS growth over one gradient call")
    print(f"{'steps':>8} | {'f':>8} | {'grad':>8} {'g/f':>5} {'peak MB':>8} | "
          f"{'grad 100MB':>10} {'g/f':>5} {'peak MB':>8} | {'budget cost':>11}")
    for steps in steps_list:
        a, b = plain(y0, k, steps), budgeted(y0, k, steps)
        assert np.allclose(a, b, rtol=1e-12, atol=0), "the budgeted gradient differs"
        tf, tp, tb = (cpu_time(fn, y0, k, steps) for fn in (f, plain, budgeted))
        mp, mb = peak_growth(steps, None) / 1e6, peak_growth(steps, BUDGET) / 1e6
        print(f"{steps:>8} | {tf * 1e3:8.3f} | {tp * 1e3:8.3f} {tp / tf:5.2f} {mp:8.1f} | "
              f"{tb * 1e3:10.3f} {tb / tf:5.2f} {mb:8.1f} | {tb / tp:10.2f}x", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--memory"]:
        memory_row(int(sys.argv[2]), eval(sys.argv[3]))
    else:
        main([int(float(a)) for a in sys.argv[1:]] or [1000, 10_000, 100_000, 1_000_000])
