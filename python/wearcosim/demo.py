"""``wearcosim demo``: the README's main job.

Builds the example FMUs (those not yet built or older than their sources) and runs the
default co-simulation, writing results and figures into ``results/``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def sources_mtime(package_dir: Path) -> float:
    """Newest modification time of everything an FMU is built from."""
    return max(p.stat().st_mtime for p in list(Path(package_dir).rglob("*.mo")) +
               list((ROOT / "fmu").rglob("*.[ch]")) + list((ROOT / "fmu").rglob("*.in")) +
               list((ROOT / "python" / "wearcosim" / "export").glob("*.py")))


def ensure_fmu(model: str, out_dir: Path, package=None, log=print, newest: float = None) -> Path:
    """The FMU of ``model`` in ``out_dir``, (re)built when missing or older than its sources
    (``newest``: their newest mtime, when the caller already knows it)."""
    from .export.build import DEFAULT_PACKAGE, build_fmu
    package = Path(package) if package else DEFAULT_PACKAGE
    dest = Path(out_dir) / f"{model.split('.')[-1]}.fmu"
    if not dest.exists() or dest.stat().st_mtime < (newest if newest is not None else sources_mtime(package)):
        r = build_fmu(model, package, out_dir)
        log(f"built {r.fmu.name:40s} {r.seconds:6.2f} s")
    return dest


def build_examples(out_dir: Path, prefix="WearCosim.Examples", log=print):
    from .export import frontend
    from .export.build import DEFAULT_PACKAGE
    newest = sources_mtime(DEFAULT_PACKAGE)         # scanned once for all examples
    return {m: ensure_fmu(m, out_dir, DEFAULT_PACKAGE, log, newest)
            for m in frontend.list_models(DEFAULT_PACKAGE, prefix)}


def run_demo(out: Path) -> int:
    """Build every example FMU (if stale) and run the default wear co-simulation:
    the hybrid mechanism, dry D3 joint, c = 0.25 mm, w = 32 pi (cosim/demo_hybrid_dry_32pi.toml)."""
    from .export.errors import ExportError
    from .master.loop import MasterError, WearMaster
    from .master.scenario import load
    from .plots.wear import plot_results
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        fmus = build_examples(ROOT / "fmu" / "build")
        sc = load(ROOT / "cosim" / "demo_hybrid_dry_32pi.toml")
        path = WearMaster(sc, out).run()
    except (ExportError, MasterError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    figs = plot_results(path, out)
    print(f"demo: {len(fmus)} FMUs in fmu/build; results {path}")
    for f in figs:
        print(f"  figure {f}")
    print(f"demo finished in {time.perf_counter() - t0:.1f} s")
    return 0
