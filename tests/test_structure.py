"""The shape of the code: imports point one way (sstad -> runtime -> kernels), the AD
modules form no circle, and primitive properties live on the primitive records."""
import ast
import pathlib
import re

from sstad.runtime.primitive import PRIMITIVES

ROOT = pathlib.Path(__file__).resolve().parent.parent


def imported_modules(path):
    """Every ``sstad...`` module a file imports, at the top or inside a function."""
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sstad"):
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("sstad"))
    return out


def test_the_ad_modules_import_no_circle():
    modules = {f"sstad.ad.{p.stem}": p for p in (ROOT / "sstad" / "ad").glob("*.py") if p.stem != "__init__"}
    graph = {m: {i for i in imported_modules(p) if i in modules} for m, p in modules.items()}
    state = {}

    def visit(m, path):
        if state.get(m) == "open":
            raise AssertionError("import circle: " + " -> ".join(path + [m]))
        if state.get(m) == "done":
            return
        state[m] = "open"
        for n in graph[m]:
            visit(n, path + [m])
        state[m] = "done"
    for m in graph:
        visit(m, [])


def test_runtime_and_kernels_never_import_the_compiler():
    """(``sstad.errors``, the exception classes, is shared by both sides.)"""
    for folder in ("runtime", "kernels"):
        for path in (ROOT / folder).glob("*.py"):
            compiler = {m for m in imported_modules(path)
                        if not m.startswith(("sstad.runtime", "sstad.kernels", "sstad.errors"))}
            assert not compiler, (path.name, compiler)


def test_passes_and_transforms_ask_primitive_records_not_name_sets():
    """Properties (view, may_alias, multilinear, shape_only, effect, reads_list) are
    declared next to each primitive; passes and the AD sweeps hold no sets of primitive
    names."""
    for folder in ("passes", "ad"):
        for path in (ROOT / "sstad" / folder).glob("*.py"):
            text = path.read_text()
            sets = re.findall(r"^[A-Z_]+ = (?:set|frozenset)?\(?[{(]\s*\"([a-z_.]+)\"", text, re.M)
            named = [s for s in sets if s in PRIMITIVES]
            assert not named, (path.name, named)


def test_primitives_with_effects_have_type_rules_that_do_not_run_them():
    """Type inference never runs an implementation with side effects (a collective)."""
    import pytest

    from sstad.runtime.primitive import PRIMITIVES, Primitive, by_prototype, declare
    effectful = [p for p in PRIMITIVES.values() if p.effect]
    assert effectful and not any(getattr(p.infer, "runs_impl", False) for p in effectful)
    Primitive("test.send", print, by_prototype(print), lambda args, params, avals: "")
    try:
        with pytest.raises(ValueError, match="has effects"):
            declare("test.send", effect=True)
    finally:
        PRIMITIVES.pop("test.send")
