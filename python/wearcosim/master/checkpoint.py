"""The checkpoint of one wear run: when to write it, what it must match to be used, whose it is.

The master hands it a *mark* after every wear update (and one of the start: cycle 0, before
the first update), the state a resumed run continues from; :class:`Checkpointer` writes the
mark at most once per ``every`` seconds of wall time, always at the end of a fixed-factor run,
and whenever the run fails (:meth:`flush`: an FMU error, a guard, a user's hook that raises,
a full disk, Ctrl-C).  Writing syncs the recorded streams first, then replaces the small
checkpoint file atomically (:func:`store.save_checkpoint`).

A checkpoint records the scenario, the FMU's SHA-256 and its *owner*: ``None`` for a plain
run, the study's token for a case of a study.  A checkpoint is used only by a run of the same
scenario and FMU; a plain run (no ``resume``) refuses to start over one, except a case of the
study that owns it: the study's retry of a case whose worker died continues from there.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from ..atomic import reason
from . import store

#: the layout of the checkpoint's metadata (an older wearcosim's checkpoint is refused)
LAYOUT = 3


class CheckpointRefused(RuntimeError):
    """The checkpoint cannot be used by this run (another FMU, scenario or layout)."""


class NoCheckpoints:
    """:class:`Checkpointer`'s interface for a run that keeps nothing on disk (a study's case
    in memory): marks are held (an adaptive run takes a rejected jump back to the last one),
    nothing is ever written."""

    def __init__(self) -> None:
        self.mark: dict[str, Any] | None = None
        self.written = True
        self.last = time.perf_counter()
        self.fmu_sha = ""
        self.costs: list[float] = []

    def exists(self) -> bool:
        return False

    def hold(self, mark: dict[str, Any]) -> None:
        self.mark, self.written = mark, True      # (nothing to write: "written")

    def due(self, last: bool = False) -> bool:
        return False

    def write(self, spool: Any, mark: dict[str, Any] | None = None) -> None:
        pass

    def flush(self, spool: Any, write: Callable[[dict[str, Any]], None] | None = None) -> str:
        return ""


class Checkpointer:
    """The checkpoint file ``path`` of a run of scenario ``scenario`` (its raw TOML dict) by
    ``owner`` (a study's token, or None)."""

    def __init__(self, path: Path, scenario: dict[str, Any], owner: str | None = None, every: float = 1.0) -> None:
        self.path = Path(path)
        self.scenario = scenario
        self.owner = owner
        self.every = every
        self.fmu_sha = ""
        self.mark: dict[str, Any] | None = None     # the last mark handed over
        self.written = True                         # ... and whether it is on disk
        self.last = time.perf_counter()
        self.costs: list[float] = []                # seconds per write (the benchmark reports them)

    def exists(self) -> bool:
        return self.path.exists()

    def hold(self, mark: dict[str, Any]) -> None:
        """``mark`` is the state to continue from (not written yet)."""
        self.mark, self.written = mark, False

    def due(self, last: bool = False) -> bool:
        """A write is due: ``every`` seconds have passed since the last one, or the run ends."""
        return last or time.perf_counter() - self.last >= self.every

    def write(self, spool: "store.Spool", mark: dict[str, Any] | None = None) -> None:
        """The checkpoint of ``mark`` (default: the one held): the streams made durable first
        (at least up to the mark's lengths), then the checkpoint file (O(1) in the run's
        length).  An I/O error raises ``OSError`` naming the file."""
        mark = self.mark if mark is None else mark
        t0 = time.perf_counter()
        meta = {**mark["meta"], "scenario": self.scenario, "fmu_sha256": self.fmu_sha, "layout": LAYOUT,
                "owner": self.owner}
        spool.sync()
        store.save_checkpoint(self.path, mark["arrays"], meta)
        if mark is self.mark:
            self.written = True
        self.last = time.perf_counter()
        self.costs.append(self.last - t0)

    def flush(self, spool: "store.Spool | None", write: Callable[[dict[str, Any]], None] | None = None) -> str:
        """After a failure: the held mark written if it is not yet (``write(mark)``, default
        :meth:`write`).  Returns what to add to the failure's message: where the checkpoint is,
        or why there is none.  Never raises (the failure being reported matters more)."""
        if self.mark is not None and not self.written and spool is not None:
            try:
                if write is not None:
                    write(self.mark)
                else:
                    self.write(spool)
            except Exception as exc:             # (the failure itself is the error to report)
                why = (f"{exc.filename or self.path}: {reason(exc)}" if isinstance(exc, OSError) else
                       f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}")
                older = f"; the older one is kept: {self.path}" if self.path.exists() else ""
                return f"; the checkpoint of cycle {self.mark['meta']['cycle']} could not be written ({why}){older}"
        if self.mark is not None and self.path.exists():
            return (f"; checkpoint of cycle {self.mark['meta']['cycle']}: {self.path} "
                    f"(continue with --resume, or resume=True)")
        return ""

    def read(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(arrays, meta) of the checkpoint file, checked for this run's FMU and scenario
        (:class:`CheckpointRefused` otherwise; :class:`store.CheckpointError` if damaged)."""
        arrays, meta = store.load_checkpoint(self.path)
        if meta.get("layout") != LAYOUT:
            raise CheckpointRefused(f"{self.path}: a checkpoint of an older wearcosim (layout {meta.get('layout', 1)}); "
                                    f"start over with --restart")
        if meta.get("fmu_sha256") != self.fmu_sha:
            raise CheckpointRefused(f"{self.path}: checkpoint was made with another FMU; start over with --restart")
        if meta.get("scenario") != self.scenario:
            raise CheckpointRefused(f"{self.path}: checkpoint belongs to a different scenario; start over with --restart")
        for key in ("cycle", "k", "lengths", "wear_cycles", "real", "ctl"):
            if key not in meta:
                raise store.CheckpointError(f"{self.path}: not a wearcosim checkpoint (no {key}); "
                                            f"delete it to start over")
        for key in ("fmu_state", "depth"):
            if key not in arrays:
                raise store.CheckpointError(f"{self.path}: not a wearcosim checkpoint (no {key}); "
                                            f"delete it to start over")
        self.mark, self.written = {"arrays": arrays, "meta": meta}, True
        return arrays, meta

    def owned(self) -> bool:
        """The checkpoint on disk was written by this run's owner (a study retrying its own
        case); False for a plain run (no owner), a damaged file or another owner's."""
        if self.owner is None or not self.path.exists():
            return False
        try:
            return store.load_checkpoint(self.path)[1].get("owner") == self.owner
        except (store.CheckpointError, OSError):
            return False

