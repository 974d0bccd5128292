"""Opening FMU archives safely: bounded extraction, one exception type for a bad archive.

:func:`safe_extract` refuses, before anything is written, members with an absolute path, a
``..`` component or a drive letter, symbolic links, more than ``max_members`` members, a
declared total uncompressed size above ``max_total_size``, and a large member whose declared
compression ratio is above ``max_ratio``; and, while writing (declared sizes can lie), a member
that grows beyond its declared size, a running total above ``max_total_size`` and a ratio
above ``max_ratio``.  Every member is written by reading it in chunks.  On any refusal or
failure nothing is left behind (the folder it created is removed).

Every problem with the archive or its ``modelDescription.xml`` raises :class:`FMUOpenError`
(a ``ValueError``) with a one-line message that starts with the FMU's path.

Default limits (:class:`Limits`), overridable per call or through the environment:

=====================  ==========  ====================================================
limit                  default     environment variable
=====================  ==========  ====================================================
``max_total_size``     1 GiB       ``WEARCOSIM_FMU_MAX_SIZE`` (bytes; suffixes k/M/G)
``max_members``        100 000     ``WEARCOSIM_FMU_MAX_MEMBERS``
``max_ratio``          200         ``WEARCOSIM_FMU_MAX_RATIO`` (0 disables the guard)
``ratio_min_size``     16 MiB      (members smaller than this are not ratio-checked)
=====================  ==========  ====================================================

A real FMU's binaries and XML compress 3-20x; only members of at least 16 MiB that compress
more than 200x (a zip bomb: zeros deflate ~1000x) are refused by the ratio guard.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
import tempfile
import threading
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path


#: prefix of every extraction folder made here (tests look for leftovers by it)
TEMP_PREFIX = "wearcosim-fmu-"
CHUNK = 1 << 20

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


class FMUOpenError(ValueError):
    """An FMU that cannot be opened: missing file, not a (complete) zip, unsafe or oversized
    archive, missing or invalid modelDescription.xml, missing or non-loadable binary, ...
    The message is one line and starts with the FMU's path; ``.fmu`` is that path."""

    def __init__(self, fmu: str | Path, reason: str) -> None:
        self.fmu = str(fmu)
        self.reason = one_line(reason)
        super().__init__(f"{self.fmu}: {self.reason}")

    def __reduce__(self):                 # picklable (worker processes send exceptions back)
        return (type(self), (self.fmu, self.reason))


def one_line(text: object) -> str:
    """``text`` on one line (line breaks become ' / ', runs of blanks one space)."""
    lines = [" ".join(s.split()) for s in str(text).splitlines()]
    return " / ".join(s for s in lines if s)


def _size_from_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?", raw)
    if not m:
        raise ValueError(f"{name}={raw!r}: expected a size in bytes (e.g. 1073741824, 512M, 2G)")
    scale = {"": 1, "k": KiB, "m": MiB, "g": GiB, "t": 1 << 40}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


@dataclass(frozen=True)
class Limits:
    """Bounds on what extracting one FMU may write (see the module docstring)."""
    max_total_size: int = 1 * GiB
    max_members: int = 100_000
    max_ratio: float = 200.0          # 0 or None: no ratio guard
    ratio_min_size: int = 16 * MiB

    @classmethod
    def from_env(cls) -> "Limits":
        """The defaults, with the ``WEARCOSIM_FMU_MAX_*`` environment variables applied."""
        d = cls()
        ratio = os.environ.get("WEARCOSIM_FMU_MAX_RATIO", "").strip()
        return cls(max_total_size=_size_from_env("WEARCOSIM_FMU_MAX_SIZE", d.max_total_size),
                   max_members=int(os.environ.get("WEARCOSIM_FMU_MAX_MEMBERS", "").strip() or d.max_members),
                   max_ratio=float(ratio) if ratio else d.max_ratio,
                   ratio_min_size=d.ratio_min_size)


def _limits(limits) -> Limits:
    return Limits.from_env() if limits is None else limits


def _fmt(n: int) -> str:
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} B"


def _unsafe_name(name: str):
    """Why a member name is unsafe to extract, or None.  Both '/' and '\\' count as
    separators (a '\\' path is a Windows path in a zip made there)."""
    if not name or "\x00" in name:
        return "unsafe path in archive (empty name)"
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return f"unsafe path in archive (absolute): {name!r}"
    if ".." in re.split(r"[/\\]", name):
        return f"unsafe path in archive ('..' component): {name!r}"
    return None


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK((info.external_attr >> 16) & 0xFFFF)


def directory_problems(z: zipfile.ZipFile, limits: Limits) -> list:
    """Problems found in the zip directory alone (nothing decompressed): unsafe names, links,
    member count, declared total size and ratios.  Reasons without the FMU path."""
    infos = z.infolist()
    problems = []
    if len(infos) > limits.max_members:
        problems.append(f"too many members in archive: {len(infos)} > {limits.max_members}")
    total = sum(info.file_size for info in infos)
    if total > limits.max_total_size:
        problems.append(f"archive declares {_fmt(total)} uncompressed, above the limit of "
                        f"{_fmt(limits.max_total_size)}")
    for info in infos:
        why = _unsafe_name(info.filename)
        if why:
            problems.append(why)
        elif _is_link(info):
            problems.append(f"archive contains a symbolic link: {info.filename!r}")
        if (limits.max_ratio and info.file_size >= limits.ratio_min_size
                and info.file_size > limits.max_ratio * max(info.compress_size, 1)):
            problems.append(f"member {info.filename!r} declares a compression ratio above {limits.max_ratio:g} "
                            f"({_fmt(info.file_size)} from {_fmt(info.compress_size)}): zip bomb?")
    return problems


def _open_zip(fmu: Path) -> zipfile.ZipFile:
    if not fmu.exists():
        raise FMUOpenError(fmu, "no such file")
    if not fmu.is_file():
        raise FMUOpenError(fmu, "not a file")
    try:
        return zipfile.ZipFile(fmu)
    except zipfile.BadZipFile as exc:
        raise FMUOpenError(fmu, f"not a zip archive, or a truncated one ({exc})") from None
    except (OSError, ValueError, EOFError, RuntimeError, NotImplementedError) as exc:
        raise FMUOpenError(fmu, f"cannot read the archive: {exc}") from None


def _stream_members(fmu: Path, z: zipfile.ZipFile, limits: Limits, dest, created: list):
    """Decompress every member in chunks, checking the real sizes against the declared ones
    and the limits; write them under ``dest`` (a directory) or, with ``dest=None``, only read
    them (which also checks their CRCs).  The files and folders created are appended to
    ``created`` as they are made (so a caller can remove them after a failure)."""
    total = 0
    root = Path(dest).resolve() if dest is not None else None

    def mkdirs(d: Path):
        for p in reversed([d, *d.parents]):
            if p != root and root in p.parents and not p.is_dir():
                p.mkdir()
                created.append(p)

    for info in z.infolist():
        name = info.filename
        size = 0
        out = None
        try:
            target = None
            if root is not None:
                target = (root / name).resolve()
                if target != root and root not in target.parents:        # defence in depth
                    raise FMUOpenError(fmu, f"unsafe path in archive: {name!r}")
                if info.is_dir():
                    mkdirs(target)
                    continue
                mkdirs(target.parent)
            elif info.is_dir():
                continue
            with z.open(info) as src:
                if target is not None:
                    out = open(target, "wb")
                    created.append(target)
                while True:
                    chunk = src.read(CHUNK)
                    if not chunk:
                        break
                    size += len(chunk)
                    total += len(chunk)
                    if size > info.file_size:
                        raise FMUOpenError(fmu, f"member {name!r} is larger than its declared size "
                                                f"({_fmt(info.file_size)})")
                    if total > limits.max_total_size:
                        raise FMUOpenError(fmu, f"archive expands to more than the limit of "
                                                f"{_fmt(limits.max_total_size)} (at member {name!r})")
                    if (limits.max_ratio and size >= limits.ratio_min_size
                            and size > limits.max_ratio * max(info.compress_size, 1)):
                        raise FMUOpenError(fmu, f"member {name!r} expands more than {limits.max_ratio:g}x: "
                                                f"zip bomb?")
                    if out is not None:
                        out.write(chunk)
            if size != info.file_size:
                raise FMUOpenError(fmu, f"member {name!r} is shorter than its declared size "
                                        f"({_fmt(size)} of {_fmt(info.file_size)})")
        except FMUOpenError:
            raise
        except zipfile.BadZipFile as exc:
            raise FMUOpenError(fmu, f"corrupt archive member {name!r}: {exc}") from None
        except (zlib.error, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
            raise FMUOpenError(fmu, f"cannot decompress member {name!r}: {exc}") from None
        except OSError as exc:                    # a full disk: name the file being written too
            where = f" to {exc.filename or target}" if (exc.filename or target) is not None else ""
            raise FMUOpenError(fmu, f"cannot extract member {name!r}{where}: {exc.strerror or exc}") from None
        finally:
            if out is not None:
                out.close()


def check_archive(fmu: str | Path, limits: Limits | None = None, read: bool = False) -> list[str]:
    """Problems of the archive, as one-line strings without the path (empty = fine): the zip
    directory checks, ``modelDescription.xml`` present, and with ``read=True`` every member
    decompressed (nothing written) to check the real sizes, limits and CRCs."""
    fmu = Path(fmu)
    limits = _limits(limits)
    try:
        with _open_zip(fmu) as z:
            problems = directory_problems(z, limits)
            if "modelDescription.xml" not in z.namelist():
                problems.append("modelDescription.xml missing from the archive")
            if read and not problems:
                _stream_members(fmu, z, limits, None, [])
    except FMUOpenError as exc:
        return [exc.reason]
    return problems


def safe_extract(fmu: str | Path, dest: str | Path | None = None, limits: Limits | None = None) -> Path:
    """Extract an FMU archive within ``limits`` (default :meth:`Limits.from_env`) into
    ``dest`` (default: a new folder ``wearcosim-fmu-*`` in the temporary directory) and
    return that folder.  Unsafe members and limits are checked on the zip directory before
    anything is written, and again while writing.  Raises :class:`FMUOpenError`; then
    nothing is left behind (a folder it created is removed; in an existing ``dest`` the
    files and folders it wrote are removed)."""
    fmu = Path(fmu)
    limits = _limits(limits)
    with _open_zip(fmu) as z:
        problems = directory_problems(z, limits)
        if problems:
            more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
            raise FMUOpenError(fmu, problems[0] + more)
        made = dest is None or not Path(dest).exists()
        if dest is None:
            dest = make_temp_dir()
        else:
            dest = Path(dest)
            try:
                dest.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise FMUOpenError(fmu, f"cannot create the extraction folder {dest}: {exc}") from None
        created = []
        try:
            _stream_members(fmu, z, limits, dest, created)
        except BaseException:
            if made:
                remove_temp_dir(dest)
            else:
                _remove_created(created)
            raise
    return dest


# ------------------------------------------------------------- temporary extraction folders
#
# A folder ``wearcosim-fmu-*`` made here is locked (flock on the directory itself) by the
# process that made it, from before it gets its name until it is removed.  A process killed
# without cleaning up (SIGKILL, a crash) releases the lock with its death; the next
# :func:`make_temp_dir` of any process (same temporary directory) removes such folders.  A
# folder is created under a hidden name, locked, then renamed, so no other process ever sees
# it unlocked while its owner lives.  Without ``fcntl`` (Windows) there is no sweep.
#
# A forked child (a local pool's worker) inherits its parent's lock descriptors and the objects
# that remove the parent's folders (a runner's finalizer): it closes its copies of the
# descriptors (the parent's folder is stale once the parent dies, whatever its children) and
# never removes a folder its parent held (:func:`remove_temp_dir` leaves it).

try:
    import fcntl
except ImportError:             # pragma: no cover - Windows
    fcntl = None

_held = {}                      # path -> fd of the lock this process holds
_held_lock = threading.Lock()
_parents: set[str] = set()      # paths of the folders held by this process's forked parents
_HIDDEN = ".wearcosim-new-"


def make_temp_dir() -> Path:
    """A new, empty folder ``<tempdir>/wearcosim-fmu-*`` owned (locked) by this process;
    first removes the folders left by dead processes (:func:`sweep_stale`).  Remove it with
    :func:`remove_temp_dir` (an ``shutil.rmtree`` does too; the lock is then dropped later)."""
    sweep_stale()
    if fcntl is None:
        return Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    base = tempfile.gettempdir()
    hidden = tempfile.mkdtemp(prefix=_HIDDEN, dir=base)
    fd = os.open(hidden, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        for _ in range(100):
            final = os.path.join(base, TEMP_PREFIX + secrets.token_hex(6))
            if not os.path.lexists(final):
                os.rename(hidden, final)
                break
        else:                               # pragma: no cover - 48 random bits, 100 times
            raise FileExistsError(f"no free name {TEMP_PREFIX}* in {base}")
    except BaseException:
        os.close(fd)
        shutil.rmtree(hidden, ignore_errors=True)
        raise
    with _held_lock:
        _held[final] = fd
    return Path(final)


def remove_temp_dir(path: str | Path) -> None:
    """Remove a folder made by :func:`make_temp_dir` (or any folder) and drop its lock; in a
    forked child, a folder its parent held is left alone (it is the parent's)."""
    path = str(path)
    if path in _parents:
        return
    shutil.rmtree(path, ignore_errors=True)
    with _held_lock:
        fd = _held.pop(path, None)
    if fd is not None:
        os.close(fd)


def _forget_parents_folders() -> None:
    """In a forked child: the parent's folders are the parent's (closes the inherited copies
    of their lock descriptors; a lock of the parent's other threads is not held here)."""
    global _held_lock
    _held_lock = threading.Lock()
    _parents.update(_held)
    for fd in _held.values():
        try:
            os.close(fd)
        except OSError:
            pass
    _held.clear()


if fcntl is not None:
    os.register_at_fork(after_in_child=_forget_parents_folders)


def sweep_stale(base: str | Path | None = None) -> list[str]:
    """Remove the ``wearcosim-fmu-*`` folders of ``base`` (default: the temporary directory)
    whose owner is dead (nobody holds their lock; folders made by versions without the lock
    count as stale too), and hidden half-made ones older than 10 minutes; return their paths.  Also drops this process's locks of folders already removed by others."""
    if fcntl is None:
        return []
    base = base or tempfile.gettempdir()
    with _held_lock:
        for path in [p for p in _held if not os.path.lexists(p)]:
            os.close(_held.pop(path))
        mine = set(_held)
    removed = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        if not name.startswith((TEMP_PREFIX, _HIDDEN)):
            continue
        path = os.path.join(base, name)
        if path in mine or os.path.islink(path) or not os.path.isdir(path):
            continue
        if name.startswith(_HIDDEN):        # unlocked for an instant while being made
            try:
                if time.time() - os.stat(path).st_mtime < 600:
                    continue
            except OSError:
                continue
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue                        # another user's, or gone
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue                    # its owner is alive
            if not _same_folder(path, fd):
                continue                    # removed (by another sweep) or replaced meanwhile
            shutil.rmtree(path, ignore_errors=True)
            if not os.path.lexists(path):
                removed.append(path)
        finally:
            os.close(fd)
    return removed


def _same_folder(path: str, fd: int) -> bool:
    """Whether ``path`` still names the folder open as ``fd``: False once it is gone (another
    process's sweep may remove it between this one's ``open`` and its ``flock``: the lock is
    free again when that sweep is done) or replaced."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False


def _remove_created(paths):
    for p in reversed(paths):
        try:
            if p.is_dir() and not p.is_symlink():
                p.rmdir()
            else:
                p.unlink()
        except OSError:
            pass
