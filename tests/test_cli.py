"""`sstad dump` through the installed console script, on a function with while + if."""
import os
import shutil
import subprocess
import sys

import pytest

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


@pytest.mark.parametrize("argv", [["dump", "nofile.py:f"], ["dump", "notarget"]])
def test_dump_rejects_bad_targets(argv):
    result = subprocess.run(sstad_command() + argv, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "sstad:" in result.stderr


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
