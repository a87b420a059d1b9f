"""sstad.testing: check_grads catches wrong derivatives and passes right ones; the program
generator reaches every construct it claims; a bounded fuzzing campaign."""
import collections
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed

import sstad
from sstad.runtime.primitive import PRIMITIVES
from sstad.testing import NotSmoothError, check_grads
from sstad.testing import trees as T
from sstad.testing.strategies import CALL_FORMS, CONSTRUCTS, Program, arrays, programs, pytrees


def loss(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s = s + w * x[i] ** 2
        else:
            s = s - np.sin(w * x[i])
    return s


def tree_fn(p, x):
    h = np.tanh(p["W"] @ x + p["b"])
    return {"out": np.sum(h * h) * p["scale"], "h": h}, [x * 2.0]


def with_int(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(np.sin(x * i))
    return s


def sines(x):
    return np.sum(np.sin(x) * x)


def kink(x):
    return np.sum(np.abs(x))


def single(x):
    return np.sin(x) * 3.0


def wrong_sin_rule(x, out, dout):
    """A deliberately wrong rule: d sin = sin (should be cos)."""
    return (dout * np.sin(x),)


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


X = np.array([0.3, -1.2, 0.8])


@pytest.mark.parametrize("modes", [("rev",), ("fwd",), ("fwd", "rev")])
def test_passes_on_correct_functions(modes):
    quiet(check_grads, loss, (0.7, X), modes=modes, backend="python")
    p = {"W": np.arange(6.0).reshape(2, 3) / 5, "b": np.array([0.1, -0.2]), "scale": 1.5}
    quiet(check_grads, tree_fn, (p, X), modes=modes, backend="python")
    quiet(check_grads, with_int, (X, 3), modes=modes, backend="python")


def test_float32_tolerances():
    quiet(check_grads, sines, (X.astype(np.float32),), backend="python")


def test_numba_backend():
    quiet(check_grads, sines, (X,), backend="numba")


def test_wrong_rule_fails_with_an_actionable_report(monkeypatch):
    monkeypatch.setattr(PRIMITIVES["sin"], "vjp", wrong_sin_rule)
    with pytest.raises(AssertionError) as info:
        quiet(check_grads, sines, (X,), modes=("rev",), backend="python")
    text = str(info.value)
    assert "order 1, mode 'rev'" in text
    assert "args[0] (`x`)" in text and "MISMATCH" in text
    assert "gradient of <u, f> by differences" in text
    assert "sstad.dump(sstad.grad(sines), *args, emit='python')" in text
    assert "--grad" in text


def test_wrong_vjp_result_fails(monkeypatch):
    """A pullback that returns twice the cotangent (monkeypatched) is caught."""
    real = sstad.pullback

    class Doubled:
        def __init__(self, f):
            self.inner = real(f)

        def __call__(self, *args):
            return T.map_floats(self.inner(*args), lambda leaf, k: leaf * 2)

    monkeypatch.setattr(sstad, "pullback", Doubled)
    monkeypatch.setattr(sstad, "jit", lambda f, backend="numba": f)
    with pytest.raises(AssertionError, match="vjp dot-product test"):
        quiet(check_grads, single, (X,), modes=("rev",), backend="python", check_value=False)


def test_wrong_jvp_fails(monkeypatch):
    """A pushforward whose tangent is the value itself (monkeypatched) is caught."""
    monkeypatch.setattr(sstad, "pushforward", lambda f: lambda x, dx: (f(x), f(x)))
    monkeypatch.setattr(sstad, "jit", lambda f, backend="numba": f)
    with pytest.raises(AssertionError, match="mode 'fwd'"):
        quiet(check_grads, single, (X,), modes=("fwd",), backend="python")


def cube_fwd(x):
    return x * x * x, x


def cube_bwd(x, dout):
    return (dout * x,)          # deliberately wrong: should be 3 x**2 dout


def _cube(x):
    return x * x * x


cube = sstad.custom_vjp(_cube)
cube.defvjp(cube_fwd, cube_bwd)


def uses_cube(x):
    return np.sum(cube(x))


def test_wrong_custom_vjp_fails():
    with pytest.raises(AssertionError, match="mode 'rev'"):
        quiet(check_grads, uses_cube, (X,), modes=("rev",), backend="python")
    with pytest.raises(AssertionError, match="mode 'fwd'"):   # forward mode transposes the same rule
        quiet(check_grads, uses_cube, (X,), modes=("fwd",), backend="python")


def test_kinks_are_reported_not_failed():
    with pytest.raises(NotSmoothError):
        quiet(check_grads, kink, (np.array([0.0, 1.0]),), backend="python")
    quiet(check_grads, kink, (np.array([0.5, -1.0]),), backend="python")


def test_second_order():
    quiet(check_grads, sines, (X,), order=2, modes=("fwd", "rev"), backend="python")


def test_pytree_helpers():
    tree = ({"a": np.ones(2), "n": 3}, [1.5, np.float32(2.0)])
    assert len(T.float_leaves(tree)) == 3
    moved = T.axpy(tree, T.random_like(tree, np.random.default_rng(0)), 0.1)
    assert moved[0]["n"] == 3 and isinstance(moved[1][1], np.float32)
    assert T.inner(tree, tree) == pytest.approx(2 + 2.25 + 4)


@settings(max_examples=20, deadline=None)
@given(arrays(), pytrees())
def test_array_and_pytree_strategies(a, tree):
    assert a.dtype.kind == "f" and np.all(np.abs(a) <= 2.0)
    assert all(np.all(np.isfinite(np.asarray(leaf))) for leaf in T.float_leaves(tree))


def seeded_rounds(body, wanted, seen, rounds=2):
    """Draw 400 programs per round (seeds 0, 1, ...) until every one of ``wanted`` is seen:
    a rare form missed by one fixed seed is not a generator bug; missed by all, it is."""
    for seed in range(rounds):
        hypothesis_seed(seed)(settings(max_examples=400, deadline=None, database=None,
                                       suppress_health_check=list(HealthCheck))(given(programs())(body)))()
        if all(seen[c] for c in wanted):
            return []
    return [c for c in wanted if not seen[c]]


def test_generator_reaches_every_construct():
    seen = collections.Counter()

    def draw(program):
        assert isinstance(program, Program)
        compile(program.source, "<program>", "exec")
        seen.update(program.constructs)
    missing = seeded_rounds(draw, CONSTRUCTS, seen)
    assert not missing, f"never generated: {missing}"


def test_generator_reaches_numpy_call_forms():
    """400 programs reach every call form drawn from NumPy's signatures (CALL_FORMS):
    positional and keyword parameters, methods, None/negative/tuple axes, keepdims, ddof,
    norm orders, offsets, roll and transpose axes, stacks for linear algebra, lists of
    arrays, writes through views, sstad.grad inside the program; and every form is one
    NumPy accepts (the program runs)."""
    seen, ran = collections.Counter(), collections.Counter()
    refused = []

    def draw(program):
        seen.update(program.constructs)
        if "sig_call" in program.constructs and ran.update(["sig_call"]) is None and ran["sig_call"] <= 80:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    program.fn(*program.args)
            except Exception as exc:  # noqa: BLE001 - any NumPy refusal is a generator bug
                refused.append(f"{exc!r}\n{program}")
    missing = seeded_rounds(draw, CALL_FORMS, seen)
    assert not missing, f"never generated: {missing}"
    assert seen["sig_call"] >= 100 and seen["batch_linalg"] >= 10 and seen["method_call"] >= 10
    assert not refused, "NumPy refused a generated program:\n" + "\n".join(refused)


def test_program_repr_is_its_source():
    @settings(max_examples=1, deadline=None, database=None)
    @given(programs())
    def one(program):
        assert str(program).startswith(program.source)
        assert "# args: f(" in repr(program)
        assert program.fn.__name__ == "f"
    one()


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(max_statements=3))
def test_generated_programs_users_style(program):
    """How a user runs the strategies in their own tests (known findings tolerated)."""
    from sstad.testing.fuzz import classify
    from test_fuzz_regressions import KNOWN
    outcome, sig, text = classify(program)
    assert outcome in ("passed", "not_smooth") or any(k in sig for k in KNOWN), f"{sig}\n{text}"


def test_bounded_campaign():
    """What CI runs: ~100 derandomized programs (python backend, one on numba); every
    failure must be a known one (tests/test_fuzz_regressions.py, KNOWN).  `make fuzz`
    runs longer campaigns."""
    from sstad.testing.fuzz import Campaign
    from test_fuzz_regressions import KNOWN
    campaign = Campaign(100, seed=0, numba=1, shrink=False, program_kwargs=dict(max_statements=3)).run()
    assert campaign.totals["generated"] >= 75
    assert campaign.totals["passed"] >= 0.5 * campaign.totals["generated"]
    new = {s: n for s, n in campaign.by_signature.items() if not any(k in s for k in KNOWN)}
    assert not new, "new fuzzing failures:\n" + "\n".join(
        f"{n}x {s}\n{campaign.first[s][0]}" for s, n in new.items())


pytest_plugins = ["sstad.testing.pytest_plugin"]


def test_plugin_fixture(check_grads, sstad_backend):
    assert sstad_backend == "python"
    quiet(check_grads, sines, (X,), modes=("rev",))
