"""Atomic file writes: nothing half-written is ever left at the destination.

``with atomic_path(dest) as tmp:`` yields a temporary path in the destination's directory;
when the block succeeds the file is fsync'ed and renamed over ``dest`` (then the directory
is fsync'ed); when it fails the temporary file is removed and ``dest`` is untouched.
"""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


def fsync_dir(d: Path):
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
def atomic_path(dest, suffix: str = ".tmp"):
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + dest.name + ".", suffix=suffix, dir=dest.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, dest)
        fsync_dir(dest.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_bytes(dest, data: bytes):
    with atomic_path(dest) as tmp:
        tmp.write_bytes(data)
