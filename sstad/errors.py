"""Errors that belong to the user's code: each names file:line:col and shows the line."""
import contextlib
import linecache
import os


class SstadError(Exception):
    """Base class of every error sstad raises about a user's program.

    ``str(error)`` reads like a compiler diagnostic::

        model.py:12:8: `try` is not supported
            try:
            ^
        hint: move the try/except outside the function you compile
    """

    def __init__(self, message, loc=None, hint=None):
        self.message, self.loc, self.hint = message, loc, hint
        super().__init__(self._render())

    def _render(self):
        if self.loc is None:
            text = self.message
        else:
            text = f"{self.loc.file}:{self.loc.line}:{self.loc.col + 1}: {self.message}"
            line = linecache.getline(self.loc.file, self.loc.line).rstrip()
            if line:
                indent = len(line) - len(line.lstrip())
                text += f"\n    {line.strip()}\n    {' ' * max(self.loc.col - indent, 0)}^"
        if self.hint:
            text += f"\nhint: {self.hint}"
        return text


class UnsupportedSyntaxError(SstadError):
    """A construct outside the supported Python subset (see docs/subset.md)."""


class SstadTypeError(SstadError):
    """A value whose type cannot be inferred or changes where it must not."""


class SourceError(SstadError):
    """The source of a function cannot be found or parsed."""


class BackendError(SstadError):
    """The emitted code could not be compiled (e.g. Numba nopython typing failed)."""


class RunTimeRefusal(SstadError):
    """What sstad's code for a NumPy function or derivative cannot handle, decided by the
    compiled code at run time (a shape, a matrix without a real square root), at the
    user's call: raised as ``RunTimeRefusal(message, file, line, col)``."""

    def __init__(self, message, file=None, line=0, col=0):
        from sstad.ir.nodes import Loc
        super().__init__(message, Loc(file, line, col) if file is not None else None)

    def __reduce__(self):
        loc = self.loc
        return type(self), (self.message, *((loc.file, loc.line, loc.col) if loc is not None else ()))


class AliasingError(SstadError):
    """A write through a view whose effect on other names sstad cannot track."""


@contextlib.contextmanager
def at_users_line(loc, what):
    """Errors raised inside sstad's own rules or composites while compiling the user's
    call at ``loc`` are reported at that call: the user's line, naming ``what``."""
    try:
        yield
    except SstadError as error:
        if loc is None or error.loc is None or not inside_sstad(error.loc.file) or inside_sstad(loc.file):
            raise
        where = f"{os.path.basename(error.loc.file)}:{error.loc.line}"
        raise type(error)(f"{error.message} (in {what}, {where})", loc, error.hint) from None


def inside_sstad(filename):
    package = os.path.dirname(os.path.abspath(__file__))
    runtime = os.path.join(os.path.dirname(package), "runtime")
    path = os.path.abspath(filename)
    return path.startswith(package + os.sep) or path.startswith(runtime + os.sep)


def _install_run_time_refusal():
    from sstad.runtime import helpers
    helpers.REFUSAL = RunTimeRefusal


_install_run_time_refusal()
