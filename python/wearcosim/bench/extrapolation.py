"""``python -m wearcosim.bench.extrapolation``: how much a cycle extrapolation costs in accuracy,
against a direct reference that simulates every real cycle.

The README demo (hybrid mechanism, dry D3 joint, c = 0.25 mm, 32 pi rad/s, k = 1e-4) is run
for ``--real`` real cycles (default 10^5) three ways, each in a fresh process:

* **direct**: every real cycle simulated, the profile updated after every cycle (extrapolation
  1) -- the reference; its wall and CPU time are the cost of doing without extrapolation;
* **fixed factors** N = 2500 (the seed's choice: 40 simulated cycles), 250 and 25;
* **adaptive** extrapolation at rtol = 0.1, 0.01 and 0.001.

For each: simulated wear cycles, CPU time, and the error of the final profile against the
direct one (peak depth; the largest relative error over the sectors above 10 % of the peak),
with the run's own error estimate beside it.  Writes ``results/bench_extrapolation.json`` and
the figure ``results/bench_extrapolation.png`` (the profiles; error against simulated cycles).
Not a test: the direct run takes minutes.  ``--real 1e4`` gives a quick look.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..resources import results_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "cosim" / "demo_hybrid_dry_32pi.toml"


def _child(kind: str, value: str, real: str, out: str):
    """One run in this process: prints its figures as one JSON line."""
    from wearcosim.master import store
    from wearcosim.master.loop import WearMaster
    from wearcosim.master.scenario import from_dict, load
    d = dict(load(DEMO).raw)
    d["wear"], d["run"] = dict(d["wear"]), dict(d["run"])
    real_cycles = float(real)
    if kind == "adaptive":
        d["wear"].pop("cycles", None)
        d["wear"].update(extrapolation="adaptive", real_cycles=real_cycles, rtol=float(value),
                         cycles=int(real_cycles))
    else:
        n = float(value)
        d["wear"].update(extrapolation=n, cycles=int(round(real_cycles / n)))
    d["run"]["record_every"] = 10 ** 9          # the series of the first and last cycle; summaries of all
    d["name"] = f"{kind}_{value}".replace(".", "p")
    m = WearMaster(from_dict(d, str(DEMO), base=DEMO.parent), out, progress=False)
    c0, w0 = time.process_time(), time.perf_counter()
    path = m.run()
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    meta, _, wear = store.read_results(path)
    x = store.read_extrapolation(path)
    print(json.dumps({"kind": kind, "value": float(value), "cpu": cpu, "wall": wall,
                      "simulated_wear_cycles": int(wear["simulated_cycles"][-1]),
                      "real_cycles": float(meta["real_cycles"]), "final": wear["final"].tolist(),
                      "centres": wear["sector_centres"].tolist(),
                      "estimate": x.get("attrs", {}).get("sector_error_estimate"),
                      "rejected": x.get("attrs", {}).get("rejected", 0)}))


def measure(kind: str, value: float, real: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="wearcosim-extrap-") as tmp:
        cmd = [sys.executable, "-c", "import sys; from wearcosim.bench.extrapolation import _child; _child(*sys.argv[1:])",
               kind, repr(value), repr(real), tmp]
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   OPENBLAS_NUM_THREADS="1")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            return {"kind": kind, "value": value, "error": (p.stderr.strip().splitlines() or ["?"])[-1]}
        return json.loads(p.stdout.strip().splitlines()[-1])


def errors(final: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """(relative error of the peak depth, largest relative error of the sectors above 10 % of
    the reference's peak)."""
    final, ref = np.asarray(final), np.asarray(ref)
    big = ref > 0.1 * ref.max()
    return float(final.max() / ref.max() - 1), float(np.max(np.abs(final[big] / ref[big] - 1)))


def figure(rows: list[dict[str, Any]], ref: dict[str, Any], path: str | Path) -> Path:
    """Final profiles (direct, fixed and adaptive extrapolation) and error against cost, in the
    project's figure style: ``path`` as PDF and 300-dpi PNG; returns the PNG."""
    from ..plots.style import DOUBLE, figure as new_figure, save
    fig, (a, b) = new_figure(DOUBLE, 0.42, ncols=2)
    deg = np.degrees(ref["centres"])
    a.plot(deg, np.asarray(ref["final"]) * 1e6, "k-", lw=2.5, label=f"direct ({ref['simulated_wear_cycles']} cycles)")
    for r in rows:
        if (r["kind"], r["value"]) in (("fixed", 2500.0), ("adaptive", 0.01)):
            a.plot(deg, np.asarray(r["final"]) * 1e6, "--" if r["kind"] == "fixed" else ":", lw=1.8,
                   label=f"{r['kind']} {r['value']:g} ({r['simulated_wear_cycles']} cycles)")
    a.set_xlabel("sector centre (deg)")
    a.set_ylabel("worn depth (µm)")
    a.set_title(f"final profile after {ref['real_cycles']:.3g} real cycles")
    a.legend(fontsize=6)
    for kind, mk in (("fixed", "s-"), ("adaptive", "o-")):
        rs = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["simulated_wear_cycles"])
        if rs:
            b.loglog([r["simulated_wear_cycles"] for r in rs], [max(r["sector_error"], 1e-9) for r in rs], mk,
                     label=f"{kind} (" + ", ".join(f"{r['value']:g}" for r in rs) + ")")
    for kind, mk in (("fixed", "s"), ("adaptive", "o")):
        est = [r for r in rows if r["kind"] == kind and r.get("estimate")]
        if est:
            b.loglog([r["simulated_wear_cycles"] for r in est], [r["estimate"] for r in est], mk, mfc="none",
                     color="C0" if kind == "fixed" else "C1", label=f"{kind}: the run's own estimate")
    b.axvline(ref["simulated_wear_cycles"], color="k", lw=1, ls=":")
    b.text(ref["simulated_wear_cycles"], b.get_ylim()[0], " direct", rotation=90, va="bottom", fontsize=6)
    b.set_xlabel("simulated wear cycles (cost)")
    b.set_ylabel("max. relative error of sectors\nabove 10 % of the peak (-)")
    b.set_title("error against the direct run")
    b.legend(fontsize=6, loc="upper right")
    return save(fig, Path(path))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wearcosim.bench.extrapolation", description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=float, default=1e5, help="real cycles (default 1e5)")
    ap.add_argument("--out", default=str(results_dir() / "bench_extrapolation.json"))
    a = ap.parse_args(argv)
    print(f"direct reference: {a.real:.3g} simulated cycles ...", flush=True)
    ref = measure("fixed", 1.0, a.real)
    if "error" in ref:
        print(f"error: direct run failed: {ref['error']}", file=sys.stderr)
        return 1
    print(f"  direct: {ref['simulated_wear_cycles']} cycles, CPU {ref['cpu']:.1f} s, wall {ref['wall']:.1f} s "
          f"({ref['wall'] / 60:.1f} min; target <= 15 min)", flush=True)
    rows = []
    print(f"{'run':>18} {'cycles':>8} {'CPU s':>8} {'peak err':>9} {'sector err':>11} {'estimate':>9} {'fewer':>7}")
    for kind, values in (("fixed", (2500.0, 250.0, 25.0)), ("adaptive", (0.1, 0.01, 0.001))):
        for v in values:
            if kind == "fixed" and v >= a.real:
                continue
            r = measure(kind, v, a.real)
            if "error" in r:
                print(f"{kind + ' ' + format(v, 'g'):>18}  failed: {r['error']}")
                continue
            r["peak_error"], r["sector_error"] = errors(r["final"], ref["final"])
            rows.append(r)
            est = f"{r['estimate']:9.2e}" if r.get("estimate") is not None else f"{'-':>9}"
            print(f"{kind + ' ' + format(v, 'g'):>18} {r['simulated_wear_cycles']:8d} {r['cpu']:8.2f} "
                  f"{r['peak_error']:+9.2e} {r['sector_error']:11.2e} {est} "
                  f"x{ref['simulated_wear_cycles'] / r['simulated_wear_cycles']:6.0f}", flush=True)
    png = Path(a.out).with_suffix(".png")
    figure(rows, ref, png)
    from ..atomic import write_bytes
    write_bytes(a.out, json.dumps({"direct": ref, "runs": rows}, indent=1).encode())
    print(f"written {a.out} and {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
