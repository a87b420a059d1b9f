"""The Euler loop's gradient with and without a tape budget (docs/performance.md, "Tape
memory budget").

An explicit-Euler `while` loop over a 64-element state, 10^3 to 10^6 steps, compiled by
Numba: the objective, the gradient without a budget (`tape_budget=None`), under the
default one (`"auto"`, a quarter of the machine's memory), under 100 MB and under 1 MB,
their CPU times (`time.process_time`, medians, so other work on the machine does not
stretch them) and each gradient's peak memory (growth of the peak RSS over one call,
measured in a fresh process per row, Linux's VmHWM reset by /proc/self/clear_refs).
Each budgeted gradient is checked against the unbudgeted one, bit for bit, before it is
timed.

    python3 benchmarks/tape_budget.py                 # 1e3 1e4 1e5 1e6 steps
    python3 benchmarks/tape_budget.py 1000 100000     # chosen step counts
    python3 benchmarks/tape_budget.py --hand          # the gradient written by hand, for scale
"""
import os
import subprocess
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import sstad  # noqa: E402

BUDGET = 100_000_000
BUDGETS = [None, "auto", BUDGET, 1_000_000]      # none, the default, the issue's 100 MB, 1 MB
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
    f = compiled("objective")
    grads = {b: compiled(b) for b in BUDGETS}
    f(y0, k, 10)
    for g in grads.values():
        g(y0, k, 10)
    print(f"Euler, {N}-element state, numba, CPU ms (median); peak = RSS growth over one gradient call, MB")
    head = " | ".join(f"{label(b):>9} {'g/f':>5} {'peak':>6}" for b in BUDGETS)
    print(f"{'steps':>8} | {'f':>7} | {head} | {'100 MB cost':>11}")
    for steps in steps_list:
        plain = grads[None](y0, k, steps)
        for b in BUDGETS[1:]:
            assert np.array_equal(grads[b](y0, k, steps), plain), "a budgeted gradient differs"
        tf = cpu_time(f, y0, k, steps)
        times = {b: cpu_time(g, y0, k, steps) for b, g in grads.items()}
        cells = " | ".join(f"{times[b] * 1e3:9.3f} {times[b] / tf:5.2f} {peak_growth(steps, b) / 1e6:6.1f}"
                           for b in BUDGETS)
        print(f"{steps:>8} | {tf * 1e3:7.3f} | {cells} | {times[BUDGET] / times[None]:10.2f}x", flush=True)


def label(budget):
    if budget is None or budget == "auto":
        return "no budget" if budget is None else "default"
    return f"{budget / 1e6:g} MB"


def hand_written():
    """The same gradient written by hand in Numba, five ways: a list of the states (what
    sstad tapes), one preallocated 2-D tape grown by doubling, that tape with the
    backward sweep as scalar loops (no temporaries), a 2-D tape kept from one call to the
    next (no fresh memory after the first call), and checkpoints every 1024 steps with
    each segment rerun into one 1024-row tape (the cache).  Imported on demand (--hand)."""
    import numba

    @numba.njit
    def by_list(y0, k, steps):
        y, t, dt, n = y0.copy(), 0.0, 1.0 / steps, 0
        tape = [np.empty((0,), np.float64)][:0]
        while t < 1.0 - 0.5 * dt:
            tape.append(y)
            y = y + dt * (-k * y + np.sin(t))
            t, n = t + dt, n + 1
        dy, dk = 2.0 * y, np.zeros_like(k)
        for j in range(n - 1, -1, -1):
            dk -= dt * dy * tape[j]
            dy = dy + dt * dy * (-k)
        return dk

    @numba.njit
    def into(tape, y0, k, steps, scalar_loops):
        y, t, dt, n, m = y0.copy(), 0.0, 1.0 / steps, 0, y0.shape[0]
        while t < 1.0 - 0.5 * dt:
            if n == tape.shape[0]:
                bigger = np.empty((2 * n, m))
                bigger[:n] = tape
                tape = bigger
            tape[n] = y
            y = y + dt * (-k * y + np.sin(t))
            t, n = t + dt, n + 1
        dy, dk = 2.0 * y, np.zeros_like(k)
        for j in range(n - 1, -1, -1):
            if scalar_loops:
                for i in range(m):
                    dk[i] -= dt * dy[i] * tape[j, i]
                    dy[i] += dt * dy[i] * (-k[i])
            else:
                dk -= dt * dy * tape[j]
                dy = dy + dt * dy * (-k)
        return dk, tape

    def by_array(y0, k, steps, scalar_loops):
        return into(np.empty((16, y0.shape[0])), y0, k, steps, scalar_loops)[0]

    kept = [np.empty((16, N))]

    def by_kept_array(y0, k, steps):
        dk, kept[0] = into(kept[0], y0, k, steps, False)
        return dk

    @numba.njit
    def by_segments(y0, k, steps, rows):
        y, t, dt, n = y0.copy(), 0.0, 1.0 / steps, 0
        tape, states, times = np.empty((rows, y.shape[0])), [y], [t]
        while t < 1.0 - 0.5 * dt:
            if n > 0 and n % rows == 0:
                states.append(y)
                times.append(t)
            tape[n % rows] = y
            y = y + dt * (-k * y + np.sin(t))
            t, n = t + dt, n + 1
        dy, dk = 2.0 * y, np.zeros_like(k)
        for g in range(len(states) - 1, -1, -1):
            stop = min(n, (g + 1) * rows)
            if g < len(states) - 1:            # the last segment's tape is still there
                y, t = states[g], times[g]
                for m in range(stop - g * rows):
                    tape[m] = y
                    y = y + dt * (-k * y + np.sin(t))
                    t = t + dt
            for j in range(stop - g * rows - 1, -1, -1):
                dk -= dt * dy * tape[j]
                dy = dy + dt * dy * (-k)
        return dk
    return {"list": by_list, "2-D": lambda y0, k, s: by_array(y0, k, s, False),
            "2-D, scalar loops": lambda y0, k, s: by_array(y0, k, s, True),
            "2-D kept": by_kept_array, "segments": lambda y0, k, s: by_segments(y0, k, s, 1024)}


def hand_table(steps_list):
    y0, k = inputs()
    f = compiled("objective")
    ways = hand_written()
    reference = compiled(None)(y0, k, 100)
    for fn in ways.values():
        assert np.allclose(fn(y0, k, 100), reference, rtol=1e-10), "a hand-written gradient differs"
    f(y0, k, 10)
    print("hand-written gradients, grad/f by CPU time:", ", ".join(ways))
    for steps in steps_list:
        tf = cpu_time(f, y0, k, steps)
        print(f"{steps:>8} | " + " | ".join(f"{cpu_time(fn, y0, k, steps) / tf:5.2f}" for fn in ways.values()),
              flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--memory"]:
        memory_row(int(sys.argv[2]), eval(sys.argv[3]))
    elif sys.argv[1:2] == ["--hand"]:
        hand_table([int(float(a)) for a in sys.argv[2:]] or [1000, 100_000, 1_000_000])
    else:
        main([int(float(a)) for a in sys.argv[1:]] or [1000, 10_000, 100_000, 1_000_000])
