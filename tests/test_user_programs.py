"""Programs as people write them (tests/user_programs.py), compiled on both backends: the value
against plain Python, reverse and forward mode against central finite differences.

Outcomes as in tests/test_numpy_surface.py: pass; refused (a clear sstad error at the user's
line: a skip carrying the message); anything else fails.  Today's defects are strict xfails
from ``user_programs.XFAIL``.  The numba runs are slow.
"""
import dataclasses
import os

import numpy as np
import pytest

import numpy_surface as ns
import sstad
import user_programs as up

FILE = os.path.abspath(up.__file__.replace(".pyc", ".py"))


def _reason(name, backend):
    return up.XFAIL.get(f"{name} @{backend}") or up.XFAIL.get(name)


def _params(backend):
    params = []
    for name in up.PROGRAMS:
        marks = [pytest.mark.slow] if backend == "numba" else []
        reason = _reason(name, backend)
        if reason:
            marks.append(pytest.mark.xfail(strict=True, reason=f"{reason} (user_programs.XFAIL[{name!r}])"))
        params.append(pytest.param(name, id=name, marks=marks))
    return params


def check_program(name, backend):
    prog = up.PROGRAMS[name]
    outcome, messages = ns.run_checks(prog.fn, prog.args, backend, FILE)
    ns.report(outcome, messages, name, "change its make_args")


@pytest.mark.parametrize("name", _params("python"))
def test_python(name):
    check_program(name, "python")


@pytest.mark.parametrize("name", _params("numba"))
def test_numba(name):
    check_program(name, "numba")


@dataclasses.dataclass
class MutableConfig:
    scale: float


CONFIG = MutableConfig(scale=2.0)


def scaled_by_global_config(x):
    return np.sum(x * CONFIG.scale)


def test_mutable_global_config_is_not_frozen():
    """Changing a config object the function reads must change the compiled result."""
    f = sstad.jit(scaled_by_global_config, backend="python")
    x = np.arange(3.0)
    assert f(x) == pytest.approx(6.0)
    CONFIG.scale = 3.0
    try:
        got = f(x)
    finally:
        CONFIG.scale = 2.0
    assert got == pytest.approx(9.0), "sstad.jit kept the config's old value"


def scaled_by_config_arg(x, cfg):
    return np.sum(x * cfg.scale)


def test_mutable_config_argument_is_not_frozen():
    f = sstad.jit(scaled_by_config_arg, backend="python")
    x = np.arange(3.0)
    cfg = MutableConfig(scale=2.0)
    assert f(x, cfg) == pytest.approx(6.0)
    cfg.scale = 3.0
    assert f(x, cfg) == pytest.approx(9.0), "sstad.jit kept the config's old value"


def test_counts():
    print(f"{len(up.PROGRAMS)} user programs")
    assert len(up.PROGRAMS) >= 80
