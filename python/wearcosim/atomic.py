"""Atomic file writes: nothing half-written is ever left at the destination.

``with atomic_path(dest) as tmp:`` yields a temporary path in the destination's directory;
when the block succeeds the file is fsync'ed and renamed over ``dest`` (then the directory
is fsync'ed); when it fails the temporary file is removed and ``dest`` is untouched; an I/O error names
``dest`` (:func:`named`).

The file gets the mode a plain ``open(dest, "w")`` would give it (0666 less the umask;
``mkstemp`` alone creates 0600).  A process killed inside the block leaves its temporary
file (``.<name>.<random><suffix>``); :func:`stale_temporaries` lists them for clean-up.
"""
from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def umask() -> int:
    """The process's umask (read from /proc where possible: setting it to read it back is
    not thread-safe)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    m = os.umask(0o022)
    os.umask(m)
    return m


def stale_temporaries(dest: str | os.PathLike[str], suffix: str = ".tmp") -> list[Path]:
    """Temporary files that :func:`atomic_path` of ``dest`` may have left behind."""
    dest = Path(dest)
    return sorted(dest.parent.glob(f".{dest.name}.*{suffix}"))


def reason(exc: OSError) -> str:
    """The cause of an I/O error in a few words (``No space left on device``), also for HDF5's
    long messages, which carry the system's error number in their text."""
    if exc.strerror:
        return str(exc.strerror)
    m = re.search(r"errno = (\d+)", str(exc))
    if m and int(m.group(1)):
        return os.strerror(int(m.group(1)))
    if exc.errno:
        return os.strerror(exc.errno)
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def named(exc: OSError, path: str | os.PathLike[str]) -> OSError:
    """``exc`` as an error that names ``path`` (the file the user knows, not a temporary
    one): its ``filename`` is ``path`` and its ``strerror`` the cause, which the command line
    prints as ``error: <path>: <cause>``.  An error that already names another file (a
    folder that cannot be made, say) is kept."""
    if exc.filename is not None and exc.strerror and ".tmp" not in str(exc.filename) \
            and Path(exc.filename).name != Path(path).name:
        return exc
    m = re.search(r"errno = (\d+)", str(exc))
    code = exc.errno or (int(m.group(1)) if m else None)
    return OSError(code, reason(exc), str(path))


def fsync_dir(d: str | os.PathLike[str]) -> None:
    """Flush a folder's entries to disk (after a rename into it); errors are ignored (not every
    file system lets a folder be opened or synced)."""
    try:
        fd = os.open(str(d), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_path(dest: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[Path]:
    """``with atomic_path(dest) as tmp:`` write ``tmp`` (a new file beside ``dest``, with the
    permissions the umask gives); when the block ends normally it is synced and renamed over
    ``dest``, otherwise removed: ``dest`` is either the old file or the complete new one."""
    dest = Path(dest)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix="." + dest.name + ".", suffix=suffix, dir=dest.parent)
    except OSError as exc:
        raise named(exc, dest) from None
    try:
        os.fchmod(fd, 0o666 & ~umask())
    finally:
        os.close(fd)
    try:
        yield Path(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, dest)
        fsync_dir(dest.parent)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise named(exc, dest) from None
        raise


def write_bytes(dest: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``dest`` atomically (:func:`atomic_path`)."""
    with atomic_path(dest) as tmp:
        tmp.write_bytes(data)
