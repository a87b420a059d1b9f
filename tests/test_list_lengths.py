"""Reverse mode of loops nested in a loop that appends to a list and reading its length
(``range(len(lst))``, ``lst[len(lst) - 1 - i]``): each outer iteration's backward sweep
sees the length the list had where the inner loop started, not its final length (which
gave a silently wrong gradient).  Checked against finite differences on both backends.
Also lists a loop appends Python and NumPy numbers to, or replaces by one it makes: one
list type (``runtime/containers.list_of``), not an internal error."""
import numpy as np
import pytest

import list_length_cases as lc
import sstad
from refusals import refused_at
from sstad.errors import UnsupportedSyntaxError
from sstad.testing import check_grads

X = np.array([0.7, -1.3])
CASES = [lc.reversed_window, lc.carried_through_inner, lc.while_over_length, lc.appended_twice_after,
         lc.weak_then_strong, lc.scalar_list_rebuilt, lc.int_list_rebuilt, lc.reduced_before_first_append]


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient_matches_finite_differences(f, backend):
    assert sstad.jit(f, backend=backend)(X) == pytest.approx(f(X), rel=1e-14)
    check_grads(f, (X,), modes="rev", backend=backend)


def test_the_two_loop_pattern_by_hand():
    x = np.array([1.0, 2.0])          # total = 4 x0 x1
    np.testing.assert_allclose(sstad.grad(lc.reversed_window)(x), [4 * x[1], 4 * x[0]])


def test_a_list_of_ints_and_floats_is_refused_at_the_users_line():
    with pytest.raises(sstad.errors.SstadTypeError, match="a list holds items of one type") as caught:
        sstad.jit(lc.ints_then_floats, backend="python")(1.0)
    assert "list_length_cases.py:" in str(caught.value) and "float(k)" in str(caught.value)


def test_a_list_of_ints_and_floats_made_by_branches_is_refused_at_the_append():
    with pytest.raises(sstad.errors.SstadTypeError, match=r"list\[i64\] here and a list\[f64\] on another path") as caught:
        sstad.jit(lc.ints_or_floats_by_branch, backend="python")(X, 1.0)
    assert "list_length_cases.py:" in str(caught.value) and "# ERR branch" in str(caught.value)


def test_an_inner_loop_reading_the_whole_growing_list_is_refused_at_its_line():
    assert sstad.jit(lc.stacked_in_inner_loop)(X) == pytest.approx(lc.stacked_in_inner_loop(X), rel=1e-14)
    refused_at(lc.stacked_in_inner_loop, (X,), r"(?s)reads or changes the whole list.*read its items by index",
               "# ERR whole", UnsupportedSyntaxError)
