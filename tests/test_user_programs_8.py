"""Programs of an eighth batch (tests/user_programs_8.py).  Each against NumPy (the value
under ``sstad.jit``) and central finite differences (reverse and forward mode), on both
backends; Numba runs are slow."""

import user_programs_8 as up
from program_registry import batch_checks

# program -> why its Numba run is left out today (each a defect to fix, not a dodge)
NUMBA_DEFECTS = {
    "style_transfer_loss": "Numba compile time: the pullback (836 lines; conv2d_loops' per-pixel loop "
                           "and its tapes) takes over 10 CPU minutes to compile (the value, 67 s)",
}

args_of, test_on_python, test_on_numba = batch_checks(up.PROGRAMS, seed=8, numba_defects=NUMBA_DEFECTS)
