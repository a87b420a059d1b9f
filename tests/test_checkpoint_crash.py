"""Crash safety: a process saving a large checkpoint is SIGKILLed, at random points and
at each step of the durable write; the previous checkpoint (or the whole new one) always
loads and verifies, and a partial file is never taken for a checkpoint.

The savers are forked from a forkserver that has imported sstad once, so each of the
many processes starts in milliseconds.
"""
import multiprocessing
import os
import signal
import time

import numpy as np
import pytest

from sstad.checkpoint import CheckpointManager, load, save
from sstad.checkpoint import durable

LARGE = 6_500_000                                  # float64: a 52 MB checkpoint


def params_of(step, size):
    return {"w": np.arange(size, dtype=np.float64) + step, "b": np.full(3, step, dtype=np.int64)}


def checked_step(ckpt):
    """The step a loaded checkpoint holds, after checking its values are that step's (the
    load has checked every byte against the checksums: a sample of values will do)."""
    step, w = ckpt.meta["step"], ckpt.params["w"]
    sample = np.arange(0, len(w), 997)
    assert np.array_equal(w[sample], sample + step) and w[-1] == len(w) - 1 + step
    assert np.array_equal(ckpt.params["b"], np.full(3, step))
    return step


def save_one(folder, mode, step, size):
    if mode == "manager":
        CheckpointManager(folder, keep_max=2, async_save=False).save(step, params_of(step, size))
    else:
        save(os.path.join(folder, "model.safetensors"), params_of(step, size), meta={"step": step})


def latest(folder, mode):
    """The step of the checkpoint a restart would take, loaded and verified."""
    if mode == "manager":
        return checked_step(CheckpointManager(folder, keep_max=2).restore())
    return checked_step(load(os.path.join(folder, "model.safetensors")))


def saver(folder, mode, step, size, conn):
    """Save step after step until killed, saying when each save begins and ends."""
    while True:
        conn.send(("begin", step))
        save_one(folder, mode, step, size)
        conn.send(("done", step))
        step += 1


def killed_at(folder, mode, step, size, point, conn):
    """Save once, SIGKILLing this process at ``point`` of the durable write."""
    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    real_open, real_replace, real_fsync = open, os.replace, os.fsync

    class HalfWritten:
        def __init__(self, *args):
            self.f = real_open(*args)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            self.f.write(data[:len(data) // 2])
            self.f.flush()
            die()

    if point == "mid-write":
        durable.open = HalfWritten
    elif point == "before-fsync":
        os.fsync = lambda fd: die()
    elif point == "before-rename":
        os.replace = lambda a, b: die()
    elif point == "before-folder-fsync":
        os.replace = lambda a, b: (real_replace(a, b), die())
    conn.send(("begin", step))
    save_one(folder, mode, step, size)
    os.fsync = real_fsync
    conn.send(("done", step))


@pytest.fixture(scope="module")
def forkserver():
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["numpy", "sstad.checkpoint", __name__])
    return context


def run_and_kill(context, target, args, delay):
    """Start ``target``, SIGKILL it ``delay`` seconds after its first save begins (or let it
    die by itself); returns the last step begun and the last step done."""
    ours, theirs = context.Pipe()
    process = context.Process(target=target, args=args + (theirs,))
    process.start()
    assert ours.poll(60), "the saver did not start"
    messages = [ours.recv()]
    process.join(delay)
    process.kill()
    process.join()
    assert process.exitcode == -signal.SIGKILL
    while ours.poll():
        messages.append(ours.recv())
    begun = max(s for kind, s in messages if kind == "begin")
    done = max((s for kind, s in messages if kind == "done"), default=None)
    return begun, done


def temporaries(folder):
    return [name for name in os.listdir(folder) if durable.TEMPORARY.match(name)]


def crash_many_times(tmp_path, forkserver, kills, seed):
    rng = np.random.default_rng(seed)
    folders = {mode: tmp_path / mode for mode in ("manager", "path")}
    seconds, steps = {}, {}
    for mode, folder in folders.items():
        folder.mkdir()
        start = time.perf_counter()
        save_one(folder, mode, 0, LARGE)
        seconds[mode], steps[mode] = time.perf_counter() - start, 0
    unfinished = 0
    for trial in range(kills):
        mode = ("manager", "path")[trial % 2]
        folder, before = folders[mode], steps[mode]
        begun, done = run_and_kill(forkserver, saver, (str(folder), mode, before + 1, LARGE),
                                   rng.uniform(0, 1.3 * seconds[mode]))
        after = steps[mode] = latest(folder, mode)     # loads and verifies, or fails the test
        assert after in (done or before, begun), (mode, before, begun, done, after)
        unfinished += after < begun
        if mode == "manager":
            assert CheckpointManager(folder).steps()[-1] == after      # no partial file is a step
        durable.remove_stale_temporaries(folder)
        assert temporaries(folder) == []
    assert unfinished > 0, "no kill landed inside a save"


def test_random_kills_never_lose_the_previous_checkpoint(tmp_path, forkserver):
    crash_many_times(tmp_path, forkserver, kills=20, seed=0)


@pytest.mark.slow
def test_many_random_kills(tmp_path, forkserver):
    crash_many_times(tmp_path, forkserver, kills=200, seed=1)


@pytest.mark.parametrize("mode", ["manager", "path"])
def test_a_kill_at_each_step_of_the_write(tmp_path, forkserver, mode):
    save_one(tmp_path, mode, 0, 100_000)
    before = 0
    for point in ["mid-write", "before-fsync", "before-rename", "before-folder-fsync"]:
        run_and_kill(forkserver, killed_at, (str(tmp_path), mode, before + 1, 100_000, point), delay=60)
        left = temporaries(tmp_path)
        after = latest(tmp_path, mode)
        if point == "before-folder-fsync":              # renamed: the new file is whole
            assert after == before + 1 and left == []
        else:                                           # the old file, and a temporary nothing reads
            assert after == before and len(left) == 1, point
            durable.remove_stale_temporaries(tmp_path)
            assert temporaries(tmp_path) == []
        before = after
