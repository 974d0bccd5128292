"""Names read from files that become parts of paths: one place checks them all.

A scenario's ``name`` is the stem of the files a run writes (``<name>.h5``, ``<name>.ckpt``);
an SSP system's name is the stem of its container FMU in the output folder's cache; a
component's name is the folder of its FMU inside the container.  Such a name comes from a file
a user may have been sent, so it is checked before it is joined to a path: no folders, no
parent references, no hidden or option-like names, nothing a file system treats specially.
"""
from __future__ import annotations

import re

#: a plain file stem: letters, digits, '.', '_', '-', not starting with '.' or '-', at most 128
NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")

_SEPARATORS = re.compile(r"[/\\\x00-\x1f\x7f]")


def stem_problem(name: object) -> str | None:
    """Why ``name`` cannot be used as a file stem as it is (None: it can)."""
    if not isinstance(name, str) or not name:
        return "it is empty"
    if NAME_RE.fullmatch(name):
        return None
    return "a name used as a file name must be letters, digits, '.', '_', '-' (no folders, not starting with '.' or '-', at most 128 characters)"


def path_problem(name: object) -> str | None:
    """Why ``name`` must not become part of a path even after :func:`safe_stem` (None: it may):
    folder separators, control characters, '.' and '..'.  Other characters (spaces, accents)
    are replaced by :func:`safe_stem`."""
    if not isinstance(name, str) or not name:
        return "it is empty"
    if _SEPARATORS.search(name):
        return "it holds a folder separator or a control character"
    if name in (".", ".."):
        return "it names a folder"
    return None


def safe_stem(name: str, default: str = "unnamed") -> str:
    """A plain file stem for ``name`` (matches :data:`NAME_RE`): other characters become '_',
    leading '.'/'-' are dropped, at most 128 characters."""
    s = re.sub(r"[^A-Za-z0-9._-]", "_", name or "").lstrip(".-")[:128]
    return s if NAME_RE.fullmatch(s) else default
