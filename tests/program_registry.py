"""The registry of a batch of user programs (tests/user_programs_5.py, _6.py, _7.py), and
the checks every batch runs on its programs."""
import numpy as np
import pytest

from sstad.testing import check_grads


def registry():
    """``(PROGRAMS, program)``: the batch's list of ``(fn, make_args, modes)``, and the
    decorator ``@program(make_args, modes=("fwd", "rev"))`` that adds a function to it;
    ``modes`` leaves out a mode the test file records as a known defect."""
    programs = []

    def program(make_args, modes=("fwd", "rev")):
        def register(fn):
            programs.append((fn, make_args, modes))
            return fn
        return register
    return programs, program


def ids_of(programs):
    return [p[0].__name__ for p in programs]


def batch_checks(programs, seed, numba_defects=None):
    """``(args_of, test_on_python, test_on_numba)`` for a test module: each program's value
    under ``sstad.jit`` against NumPy and its derivatives against central finite
    differences (the modes it lists), its arguments drawn by ``make_args`` from
    ``np.random.default_rng(seed)``; the Numba runs are slow, and those of the programs
    ``numba_defects`` names (name -> why) are skipped."""
    def args_of(make_args):
        return make_args(np.random.default_rng(seed))

    defects = numba_defects or {}
    each = pytest.mark.parametrize("fn, make_args, modes", programs, ids=ids_of(programs))
    on_numba = [pytest.param(*p, marks=[pytest.mark.skip(reason=defects[p[0].__name__])]
                             if p[0].__name__ in defects else []) for p in programs]

    @each
    def test_on_python(fn, make_args, modes):
        check_grads(fn, args_of(make_args), modes=modes, backend="python")

    @pytest.mark.slow
    @pytest.mark.parametrize("fn, make_args, modes", on_numba, ids=ids_of(programs))
    def test_on_numba(fn, make_args, modes):
        check_grads(fn, args_of(make_args), modes=modes, backend="numba")
    return args_of, test_on_python, test_on_numba
