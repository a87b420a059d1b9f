"""Programs of a sixth batch (tests/user_programs_6.py): Runge-Kutta-Fehlberg with step
rejection, a linear-chain CRF, soft-DTW, a mixture density network, an RBM and a modern
Hopfield network, elastic net by ISTA, expm by scaling and squaring, Clenshaw's
recurrence, polynomial chaos, a ball lens, a physics-informed loss, GIoU and focal loss,
NT-Xent, Hodgkin-Huxley, Kuramoto, NeRF's volume rendering, conjugate gradients, implicit
Euler with Newton, spectral normalisation, Elo ratings, a natural cubic spline, a
Gumbel-softmax autoencoder and batch normalisation with running statistics.  Each against
NumPy (the value under ``sstad.jit``) and central finite differences (reverse and forward
mode), on both backends; Numba runs are slow.  Second derivatives (reverse over reverse) on
the Python backend.

What these programs needed has tests of its own, each failing before its fix:
tests/test_complex_derivatives.py (|z| of a complex value, silently wrong gradients),
tests/test_literal_items.py (``np.concatenate([d, [1e10]])``) and
tests/test_literal_lists_in_loops.py (``P = [1, x]`` then ``P.append`` in a loop)."""

import pytest

import user_programs_6 as up
from program_registry import batch_checks, ids_of
from sstad.testing import check_grads

args_of, test_on_python, test_on_numba = batch_checks(up.PROGRAMS, seed=6)


@pytest.mark.parametrize("fn, make_args, modes", up.PROGRAMS, ids=ids_of(up.PROGRAMS))
def test_second_derivatives_on_python(fn, make_args, modes):
    """Hessian-vector products (reverse over reverse) against differences of the gradient."""
    check_grads(fn, args_of(make_args), order=2, modes=("rev",), backend="python")
