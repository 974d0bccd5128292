"""``python -m wearcosim.bench.study``: the sensitivity study's cases per CPU-second, 3 paths.

Batched against the code of the day issue 36 was filed and against the current unbatched path,
in the same run (also the study part of ``python -m wearcosim.bench``).

* **batched** (the study's path now, :func:`wearcosim.studies.runner.run_shipped`): the cases
  in batches of the study file's ``batch``, the FMU opened once for all of them (as a worker
  process opens it once per study), each case run in memory on that instance (fmi2Reset
  between cases);
* **filing day** ("today's" of issue 36's acceptance): the study as the code of commit
  :data:`FILING_COMMIT` runs it -- that commit's ``python``, ``fmu``, ``modelica`` and
  ``cosim`` taken from the repository's history (``git archive``) into a temporary folder, its
  own FMU of the study's model built by its own exporter, and its own ``run_shipped`` on
  batches of its study file's ``batch`` (per case a fresh FMU instance and a full wear run
  with files), in a subprocess of the same interpreter, timed there (CPU of that process and
  its children; its FMU's build timed apart).  Without the repository's history (an installed
  package, a shallow clone) it is skipped, with the reason;
* **unbatched** (the current code's path before batches): per case a fresh FMU instance and a
  full :meth:`WearMaster.run` -- lock, checkpoint, streams, results file -- whose final
  profile is read back from the results file.

All run the same cases of the hybrid sensitivity study (``cosim/sensitivity/hybrid_dry.toml``,
the parameters drawn uniformly in their ranges, seeded; the filing-day code gets them as a JSON
file), alternating, CPU time, best of ``repeats``.  Every case's final profile is compared bit
for bit: unbatched against batched (must be equal), filing day against batched (counted, the
largest relative difference given).  The acceptance figure: cases per CPU-second batched /
filing day, against :data:`STUDY_LIMIT` (``ratio_to_limit`` >= 1: met), with batched /
unbatched beside it; when the filing day is skipped the headline is batched / unbatched.

Not a test: timings live here (CI runs on a shared machine).
"""
from __future__ import annotations

import argparse
import io
import json
import math
import os
import select
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import IO, Any, Callable

import numpy as np

from ..resources import results_dir

ROOT = Path(__file__).resolve().parents[3]
#: the study file, in the checkout and in the filing day's tree
SPEC_PATH = Path("cosim") / "sensitivity" / "hybrid_dry.toml"
SPEC = ROOT / SPEC_PATH

#: issue 36's acceptance: the study's cases per CPU-second at least this many times the filing day's
STUDY_LIMIT = 4.0

#: the commit issue 36 was written against (2026-12-04 22:11): "today's" of its acceptance
FILING_COMMIT = "ba24798"

#: what the filing-day code needs of its commit: its Python, its C runtime and templates, its
#: Modelica library and its study file
FILING_PATHS = ("python", "fmu", "modelica", "cosim")

#: the filing-day contender's program, run by the commit's own ``wearcosim`` (argv: the study
#: file, its build folder, the cases' JSON file, the ``.npy`` of the final profiles).  It builds the study's FMU with
#: the commit's exporter, runs one case (imports, caches), then answers each line of its stdin
#: with one JSON line on its stdout: its CPU seconds (process and children) for all the cases,
#: run as that commit's study runs them (``run_shipped`` on batches of its study file's
#: ``batch``).  At the end of its stdin it saves the last run's final profiles.  What the old
#: code prints goes to stderr.
FILING_PROGRAM = '''
import json, resource, sys
from pathlib import Path
import numpy as np
from wearcosim.studies import runner, sensitivity as sa

def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

def run(cases, blob, batch):
    finals = []
    for i in range(0, len(cases), batch):
        for r in runner.run_shipped(cases[i:i + batch], blob):
            if r.get("error"):           # older runners give every case an "error" of None
                raise RuntimeError("case %s: %s" % (r["name"], r["error"]))
            finals.append(r["final"])
    return finals

answer, sys.stdout = sys.stdout, sys.stderr
spec, cases = sa.load_spec(sys.argv[1]), json.loads(Path(sys.argv[3]).read_text())
c0 = cpu()
blob = sa.spec_fmu(spec, sys.argv[2])
build = cpu() - c0
finals = run(cases[:1], blob, spec.batch)
print(json.dumps({"build_cpu": build, "batch": spec.batch}), file=answer, flush=True)
for _ in sys.stdin:
    c0 = cpu()
    finals = run(cases, blob, spec.batch)
    print(json.dumps({"cpu": cpu() - c0}), file=answer, flush=True)
np.save(sys.argv[4], np.array(finals))
'''


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


class FilingDaySkipped(Exception):
    """The filing-day contender cannot run here; the message is the reason, one line."""


def history_missing(root: Path, commit: str) -> str | None:
    """None when ``root`` is a checkout whose git history holds ``commit``; else why the
    filing-day code cannot be had from it (one line)."""
    if not (root / "python" / "wearcosim").is_dir():
        return f"{root} is not a wearcosim checkout (an installed package has no history)"
    try:
        r = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                           capture_output=True, text=True)
    except OSError as exc:
        return f"no git to read the history ({exc.strerror or exc})"
    if r.returncode == 0:
        return None
    said = r.stderr.strip().splitlines()
    return said[-1] if said else f"commit {commit} is not in the history of {root} (a shallow clone?)"


def extract_commit(root: Path, commit: str, dest: Path, paths: tuple[str, ...] = FILING_PATHS) -> None:
    """The folders ``paths`` of ``commit`` of the repository at ``root`` written below ``dest``
    (``git archive``); :class:`FilingDaySkipped` if git cannot give them."""
    r = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", commit, *paths], capture_output=True)
    if r.returncode:
        said = r.stderr.decode(errors="replace").strip().splitlines()
        raise FilingDaySkipped(f"git archive {commit}: {said[-1] if said else 'failed'}")
    with tarfile.open(fileobj=io.BytesIO(r.stdout)) as tar:
        tar.extractall(dest, filter="data")


def filing_day_command(tree: Path, cases_file: Path, finals_file: Path) -> tuple[list[str], dict[str, str]]:
    """(argv, environment) of :data:`FILING_PROGRAM` run by the code extracted in ``tree``: the
    same interpreter, that code first on the path, and its build folder, caches and temporary
    files in ``tree`` (nothing written outside it)."""
    env = dict(os.environ, PYTHONPATH=str(tree / "python"), WEARCOSIM_HOME=str(tree),
               WEARCOSIM_BUILD_DIR=str(tree / "build"), WEARCOSIM_CACHE=str(tree / "cache"),
               XDG_CACHE_HOME=str(tree / "xdg"), TMPDIR=str(tree / "tmp"))
    return [sys.executable, "-c", FILING_PROGRAM, str(tree / SPEC_PATH), str(tree / "build"), str(cases_file),
            str(finals_file)], env


class FilingDayStudy:
    """The study as the code of ``commit`` runs it, in a subprocess kept for the whole
    benchmark: :meth:`run` times all the cases once (CPU seconds of that process), :meth:`close`
    ends it and returns the last run's final profiles.  Opening extracts the commit below
    ``work`` and builds its FMU (``build_cpu``); it raises :class:`FilingDaySkipped` when the
    history lacks the commit or the old code does not start."""

    def __init__(self, cases: list[dict[str, Any]], work: Path, commit: str = FILING_COMMIT, root: Path = ROOT) -> None:
        why = history_missing(root, commit)
        if why:
            raise FilingDaySkipped(why)
        self.tree = work / "tree"
        (self.tree / "tmp").mkdir(parents=True)
        extract_commit(root, commit, self.tree)
        cases_file, self._finals = work / "cases.json", work / "finals.npy"
        cases_file.write_text(json.dumps(cases))
        argv, env = filing_day_command(self.tree, cases_file, self._finals)
        self._err = open(work / "stderr.txt", "w+b")
        self._proc = subprocess.Popen(argv, env=env, cwd=self.tree, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._err, text=True)
        first = self._answer()
        self.build_cpu, self.batch = float(first["build_cpu"]), int(first["batch"])

    #: seconds the program may take for one answer (its FMU's build, or a run of all the
    #: cases: seconds each); a program that hangs is ended and reported as skipped
    ANSWER_SECONDS = 600.0

    def _answer(self) -> dict[str, Any]:
        """The program's next JSON line; :class:`FilingDaySkipped` with its last error line if
        it ended instead, or when it gave no answer within :attr:`ANSWER_SECONDS`."""
        out = self._proc.stdout
        if out is not None and not select.select([out], [], [], self.ANSWER_SECONDS)[0]:
            self._proc.kill()
            self._proc.wait()
            self._err.close()
            raise FilingDaySkipped(f"the code of the filing day gave no answer within {self.ANSWER_SECONDS:g} s "
                                   f"(ended)")
        line = out.readline() if out is not None else ""
        if not line:
            self._proc.wait()
            why = self._last_error()
            self._err.close()
            raise FilingDaySkipped(f"the code of the filing day stopped (exit {self._proc.returncode}): {why}")
        return json.loads(line)

    def _last_error(self) -> str:
        """The last non-empty line the program wrote on stderr."""
        self._err.seek(0)
        said = self._err.read().decode(errors="replace").strip().splitlines()
        return said[-1] if said else "no message"

    def run(self) -> float:
        """CPU seconds of one run of all the cases by the filing-day code."""
        stdin: IO[str] | None = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write("run\n")
            stdin.flush()
        except BrokenPipeError:                 # it has ended: _answer says why
            pass
        return float(self._answer()["cpu"])

    def close(self) -> list[np.ndarray]:
        """End the program; the final profiles of its last run."""
        if self._proc.stdin:
            self._proc.stdin.close()
        code = self._proc.wait()
        self._err.close()
        if code:
            raise FilingDaySkipped(f"the code of the filing day failed at its end (exit {code})")
        return list(np.load(self._finals))


def relative_difference(x: np.ndarray, y: np.ndarray) -> float:
    """The largest difference of two profiles relative to the largest depth of ``y`` (infinite
    for profiles of different shapes)."""
    if np.shape(x) != np.shape(y):
        return math.inf
    return float(np.max(np.abs(x - y), initial=0.0) / (np.max(np.abs(y), initial=0.0) or 1.0))


def compare_profiles(a: list[np.ndarray], b: list[np.ndarray]) -> tuple[int, float]:
    """(how many profiles of ``a`` equal those of ``b`` bit for bit, the largest
    :func:`relative_difference` of a pair); lists of unequal length: none equal, infinite
    difference."""
    if len(a) != len(b):
        return 0, math.inf
    same = sum(bool(np.array_equal(x, y)) for x, y in zip(a, b))
    return same, max((relative_difference(x, y) for x, y in zip(a, b)), default=0.0)


def study_throughput(n: int = 32, repeats: int = 3, log: Callable[[str], Any] = lambda s: None,
                     commit: str | None = FILING_COMMIT, root: Path = ROOT) -> dict[str, Any]:
    """Cases per CPU-second of the batched path, of the study as the code of ``commit`` (None:
    not measured) runs it and of the current unbatched path, on ``n`` cases of the hybrid
    sensitivity study (best of ``repeats``, alternating, after one warm-up case each); the
    headline ``ratio`` batched / filing day (batched / unbatched when the filing day is
    skipped; ``peer`` says which), its ``ratio_to_limit`` (/ :data:`STUDY_LIMIT`), both ratios
    apart (``ratio_filing``, ``ratio_unbatched``), whether the unbatched profiles equal the
    batched ones bit for bit (``identical``) and, under ``filing``, the commit, why it was
    skipped (or None), its FMU's build CPU and how many of its profiles equal the batched ones;
    ``cpu`` is the best of the repeats, ``cpu_runs`` every repeat's CPU seconds."""
    from ..export.build import cpu_seconds
    from ..studies import sensitivity as sa
    spec, cases = study_cases(n)
    blob = sa.spec_fmu(spec)
    runs: dict[str, list[float]] = {"batched": [], "unbatched": []}
    identical = True
    filing: dict[str, Any] = {"commit": commit, "skipped": None if commit else "not asked"}
    with tempfile.TemporaryDirectory(prefix="wearcosim-study-") as tmp:
        fmu = Path(tmp) / "model.fmu"
        fmu.write_bytes(blob)
        old = None

        def drop(exc: FilingDaySkipped) -> None:
            """The old code stopped: said under ``filing``, its runs dropped, the others go on."""
            filing["skipped"] = str(exc)
            runs.pop("filing", None)
        if commit:
            log(f"study: the code of {commit}, its FMU ...")
            try:
                old = FilingDayStudy(cases, Path(tmp) / "filing", commit, root)
                filing.update(build_cpu=old.build_cpu, batch=old.batch)
                runs["filing"] = []
            except FilingDaySkipped as exc:
                drop(exc)
        run_unbatched(cases[:1], fmu, Path(tmp) / "out")          # imports, caches
        run_batched(cases[:1], blob, spec.batch)
        for rep in range(repeats):
            log(f"study: repeat {rep + 1}/{repeats}")
            try:
                if old is not None:
                    runs["filing"].append(old.run())
            except FilingDaySkipped as exc:
                drop(exc)
                old = None
            c0 = cpu_seconds()
            a = run_unbatched(cases, fmu, Path(tmp) / "out")
            runs["unbatched"].append(cpu_seconds() - c0)
            c0 = cpu_seconds()
            b = run_batched(cases, blob, spec.batch)
            runs["batched"].append(cpu_seconds() - c0)
            identical = identical and len(a) == len(b) == n and all(np.array_equal(x, y) for x, y in zip(a, b))
        try:
            if old is not None:
                filing["identical_cases"], filing["max_rel_diff"] = compare_profiles(old.close(), b)
        except FilingDaySkipped as exc:
            drop(exc)
    best = {k: min(v) for k, v in runs.items()}
    rate = {k: n / v for k, v in best.items()}
    ratios = {f"ratio_{k}": rate["batched"] / rate[k] if k in rate else None for k in ("filing", "unbatched")}
    peer = "filing" if "filing" in rate else "unbatched"
    ratio = rate["batched"] / rate[peer]
    return {"cases": n, "batch": spec.batch, "repeats": repeats, "cpu": best, "cpu_runs": runs,
            "ms_per_case": {k: 1e3 * v / n for k, v in best.items()}, "cases_per_cpu_s": rate,
            "ratio": ratio, "peer": peer, **ratios, "limit": STUDY_LIMIT, "ratio_to_limit": ratio / STUDY_LIMIT,
            "identical": identical, "filing": filing}


def study_lines(s: dict[str, Any]) -> list[str]:
    """The acceptance figure of :func:`study_throughput` as printed lines."""
    f, ms = s["filing"], s["ms_per_case"]
    day = f"filing day ({f['commit']})" if f["commit"] else "filing day"
    if f["skipped"]:
        head = [f"  {day} skipped: {f['skipped']}"]
    else:
        head = [f"  {day}: {ms['filing']:.1f} ms/case (its FMU built in {f['build_cpu']:.1f} s CPU); profiles "
                f"equal to the batched path's bit for bit in {f['identical_cases']}/{s['cases']} cases"
                + (f" (largest relative difference {f['max_rel_diff']:.3g})" if f["identical_cases"] < s["cases"] else "")]
    # "same results bit for bit" is the batched path against the unbatched one of the same
    # code: the filing day's auto chose its steps otherwise (the auto line of the same issue
    # changed it), so its profiles are reported, not required
    fast, ok = s["ratio_to_limit"] >= 1, s["identical"]
    against = day if s["peer"] == "filing" else "current unbatched (the filing day not measured)"
    beside = f"; batched / current unbatched {s['ratio_unbatched']:.2f}x" if s["peer"] == "filing" else ""
    return [f"Study (hybrid sensitivity, {s['cases']} cases, batches of {s['batch']}; CPU, best of {s['repeats']}): "
            f"batched {ms['batched']:.1f} ms/case, current unbatched {ms['unbatched']:.1f} ms/case",
            *head,
            f"  cases per CPU-second batched / {against} {s['ratio']:.2f}x (limit >= {STUDY_LIMIT:g}x): "
            f"x{s['ratio_to_limit']:.2f} of the limit{beside}; unbatched profiles "
            f"{'bit for bit' if s['identical'] else 'DIFFER'}  "
            f"{'PASS' if fast and ok else 'MISS' + (' (profiles)' if fast else '')}"]


def main(argv: list[str] | None = None) -> int:
    """The command line (``python -m wearcosim.bench.study``)."""
    ap = argparse.ArgumentParser(prog="python -m wearcosim.bench.study", description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=32, help="cases of the study (default 32)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats (best of; default 3)")
    ap.add_argument("--commit", default=FILING_COMMIT,
                    help=f"the filing-day code's commit, run from the repository's history (default {FILING_COMMIT})")
    ap.add_argument("--no-filing", action="store_true", help="do not run the filing-day code (batched / unbatched only)")
    ap.add_argument("--out", default=str(results_dir() / "bench_study.json"),
                    help="the JSON report (default results/bench_study.json)")
    a = ap.parse_args(argv)
    if a.cases < 1 or a.repeats < 1:
        print("error: --cases and --repeats must be at least 1", file=sys.stderr)
        return 1
    s = study_throughput(a.cases, a.repeats, log=lambda m: print(m, file=sys.stderr, flush=True),
                         commit=None if a.no_filing else a.commit)
    print("\n".join(study_lines(s)))
    s["loadavg"] = os.getloadavg()
    from ..atomic import write_bytes
    write_bytes(a.out, json.dumps(s, indent=1).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
