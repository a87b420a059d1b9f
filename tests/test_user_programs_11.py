"""Programs of an eleventh batch (tests/user_programs_11.py).  Each against NumPy (the value
under ``sstad.jit``) and central finite differences (reverse and forward mode), on both
backends; Numba runs are slow."""

import user_programs_11 as up
from program_registry import batch_checks

args_of, test_on_python, test_on_numba = batch_checks(up.PROGRAMS, seed=11)
