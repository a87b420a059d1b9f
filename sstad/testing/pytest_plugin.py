"""A pytest plugin for sstad's gradient checks.

Enable it in a ``conftest.py``::

    pytest_plugins = ["sstad.testing.pytest_plugin"]

It gives the ``check_grads`` fixture (:func:`sstad.testing.check_grads` with the backend
of ``--sstad-backend``, python by default) and the ``sstad_backend`` fixture.

The strategies are plain Hypothesis strategies and need no plugin::

    from hypothesis import given
    from sstad.testing.strategies import programs

    @given(programs())
    def test_generated(program):
        program.check()
"""
import functools

import pytest

from sstad.backend import targets  # noqa: F401  (registers the built-in backends)
from sstad.backend.base import BACKENDS


def pytest_addoption(parser):
    group = parser.getgroup("sstad")
    group.addoption("--sstad-backend", default="python", choices=tuple(BACKENDS),
                    help="backend for the check_grads fixture")


@pytest.fixture
def sstad_backend(request):
    return request.config.getoption("--sstad-backend")


@pytest.fixture
def check_grads(sstad_backend):
    from sstad.testing import check_grads as check
    return functools.partial(check, backend=sstad_backend)
