"""A write through a view is a write into its base: values as NumPy gives them, and
derivatives against finite differences in both modes."""
import numpy as np
import pytest

import sstad
import view_write_cases as vc
from refusals import refused_at
from sstad.errors import AliasingError
from sstad.testing import check_grads

X6 = np.linspace(0.5, 1.5, 6)
A34 = np.arange(12.0).reshape(3, 4) / 7 + 0.3
CASES = {
    "z = y[1:]; z[0] = ...": (vc.slice_then_write, (X6,)),
    "z = y[::2]; z *= 2": (vc.strided_in_place, (X6,)),
    "row = A[i]; row[1:] = ...": (vc.rows_in_a_loop, (A34,)),
    "t = A.T; t[i] = ... in a loop": (vc.transpose_in_a_loop, (A34,)),
    "z = y.reshape(2, 3); z[0, 1] = ...": (vc.reshaped, (X6,)),
    "a view sees a later write to its base": (vc.view_sees_a_later_write, (X6,)),
    "writes in a branch, through a view and its base (then)": (vc.write_in_a_branch, (X6, 1.0)),
    "writes in a branch, through a view and its base (else)": (vc.write_in_a_branch, (X6, -1.0)),
    "s = np.swapaxes(A, 0, 1); s[1] = ...": (vc.swapped_axes, (A34,)),
    "z = y[::2] if c else y[1:]; z[0] *= 3 (then)": (vc.one_of_two_slices, (X6,)),
    "z = y[::2] if c else y[1:]; z[0] *= 3 (else)": (vc.one_of_two_slices, (-X6,)),
    "r = A[i] if c else A[j]; r[1] = ...": (vc.one_of_two_rows, (A34, 0, 2)),
    "r = A[1].reshape(2, 2); r[0, 1] = ...": (vc.reshape_of_a_row, (A34,)),
}


def as_loss(fn):
    def loss(*args):
        return np.sum(np.sin(fn(*args)))
    return loss


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_write_through_a_view(name, backend):
    fn, args = CASES[name]
    np.testing.assert_allclose(sstad.jit(fn, backend=backend)(*args), fn(*args), rtol=1e-13)
    check_grads(fn, args, backend=backend)


@pytest.mark.parametrize("fn", [vc.reshape_of_a_transpose, vc.reshape_in_fortran_order], ids=lambda f: f.__name__)
def test_write_into_a_reshape_numpy_may_copy_is_refused(fn):
    """NumPy's reshape of a transposed (or order='F') array is a copy: a write into it does
    not reach the original.  sstad does not follow strides, so it refuses the write at its
    line instead of writing into the original (a silently wrong value before)."""
    refused_at(fn, (A34,), r"writing into the reshape of a view", "# ERR reshape of a view", error=AliasingError)
