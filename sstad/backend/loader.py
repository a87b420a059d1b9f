"""Turn emitted source into callables: ``exec`` for python, a cached file for Numba.

The disk cache is ``$SSTAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/sstad``, else
``~/.cache/sstad``.  Each compiled function is one entry: ``<name>_<key>.py`` (the key
is the hash of its text) and the files Numba keeps for it in ``__pycache__/<name>_<key>.*``.
A *record* ``<name>_<key>.idx`` (the key from the function's source, see
``sstad/backend/source_key.py``) holds what a new process needs to run a compilation
without lowering it again: the emitted text of each backend, the result's structure and
the globals it reads.
Whenever a new entry is written (and when the process that wrote it exits), the least
recently used entries are removed until the cache holds at most ``$SSTAD_CACHE_MAX_MB``
megabytes (500 by default); "used" is the module file's access time, set on every load.
"""
from __future__ import annotations

import atexit
import hashlib
import importlib.util
import linecache
import os
import pathlib
import pickle
import re
import sys
import threading
import time
from dataclasses import dataclass

import numba

import sstad.runtime as _runtime
from sstad.backend.numba_linking import CALLEE_MARK, GLUE_MARK

DEFAULT_CACHE_MAX_MB = 500
# The names of the files sstad writes: the module (and its temporary while it is written),
# and in __pycache__ Numba's index and code files and Python's bytecode.
_STEM = r"([A-Za-z0-9_]+_[0-9a-f]{20})"
_MODULE_FILE = re.compile(_STEM + r"\.(py|idx|tmp[0-9]+)$")
_PYCACHE_FILE = re.compile(_STEM + r"\..+\.(nbi|nbc|pyc)$")


def cache_dir(create=True):
    """Where generated modules live: $SSTAD_CACHE_DIR, else $XDG_CACHE_HOME/sstad, else
    ~/.cache/sstad."""
    root = os.environ.get("SSTAD_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "sstad")
    path = pathlib.Path(root)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def cache_max_bytes():
    """The size bound: $SSTAD_CACHE_MAX_MB megabytes (default 500)."""
    text = os.environ.get("SSTAD_CACHE_MAX_MB", "").strip()
    if not text:
        return DEFAULT_CACHE_MAX_MB * 10**6
    try:
        megabytes = float(text)
    except ValueError:
        megabytes = -1.0
    if not megabytes >= 0:
        raise ValueError(f"SSTAD_CACHE_MAX_MB must be a number of megabytes >= 0, not {text!r}")
    return int(megabytes * 10**6)


@dataclass
class CacheEntry:
    """One compiled function on disk: its files, their total size, and when it was last used."""
    stem: str
    files: list
    size: int = 0
    last_used: int = 0       # nanoseconds


def cache_entries(root=None):
    """The entries of the cache, least recently used first.  Only files named like the
    ones sstad writes are counted (and ever removed)."""
    root = pathlib.Path(root) if root is not None else cache_dir(create=False)
    entries = {}
    for folder, pattern in ((root, _MODULE_FILE), (root / "__pycache__", _PYCACHE_FILE)):
        try:
            children = list(os.scandir(folder))
        except OSError:
            continue
        for child in children:
            match = pattern.match(child.name)
            if not match:
                continue
            try:
                stat = child.stat(follow_symlinks=False)
            except OSError:                        # removed meanwhile by another process
                continue
            entry = entries.setdefault(match.group(1), CacheEntry(match.group(1), []))
            entry.files.append(child.path)
            entry.size += stat.st_size
            if folder == root and child.name.endswith((".py", ".idx")):
                entry.last_used = stat.st_atime_ns   # set on every load: see _mark_used
    return sorted(entries.values(), key=lambda e: e.last_used)


def _remove(entry):
    for path in entry.files:
        try:
            os.unlink(path)
        except OSError:
            pass


def prune_cache(max_bytes=None, keep=(), root=None):
    """Remove least recently used entries until the cache holds at most ``max_bytes``
    (default :func:`cache_max_bytes`); the stems in ``keep`` stay.  Returns the number
    of entries removed."""
    return _prune(cache_max_bytes() if max_bytes is None else max_bytes, keep, root)[0]


def _prune(max_bytes, keep, root, room=0.0):
    """``prune_cache``, which where the cache held more than ``max_bytes`` leaves at most
    ``(1 - room) * max_bytes``: (entries removed, bytes left)."""
    entries = cache_entries(root)
    total = sum(e.size for e in entries)
    target = max_bytes if total <= max_bytes else int((1 - room) * max_bytes)
    removed = 0
    for entry in entries:
        if total <= target:
            break
        if entry.stem in keep:
            continue
        _remove(entry)
        total -= entry.size
        removed += 1
    return removed, total


def clear_cache(root=None):
    """Remove every entry; returns how many there were."""
    entries = cache_entries(root)
    for entry in entries:
        _remove(entry)
    return len(entries)


def _runtime_digest():
    """Generated code calls the runtime: its source is part of every cache key."""
    digest = hashlib.sha256()
    for path in sorted(pathlib.Path(_runtime.__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


RUNTIME_DIGEST = _runtime_digest()


def content_key(source):
    return hashlib.sha256((RUNTIME_DIGEST + numba.__version__ + source).encode()).hexdigest()[:20]


def load_python(source, entry, label):
    """Run the emitted module with ``exec``; tracebacks show the generated lines."""
    filename = f"<sstad {label} {content_key(source)[:8]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": f"sstad_generated_{label}"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[entry]


def emitted_functions(source):
    """The names of the functions an emitted module defines (outlined parts included)."""
    return re.findall(r"^def (\w+)\(", source, re.M)


def numba_source(source, function_names):
    """The module with its functions compiled by Numba.  Outlined parts and kernels
    (marked by the emitter) are called by symbol, and code without loops that only
    sequences calls is optimised less (``sstad/backend/numba_linking.py``)."""
    # Numba's disk cache cannot reload recursive functions (the second process to load
    # one crashes): a module with recursion is compiled afresh in each process.
    cache = not _recursive(source, function_names)
    options = {name: ", callee=True" if mark == CALLEE_MARK else ", callee=True, glue=True"
               for mark, name in re.findall(rf"^({CALLEE_MARK}|{GLUE_MARK})\ndef (\w+)\(", source, re.M)}
    if not options:
        return source + "\n\nimport numba  # noqa: E402\n" + "".join(
            f"{name} = numba.njit(cache={cache})({name})\n" for name in function_names)
    for name in set(function_names) - set(options):
        if _calls_its_parts(source, name):
            options[name] = ", glue=True"
    return source + "\n\nfrom sstad.backend.numba_linking import jit  # noqa: E402\n" + "".join(
        f"{name} = jit({name}, cache={cache}{options.get(name, '')})\n" for name in function_names)


def _calls_its_parts(source, name):
    """Is ``name`` a function whose body was outlined (it calls ``name_part1``, ...) and
    that holds no loop of its own?  Its code is calls of the parts, and branches."""
    body = re.search(rf"^def {name}\(.*?(?=^\S|\Z)", source, re.S | re.M).group(0)
    return (re.search(rf"\b{name}_part[0-9]+\(", body) is not None
            and re.search(r"^\s+(for|while) ", body, re.M) is None)


def _recursive(source, function_names):
    """Does a function of the module call itself, directly or through others?"""
    bodies = dict(re.findall(r"^def (\w+)\((.*?)(?=^def |\Z)", source, re.S | re.M))
    calls = {f: {g for g in function_names if re.search(rf"\b{g}\(", bodies.get(f, ""))} for f in function_names}
    for start in function_names:
        seen, todo = set(), list(calls[start])
        while todo:
            f = todo.pop()
            if f == start:
                return True
            if f not in seen:
                seen.add(f)
                todo.extend(calls.get(f, ()))
    return False


def _mark_used(path):
    """Set the access time to now (the LRU order), keeping the modification time, which
    Numba's cache may use to tell whether its compiled code is fresh."""
    now = time.time_ns()
    os.utime(path, ns=(now, path.stat().st_mtime_ns))


_pruned_at_exit = set()     # cache folders this process added entries to

# Pruning lists the whole cache; a full one (thousands of entries) takes a good part of a
# second, so a process lists it again only when what it wrote since may pass the bound,
# or after SCAN_EVERY new entries (Numba writes its files for an entry after the entry is
# saved: they count from the next listing, and at exit).  A prune of a full cache frees
# ROOM of the bound, so the next entries need no listing.
SCAN_EVERY, ROOM = 16, 0.1
_listed = {}                # cache folder -> [bytes at the last listing + bytes written since, entries since]


def _added(path, keep):
    """Bound the cache after this process wrote ``path`` (an entry named ``keep``)."""
    max_bytes = cache_max_bytes()
    seen = _listed.get(path.parent)
    size = path.stat().st_size
    if seen is not None and seen[0] + size <= max_bytes and seen[1] < SCAN_EVERY:
        seen[0] += size
        seen[1] += 1
        return
    _listed[path.parent] = [_prune(max_bytes, {keep}, path.parent, ROOM)[1], 0]


def load_numba(source, function_names, entry, label):
    """Write the module to the cache directory (so Numba's ``cache=True`` works) and
    import it.  The file name is the hash of its content: an edited or stale file
    simply has another name.  A new file prunes the cache to its size bound."""
    if "rt.collectives." in source:
        # Numba's cached code calls MPI's functions by symbol name, and the library is
        # linked when a collective is lowered, which a process that reads the code from
        # its disk record never does (the first call would jump to a null address).
        from sstad.backend.collectives_numba import mpi
        mpi()
    text = numba_source(source, function_names)
    key = content_key(text)
    safe = "".join(c if c.isalnum() else "_" for c in label)
    stem = f"{safe}_{key}"
    path = cache_dir() / f"{stem}.py"
    if path.exists() and path.read_text() == text:
        _mark_used(path)
    else:
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, path)
        _mark_used(path)
        _added(path, stem)
        if path.parent not in _pruned_at_exit:     # Numba adds the entry's code when it first
            _pruned_at_exit.add(path.parent)       # runs it: prune again at exit
            atexit.register(prune_cache, root=path.parent)
    module_name = f"sstad_generated.{stem}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[module_name] = module
    return getattr(module, entry), path


RECORD_VERSION = 1


def _record_path(label, key):
    safe = "".join(c if c.isalnum() else "_" for c in label)
    return cache_dir() / f"{safe}_{key}.idx"


def load_record(label, key):
    """The record saved under ``key``, or None (absent, unreadable or of another version)."""
    path = _record_path(label, key)
    try:
        with open(path, "rb") as f:
            record = pickle.load(f)
    except Exception:      # unreadable, cut short, or a class it names is gone: compile as usual
        return None
    if not isinstance(record, dict) or record.get("version") != RECORD_VERSION:
        return None
    _mark_used(path)
    return record


def save_record(label, key, record):
    """Write ``record`` (a dict of picklable values) under ``key``, atomically."""
    path = _record_path(label, key)
    tmp = path.with_suffix(f".tmp{os.getpid()}{threading.get_ident()}")    # a tiered call saves from two threads
    tmp.write_bytes(pickle.dumps(dict(record, version=RECORD_VERSION)))
    os.replace(tmp, path)
    _mark_used(path)
    _added(path, path.stem)
