"""Unsupported constructs are rejected with an error that points at the user's line."""

import inspect
import re

import pytest

import sstad
from error_cases import ERROR_CASES
from sstad.errors import SstadError

MARKER = "# ERR"


def marked_lines(fn):
    """1-based line numbers, in error_cases.py, of the lines of ``fn`` ending with the marker."""
    lines, start = inspect.getsourcelines(fn)
    return [start + i for i, line in enumerate(lines) if line.rstrip().endswith(MARKER)]


def has_caret_line(message):
    """True if some line of ``message`` starts (after spaces or a ``|`` gutter) with ``^``."""
    return any(re.match(r"[\s|]*\^", line) for line in message.splitlines())


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_error_case_marks_its_offending_line(name):
    assert marked_lines(ERROR_CASES[name][0])


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_unsupported_construct_is_reported_at_its_line(name):
    fn, args = ERROR_CASES[name]
    with pytest.raises(SstadError) as info:
        sstad.jit(fn, backend="python")(*args)
    message = str(info.value)
    lines = marked_lines(fn)
    assert any(re.search(rf"error_cases\.py:{line}(?!\d)", message) for line in lines), (
        f"expected error_cases.py:{' or '.join(map(str, lines))} in:\n{message}"
    )
    assert has_caret_line(message), f"no caret line in:\n{message}"
