"""``wearcosim demo``: the README's main job.

Builds the example FMUs (those not yet built or older than their sources) and runs the
default co-simulation, writing results and figures into ``results/`` (below the current folder or $WEARCOSIM_HOME;
FMUs into ``fmu/build/`` there).
"""
from __future__ import annotations

import time
from pathlib import Path

from .resources import build_dir, data_root


def run_demo(out: Path) -> int:
    """Build every example FMU (if stale) and run the default wear co-simulation:
    the hybrid mechanism, dry D3 joint, c = 0.25 mm, w = 32 pi (cosim/demo_hybrid_dry_32pi.toml)."""
    from .export.ondemand import build_examples
    from .master.loop import WearMaster
    from .master.scenario import load
    from .plots.wear import plot_results
    t0 = time.perf_counter()
    builds = build_dir()
    fmus = build_examples(builds)                       # errors reach the CLI's one error path
    sc = load(data_root() / "cosim" / "demo_hybrid_dry_32pi.toml")
    path = WearMaster(sc, out, build_dir=builds).run()
    figs = plot_results(path, out)
    print(f"demo: {len(fmus)} FMUs in {builds}; results {path}")
    for f in figs:
        print(f"  figure {f}")
    print(f"demo finished in {time.perf_counter() - t0:.1f} s")
    return 0
