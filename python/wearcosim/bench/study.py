"""``python -m wearcosim.bench.study``: the sensitivity study's cases per CPU-second, batched
against unbatched, in the same process and run (also the study part of ``python -m
wearcosim.bench``).

* **batched** (the study's path now, :func:`wearcosim.studies.runner.run_shipped`): the cases
  in batches of the study file's ``batch``, the FMU opened once for all of them (as a worker
  process opens it once per study), each case run in memory on that instance (fmi2Reset
  between cases);
* **unbatched** (the path before batches, "today's" of issue 36): per case a fresh FMU
  instance and a full :meth:`WearMaster.run` -- lock, checkpoint, streams, results file --
  whose final profile is read back from the results file.

Both run the same cases of the hybrid sensitivity study (``cosim/sensitivity/hybrid_dry.toml``,
the parameters drawn uniformly in their ranges, seeded) in this process, alternating, CPU
time, best of ``repeats``; every case's final profile must be the same bit for bit on both
paths.  The acceptance figure: cases per CPU-second batched / unbatched, against
:data:`STUDY_LIMIT` (``ratio_to_limit`` >= 1: met).

Not a test: timings live here (CI runs on a shared machine).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..resources import results_dir

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "cosim" / "sensitivity" / "hybrid_dry.toml"

#: issue 36's acceptance: the study's cases per CPU-second at least this many times the unbatched path's
STUDY_LIMIT = 4.0


def study_cases(n: int, seed: int = 36) -> tuple[Any, list[dict[str, Any]]]:
    """(the spec, ``n`` case dicts of the hybrid sensitivity study: every parameter drawn
    uniformly in its range, in its sampling space, from ``seed``)."""
    from ..studies import sensitivity as sa
    spec = sa.load_spec(SPEC)
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n):
        vals = {p.name: float(p.physical(rng.uniform(*p.bounds))) for p in spec.parameters}
        cases.append(sa.case(spec, vals, f"bench{i}"))
    return spec, cases


def run_unbatched(cases: list[dict[str, Any]], fmu: Path, out: Path) -> list[np.ndarray]:
    """The path before batches: per case a fresh instance of ``fmu`` and a full wear run with
    its files in ``out``, the final profile read from the results file (then removed)."""
    from ..master.loop import WearMaster
    from ..master.scenario import from_dict
    from ..master.store import read_results
    finals = []
    for case in cases:
        data = dict(case, fmu={"path": str(fmu)})
        res = WearMaster(from_dict(data, f"<case {case['name']}>"), out, progress=False).run()
        finals.append(read_results(res)[2]["final"])
        res.unlink()
    return finals


def run_batched(cases: list[dict[str, Any]], blob: bytes, batch: int) -> list[np.ndarray]:
    """The study's path: :func:`run_shipped` on batches of ``batch`` cases (what a worker
    runs), the final profiles; the FMU opened once for them and closed after them (each call
    pays one extraction, instantiation and clean-up, as a worker does once per study)."""
    from ..studies.runner import close_shipped, run_shipped
    close_shipped()
    finals = []
    try:
        for i in range(0, len(cases), batch):
            for r in run_shipped(cases[i:i + batch], blob):
                if "error" in r:
                    raise RuntimeError(f"case {r['name']}: {r['error']}")
                finals.append(r["final"])
    finally:
        close_shipped()
    return finals


def study_throughput(n: int = 32, repeats: int = 3, log: Callable[[str], Any] = lambda s: None) -> dict[str, Any]:
    """Cases per CPU-second of the batched and the unbatched path on ``n`` cases of the hybrid
    sensitivity study (best of ``repeats``, alternating, after one warm-up case each), their
    ratio, its ``ratio_to_limit`` (/ :data:`STUDY_LIMIT`) and whether every final profile was
    the same bit for bit (``identical``)."""
    from ..studies import sensitivity as sa
    spec, cases = study_cases(n)
    blob = sa.spec_fmu(spec)
    best = {"batched": math.inf, "unbatched": math.inf}
    identical = True
    with tempfile.TemporaryDirectory(prefix="wearcosim-study-") as tmp:
        fmu = Path(tmp) / "model.fmu"
        fmu.write_bytes(blob)
        run_unbatched(cases[:1], fmu, Path(tmp) / "out")          # imports, caches
        run_batched(cases[:1], blob, spec.batch)
        for rep in range(repeats):
            log(f"study: repeat {rep + 1}/{repeats}")
            c0 = time.process_time()
            a = run_unbatched(cases, fmu, Path(tmp) / "out")
            best["unbatched"] = min(best["unbatched"], time.process_time() - c0)
            c0 = time.process_time()
            b = run_batched(cases, blob, spec.batch)
            best["batched"] = min(best["batched"], time.process_time() - c0)
            identical = identical and len(a) == len(b) == n and all(np.array_equal(x, y) for x, y in zip(a, b))
    rate = {k: n / v for k, v in best.items()}
    ratio = rate["batched"] / rate["unbatched"]
    return {"cases": n, "batch": spec.batch, "repeats": repeats, "cpu": best,
            "ms_per_case": {k: 1e3 * v / n for k, v in best.items()}, "cases_per_cpu_s": rate,
            "ratio": ratio, "limit": STUDY_LIMIT, "ratio_to_limit": ratio / STUDY_LIMIT, "identical": identical}


def study_lines(s: dict[str, Any]) -> list[str]:
    """The acceptance figure of :func:`study_throughput` as printed lines."""
    ok = s["identical"] and s["ratio_to_limit"] >= 1
    return [f"Study (hybrid sensitivity, {s['cases']} cases, batches of {s['batch']}; CPU, best of {s['repeats']}): "
            f"batched {s['ms_per_case']['batched']:.1f} ms/case, unbatched {s['ms_per_case']['unbatched']:.1f} ms/case",
            f"  cases per CPU-second batched / unbatched {s['ratio']:.2f}x (limit >= {STUDY_LIMIT:g}x): "
            f"x{s['ratio_to_limit']:.2f} of the limit; profiles {'bit for bit' if s['identical'] else 'DIFFER'}  "
            f"{'PASS' if ok else 'MISS'}"]


def main(argv: list[str] | None = None) -> int:
    """The command line (``python -m wearcosim.bench.study``)."""
    ap = argparse.ArgumentParser(prog="python -m wearcosim.bench.study", description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=32, help="cases of the study (default 32)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats (best of; default 3)")
    ap.add_argument("--out", default=str(results_dir() / "bench_study.json"))
    a = ap.parse_args(argv)
    if a.cases < 1 or a.repeats < 1:
        print("error: --cases and --repeats must be at least 1", file=sys.stderr)
        return 1
    s = study_throughput(a.cases, a.repeats, log=lambda m: print(m, file=sys.stderr, flush=True))
    print("\n".join(study_lines(s)))
    s["loadavg"] = os.getloadavg()
    from ..atomic import write_bytes
    write_bytes(a.out, json.dumps(s, indent=1).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
