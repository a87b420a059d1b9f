"""The ``sstad`` command: `sstad dump` through the installed console script on a function with
while + if; every misuse is one line `sstad: error: ...` and exit status 2."""
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from sstad import cli
from sstad.passes import PASSES

TARGET = os.path.join(os.path.dirname(__file__), "data", "dump_target.py") + ":damped"
ARGS = "np.array([4.0, -2.0]), 1e-3"


def sstad_command():
    exe = shutil.which("sstad")
    return [exe] if exe else [sys.executable, "-m", "sstad.cli"]


def run_dump(*extra):
    result = subprocess.run(sstad_command() + ["dump", TARGET, "--args", ARGS, *extra],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_dump_ir_shows_structured_regions():
    text = run_dump("--emit", "ir")
    assert text.startswith("def damped(x: f64[:], tol: f64~)")
    assert "= while (" in text and "cond:" in text and "body:" in text
    assert "= if " in text and "then:" in text and "else:" in text
    assert "op.mul(0.5, x" in text


def test_dump_ir_before_passes_keeps_dead_code():
    before = run_dump("--emit", "ir", "--after", "lowering")
    after = run_dump("--emit", "ir")
    assert len(before.splitlines()) >= len(after.splitlines())


def test_dump_python_is_readable_and_runs():
    text = run_dump("--emit", "python")
    assert "def damped(x, tol):" in text
    assert "# dump_target.py:7  while np.abs(x).max() > tol:" in text
    assert "if " in text and "while " in text
    namespace = {}
    exec(compile(text, "<dump>", "exec"), namespace)
    import numpy as np
    x, steps = namespace["damped"](np.array([4.0, -2.0]), 1e-3)
    assert steps > 0 and np.abs(x).max() <= 1e-3


def test_dump_llvm_is_numba_output():
    text = run_dump("--emit", "llvm")
    assert "define " in text and "damped" in text


def test_dump_reports_user_errors_cleanly(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x):\n    try:\n        return x\n    except Exception:\n        return x\n")
    result = subprocess.run(sstad_command() + ["dump", f"{bad}:f", "--args", "1.0"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "bad.py:2:5: `try` is not supported" in result.stderr
    assert "Traceback" not in result.stderr


def test_dump_grad_prints_one_joint_gradient_function():
    result = subprocess.run(sstad_command() + ["dump", TARGET.replace(":damped", ":smooth"), "--args",
                                               "np.array([0.5, -1.0]), 3", "--grad", "--emit", "python"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.count("\ndef ") == 1 and "def smooth_grad(x, n):" in text
    assert "# dump_target.py:" in text and "dx" in text


def dump_smooth(args, *flags):
    result = subprocess.run(sstad_command() + ["dump", TARGET.replace(":damped", ":smooth"), "--args", args,
                                               *flags, "--emit", "python"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_dump_jvp_prints_one_function_with_tangents():
    text = dump_smooth("np.array([0.5, -1.0]), 3, np.ones(2), 0", "--jvp")
    assert text.count("\ndef ") == 1 and "def smooth_jvp(x, n, dx, " in text
    assert "# dump_target.py:" in text and "ds" in text


def test_dump_second_order_is_readable_python():
    result = subprocess.run(sstad_command() + ["dump", TARGET.replace(":damped", ":scalar_smooth"),
                                               "--args", "0.5, 3", "--grad", "--grad", "--emit", "python"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "def scalar_smooth_grad_grad(x, n):" in text, text and "# dump_target.py:" in text
    compile(text, "<dump>", "exec")


DEMO = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "demo.py")
SMOOTH = TARGET.replace(":damped", ":smooth")

# (argv, a regular expression the one error line must match after "sstad: error: ")
MISUSES = [
    (["dump", TARGET, "--args", "0.5, 0.0,, 0.1"],
     r"--args '0.5, 0.0,, 0.1' is not a comma-separated list of Python expressions \(invalid syntax at column 10\)"),
    (["dump", TARGET, "--args", "np.ones(2)) + (1"], r"--args .* is not a comma-separated list"),
    (["dump", TARGET, "--args", "undefined_name, 1e-3"],
     r"--args: name 'undefined_name' is not defined \(the names of the file, np, numpy and math"),
    (["dump", TARGET, "--args", "1 / 0, 1e-3"], r"--args: evaluating .* raised ZeroDivisionError"),
    (["dump", TARGET, "--args", ARGS, "--after", "bogus"],
     r"argument --after: invalid choice: 'bogus' \(choose from 'lowering', 'simplify'"),
    (["dump", f"{DEMO}:statistics"], r".*demo.py:statistics is a module, not a function"),
    (["dump", f"{DEMO}:no_such"], r".*demo.py has no function 'no_such' \(its functions: rhs, pendulum"),
    (["dump", TARGET.replace(":damped", ":np")], r".*dump_target.py:np is a module, not a function"),
    (["dump", "no_such_file.py:f"], r"no such file: no_such_file.py"),
    (["dump", TARGET.replace(":damped", ":nothere")],
     r".*dump_target.py has no function 'nothere' \(its functions: damped, smooth, scalar_smooth\)"),
    (["dump", TARGET.replace(":damped", "")], r"expected FILE.py:FUNCTION, got .*dump_target.py'"),
    (["dump", "notarget"], r"expected FILE.py:FUNCTION, got 'notarget'"),
    (["dump", SMOOTH, "--args", "np.ones(2), 3", "--vjp"],
     r"--vjp: --args are the arguments of smooth\(x, n\) followed by the output cotangent .*got 2"),
    (["dump", SMOOTH, "--args", "np.ones(2), 3, np.ones(2)", "--jvp"],
     r"--jvp: --args are the arguments of smooth\(x, n\) followed by one tangent for each: 2 x 2 values, got 3"),
    (["dump", TARGET, "--grad", "--vjp"], r"argument --vjp: not allowed with argument --grad"),
    (["dump", TARGET, "--emit", "asm"], r"argument --emit: invalid choice: 'asm'"),
    (["dump", TARGET, "--bogus"], r"unrecognized arguments: --bogus"),
    (["dump"], r"the following arguments are required: FILE.py:FUNCTION"),
    ([], r"missing command: `sstad dump ...` or `sstad cache info\|clear`"),
    (["compile", TARGET], r"argument \{dump,cache\}: invalid choice: 'compile'"),
    (["cache"], r"the following arguments are required: \{info,clear\}"),
    (["cache", "purge"], r"argument \{info,clear\}: invalid choice: 'purge'"),
]


def run_main(argv, capsys):
    """``sstad ARGV`` in this process: (exit status, stdout, stderr)."""
    modules, path = set(sys.modules), list(sys.path)
    try:
        status = cli.main(argv)
    except SystemExit as exc:                      # only --help and --version exit
        status = exc.code
    finally:
        for name in set(sys.modules) - modules:
            if name.startswith("sstad_user_"):
                del sys.modules[name]
        sys.path[:] = path
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("argv, message", MISUSES, ids=[" ".join(a[:1] + [os.path.basename(x) for x in a[1:]])
                                                        for a, _ in MISUSES])
def test_misuse_is_one_error_line_and_exit_status_2(argv, message, capsys):
    status, out, err = run_main(argv, capsys)
    assert status == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert re.fullmatch(r"sstad: error: " + message + ".*", lines[0]), lines[0]


def test_a_bad_cache_bound_is_a_misuse(monkeypatch, capsys):
    monkeypatch.setenv("SSTAD_CACHE_MAX_MB", "-1")
    status, _, err = run_main(["dump", TARGET, "--args", ARGS], capsys)
    assert (status, err) == (2, "sstad: error: SSTAD_CACHE_MAX_MB must be a number of megabytes >= 0, not '-1'\n")


def test_a_file_that_fails_on_import_is_one_line_naming_its_line(tmp_path, capsys):
    script = tmp_path / "script.py"
    script.write_text("import sys\n\ndef f(x):\n    return x\n\nsys.exit(main())\n")
    status, _, err = run_main(["dump", f"{script}:f", "--args", "1.0"], capsys)
    assert status == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"sstad: error: importing {script} raised NameError: name 'main' is not defined "
                          "at script.py:6; sstad dump runs the file's top-level code")
    assert 'if __name__ == "__main__":' in err
    script.write_text("def f(x):\n    return x +\n")
    status, _, err = run_main(["dump", f"{script}:f", "--args", "1.0"], capsys)
    assert (status, err) == (2, f"sstad: error: {script}:2: invalid syntax (a syntax error in the file)\n")


def test_an_internal_error_is_one_line_with_its_place(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise KeyError("oops")
    monkeypatch.setattr(cli, "dump", broken)
    monkeypatch.delenv("SSTAD_TRACEBACK", raising=False)
    status, _, err = run_main(["dump", TARGET, "--args", ARGS], capsys)
    assert status == 1 and len(err.splitlines()) == 1
    assert err.startswith("sstad: internal error: KeyError: 'oops' at ") and "SSTAD_TRACEBACK=1" in err


def test_misuse_through_the_console_script_has_no_traceback():
    result = subprocess.run(sstad_command() + ["dump", TARGET, "--args", "0.5, 0.0,, 0.1"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("sstad: error: --args '0.5, 0.0,, 0.1' is not")
    assert len(result.stderr.splitlines()) == 1


def test_help_lists_stages_passes_and_examples_that_run(capsys):
    status, out, _ = run_main(["--help"], capsys)
    assert status == 0
    for stage in ("ir", "python", "numba", "llvm"):
        assert re.search(rf"^  {stage} +\S", out, re.M), stage
    assert f"lowering (the IR before any pass), {', '.join(PASSES)}" in out
    assert 'if __name__ == "__main__":' in out and "sstad cache info|clear" in out
    examples = re.findall(r"^  (sstad dump .*)$", out, re.M)
    assert len(examples) >= 3
    for example in examples:
        argv = [a.replace("examples/demo.py", DEMO) for a in shlex.split(example)[1:]]
        status, out, err = run_main(argv, capsys)
        assert status == 0 and out.startswith(("def ", "import")), (example, err)


def test_dump_help_has_the_same_lists(capsys):
    status, out, _ = run_main(["dump", "--help"], capsys)
    assert status == 0 and "stages (--emit):" in out and ", ".join(PASSES) in out


def test_version(capsys):
    import sstad
    status, out, _ = run_main(["--version"], capsys)
    assert status == 0 and out.startswith(f"sstad {sstad.__version__} (Python ")
