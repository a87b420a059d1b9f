"""Testing tools for sstad's derivatives.

* :func:`check_grads` (JAX semantics): forward and reverse derivatives of a function
  against central finite differences, at any order.
* :mod:`sstad.testing.strategies`: Hypothesis strategies for arrays, pytrees and whole
  generated *programs* in the supported subset (needs ``hypothesis``)::

      from hypothesis import given
      from sstad.testing.strategies import programs

      @given(programs())
      def test_my_compiler_change(program):
          program.check()            # check_grads on the generated function

* ``python -m sstad.testing.fuzz --n 1000`` (``make fuzz N=1000``): a fuzzing campaign.
* ``pytest_plugins = ["sstad.testing.pytest_plugin"]`` in a ``conftest.py`` gives the
  ``check_grads`` fixture and the ``--sstad-backend`` option.
"""
from sstad.testing.gradcheck import EPS, TOL, NotSmoothError, SstadCrash, check_grads  # noqa: F401

__all__ = ["check_grads", "NotSmoothError", "SstadCrash", "EPS", "TOL"]
