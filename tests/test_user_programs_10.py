"""Programs of a tenth batch (tests/user_programs_10.py).  Each against NumPy (the value
under ``sstad.jit``) and central finite differences (reverse and forward mode), on both
backends; Numba runs are slow."""

import numpy as np
import pytest

import user_programs_10 as up
from program_registry import batch_checks
from sstad.testing import check_grads

args_of, test_on_python, test_on_numba = batch_checks(up.PROGRAMS, seed=10)


# --- np.block, which the kriging program's bordered system uses (it was called as an
#     outside function, its nested lists passed as tuples, which NumPy refuses)

def _bordered(K, b):
    ones = np.ones((K.shape[0], 1))
    A = np.block([[K, ones], [ones.T, np.zeros((1, 1))]])
    return np.sum(np.linalg.solve(A, np.append(b, 1.0)) ** 2)


def _rows_of_blocks(a, b, c):
    return np.sum(np.sin(np.block([a, b, c])) * np.arange(7.0))


def _three_deep(a, b):
    return np.sum(np.block([[[a, b]], [[b, a]]]) ** 3)


@pytest.mark.parametrize("fn, args", [
    (_bordered, (np.eye(3) * 2 + 0.1, np.array([1.0, 2.0, 3.0]))),
    (_rows_of_blocks, (np.arange(3.0), np.array([0.5]), np.ones(3))),
    (_three_deep, (np.ones((1, 2, 2)) * 0.5, np.arange(4.0).reshape(1, 2, 2))),
], ids=["bordered", "one_level", "three_levels"])
def test_np_block_of_nested_lists(fn, args):
    check_grads(fn, args, backend="python")
