"""``python -m wearcosim.bench.cosim_matrix``: every shipped system co-simulated at every
communication step with every algorithm, each run either accurate or stopped.

For each composed example (:data:`wearcosim.system.examples.EXAMPLES`), each communication step
of :data:`STEPS` and each algorithm of :data:`ALGORITHMS`, the co-simulation master runs as
``wearcosim system run --master cosim --algorithm A --step H`` does (its defaults: the energy
estimate's tolerance, the refinement check) over the example's window, and the strongly
coupled container runs on the same grid with the same tolerance.  Each run ends one of three
ways:

* ``accurate``: it finished, and every signal of :data:`SIGNALS` (the orbit and the contact
  force) is within :data:`ACCURACY` of its range of the container's;
* ``stopped``: it stopped with one error line (the energy estimate, the refinement check or a
  failing component), which is printed;
* ``SILENT``: it finished while a signal is off by more than :data:`ACCURACY` -- the defect the
  checks exist to prevent.

CPU time (``time.process_time``, the FMUs run in this process) of the co-simulation and of the
container (the best of three runs, instantiation included, building excluded) and their ratio
are written too.  Results: ``results/bench_cosim_matrix.json`` and a table.  ``--ratio``: the
hybrid mechanism and a user's pendulum on the joint against the container, with the CPU time
ratio measured by alternating runs (:func:`ratio`).  ``--systems``,
``--steps``, ``--algorithms`` restrict the matrix; ``--stop`` shortens the windows.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

STEPS = (1e-3, 1e-4, 1e-5)
ALGORITHMS = ("ijcsa", "gauss-seidel", "jacobi")
ACCURACY = 0.01
TOLERANCE = 1e-7
#: example -> signals compared with the container (orbit and contact force)
SIGNALS = {
    "slider_crank_dry": ("body.ex", "body.ey", "joint.Fn"),
    "slider_crank_lubricated": ("body.ex", "body.ey", "joint.Fn"),
    "hybrid_dry_32pi": ("body.ex", "body.ey", "joint.Fn"),
    "hybrid_dry_7pi": ("body.ex", "body.ey", "joint.Fn"),
    "hybrid_lubricated_7pi": ("body.ex", "body.ey", "joint.Fn"),
    "cardona_case1": ("drive.uA[2]", "drive.uB[2]", "mesh.F"),
    "cardona_case2": ("drive.uA[2]", "drive.uB[2]", "mesh.F"),
    "two_disk_rub": ("stator.x", "stator.y", "stator.Fn"),
}


def _deviation(x: np.ndarray, ref: np.ndarray) -> float:
    n = min(len(x), len(ref))
    if n == 0:
        return float("inf")
    span = float(np.ptp(ref)) or float(np.max(np.abs(ref))) or 1.0
    d = np.abs(np.asarray(x[:n], dtype=float) - np.asarray(ref[:n], dtype=float))
    return float(np.max(d) / span) if np.all(np.isfinite(d)) else float("inf")


def container_run(system: Any, stop: float, step: float, signals: Sequence[str], cache: Path) -> tuple[dict, float]:
    """The container's signals on the grid and its CPU time (best of three)."""
    from ..system.run import simulate
    simulate(system, stop, step, "strong", tolerance=TOLERANCE, record=list(signals), cache_dir=cache,
             log=lambda *a: None)                          # built (and cached) outside the timing
    best, values = float("inf"), {}
    for _ in range(3):
        c0 = time.process_time()
        _, values, _ = simulate(system, stop, step, "strong", tolerance=TOLERANCE, record=list(signals),
                                cache_dir=cache, log=lambda *a: None)
        best = min(best, time.process_time() - c0)
    return values, best


def cosim_run(system: Any, stop: float, step: float, algorithm: str, signals: Sequence[str],
              ref: dict) -> dict[str, Any]:
    """One co-simulation with the command line's defaults: its outcome, deviations and CPU time."""
    from ..system.estimate import TOLERANCE as ENERGY
    from ..system.run import simulate
    c0 = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, values, info = simulate(system, stop, step, "cosim", tolerance=TOLERANCE, record=list(signals),
                                       algorithm=algorithm, estimate_tolerance=ENERGY, check="refine")
    except Exception as exc:                               # the one error line the user gets
        return {"outcome": "stopped", "cpu": time.process_time() - c0,
                "error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"}
    cpu = time.process_time() - c0
    dev = {s: _deviation(values[s], ref[s]) for s in signals}
    worst = max(dev.values())
    return {"outcome": "accurate" if worst <= ACCURACY else "SILENT", "cpu": cpu, "deviation": dev,
            "worst": worst, "steps": int((info.get("stats") or {}).get("accepted_steps", 0))}


def run(systems: Sequence[str] | None = None, steps: Sequence[float] = STEPS,
        algorithms: Sequence[str] = ALGORITHMS, stop: float | None = None,
        log: Any = print) -> list[dict[str, Any]]:
    """The matrix; one row per (system, step, algorithm)."""
    from ..system import examples
    from ..resources import results_dir
    cache = results_dir() / ".containers"
    rows = []
    for name in systems or list(SIGNALS):
        system = examples.ensure_fmus(examples.system_of(name), log=lambda *a: None)
        window = float(stop or examples.EXAMPLES[name]["stop"])
        for h in steps:
            ref, c_cpu = container_run(system, window, h, SIGNALS[name], cache)
            for alg in algorithms:
                r = cosim_run(system, window, h, alg, SIGNALS[name], ref)
                r.update(system=name, step=h, algorithm=alg, stop=window, container_cpu=c_cpu,
                         ratio=r["cpu"] / c_cpu if c_cpu > 0 else float("nan"))
                rows.append(r)
                log(line(r))
    return rows


def line(r: dict[str, Any]) -> str:
    what = (f"worst {100 * r['worst']:.3g} %" if "worst" in r else r.get("error", ""))
    return (f"{r['system']:24s} {r['step']:7.0e} {r['algorithm']:13s} {r['outcome']:9s} "
            f"cpu {r['cpu']:7.2f} s ({r['ratio']:6.1f}x container)  {what}")


def pendulum_system(build_dir: Path) -> Any:
    """A user's mechanism on the library's dry joint: the pendulum of
    ``tests/system/fixtures/issue34/PendulumOnPin.mo`` (built into ``build_dir``) and the dry
    joint FMU of the shipped systems (c = 0.1 mm, mu_d = 0.1); 0.2 s, 20 impacts, then contact."""
    from ..export.build import build_fmu
    from ..system import examples
    from ..system.examples import _JOINT_LOADS, _JOINT_PORTS, _same
    from ..system.model import Component, System
    root = Path(__file__).resolve().parents[3]
    src = root / "tests" / "system" / "fixtures" / "issue34" / "PendulumOnPin.mo"
    fmu = Path(build_dir) / "PendulumOnPin.fmu"
    if not fmu.exists():
        build_fmu("PendulumOnPin", src.parent, build_dir, path=src)
    joint = examples.ensure_fmus(examples.system_of("hybrid_dry_32pi"), log=lambda *a: None).components[1].path
    return System(name="pendulum_on_pin", start_time=0.0, stop_time=0.2,
                  components=[Component("body", "PendulumOnPin.fmu", path=fmu),
                              Component("joint", "RevoluteClearanceDry.fmu", path=joint,
                                        parameters={"c": 0.1e-3, "mu_d": 0.1})],
                  connections=_same("body", "joint", _JOINT_PORTS) + _same("joint", "body", _JOINT_LOADS))


def ratio(repeat: int = 5, rtols: Sequence[float] = (3e-5, 1e-5), log: Any = print) -> list[dict[str, Any]]:
    """Issue 34's second acceptance figure: the hybrid mechanism and the pendulum on the joint,
    communication step 1e-4 s, ijcsa with ``check="energy"`` at each coupling tolerance,
    against the container on the same grid: the deviation of orbit and contact force, and the
    CPU time ratio -- the best of ``repeat`` runs of each, the runs of the two alternating (a
    burst of load on a shared machine then hits both)."""
    from ..resources import results_dir
    from ..system import examples
    from ..system.run import simulate
    cache = results_dir() / ".containers"
    cases = [("hybrid_dry_32pi", examples.ensure_fmus(examples.system_of("hybrid_dry_32pi"), log=lambda *a: None),
              0.125, SIGNALS["hybrid_dry_32pi"]),
             ("pendulum_on_pin", pendulum_system(cache), 0.2, ("body.rJ[1]", "body.rJ[2]", "joint.Fn"))]
    rows = []
    for name, system, stop, sig in cases:
        ref, _ = container_run(system, stop, 1e-4, sig, cache)
        for rtol in rtols:
            best_c = best_m = float("inf")
            got: dict = {}
            for _ in range(repeat):
                c0 = time.process_time()
                simulate(system, stop, 1e-4, "strong", tolerance=TOLERANCE, record=list(sig), cache_dir=cache,
                         log=lambda *a: None)
                best_c = min(best_c, time.process_time() - c0)
                c0 = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _, got, info = simulate(system, stop, 1e-4, "cosim", tolerance=TOLERANCE, record=list(sig),
                                            algorithm="ijcsa", rtol_coupling=rtol, check="energy")
                best_m = min(best_m, time.process_time() - c0)
            dev = {k: _deviation(got[k], ref[k]) for k in sig}
            r = {"system": name, "rtol_coupling": rtol, "deviation": dev, "worst": max(dev.values()),
                 "cpu": best_m, "container_cpu": best_c, "ratio": best_m / best_c,
                 "steps": int(info["stats"]["accepted_steps"])}
            rows.append(r)
            log(f"{name:18s} rtol_coupling {rtol:g}: worst {100 * r['worst']:.3g} % of range, cpu {best_m:.3f} s "
                f"/ container {best_c:.3f} s = {r['ratio']:.1f}x, {r['steps']} steps")
    return rows


def libcosim_table(steps: Sequence[float] = (1e-4, 1e-5, 1e-6), log: Any = print) -> list[dict[str, Any]]:
    """libcosim (fixed-step, inputs held) on the hybrid mechanism's component FMUs, packed as
    they are and packed with ``--input-extrapolation`` (:func:`wearcosim.system.ssp.write_ssp`),
    against the container on the same grid: the deviation of orbit and contact force, or the
    failure (docs/fmus.md, "Input extrapolation")."""
    import tempfile
    from ..fmi import libcosim
    from ..resources import results_dir
    from ..system import examples, ssp
    name = "hybrid_dry_32pi"
    examples.ensure_fmus(examples.system_of(name), log=lambda *a: None)
    system = ssp.read_ssd(examples.SYSTEMS / f"{name}.ssd")      # (its connectors declared, as libcosim needs)
    stop, sig = float(examples.EXAMPLES[name]["stop"]), SIGNALS[name]
    rows = []
    with tempfile.TemporaryDirectory(prefix="wearcosim-libcosim-") as tmp:
        packed = {}
        for on in (False, True):
            packed[on] = Path(tmp) / f"{name}_{int(on)}.ssp"
            ssp.write_ssp(system, packed[on], input_extrapolation=on, log=lambda *a: None)
        for h in steps:
            ref, _ = container_run(system, stop, h, sig, results_dir() / ".containers")
            for on in (False, True):
                c0 = time.process_time()
                r: dict[str, Any] = {"system": name, "step": h, "inputs": "extrapolated" if on else "held"}
                try:
                    res = libcosim.run_ssp(packed[on], stop, h, [tuple(s.split(".", 1)) for s in sig])
                    r["deviation"] = {s: _deviation(res.values[s], ref[s][1:]) for s in sig}
                except Exception as exc:                     # (a failing step: its message)
                    r["error"] = str(exc).splitlines()[0][:200]
                r["cpu"] = time.process_time() - c0
                rows.append(r)
                what = (", ".join(f"{k} {100 * v:.3g} %" for k, v in r["deviation"].items()) if "deviation" in r
                        else r["error"])
                log(f"{name} {h:7.0e} inputs {r['inputs']:12s} {what}")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wearcosim.bench.cosim_matrix", description=__doc__.split("\n\n")[0])
    ap.add_argument("--systems", default="", help="comma-separated examples (default: all shipped)")
    ap.add_argument("--steps", default=",".join(f"{h:g}" for h in STEPS), help="communication steps [s]")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--stop", type=float, default=None, help="window [s] (default: each example's)")
    ap.add_argument("--out", default=None, help="JSON file (default results/bench_cosim_matrix.json)")
    ap.add_argument("--libcosim", action="store_true",
                    help="instead: libcosim on the hybrid mechanism's components, inputs held and extrapolated "
                         "by the FMUs (results/bench_cosim_libcosim.json)")
    ap.add_argument("--ratio", action="store_true",
                    help="instead: the hybrid mechanism and a user's pendulum on the joint within 1 %% of the "
                         "container, and their CPU time ratio (results/bench_cosim_ratio.json)")
    a = ap.parse_args(argv)
    from ..atomic import write_bytes
    from ..resources import results_dir

    def save(rows: list, default: str) -> None:
        out = Path(a.out) if a.out else results_dir() / default
        write_bytes(out, json.dumps(rows, indent=1, default=float).encode())
        print(f"-> {out}")
    if a.libcosim:
        save(libcosim_table(), "bench_cosim_libcosim.json")
        return 0
    if a.ratio:
        save(ratio(), "bench_cosim_ratio.json")
        return 0
    rows = run([s for s in a.systems.split(",") if s] or None, [float(x) for x in a.steps.split(",")],
               [x for x in a.algorithms.split(",") if x], a.stop)
    silent = [r for r in rows if r["outcome"] == "SILENT"]
    print(f"{len(rows)} runs: {sum(r['outcome'] == 'accurate' for r in rows)} accurate, "
          f"{sum(r['outcome'] == 'stopped' for r in rows)} stopped, {len(silent)} SILENT")
    save(rows, "bench_cosim_matrix.json")
    return 1 if silent else 0


if __name__ == "__main__":
    sys.exit(main())
