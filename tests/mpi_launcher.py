"""Where ``mpiexec`` is: on PATH, or beside this Python (pip's ``mpich`` puts it there, which
is not on PATH when a virtual environment is used without being activated)."""
import os
import shutil
import sys

import pytest

MPIEXEC = shutil.which("mpiexec") or shutil.which("mpiexec", path=os.path.dirname(sys.executable))
needs_mpiexec = pytest.mark.skipif(MPIEXEC is None, reason="needs mpiexec (pip install mpi4py mpich)")
