"""Static values the lowering passes around besides atoms and containers."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Closure:
    """A nested ``def`` or ``lambda``: its node and the scope it reads free names from."""
    node: object
    scope: object
    filename: str
    name: str = "<lambda>"
    defaults: tuple = ()          # (name, value) pairs, evaluated where it was defined


@dataclass(frozen=True)
class RangeValue:
    start: object
    stop: object
    step: object


@dataclass(frozen=True)
class Enumerate:
    inner: object
    start: object = None          # enumerate(x, start): a constant or an integer atom; None is 0


@dataclass(frozen=True)
class Zip:
    items: tuple


@dataclass(frozen=True)
class BoundMethod:
    """``obj.name`` before the call: a method of an array, list or dict."""
    obj: object
    name: str


@dataclass(frozen=True)
class Partial:
    """``functools.partial(fn, *args, **kwargs)`` made in compiled code: a call of it calls
    ``fn`` with ``args`` first and ``kwargs`` (a tuple of pairs), which the call's own
    keywords override, as in Python."""
    func: object
    args: tuple
    kwargs: tuple


@dataclass(frozen=True)
class Counted:
    """A run-time iteration space: ``element(i)`` for i in range(start, stop, step)."""
    start: object
    stop: object
    step: object
    element: object
