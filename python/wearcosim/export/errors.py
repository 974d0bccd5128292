"""One exception type for everything the exporter rejects.

Every message names where the problem is (``file:line``) or, for structural problems,
the counts and the variables involved, so a user can fix the ``.mo`` file.
"""
from __future__ import annotations

from typing import Any


class ExportError(Exception):
    """A model the exporter cannot turn into an FMU.

    ``loc`` is an :class:`~wearcosim.export.ir.Loc` (or ``None``), ``kind`` a short tag
    (``syntax``, ``name``, ``type``, ``balance``, ``unsupported``, ``structure``,
    ``compile``) that tests and the CLI can use.
    """

    def __init__(self, message: str, loc: Any = None, kind: str = "error") -> None:
        self.message = message
        self.loc = loc
        self.kind = kind
        where = f"{loc}: " if loc is not None and str(loc) not in ("", "?") else ""
        super().__init__(f"{where}{kind} error: {message}")
