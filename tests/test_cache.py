"""The on-disk cache of generated modules: reused by a new process, a tampered entry is
detected and rewritten (each step in a fresh process, so nothing is cached in memory), the
size bound prunes the least recently used entries, `sstad cache clear` empties it, and a
test run leaves no files behind."""
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sstad
from sstad.runtime.primitive import PRIMITIVES

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


# --- the source key: a new process runs the recorded compilation without lowering it ---

HELPERS = textwrap.dedent('''
    import numpy as np

    SCALE = 2.0

    def helper(v):
        return np.sin(v) * v
''')

USER = textwrap.dedent('''
    import numpy as np
    import keyed_helpers
    from keyed_helpers import helper

    OFFSET = 0.5

    def f(x):
        return np.sum(helper(x) * keyed_helpers.SCALE) + OFFSET * x[0]
''')

RECORDED = textwrap.dedent('''
    import sys
    import numpy as np, sstad
    sys.path.insert(0, sys.argv[1])
    from keyed_user import f
    g = sstad.jit(sstad.grad(f), backend=sys.argv[2], tiered=sys.argv[3] == "tiered")
    x = np.array([0.5, 1.0])
    first = g(x)
    (compiled,) = g._compiled.values()
    for job in compiled._background.values():     # a program that runs on: Numba's turn comes
        job.done.wait(300)
    print("lowered" if compiled.module is not None else "from the record", repr(first.tolist()))
''')


def recorded_run(workdir, cache, backend="python", tiered=False):
    out = subprocess.run([sys.executable, "-c", RECORDED, str(workdir), backend, "tiered" if tiered else "wait"],
                         capture_output=True, text=True, env=dict(os.environ, SSTAD_CACHE_DIR=str(cache)),
                         timeout=300)
    assert out.returncode == 0, out.stderr
    how, values = out.stdout.strip().splitlines()[-1].split(" [")
    return how, [float(v) for v in values.rstrip("]").split(",")]


def expected_gradient(scale, offset, x=(0.5, 1.0)):
    import numpy as np
    x = np.asarray(x)
    return ((np.cos(x) * x + np.sin(x)) * scale + np.array([offset, 0.0])).tolist()


def test_a_new_process_runs_the_recorded_gradient_and_an_edited_helper_is_compiled_again(tmp_path):
    (tmp_path / "keyed_helpers.py").write_text(HELPERS)
    (tmp_path / "keyed_user.py").write_text(USER)
    cache = tmp_path / "cache"
    how, first = recorded_run(tmp_path, cache)
    assert how == "lowered" and first == expected_gradient(2.0, 0.5)
    assert list(cache.glob("f_grad_*.idx"))
    how, again = recorded_run(tmp_path, cache)
    assert how == "from the record" and again == first           # no frontend, no AD
    (tmp_path / "keyed_helpers.py").write_text(HELPERS.replace("np.sin(v) * v", "np.sin(v) * v * 3.0"))
    how, edited = recorded_run(tmp_path, cache)
    assert how == "lowered" and edited == expected_gradient(6.0, 0.5)
    (tmp_path / "keyed_helpers.py").write_text(HELPERS.replace("SCALE = 2.0", "SCALE = 4.0"))
    how, rescaled = recorded_run(tmp_path, cache)
    assert how == "lowered" and rescaled == expected_gradient(4.0, 0.5)


def test_tiered_and_numba_runs_read_their_texts_from_the_record(tmp_path):
    (tmp_path / "keyed_helpers.py").write_text(HELPERS)
    (tmp_path / "keyed_user.py").write_text(USER)
    cache = tmp_path / "cache"
    expected = expected_gradient(2.0, 0.5)
    assert recorded_run(tmp_path, cache, "numba", tiered=True) == ("lowered", expected)
    assert recorded_run(tmp_path, cache, "numba") == ("from the record", expected)
    assert recorded_run(tmp_path, cache, "numba", tiered=True) == ("from the record", expected)


KEYED = textwrap.dedent('''
    import numpy as np

    OFFSET = 0.5

    class Settings:
        rate = 2.0

    SETTINGS = Settings()

    def f(x):
        return np.sum(np.sin(x)) + OFFSET * x[0]

    def with_settings(x):
        return np.sum(x) * SETTINGS.rate

    def scaled(k):
        def g(x):
            return k * np.sum(np.sin(x))
        return g
''')


@pytest.fixture
def keyed(tmp_path, monkeypatch):
    """The module above, loaded from a real file, with a cache of its own."""
    monkeypatch.setenv("SSTAD_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "keyed_module.py").write_text(KEYED)
    spec = importlib.util.spec_from_file_location(f"keyed_module_{tmp_path.name}", tmp_path / "keyed_module.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


X = np.array([0.5, 1.0])


def grad_key(fn, *args):
    from sstad.api import _signature
    from sstad.backend.source_key import source_key
    return source_key(sstad.grad(fn), _signature(args))


def fresh_gradient(fn, x=X):
    """The gradient by a new jit object (no compilation in memory), and whether it
    came from the disk record."""
    g = sstad.jit(sstad.grad(fn), backend="python")
    out = g(x)
    (compiled,) = g._compiled.values()
    return out, compiled.module is None


def test_a_global_constant_is_part_of_the_key(keyed):
    key = grad_key(keyed.f, X)
    assert key is not None and grad_key(keyed.f, X) == key
    assert fresh_gradient(keyed.f)[1] is False
    out, from_record = fresh_gradient(keyed.f)
    assert from_record and np.allclose(out, np.cos(X) + [0.5, 0.0])
    keyed.OFFSET = 1.5
    assert grad_key(keyed.f, X) != key
    out, from_record = fresh_gradient(keyed.f)
    assert not from_record and np.allclose(out, np.cos(X) + [1.5, 0.0])
    assert grad_key(keyed.f, X.astype(np.float32)) != grad_key(keyed.f, X)      # the signature too
    assert grad_key(keyed.f, X) != sstad.backend.source_key.source_key(
        sstad.grad(keyed.f, argnums=(0,)), sstad.api._signature((X,)))       # and the transform's options


def test_a_replaced_rule_changes_the_key_and_the_result(keyed, monkeypatch):
    fresh_gradient(keyed.f)
    key = grad_key(keyed.f, X)
    assert fresh_gradient(keyed.f)[1]

    def doubled_sin_rule(x, out, dout):
        return (2.0 * dout * np.cos(x),)
    monkeypatch.setattr(PRIMITIVES["sin"], "vjp", doubled_sin_rule)
    assert grad_key(keyed.f, X) != key
    out, from_record = fresh_gradient(keyed.f)
    assert not from_record and np.allclose(out, 2.0 * np.cos(X) + [0.5, 0.0])
    monkeypatch.undo()
    assert grad_key(keyed.f, X) == key


def test_closure_values_are_part_of_the_key(keyed):
    two, three = keyed.scaled(2.0), keyed.scaled(3.0)
    assert grad_key(two, X) != grad_key(three, X)
    assert np.allclose(fresh_gradient(two)[0], 2.0 * np.cos(X))
    out, from_record = fresh_gradient(three)
    assert not from_record and np.allclose(out, 3.0 * np.cos(X))


def test_an_object_compiled_in_by_identity_has_no_key_and_still_compiles(keyed):
    assert grad_key(keyed.with_settings, X) is None
    assert np.allclose(fresh_gradient(keyed.with_settings)[0], [2.0, 2.0])
    assert fresh_gradient(keyed.with_settings)[1] is False
    assert not list((pathlib.Path(os.environ["SSTAD_CACHE_DIR"])).glob("with_settings*.idx"))


def test_a_notebook_cells_globals_are_part_of_the_key(keyed):
    """IPython keeps each cell's source in linecache under a name of its own: its functions
    are compiled from there, so their globals are walked like a file's."""
    import linecache
    source = "import numpy as np\nSCALE = 2.0\n\ndef cell_f(x):\n    return SCALE * np.sum(np.sin(x))\n"
    name = "<ipython-input-7-0123456789ab>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace = {}
    exec(compile(source, name, "exec"), namespace)
    key = grad_key(namespace["cell_f"], X)
    assert key is not None and np.allclose(fresh_gradient(namespace["cell_f"])[0], 2.0 * np.cos(X))
    namespace["SCALE"] = 3.0
    assert grad_key(namespace["cell_f"], X) != key
    out, from_record = fresh_gradient(namespace["cell_f"])
    assert not from_record and np.allclose(out, 3.0 * np.cos(X))


# --- what a new process pays before its first call: `import sstad` ---

LAZY = textwrap.dedent('''
    import sys
    import numpy as np, sstad
    heavy = ["scipy.stats", "ml_dtypes", "mpi4py", "safetensors", "sstad.checkpoint", "numba.cuda"]
    print(*[m for m in heavy if m in sys.modules])
    import scipy.stats

    def f(x):
        return np.sum(scipy.stats.norm.logpdf(x))
    print(sstad.grad(f)(np.array([0.5, -1.0])).tolist(), sstad.optim.sgd.__name__)
''')


def test_import_sstad_leaves_the_heavy_optional_libraries_to_first_use(tmp_path):
    (tmp_path / "lazy_program.py").write_text(LAZY)
    out = subprocess.run([sys.executable, str(tmp_path / "lazy_program.py")], capture_output=True, text=True,
                         env=dict(os.environ, SSTAD_CACHE_DIR=str(tmp_path / "cache")), timeout=300)
    assert out.returncode == 0, out.stderr
    imported, used = out.stdout.splitlines()[-2:]
    assert imported == ""
    assert used == "[-0.5, 1.0] sgd"                  # scipy.stats's rules registered when first needed


def test_compiling_and_recording_leave_the_rule_state_as_it_was(keyed):
    """Else every later key of the process that wrote a record would differ from a fresh
    process's (pickling once added ``__slotnames__`` to sstad's classes)."""
    from sstad.backend.source_key import _rules_digest
    before = _rules_digest()
    fresh_gradient(keyed.f)
    sstad.jit(keyed.f)(X)
    assert list(pathlib.Path(os.environ["SSTAD_CACHE_DIR"]).glob("f_grad_*.idx"))
    assert _rules_digest() == before
