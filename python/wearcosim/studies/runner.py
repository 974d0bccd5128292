"""Run a set of scenarios in parallel and write one comparison report.

Local processes by default (``concurrent.futures``); a Dask cluster when a scheduler
address is given (``--scheduler tcp://host:8786``; needs ``distributed``).  Each case runs
in its own process with its own FMU instance; results are identical whichever executor
ran them (the master is deterministic).

A study survives the loss of a worker (killed, out of memory, its machine gone): the cases
it was running are run again on another worker and continue from their last checkpoint.
Dask's scheduler re-runs a lost worker's task itself (``distributed.scheduler.allowed-failures``
times); a local pool whose process dies is broken as a whole, so the unfinished cases go to a
new pool (at most :data:`LOST_WORKERS` times).  Every case of a study runs with the study's
token as the checkpoint's *owner*: the retry continues from the checkpoint the lost worker
left, while a checkpoint of anything else in the folder is still refused.  The study's
results say which cases were run again (:class:`StudyResults`).
"""
from __future__ import annotations

import contextlib
import csv
import io
import os
import signal
import sys
import tempfile
import threading
import uuid
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from ..progress import counter, say


def study_case(scenario_path: str, out_dir: str, owner: str,
               checkpoint_seconds: float | None = None) -> tuple[str, bool, int | None]:
    """One case of a study (in a worker process): the scenario run with the study's token
    ``owner``, continuing from its own checkpoint if a lost worker left one.  Returns (the
    results path, whether an earlier attempt of this study died on it, the cycle it
    continued from or None)."""
    from ..master.loop import WearMaster
    from ..master.scenario import load
    m = WearMaster(load(scenario_path), Path(out_dir), progress=False, owner=owner)
    if checkpoint_seconds is not None:
        m.checkpoint_seconds = float(checkpoint_seconds)
    path = m.run()
    return str(path), m.retried, m.resumed_from


class StudyResults(list):
    """The results of a study's cases, in the order given (a list: of paths from
    :func:`run_all`, of ``Results`` from ``wearcosim.study``); ``retried``: the names of the
    cases that were run again because their worker was lost; ``resumed_from``: case name ->
    the cycle of the checkpoint its retry continued from (absent: it started over)."""

    def __init__(self, results: Iterable[Any], retried: Iterable[str] = (),
                 resumed_from: dict[str, int] | None = None) -> None:
        super().__init__(results)
        self.retried = list(retried)
        self.resumed_from = dict(resumed_from or {})

    def summary(self) -> str:
        """One line on the retries (empty if there were none)."""
        n = len(self.retried)
        if not n:
            return ""
        said = [f"{c} (from cycle {self.resumed_from[c]})" if c in self.resumed_from else f"{c} (from cycle 0)"
                for c in self.retried]
        return (f"{n} case{'s' if n > 1 else ''} run again after {'their workers were' if n > 1 else 'its worker was'} "
                f"lost: {', '.join(said)}")


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
            scheduler: Any = None, checkpoint_seconds: float | None = None) -> StudyResults:
    """Run every scenario into ``out_dir``: on the Dask scheduler ``scheduler`` (an address, or
    a connected ``distributed.Client``), else in ``workers`` local processes (1: in this
    process).  The FMUs are built first; returns the results files in the order given, with
    the cases that were run again after a lost worker (:class:`StudyResults`).
    ``checkpoint_seconds``: the cases' least wall time between checkpoints (default the
    master's)."""
    from ..master.loop import MasterError
    scenarios = [str(Path(p).resolve()) for p in scenarios]
    client = connect(scheduler) if isinstance(scheduler, str) else scheduler   # fail before any work
    try:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MasterError(f"cannot create the output folder {out_dir}: {exc.strerror or exc}") from None
        prebuild(scenarios, log=lambda *a: print(*a, file=sys.stderr))
        owner = uuid.uuid4().hex                  # this study's checkpoints (a retry continues them)
        done = _execute(study_case, [(s, str(out_dir), owner, checkpoint_seconds) for s in scenarios], workers,
                        client, _follow(len(scenarios)))
        return StudyResults([p for p, _, _ in done], [Path(p).stem for p, again, _ in done if again],
                            {Path(p).stem: c for p, again, c in done if again and c is not None})
    finally:
        if isinstance(scheduler, str) and client is not None:
            client.close()


#: a local study gives up after its worker processes died this many times (Dask's default
#: ``allowed-failures`` is 3 too): a case that crashes its process would otherwise run forever
LOST_WORKERS = 3


def _worker_start() -> None:
    """A local worker process dies of SIGTERM at once (the pool ends the others with it when
    one is lost); it does not inherit the command line's handler, whose exception would
    keep it alive and block the pool's shut-down."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _execute(fn: Callable[..., Any], calls: list[tuple], workers: int, client: Any,
             done: Callable[[int, bool, Any], None]) -> list[Any]:
    """``fn(*args)`` for every ``args`` of ``calls``: on the Dask ``client`` if it is not None,
    else in ``workers`` local processes, or in this process (``workers`` <= 1).  ``done(k, ok,
    result)`` is called as the k-th call finishes (in completion order; result None if it
    failed).  Returns the results in the order given.  A failure raises: in this process at
    once, on an executor once all calls have finished (the first in the order given)."""
    if client is None and workers <= 1:
        out = []
        for k, args in enumerate(calls, 1):
            out.append(fn(*args))
            done(k, True, out[-1])
        return out
    if client is None:
        return _execute_local(fn, calls, workers, done)
    from distributed import as_completed as completed
    futs = [client.submit(fn, *args, pure=False) for args in calls]   # (Dask re-runs a lost worker's)
    where = {f.key: i for i, f in enumerate(futs)}
    out: list[Any] = [None] * len(calls)
    failed: dict[int, BaseException] = {}
    for k, fut in enumerate(completed(futs), 1):
        i, exc = where[fut.key], fut.exception()
        if exc is None:
            out[i] = fut.result()
        else:
            failed[i] = exc
        done(k, exc is None, out[i])
        # fetched: the worker may drop it (a worker lost later has no finished case to compute again)
        fut.release()
    if failed:
        i = min(failed)
        if type(failed[i]).__name__ == "KilledWorker":       # every worker that ran it died
            from ..master.loop import MasterError
            raise MasterError(f"{_what(calls[i])}: every Dask worker that ran it died (Dask's "
                              f"distributed.scheduler.allowed-failures); it may crash its process (out of memory, "
                              f"a crashing FMU): run it alone to see its error") from None
        raise failed[i]
    return out


def _what(args: tuple) -> str:
    """The call ``args`` in a message: its scenario file, or the cases of its batch."""
    a = args[0] if args else None
    if isinstance(a, (str, Path)):
        return str(a)
    if isinstance(a, list):
        names = [str(c.get("name", "?")) if isinstance(c, dict) else "?" for c in a]
        return "the batch of cases " + ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    return "a call"


def _execute_local(fn: Callable[..., Any], calls: list[tuple], workers: int,
                   done: Callable[[int, bool, Any], None]) -> list[Any]:
    """:func:`_execute` on local processes: when a worker process dies the pool is broken (its
    other processes are ended too); the calls it had not finished go to a new pool, at most
    :data:`LOST_WORKERS` times."""
    from ..master.loop import MasterError
    finished: dict[int, Any] = {}
    left, lost, k = list(range(len(calls))), 0, 0
    while left:
        broken = []
        with ProcessPoolExecutor(max_workers=min(workers, len(left)), initializer=_worker_start) as ex:
            futs = {}
            for j, i in enumerate(left):
                try:
                    futs[ex.submit(fn, *calls[i])] = i
                except BrokenProcessPool:             # broken while the calls went in
                    broken += left[j:]
                    break
            for fut in as_completed(futs):
                i = futs[fut]
                exc = fut.exception()
                if isinstance(exc, BrokenProcessPool):
                    broken.append(i)
                    continue
                k += 1
                finished[i] = fut
                done(k, exc is None, fut.result() if exc is None else None)
        left = sorted(broken)
        if left:
            lost += 1
            if lost > LOST_WORKERS:
                raise MasterError(f"the study's worker processes died {lost} times (the last time with "
                                  f"{len(left)} of {len(calls)} calls unfinished: {'; '.join(_what(calls[i]) for i in left[:3])}"
                                  f"{'; ...' if len(left) > 3 else ''}); one may crash its process (out of memory, "
                                  f"a crashing FMU): run it alone to see its error")
            say(f"a worker process was lost; {len(left)} unfinished case{'s' if len(left) > 1 else ''} "
                f"go{'' if len(left) > 1 else 'es'} to new workers", sys.stderr)
    return [finished[i].result() for i in range(len(calls))]


def _done(path: str, k: int, n: int) -> str:
    """One finished case said on stderr: ``case k/n done: <results>``."""
    say(f"case {k}/{n} done: {path}", sys.stderr)
    return path


def _follow(n: int) -> Callable[[int, bool, Any], None]:
    """Say each of ``n`` cases as it finishes: a progress bar on a terminal, plain lines
    otherwise; a failure is said at once and raised later by the caller."""
    bar = counter(n, "study", unit="case", leave=True) if sys.stderr.isatty() else None

    def done(k: int, ok: bool, result: Any) -> None:
        if bar is not None:
            bar(1)
        if not ok:
            say(f"case {k}/{n} failed", sys.stderr)
        elif bar is None:
            _done(result[0] if isinstance(result, tuple) else result, k, n)
    return done


class _Slot:
    """A shipped FMU written into a private temporary folder of this process (below the Dask
    worker's ``local_directory`` when there is one) and the instance the batches run on."""

    def __init__(self, fmu: bytes) -> None:
        base = None
        try:
            from distributed import get_worker
            base = get_worker().local_directory
        except (ImportError, ValueError):
            pass
        self.folder = tempfile.TemporaryDirectory(prefix="wc-shipped-", dir=base)
        self.path = Path(self.folder.name) / "model.fmu"
        self.path.write_bytes(fmu)
        self.fmu, self.pid = fmu, os.getpid()
        self.runner: Any = None
        # closed at this process's exit too: multiprocessing's exit finalizers run at the
        # exit of a pool's worker process (atexit's do not) and at the main process's exit
        from multiprocessing import util
        self._final = util.Finalize(self, _Slot._close, args=(self,), exitpriority=10)

    def drop_runner(self) -> None:
        """Terminate and forget the instance (a failed case's is not reused)."""
        if self.runner is not None:
            _close(self.runner)
            self.runner = None

    def close(self) -> None:
        """Terminate the instance and remove the folder (once)."""
        self._final()

    def _close(self) -> None:
        self.drop_runner()
        self.folder.cleanup()


class _Shipped:
    """The FMU a worker process runs its batches on, kept for the process's next batch of the
    same FMU (the same bytes): a worker extracts and instantiates it once for the whole
    study, not once per batch.  One batch at a time uses the kept one (a batch of another
    thread meanwhile gets a slot of its own, closed after it); a new FMU or the process's exit
    closes it (a forked child leaves its parent's alone).  A process killed outright leaves
    its folder, like a killed run leaves its files."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.slot: _Slot | None = None

    @contextlib.contextmanager
    def batch(self, fmu: bytes) -> Iterator[_Slot]:
        """The slot of ``fmu`` for one batch."""
        if not self.lock.acquire(blocking=False):
            slot = _Slot(fmu)
            try:
                yield slot
            finally:
                slot.close()
            return
        try:
            # (a slot of another process is the parent's, inherited by fork: _close leaves it)
            if self.slot is None or self.slot.pid != os.getpid() or self.slot.fmu != fmu:
                self._close()
                self.slot = _Slot(fmu)
            yield self.slot
        finally:
            self.lock.release()

    def _close(self) -> None:
        if self.slot is not None and self.slot.pid == os.getpid():
            self.slot.close()
        self.slot = None

    def close(self) -> None:
        """Terminate the kept instance and remove its folder (at the process's exit)."""
        with self.lock:
            self._close()


_SHIPPED = _Shipped()


def close_shipped() -> None:
    """Close the FMU instance this process keeps for its batches (:func:`run_shipped`) and
    remove its folder; the next batch opens the FMU again."""
    _SHIPPED.close()


def run_shipped(cases: list[dict[str, Any]], fmu: bytes) -> list[dict[str, Any]]:
    """Run scenario dicts against an FMU given as bytes, on a worker that may be another
    machine: the FMU is written into a private temporary folder of the worker process and
    opened once for all the batches of the same FMU the process runs (:class:`_Shipped`);
    each case runs in memory on that instance (``WearMaster.run_in_memory``: no lock,
    checkpoint, streams or results file; fmi2Reset between cases, a fresh instance after a
    failed one), and what comes back is each case's result as plain data (``name``, the
    ``final`` profile, ``sector_centres``, ``radius``, ``length``; or ``{"name", "error"}`` when
    the master stopped it).  Nothing is read from, or written to, the client's disk."""
    from ..master.loop import MasterError, WearMaster, open_runner
    from ..master.scenario import ScenarioError, from_dict
    out = []
    with _SHIPPED.batch(fmu) as slot:
        for case in cases:
            data = dict(case)
            data["fmu"] = {**data.get("fmu", {}), "path": str(slot.path)}
            data["fmu"].pop("model", None)
            name = str(data.get("name", ""))
            try:
                sc = from_dict(data, f"<case {data.get('name', '?')}>")
                if slot.runner is None:
                    slot.runner = open_runner(slot.path, sc)
                res = WearMaster(sc, slot.path.parent / "out", progress=False, runner=slot.runner).run_in_memory()
                out.append({"name": name, "final": res["final"], "sector_centres": res["sector_centres"],
                            "radius": res["radius"], "length": res["length"]})
            except (MasterError, ScenarioError) as exc:
                out.append({"name": name, "error": " ".join(str(exc).split())})
                slot.drop_runner()               # a failed case's instance is not reused
    return out


def _close(runner: Any) -> None:
    """Terminate and free a batch's runner; a refused fmi2Terminate (an instance a case left
    before initialisation) still frees it (the runner's terminate does), and is no error."""
    try:
        runner.terminate()
    except Exception:
        pass


def run_many(cases: list[dict[str, Any]], fmu: bytes, workers: int = 2, scheduler: Any = None, batch: int = 8,
             log: Callable[[str], Any] | None = None) -> list[dict[str, Any]]:
    """Run many scenario dicts against one FMU (bytes) and return their compact results in the
    order given.  ``scheduler``: a Dask address or ``distributed.Client`` (the FMU is
    broadcast to the workers once, the cases go in batches of ``batch``, the results come
    back to the client); else ``workers`` local processes (1: in this process).  The
    results do not depend on the executor (each case is a deterministic run)."""
    batch = max(1, int(batch))
    batches = [cases[i:i + batch] for i in range(0, len(cases), batch)]
    n, total = len(batches), len(cases)
    tell = log or (lambda msg: say(msg, sys.stderr))
    # a progress bar on a terminal, lines otherwise
    bar = counter(total, "runs", unit="case", leave=True) if log is None and sys.stderr.isatty() else None

    def tick(k: int, ok: bool, result: Any) -> None:
        if bar is not None:
            bar(min(k * batch, total) - min((k - 1) * batch, total))
        elif k == n or k % max(1, n // 20) == 0:
            tell(f"batches {k}/{n} done ({min(k * batch, total)} of {total} cases)")
    client = connect(scheduler) if isinstance(scheduler, str) else scheduler
    try:
        # on a cluster the FMU goes to the workers once, not with every batch
        blob = client.scatter(fmu, broadcast=True, hash=False) if client is not None else fmu
        done = _execute(run_shipped, [(b, blob) for b in batches], workers, client, tick)
    finally:
        if isinstance(scheduler, str) and client is not None:
            client.close()
        if client is None and workers <= 1:       # ran here: this process keeps no instance after it
            close_shipped()
    return [r for b in done for r in b]


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
    from ..plots.wear import compare_orbits, compare_profiles, run_labels
    from ..plots.style import natural_key
    runs, orbits, clearance, rows, metas = {}, {}, 0.0, [], {}
    for p in sorted(paths, key=lambda q: natural_key(Path(q).stem)):     # 4, 8, 16, 32 pi; read once each
        meta, series, wear = read_results(p)
        name = Path(p).stem
        metas[name] = meta
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
    labels, shared = run_labels(metas)              # legends by omega, c, lubrication: not file names
    cond = f" ({shared})" if shared else ""
    compare_profiles(runs, out_dir / f"{title}_profiles", f"{title} study{cond}: final worn depth", labels=labels)
    if orbits:
        compare_orbits(orbits, clearance, out_dir / f"{title}_orbits", f"{title} study{cond}: journal-centre orbits",
                       labels=labels)
    return rows


def run_study(scenarios: Iterable[str | Path], out_dir: Path, workers: int = 2, scheduler: Any = None,
              title: str = "study", checkpoint_seconds: float | None = None) -> int:
    """Run a study and write its report; prints the table (and the cases run again after a
    lost worker), returns the exit status (0)."""
    paths = run_all(scenarios, out_dir, workers, scheduler, checkpoint_seconds=checkpoint_seconds)
    rows = write_report(paths, out_dir, title)
    for r in rows:
        print(f"{r['case']:32s} peak {r['peak_um']:10.4g} um  mean {r['mean_um']:10.4g} um  peak/mean {r['peak_over_mean']:.3g}")
    if paths.retried:
        print(f"retried: {paths.summary()}")
    print(f"report: {out_dir / (title + '.md')}")
    return 0
