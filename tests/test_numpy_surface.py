"""NumPy's surface, call form by call form, against finite differences (tests/numpy_surface.py).

Each case is a NumPy call in a scalar loss, drawn from NumPy's signature; it is checked on
the python backend (the fast slice: base forms on every shape, keyword forms on the main
shape; the positional and method forms are slow) and on numba (slow).  Outcomes: pass;
refused (a clear sstad error at the case's line: reported as a skip, acceptable today);
anything else fails.  Today's defects are strict xfails from ``numpy_surface.XFAIL``: when a
fix makes one pass, the xfail flips and names the entry to delete.
"""
import pytest

import numpy_surface as ns

CASES = ns.generate()


def _params(backend):
    params = []
    for case in CASES:
        marks = []
        if backend == "numba":
            if not case.numba:
                continue
            marks.append(pytest.mark.slow)
        elif not case.fast:
            marks.append(pytest.mark.slow)
        reason = ns.xfail_reason(case, backend)
        if reason:
            marks.append(pytest.mark.xfail(strict=True, reason=f"{reason} (numpy_surface.XFAIL[{case.form!r}])"))
        params.append(pytest.param(case, id=case.id, marks=marks))
    return params


def _check(case, backend):
    outcome, messages = ns.run_case(case, backend)
    ns.report(outcome, messages, case.id, "fix the input kind in numpy_surface.SPECS", ns.source(case) + "\n")


@pytest.mark.parametrize("case", _params("python"))
def test_python(case):
    _check(case, "python")


@pytest.mark.parametrize("case", _params("numba"))
def test_numba(case):
    _check(case, "numba")


def test_every_covered_function_has_a_spec():
    """A function added to the rule table gets call forms here too."""
    assert ns.missing_specs() == [], "add these to numpy_surface.SPECS"


def test_every_xfail_entry_names_a_case():
    """A stale XFAIL key (a renamed form) would silently stop covering anything."""
    keys = set()
    for case in CASES:
        for backend in ("python", "numba"):
            keys |= {f"{case.id} @{backend}", case.id, f"{case.form} @{backend}", case.form}
    assert sorted(set(ns.XFAIL) - keys) == []


def test_counts():
    print(ns.summary(CASES))
    assert len(CASES) > 1000
