"""Collectives: a world of one rank in this process; several ranks under mpiexec
(scripts in tests/mpi/, launched as subprocesses)."""
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

import sstad
from sstad import distributed as dist
from sstad.testing import check_grads

from mpi_launcher import MPIEXEC, needs_mpiexec


def every_collective(x, w):
    a = dist.all_reduce(x * w, op="sum")
    b = dist.all_gather(a, axis=0)
    c = dist.reduce_scatter(b * b, op="sum", axis=0)
    d = dist.broadcast(c, root=0) + dist.reduce(c, root=0)
    e = dist.all_to_all(d[:, None] * np.ones((1, 2)), 0, 1)
    m = dist.all_reduce(e, op="max") + dist.all_reduce(e, op="mean") - dist.all_reduce(e, op="min")
    return np.sum(np.sin(dist.ppermute(m, ((0, 0),)))) + dist.all_reduce(w * w)


def test_one_rank_world_is_the_identity():
    x = np.arange(1.0, 4.0)
    assert dist.rank() == 0 and dist.world_size() == 1
    for op in ("sum", "mean", "max", "min"):
        assert np.array_equal(dist.all_reduce(x, op=op), x)
        assert np.array_equal(dist.reduce_scatter(x, op=op), x)
    assert dist.all_reduce(2.5) == 2.5 and isinstance(dist.all_reduce(2.5), float)
    assert dist.all_reduce(np.float32(2.5)).dtype == np.float32
    assert dist.all_reduce(x.astype(np.float16)).dtype == np.float16
    assert np.array_equal(dist.all_gather(x[None], axis=1), x[None])
    assert np.array_equal(dist.broadcast(x), x) and np.array_equal(dist.reduce(x), x)
    assert np.array_equal(dist.all_to_all(x.reshape(3, 1), 0, 1), x.reshape(3, 1))
    assert np.array_equal(dist.ppermute(x, ((0, 0),)), x)
    assert np.array_equal(dist.ppermute(x, ()), np.zeros(3))


@pytest.mark.parametrize("backend", ["python"])
def test_rules_on_one_rank_match_finite_differences(backend):
    x = np.array([0.3, -1.2, 0.7])
    assert sstad.jit(every_collective, backend=backend)(x, 0.4) == pytest.approx(every_collective(x, 0.4))
    check_grads(every_collective, (x, 0.4), backend=backend)


def widest(x):
    return np.sum(dist.all_reduce(x * x, op="max") + dist.reduce_scatter(x, op="min"))


def test_max_and_min_derivatives_keep_float32():
    x = np.array([0.5, -2.0, 1.5], dtype=np.float32)
    assert sstad.grad(widest)(x).dtype == np.float32
    assert sstad.pushforward(widest)(x, np.ones(3, np.float32))[1].dtype == np.float32


def synced(x):
    dist.barrier()                       # no result anyone reads: an effect, which dce keeps
    return x * 2.0


def test_a_barrier_in_compiled_code_is_kept():
    assert "rt.collectives.barrier()" in sstad.dump(synced, np.ones(2), emit="python")
    assert np.array_equal(sstad.jit(synced, backend="python")(np.ones(2)), [2.0, 2.0])


def refuses(x):
    return np.sum(dist.all_reduce(x, op="prod"))


def test_bad_op_is_an_error_at_the_users_line():
    with pytest.raises(sstad.errors.SstadTypeError, match="op must be one of") as info:
        sstad.grad(refuses)(np.ones(2))
    assert "test_collectives.py" in str(info.value)


# --- several ranks: mpiexec in a subprocess ---------------------------------------------
MPI_DIR = pathlib.Path(__file__).parent / "mpi"


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """One compile cache for every launch of this module (Numba's code is reused)."""
    return tmp_path_factory.mktemp("sstad-cache")


def mpiexec(n, script, *args, cache, timeout=120, **env):
    env = dict(os.environ, SSTAD_CACHE_DIR=str(cache), OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1", **env)
    return subprocess.run([MPIEXEC, "-n", str(n), sys.executable, str(MPI_DIR / script), *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


def passed(result):
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BAD" not in result.stdout
    return result.stdout


@needs_mpiexec
@pytest.mark.parametrize("n", [pytest.param(2, marks=pytest.mark.slow), 3])    # 3: uneven splits
def test_rules_across_ranks_python(n, cache_dir):
    out = passed(mpiexec(n, "check_rules.py", "python", cache=cache_dir))
    assert out.count("ok ") == 19, out          # 18 collectives + the shape mismatch


@needs_mpiexec
def test_rules_across_ranks_numba_in_one_function(tmp_path):
    """Every rule but the ring's, from one compiled pushforward and one compiled pullback
    (check_rules_together.py; each collective still has its own line).  -n 2 compiles
    them, rank 0 one and rank 1 the other at once; -n 3 loads both from the disk cache,
    so no constant of the compiled code depends on the number of ranks.  NUMBA_OPT=1
    (LLVM's optimization level; the code checked is otherwise the same) compiles in
    about half the time of the default 3; at 0 Numba leaves references to its
    dispatchers in the code and will not cache it.  The default level's run, one
    compilation per collective, is test_rules_across_ranks_numba (make test-slow)."""
    for n, loads in ((2, "2 of the 4"), (3, "6 of the 6")):
        out = passed(mpiexec(n, "check_rules_together.py", "numba", cache=tmp_path, timeout=900, NUMBA_OPT="1"))
        assert out.count("ok ") == 18, out      # 17 collectives + the shape mismatch
        assert f"numba: {loads} compiled functions loaded from the disk cache" in out, out


@needs_mpiexec
@pytest.mark.parametrize("how", ["raise", pytest.param("kill", marks=pytest.mark.slow)])
def test_a_dead_rank_ends_every_rank(how, cache_dir):
    start = time.monotonic()
    result = mpiexec(3, "dead_rank.py", how, cache=cache_dir, timeout=60)
    assert time.monotonic() - start < 30
    assert result.returncode != 0
    text = result.stdout + result.stderr
    if how == "raise":       # the rank says who it is before MPI_Abort ends everyone
        assert "rank 1 of 3 raised RuntimeError; aborting all ranks" in text, text
    else:                    # killed: no code of its own runs; mpiexec names the process and signal
        assert "BAD TERMINATION" in text and "signal 9" in text, text


@needs_mpiexec
@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_data_parallel_across_ranks(backend, cache_dir):
    """Overlapped averages equal averaging after the sweep (float64, float32 and a float),
    a barrier in compiled code waits, mismatched gradients raise on every rank; then
    examples/data_parallel_mlp.py equals one process after 20 steps."""
    out = passed(mpiexec(2, "data_parallel.py", backend, cache=cache_dir, timeout=900))
    assert out.count("ok ") == 4 and "largest parameter difference" in out, out


def test_buckets_follow_the_backward_order_and_the_size_bound():
    leaves = [np.zeros(1000), np.zeros(10), np.zeros(10, dtype=np.float32), np.zeros(10), 1.0]
    assert dist.buckets(leaves, bucket_mb=1) == [[4, 3], [2], [1, 0]]
    assert dist.buckets(leaves, bucket_mb=0) == [[4], [3], [2], [1], [0]]


def mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    return np.mean((h @ w2 + b2 - y) ** 2)


def mlp_args():
    rng = np.random.default_rng(0)
    params = (rng.standard_normal((3, 16)), np.zeros(16), rng.standard_normal((16, 1)), np.zeros(1))
    return params, rng.standard_normal((8, 3)), rng.standard_normal((8, 1))


@pytest.mark.parametrize("bucket_mb, sizes", [(0, [1, 1, 1, 1]), (300 / 2 ** 20, [3, 1]), (25, [4])])
def test_data_parallel_starts_each_bucket_where_the_backward_sweep_finishes_it(bucket_mb, sizes):
    """b2, w2, b1, w1 (8, 128, 128 and 384 bytes) are final in that order; a bucket
    starts on the line after its last gradient's, before the rest of the sweep."""
    step = dist.data_parallel(sstad.grad(mlp_loss), bucket_mb=bucket_mb)
    args = mlp_args()
    lines = [line.strip() for line in step.dump(*args, emit="python").splitlines()
             if line.strip() and not line.strip().startswith("#")]
    starts = [k for k, line in enumerate(lines) if "bucket_start((" in line]
    first_wait = min(k for k, line in enumerate(lines) if "bucket_wait(" in line)
    last_matmul = max(k for k, line in enumerate(lines) if " @ " in line)     # dw1 = x.T @ dh
    grads = [lines[k].split("((")[1].rstrip(",))").split(", ") for k in starts]
    assert [len(names) for names in grads] == sizes
    for k, names in zip(starts, grads):     # right after the line that finishes its last gradient
        before = k - 1
        while "bucket_start((" in lines[before]:
            before -= 1
        assert lines[before].startswith(names[-1] + " = "), lines[before:k + 1]
    assert starts[0] < last_matmul if len(sizes) > 1 else starts[0] > last_matmul
    assert max(starts) < first_wait
    expected = sstad.grad(mlp_loss)(*args)
    for _ in range(2):                      # the first call plans the buckets, the second runs this code
        assert all(np.array_equal(a, b) for a, b in zip(step(*args), expected))


def test_data_parallel_on_one_rank_is_the_gradient_clipped():
    grads = dist.data_parallel(lambda w: (3.0 * w, 4.0), clip_norm=1.0)(np.ones(1))
    assert np.allclose(grads[0], 0.6) and grads[1] == pytest.approx(0.8)
    step, args = dist.data_parallel(sstad.grad(mlp_loss), clip_norm=0.1), mlp_args()
    for _ in range(2):                      # after the python path, the compiled one
        grads = step(*args)
        assert np.sqrt(sum(np.sum(g * g) for g in grads)) == pytest.approx(0.1)


@needs_mpiexec
@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3])
def test_rules_across_ranks_numba(n, cache_dir):
    """Numba compiles every derivative (minutes on two cores the first time)."""
    out = passed(mpiexec(n, "check_rules.py", "numba", cache=cache_dir, timeout=1800))
    assert out.count("ok ") == 19, out


def send_to_rank_one(x):
    return dist.ppermute(x, ((0, 1),))


def send_twice(x):
    return dist.ppermute(x, ((0, 0), (0, 0)))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_ppermute_refuses_a_rank_outside_the_world(backend):
    """Checked where it runs (the world's size is known only then), compiled code too."""
    with pytest.raises(ValueError, match="perm names a .*outside"):
        sstad.jit(send_to_rank_one, backend=backend)(np.ones(3))


def test_ppermute_refuses_a_rank_twice_at_the_users_line():
    """One Sendrecv per rank would silently drop the second pair."""
    with pytest.raises(sstad.errors.SstadTypeError, match="perm names a source twice") as info:
        sstad.jit(send_twice, backend="numba")(np.ones(3))
    assert "test_collectives.py" in str(info.value)
