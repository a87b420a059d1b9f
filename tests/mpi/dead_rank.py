"""Run under ``mpiexec``: rank 1 dies while the others wait in a collective.

``dead_rank.py raise``: rank 1 raises (its excepthook calls MPI_Abort);
``dead_rank.py kill``: rank 1 is killed by SIGKILL (no Python code runs; mpiexec sees it).
Every rank must end, non-zero, with a message naming rank 1."""
import os
import signal
import sys

import numpy as np

from sstad import distributed as dist


def step(x):
    return dist.all_reduce(x * x)


def main(how):
    x = np.ones(3)
    dist.all_reduce(x)                       # every rank is up and talking
    if dist.rank() == 1:
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        raise RuntimeError("rank 1 fails on purpose")
    import sstad
    sstad.jit(step, backend="python")(x)     # the others wait here for rank 1


if __name__ == "__main__":
    main(sys.argv[1])
