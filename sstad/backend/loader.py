"""Turn emitted source into callables: ``exec`` for python, a cached file for Numba."""
from __future__ import annotations

import hashlib
import importlib.util
import linecache
import os
import pathlib
import sys

import numba

import sstad.runtime as _runtime


def cache_dir():
    """Where generated modules live: $SSTAD_CACHE_DIR, else ~/.cache/sstad."""
    root = os.environ.get("SSTAD_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "sstad")
    path = pathlib.Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


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


def numba_source(source, function_names):
    footer = "\n\nimport numba  # noqa: E402\n" + "".join(
        f"{name} = numba.njit(cache=True)({name})\n" for name in function_names)
    return source + footer


def load_numba(source, function_names, entry, label):
    """Write the module to the cache directory (so Numba's ``cache=True`` works) and
    import it.  The file name is the hash of its content: an edited or stale file
    simply has another name."""
    text = numba_source(source, function_names)
    key = content_key(text)
    safe = "".join(c if c.isalnum() else "_" for c in label)
    path = cache_dir() / f"{safe}_{key}.py"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, path)
    module_name = f"sstad_generated.{safe}_{key}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[module_name] = module
    return getattr(module, entry), path
