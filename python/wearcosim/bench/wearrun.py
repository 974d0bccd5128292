"""``python -m wearcosim.bench.wearrun``: long wear runs of the README demo (the hybrid mechanism
at 32 pi rad/s, dry D3 joint), each in a fresh process: CPU and wall time, peak RSS, and the
cost of the first and last checkpoint, for a number of cycles with the default checkpointing
and with checkpoints off.  Figures:

* checkpoint overhead: CPU(default checkpointing) / CPU(checkpoints off) at the largest N;
* checkpoint cost: the first and the last checkpoint write of the run (flat: O(1) each);
* memory: peak RSS at each N (the series stream to disk: flat in N).

Not a test: timings live here (CI runs on a shared machine).
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

from ..resources import results_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "cosim" / "demo_hybrid_dry_32pi.toml"


def _child(cycles: str, checkpoint: str, out: str):
    from wearcosim.master.loop import WearMaster
    from wearcosim.master.scenario import load
    sc = load(DEMO)
    sc.cycles = int(cycles)
    m = WearMaster(sc, out, progress=False)
    m.checkpoint_seconds = float(checkpoint)
    c0, w0 = time.process_time(), time.perf_counter()
    m.run()
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    costs = m.checkpoint_costs
    print(json.dumps({"cycles": int(cycles), "checkpoint_seconds": float(checkpoint), "cpu": cpu, "wall": wall,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "checkpoints": len(costs), "first_ckpt_ms": costs[0] * 1e3 if costs else None,
                      "last_ckpt_ms": costs[-1] * 1e3 if costs else None}))


def measure(cycles: int, checkpoint: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="wearcosim-wearrun-") as tmp:
        cmd = [sys.executable, "-c", "import sys; from wearcosim.bench.wearrun import _child; _child(*sys.argv[1:])",
               str(cycles), str(checkpoint), tmp]
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   OPENBLAS_NUM_THREADS="1")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            return {"cycles": cycles, "error": (p.stderr.strip().splitlines() or ["?"])[-1]}
        return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wearcosim.bench.wearrun", description=__doc__.split("\n")[0])
    ap.add_argument("cycles", nargs="*", type=int, default=None, help="default: 160 640 2560")
    ap.add_argument("--out", default=str(results_dir() / "bench_wearrun.json"))
    a = ap.parse_args(argv)
    from wearcosim.master.loop import WearMaster
    rows = []
    print(f"{'cycles':>7} {'checkpoints':>12} {'CPU s':>8} {'wall s':>8} {'peak MB':>8} {'n ckpt':>7} "
          f"{'first ms':>9} {'last ms':>8}")
    for n in a.cycles or [160, 640, 2560]:
        for ck in (WearMaster.checkpoint_seconds, 1e9):
            r = measure(n, ck)
            rows.append(r)
            if "error" in r:
                print(f"{n:>7}  {r['error']}")
                continue
            f = lambda x: f"{x:9.2f}" if x is not None else f"{'-':>9}"   # noqa: E731
            print(f"{n:>7} {('default' if ck < 1e8 else 'off'):>12} {r['cpu']:8.2f} {r['wall']:8.2f} "
                  f"{r['peak_rss_mb']:8.0f} {r['checkpoints']:7d} {f(r['first_ckpt_ms'])} {f(r['last_ckpt_ms'])}",
                  flush=True)
    ok = [r for r in rows if "error" not in r]
    big = max((r["cycles"] for r in ok), default=None)
    if big:
        on = next(r for r in ok if r["cycles"] == big and r["checkpoint_seconds"] < 1e8)
        off = next(r for r in ok if r["cycles"] == big and r["checkpoint_seconds"] >= 1e8)
        print(f"checkpoint overhead at {big} cycles: CPU x{on['cpu'] / off['cpu']:.3f} (target <= 1.3)")
        small = min(r["cycles"] for r in ok)
        rs = [r for r in ok if r["checkpoint_seconds"] < 1e8]
        print(f"peak RSS {small} -> {big} cycles: x{max(r['peak_rss_mb'] for r in rs if r['cycles'] == big) / min(r['peak_rss_mb'] for r in rs if r['cycles'] == small):.3f}")
    from ..atomic import write_bytes
    write_bytes(a.out, json.dumps(rows, indent=1).encode())
    print(f"written {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
