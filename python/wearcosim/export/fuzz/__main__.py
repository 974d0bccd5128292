"""``python -m wearcosim.export.fuzz --seed S --count N [--jobs J] [--out DIR] [--mutants]``

Generates the models of seeds ``S .. S+N-1`` (:mod:`.gen`) and checks each (:mod:`.run`: the
reference interpreter :mod:`.interp`, the FMU in CS and ME through FMPy, rumoca's simulator) in
``J`` worker processes (:mod:`.pool`: a worker that dies or runs past ``--timeout`` costs its
model, which is then a disagreement of kind ``worker-died``/``worker-timeout``, never the run);
optionally runs broken variants (:mod:`.mutate`) through the command line; shrinks one model of
each class of disagreement (``--shrink``, :mod:`.shrink`) to a regression fixture in
``--fixtures`` (default ``OUT/regressions``; the suite's are in tests/export/fuzz/regressions);
prints a summary.  Verdicts: agree, disagree, known-defect (:data:`.run.KNOWN_DEFECTS`, being
fixed), rumoca-bug (the FMU agrees with the reference, rumoca does not: the model is kept in
``OUT/models``), refused, skipped (the reference could not simulate it).  Exit status 1 when a
disagreement or a mutant failure is left unexplained.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable


def run_models(seeds: list, jobs: int, work: str | Path, use_rumoca: bool = True, keep: bool = False,
               log: Callable[[str], Any] = print, timeout: float = 600.0) -> list:
    """The differential test of each seed's model in ``jobs`` worker processes (see
    :mod:`.pool`: a worker that dies or hangs costs its model, never the run)."""
    from .pool import run_tasks
    from .run import model_failure, model_job
    tasks = [(s, str(work), use_rumoca, keep) for s in seeds]
    results = []
    for r in run_tasks(model_job, tasks, jobs, timeout, model_failure):
        results.append(r)
        tag = r["verdict"] + (f" {r.get('signature', '')}" if r["verdict"] == "disagree" else "")
        log(f"[{len(results)}/{len(tasks)}] seed {r['seed']}: {tag} ({r.get('wall') or 0:.1f} s)")
    return sorted(results, key=lambda r: r["seed"])


def run_mutants(seeds: list, per_model: int, jobs: int, work: str | Path, log: Callable[[str], Any] = print,
                timeout: float = 900.0) -> list:
    """The broken variants of each seed's model through the command line, in worker processes."""
    from .mutate import mutant_failure, mutant_job
    from .pool import run_tasks
    out: list = []
    for rs in run_tasks(mutant_job, [(s, per_model, str(work)) for s in seeds], jobs, timeout, mutant_failure):
        out += rs
        bad = [r for r in rs if not r["ok"]]
        log(f"mutants of seed {rs[0]['seed'] if rs else '?'}: {len(rs) - len(bad)}/{len(rs)} ok"
            + "".join(f"; {r['kind']}: {','.join(r['failures'])}" for r in bad))
    return out


def same_failure(sig: str, workers: Any) -> Callable[[Any], bool]:
    """still_fails for the shrinker: the candidate, checked in one of ``workers`` (a
    :class:`.pool.Workers` of :func:`.run.candidate_job`: a candidate that hangs or kills its
    worker is a failure of its own kind, not the run's end), shows the same kinds of disagreement."""
    want = _sig_kinds(sig)

    def f(m: Any) -> bool:
        with tempfile.TemporaryDirectory(prefix="wcfuzz-shrink-") as d:
            r = workers.call((m, d))
        return r.get("verdict") == "disagree" and _sig_kinds(r.get("signature", "")) & want == want
    return f


def _sig_kinds(sig: str) -> set:
    out = set()
    for part in sig.split(" | "):
        k, _, rest = part.partition(": ")
        out.add(part if k in ("build-error", "build-crash") else k)
    out.discard("fmu+rumoca-vs-reference")
    out.discard("")
    return out


def shrink_one(m: Any, sig: str, folder: Path, budget: float, log: Callable[[str], Any] = print,
               timeout: float = 300.0) -> tuple:
    """Shrink ``m`` (whose disagreement has signature ``sig``) within ``budget`` seconds, write
    the fixture (``.mo`` + ``.json`` with the reference's values and, for a known defect, its
    xfail reason) to ``folder``: (path, check result of the small model)."""
    from .pool import Workers
    from .run import candidate_failure, candidate_job, final_job, known_defect
    from .shrink import shrink, write_fixture
    t0 = time.perf_counter()
    with Workers(candidate_job, 1, timeout, candidate_failure) as w:
        small, tried = shrink(m, same_failure(sig, w), budget_s=budget, log=log)
    with Workers(final_job, 1, timeout, candidate_failure) as w:
        with tempfile.TemporaryDirectory(prefix="wcfuzz-shrink-") as d:
            got = w.call((small, d))
    res, ref = (got, None) if isinstance(got, dict) else got
    p = write_fixture(small, res, ref, Path(folder), xfail=known_defect(small, res))
    log(f"  shrunk to {p} ({tried} candidates, {time.perf_counter() - t0:.0f} s)")
    return p, res


def summarize(results: list, mutants: list | None, seconds: float, jobs: int) -> tuple:
    lines = []
    c = collections.Counter(r["verdict"] for r in results)
    n = len(results)
    lines.append(f"models: {n} in {seconds:.0f} s on {jobs} job(s) = {60 * n / max(seconds, 1e-9):.1f} models/min")
    builds = [r["times"]["build"] for r in results if r.get("times", {}).get("build")]
    if builds:
        lines.append(f"  build: mean {sum(builds) / len(builds):.2f} s, max {max(builds):.2f} s; wall per model "
                     f"{sum(r.get('wall', 0) for r in results) / max(n, 1):.2f} s")
    for v in ("agree", "disagree", "known-defect", "rumoca-bug", "refused", "skipped"):
        lines.append(f"  {v}: {c.get(v, 0)}")
    kd = collections.Counter(r.get("reason", "") for r in results if r["verdict"] == "known-defect")
    for why, k in kd.most_common():
        seeds = [r["seed"] for r in results if r["verdict"] == "known-defect" and r.get("reason") == why][:8]
        lines.append(f"  known defect {k}: {why} (seeds {seeds})")
    sigs = collections.Counter(r["signature"] for r in results if r["verdict"] == "disagree")
    if sigs:
        lines.append("disagreements by class:")
        for s, k in sigs.most_common():
            seeds = [r["seed"] for r in results if r["verdict"] == "disagree" and r["signature"] == s][:8]
            lines.append(f"  {k:4d}  {s}   (seeds {seeds})")
    rb = [r for r in results if r["verdict"] == "rumoca-bug" or (r.get("rumoca") == "disagree")]
    if rb:
        lines.append("rumoca disagrees with the reference (FMU agrees: rumoca's bug):")
        for r in rb[:20]:
            vs = sorted({x[0] for x in r["details"].get("rumoca_mismatch", [])})[:6]
            lines.append(f"  seed {r['seed']} ({r['verdict']}): {vs}")
    rr = [r for r in results if r.get("rumoca") == "error"]
    if rr:
        lines.append(f"rumoca could not simulate {len(rr)} model(s), e.g. seed {rr[0]['seed']}: "
                     f"{rr[0]['details'].get('rumoca_error', '')[:150]}")
    ref = collections.Counter(r.get("reason", "") for r in results if r["verdict"] == "refused")
    for why, k in ref.most_common():
        lines.append(f"  refused {k}: {why}")
    sk = collections.Counter(r.get("reason", "")[:140] for r in results if r["verdict"] == "skipped")
    for why, k in sk.most_common():
        lines.append(f"  skipped {k}: {why}")
    bad_mut = []
    if mutants is not None:
        mk = collections.Counter(m["kind"] for m in mutants)
        # a broken variant of a model the exporter already crashes on shows that crash again:
        # counted with the model's disagreement, not as a failure of its own
        crashed = {r["seed"] for r in results if "build-crash" in r.get("kinds", [])}
        same = [m for m in mutants if not m["ok"] and m["seed"] in crashed]
        bad_mut = [m for m in mutants if not m["ok"] and m["seed"] not in crashed]
        if same:
            lines.append(f"mutants of models that crash the build themselves: {len(same)} failing the same way "
                         f"(seeds {sorted({m['seed'] for m in same})[:8]})")
        lines.append(f"mutants: {len(mutants)} ({dict(mk)}); failing: {len(bad_mut)}")
        fc = collections.Counter((m["kind"], f) for m in bad_mut for f in m["failures"])
        for (k, f), cnt in fc.most_common():
            ex = next(m for m in bad_mut if m["kind"] == k and f in m["failures"])
            lines.append(f"  {cnt:4d}  {k}: {f}   e.g. seed {ex['seed']} ({ex['what']}): {str(ex['error'])[:200]}")
    unexplained = c.get("disagree", 0) + len(bad_mut)
    return "\n".join(lines), unexplained


def main(argv: list | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wearcosim.export.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=None, help="folder for results.jsonl, failing models, fixtures")
    ap.add_argument("--mutants", action="store_true", help="also the broken variants through the CLI")
    ap.add_argument("--mutants-per-model", type=int, default=2)
    ap.add_argument("--mutant-models", type=int, default=None, help="how many of the models to mutate (default all)")
    ap.add_argument("--no-rumoca", action="store_true")
    ap.add_argument("--shrink", type=int, default=3, help="how many classes of disagreement to shrink (0: none)")
    ap.add_argument("--shrink-budget", type=float, default=240.0, help="seconds per shrink")
    ap.add_argument("--fixtures", default=None, help="folder for the shrunk regression fixtures (default OUT/regressions)")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds per model (and per shrink candidate; mutants of a model: 1.5x) before its worker is killed")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    out = Path(a.out) if a.out else Path(tempfile.mkdtemp(prefix="wcfuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    log = (lambda *x: None) if a.quiet else (lambda s: print(s, flush=True))
    seeds = list(range(a.seed, a.seed + a.count))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="wcfuzz-work-") as work:
        results = run_models(seeds, a.jobs, work, use_rumoca=not a.no_rumoca, log=log, timeout=a.timeout)
    seconds = time.perf_counter() - t0
    with open(out / "results.jsonl", "w") as f:
        for r in results:
            f.write(json.dumps(r, default=str) + "\n")
    from .gen import generate
    from .tree import render
    (out / "models").mkdir(exist_ok=True)
    for r in results:
        if r["verdict"] in ("disagree", "known-defect", "rumoca-bug") or r.get("rumoca") in ("disagree", "error"):
            (out / "models" / f"Fz{r['seed']}.mo").write_text(render(generate(r["seed"])))
    mut = None
    if a.mutants:
        ms = seeds[:a.mutant_models] if a.mutant_models else seeds
        with tempfile.TemporaryDirectory(prefix="wcfuzz-mut-") as work:
            t1 = time.perf_counter()
            mut = run_mutants(ms, a.mutants_per_model, a.jobs, work, log=log, timeout=1.5 * a.timeout)
            mut_seconds = time.perf_counter() - t1
        with open(out / "mutants.jsonl", "w") as f:
            for r in mut:
                f.write(json.dumps(r, default=str) + "\n")
        # one broken file per class of failure, to reproduce it
        (out / "mutants").mkdir(exist_ok=True)
        seen = set()
        for r in mut:
            for fl in r["failures"]:
                if (r["kind"], fl) not in seen and r.get("text"):
                    seen.add((r["kind"], fl))
                    d = out / "mutants" / f"{r['kind']}-{fl}-seed{r['seed']}"
                    d.mkdir(exist_ok=True)
                    (d / f"Fz{r['seed']}.mo").write_text(r["text"])
                    (d / "answer.txt").write_text(f"{r['what']}\nexpected lines {r.get('expected_lines')}\n{r['error']}\n")
    text, unexplained = summarize(results, mut, seconds, a.jobs)
    if mut is not None:
        text += f"\nmutant phase: {len(mut)} broken variants in {mut_seconds:.0f} s"
    fixtures = Path(a.fixtures) if a.fixtures else out / "regressions"
    if a.shrink:
        done = 0
        for sig in dict.fromkeys(r["signature"] for r in results if r["verdict"] in ("disagree", "known-defect")):
            if done >= a.shrink:
                break
            r = next(x for x in results if x["verdict"] in ("disagree", "known-defect") and x["signature"] == sig)
            log(f"shrinking seed {r['seed']}: {sig}")
            shrink_one(generate(r["seed"]), sig, fixtures, a.shrink_budget, log=log, timeout=a.timeout)
            done += 1
    print(text)
    print(f"results in {out}")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
