"""Compile work grows linearly with a function's size: long functions are outlined into
parts of bounded size for Numba (its time grows faster than one function's size), the
parts compute what the whole function computes, the work of each phase per statement
stays bounded from 30 to 300 statements (counted, not timed), Numba compiles each
distinct elementwise expression once, not once per statement, and each part and kernel
once, not again inside each caller."""
import collections
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sstad
from sstad.api import Compiled
from sstad.backend.base import BACKENDS, get_backend, register
from sstad.backend.loader import emitted_functions
from sstad.backend.numba_linking import CALLEE_MARK, GLUE_MARK
from sstad.backend.targets import PythonBackend
from sstad.ir import nodes as ir
from sstad.ir.outline import outline_module, weight
from sstad.ir.verify import verify_module

from fd import check_gradient

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
from compile_program import program  # noqa: E402

ARGS = (np.linspace(0.1, 1.0, 7), np.linspace(-1.0, 1.0, 7), 0.3)


def load_program(statements, tmp_path):
    path = tmp_path / f"generated_{statements}.py"
    path.write_text(program(statements))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.objective


class PartsBackend(PythonBackend):
    """The python backend with the numba backend's outlining, at a small size."""
    name = "python-parts"
    outline = 12


@pytest.fixture(scope="module")
def parts():
    backend = register(PartsBackend())
    yield backend
    BACKENDS.pop(backend.name)


def test_outlined_parts_compute_what_the_whole_function_computes(tmp_path, parts):
    f = load_program(40, tmp_path)
    whole = sstad.jit(sstad.grad(f, argnums=(0, 2)), backend="python")(*ARGS)
    outlined = sstad.jit(sstad.grad(f, argnums=(0, 2)), backend="python-parts")
    assert outlined(*ARGS)[1] == whole[1]
    np.testing.assert_array_equal(outlined(*ARGS)[0], whole[0])
    source = next(iter(outlined._compiled.values())).source(parts)
    assert len(emitted_functions(source)) > 10


def writes_in_a_loop(x):
    y = np.zeros_like(x)
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            y[i] = np.sin(x[i]) * s + np.cos(s) * x[i]
        else:
            y[i] = x[i] * x[i] - s
        s += y[i] * 0.5
        s = s * np.tanh(s) + y[i]
    z = y * x
    z[0] = s
    return np.sum(z * z) + s


def test_outlined_parts_see_in_place_writes_and_loops(parts):
    x = np.linspace(-1.0, 2.0, 9)
    expected = sstad.jit(sstad.grad(writes_in_a_loop), backend="python")(x)
    outlined = sstad.jit(sstad.grad(writes_in_a_loop), backend="python-parts")
    np.testing.assert_array_equal(outlined(x), expected)
    source = next(iter(outlined._compiled.values())).source(parts)
    assert "    for i in range(" in source.split("def writes_in_a_loop_grad(")[0]     # the loop in a part


def largest_part(module):
    return max(sum(weight(s, {}) if not ir.regions(s) else 1 for s in ir.walk(f.body)) for f in module.functions)


def work(statements, tmp_path, counted):
    """{what: how many} for compiling the gradient of a ``statements``-line function."""
    calls = collections.Counter()
    originals = {}
    for module, name in counted:
        fn = getattr(module, name)
        originals[module, name] = fn

        def counting(*args, _fn=fn, _name=name, **kwargs):
            calls[_name] += 1
            return _fn(*args, **kwargs)
        setattr(module, name, counting)
    try:
        compiled = Compiled(sstad.grad(load_program(statements, tmp_path)), ARGS)
        text = compiled.source("numba")
    finally:
        for (module, name), fn in originals.items():
            setattr(module, name, fn)
    outlined = outline_module(compiled.module, get_backend("numba").outline)
    verify_module(outlined)
    calls["emitted lines"] = len(text.splitlines())
    calls["largest function"] = largest_part(outlined)
    calls["kernels"] = len(emitted_functions(text)) - len(outlined.functions)
    calls["kernel calls"] = text.count("ew")
    return calls


def test_compile_work_per_statement_is_bounded(tmp_path):
    from sstad.frontend import builder
    from sstad.ir import nodes
    counted = [(nodes, "walk"), (builder, "same_value")]
    small, large = work(30, tmp_path, counted), work(300, tmp_path, counted)
    # ten times the statements: linear work is about ten times as much, quadratic a hundred
    for what in ("walk", "same_value", "emitted lines"):
        assert large[what] <= 20 * small[what], (what, small[what], large[what])
    # what Numba compiles as one function does not grow with the function
    assert large["largest function"] <= 2 * get_backend("numba").outline
    # nor does the number of elementwise kernels, one per distinct expression
    assert small["kernels"] >= 10 and large["kernels"] <= 2 * small["kernels"], (small, large)
    assert large["kernel calls"] >= 30 * large["kernels"], large


def repeated(x, y):
    a = x * y + 1.0
    b = a * y + 1.0
    c = b * a + 1.0
    return np.sum(c * b + 1.0) + np.sum(c - 2.0)


def test_numba_compiles_each_distinct_expression_once(monkeypatch, tmp_path):
    from numba.core.registry import cpu_target
    from numba.np.ufunc import array_exprs
    special = cpu_target.target_context.special_ops
    lower = special.get("arrayexpr", array_exprs._lower_array_expr)
    lowered = []

    def counting(lowerer, expr):
        lowered.append(expr)
        return lower(lowerer, expr)
    monkeypatch.setitem(special, "arrayexpr", counting)
    monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path))      # compiled afresh
    x, y = np.linspace(0.0, 1.0, 5), np.linspace(1.0, 2.0, 5)
    assert sstad.jit(repeated, backend="numba")(x, y) == pytest.approx(repeated(x, y), rel=1e-14)
    source = sstad.dump(repeated, x, y, emit="numba")
    assert source.count("ew1(") == 5 and "ew3(" not in source, source     # four calls of one kernel
    assert len(lowered) == 2        # `v0 * v1 + 1.0` once, and `c - 2.0` (used once: no kernel)


def in_a_loop(x, y):
    for _ in range(3):
        x = x * x + 1.0
        x = x * x + 1.0
    return np.sum(x * x + 1.0) + np.sum(y * y + 1.0)


def test_loops_keep_their_expressions():
    """A kernel call in a loop would cost run time in each iteration."""
    source = sstad.dump(in_a_loop, np.ones(3), np.ones(3), emit="numba")
    loop = source[source.index("    for "):source.rindex("    # ")]
    code = [line for line in loop.splitlines() if not line.strip().startswith("#")]
    assert not re.search(r"\bew[0-9]+\(", loop) and sum(" + 1.0" in line for line in code) == 2, source
    assert source.count("ew1(") == 3, source        # its definition, then x's and y's


LINKED = textwrap.dedent('''
    import json, re, sys
    import numpy as np, sstad
    from sstad.backend.base import get_backend
    sys.path.insert(0, sys.argv[1])
    get_backend("numba").outline = 6                  # parts that call kernels
    from linked_program import repeated
    x, y = np.linspace(0.0, 1.0, 5), np.linspace(1.0, 2.0, 5)
    value = sstad.jit(sstad.grad(repeated), backend="numba")(x, y)
    module = next(m for n, m in sys.modules.items() if n.startswith("sstad_generated."))
    functions = [f for f in vars(module).values() if hasattr(f, "_cache_misses")]
    llvm = sstad.dump(sstad.grad(repeated), x, y, emit="llvm")       # the entry's module
    print(json.dumps({"value": value.tolist(), "functions": len(functions),
                      "misses": sum(sum(f._cache_misses.values()) for f in functions),
                      "declared": sorted(set(re.findall(r"^declare .*(_part[0-9]+|ew[0-9]+)", llvm, re.M))),
                      "defined": sorted(set(re.findall(r"^define .*(_part[0-9]+|ew[0-9]+)", llvm, re.M)))}))
''')


def test_parts_and_kernels_are_compiled_once_and_called_by_symbol(tmp_path):
    """Numba would link every callee's code into its caller and compile it again there;
    the caller's code declares them instead, and a new process loads each from the
    disk cache before its callers (or compiles again where one is missing)."""
    (tmp_path / "linked_program.py").write_text("import numpy as np\n\n\n" + inspect.getsource(repeated))
    cache = tmp_path / "cache"

    def run():
        out = subprocess.run([sys.executable, "-c", LINKED, str(tmp_path)], capture_output=True, text=True,
                             env=dict(os.environ, SSTAD_CACHE_DIR=str(cache)), timeout=300)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    x, y = np.linspace(0.0, 1.0, 5), np.linspace(1.0, 2.0, 5)
    expected = sstad.jit(sstad.grad(repeated), backend="python")(x, y).tolist()
    first = run()                                     # compiled
    assert first["value"] == expected and first["misses"] == first["functions"] >= 4, first
    assert "_part1" in first["declared"] and not first["defined"], first      # no part's code
    again = run()
    assert again["value"] == expected and again["misses"] == 0, again     # all from the disk cache
    for path in (cache / "__pycache__").glob("*.ew1-*"):
        path.unlink()                                 # a kernel's entry removed
    last = run()                # the kernel and its callers compiled again, the rest loaded
    assert last["value"] == expected and 2 <= last["misses"] < last["functions"], last


NESTED = textwrap.dedent('''
    import sys
    import numpy as np, sstad

    def euler(x, w):
        y, t = x.copy(), 0.0
        while t < 1.0:
            y = y + 0.1 * np.sin(w * y) * y
            t = t + 0.1
        return np.sum(y * y)

    inner = sstad.grad(euler)

    def outer(x, w):
        h = x.copy()
        for i in range(3):
            h = h + 0.1 * inner(h, w)
        return np.sum(h * h)

    x = np.array([0.3, -0.8, 0.5, 1.1, -0.2])
    print(repr(sstad.jit(sstad.grad(outer, argnums=1), backend="numba")(x, 0.7)))
''')


def test_a_cached_entry_loads_the_callees_of_the_functions_linked_into_it(tmp_path):
    """The inner gradient's pullback is linked into the outer gradient's code and calls a
    kernel the outer code does not call itself: a new process that loads the entry from
    the disk cache must load that kernel too (it jumped to an unresolved symbol)."""
    (tmp_path / "nested_program.py").write_text(NESTED)
    env = dict(os.environ, SSTAD_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, str(tmp_path / "nested_program.py")], capture_output=True,
                           text=True, env=env, timeout=300) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr
    assert runs[0].stdout == runs[1].stdout


def test_only_parts_without_loops_are_optimised_as_glue(monkeypatch):
    """LLVM's -O1 for a straight-line part (calls and short expressions); a part that
    holds a loop, and every kernel, keeps -O3."""
    monkeypatch.setattr(get_backend("numba"), "outline", 6)
    source = sstad.dump(sstad.grad(writes_in_a_loop), np.linspace(-1.0, 2.0, 9), emit="numba")
    marked = re.findall(rf"^({CALLEE_MARK}|{GLUE_MARK})\ndef (\w+)\((.*?)(?=^\S)", source, re.M | re.S)
    parts = {name: (mark, "    for " in body) for mark, name, body in marked if "_part" in name}
    assert any(loop for _, loop in parts.values()) and not all(loop for _, loop in parts.values()), parts
    assert all((mark == CALLEE_MARK) == loop for mark, loop in parts.values()), parts
    assert all(mark == CALLEE_MARK for mark, name, _ in marked if name.startswith("ew")), marked


def accumulates(x, y):
    a = x * y
    b = a * x + y
    c = b * y - x * a
    return np.sum(c * a) + np.sum(b * x)


def test_in_place_updates_outside_loops_are_shared_kernels(monkeypatch, tmp_path):
    """Reverse mode adds each use's part of an adjoint in place (``dx += e``); Numba
    lowers each such update as a loop of its own, so they are kernels too, and compute
    bit for bit what the updates written in place compute."""
    x, y = np.linspace(0.1, 1.0, 6), np.linspace(1.0, 2.0, 6)
    grad = sstad.grad(accumulates, argnums=(0, 1))
    source = sstad.dump(grad, x, y, emit="numba")
    updates = re.findall(r"^def (ew[0-9]+)\(v0, v1\):\n    v0 [-+*/]= v1$", source, re.M)
    assert updates, source
    code = [line for line in source.splitlines() if not line.lstrip().startswith(("#", "v0 "))]
    assert not any(re.match(r"\s+\w+ [-+*/]= ", line) for line in code), source      # every one a call
    assert sum(re.search(rf"\b{name}\(d", source) is not None for name in updates) == len(updates), source
    monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path / "kernels"))
    shared = sstad.jit(grad, backend="numba")(x, y)
    check_gradient(accumulates, (x, y), shared, np.random.default_rng(0))
    monkeypatch.setattr(type(get_backend("numba")), "kernels", False)
    monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path / "inline"))
    assert "ew1(" not in sstad.dump(grad, x, y, emit="numba")
    inline = sstad.jit(grad, backend="numba")(x, y)
    assert all(np.array_equal(a, b) for a, b in zip(shared, inline)), (shared, inline)


def test_straight_line_code_is_compiled_to_machine_code_at_O0(monkeypatch, tmp_path):
    """Straight-line parts and the entry that calls them get machine code from a target
    machine at -O0 (its code is what the JIT loads); kernels and parts with loops keep
    the JIT's -O3."""
    from sstad.backend.numba_linking import GlueEntryLibrary, GlueLibrary, SymbolLibrary
    monkeypatch.setattr(get_backend("numba"), "outline", 6)
    monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path))
    x, y = np.linspace(0.0, 1.0, 5), np.linspace(1.0, 2.0, 5)
    value = sstad.jit(sstad.grad(repeated), backend="numba")(x, y)
    assert np.allclose(value, sstad.jit(sstad.grad(repeated), backend="python")(x, y), rtol=1e-14, atol=0)
    module = next(m for name, m in sys.modules.items()
                  if name.startswith("sstad_generated.") and "repeated_grad_part1" in vars(m))
    libraries = {name: type(cres.library) for name, f in vars(module).items() if hasattr(f, "overloads")
                 for cres in f.overloads.values()}
    assert libraries["repeated_grad"] is GlueEntryLibrary, libraries
    assert {libraries[n] for n in libraries if "_part" in n} == {GlueLibrary}, libraries
    assert {libraries[n] for n in libraries if n.startswith("ew")} == {SymbolLibrary}, libraries
    for name, f in vars(module).items():
        for cres in getattr(f, "overloads", {}).values():
            if isinstance(cres.library, (GlueLibrary, GlueEntryLibrary)):
                code = cres.library._get_compiled_object()       # what the disk cache keeps
                assert isinstance(code, bytes) and len(code) > 1000, name
