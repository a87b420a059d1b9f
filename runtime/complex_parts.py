"""The real and imaginary parts of complex values: two primitives with their rules.

A cotangent ``c`` of a complex value ``z`` pairs with a tangent ``v`` as ``Re(c v)`` (JAX's
convention): holomorphic rules (products, exp, solve) need no conjugates, and a complex
cotangent reaching a real value keeps its real part.  Under that pairing the real part's
cotangent is ``dout`` and the imaginary part's ``-1j dout``.  ``np.real``, ``np.imag``,
``np.conj`` and ``np.angle`` of complex values, and ``z.real``, ``z.imag``, are composites
over these (runtime/composites_special.py)."""
import numpy as np

from sstad.runtime.primitive import NUMPY_FUNCTIONS, Primitive, by_prototype, declare, defvjp, signature_of


def real_part(z):
    """``z.real`` of a complex ``z``."""
    return np.real(z)


def imag_part(z):
    """``z.imag`` of a complex ``z``."""
    return np.imag(z)


def _attribute(name):
    return lambda args, params, avals: f"{args[0]}.{name}"


for _fn, _attr in ((real_part, "real"), (imag_part, "imag")):
    _prim = Primitive("complex." + _attr, _fn, by_prototype(_fn), _attribute(_attr), elementwise=True)
    _prim.signature = signature_of(_fn)
    NUMPY_FUNCTIONS[id(_fn)] = _prim.name
declare("complex.real", "complex.imag", may_alias=True)     # NumPy's .real and .imag are views


@defvjp("complex.real")
def _(z, out, dout):
    return (dout * (1.0 + 0.0j),)


@defvjp("complex.imag")
def _(z, out, dout):
    return (dout * -1j,)
