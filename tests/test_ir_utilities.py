"""Unit tests of the IR utilities on hand-built IR: alias analysis, escape, clone,
liveness, and the emitter (whose output must run)."""
import numpy as np

from sstad.backend.base import get_backend
from sstad.backend import targets  # noqa: F401
from sstad.backend.python import emit_module
from sstad.ir import nodes as ir
from sstad.ir.alias import versions, written_memory, writes_in_place
from sstad.ir.clone import clone_block, inline
from sstad.ir.escape import export_escaping
from sstad.ir.verify import verify_module
from sstad.runtime import abstract as A
from sstad.runtime.primitive import Slot, lookup

F64 = A.Scalar(np.dtype(np.float64))
VEC = A.Array(np.dtype(np.float64), 1)
BOOL = A.Scalar(np.dtype(np.bool_))


def apply(name, args, out_type, params=None, hint="t"):
    out = ir.Var(hint, out_type)
    return ir.Apply([out], lookup(name), list(args), dict(params or {})), out


def setitem(x, value, index):
    """``x[index] = value`` as an in-place statement: a new version of ``x``."""
    out = ir.Var(x.hint, x.type)
    return ir.Apply([out], lookup("setitem"), [x, value], {"index": (index,)}), out


def test_versions_follow_writes_and_loops_but_not_copies():
    x = ir.Var("x", VEC)
    write, x1 = setitem(x, ir.Const(1.0), 0)
    copy, y = apply("copy", [x1], VEC, {"layout": ((Slot(0),), {})}, "y")
    p, out = ir.Var("x", VEC), ir.Var("x", VEC)
    i = ir.Var("i", A.I64)
    inner, p1 = setitem(p, ir.Const(2.0), 1)
    loop = ir.For([out], [x1], ir.Const(0), ir.Const(3), ir.Const(1), ir.Block([i, p], [inner], [p1]))
    block = ir.Block([x], [write, copy, loop], [out, y])
    assert versions(block, x) == {x, x1, p, p1, out}
    assert y not in written_memory(block) and x in written_memory(block)
    assert writes_in_place(block)


def test_liveness():
    x = ir.Var("x", F64)
    s1, a = apply("op.mul", [x, x], F64, hint="a")
    s2, b = apply("op.add", [a, ir.Const(1.0)], F64, hint="b")
    s3, c = apply("op.mul", [b, x], F64, hint="c")
    block = ir.Block([x], [s1, s2, s3], [c])
    last = ir.last_uses(block)
    assert last[x] == 2 and last[a] == 1 and last[b] == 2 and last[c] == 3
    assert ir.live_after(block, 0) == {x, a}
    assert ir.live_after(block, 1) == {x, b}
    assert ir.live_after(block, 2) == {c}


def test_clone_gives_fresh_variables_and_inline_binds_parameters():
    x = ir.Var("x", F64)
    s1, a = apply("op.mul", [x, x], F64, hint="a")
    block = ir.Block([x], [s1], [a])
    subst = {}
    copy = clone_block(block, subst)
    assert copy.params[0] is not x and copy.stmts[0].outs[0] is not a
    assert copy.stmts[0].args == [copy.params[0]] * 2 and copy.results == [subst[a]]
    fn = ir.Function("square", [x], block)
    into = []
    z = ir.Var("z", F64)
    (result,) = inline(fn, [z], into)
    assert into[0].args == [z, z] and result is into[0].outs[0]


def test_escape_exports_a_branch_value_read_after_the_branch():
    x = ir.Var("x", F64)
    test, c = apply("op.gt", [x, ir.Const(0.0)], BOOL, hint="c")
    inside, y = apply("op.mul", [x, ir.Const(2.0)], F64, hint="y")
    branch = ir.If([], c, ir.Block([], [inside], []), ir.Block([], [], []))
    after, z = apply("op.add", [y, ir.Const(1.0)], F64, hint="z")     # reads y outside its branch
    fn = ir.Function("f", [x], ir.Block([x], [test, branch, after], [z]))
    export_escaping(fn)
    (out,) = branch.outs
    assert after.args[0] is out and branch.then.results == [y]
    assert isinstance(branch.orelse.results[0], ir.Undef)


def test_the_emitter_writes_code_that_runs_on_each_backend():
    x = ir.Var("x", VEC)
    s1, e = apply("exp", [x], VEC, {"layout": ((Slot(0),), {})}, "e")
    s2, m = apply("op.mul", [e, ir.Const(2.0)], VEC, hint="m")
    s3, t = apply("sum", [m], F64, {"axis": None}, "t")
    module = ir.Module([ir.Function("f", [x], ir.Block([x], [s1, s2, s3], [t]))])
    verify_module(module)
    for name in ("python", "numba"):
        backend = get_backend(name)
        source = emit_module(module, name)
        f = backend.load(source, module, f"unit_{name}")
        assert np.isclose(f(np.arange(3.0)), 2 * np.exp(np.arange(3.0)).sum())
    assert "m = (rt.ufunc_loops.exp(x)) * 2.0" in emit_module(module, "numba")      # fused, NumPy's loop
    assert "e = np.exp(x)" in emit_module(module, "python")           # one primitive per line
