"""Every example in the documentation runs, so none can go stale.

* README.md and docs/*.md: the ```python blocks of a file run in order in one namespace,
  from a file whose line numbers are the markdown's (sstad reads a function's source from
  its file); every line of a ```sh block is an `sstad ...` command and runs.  ```text
  blocks are output and diagrams.  A block right after a line `<!-- not run: REASON -->`
  is skipped; a fence without a language is refused.
* Docstrings in sstad: `>>>` examples run as doctests; a literal block after a line ending
  in "in a ``.py`` file::" (what sstad compiles must be defined in a file) runs as a file
  of its own, with the docstring's line numbers.
* Functions defined in IPython/Jupyter cells compile (the README says so).
"""
import ast
import doctest
import importlib
import os
import pathlib
import pkgutil
import re
import shlex
import textwrap

import pytest

import sstad
from sstad import cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = ("python", "sh", "text")
NOT_RUN = re.compile(r"<!-- not run: \S.* -->")


def markdown_blocks(path):
    """(language, first line number, lines, skipped) of each fenced block."""
    lines = path.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        fence = re.match(r"^```(.*)$", lines[i])
        if not fence:
            i += 1
            continue
        start = i + 1
        end = next(j for j in range(start, len(lines)) if lines[j].startswith("```"))
        skipped = i > 0 and NOT_RUN.fullmatch(lines[i - 1].strip()) is not None
        blocks.append((fence.group(1).strip(), start + 1, lines[start:end], skipped))
        i = end + 1
    return blocks


def padded_file(path, blocks, total_lines):
    """A .py file with each block at its own line numbers and blank lines elsewhere."""
    text = [""] * total_lines
    for first, lines in blocks:
        text[first - 1:first - 1 + len(lines)] = lines
    path.write_text("\n".join(text) + "\n")
    return path


def run_python_blocks(blocks, source_path, total_lines, where, namespace):
    script = padded_file(source_path, blocks, total_lines)
    for first, lines in blocks:
        code = compile("\n" * (first - 1) + "\n".join(lines) + "\n", str(script), "exec")
        try:
            exec(code, namespace)
        except Exception as exc:
            raise AssertionError(f"the block at {where}:{first} fails: {type(exc).__name__}: {exc}") from exc


def test_every_markdown_file_is_covered():
    names = {p.name for p in MARKDOWN}
    assert {"README.md", "ad.md", "architecture.md", "performance.md", "subset.md", "testing.md"} <= names


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_markdown_code_blocks_run(path, tmp_path, monkeypatch, capsys):
    blocks = markdown_blocks(path)
    where = path.relative_to(ROOT)
    for language, first, _, _ in blocks:
        assert language in LANGUAGES, (
            f"{where}:{first - 1}: a code block needs a language ({', '.join(LANGUAGES)}), not {language!r}")
    monkeypatch.chdir(ROOT)
    python = [(first, lines) for language, first, lines, skipped in blocks if language == "python" and not skipped]
    run_python_blocks(python, tmp_path / (path.name.replace(".", "_") + ".py"),
                      len(path.read_text().splitlines()), where, {"__name__": f"doc_{path.stem}"})
    for language, first, lines, skipped in blocks:
        if language != "sh" or skipped:
            continue
        for number, line in enumerate(lines, first):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            argv = shlex.split(line, comments=True)
            assert argv[0] == "sstad", (f"{where}:{number}: only `sstad` commands run; mark the block "
                                        "with <!-- not run: REASON --> if it must not")
            status = cli.main(argv[1:])
            assert status == 0, f"{where}:{number}: {line}\n{capsys.readouterr().err}"
    capsys.readouterr()


# ---------------------------------------------------------------------------------------
# docstrings

def sstad_modules():
    names = []
    for package in (sstad, importlib.import_module("sstad.runtime"), importlib.import_module("sstad.kernels")):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return [n for n in sorted(set(names)) if n != "sstad.__main__"]     # which would run the command


MODULES = sstad_modules()


FILE_EXAMPLE = "in a ``.py`` file::"


def literal_blocks(source):
    """(first line, lines) of each file example (a literal block after a line ending in
    FILE_EXAMPLE) in the docstrings of a module's source."""
    lines = source.splitlines()
    blocks = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if not (node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
                and isinstance(node.body[0].value.value, str)):
            continue
        doc = node.body[0].value
        i = doc.lineno - 1
        while i < doc.end_lineno - 1:
            if not lines[i].rstrip().endswith(FILE_EXAMPLE):
                i += 1
                continue
            indent = len(lines[i]) - len(lines[i].lstrip())
            j = i + 1
            while j < doc.end_lineno - 1 and (not lines[j].strip() or
                                               len(lines[j]) - len(lines[j].lstrip()) > indent):
                j += 1
            body = lines[i + 1:j]
            while body and not body[-1].strip():
                body.pop()
            start = next(k for k, line in enumerate(body) if line.strip())
            blocks.append((i + 2 + start, textwrap.dedent("\n".join(body[start:])).splitlines()))
            i = j
    return sorted(blocks)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, tmp_path):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder(exclude_empty=True).find(module, name):
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} doctest(s) of {name} fail (printed above)"
    source_file = pathlib.Path(module.__file__)
    source = source_file.read_text()
    blocks = literal_blocks(source)
    for first, lines in blocks:         # each example on its own
        run_python_blocks([(first, lines)], tmp_path / f"{name.replace('.', '_')}_{first}.py",
                          len(source.splitlines()), source_file.relative_to(ROOT.parent)
                          if ROOT.parent in source_file.parents else source_file, {"__name__": f"doc_{first}"})


def test_the_docstrings_have_examples():
    """The public functions keep theirs."""
    for fn in (sstad.jit, sstad.dump, sstad.grad, sstad.vjp, sstad.jvp):
        assert FILE_EXAMPLE in fn.__doc__ or ">>>" in fn.__doc__, fn.__name__


def test_literal_blocks_are_found_with_their_line_numbers():
    source = ('def f():\n    """Doc.\n\n    Example, in a ``.py`` file::\n\n        x = 1\n        if x:\n'
              '            y = 2\n\n    After::\n\n        not run\n    """\n')
    assert literal_blocks(source) == [(6, ["x = 1", "if x:", "    y = 2"])]


# ---------------------------------------------------------------------------------------
# IPython / Jupyter cells

@pytest.fixture
def ipython(tmp_path, monkeypatch):
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)

    def run(cell):
        result = shell.run_cell(cell, store_history=True, silent=False)
        return result.result if result.error_in_exec is None else result.error_in_exec
    yield shell, run
    InteractiveShell.clear_instance()


def test_functions_defined_in_ipython_cells_compile(ipython):
    import numpy as np
    shell, run = ipython
    run("import numpy as np\nimport sstad\n\ndef helper(x):\n    return np.sin(x) * x\n")
    run("def f(x):\n    return np.sum(helper(x))\n")
    g = run("sstad.jit(sstad.grad(f), backend='python')(np.array([0.5, 1.0]))")
    x = np.array([0.5, 1.0])
    np.testing.assert_allclose(g, np.cos(x) * x + np.sin(x), rtol=1e-12)
    run("def f(x):\n    return np.sum(x ** 3)\n")               # redefined in a later cell
    np.testing.assert_allclose(run("sstad.grad(f)(np.array([0.5, 1.0]))"), 3 * x ** 2, rtol=1e-12)
    assert run("sstad.jit(f)(np.array([0.5, 1.0]))") == 1.125     # and through Numba
    error = run("def g(x):\n    try:\n        return x\n    except Exception:\n        return x\n\n"
                "sstad.jit(g, backend='python')(1.0)")
    assert isinstance(error, sstad.errors.SstadError)
    assert re.match(r"<ipython-input-\d+-[0-9a-f]+>:2:5: `try` is not supported", str(error)), str(error)


def test_functions_defined_in_jupyter_cells_compile(ipython, tmp_path):
    """ipykernel names a cell's code after a temporary file that need not exist."""
    import numpy as np
    shell, run = ipython
    shell.compile.get_code_name = lambda raw, code, number: str(tmp_path / f"ipykernel_1/{abs(hash(raw))}.py")
    run("import numpy as np\nimport sstad\n\ndef f(x):\n    return np.sum(np.sin(x) * x)\n")
    g = run("sstad.grad(f)(np.array([0.5]))")
    np.testing.assert_allclose(g, np.cos(0.5) * 0.5 + np.sin(0.5), rtol=1e-12)


def test_a_function_typed_at_the_python_prompt_is_refused_clearly():
    namespace = {}
    exec(compile("import numpy as np\ndef f(x):\n    return np.sin(x)\n", "<stdin>", "exec"), namespace)
    with pytest.raises(sstad.errors.SourceError, match=r"the source of f is not in a file \(<stdin>\)"):
        sstad.grad(namespace["f"])(1.0)
