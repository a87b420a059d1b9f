"""What a call of an ``sstad.jit`` function costs beyond Numba's own call: the same small
function through ``sstad.jit`` and through a bare ``numba.njit``, with one and with six
array arguments (median microseconds per call over repeated batches).

    python benchmarks/call_overhead.py
"""
import statistics
import timeit

import numba
import numpy as np

import sstad


def one(x):
    return x[0] + 1.0


def six(a, b, c, d, e, f):
    return a[0] + b[0] + c[0] + d[0] + e[0] + f[0]


def per_call_us(fn, args, number=2000, repeat=15):
    fn(*args)
    times = timeit.repeat(lambda: fn(*args), number=number, repeat=repeat)
    return statistics.median(times) / number * 1e6


def measure():
    """{(function, runner): median microseconds per call}."""
    arrays = [np.linspace(0.0, 1.0, 8) for _ in range(6)]
    out = {}
    for fn, args in ((one, arrays[:1]), (six, arrays)):
        jitted, bare = sstad.jit(fn), numba.njit(fn)
        assert jitted(*args) == bare(*args)
        out[fn.__name__, "sstad.jit"] = per_call_us(jitted, args)
        out[fn.__name__, "numba.njit"] = per_call_us(bare, args)
    return out


if __name__ == "__main__":
    times = measure()
    for name, arity in (("one", 1), ("six", 6)):
        s, n = times[name, "sstad.jit"], times[name, "numba.njit"]
        print(f"{arity} array argument(s): sstad.jit {s:.2f} us, numba.njit {n:.2f} us, "
              f"sstad's own cost {s - n:.2f} us per call")
