"""``python -m wearcosim.bench.scale``: how building an FMU grows with the model's size.

The model is N independent damped oscillators written as a user would (one array equation
each for position and velocity, every oscillator with its own stiffness), so the Jacobian has
3N nonzeros of (2N)^2 entries: a model whose generated code and build must grow with the
nonzeros, not with n^2.  Each size is built in a fresh process (peak memory is the
process's own maximum resident set), with a time limit; the report gives build seconds (CPU
of the builder and its compilers), peak memory, generated C size, and the growth ratios
between consecutive sizes next to the ratio of the sizes (linear growth: equal ratios).

``--rotors`` measures the finite-element rotors the same way: the two-disk example
(``WearCosim.Examples.Rotor.TwoDiskRub``, 6 elements), the same rotor with four times the
elements (``bench/models/TwoDiskRub24.mo``) and the 33-element rotor of ROSS's rubbing test
(``bench/models/RossRubbingRotor.mo``, 2 disks, 2 anisotropic bearings), each as a ratio of
the two-disk build.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from ..resources import results_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def oscillators(n: int) -> str:
    """Modelica source of N independent damped oscillators (textbook form m x'' + d x' + k x = 0)."""
    return f"""model Oscillators "{n} independent damped oscillators"
  parameter Integer n = {n};
  parameter Real m = 1.0 "Mass [kg]";
  parameter Real d = 0.4 "Damping [N.s/m]";
  parameter Real k[n] = {{1.0 + 0.001*i for i in 1:n}} "Stiffness [N/m]";
  Real x[n](each start = 1.0, each fixed = true) "Position [m]";
  Real v[n](each start = 0.0, each fixed = true) "Velocity [m/s]";
equation
  der(x) = v;
  m*der(v) = -d*v - k .* x;
  annotation(experiment(StopTime = 1.0, Interval = 0.01));
end Oscillators;
"""


MODELS = Path(__file__).resolve().parent / "models"
#: rotor workloads: name -> (class, file or None for the library)
ROTORS = {"TwoDiskRub": ("WearCosim.Examples.Rotor.TwoDiskRub", None),
          "TwoDiskRub24": ("TwoDiskRub24", MODELS / "TwoDiskRub24.mo"),
          "RossRubbingRotor": ("RossRubbingRotor", MODELS / "RossRubbingRotor.mo")}


def _child(n, out: str) -> None:
    """Build the N-oscillator FMU (``n`` a number) or a rotor of :data:`ROTORS` (``n`` its
    name) in this (fresh) process and print one JSON line."""
    from wearcosim.export.build import DEFAULT_PACKAGE, build_fmu
    d = Path(out)
    if str(n) in ROTORS:
        model, mo = ROTORS[str(n)]
        args = (model, DEFAULT_PACKAGE, d / "fmu") if mo is None else (model, mo.parent, d / "fmu")
        kw = {} if mo is None else {"path": mo}
    else:
        n = int(n)
        mo = d / "Oscillators.mo"
        mo.write_text(oscillators(n))
        args, kw = ("Oscillators", d, d / "fmu"), {"path": mo}
    t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    k0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = build_fmu(*args, **kw)
    c1, k1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime) + (k1.ru_utime + k1.ru_stime - k0.ru_utime - k0.ru_stime)
    import zipfile
    with zipfile.ZipFile(r.fmu) as z:
        csize = sum(i.file_size for i in z.infolist() if i.filename.startswith("sources/") and
                    i.filename.endswith((".c", ".inc", ".h")))
    print(json.dumps({"n": n, "states": r.n_states, "wall": time.perf_counter() - t0, "cpu": cpu,
                      "peak_rss_mb": max(c1.ru_maxrss, k1.ru_maxrss) / 1024, "c_bytes": csize}))


def measure(n: int | str, timeout: float = 600.0) -> dict[str, Any]:
    """Build N oscillators (or the rotor named ``n``) in a fresh process: a dict of figures,
    or {"n", "error"}."""
    with tempfile.TemporaryDirectory(prefix="wearcosim-scale-") as tmp:
        cmd = [sys.executable, "-c", "import sys; from wearcosim.bench.scale import _child; _child(sys.argv[1], sys.argv[2])",
               str(n), tmp]
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            import signal
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return {"n": n, "error": f"did not build within {timeout:.0f} s"}
        if p.returncode != 0:
            tail = (err.strip().splitlines() or ["?"])[-1]
            return {"n": n, "error": f"build failed: {tail[:300]}"}
        return json.loads(out.strip().splitlines()[-1])


def report(rows: Sequence[dict[str, Any]]) -> list[str]:
    lines = [f"{'N':>7} {'states':>7} {'build CPU s':>12} {'peak MB':>9} {'C MB':>8}   growth vs previous (size ratio)"]
    prev = None
    for r in rows:
        if "error" in r:
            lines.append(f"{r['n']:>7}  {r['error']}")
            prev = None
            continue
        g = ""
        if prev:
            g = (f"   CPU x{r['cpu'] / prev['cpu']:.2f}, memory x{r['peak_rss_mb'] / prev['peak_rss_mb']:.2f}, "
                 f"C x{r['c_bytes'] / prev['c_bytes']:.2f} (N x{r['n'] / prev['n']:.0f})")
        lines.append(f"{r['n']:>7} {r['states']:>7} {r['cpu']:>12.2f} {r['peak_rss_mb']:>9.0f} {r['c_bytes'] / 1e6:>8.2f}{g}")
        prev = r
    return lines


def report_rotors(rows: Sequence[dict[str, Any]]) -> list[str]:
    lines = [f"{'rotor':>17} {'states':>7} {'build CPU s':>12} {'wall s':>8} {'peak MB':>9} {'C MB':>8}   vs TwoDiskRub"]
    base = next((r for r in rows if r["n"] == "TwoDiskRub" and "error" not in r), None)
    for r in rows:
        if "error" in r:
            lines.append(f"{r['n']:>17}  {r['error']}")
            continue
        g = (f"   CPU x{r['cpu'] / base['cpu']:.2f}, wall x{r['wall'] / base['wall']:.2f}, states x{r['states'] / base['states']:.2f}"
             if base else "")
        lines.append(f"{r['n']:>17} {r['states']:>7} {r['cpu']:>12.2f} {r['wall']:>8.2f} {r['peak_rss_mb']:>9.0f} "
                     f"{r['c_bytes'] / 1e6:>8.2f}{g}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wearcosim.bench.scale", description=__doc__.split("\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, default=None)
    ap.add_argument("--rotors", action="store_true", help="build the rotor workloads instead (ratios to TwoDiskRub)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per build")
    ap.add_argument("--out", default=str(results_dir() / "bench_scale.json"))
    a = ap.parse_args(argv)
    rows = []
    if a.rotors:
        for name in ROTORS:
            print(f"building {name} ...", file=sys.stderr, flush=True)
            rows.append(measure(name, a.timeout))
            print(report_rotors(rows)[-1], flush=True)
        print("\n".join(report_rotors(rows)))
        out = a.out if a.out != str(results_dir() / "bench_scale.json") else str(results_dir() / "bench_scale_rotors.json")
        from ..atomic import write_bytes
        write_bytes(out, json.dumps(rows, indent=1).encode())
        print(f"written {out}")
        return 0
    for n in a.sizes or [100, 1000, 5000]:
        print(f"building {n} oscillators ...", file=sys.stderr, flush=True)
        rows.append(measure(n, a.timeout))
        print(report(rows)[-1], flush=True)
    print("\n".join(report(rows)))
    from ..atomic import write_bytes
    write_bytes(a.out, json.dumps(rows, indent=1).encode())
    print(f"written {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
