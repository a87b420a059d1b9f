"""The on-disk cache of generated modules: reused by a new process, and a tampered entry
is detected and rewritten (each step in a fresh process, so nothing is cached in memory)."""
import os
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent('''
    import numpy as np

    def f(x):
        s = 0.0
        for v in x:
            s = s + np.sin(v) * v
        return s
''')

DRIVER = textwrap.dedent('''
    import sys
    import numpy as np, sstad
    sys.path.insert(0, sys.argv[1])
    from cached_program import f
    print(repr(float(sstad.jit(sstad.grad(f))(np.array([0.5, 1.0]))[0])))
''')


def run(workdir, cache):
    out = subprocess.run([sys.executable, "-c", DRIVER, str(workdir)], capture_output=True, text=True,
                         env=dict(os.environ, SSTAD_CACHE_DIR=str(cache)), timeout=300)
    assert out.returncode == 0, out.stderr
    return float(out.stdout.strip().splitlines()[-1])


def test_a_tampered_cache_entry_is_rewritten(tmp_path):
    (tmp_path / "cached_program.py").write_text(PROGRAM)
    cache = tmp_path / "cache"
    expected = float(__import__("numpy").cos(0.5) * 0.5 + __import__("numpy").sin(0.5))
    assert abs(run(tmp_path, cache) - expected) < 1e-12
    modules = sorted(cache.glob("*_grad_*.py"))
    assert modules, list(cache.iterdir())
    original = modules[0].read_text()
    assert "np.cos" in original
    assert abs(run(tmp_path, cache) - expected) < 1e-12          # reused from disk
    modules[0].write_text(original.replace("np.cos", "np.sin"))   # a wrong derivative on disk
    assert abs(run(tmp_path, cache) - expected) < 1e-12          # detected: rewritten
    assert modules[0].read_text() == original
