"""Derivatives through complex intermediates of real-valued functions.

|z| was differentiated as sign(z) (its rule for real values): for complex z the cotangent
is conj(z) / |z|, so every gradient through np.abs of a complex value was silently wrong,
in both modes.  Rules of other functions that conjugate (norm, vdot, Hermitian and
singular value decompositions, QR, pinv, lstsq, slogdet) were written for real values:
they now refuse complex ones at the user's line rather than give a wrong answer.
``np.real``, ``np.imag``, ``np.conj``, ``np.angle`` of complex values and ``z.real``,
``z.imag`` were refused ("of complex values is not supported"; ``z.real`` as "expected a
number or an array, got a BoundMethod"); ``z ** 2`` of a complex number failed in the
rule of pow (it compared z > 0)."""
import numpy as np
import pytest

import complex_cases as cc
from refusals import refused_at
from sstad.testing import check_grads

BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]
X = np.array([0.3, 1.2, 2.0, -0.7])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [cc.order_parameter, cc.modulus_of_a_scaled_vector, cc.modulus_of_a_quotient,
                                cc.modulus_of_a_number], ids=lambda f: f.__name__)
def test_modulus_of_complex_values(fn, backend):
    check_grads(fn, (X,), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [cc.order_and_phase, cc.parts_and_conjugate, cc.parts_of_a_number,
                                cc.complex_base_real_exponent, cc.unit_phasor],
                         ids=lambda f: f.__name__)
def test_real_and_imaginary_parts(fn, backend):
    check_grads(fn, (X,), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_filter_gain_second_order(backend):
    check_grads(cc.transfer_function_gain, (np.array([1.0, 0.4, 2.0]), np.linspace(0.1, 3.0, 7)),
                order=2, backend=backend)


@pytest.mark.parametrize("fn, marker", [(cc.norm_of_complex, "# ERR norm"), (cc.vdot_of_complex, "# ERR vdot"),
                                        (cc.eigvalsh_of_hermitian, "# ERR eigvalsh")])
def test_conjugating_functions_of_complex_values_are_refused_at_their_line(fn, marker):
    refused_at(fn, (X,), r"of complex values is not supported.*np\.abs", marker)


def test_sign_of_complex_values_is_refused_at_its_line():
    """np.sign is piecewise constant on real numbers only: of a complex z it is z / |z|,
    whose derivative is not zero (it was taken as zero, a silently wrong gradient)."""
    refused_at(cc.sign_of_complex, (X,), r"sign of complex values is not supported[\s\S]*z / np\.abs\(z\)", "# ERR sign")


def test_real_if_close_of_complex_values_is_refused_at_its_line():
    """Its result is real or complex as the values decide: no type to compile."""
    refused_at(cc.real_if_close_of_complex, (X,), r"np\.real_if_close of complex values is not supported",
               "# ERR real_if_close")
