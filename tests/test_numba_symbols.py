"""Code loaded from Numba's disk cache calls its own callees, not a namesake of this process.

Numba names a callee's symbol after its qualified name and a per-process counter, so two
closures of one factory, compiled in two processes, can share a symbol; loading one
process's cached code into the other then links the wrong closure, silently
(numba/numba#10486).  It made two MPI ranks run different collectives once Numba's
caches existed.  sstad.runtime.numba_symbols starts each process's counter at a random
point.  Process A compiles ``cached`` (which calls the closure adding 3) into the disk
cache; process B first compiles ``fresh`` (the closure adding 5, same qualified name,
same counter value when nothing moves the counters) and then loads ``cached``."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np

CLOSURES = """
    import os
    if os.environ.get("WITH_SSTAD"):
        import sstad  # noqa: F401
    import numba
    import numpy as np

    def make(k):
        message = f"bad input to the closure adding {k}"

        @numba.njit
        def add(x):                   # big enough that LLVM keeps it a call
            out = np.empty_like(x)
            for i in range(x.size):
                if x[i] < -1e300:
                    raise ValueError(message)
                out[i] = np.sin(x[i]) + k
            return out
        return add

    add3, add5 = make(3.0), make(5.0)

    @numba.njit(cache=True)
    def cached(x):
        return add3(x) + add3(x + 1.0)

    @numba.njit
    def fresh(x):
        return add5(x) + add5(x + 1.0)
"""
PROCESS_A = "import numpy as np, closures; print(closures.cached(np.zeros(2))[0])"
PROCESS_B = """import numpy as np, closures
closures.fresh(np.zeros(2))
value = closures.cached(np.zeros(2))[0]
assert closures.cached.stats.cache_hits, "not loaded from the disk cache"
print(value)"""


def two_processes(folder, with_sstad):
    folder.mkdir()
    (folder / "closures.py").write_text(textwrap.dedent(CLOSURES))
    env = {"WITH_SSTAD": "1"} if with_sstad else {}
    values = []
    for code in (PROCESS_A, PROCESS_B):
        done = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True,
                              env={**os.environ, "WITH_SSTAD": "", **env}, timeout=300)
        assert done.returncode == 0, done.stderr
        values.append(float(done.stdout))
    return values


def test_cached_code_calls_its_own_closure(tmp_path: pathlib.Path):
    expected = (np.sin(0.0) + 3.0) + (np.sin(1.0) + 3.0)
    a, b = two_processes(tmp_path / "sstad", with_sstad=True)
    assert a == b == expected
    # The same two processes without sstad: Numba alone links B's closure (adding 5).
    # If this starts to hold, Numba names closures apart and numba_symbols can go.
    a, b = two_processes(tmp_path / "numba", with_sstad=False)
    assert a == expected and b != expected, "numba/numba#10486 fixed? then remove runtime/numba_symbols.py"
