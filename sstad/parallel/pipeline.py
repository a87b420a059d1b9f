"""Pipeline parallelism: a model split into stages, one stage per rank.

The user writes each stage as a plain NumPy function: ``stage(params, x) -> activation``,
and the last ``stage(params, x, targets) -> loss`` (a mean over the rows).  Rank ``r``
runs stage ``r`` on micro-batches, slot by slot, as the schedule says
(:mod:`sstad.parallel.schedules`, GPipe or 1F1B):

* a forward slot runs the stage (``sstad.jit``); the activation moves to the next rank
  by ``ppermute(y, right)``, ``right`` pairing each rank with the next;
* a backward slot runs the stage's pullback, which sstad derives from the stage's
  source (``sstad.pullback``); its cotangent for the input moves to the previous rank by
  the transpose of that same ``ppermute``, which sstad also derives (``ppermute``'s rule
  sends along the inverse pairs).

Every rank makes the same collective calls in the same slots (an idle rank sends
zeros), so no rank waits for a call that never comes.  The activations between stages
must all have one shape (``ppermute`` moves arrays of one shape), and the batch must
split into equal micro-batches.
"""
import time

import numpy as np

import sstad
from sstad import distributed
from sstad.parallel.schedules import schedule
from sstad.tree import ravel


def _shift_right(n):
    """``y -> ppermute(y, right)``: rank r's ``y`` goes to rank r + 1."""
    right = tuple((r, r + 1) for r in range(n - 1))

    def shift_right(y):
        return distributed.ppermute(y, right)
    return shift_right


class Pipeline:
    """``stages[r]`` runs on rank ``r``; ``len(stages)`` must be the number of ranks.

    ``value_and_grad(params, inputs, targets)`` runs one step's forwards and backwards
    over ``micro_batches`` micro-batches and returns ``(loss, grads)``: the loss of the
    whole batch (on every rank) and the gradient of this rank's ``params``.  ``inputs``
    are read on the first rank, ``targets`` on the last.  ``timing`` holds the last step's
    wall time, the time this rank spent computing and the time it spent in collectives
    (moving data, and waiting for the other ranks).

    Example (one rank, one stage), in a ``.py`` file::

        import numpy as np
        from sstad.parallel.pipeline import Pipeline

        def head(w, x, t):
            return np.mean((x @ w - t) ** 2)

        pipe = Pipeline([head], micro_batches=2)
        loss, g = pipe.value_and_grad(np.ones(2), np.ones((4, 2)), np.zeros(4))
        assert loss == 4.0 and np.allclose(g, [4.0, 4.0])
    """

    def __init__(self, stages, micro_batches, kind="1f1b", backend="python"):
        self.rank, self.size = distributed.rank(), distributed.world_size()
        if len(stages) != self.size:
            raise ValueError(f"{len(stages)} stages on {self.size} ranks: run one stage per rank "
                             f"(mpiexec -n {len(stages)})")
        if not (isinstance(micro_batches, int) and micro_batches >= 1):
            raise ValueError(f"micro_batches must be an int >= 1, not {micro_batches!r}")
        self.micro_batches = micro_batches
        self.slots = schedule(kind, self.size, micro_batches)
        self.last = self.rank == self.size - 1
        stage = stages[self.rank]
        self.forward = sstad.jit(stage, backend=backend)
        self.backward = sstad.jit(sstad.pullback(stage), backend=backend)
        send = _shift_right(self.size)
        self.send_right = sstad.jit(send, backend=backend)
        self.send_left = sstad.jit(sstad.pullback(send), backend=backend)   # ppermute's transpose
        self.shape = None     # of the activations between stages, agreed at each step
        self.timing = {}

    def value_and_grad(self, params, inputs, targets):
        m = self.micro_batches
        inputs = self._split(inputs, m) if self.rank == 0 else None
        targets = self._split(targets, m) if self.last else None
        received = {"F": {}, "B": {}}       # activations and cotangents, by micro-batch
        losses, total = [], None
        busy, talk, start = 0.0, 0.0, time.perf_counter()
        for s, slot in enumerate(self.slots):
            tick = time.perf_counter()
            y_out, dx_out, loss, dp = self._run(slot[self.rank], params, inputs, targets, received)
            if loss is not None:
                losses.append(loss)
            if dp is not None:
                flat, unravel = ravel(dp)
                total = flat if total is None else total + flat
            tock = time.perf_counter()
            if s == 0:
                self.shape = self._agree_shape(y_out)
            self._exchange(slot, y_out, dx_out, received)
            busy, talk = busy + tock - tick, talk + time.perf_counter() - tock
        loss = distributed.broadcast(float(sum(losses) / m) if self.last else 0.0, root=self.size - 1)
        self.timing = {"step": time.perf_counter() - start, "busy": busy, "collectives": talk}
        return loss, unravel(total)

    def _run(self, op, params, inputs, targets, received):
        """One slot's work on this rank: ``(activation to send, cotangent to send, loss,
        gradient of params)``, None where there is none."""
        if op is None:
            return None, None, None, None
        kind, b = op
        if kind == "F":
            x = inputs[b] if self.rank == 0 else received["F"][b]
            if self.last:
                return None, None, self.forward(params, x, targets[b]), None
            return self.forward(params, x), None, None, None
        x = inputs[b] if self.rank == 0 else received["F"].pop(b)   # kept until its backward
        if self.last:
            dp, dx, _ = self.backward(params, x, targets[b], 1.0 / self.micro_batches)
        else:
            dp, dx = self.backward(params, x, received["B"].pop(b))
        return None, dx if self.rank > 0 else None, None, dp

    def _split(self, batch, m):
        if batch is None:
            return None
        if batch.shape[0] % m:
            raise ValueError(f"a batch of {batch.shape[0]} rows does not split into {m} equal micro-batches")
        return np.split(batch, m)

    def _agree_shape(self, y):
        """The activations' shape, from the first rank (which makes one in slot 0)."""
        if self.size == 1:
            return None
        row = np.full(9, -1, dtype=np.int64)
        if self.rank == 0:
            row[0], row[1:1 + y.ndim] = y.ndim, y.shape
        row = distributed.broadcast(row, root=0)
        return tuple(int(n) for n in row[1:1 + row[0]])

    def _exchange(self, slot, y_out, dx_out, received):
        """Move this slot's activations right and cotangents left; every rank calls the
        same collectives, with zeros where it has nothing to send."""
        if self.size == 1:
            return
        zeros = np.zeros(self.shape)
        previous = slot[self.rank - 1] if self.rank > 0 else None
        following = slot[self.rank + 1] if not self.last else None
        if any(op is not None and op[0] == "F" for op in slot[:-1]):
            got = self.send_right(zeros if y_out is None else y_out)
            if previous is not None and previous[0] == "F":
                received["F"][previous[1]] = got
        if any(op is not None and op[0] == "B" for op in slot[1:]):
            got = self.send_left(zeros, zeros if dx_out is None else dx_out)
            if following is not None and following[0] == "B":
                received["B"][following[1]] = got
