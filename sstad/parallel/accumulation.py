"""Gradient accumulation: one update from ``k`` micro-batches, equal to the big-batch step.

A loss that is a mean over the batch has the big-batch gradient
``sum_i (n_i / n) * g_i`` over micro-batches of ``n_i`` rows; that is what is summed, in
one flat vector.  Across ranks (``across_ranks=True``) the rows of every rank count: each
rank sums ``n_i * g_i`` locally, and one ``all_reduce`` per update (not per micro-batch)
adds the sums and the row counts of all ranks, so uneven batches are weighted exactly.
"""
import numpy as np

from sstad import distributed
from sstad.tree import ravel


def split_batch(batch, k):
    """``k`` micro-batches of ``batch`` (arrays split along axis 0, ``np.array_split``)."""
    rows = {np.shape(b)[0] for b in batch}
    if len(rows) != 1:
        raise ValueError(f"the batch arrays have different numbers of rows: {sorted(rows)}")
    n = rows.pop()
    if not 1 <= k <= n:
        raise ValueError(f"cannot split a batch of {n} rows into {k} micro-batches")
    pieces = [np.array_split(b, k) for b in batch]
    return [tuple(p[i] for p in pieces) for i in range(k)]


def accumulate(grad_fn, micro_batches, across_ranks=False, with_value=False):
    """``grad_fn(params, *batch)`` summed over ``micro_batches`` pieces of the batch.

    ``grad_fn`` is the gradient of a loss that is a *mean* over the batch rows
    (``sstad.grad(loss)``; with ``with_value=True``, ``sstad.value_and_grad(loss)``), and
    the batch arguments are arrays with one row per example.  The result is the gradient
    (and loss) of the whole batch, computed ``micro_batches`` rows-slices at a time.  With
    ``across_ranks=True`` every rank passes its own part of the global batch and gets
    the global batch's gradient, after one ``sstad.distributed.all_reduce`` per call.

    Example, in a ``.py`` file::

        import numpy as np
        import sstad
        from sstad.parallel import accumulate

        def loss(w, x):
            return np.mean((x @ w) ** 2)

        w, x = np.ones(3), np.arange(12.0).reshape(4, 3)
        g = accumulate(sstad.grad(loss), 2)(w, x)
        assert np.allclose(g, sstad.grad(loss)(w, x))
    """
    def accumulated(params, *batch):
        total, unravel, loss = None, None, 0.0
        for piece in split_batch(batch, micro_batches):
            out = grad_fn(params, *piece)
            value, grads = out if with_value else (0.0, out)
            flat, unravel = ravel(grads)
            n = piece[0].shape[0]
            total = n * flat if total is None else total + n * flat
            loss += n * value
        rows = sum(np.shape(b)[0] for b in batch[:1])
        if across_ranks:
            summed = distributed.all_reduce(np.concatenate([total, [loss, rows]]), op="sum")
            total, loss, rows = summed[:-2], summed[-2], summed[-1]
        grads = unravel(total / rows)
        return (float(loss / rows), grads) if with_value else grads
    return accumulated
