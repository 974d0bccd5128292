"""Small C helpers of the Python side, compiled on first use (``cext.build``).

Three exist: the co-simulation and runner loops (:mod:`wearcosim.fmi.cloop`, ``cloop.c``), the
per-cycle Archard accumulation (:mod:`wearcosim.wear.archard`, ``archard.c``) and the arithmetic
of a wear update (:mod:`wearcosim.wear.update`, ``update.c``).  Each is a
plain C99 file compiled into a shared library, named by the hash of the source and the
compiler and written atomically (temp file + rename), so concurrent first uses (a sweep's
workers) never load a half-written file.  It is kept in ``$WEARCOSIM_CACHE`` when the user
names one, else beside the package's own files (``wearcosim/_cext/``, as Python keeps its
``__pycache__``): never in a folder the user did not name.  Without a C compiler (or where that
folder cannot be written: a read-only installation) ``build`` returns None and the callers
keep their Python code, which gives the same results.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path


def enabled() -> bool:
    """False when ``WEARCOSIM_NO_CLOOP`` is set (not empty, not 0): the Python code of every
    C helper runs instead (the same results; for tests and comparisons)."""
    return os.environ.get("WEARCOSIM_NO_CLOOP", "") in ("", "0")


def cache_dir() -> Path:
    """Where the compiled helpers are kept: ``$WEARCOSIM_CACHE``, else ``wearcosim/_cext``."""
    named = os.environ.get("WEARCOSIM_CACHE")
    return Path(named) if named else Path(__file__).resolve().parent / "_cext"


def build(src: Path) -> Path | None:
    """The shared library of the C file ``src`` (built once, then from the cache), or None."""
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None:
        return None
    code = Path(src).read_bytes()
    tag = hashlib.sha256(code + cc.encode()).hexdigest()[:16]
    dest = cache_dir() / f"{Path(src).stem}-{tag}.so"
    if dest.exists():
        return dest
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{Path(src).stem}-", suffix=".so", dir=dest.parent)
    except OSError:
        return None
    os.close(fd)
    try:
        p = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-std=c99", str(src), "-o", tmp, "-lm"],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            return None
        os.replace(tmp, dest)
        return dest
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def load(src: Path) -> ctypes.CDLL | None:
    """``ctypes.CDLL`` of the C file ``src`` (:func:`build`), or None."""
    path = build(src)
    if path is None:
        return None
    try:
        return ctypes.CDLL(str(path))
    except OSError:
        return None


_LOADED: dict[Path, ctypes.CDLL | None] = {}


def library(src: Path) -> ctypes.CDLL | None:
    """:func:`load` of ``src`` once per process (None included: no compiler, no second try);
    None whenever :func:`enabled` says no."""
    if not enabled():
        return None
    src = Path(src)
    if src not in _LOADED:
        _LOADED[src] = load(src)
    return _LOADED[src]
