"""A folder of checkpoints: one every few steps, the newest few kept, and the best."""
import os
import re
import threading

import numpy as np

from sstad.checkpoint import fileformat
from sstad.checkpoint.durable import remove_durably, remove_stale_temporaries
from sstad.checkpoint.errors import CheckpointError
from sstad.checkpoint.files import encode, load

SUFFIX = ".safetensors"


class CheckpointManager:
    """Checkpoints ``DIR/PREFIX-00000042.safetensors`` of a training run.

    ``save(step, params, opt_state, meta, metrics)`` writes one every ``every_steps`` steps
    and keeps the ``keep_max`` newest, plus the best by ``best_metric`` (a key of
    ``metrics``; ``best_mode`` ``"min"`` or ``"max"``).  With ``async_save`` the arrays
    are copied at the call and written by a background thread while training goes on; the
    next save that is due waits for the previous one, and an error of a background save is
    raised by the next call of any method (or by :meth:`wait`).  Only whole files count as
    checkpoints: a crash mid-save leaves the previous ones.

    >>> import numpy as np, tempfile
    >>> with CheckpointManager(tempfile.mkdtemp(), keep_max=2) as manager:
    ...     for step in range(1, 5):
    ...         _ = manager.save(step, {"w": np.full(3, float(step))})
    >>> manager.steps(), manager.restore().params["w"]
    ([3, 4], array([4., 4., 4.]))
    """

    def __init__(self, directory, keep_max=5, every_steps=1, async_save=True, best_metric=None,
                 best_mode="min", prefix="ckpt"):
        if best_mode not in ("min", "max"):
            raise CheckpointError(f"best_mode is 'min' or 'max', not {best_mode!r}")
        if keep_max is not None and keep_max < 1:
            raise CheckpointError(f"keep_max is at least 1 (or None to keep all), not {keep_max!r}")
        self.directory = os.fspath(directory)
        self.keep_max, self.every_steps, self.async_save = keep_max, every_steps, async_save
        self.best_metric, self.best_mode, self.prefix = best_metric, best_mode, prefix
        self.pattern = re.compile(rf"^{re.escape(prefix)}-(\d+){re.escape(SUFFIX)}$")
        os.makedirs(self.directory, exist_ok=True)
        remove_stale_temporaries(self.directory)
        self.thread, self.error, self.metrics = None, None, {}

    # --- saving ------------------------------------------------------------------------
    def should_save(self, step):
        return step % self.every_steps == 0

    def save(self, step, params, opt_state=None, meta=None, metrics=None, force=False):
        """Save step ``step`` if it is due (or ``force``); returns whether it saved.  The
        file holds the values at this call, whatever training does to the arrays later.
        ``meta`` gets ``step`` (and ``metrics``) added."""
        if not (force or self.should_save(step)):
            self.raise_background_error()        # without waiting: training goes on
            return False
        self.wait()
        meta = dict(meta or {}, step=step)
        if metrics is not None:
            meta["metrics"] = metrics
        tensors, metadata = encode(params, opt_state, meta)
        path = self.path(step)
        if not self.async_save:
            self.write(path, step, tensors, metadata)
            return True
        snapshot = {name: np.array(value, copy=True) for name, value in tensors.items()}
        self.thread = threading.Thread(target=self.write_in_background, name=f"checkpoint-{step}",
                                       args=(path, step, snapshot, metadata))
        self.thread.start()
        return True

    def write(self, path, step, tensors, metadata):
        fileformat.write(path, tensors, metadata)
        self.metrics[step] = metadata["meta"].get("metrics")
        self.rotate()

    def write_in_background(self, *args):
        try:
            self.write(*args)
        except BaseException as error:       # handed to the training thread by the next call
            self.error = error

    def wait(self):
        """Wait for the background save, if any; raise its error, if it failed."""
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        self.raise_background_error()

    def raise_background_error(self):
        if self.thread is not None and not self.thread.is_alive():
            self.thread = None
        error, self.error = self.error, None
        if error is not None:
            raise CheckpointError(f"the background save to {self.directory} failed: "
                                  f"{type(error).__name__}: {error}") from error

    def close(self):
        self.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.wait()

    # --- what is there -----------------------------------------------------------------
    def path(self, step):
        return os.path.join(self.directory, f"{self.prefix}-{step:08d}{SUFFIX}")

    def steps(self):
        """The steps of the complete checkpoints on disk, oldest first."""
        self.raise_background_error()
        return self.steps_on_disk()

    def latest(self):
        steps = self.steps()
        return steps[-1] if steps else None

    def best(self):
        """The step whose ``metrics[best_metric]`` is lowest (``"min"``) or highest."""
        if self.best_metric is None:
            raise CheckpointError("this CheckpointManager has no best_metric",
                                  hint="CheckpointManager(dir, best_metric='loss', best_mode='min')")
        self.raise_background_error()
        return self.best_on_disk()

    def best_on_disk(self):
        scored = [(value, step) for step in self.steps_on_disk()
                  if (value := self.metric(step)) is not None]
        if not scored:
            return None
        return (min if self.best_mode == "min" else max)(scored)[1]

    def metric(self, step):
        if step not in self.metrics:
            try:
                self.metrics[step] = fileformat.read_metadata(self.path(step))["meta"].get("metrics")
            except (CheckpointError, OSError):
                self.metrics[step] = None      # unreadable header: restore() reports it
        value = (self.metrics[step] or {}).get(self.best_metric)
        return value if isinstance(value, (int, float)) and value == value else None

    def restore(self, step=None, like=None, strict=True):
        """Load step ``step`` (the latest by default; ``"best"`` for :meth:`best`)."""
        self.wait()
        step = self.best() if step == "best" else self.latest() if step is None else step
        if step is None:
            raise CheckpointError(f"{self.directory} holds no checkpoint named {self.prefix}-STEP"
                                  f"{SUFFIX}")
        return load(self.path(step), like=like, strict=strict)

    def rotate(self):
        """Delete all but the ``keep_max`` newest and the best."""
        if self.keep_max is None:
            return
        steps = self.steps_on_disk()
        keep = set(steps[-self.keep_max:])
        if self.best_metric is not None:
            keep.add(self.best_on_disk())
        remove_durably([self.path(s) for s in steps if s not in keep], self.directory)

    def steps_on_disk(self):
        found = (self.pattern.match(name) for name in os.listdir(self.directory))
        return sorted(int(m.group(1)) for m in found if m)
