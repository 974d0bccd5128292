"""The measuring protocol of ``python -m wearcosim.bench``: scoring on the communication grid,
the tolerance ladder and the interleaved, CPU-timed repeats, the same for every contender.

* **Scoring on the grid only.**  Every contender is scored at the communication-grid points
  and nowhere else (:func:`on_grid`): samples a contender adds at events are dropped, the
  reference is never interpolated (an extra sample at an impact scored against a reference
  interpolated linearly across the kink would count an error the contender did not make).  At
  a grid point that a contender reports twice (an event exactly there) the last value, the one
  after the event, is taken, as a Co-Simulation FMU reports it.
* **The same ladder for every contender.**  Each runs the rungs of the ladder from the loosest
  on, once each: its rung at equal accuracy is the loosest rung whose error *and the next
  tighter rung's* reach the target (the last rung of the ladder needs no confirmation).  An
  error that reaches the target on one rung by luck -- a solver's error is not monotone in
  its tolerance, and the impact-driven mechanisms' error jumps between rungs -- does not make
  that rung the contender's: the slider-crank once passed at 1e-5 and failed at 1e-6, and its
  margin against a peer then depended on that one run.  A contender that never reaches it is
  reported as such and is not timed.
* **The same repeats, interleaved.**  The contenders that reached the target are timed at their
  rung ``repeats`` times each, round-robin within each repeat (the order rotates from one
  repeat to the next: :func:`order`), so that a change in the machine's load hits all of them
  alike.  Each run is timed in CPU seconds of the process (``time.process_time``: the
  contenders are single-threaded) with the wall time beside it; the figure kept is the least
  CPU time of the repeats.  Each timed run follows an untimed run of the same job, so every
  contender is timed with its code and data in the caches, as a user's repeated runs are:
  the rotation keeps the round-robin's neighbours, so without it the contender after a
  memory-hungry peer ran cold in every repeat (auto after SciPy LSODA with its defaults: 1.58
  against 1.38 ms on the hybrid mechanism, 3.68 against 3.49 ms on the slider-crank).
* **Set-up excluded for all**: what a contender needs before it can run (unzip, parse and
  instantiate an FMU, compile a model, build an integrator) is done when it is created, outside
  the timed part; the timed part is one simulation from initialisation to the stop time with
  its results on the grid.
* **Each contender with its defaults too**: a contender that has default settings (its own
  default tolerances, what a user gets without choosing any) is also run with them, scored on
  the same grid and timed in the same interleaved repeats, and reported beside its ladder
  figure (whether or not it reaches the target there); the ladder figure is the comparison at
  equal accuracy, the defaults' figure what each tool gives out of the box.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np

from ..progress import say

#: tolerance ladder (relative tolerances, loosest first); absolute tolerance 1e-3 x rtol for all
LADDER = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10)


@dataclass
class Run:
    """One simulation's output: sample times, values [n_signals, n_samples], and the number of
    right-hand side evaluations when the contender can tell (else None)."""
    t: np.ndarray
    y: np.ndarray
    nfev: Optional[int] = None
    info: str = ""


@dataclass
class Contender:
    """A contender: ``run(rtol, count)`` simulates at relative tolerance ``rtol`` (``count``:
    also count the right-hand sides, when that costs time the timed runs should not pay);
    ``close()`` frees what its set-up made."""
    name: str
    run: Callable[[float, bool], Run]
    close: Callable[[], None] = lambda: None
    group: str = "peer"          #: "ours" or "peer"
    #: a run with the contender's own default settings (``count`` as for ``run``); None: none
    default: Optional[Callable[[bool], Run]] = None
    #: what those defaults are, for the report (e.g. "rtol 1e-3, atol 1e-6: solve_ivp's")
    default_info: str = ""


@dataclass
class Outcome:
    """A contender's result: the ladder it climbed, its rung at equal accuracy (None: never
    reached the target) and the timed repeats there."""
    name: str
    group: str
    ladder: list = field(default_factory=list)      # [{rtol, error, cpu, wall, nfev}]
    rtol: Optional[float] = None
    error: Optional[float] = None
    nfev: Optional[int] = None
    cpu: list = field(default_factory=list)
    wall: list = field(default_factory=list)
    failed: str = ""
    #: the run with the contender's defaults: {info, error, nfev, cpu: [...], wall: [...], failed}
    #: (None: it has none)
    default: Optional[dict] = None

    @property
    def reached(self) -> bool:
        return self.rtol is not None

    @property
    def cpu_best(self) -> Optional[float]:
        return min(self.cpu) if self.cpu else None

    @property
    def wall_best(self) -> Optional[float]:
        return min(self.wall) if self.wall else None

    def as_dict(self) -> dict:
        return {"group": self.group, "ladder": self.ladder, "rtol": self.rtol, "error": self.error,
                "nfev": self.nfev, "cpu": self.cpu, "wall": self.wall, "cpu_best": self.cpu_best,
                "wall_best": self.wall_best, "reached": self.reached, "failed": self.failed,
                "default": None if self.default is None else
                dict(self.default, cpu_best=min(self.default["cpu"]) if self.default["cpu"] else None,
                     wall_best=min(self.default["wall"]) if self.default["wall"] else None)}


def on_grid(t: np.ndarray, y: np.ndarray, grid: np.ndarray, rel: float = 1e-6) -> np.ndarray:
    """The columns of ``y`` (values [n_signals, n_samples] at times ``t``) at the grid points:
    for each grid time the last sample within ``rel`` x the grid interval of it.  Raises
    ValueError when a grid point has no sample."""
    t = np.asarray(t, float)
    y = np.atleast_2d(np.asarray(y, float))
    grid = np.asarray(grid, float)
    h = float(np.min(np.diff(grid))) if grid.size > 1 else 1.0
    tol = rel * h
    # last sample at or before each grid point (+tol), then check it is within tol
    idx = np.searchsorted(t, grid + tol, side="right") - 1
    ok = (idx >= 0) & (np.abs(t[np.clip(idx, 0, None)] - grid) <= tol)
    if not ok.all():
        k = int(np.argmin(ok))
        raise ValueError(f"no sample at grid point t = {grid[k]!r}")
    return y[:, idx]


def grid_error(t: np.ndarray, y: np.ndarray, grid: np.ndarray, ref: np.ndarray) -> float:
    """Orbit error on the grid: max over signals of max |y - ref| / range(ref), with ``y`` taken
    at the grid points only (:func:`on_grid`) and ``ref`` [n_signals, len(grid)] given there."""
    yg = on_grid(t, y, grid)
    ref = np.atleast_2d(np.asarray(ref, float))
    span = np.ptp(ref, axis=1)
    span = np.where(span > 0, span, 1.0)
    return float(np.max(np.max(np.abs(yg - ref), axis=1) / span))


def order(names: Sequence[str], repeat: int) -> list:
    """The contenders' order in repeat ``repeat``: round-robin, rotated by one each repeat."""
    names = list(names)
    if not names:
        return []
    k = repeat % len(names)
    return names[k:] + names[:k]


def _clock(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def _say(msg: str) -> None:
    say(msg, sys.stderr)


def measure(contenders: Sequence[Contender], rungs: Sequence[float], grid: np.ndarray, ref: np.ndarray,
            target: float, repeats: int, say: Callable[[str], None] = _say,
            progress: Optional[Callable[[int], object]] = None) -> dict:
    """Run the protocol (module docstring) on ``contenders``: the ladder ``rungs`` (loosest
    first) for each, then ``repeats`` interleaved timed runs of those that reached ``target``.
    ``progress(total)`` may return a callable advanced by one per timed run (a progress bar).
    Returns {name: :class:`Outcome`}."""
    out = {}
    for c in contenders:
        o = Outcome(c.name, c.group)
        out[c.name] = o
        candidate = None                    # (rtol, error, nfev) of a rung waiting for its confirmation
        for i, rtol in enumerate(rungs):
            try:
                run, cpu, wall = _clock(lambda: c.run(rtol, True))
                err = grid_error(run.t, run.y, grid, ref)
            except Exception as exc:        # noqa: BLE001 -- a contender that fails a rung is reported
                msg = (str(exc).splitlines() or [""])[0][:200]
                o.ladder.append({"rtol": rtol, "error": None, "cpu": None, "wall": None, "nfev": None,
                                 "failed": f"{type(exc).__name__}: {msg}"})
                o.failed = o.ladder[-1]["failed"]
                say(f"    {c.name}: rtol {rtol:.0e} failed: {o.failed}")
                candidate = None
                continue
            o.ladder.append({"rtol": rtol, "error": err, "cpu": cpu, "wall": wall, "nfev": run.nfev,
                             "info": run.info})
            say(f"    {c.name}: rtol {rtol:.0e}  error {err:.2g}  {cpu * 1e3:.1f} ms CPU"
                + (f"  nfev {run.nfev}" if run.nfev is not None else ""))
            if err > target:
                candidate = None
                continue
            if candidate is None and i < len(rungs) - 1:
                candidate = (rtol, err, run.nfev)     # confirmed by the next rung, or dropped
                continue
            o.rtol, o.error, o.nfev = candidate if candidate is not None else (rtol, err, run.nfev)
            o.failed = ""
            break
        if not o.reached:
            say(f"    {c.name}: never reaches {target:g} on the ladder")
        if c.default is not None:
            o.default = _default_run(c, grid, ref, say)
    # timed: (name, True) at its rung, (name, False) with its defaults; round-robin over both
    jobs = {(c.name, True): (lambda c=c: c.run(out[c.name].rtol, False)) for c in contenders if out[c.name].reached}
    jobs.update({(c.name, False): (lambda c=c: c.default(False)) for c in contenders
                 if out[c.name].default is not None and not out[c.name].default["failed"]})
    keys = list(jobs)
    step = progress(repeats * len(keys)) if progress and keys else None
    for rep in range(repeats):
        for k in order(range(len(keys)), rep):
            name, at_rung = keys[k]
            o = out[name]
            rec = o if at_rung else None
            failed = o.failed if at_rung else o.default["failed"]
            if not failed:
                try:
                    jobs[keys[k]]()                 # untimed: the same job warms the caches
                    _, cpu, wall = _clock(jobs[keys[k]])
                    (o.cpu if at_rung else o.default["cpu"]).append(cpu)
                    (o.wall if at_rung else o.default["wall"]).append(wall)
                except Exception as exc:    # noqa: BLE001 -- reported; its other repeats are dropped
                    msg = f"timed run failed: {type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
                    if rec is not None:
                        o.failed, o.cpu, o.wall = msg, [], []
                    else:
                        o.default.update(failed=msg, cpu=[], wall=[])
                    say(f"    {name}{'' if at_rung else ' (defaults)'}: {msg}")
            if step:
                step()
    return out


def _default_run(c: Contender, grid: np.ndarray, ref: np.ndarray, say: Callable[[str], None]) -> dict:
    """The contender's run with its defaults, scored (not yet timed): {info, error, nfev, cpu,
    wall, failed}."""
    d = {"info": c.default_info, "error": None, "nfev": None, "cpu": [], "wall": [], "failed": ""}
    try:
        run, _, _ = _clock(lambda: c.default(True))
        d.update(error=grid_error(run.t, run.y, grid, ref), nfev=run.nfev)
        say(f"    {c.name} with its defaults ({c.default_info}): error {d['error']:.2g}")
    except Exception as exc:                # noqa: BLE001 -- reported
        d["failed"] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
        say(f"    {c.name} with its defaults: failed: {d['failed']}")
    return d
