"""Run a set of scenarios in parallel and write one comparison report.

Local processes by default (``concurrent.futures``); a Dask cluster when a scheduler
address is given (``--scheduler tcp://host:8786``; needs ``distributed``).  Each case runs
in its own process with its own FMU instance; results are identical whichever executor
ran them (the master is deterministic).
"""
from __future__ import annotations

import csv
import io
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np


def run_case(scenario_path: str, out_dir: str, resume: bool = False) -> str:
    """Run one scenario file; returns the results path (runs in a worker process)."""
    from ..master.loop import WearMaster
    from ..master.scenario import load
    sc = load(scenario_path)
    return str(WearMaster(sc, Path(out_dir), progress=False).run(resume=resume))


def prebuild(scenarios: Iterable[str | Path], log: Callable[..., Any] = print) -> None:
    """Build the FMUs the scenarios need once, before the workers start (no two workers
    compile the same FMU)."""
    from ..export.ondemand import ensure_fmu, sources_mtime
    from ..export.build import DEFAULT_PACKAGE
    from ..master.scenario import load
    from ..resources import build_dir
    build = build_dir()
    newest = {}
    for p in scenarios:
        sc = load(p)
        if sc.model and not sc.fmu_path:
            pkg = Path(sc.package) if sc.package else DEFAULT_PACKAGE
            if pkg not in newest:
                newest[pkg] = sources_mtime(pkg)
            ensure_fmu(sc.model, build, package=pkg, log=log, newest=newest[pkg])


#: seconds to wait for a Dask scheduler to answer
CONNECT_TIMEOUT = 10.0


def connect(address: str) -> Any:
    """A Dask client of the scheduler at ``address``, or one clear error (no hang, no traceback)."""
    from ..master.loop import MasterError
    try:
        from distributed import Client
    except ImportError:
        raise MasterError("--scheduler needs Dask's distributed: pip install 'dask[distributed]'") from None
    import logging
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)          # its own retry messages would precede ours
    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise MasterError(f"cannot reach the Dask scheduler {address} within {CONNECT_TIMEOUT:g} s "
                          f"({' '.join(str(exc).split())[:200] or type(exc).__name__})") from None
    finally:
        quiet.setLevel(level)


def run_all(scenarios: Iterable[str | Path], out_dir: Path, workers: int = 2,
            scheduler: Any = None) -> list[str]:
    """Run every scenario into ``out_dir``: on the Dask scheduler ``scheduler`` (an address, or
    a connected ``distributed.Client``), else in ``workers`` local processes (1: in this
    process).  The FMUs are built first; returns the results files in the order given."""
    scenarios = [str(Path(p).resolve()) for p in scenarios]
    client = connect(scheduler) if isinstance(scheduler, str) else scheduler   # fail before any work
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        prebuild(scenarios, log=lambda *a: print(*a, file=sys.stderr))
        if client is not None:
            from distributed import as_completed as dask_completed
            futs = client.map(run_case, scenarios, [str(out_dir)] * len(scenarios), pure=False)
            _follow(dask_completed(futs), len(futs))
            return client.gather(futs)
        if workers <= 1:
            return [_done(run_case(s, str(out_dir)), i + 1, len(scenarios)) for i, s in enumerate(scenarios)]
        with ProcessPoolExecutor(max_workers=workers) as ex:
            futs = [ex.submit(run_case, s, str(out_dir)) for s in scenarios]
            _follow(as_completed(futs), len(futs))
            return [f.result() for f in futs]          # in the order given (a failure raises here)
    finally:
        if isinstance(scheduler, str) and client is not None:
            client.close()


def _done(path: str, k: int, n: int) -> str:
    """One finished case said on stderr: ``case k/n done: <results>``."""
    print(f"case {k}/{n} done: {path}", file=sys.stderr, flush=True)
    return path


def _follow(completed: Iterable[Any], n: int) -> None:
    """Say each case as it finishes (in completion order): a progress bar on a terminal,
    plain lines otherwise.  Failures are raised later, in the order the cases were given,
    by the caller."""
    bar = None
    if sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=n, desc="study", unit="case", file=sys.stderr, leave=True)
    try:
        for k, fut in enumerate(completed, 1):
            ok = fut.exception() is None
            if bar is not None:
                bar.update(1)
                if not ok:
                    bar.write(f"case {k}/{n} failed", file=sys.stderr)
            elif ok:
                _done(fut.result(), k, n)
            else:
                print(f"case {k}/{n} failed", file=sys.stderr, flush=True)
    finally:
        if bar is not None:
            bar.close()


def summary_row(name: str, meta: dict[str, Any], wear: dict[str, Any]) -> dict[str, Any]:
    """The study table's row of one run: peak and mean final depth, their ratio, where the
    peak is, the worn volume and the real cycles."""
    d = np.asarray(wear["final"])
    peak, mean = float(d.max()), float(d.mean())
    k = int(np.argmax(d))
    profile = float(meta.get("extent", 0) or 0) > 0
    arc = float(meta["extent"]) / meta["n_sectors"] if profile else 2 * np.pi * meta["radius"] / meta["n_sectors"]
    pos = float(wear["sector_centres"][k])
    return {"case": name, "peak_um": peak * 1e6, "mean_um": mean * 1e6,
            "peak_over_mean": peak / mean if mean > 0 else float("inf"),
            "peak_sector": k + 1,
            ("peak_position_mm" if profile else "peak_angle_deg"): pos * 1e3 if profile else float(np.degrees(pos)),
            "volume_mm3": float(d.sum() * arc * meta["length"] * 1e9),
            "cycles": float(wear["cycles"][-1])}


def write_report(paths: Sequence[str | Path], out_dir: Path, title: str = "study") -> list[dict[str, Any]]:
    """``out_dir``/``title``.csv and .md (one row per run, naturally sorted) and the comparison
    figures (final profiles, orbits); returns the rows."""
    from ..master.store import read_results, atomic_write_bytes
    from ..plots.wear import compare_orbits, compare_profiles
    from ..plots.style import natural_key
    runs, orbits, clearance, rows = {}, {}, 0.0, []
    for p in sorted(paths, key=lambda q: natural_key(Path(q).stem)):     # 4, 8, 16, 32 pi; read once each
        meta, series, wear = read_results(p)
        name = Path(p).stem
        rows.append(summary_row(name, meta, wear))
        wear["profile"] = float(meta.get("extent", 0) or 0) > 0
        runs[name] = wear
        if "ex" in series and "ey" in series:
            orbits[name] = series
            clearance = max(clearance, float(meta.get("clearance", 0) or 0) or
                            float(np.max(np.hypot(series["ex"], series["ey"]))))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    atomic_write_bytes(out_dir / f"{title}.csv", buf.getvalue().encode())
    where = "peak angle [deg]" if "peak_angle_deg" in rows[0] else "peak position [mm]"
    md = [f"# {title}", "", f"| case | peak wear [um] | mean wear [um] | peak/mean | {where} | volume [mm^3] | cycles |",
          "|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['case']} | {r['peak_um']:.4g} | {r['mean_um']:.4g} | {r['peak_over_mean']:.3g} | "
                  f"{r.get('peak_angle_deg', r.get('peak_position_mm', float('nan'))):.1f} | {r['volume_mm3']:.4g} | {r['cycles']:.4g} |")
    atomic_write_bytes(out_dir / f"{title}.md", ("\n".join(md) + "\n").encode())
    compare_profiles(runs, out_dir / f"{title}_profiles", f"{title}: final wear depth")
    if orbits:
        compare_orbits(orbits, clearance, out_dir / f"{title}_orbits", f"{title}: journal-centre orbits")
    return rows


def run_study(scenarios: Iterable[str | Path], out_dir: Path, workers: int = 2, scheduler: Any = None,
              title: str = "study") -> int:
    """Run a study and write its report; prints the table, returns the exit status (0)."""
    paths = run_all(scenarios, out_dir, workers, scheduler)
    rows = write_report(paths, out_dir, title)
    for r in rows:
        print(f"{r['case']:32s} peak {r['peak_um']:10.4g} um  mean {r['mean_um']:10.4g} um  peak/mean {r['peak_over_mean']:.3g}")
    print(f"report: {out_dir / (title + '.md')}")
    return 0
