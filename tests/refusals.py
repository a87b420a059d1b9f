"""``refused_at``: the check that a refusal names the user's line, shared by the user-program tests."""
import inspect
import os
import re

import pytest

import sstad
from sstad.errors import SstadError


def refused_at(fn, args, pattern, marker, error=SstadError):
    """``sstad.grad(fn)`` raises ``error`` matching ``pattern`` that names the line of ``fn``
    holding ``marker`` (in the file that defines ``fn``)."""
    with pytest.raises(error) as info:
        sstad.grad(fn)(*args)
    lines, start = inspect.getsourcelines(fn)
    line = next(start + i for i, text in enumerate(lines) if marker in text)
    message = str(info.value)
    assert re.search(pattern, message), message
    assert re.search(rf"{re.escape(os.path.basename(inspect.getsourcefile(fn)))}:{line}\b", message), message
