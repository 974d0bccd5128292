"""Build on demand: the FMU of a model, (re)built when missing or older than its sources.

This sits beside the exporter so that the layers above it (the wear master, the studies,
the demo) can ask for an FMU without depending on each other.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..resources import fmu_sources


def sources_mtime(package_dir: Path) -> float:
    """Newest modification time of everything an FMU is built from."""
    src = fmu_sources()
    return max(p.stat().st_mtime for p in list(Path(package_dir).rglob("*.mo")) +
               [q for d in ("runtime", "templates") for q in (src / d).rglob("*.[chi]*")] +
               list(Path(__file__).resolve().parent.glob("*.py")))


def ensure_fmu(model: str, out_dir: Path, package: str | Path | None = None, log: Callable[[str], Any] = print,
               newest: float | None = None) -> Path:
    """The FMU of ``model`` in ``out_dir``, (re)built when missing or older than its sources
    (``newest``: their newest mtime, when the caller already knows it)."""
    from .build import DEFAULT_PACKAGE, build_fmu
    package = Path(package) if package else DEFAULT_PACKAGE
    dest = Path(out_dir) / f"{model.split('.')[-1]}.fmu"
    if not dest.exists() or dest.stat().st_mtime < (newest if newest is not None else sources_mtime(package)):
        from .package import host_only
        with host_only():          # built to run here: no cross-compiled binaries (win64)
            r = build_fmu(model, package, out_dir)
        log(f"built {r.fmu.name:40s} {r.seconds:6.2f} s")
    return dest


def build_examples(out_dir: Path, prefix: str = "WearCosim.Examples",
                   log: Callable[[str], Any] = print) -> dict[str, Path]:
    """Every example model below ``prefix`` built (if stale) into ``out_dir``."""
    from . import frontend
    from .build import DEFAULT_PACKAGE
    newest = sources_mtime(DEFAULT_PACKAGE)         # scanned once for all examples
    return {m: ensure_fmu(m, out_dir, DEFAULT_PACKAGE, log, newest)
            for m in frontend.list_models(DEFAULT_PACKAGE, prefix)}
