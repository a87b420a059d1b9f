"""sstad.parallel: schedules and one-rank behaviour in this process; every strategy's 10
training steps against one process on the whole batch under mpiexec (tests/mpi_parallel/,
launched as subprocesses)."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import sstad
from sstad import optim
from sstad.parallel import accumulate, bubble_fraction, ravel, schedule, zero
from sstad.parallel.pipeline import Pipeline

from mpi_launcher import MPIEXEC, needs_mpiexec
from sstad.parallel.schedules import peak_in_flight

sys.path.insert(0, str(pathlib.Path(__file__).parent / "mpi_parallel"))
import models  # noqa: E402


@pytest.mark.parametrize("kind", ["gpipe", "1f1b"])
@pytest.mark.parametrize("n, m", [(1, 3), (2, 4), (2, 8), (3, 5), (4, 8)])
def test_schedules_run_each_operation_once_after_its_inputs(kind, n, m):
    slots = schedule(kind, n, m)
    when = {(r, op): s for s, slot in enumerate(slots) for r, op in enumerate(slot) if op is not None}
    assert len(when) == 2 * n * m
    for r in range(n):
        for b in range(m):
            assert when[(r, ("F", b))] < when[(r, ("B", b))]
            if r > 0:
                assert when[(r - 1, ("F", b))] < when[(r, ("F", b))]
                assert when[(r, ("B", b))] < when[(r - 1, ("B", b))]
    assert bubble_fraction(slots) == pytest.approx((n - 1) / (m + n - 1))


def test_1f1b_keeps_fewer_micro_batches_in_flight():
    assert [peak_in_flight(schedule("gpipe", 4, 8), r) for r in range(4)] == [8, 8, 8, 8]
    assert [peak_in_flight(schedule("1f1b", 4, 8), r) for r in range(4)] == [4, 3, 2, 1]
    with pytest.raises(ValueError, match="schedule must be one of"):
        schedule("interleaved", 2, 4)


def test_ravel_rebuilds_the_structure_and_kinds():
    tree = {"w": np.ones((2, 3)), "b": 0.5, "h": [np.float32(2.0), np.arange(2.0)]}
    flat, unravel = ravel(tree)
    back = unravel(3 * flat)
    assert flat.shape == (10,) and back["b"] == 1.5 and isinstance(back["b"], float)
    assert back["h"][0].dtype == np.float32 and np.array_equal(back["w"], 3 * tree["w"])
    with pytest.raises(ValueError, match="10 numbers"):
        unravel(flat[:3])


@pytest.mark.parametrize("k", [1, 3, 7])
def test_accumulated_gradient_is_the_big_batch_gradient(k):
    x, t = models.data(7)
    p = models.mlp_params()
    grad = sstad.grad(models.mlp_loss)
    want, got = ravel(grad(p, x, t))[0], ravel(accumulate(grad, k)(p, x, t))[0]
    assert np.max(np.abs(got - want)) < 1e-14
    value, _ = accumulate(sstad.value_and_grad(models.mlp_loss), k, with_value=True)(p, x, t)
    assert value == pytest.approx(models.mlp_loss(p, x, t), abs=1e-14)
    with pytest.raises(ValueError, match="into 8 micro-batches"):
        accumulate(grad, 8)(p, x, t)


def test_zero_on_one_rank_is_the_optimizer():
    x, t = models.data(6)
    grad = sstad.grad(models.mlp_loss)
    opt = optim.adam(lr=0.05, backend="python")
    plain, sharded = models.mlp_params(), models.mlp_params()
    state, sharded_state = opt.init(plain), zero.shard(opt).init(sharded)
    for _ in range(3):
        plain, state = opt.update(grad(plain, x, t), state, plain)
        sharded, sharded_state = zero.shard(opt).update(grad(sharded, x, t), sharded_state, sharded)
    assert np.max(np.abs(ravel(plain)[0] - ravel(sharded)[0])) == 0.0
    assert zero.state_bytes(sharded_state) == zero.state_bytes(state)
    with pytest.raises(ValueError, match="stage must be 1"):
        zero.shard(opt, stage=3)


def test_pipeline_of_one_stage_is_the_gradient():
    x, t = models.data(8)
    p = models.stage_params(1)[0]
    pipe = Pipeline([models.head], micro_batches=4)
    loss, g = pipe.value_and_grad(p, x, t)
    want_loss, want = sstad.value_and_grad(models.head)(p, x, t)
    assert loss == pytest.approx(want_loss, abs=1e-14)
    assert np.max(np.abs(ravel(g)[0] - ravel(want)[0])) < 1e-14
    with pytest.raises(ValueError, match="2 stages on 1 ranks"):
        Pipeline([models.hidden, models.head], micro_batches=2)
    with pytest.raises(ValueError, match="does not split into 3 equal micro-batches"):
        Pipeline([models.head], micro_batches=3).value_and_grad(p, x, t)


# --- several ranks --------------------------------------------------------------------------
CHECKS = ["accumulate-one-process", "accumulate-across-ranks", "zero-stage-1", "zero-stage-2", "zero-memory",
          "zero-merged-checkpoint", "zero-resumed", "pipeline-gpipe", "pipeline-1f1b", "sync-bn-input-gradient",
          "sync-bn-parameter-gradient", "sync-bn-training"]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """One compile cache for every launch of this module."""
    return tmp_path_factory.mktemp("sstad-cache")


def run_checks(n, folder, cache, backend="python", timeout=240):
    env = dict(os.environ, SSTAD_CACHE_DIR=str(cache), OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    script = pathlib.Path(__file__).parent / "mpi_parallel" / "checks.py"
    result = subprocess.run([MPIEXEC, "-n", str(n), sys.executable, str(script), str(folder), backend],
                            capture_output=True, text=True, timeout=timeout, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    done = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("ok ")]
    assert done == CHECKS, result.stdout


@needs_mpiexec
@pytest.mark.parametrize("n", [2, 3])
def test_strategies_equal_one_process(n, tmp_path, cache_dir):
    run_checks(n, tmp_path, cache_dir)


@needs_mpiexec
@pytest.mark.slow
@pytest.mark.parametrize("n, backend", [(4, "python"), (2, "numba")])
def test_strategies_equal_one_process_more(n, backend, tmp_path, cache_dir):
    run_checks(n, tmp_path, cache_dir, backend, timeout=600)
