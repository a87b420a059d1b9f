"""Writing a file so that a crash leaves either the old file or the whole new one.

The bytes go to a temporary file in the same folder (same file system, so the rename is
atomic), are flushed to disk (fsync), and the temporary file is renamed over the target;
then the folder is flushed so the rename itself survives a power loss.  A crash before the
rename leaves the old file and a temporary ``.NAME.tmp-PID-TOKEN`` that nothing reads as a
checkpoint (:func:`remove_stale_temporaries` deletes those of dead processes).
"""
import contextlib
import os
import re
import secrets

TEMPORARY = re.compile(r"^\..+\.tmp-(\d+)-[0-9a-f]+$")


def atomic_write(path, data):
    """Make ``data`` (bytes) the content of ``path``, durably and atomically."""
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    temporary = os.path.join(folder, f".{name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        with open(temporary, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    fsync_folder(folder)


def fsync_folder(folder):
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_durably(paths, folder):
    """Delete files, then flush the folder so the deletions are on disk too."""
    for path in paths:
        with contextlib.suppress(FileNotFoundError):     # another process got there first
            os.unlink(path)
    if paths:
        fsync_folder(folder)


def remove_stale_temporaries(folder):
    """Delete the temporary files that processes no longer running left in ``folder``."""
    stale = []
    for name in os.listdir(folder):
        match = TEMPORARY.match(name)
        if match and not process_alive(int(match.group(1))):
            stale.append(os.path.join(folder, name))
    remove_durably(stale, folder)
    return stale


def process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True
