"""Real-valued functions of complex intermediates, for tests/test_complex_derivatives.py:
|z| of a complex value is not holomorphic, so its derivative conjugates."""
import numpy as np


def order_parameter(theta):
    """Kuramoto's r = |mean(exp(i theta))|."""
    return np.abs(np.mean(np.exp(1j * theta)))


def modulus_of_a_scaled_vector(x):
    return np.sum(np.abs(x * (1 + 2j) + 0.5j) ** 3)


def modulus_of_a_quotient(x):
    return np.sum(np.abs(np.exp(1j * x) / (x + 2j)))


def modulus_of_a_number(x):
    return abs(x[0] * 1j + x[1] ** 2)


def transfer_function_gain(coeffs, omega):
    """|H(i w)| of a second-order filter, summed over frequencies (a Bode magnitude fit)."""
    s = 1j * omega
    H = coeffs[0] / (s ** 2 + coeffs[1] * s + coeffs[2])
    return np.sum(np.log(np.abs(H)) ** 2)


def norm_of_complex(x):
    return np.linalg.norm(x * (1 + 2j))                     # ERR norm


def vdot_of_complex(x):
    z = x * (1 + 2j)
    return np.abs(np.vdot(z, z + 1j))                       # ERR vdot


def eigvalsh_of_hermitian(x):
    H = np.outer(x, x) + 1j * (np.outer(x, x[::-1]) - np.outer(x[::-1], x))
    return np.sum(np.linalg.eigvalsh(H) ** 2)               # ERR eigvalsh


def sign_of_complex(x):
    return np.sum(np.real(np.sign(np.exp(1j * x))) * x)   # ERR sign


def unit_phasor(x):
    """What the refusal of np.sign of complex values suggests: z / |z|."""
    z = np.exp(1j * x) * (2.0 + x)
    return np.sum(np.real(z / np.abs(z)) * x)


def order_and_phase(theta):
    """Kuramoto's order parameter and mean phase, as r exp(i psi) = mean(exp(i theta))."""
    z = np.mean(np.exp(1j * theta))
    return np.abs(z) + 0.1 * np.angle(z) ** 2 + np.angle(z, deg=True) / 90.0


def parts_and_conjugate(x):
    z = np.exp(1j * x) * (x + 2j)
    w = z * np.conj(z)
    return np.sum(z.real ** 2 - 3.0 * z.imag) + np.sum(np.real(w)) + np.sum(np.imag(z) * np.real(z)) \
        + np.sum(np.imag(w) ** 2)


def parts_of_a_number(x):
    z = (x[0] + 1j * x[1]) ** 2
    return z.real * np.exp(z.imag) + np.angle(z) + np.real(x[2]) + np.imag(x[2])


def real_if_close_of_complex(x):
    return np.sum(np.real_if_close(x * 1j))                   # ERR real_if_close


def complex_base_real_exponent(x):
    return np.abs((x[0] + 1j * x[1]) ** x[2]) + np.angle((x[1] - 2j) ** (x[3] + 1.5))
