"""Run under ``mpiexec -n P``: every collective's rules from ONE compiled pullback and ONE
compiled pushforward (check_rules.py compiles two functions per collective).

``every_rule`` applies each case of check_rules.py (all but the ring, whose constant
depends on P) to an argument of its own and returns their results as a tuple.  Its
derivatives are block-diagonal: cotangent k of the pullback and tangent k of the
pushforward belong to case k alone, so each collective still gets its own line (its
inner products across ranks and its finite differences, by check_rules.compare) and a
wrong rule names itself.  The finite differences evaluate the plain Python function.

Compiling is what costs (Numba, minutes for one function per rule); sharing it:
* no constant depends on P, so launches with -n 2 and -n 3 compile the same code and a
  later launch loads it from the disk cache ($SSTAD_CACHE_DIR);
* with P >= 2, rank 0 compiles the pushforward while rank 1 compiles the pullback;
  every rank then waits (asleep: MPICH's Barrier spins and would take a core from a
  rank still compiling), and loads what it did not compile from the disk cache.
Usage: check_rules_together.py BACKEND
"""
import sys
import time

from mpi4py import MPI

import sstad
from sstad.backend.base import get_backend
from check_rules import (CASES, ME, P, check_mismatch, compare, draw_case, f_all_gather_axis_0,
                         f_all_gather_axis_1, f_all_reduce_float, f_all_reduce_max, f_all_reduce_mean,
                         f_all_reduce_min, f_all_reduce_sum, f_all_to_all, f_all_to_all_uneven_concat,
                         f_broadcast, f_ppermute_partial, f_ppermute_swap, f_reduce, f_reduce_scatter_max,
                         f_reduce_scatter_mean, f_reduce_scatter_min, f_reduce_scatter_sum)

PARTS = (f_all_reduce_sum, f_all_reduce_mean, f_all_reduce_max, f_all_reduce_min, f_all_reduce_float,
         f_all_gather_axis_0, f_all_gather_axis_1, f_reduce_scatter_sum, f_reduce_scatter_mean,
         f_reduce_scatter_max, f_reduce_scatter_min, f_broadcast, f_reduce, f_all_to_all,
         f_all_to_all_uneven_concat, f_ppermute_swap, f_ppermute_partial)


def every_rule(xs):
    """Case k of PARTS applied to xs[k]."""
    return (f_all_reduce_sum(xs[0]), f_all_reduce_mean(xs[1]), f_all_reduce_max(xs[2]),
            f_all_reduce_min(xs[3]), f_all_reduce_float(xs[4]), f_all_gather_axis_0(xs[5]),
            f_all_gather_axis_1(xs[6]), f_reduce_scatter_sum(xs[7]), f_reduce_scatter_mean(xs[8]),
            f_reduce_scatter_max(xs[9]), f_reduce_scatter_min(xs[10]), f_broadcast(xs[11]), f_reduce(xs[12]),
            f_all_to_all(xs[13]), f_all_to_all_uneven_concat(xs[14]), f_ppermute_swap(xs[15]),
            f_ppermute_partial(xs[16]))


def wait_for_every_rank():
    request = MPI.COMM_WORLD.Ibarrier()
    while not request.Test():
        time.sleep(0.01)


def compiled(transform, args, backend, compiler_rank):
    """``sstad.jit(transform(every_rule))`` for ``args``, compiled now if this is its
    compiler rank (the others load it from the disk cache when they first call it)."""
    jitted = sstad.jit(transform(every_rule), backend=backend)
    if ME == compiler_rank % P and backend != "python":
        specialised = jitted.specialise(args)
        get_backend(backend).compile(specialised.callable(backend), specialised.leaves(args))
    return jitted


def loaded_from_disk(jitted, args):
    """Did Numba load this rank's code of ``jitted`` from its disk cache (not compile it)?"""
    stats = jitted.specialise(args).callable("numba").stats
    return sum(stats.cache_hits.values()) > 0 and sum(stats.cache_misses.values()) == 0


def main():
    backend = sys.argv[1]
    names = {f: name for name, (f, _) in CASES.items()}
    assert sorted(names[f] for f in PARTS) == sorted(n for n in CASES if n != "ppermute ring")
    x, u, v = zip(*(draw_case(names[f], f, CASES[names[f]][1]) for f in PARTS))
    start = time.perf_counter()
    pushforward = compiled(sstad.pushforward, (x, u), backend, 0)
    pullback = compiled(sstad.pullback, (x, v), backend, 1)
    wait_for_every_rank()
    out, pushed = pushforward(x, u)
    (pulled,) = pullback(x, v)
    seconds = time.perf_counter() - start
    if backend == "numba":
        loads = MPI.COMM_WORLD.allreduce(int(loaded_from_disk(pushforward, (x, u)))
                                         + int(loaded_from_disk(pullback, (x, v))))
        if ME == 0:
            print(f"numba: {loads} of the {2 * P} compiled functions loaded from the disk cache, "
                  f"rank 0 ready in {seconds:.1f} s", flush=True)
    bad = [names[f] for k, f in enumerate(PARTS)
           if not compare(names[f], f, x[k], u[k], v[k], pushed[k], pulled[k])]
    if not check_mismatch():
        bad.append("mismatched shapes")
    if bad:
        raise SystemExit(f"rank {ME}: mismatches in {bad}")


if __name__ == "__main__":
    main()
