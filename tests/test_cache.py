"""The on-disk cache of generated modules: reused by a new process, a tampered entry is
detected and rewritten (each step in a fresh process, so nothing is cached in memory), the
size bound prunes the least recently used entries, `sstad cache clear` empties it, and a
test run leaves no files behind."""
import os
import re
import shutil
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


def cache_size(cache):
    return sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())


def test_the_cache_is_pruned_to_its_bound_least_recently_used_first(tmp_path, monkeypatch):
    from sstad.backend import loader
    cache = tmp_path / "cache"
    monkeypatch.setenv("SSTAD_CACHE_DIR", str(cache))
    monkeypatch.setenv("SSTAD_CACHE_MAX_MB", "2")
    padding = "# " + "x" * 50_000 + "\n"                 # each entry about 50 kB
    sources = [f"def f(x):\n    return x + {i}\n{padding}" for i in range(80)]
    for i, source in enumerate(sources):                 # 4 MB written, at most 2 MB kept
        loader.load_numba(source, ["f"], "f", "padded")
        loader.load_numba(sources[0], ["f"], "f", "padded")   # the first is used all along
        assert cache_size(cache) <= 2_000_000, i
    kept = {e.stem for e in loader.cache_entries(cache)}
    stems = [f"padded_{loader.content_key(loader.numba_source(s, ['f']))}" for s in sources]
    assert stems[0] in kept and stems[-1] in kept
    assert not set(stems[1:40]) & kept                   # the least recently used went first
    assert 30 <= len(kept) <= 40
    (cache / "notes.txt").write_text("not sstad's")       # only sstad's own files are counted or removed
    assert loader.clear_cache(cache) == len(kept)
    assert [p.name for p in cache.rglob("*") if p.is_file()] == ["notes.txt"]


COMPILE_MANY = textwrap.dedent('''
    import sys
    import sstad
    sys.path.insert(0, sys.argv[1])
    import many
    for i in range(12):
        assert sstad.jit(getattr(many, f"f{i}"))(1.0) > 0
''')


def sstad_cli(*argv, env):
    return subprocess.run([sys.executable, "-m", "sstad", *argv], capture_output=True, text=True,
                          env=env, timeout=120)


def test_compilations_respect_the_bound_and_cache_clear_empties_it(tmp_path):
    """Twelve small Numba compilations (about 11 kB each) in a 50 kB cache."""
    (tmp_path / "many.py").write_text("import numpy as np\n" + "".join(
        f"\ndef f{i}(x):\n    return np.exp(x) + {i}.5\n" for i in range(12)))
    cache = tmp_path / "cache"
    env = dict(os.environ, SSTAD_CACHE_DIR=str(cache), SSTAD_CACHE_MAX_MB="0.05")
    out = subprocess.run([sys.executable, "-c", COMPILE_MANY, str(tmp_path)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    compiled = list((cache / "__pycache__").glob("*.nbc"))
    assert 2 <= len(compiled) < 12 and 10_000 < cache_size(cache) <= 50_000
    info = sstad_cli("cache", "info", env=env)
    assert info.returncode == 0 and f"location: {cache} (SSTAD_CACHE_DIR)" in info.stdout
    assert re.search(r"size: +0\.0\d+ MB in \d+ compiled functions", info.stdout)
    assert "bound:    0.05 MB" in info.stdout
    cleared = sstad_cli("cache", "clear", env=env)
    assert cleared.returncode == 0 and cleared.stdout.startswith("removed ")
    assert [p for p in cache.rglob("*") if p.is_file()] == []
    assert sstad_cli("cache", "info", env=dict(env, SSTAD_CACHE_MAX_MB="lots")).stderr == (
        "sstad: error: SSTAD_CACHE_MAX_MB must be a number of megabytes >= 0, not 'lots'\n")


A_TEST_SESSION = textwrap.dedent('''
    import numpy as np
    import sstad
    from hypothesis import given, settings
    from sstad.testing.strategies import programs

    @settings(max_examples=3)
    @given(programs())
    def test_generated(program):
        try:
            program.check()
        except Exception:
            pass        # the files are the point here, not the result

    def test_numba():
        from many import f0
        assert sstad.jit(f0)(1.0) > 0
''')


def test_a_test_session_leaves_no_files_in_home_or_temp(tmp_path):
    """A pytest run with this suite's conftest: compiled code and generated programs are
    gone when it ends, and so is the cache a killed run left."""
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(os.path.join(os.path.dirname(__file__), "conftest.py"), run / "conftest.py")
    (run / "test_session.py").write_text(A_TEST_SESSION)
    (run / "many.py").write_text("import numpy as np\n\ndef f0(x):\n    return np.exp(x)\n")
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    killed = tmp / f"sstad_test_cache_{gone}"          # left by a run that was killed
    (killed / "__pycache__").mkdir(parents=True)
    (killed / "f_0123456789abcdef0123.py").write_text("")
    env = {k: v for k, v in os.environ.items()
           if k not in ("SSTAD_CACHE_DIR", "SSTAD_PROGRAMS_DIR", "XDG_CACHE_HOME", "CI")}
    env.update(HOME=str(home), TMPDIR=str(tmp), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(run)],
                         cwd=run, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed" in out.stdout
    assert list(home.rglob("*")) == [] and list(tmp.rglob("*")) == []
