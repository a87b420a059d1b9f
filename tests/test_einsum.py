"""np.einsum (and np.tensordot, the same contraction) in every form: implicit output, several operands, an index summed in one
operand only, a repeated index; both modes against finite differences, both backends
(Numba has no einsum: sstad generates its loops)."""
import numpy as np
import pytest

import einsum_cases as ec
from sstad.testing import check_grads

rng = np.random.default_rng(4)
A, B, C = rng.normal(size=(3, 3)), rng.normal(size=(4, 3)), rng.normal(size=3)
CASES = {"'ij,nj->ni'": (ec.batched_quadratic, (A, B)), "'ij,jk' (implicit)": (ec.implicit_output, (A, A)),
         "'ii->', 'ij->j'": (ec.trace_and_column_sums, (A,)), "'ij,jk,k->i'": (ec.three_operands, (A, A, C)),
         "'ii->i'": (ec.diagonal, (A,)),
         "tensordot(a, b, axes=([1], [0]))": (ec.tensordot_pairs, (B, A)),
         "tensordot(a, b, 1)": (ec.tensordot_count, (B, A))}


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_einsum(name, backend):
    fn, args = CASES[name]
    check_grads(fn, args, backend=backend)
