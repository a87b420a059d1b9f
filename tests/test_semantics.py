"""Behaviour beyond the corpus: errors that name the user's line, aliasing, captured
globals, specialisation per signature, fallbacks, the verifier and the dce pass."""
import re

import numpy as np
import pytest

import semantics_cases as cases
import sstad
from sstad.errors import BackendError, SstadTypeError
from sstad.frontend.lower import lower
from sstad.ir import nodes as ir
from sstad.ir.verify import VerificationError, verify_module
from sstad.runtime import abstract as A

BACKENDS = ["python", "numba"]


def line_of(marker):
    with open(cases.__file__) as f:
        return next(i for i, line in enumerate(f, 1) if f"# {marker}" in line)


def assert_names_line(error, marker):
    assert re.search(rf"semantics_cases\.py:{line_of(marker)}:\d+: ", str(error)), str(error)
    assert "^" in str(error) and "hint:" in str(error)


@pytest.mark.parametrize("fn", [cases.write_through_view, cases.update_view_in_place])
def test_writes_through_a_view_reach_its_base(fn):
    np.testing.assert_array_equal(sstad.jit(fn, backend="python")(np.ones(3)), fn(np.ones(3)))


@pytest.mark.parametrize("fn, error, marker", [
    (cases.may_fall_off, SstadTypeError, "FALLOFF"),
])
def test_refusal_names_the_users_line(fn, error, marker):
    with pytest.raises(error) as info:
        sstad.jit(fn, backend="python")(np.ones(3))
    assert_names_line(info.value, marker)


def test_loop_value_changing_from_scalar_to_array_is_reported():
    with pytest.raises(SstadTypeError) as info:
        sstad.jit(cases.loop_changes_type, backend="python")(np.ones(3), 2)
    assert "is a f64~ on one path and a f64[:] on another" in str(info.value)


def test_branches_with_different_structures_are_reported():
    with pytest.raises(SstadTypeError) as info:
        sstad.jit(cases.branch_changes_structure, backend="python")(np.ones(3))
    assert "different structure" in str(info.value)


def test_numba_failure_is_a_clear_error_and_fallback_is_opt_in():
    with pytest.raises(BackendError) as info:
        sstad.jit(cases.stepped)(np.ones(2))
    assert "nopython" in str(info.value) and "backend='python'" in str(info.value)
    with pytest.warns(UserWarning, match="Numba cannot compile"):
        out = sstad.jit(cases.stepped, fallback=True)(np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(out, [0.0, 0.5, 1.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_global_arrays_are_read_at_each_call(backend, monkeypatch):
    f = sstad.jit(cases.reads_global, backend=backend)
    x = np.ones(3)
    assert f(x) == pytest.approx(6.0)
    monkeypatch.setattr(cases, "W", np.array([10.0, 0.0, 0.0]))
    assert f(x) == pytest.approx(10.0)
    monkeypatch.setattr(cases, "W", np.ones((3, 3)))      # a new rank recompiles
    assert f(x) == pytest.approx(9.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_closure_cells_are_captured(backend):
    scale = cases.make_scaler(np.array([1.0, -1.0]))
    np.testing.assert_array_equal(sstad.jit(scale, backend=backend)(np.array([2.0, 3.0])), [2.0, -3.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_outputs_keep_their_structure(backend):
    x = np.array([1.0, 2.0, 3.0])
    out, nothing = sstad.jit(cases.returns_containers, backend=backend)(x)
    assert nothing is None and set(out) == {"double", "parts"}
    np.testing.assert_array_equal(out["double"], 2.0 * x)
    assert isinstance(out["parts"], list) and out["parts"] == [1.0, 3.0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_signature_compiles_separately_and_float32_stays_float32(backend):
    f = sstad.jit(cases.promote, backend=backend)
    for x in (np.arange(3), np.arange(3.0), np.arange(3, dtype=np.float32), 2, 2.5):
        got, expected = f(x), cases.promote(x)
        assert np.asarray(got).dtype == np.asarray(expected).dtype
        np.testing.assert_allclose(got, expected)
    assert len(f._compiled) == 5


def test_jit_forms():
    @sstad.jit
    def bare(x):
        return x + 1.0

    @sstad.jit(backend="python")
    def configured(x):
        return x + 2.0
    assert bare(1.0) == 2.0 and configured(1.0) == 3.0
    with pytest.raises(ValueError):
        sstad.jit(cases.promote, backend="tpu")


def test_verifier_rejects_a_use_before_definition():
    module, *_ = lower(cases.promote, (np.ones(2),))
    verify_module(module)
    body = module.entry.body
    stray = ir.Var("stray", A.F64)
    body.results = [stray]
    with pytest.raises(VerificationError, match="stray"):
        verify_module(module)


def test_verifier_rejects_a_wrong_type():
    module, *_ = lower(cases.promote, (np.ones(2),))
    module.entry.body.stmts[0].outs[0].type = A.Array(np.dtype(np.int64), 1)
    with pytest.raises(VerificationError):
        verify_module(module)


def test_dce_drops_an_unused_loop_carried_value():
    args = (np.ones(4), 4)
    before = sstad.dump(cases.dead_carry, *args, after="lowering")
    after = sstad.dump(cases.dead_carry, *args, emit="ir")
    assert "unused" in before and "unused" not in after
    assert sstad.jit(cases.dead_carry)(*args) == 4.0


def test_printing_is_stable():
    args = (np.ones(4), 4)
    assert sstad.dump(cases.dead_carry, *args) == sstad.dump(cases.dead_carry, *args)


def test_emitted_python_cites_each_source_line():
    text = sstad.dump(cases.dead_carry, np.ones(4), 4, emit="python")
    for line in ("for i in range(n):", "total = total + x[i]"):
        assert re.search(rf"# semantics_cases\.py:\d+  {re.escape(line)}", text), text


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name, args", [
    ("transpose_axes", (np.arange(6.0).reshape(2, 3),)),
    ("straight_line_append", (np.array([1.0, 2.0]),)),
    ("nested_default", (1.5,)),
])
def test_small_programs_match_python(backend, name, args):
    fn = getattr(cases, name)
    np.testing.assert_allclose(sstad.jit(fn, backend=backend)(*args), fn(*args))


@pytest.mark.parametrize("backend", BACKENDS)
def test_changing_a_global_number_recompiles(backend, monkeypatch):
    f = sstad.jit(cases.reads_global_number, backend=backend)
    assert f(1.0) == 2.0
    monkeypatch.setattr(cases, "SCALE", 5.0)
    assert f(1.0) == 5.0
