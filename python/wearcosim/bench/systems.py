"""``python -m wearcosim.bench.systems``: a composed system against the monolithic FMU of the
same physics.

For each composed example (:data:`wearcosim.system.examples.EXAMPLES`: the hybrid mechanism's
dry and lubricated D3 joint, the two-disk rotor rub) three contenders integrate the same
window (0 to the example's stop time) and write the same output grid (``N_OUT`` points):

* the MONOLITHIC Co-Simulation FMU of the example (``EXAMPLES[name]["monolithic"]``);
* the strongly coupled CONTAINER FMU of the system (:func:`wearcosim.system.run.container_fmu`:
  one embedded solver over the components' Model-Exchange interfaces, the components rebuilt
  from their sources with the container's fast entry points), run as a Co-Simulation FMU
  exactly like the monolithic one;
* the same container built with ``fast=False`` (every component call through its fmi2
  functions: the fallback for components without sources), informative: what the fast entry
  points save;
* the CO-SIMULATION master (:func:`wearcosim.system.cosim.run_cosim`: the components'
  Co-Simulation FMUs exchanging values at communication points; informative).

Monolithic and container are stepped by the same runner (:func:`wearcosim.fmi.runner.open_fmu`,
instantiated once, reset per run, batched ``step_record``) with the same embedded solver
(``solver.method``: auto, DOPRI5, RODAS4 and Adams, each in turn) and the same relative tolerance
(``RTOL``).  Figures:

* CPU time of the thread that steps (``time.thread_time``: the FMUs run in it; the process
  time would add the idle spinning of numpy's BLAS threads, ~10 % noise) of the stepping, the best of
  at least ``REPEAT`` runs, repeated until each contender has run ``MIN_CPU`` seconds (at most
  ``MAX_REPEAT`` runs; fewer when the runs of a contender add up to more than ``BUDGET``
  seconds; the runs of both alternate); the ratio container / monolithic;
* accuracy: the deviation container - monolithic on the output grid, max |x_c - x_m| /
  range(x_m) of the orbit signals (journal eccentricity ex, ey; the rotor's disk position x,
  y relative to the stator) and of every continuous state (divided by max(range, max |x|));
  0 means the two computed the same numbers bit for bit;
* right-hand sides: the container's ``_container.nRhs`` (every evaluation: solver stages,
  finite-difference Jacobian columns, event iterations) and, for both FMUs, the solver's
  counters that the runtime logs at ``fmi2Terminate`` (category logAll: steps, rejected
  steps, nfev, njev = analytic Jacobians; the container has none, its Jacobians are finite
  differences counted in nfev);
* where the container's time goes: a run with ``_container.timing`` on gives the time inside
  the component FMUs' fmi2 calls (``_container.timeInComponents``), the container's own
  evaluation outside them (``timeInContainer``) and, by difference with the run's wall time,
  the rest (the runtime's solver, the FMI layer, the stepping loop); the container measures
  wall-clock time, so these are given as shares of the wall time of the same run (the one
  with the least wall time of the repeats).  The ratio uses runs with timing off; the CPU of
  the timing-on runs against them is the cost of the timing itself (two clock reads per
  component call);
* the co-simulation master (Gauss-Seidel, inputs extrapolated linearly, the components'
  solvers at the same tolerance) at the largest communication step of ``output interval /
  4**k`` (k = 0, 1, ...) that runs through with an orbit error <= ``COSIM_TARGET`` against the
  monolithic FMU (auto solver); coarser steps that failed or missed it are listed.  Timed
  once, instantiation and extraction of the component FMUs included.

Results: ``results/bench_systems.json`` (written atomically) and a table.  ``run(quick=True)``
runs one system over a short window with one solver and one repeat (a smoke test of the
plumbing, tests/bench/test_bench_systems.py).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..resources import results_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]

#: composed example -> signals of the monolithic FMU compared as the orbit
SYSTEMS = {
    "hybrid_dry_32pi": ("ex", "ey"),
    "hybrid_lubricated_7pi": ("ex", "ey"),
    "two_disk_rub": ("x", "y"),
}
SOLVERS = {"auto": 0, "DOPRI5": 1, "RODAS4": 2, "Adams": 3}
RTOL = 1e-6
N_OUT = 2000
REPEAT = 5              # runs per contender at least ...
MIN_CPU = 1.0           # ... and until each has run this many CPU seconds (short runs: many repeats,
                        # so that a burst of load on a shared machine does not decide the best)
MAX_REPEAT = 200
BUDGET = 10.0           # CPU seconds per contender after which no further repeat is made
TARGET_RATIO = 1.3      # issue 36 point 4: container at most 1.3x the monolithic FMU's CPU
COSIM_TARGET = 1e-3     # orbit error the co-simulation step must reach
COSIM_DIVISORS = (1, 4, 16, 64, 256)
_SOLVER_LINE = re.compile(r"solver (.+?): steps=(\d+) accepted=(\d+) rejected=(\d+) nfev=(\d+) njev=(\d+) "
                          r"nlu=(\d+) nswitch=(\d+) events=(\d+) \(last steps: (.*)\)\s*$")
DIAG = ("nRhs", "nEvents", "nPasses", "nCalls", "timeInComponents", "timeInContainer")


def _quiet(*_a, **_k):
    pass


class _Contender:
    """One FMU (monolithic or container), instantiated once; :meth:`run` resets it, sets the
    solver, steps the grid and returns (CPU seconds, tout, values)."""

    def __init__(self, fmu, names, container=False):
        from ..fmi.runner import open_fmu
        self.r = open_fmu(fmu, log_level=0)
        self.names = list(names)
        self.vrs = self.r.vr(self.names)
        self.container = container
        self.terminated = False

    def run(self, stop, n, rtol, method, timing=False):
        r = self.r
        r.reset()
        self.terminated = False
        r.slave.setDebugLogging(False, [])       # no log traffic while timed (events log otherwise)
        r.setup(0.0, stop, rtol, stop / n)
        starts = {"solver.method": method}
        if self.container:
            starts["_container.timing"] = bool(timing)
        r.set(starts)
        r.initialize()
        c0, w0 = time.thread_time(), time.perf_counter()
        t, y = r.step_record(n, self.vrs)
        cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
        diag = r.get([f"_container.{d}" for d in DIAG]) if self.container else {}
        diag = {k.split(".", 1)[1]: float(v) for k, v in diag.items()}
        diag["wall"] = wall
        return cpu, t, y, diag

    def solver_stats(self) -> dict:
        """fmi2Terminate with logging on: the runtime's solver counters (the FMU is reset by the
        next run)."""
        r = self.r
        r.log.clear()
        r.slave.setDebugLogging(True, [])
        r.slave.terminate()
        self.terminated = True
        out = {}
        for line in r.log:
            m = _SOLVER_LINE.search(line)
            if m:
                out = dict(method=m.group(1), steps=int(m.group(2)), accepted=int(m.group(3)),
                           rejected=int(m.group(4)), nfev=int(m.group(5)), njev=int(m.group(6)),
                           nlu=int(m.group(7)), nswitch=int(m.group(8)), events=int(m.group(9)),
                           last_steps=m.group(10))
        return out

    def close(self):
        """Terminate (unless :meth:`solver_stats` did), free the instance, remove the extraction."""
        from ..fmi.runner import FMIError
        try:
            self.r.terminate()
        except FMIError:
            if not self.terminated:
                raise


def _deviation(a: np.ndarray, b: np.ndarray, scale: str = "range") -> float:
    """max over columns of max |a - b| / (range of b, or max(range, max |b|))."""
    d = np.max(np.abs(a - b), axis=0)
    s = np.ptp(b, axis=0)
    if scale != "range":
        s = np.maximum(s, np.max(np.abs(b), axis=0))
    s = np.where(s > 0, s, 1.0)
    return float(np.max(d / s)) if d.size else 0.0


def _fmus(name, build_dir, cache_dir, log):
    from ..export.ondemand import ensure_fmu
    from ..system.examples import EXAMPLES, ensure_fmus, system_of
    from ..system.run import container_fmu
    system = ensure_fmus(system_of(name), log=log)
    cont = container_fmu(system, cache_dir, log=log)
    mono = ensure_fmu(EXAMPLES[name]["monolithic"], build_dir, log=log)
    return system, Path(cont), Path(mono)


def _fmi_path_fmu(system, cont: Path, log) -> Path:
    """The container of ``system`` built with ``fast=False`` next to ``cont`` (its cached fast
    build; same digest, suffix ``-fmi``), built when missing."""
    from ..atomic import named
    from ..system.container import build_container
    dest = cont.with_name(cont.stem + "-fmi.fmu")
    if not dest.exists():
        try:
            build_container(system, dest, name=system.name, fast=False)
        except OSError as exc:
            raise named(exc, dest) from None
        log(f"built container {dest.name}")
    return dest


def _names(mono_md, cont_md, orbit):
    """(monolithic names, container names): the orbit signals, then the container's states
    under their names in the monolithic FMU (``body.q[1]`` is ``q[1]`` there, ``rotor.q[1]``
    keeps its name)."""
    mvars = {v.name for v in mono_md.modelVariables}
    cvars = [v.name for v in cont_md.modelVariables]
    m_names, c_names = [], []
    for s in orbit:
        hits = [c for c in cvars if c == s or c.split(".", 1)[-1] == s]
        if len(hits) != 1:
            raise ValueError(f"orbit signal {s!r}: {len(hits)} matches in the container ({hits[:4]})")
        m_names.append(s)
        c_names.append(hits[0])
    for d in cont_md.derivatives:
        c = d.variable.derivative.name
        m = c if c in mvars else c.split(".", 1)[-1]
        if m not in mvars:
            raise ValueError(f"container state {c!r} has no counterpart in the monolithic FMU")
        m_names.append(m)
        c_names.append(c)
    return m_names, c_names


def _cosim(system, stop, n, rtol, tout, ref_orbit, orbit_c, divisors, target):
    """The co-simulation master on the ladder of steps; the first that runs through with an
    orbit error <= target is kept (else the most accurate one that ran)."""
    from ..system.cosim import run_cosim
    dt = stop / n
    ladder, best = [], None
    for k in divisors:
        h = dt / k
        c0 = time.thread_time()
        try:
            res = run_cosim(system, stop, h, record=list(orbit_c), tolerance=rtol, extrapolation=1)
        except Exception as exc:        # noqa: BLE001 -- an unstable coupling ends in an FMI error: reported
            ladder.append({"step": h, "divisor": k, "cpu": time.thread_time() - c0,
                           "error": None, "failed": f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"})
            continue
        cpu = time.thread_time() - c0
        y = np.column_stack([np.interp(tout, res.time, res[s]) for s in orbit_c])
        err = _deviation(y, ref_orbit)
        row = {"step": h, "divisor": k, "cpu": cpu, "error": err, "macro_steps": res.stats.get("macro_steps"),
               "fmi_calls": res.stats.get("fmi_calls")}
        ladder.append(row)
        if best is None or err < best["error"]:
            best = row
        if err <= target:
            break
    out = dict(best or {"step": None, "cpu": None, "error": None})
    out.update(algorithm="gauss-seidel", extrapolation=1, target=target, reached=bool(best and best["error"] <= target),
               ladder=ladder)
    return out


def bench_system(name: str, *, build_dir: Path, cache_dir: Path, solvers: Sequence[str] = tuple(SOLVERS),
                 rtol: float = RTOL, n: int = N_OUT, stop: float | None = None,
                 repeat: int = REPEAT, budget: float = BUDGET, cosim: bool = True,
                 cosim_divisors: Sequence[int] = COSIM_DIVISORS,
                 cosim_target: float = COSIM_TARGET, log: Callable[..., Any] = _quiet) -> dict[str, Any]:
    from ..fmi.runner import read_md
    from ..system.examples import EXAMPLES
    ex = EXAMPLES[name]
    stop = float(stop or ex["stop"])
    system, cont, mono = _fmus(name, build_dir, cache_dir, log)
    slow = _fmi_path_fmu(system, cont, log)
    m_names, c_names = _names(read_md(mono), read_md(cont), SYSTEMS[name])
    k_orbit = len(SYSTEMS[name])
    row = {"system": name, "description": ex["description"], "monolithic": ex["monolithic"], "container": cont.name,
           "stop": stop, "n_out": n, "rtol": rtol, "states": len(m_names) - k_orbit,
           "orbit": list(SYSTEMS[name]), "solvers": {}}
    M, C = _Contender(mono, m_names), _Contender(cont, c_names, container=True)
    F = _Contender(slow, c_names, container=True)
    ref = None
    try:
        for sname in solvers:
            method = SOLVERS[sname]
            log(f"{name}: {sname} ...")
            best = {"mono": np.inf, "off": np.inf, "on": np.inf, "fmi": np.inf}
            spent = {"mono": 0.0, "off": 0.0, "on": 0.0, "fmi": 0.0}
            runs = 0
            diag_on = diag_off = None
            for i in range(MAX_REPEAT if repeat > 1 else 1):
                cpu, tout, ym, _ = M.run(stop, n, rtol, method)
                best["mono"], spent["mono"] = min(best["mono"], cpu), spent["mono"] + cpu
                if i == 0:
                    mstats = M.solver_stats()
                cpu, _, yc, diag_off = C.run(stop, n, rtol, method, timing=False)
                best["off"], spent["off"] = min(best["off"], cpu), spent["off"] + cpu
                if i == 0:
                    cstats = C.solver_stats()
                cpu, _, yc_on, d_on = C.run(stop, n, rtol, method, timing=True)
                if diag_on is None or d_on["wall"] < diag_on["wall"]:
                    diag_on = d_on            # the timing figures of the timing-on run least disturbed
                best["on"], spent["on"] = min(best["on"], cpu), spent["on"] + cpu
                cpu, _, yf, diag_fmi = F.run(stop, n, rtol, method, timing=False)
                best["fmi"], spent["fmi"] = min(best["fmi"], cpu), spent["fmi"] + cpu
                runs += 1
                if max(spent.values()) > budget or (runs >= repeat and min(spent.values()) >= MIN_CPU):
                    break
            if sname == "auto" or ref is None:     # the co-simulation's reference: auto, else the first
                ref = (tout, ym[:, :k_orbit])
            on = best["on"]
            # the container measures wall-clock time: its parts are shares of the same run's wall time
            wall, t_comp, t_cont = diag_on["wall"], diag_on["timeInComponents"], diag_on["timeInContainer"]
            row["solvers"][sname] = {
                "method": method, "repeats": runs,
                "monolithic": {"cpu": best["mono"], "solver": mstats,
                               "us_per_rhs": best["mono"] / mstats["nfev"] * 1e6 if mstats.get("nfev") else None},
                "container": {"cpu": best["off"], "solver": cstats,
                              **{k: diag_off[k] for k in ("nRhs", "nEvents", "nPasses", "nCalls")},
                              "us_per_rhs": best["off"] / diag_off["nRhs"] * 1e6 if diag_off["nRhs"] else None},
                "container_timing_on": {"cpu": on, "wall": wall, "time_in_components": t_comp,
                                        "time_in_container": t_cont, "rest": wall - t_comp - t_cont,
                                        "share_in_components": t_comp / wall,
                                        "share_in_container": t_cont / wall,
                                        "share_rest": (wall - t_comp - t_cont) / wall,
                                        "timing_overhead": on / best["off"] - 1.0},
                "container_fmi_path": {"cpu": best["fmi"], "nCalls": diag_fmi["nCalls"],
                                       "ratio": best["fmi"] / best["mono"],
                                       "identical_to_fast": bool(np.array_equal(yf, yc))},
                "ratio": best["off"] / best["mono"],
                "within_target": best["off"] / best["mono"] <= TARGET_RATIO,
                "deviation": {"orbit": _deviation(yc[:, :k_orbit], ym[:, :k_orbit]),
                              "states": _deviation(yc[:, k_orbit:], ym[:, k_orbit:], scale="max"),
                              "identical": bool(np.array_equal(yc, ym)),
                              "timing_on_identical": bool(np.array_equal(yc, yc_on))},
            }
    finally:
        M.close()
        C.close()
        F.close()
    if cosim:
        log(f"{name}: co-simulation ...")
        orbit_c = c_names[:k_orbit]
        cs = _cosim(system, stop, n, rtol, ref[0], ref[1], orbit_c, cosim_divisors, cosim_target)
        base = "auto" if "auto" in row["solvers"] else next(iter(row["solvers"]))
        cs["reference_solver"] = base
        cs["ratio"] = cs["cpu"] / row["solvers"][base]["monolithic"]["cpu"] if cs.get("cpu") else None
        row["cosim"] = cs
    return row


def run(quick: bool = False, systems: Sequence[str] | None = None, build_dir: Path | None = None,
        cache_dir: Path | None = None, log: Callable[..., Any] = _quiet) -> dict[str, Any]:
    """Every system of :data:`SYSTEMS` (or ``systems``): ``{"settings": ..., "systems": [row]}``.
    ``quick``: the first system only, over 1/10 of its window with 100 points, DOPRI5 only,
    one repeat, co-simulation at one step (output interval / 16)."""
    from ..system.examples import SYSTEMS as SYSTEMS_DIR
    build_dir = Path(build_dir or ROOT / "fmu" / "build")
    cache_dir = Path(cache_dir or SYSTEMS_DIR / "fmus" / ".containers")
    names = list(systems or (list(SYSTEMS)[:1] if quick else SYSTEMS))
    kw = dict(build_dir=build_dir, cache_dir=cache_dir, log=log)
    if quick:
        from ..system.examples import EXAMPLES
        kw.update(solvers=("DOPRI5",), n=100, repeat=1, cosim_divisors=(16,))
    rows = []
    for name in names:
        if quick:
            kw["stop"] = EXAMPLES[name]["stop"] / 10
        rows.append(bench_system(name, **kw))
    settings = {"rtol": RTOL, "n_out": kw.get("n", N_OUT), "repeat": kw.get("repeat", REPEAT), "budget_s": BUDGET,
                "target_ratio": TARGET_RATIO, "cosim_target": COSIM_TARGET, "quick": quick,
                "cpu": "time.thread_time of the stepping (the FMUs run in the calling thread), best of the repeats"}
    return {"settings": settings, "systems": rows}


def _g(x, fmt):
    return "n/a" if x is None else format(x, fmt)


def report(rows: Sequence[dict[str, Any]] | dict[str, Any]) -> list[str]:
    """Table lines of ``run()["systems"]`` (or of ``run()``'s whole result)."""
    if isinstance(rows, dict):
        rows = rows["systems"]
    lines = []
    for r in rows:
        lines.append(f"{r['system']}: {r['description']}")
        lines.append(f"  0-{r['stop']:g} s, {r['n_out']} output points, rtol {r['rtol']:g}, {r['states']} states; "
                     f"deviation = max |container - monolithic| / range ({', '.join(r['orbit'])}; states: / max(range, |x|))")
        lines.append(f"    {'solver':7s} {'monolithic':>11s} {'container':>11s} {'ratio':>7s}  {'dev orbit':>9s} "
                     f"{'dev states':>10s}  {'RHS mono (nfev/njev)':>21s}  {'RHS container (nRhs; nfev)':>27s}   "
                     f"timing on: in components / container / rest (wall), timing cost")
        for sname, s in r["solvers"].items():
            m, c, on, d = s["monolithic"], s["container"], s["container_timing_on"], s["deviation"]
            ms, cs = m["solver"], c["solver"]
            flag = "" if s["within_target"] else f" >{TARGET_RATIO:g}x"
            same = " (identical)" if d["identical"] else ""
            lines.append(
                f"    {sname:7s} {m['cpu'] * 1e3:8.1f} ms {c['cpu'] * 1e3:8.1f} ms {s['ratio']:6.2f}x{flag:4s}"
                f" {d['orbit']:9.1e} {d['states']:10.1e}  {ms.get('nfev', 0):>12d}/{ms.get('njev', 0):<8d}"
                f" {c['nRhs']:>14.0f}; {cs.get('nfev', 0):<10d}   "
                f"{on['share_in_components'] * 100:3.0f} / {on['share_in_container'] * 100:3.0f} / {on['share_rest'] * 100:3.0f} %"
                f" of {on['wall'] * 1e3:.1f} ms, {on['timing_overhead'] * 100:+.0f} %{same}")
            lines.append(f"    {'':7s} solver steps mono {ms.get('steps')} (rejected {ms.get('rejected')}, last {ms.get('last_steps')}), "
                         f"container {cs.get('steps')} (rejected {cs.get('rejected')}, last {cs.get('last_steps')}); "
                         f"{_g(m['us_per_rhs'], '.2f')} vs {_g(c['us_per_rhs'], '.2f')} us per RHS; "
                         f"{c['nCalls']:.0f} component calls; best of {s['repeats']}")
            f = s.get("container_fmi_path")
            if f:
                lines.append(f"    {'':7s} container on the fmi2 path (fast=False): {f['cpu'] * 1e3:.1f} ms, "
                             f"{f['ratio']:.2f}x, {f['nCalls']:.0f} component calls"
                             f"{', identical' if f['identical_to_fast'] else ', NOT identical to the fast path'}")
        cs = r.get("cosim")
        if cs:
            lad = ", ".join(f"dt/{x['divisor']}: " + (f"error {x['error']:.1e}" if x["error"] is not None else "failed")
                            for x in cs["ladder"])
            if cs.get("cpu") is not None:
                lines.append(f"    co-simulation (Gauss-Seidel, extrapolation 1) step {cs['step']:.3g} s: "
                             f"{cs['cpu'] * 1e3:.0f} ms, {cs['ratio']:.0f}x the monolithic ({cs['reference_solver']}), orbit error "
                             f"{cs['error']:.1e}{'' if cs['reached'] else ' (target ' + format(cs['target'], 'g') + ' not reached)'}"
                             f"  [ladder: {lad}]")
            else:
                lines.append(f"    co-simulation: no step of the ladder ran through [{lad}]")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wearcosim.bench.systems", description=__doc__.split("\n")[0])
    ap.add_argument("systems", nargs="*", help=f"composed examples (default: all: {', '.join(SYSTEMS)})")
    ap.add_argument("--quick", action="store_true", help="a smoke run: short window, one solver, one repeat")
    ap.add_argument("--out", default=str(results_dir() / "bench_systems.json"))
    a = ap.parse_args(argv)
    unknown = [x for x in a.systems if x not in SYSTEMS]
    if unknown:
        ap.error(f"unknown system(s) {', '.join(unknown)} (choose from {', '.join(SYSTEMS)})")
    res = run(quick=a.quick, systems=a.systems or None, log=lambda *m: print(*m, file=sys.stderr, flush=True))
    print("\n".join(report(res["systems"])))
    from ..atomic import write_bytes
    write_bytes(a.out, json.dumps(res, indent=1).encode())
    print(f"written {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
