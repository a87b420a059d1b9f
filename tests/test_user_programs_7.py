"""Programs of a seventh batch (tests/user_programs_7.py).  Each against NumPy (the value
under ``sstad.jit``) and central finite differences (reverse and forward mode), on both
backends; Numba runs are slow."""

import numpy as np
import pytest

import user_programs_7 as up
from program_registry import batch_checks

args_of, test_on_python, test_on_numba = batch_checks(up.PROGRAMS, seed=7)


def _pruning_with_a_dict(log_branch, tip_seqs):
    partial = {}
    for i in range(tip_seqs.shape[0]):
        partial[i] = np.eye(4)[tip_seqs[i]]
    return np.sum(partial[0]) * log_branch[0]


def test_a_dict_written_at_a_loop_index_is_refused_with_the_way_out():
    import sstad
    from sstad.errors import SstadTypeError
    with pytest.raises(SstadTypeError, match=r"(?s)test_user_programs_7.py:\d+:9: dict keys must be constants"
                                             r".*d.append\(v\).*for i in \(0, 1, 2\)"):
        sstad.grad(_pruning_with_a_dict)(*args_of(up._phylo_args))
