"""Regression cases found by the program fuzzer (sstad.testing.fuzz), each reduced to a
minimal program by Hypothesis.  Cases the compiler still fails are xfail(strict=True):
when a fix lands, the xfail turns into an XPASS failure; remove the marker then (and the
case's entry in KNOWN).

KNOWN lists the failure signatures (substrings of sstad.testing.fuzz signatures) that
the bounded CI campaign in tests/test_testing.py tolerates while these are open.
"""
import warnings

import numpy as np
import pytest

from sstad.testing import check_grads

KNOWN = (
    "mismatch:rev:nan",                  # dead_hypot_in_loop
    "if on a NAME~",                      # break_and_return_in_nested_loops
)


def check(fn, *args, modes=("rev", "fwd")):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(fn, args, modes=modes, backend="python")


# -- 1. a dead value inside a loop: its rule runs with a zero cotangent and gives NaN --

def dead_hypot_in_loop(x0, x2):
    for e1 in x0:
        t2 = np.sin(np.hypot(e1, e1))   # noqa: F841 - unused: its gradient must be zero
    return x2


def test_dead_hypot_in_loop():
    check(dead_hypot_in_loop, np.array([0.0, 0.0]), np.array([0.5, 1.0, -0.3]), modes=("rev",))


# -- 2. `break` in an inner for loop and `return` in the same loop, inside a while ------

def break_and_return_in_nested_loops(x0, x1):
    k1 = 0
    while k1 < 3:
        k1 += 1
        for e2 in x0:
            if x1 > 0.5:
                break
            if x1 > 0.5:
                return x0
    return x0


@pytest.mark.xfail(strict=True, reason="compiling the primal fails an internal assert: "
                                       "'f: if on a i64~' (lowering of break + return in nested loops)")
def test_break_and_return_in_nested_loops():
    check(break_and_return_in_nested_loops, np.array([0.1, 0.2, 0.3]), 0.0)


# -- 3. forward mode: a variable bound in one branch only (fixed by 9d50bf2) -------------

def bound_in_one_branch(x0, x1, x2):
    if x1 > 0.5:
        t1 = x0  # noqa: F841
    return x1


def test_bound_in_one_branch():
    check(bound_in_one_branch, np.zeros(3), 0.0, np.zeros(3))
