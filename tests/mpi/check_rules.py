"""Run under ``mpiexec -n P``: every collective's rules, across ranks.

For each case f (a function of this rank's x, built from a collective), with u a tangent
and v a cotangent drawn on each rank:

    sum over ranks <pullback(v), u>  ==  sum over ranks <v, pushforward(u)>

and pushforward(u) equals central finite differences of the global function (every
rank perturbs its x by eps * u at once).  Prints one line per case on rank 0; exits
non-zero if any case fails.  Usage: check_rules.py BACKEND [CASE-NAME-SUBSTRING ...]
"""
import sys

import numpy as np
from mpi4py import MPI

import sstad
from sstad import distributed as dist

P, ME = dist.world_size(), dist.rank()
EPS, TOL = 1e-6, 1e-7


def piece(n):
    """This rank's length in an np.array_split of n rows."""
    return n // P + (1 if ME < n % P else 0)


# Global tuples are compile-time constants.  Only the ring depends on the number of ranks:
# every other case compiles to the same code under -n 2 and -n 3 (check_rules_together.py
# relies on that to compile once for both).
RING = tuple((r, (r + 1) % P) for r in range(P))


# name -> (function of this rank's x, its shape or () for a float)
CASES = {}


def case(name, shape):
    def register(f):
        CASES[name] = (f, shape)
        return f
    return register


@case("all_reduce sum", (4,))
def f_all_reduce_sum(x):
    return dist.all_reduce(np.sin(x) * x, op="sum") ** 2


@case("all_reduce mean", (2, 3))
def f_all_reduce_mean(x):
    return np.cos(dist.all_reduce(x * x, op="mean"))


@case("all_reduce max", (5,))
def f_all_reduce_max(x):
    return dist.all_reduce(np.sin(x), op="max") * x


@case("all_reduce min", (5,))
def f_all_reduce_min(x):
    return dist.all_reduce(x * x * x, op="min") ** 2


@case("all_reduce float", ())
def f_all_reduce_float(x):
    return dist.all_reduce(x * x, op="sum") * x


@case("all_gather axis 0", (piece(7), 2))
def f_all_gather_axis_0(x):
    return np.sin(dist.all_gather(x * x, axis=0))


@case("all_gather axis 1", (2, piece(5)))
def f_all_gather_axis_1(x):
    return dist.all_gather(np.tanh(x), axis=1) ** 2


@case("reduce_scatter sum", (7, 2))
def f_reduce_scatter_sum(x):
    return dist.reduce_scatter(x * x, op="sum", axis=0) ** 3


@case("reduce_scatter mean", (2, 7))
def f_reduce_scatter_mean(x):
    return np.sin(dist.reduce_scatter(x, op="mean", axis=1))


@case("reduce_scatter max", (7,))
def f_reduce_scatter_max(x):
    return dist.reduce_scatter(np.sin(x), op="max", axis=0) * 2.0


@case("reduce_scatter min", (3, 5))
def f_reduce_scatter_min(x):
    return dist.reduce_scatter(x * x, op="min", axis=1) ** 2


@case("broadcast", (3,))
def f_broadcast(x):
    return np.sin(dist.broadcast(x * x, root=1)) * x


@case("reduce", (3,))
def f_reduce(x):
    return dist.reduce(np.cos(x), root=0) ** 2


@case("all_to_all", (5, 2))
def f_all_to_all(x):
    return dist.all_to_all(x * x, 0, 1) ** 2


@case("all_to_all uneven concat", (piece(4), 3 * P))
def f_all_to_all_uneven_concat(x):
    return np.sin(dist.all_to_all(x, 1, 0))


@case("ppermute ring", (4,))
def f_ppermute_ring(x):
    return dist.ppermute(np.sin(x), RING) * 3.0


@case("ppermute swap", (3,))
def f_ppermute_swap(x):
    return dist.ppermute(np.cos(x), ((0, 1), (1, 0))) * x          # the ring of -n 2, under any P


@case("ppermute partial", (2, 2))
def f_ppermute_partial(x):
    return dist.ppermute(x * x, ((0, 1),)) ** 2        # under -n 3, rank 2 neither sends nor gets


def draw(shape, rng):
    value = rng.standard_normal(shape)
    return float(value) if shape == () else value


def total(value):
    """Sum over ranks of a local number (raw mpi4py: not the code under test)."""
    return MPI.COMM_WORLD.allreduce(float(value), op=MPI.SUM)


def draw_case(name, f, shape):
    """This rank's point x, tangent u and cotangent v for a case."""
    rng = np.random.default_rng(1000 * ME + len(name))
    x, u = draw(shape, rng), draw(shape, rng)
    return x, u, draw(np.shape(f(x)), rng)


def check(name, f, shape, backend):
    x, u, v = draw_case(name, f, shape)
    pushed = sstad.jit(sstad.pushforward(f), backend=backend)(x, u)[1]
    (pulled,) = sstad.jit(sstad.pullback(f), backend=backend)(x, v)
    return compare(name, f, x, u, v, pushed, pulled)


def compare(name, f, x, u, v, pushed, pulled):
    """Rank 0 prints the line of a case; every rank returns whether it holds."""
    pushed, pulled = np.asarray(pushed), np.asarray(pulled)
    lhs, rhs = total(np.sum(pulled * u)), total(np.sum(v * pushed))
    fd = (np.asarray(f(x + EPS * np.asarray(u))) - np.asarray(f(x - EPS * np.asarray(u)))) / (2 * EPS)
    fd_error = MPI.COMM_WORLD.allreduce(float(np.max(np.abs(fd - pushed), initial=0.0)), op=MPI.MAX)
    scale = max(1.0, abs(lhs))
    ok = abs(lhs - rhs) <= 1e-12 * scale and fd_error <= 1e-6 * max(1.0, float(np.max(np.abs(pushed), initial=1.0)))
    if ME == 0:
        print(f"{'ok ' if ok else 'BAD'} {name:28s} <vjp(v),u> {lhs:+.12e}  <v,jvp(u)> {rhs:+.12e}  "
              f"|jvp - fd| {fd_error:.1e}", flush=True)
    return ok


def check_mismatch():
    """Ranks whose shapes differ get a CollectiveError on every rank, naming both shapes."""
    try:
        dist.all_reduce(np.ones(3 + (ME == 1)))
    except dist.CollectiveError as exc:
        message = str(exc)
    else:
        message = "no error"
    ok = "rank 1 has float64(4,)" in message and "rank 0 has float64(3,)" in message
    if ME == 0:
        print(f"{'ok ' if ok else 'BAD'} mismatched shapes: {message}", flush=True)
    return ok


def main():
    backend, wanted = sys.argv[1], sys.argv[2:]
    bad = [name for name, (f, shape) in CASES.items()
           if (not wanted or any(w in name for w in wanted)) and not check(name, f, shape, backend)]
    if not wanted and not check_mismatch():
        bad.append("mismatched shapes")
    if bad:
        raise SystemExit(f"rank {ME}: mismatches in {bad}")


if __name__ == "__main__":
    main()
