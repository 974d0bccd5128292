"""The wear co-simulation master: the six-step loop of seed 002 (docs/physics/wear.md).

1. set initial conditions, clearance and model coefficients (scenario ``[start]``);
2. step the FMU (contact detection and forces are inside it) over one cycle on the grid
   ``t0 + k*h``, reading the contact outputs after every step (one batched ``getReal``);
3. turn force, half-width, contact angle and slip into sector pressures and accumulate
   Archard wear ``dh = k p ds / H`` (:mod:`wearcosim.wear.archard`);
4. every ``update_cycles`` cycles, reconstruct the worn surface: ``h += N_extrap * dh``
   (optional smoothing; :mod:`wearcosim.wear.reconstruction`);
5. write the new profile into the FMU's ``wearDepth[]`` inputs (or tunable parameters, or
   reset + re-initialise + restore the state, for FMUs built elsewhere);
6. continue with the next cycle until the requested number of cycles.

The recorded series and profiles stream to disk as the run goes (:class:`store.Spool`, one
append-only file per stream in ``.<name>.spool/``): memory does not grow with the number of
cycles.  After a wear update a checkpoint (FMU state serialised by the FMU itself, profile,
pending wear, counters and the durable length of each stream -- not the series themselves,
so its cost does not grow with the run) is written atomically (at most once per
``checkpoint_seconds`` of wall time); ``resume=True`` cuts the streams back to the lengths
the checkpoint recorded and continues, giving the same results, bit for bit, as an
uninterrupted run.  Any failure inside the loop (the FMU, a hook's exception, Ctrl-C, a full
disk) writes the last update's checkpoint if it is not on disk yet (before the first update:
the start's), see :mod:`.checkpoint`.  The results file is written from the streams at the
end.  The checkpoint is removed when the run has completed and its results are durable; a
plain run refuses to start over an interrupted run's checkpoint (resume it, or
``restart=True`` to discard it), except a study's retry of its own case (``owner``).

Before cycle 1 the run is checked: the output folder is writable, no other run of the same
scenario writes there (a lock file), the results fit on the disk and the recorded series in
memory; leftover temporary files of a killed run of this scenario are removed.

**Physical guards.**  Before each wear update the new profile is checked against the
geometry: the worn depth must stay below ``limits.depth_per_clearance`` times the clearance
``c`` (default 4), one update may change the profile by at most ``limits.update_per_clearance``
times ``c`` (default 0.1: the orbit must change little between updates for the
update-every-N-cycles scheme to hold), and the depth must stay below 10 % of the radius
(profile surfaces: of the profile length).  ``c`` is ``limits.clearance`` if given, else the
FMU's parameter ``c``, else 1 % of the radius / profile length.  A violated limit stops the run
with a message naming the cycle, the sector and the values; the results up to the last
accepted update are written (marked as stopped) and the checkpoint of that update is kept, so
``--resume --force`` can go on knowingly.  ``limits.force = true`` (``--force``) turns the stop
into one warning.

The last update window is always applied: when ``cycles`` is not a multiple of
``update_cycles``, the wear of the remaining cycles is applied after the last cycle.
"""
from __future__ import annotations

import hashlib
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import __version__
from ..atomic import reason, stale_temporaries
from ..fmi.runner import FMIError, open_fmu
from ..wear import reconstruction
from ..wear.archard import CycleWear, SectorSurface
from ..wear.update import WearUpdate
from ..wear_interface import describe, unit_of
from . import store
from .checkpoint import Checkpointer, CheckpointRefused, NoCheckpoints
from .scenario import Scenario


class MasterError(RuntimeError):
    pass


class LimitExceeded(MasterError):
    """A physical guard stopped the run (see the module's docstring)."""


def sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes (what a checkpoint records of its FMU)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def resolve_fmu(sc: Scenario, build_dir: Path, log: Callable[[str], Any] = print,
                out_dir: Path | None = None) -> Path:
    """The FMU a scenario runs: its [fmu] path, its model (built on demand into ``build_dir``),
    or the container FMU of its [system] (built into ``out_dir``/.containers)."""
    if sc.system_file:
        return _system_fmu(sc, Path(out_dir if out_dir is not None else build_dir), log)
    if sc.fmu_path:
        p = Path(sc.fmu_path)
        if not p.is_file():
            raise MasterError(f"{sc.source}: FMU {p} does not exist" if not p.exists() else
                              f"{sc.source}: FMU {p} is not a file")
        return p
    from ..export.ondemand import ensure_fmu
    return ensure_fmu(sc.model, build_dir, package=sc.package or None, log=log)


def _system_fmu(sc: Scenario, out_dir: Path, log) -> Path:
    """The strongly coupled container of the scenario's system, checked first (one line per
    problem); the wear component must be one of its components."""
    from ..system.examples import ensure_fmus
    from ..system.run import container_fmu
    from ..system.ssp import open_system
    from ..system.validate import problems
    with open_system(sc.system_file) as system:
        names = [c.name for c in system.components]
        if sc.wear_component not in names:
            raise MasterError(f"{sc.source}: system.wear_component {sc.wear_component!r} is not a component of "
                              f"{sc.system_file} (components: {', '.join(names)})")
        ensure_fmus(system, log)
        found = problems(system)
        if found:
            raise MasterError(f"{sc.system_file}: {found[0]}" + (f" (and {len(found) - 1} more problems)" if len(found) > 1 else ""))
        return container_fmu(system, out_dir / ".containers", log)


def _size(b: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if b < 1024 or unit == "TB":
            return f"{b:.3g} {unit}"
        b /= 1024


def _duration(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


class _Lock:
    """An exclusive lock on ``<out>/.<name>.lock`` (flock: released by the kernel when the
    process dies, so a killed run never blocks the next one).  The file holds the holder's
    process id, host and owner (a study's token) as JSON; :attr:`previous` is what it held
    when taken: a run that died there (its file is removed on a normal release)."""

    def __init__(self, path: Path, owner: str | None = None):
        import fcntl
        import json
        import socket
        self.path = path
        try:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise MasterError(f"{path}: cannot create the lock: {reason(exc)}") from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self.fd)
            raise MasterError(f"{path.parent}: another run of scenario '{path.name[1:-5]}' is writing "
                              f"there (lock {path.name})") from None
        self.previous: dict = {}
        try:
            old = os.pread(self.fd, 4096, 0)
            self.previous = json.loads(old) if old else {}
            if not isinstance(self.previous, dict):
                self.previous = {"damaged": True}
        except ValueError:
            self.previous = {"damaged": True}
        except OSError:
            pass
        try:       # (for the curious and for tests: which process holds it)
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                           "owner": owner}).encode(), 0)
        except OSError:
            pass

    def release(self) -> None:
        """Give the lock up (remove its file)."""
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)


def open_runner(fmu: str | os.PathLike[str], sc: Scenario) -> Any:
    """The instantiated runner of ``fmu`` (the scenario's backend); a failure to open it is one
    :class:`MasterError` naming the file."""
    import zipfile
    try:
        return open_fmu(fmu, sc.backend, instance_name=sc.name)
    except FMIError as exc:
        raise MasterError(f"{fmu}: cannot instantiate: {exc}") from None
    except (ValueError, OSError, zipfile.BadZipFile) as exc:   # the runner's FMUOpenError is a ValueError
        raise MasterError(str(exc) if str(fmu) in str(exc) else f"{fmu}: {exc}") from None


def _peak_mean(Fn: np.ndarray) -> tuple[float, float]:
    """The largest and the mean normal force of a cycle's samples, non-finite samples taken
    as 0 (the cycle's summary).  A finite sum means finite samples: then the column is
    reduced in place (numpy's pairwise sum of a strided column equals that of its copy);
    otherwise the samples are cleaned first."""
    s = np.add.reduce(Fn)
    if math.isfinite(s):
        return float(np.maximum.reduce(Fn)), float(s / Fn.shape[0])
    fpos = np.where(np.isfinite(Fn), Fn, 0.0)
    return float(np.max(fpos)), float(np.mean(fpos))


def _described(r: Any, prefix: str) -> Any:
    """The wear interface of the runner's FMU for ``prefix``, read from its model description
    once per runner and kept on it (a study's batch runs many cases on one instance);
    ``ValueError`` from :func:`describe`."""
    memo = r.__dict__.setdefault("_wearcosim_described", {})
    if prefix not in memo:
        memo[prefix] = describe(r.md, prefix)
    return memo[prefix]


@dataclass
class RunState:
    cycle: int = 0                                   # cycles completed
    depth: np.ndarray = None                         # current wear profile (m)
    pending: np.ndarray = None                       # wear accumulated since the last update
    spool: object = None                             # store.Spool: series, profile cycles, profiles


class WearMaster:
    """Runs one scenario.  ``hook(master, state)`` is called after every cycle (like FMPy's
    ``step_finished``), e.g. for progress or to stop early by raising: an exception in the loop
    (a hook's too) leaves the checkpoint of the last wear update (of the start before the first
    one), from which ``run(resume=True)`` continues.  ``owner``: a study's token (see
    :mod:`.checkpoint`)."""

    #: a checkpoint is written after a wear update when at least this much wall time has passed
    #: since the previous one (and after the last update): each one fsyncs the streams, so
    #: this bounds the disk flushes of thousands of short cycles; a resumed run repeats at
    #: most these seconds of work, deterministically
    checkpoint_seconds = 1.0

    #: a run whose duration is estimated above this many seconds (after its first cycle) says so
    long_run_seconds = 60.0

    def __init__(self, sc: Scenario, out_dir: str | os.PathLike[str], build_dir: str | os.PathLike[str] | None = None,
                 progress: bool = True, hook: Callable[..., Any] | None = None,
                 force: bool | None = None, owner: str | None = None, *, runner: Any = None) -> None:
        self.sc = sc
        #: an FMU runner to use instead of opening the FMU (a study's batch: one extraction and
        #: instance for many cases, fmi2Reset between them); the caller terminates it
        self.runner = runner
        #: the run keeps everything in memory (:meth:`run_in_memory`)
        self.memory = False
        self.result: dict[str, Any] | None = None
        #: who runs it: None (a plain run) or a study's token; a checkpoint of the same owner is
        #: continued without ``resume`` (the study's retry of a case whose worker died)
        self.owner = owner
        #: a run of the same owner died here before (the study's retry of this case)
        self.retried = False
        #: the cycle this run continued from (None: it started at cycle 0 without a checkpoint)
        self.resumed_from: int | None = None
        self.force = sc.force if force is None else bool(force)
        self.out_dir = Path(out_dir)
        from ..resources import build_dir as default_build_dir
        self.build_dir = Path(build_dir) if build_dir else default_build_dir()
        self.progress = progress
        self.hook = hook
        self.results_path = self.out_dir / f"{sc.name}.h5"
        self.ckpt_path = self.out_dir / f"{sc.name}.ckpt"
        self.spool_path = self.out_dir / f".{sc.name}.spool"
        self.ckpt = Checkpointer(self.ckpt_path, sc.raw, owner)
        self.stopped = ""
        self._warned = False
        self._tenth = -1
        self._bar = None

    # ------------------------------------------------------------------ pre-flight
    def estimate_bytes(self) -> int:
        """Bytes of the recorded series of the whole run (uncompressed: what the streams take on
        disk and at most what the results file takes)."""
        sc = self.sc
        per_cycle = -(-sc.steps_per_cycle // sc.decimate) * (1 + len(sc.record)) * 8
        total = sc.transient_cycles + sc.cycles
        return (-(-total // sc.record_every) + 1) * per_cycle + total * len(self.SUMMARY) * 8

    def _prepare_out_dir(self):
        """Writable folder, lock, leftovers of killed runs removed, enough disk and memory."""
        sc, out = self.sc, self.out_dir
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MasterError(f"cannot create the output folder {out}: {exc.strerror}") from None
        if not out.is_dir() or not os.access(out, os.W_OK | os.X_OK):
            raise MasterError(f"output folder {out} is not writable")
        lock = _Lock(out / f".{sc.name}.lock", self.owner)
        try:
            self.retried = self.owner is not None and lock.previous.get("owner") == self.owner
            for dest in (self.results_path, self.ckpt_path):      # left by a killed run of this scenario
                for p in stale_temporaries(dest):
                    try:
                        p.unlink(missing_ok=True)
                    except OSError as exc:
                        raise MasterError(f"{p}: cannot remove a killed run's temporary file: {reason(exc)}") from None
            need = self.estimate_bytes()
            free = shutil.disk_usage(out).free
            if 2 * need > free:
                raise MasterError(f"{sc.source}: the run records about {_size(need)} of series "
                                  f"(streams + results: {_size(2 * need)}) but {out} has {_size(free)} free; "
                                  f"reduce wear.cycles, run.record or run.steps_per_cycle, or raise run.decimate")
        except BaseException:
            lock.release()
            raise
        return lock

    # ------------------------------------------------------------------ set-up
    def _open(self, fmu):
        """The FMU instantiated, its start values set and initialised; on any failure the
        instance is freed (and its extraction folder removed) before the error is raised."""
        r = open_runner(fmu, self.sc)
        try:
            self._init(r, fmu)
        except BaseException:
            try:
                r.terminate()
            except Exception:
                pass
            raise
        return r

    def _init(self, r, fmu):
        sc = self.sc
        try:
            self.ports = _described(r, sc.prefix)
        except ValueError as exc:
            raise MasterError(f"{fmu}: no usable wear interface (prefix {sc.prefix!r}): {exc}") from None
        if self.ports.update not in ("input", "tunable", "reset"):
            raise MasterError(f"{fmu}: cannot rewrite {sc.prefix}wearDepth[] (neither inputs nor parameters)")
        if sc.smoothing and 2 * sc.smoothing + 1 > self.ports.n:
            raise MasterError(f"{sc.source}: wear.smoothing = {sc.smoothing} averages over {2 * sc.smoothing + 1} "
                              f"sectors but the FMU has {self.ports.n}; use at most {(self.ports.n - 1) // 2}")
        start = dict(sc.start)
        if sc.solver and r.has("solver.method"):
            start["solver.method"] = sc.solver
        unknown = [n for n in start if not r.has(n)]
        if unknown:
            raise MasterError(f"{sc.source}: start values for unknown variables: {', '.join(unknown)}")
        try:
            r.set(start)
        except FMIError as exc:
            raise MasterError(f"{sc.source}: the FMU rejected a start value: {exc}") from None
        except TypeError as exc:
            raise MasterError(f"{sc.source}: {exc}") from None
        self.start_values = start
        if self.ports.update == "reset":
            # fixed parameters (e.g. OpenModelica's export): every wear update resets the FMU,
            # sets the new profile and the states read just before, and re-initialises it at the
            # current time (fmi2SetFMUstate cannot be used: it restores the old parameters too)
            self.state_names = r.state_names()
            self.state_vrs = r.vr(self.state_names)
        try:
            r.setup(0.0, None, sc.tolerance, sc.step)
            r.initialize()
        except FMIError as exc:
            raise MasterError(f"{sc.name}: the FMU failed to initialise: {exc}") from None
        self.clearance = float(r.get([sc.prefix + "c"])[sc.prefix + "c"]) if r.has(sc.prefix + "c") else None
        if self.ports.circular:
            geo = r.get([self.ports.radius_name, self.ports.length_name])
            self.surface = SectorSurface(n=self.ports.n, length=float(geo[self.ports.length_name]),
                                         radius=float(geo[self.ports.radius_name]))
        else:   # a profile (gear flank): positions are lengths along it
            geo = r.get([self.ports.profile_name, self.ports.length_name])
            self.surface = SectorSurface(n=self.ports.n, length=float(geo[self.ports.length_name]),
                                         extent=float(geo[self.ports.profile_name]))
        o = self.ports.outputs
        self.contact_names = [o["Fn"], o["theta"], o["halfWidth"], o["vSlip"]]
        missing = [n for n in sc.record if not r.has(n)]
        if missing:
            raise MasterError(f"{sc.source}: run.record names unknown variables: {', '.join(missing)}")
        self.read_vrs = r.vr(self.contact_names + list(sc.record))
        self.units = {n: u for n in sc.record if (u := unit_of(r.vars[n]))}     # (checked by r.has above)
        self.depth_vrs = tuple(r.vr(self.ports.depth_names))     # (set_reals' key as it is)
        self._set_guard_reference()

    # ------------------------------------------------------------------ physical guards
    def _set_guard_reference(self):
        """The reference length c of the guards and where it comes from."""
        sc, surf = self.sc, self.surface
        size = surf.radius if self.ports.circular else surf.extent
        what = f"{self.ports.radius_name or self.ports.profile_name} = {size:.4g} m"
        if sc.clearance > 0:
            self.c_ref, self.c_from = sc.clearance, "limits.clearance"
        elif self.clearance and self.clearance > 0 and math.isfinite(self.clearance):
            self.c_ref, self.c_from = self.clearance, f"the FMU's parameter {sc.prefix}c"
        else:
            self.c_ref, self.c_from = 0.01 * size, f"1 % of {what} (no clearance parameter)"
        self.size_ref, self.size_what = size, what

    def _sector_where(self, i: int) -> str:
        x = self.surface.centres()[i]
        return f"sector {i + 1} ({math.degrees(x):.1f} deg)" if self.ports.circular else f"sector {i + 1} (s = {x * 1e3:.3g} mm)"

    def check_update(self, old: np.ndarray, new: np.ndarray, cycle: int, real: float | None = None,
                     stats: tuple[int, int, float, int, float] | None = None) -> None:
        """Raise :class:`LimitExceeded` (or warn once, with ``force``) if the profile ``new``
        that follows ``old`` after ``cycle`` wear cycles (``real`` real cycles) breaks a
        physical guard; ``stats``: :func:`reconstruction.guard_stats` of the two if known."""
        sc = self.sc
        c, um = self.c_ref, 1e6
        bad, i, change, j, deepest = reconstruction.guard_stats(old, new) if stats is None else stats
        if bad >= 0:
            raise LimitExceeded(f"{sc.name}: {self._when(cycle, real)}: the worn depth in {self._sector_where(bad)} "
                                f"is not finite")
        if (change <= sc.update_per_clearance * c and deepest <= sc.depth_per_clearance * c
                and deepest <= 0.1 * self.size_ref):
            return
        problems = []
        if change > sc.update_per_clearance * c:
            problems.append(f"the profile changes by {change * um:.4g} um in {self._sector_where(i)}, more than "
                            f"limits.update_per_clearance = {sc.update_per_clearance:g} x c = "
                            f"{sc.update_per_clearance * c * um:.4g} um")
        over = []
        if deepest > sc.depth_per_clearance * c:
            over.append(f"limits.depth_per_clearance = {sc.depth_per_clearance:g} x c = "
                        f"{sc.depth_per_clearance * c * um:.4g} um")
        if deepest > 0.1 * self.size_ref:
            over.append(f"10 % of {self.size_what}")
        if over:
            problems.append(f"the worn depth reaches {deepest * um:.4g} um in {self._sector_where(j)}, more than "
                            + " and ".join(over))
        if not problems:
            return
        msg = (f"{sc.name}: {self._when(cycle, real)}: " + "; ".join(problems) + f" (c = {c:.4g} m, {self.c_from})")
        if not self.force:
            raise LimitExceeded(msg + "; lower wear.extrapolation or wear.k, update more often, or go on "
                                "knowingly with --force (limits.force = true)")
        if not self._warned:
            print(f"warning: {msg}; going on (--force)", file=sys.stderr)
            self._warned = True

    def _when(self, cycle: int, real: float | None) -> str:
        """The wear update after ``cycle`` wear cycles, as the guards' messages name it."""
        real = cycle * self.sc.extrapolation if real is None else real
        return f"wear update after wear cycle {cycle} ({real:.4g} real cycles)"

    def _write_profile(self, r, depth):
        """Step 5 of the loop: the new profile into the FMU, by the strategy its interface allows."""
        if self.ports.update == "reset":
            x = r.get_reals(self.state_vrs)
            r.reinit({**self.start_values, **dict(zip(self.ports.depth_names, depth)),
                      **dict(zip(self.state_names, x))}, self.sc.tolerance)
        else:
            r.set_reals(self.depth_vrs, depth)

    # ------------------------------------------------------------------ checkpoint
    def _mark(self, r, st: RunState, before, window_pending, summary, lengths, wear_cycles, real):
        """Everything a checkpoint needs at this wear update (cheap; the file is written by
        ``_write_mark``): the FMU's state, the streams' lengths *before* the update's own
        entries (the profile, the window's summary: a resumed run appends them again from the
        checkpoint), and what a rejected jump needs to be taken back: the profile before it,
        the wear and summary of its window.  Since a rollback cuts the streams back to exactly
        these lengths, the streams never get shorter than what the last checkpoint counts: a
        kill at any point leaves a resumable run.

        The FMU's state is taken with fmi2GetFMUstate into one of two states this run reuses
        (never the one of the mark still held) and serialised only when the mark is written:
        most marks are replaced by the next update's before anything writes them."""
        held = self.ckpt.mark
        i = 1 if held is not None and held.get("slot") == 0 else 0       # (not the held mark's)
        self._gen[i] += 1
        self._slots[i] = r.save_state(self._slots[i])
        scal, arr = self.ctl.state()
        # the profiles and the controller's arrays are replaced, never changed in place, so the
        # mark keeps them by reference; the pending wear is accumulated in place: copied
        return {"arrays": {"depth": st.depth, "before": before,
                           "window": window_pending.copy() if window_pending is st.pending else window_pending, **arr},
                "meta": {"cycle": st.cycle, "k": r.k, "lengths": lengths, "wear_cycles": wear_cycles,
                         "real": real, "summary": None if summary is None else list(summary), "ctl": scal},
                "slot": i, "gen": self._gen[i]}

    def _slot_of(self, mark: dict[str, Any]) -> Any:
        """The FMU state a mark of this run holds (None: a checkpoint's mark, serialised)."""
        if "slot" not in mark:
            return None
        i = mark["slot"]
        if self._gen[i] != mark["gen"]:
            raise RuntimeError(f"the FMU state of the mark of cycle {mark['meta']['cycle']} was overwritten")
        return self._slots[i]

    def _restore_mark_state(self, r, mark: dict[str, Any]) -> None:
        """The FMU back to the state of ``mark`` (a rejected jump taken back)."""
        slot = self._slot_of(mark)
        if slot is None:
            self._set_fmu_state(r, mark["arrays"]["fmu_state"])
        else:
            r.set_state(slot)

    def _free_slots(self, r) -> None:
        """Release the FMU states the marks held (the run is over)."""
        for i, slot in enumerate(self._slots):
            if slot is not None:
                self._slots[i] = None
                self._gen[i] += 1
                try:
                    r.free_state(slot)
                except Exception:
                    pass

    def _hold(self, r, st: RunState, *args) -> None:
        """The mark of this wear update handed to the checkpointer; not taken by a fixed-factor
        run in memory (nothing to write, no jump to take back: no FMU state to serialise)."""
        if self.memory and not self.sc.adaptive:
            return
        self.ckpt.hold(self._mark(r, st, *args))

    @property
    def mark(self) -> dict[str, Any] | None:
        """The state a resumed run continues from, and a rejected jump is taken back to."""
        return self.ckpt.mark

    def _write_mark(self, mark, st: RunState):
        """The checkpoint of ``mark`` (:meth:`Checkpointer.write`; the wear pending since the
        update is zero at a mark: not stored); one error naming the file if it cannot be
        written.  A stream that cannot take its held values (a full disk, found when the
        checkpoint makes the streams durable) raises its ``OSError`` as a write in the loop
        does: the loop names the stream's file and keeps the older checkpoint."""
        try:
            if "fmu_state" not in mark["arrays"]:       # (serialised once, when first written)
                mark["arrays"]["fmu_state"] = np.frombuffer(self._runner.serialize_state(self._slot_of(mark)),
                                                            dtype=np.uint8)
            self.ckpt.write(st.spool, mark)
        except OSError as exc:
            if exc.filename and Path(exc.filename).parent == self.spool_path:
                raise
            raise MasterError(f"cannot write the checkpoint {self.ckpt_path}: "
                              f"{exc.filename + ': ' if exc.filename and exc.filename != str(self.ckpt_path) else ''}"
                              f"{reason(exc)}") from None

    @property
    def checkpoint_costs(self) -> list[float]:
        """Seconds of each checkpoint write of the last run (the benchmark reports them)."""
        return self.ckpt.costs

    def _load_checkpoint(self, r) -> RunState:
        try:
            arrays, meta = self.ckpt.read()
        except CheckpointRefused as exc:
            raise MasterError(str(exc)) from None
        except OSError as exc:
            raise MasterError(f"{self.ckpt_path}: cannot read the checkpoint: {reason(exc)}") from None
        try:
            self._set_fmu_state(r, arrays["fmu_state"])
            r.k = int(meta["k"])
            st = RunState(cycle=int(meta["cycle"]), depth=np.array(arrays["depth"], float),
                          pending=np.zeros(np.shape(arrays["depth"])))
            if st.depth.shape != (self.ports.n,) or not 0 <= st.cycle <= self.sc.transient_cycles + self.sc.cycles:
                raise ValueError(f"cycle {st.cycle}, {st.depth.size} sectors")
            self.ctl.restore(meta["ctl"], arrays)
        except FMIError:
            raise
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            raise MasterError(f"{self.ckpt_path}: checkpoint does not fit this run ({type(exc).__name__}: "
                              f"{' '.join(str(exc).split())[:120]}); start over with --restart") from None
        try:
            st.spool = store.Spool(self.spool_path, self._streams(), meta["lengths"])
        except OSError as exc:
            raise MasterError(f"{exc.filename or self.spool_path}: {reason(exc)}") from None
        except store.CheckpointError as exc:
            raise MasterError(f"{self.ckpt_path}: {exc}") from None
        self._append_update(st, int(meta["wear_cycles"]), float(meta["real"]))     # the update's own entries
        if meta.get("summary") is not None:        # (none at the start mark: no cycle yet)
            self._append_summary(st, meta["summary"])
        return st

    def _append_update(self, st: RunState, wear_cycles: int, real: float):
        st.spool.append_scalars(("profile_cycles", "profile_real"), (wear_cycles, real))
        st.spool.append("profiles", st.depth)

    def _append_summary(self, st: RunState, summary):
        if self._stats_of is not st.depth:      # (the profile changes at updates only)
            self._stats_of = st.depth
            self._stats = [float(np.maximum.reduce(st.depth)), float(np.add.reduce(st.depth)) * self.surface.area]
        st.spool.append_scalars(self.SUMMARY, [*summary, *self._stats])

    @staticmethod
    def _set_fmu_state(r, blob):
        s = r.deserialize_state(np.asarray(blob, dtype=np.uint8).tobytes())
        try:
            r.set_state(s)
        finally:
            r.free_state(s)

    #: one value per cycle (results /summary, every cycle also when run.record_every > 1)
    SUMMARY = ("recorded", "peak_Fn", "mean_Fn", "max_depth", "worn_volume")

    #: one value per judged jump (results /extrapolation): the wear cycle the judging window
    #: ended with, the real cycles at the end of the jump, its factor, its normalised and its
    #: local (peak sector, m) error estimates, accepted (1) or taken back (0)
    HISTORY = ("simulated_cycle", "real_cycles", "factor", "error", "local_error", "accepted")
    _x_names = tuple("x_" + h for h in HISTORY)

    def _streams(self):
        return (["time"] + list(self.sc.record) + ["profile_cycles", "profile_real", "profiles"] + list(self.SUMMARY)
                + list(self._x_names))

    def _controller(self):
        """The extrapolation controller: adaptive, or (fixed factor) the same estimator with the
        factor pinned, which only reports the error estimate of each jump."""
        from ..wear.extrapolation import AdaptiveExtrapolation
        sc = self.sc
        if sc.adaptive:
            # half the guard on the change per update: the controller never trips it
            return AdaptiveExtrapolation(sc.real_cycles, rtol=sc.rtol, first=sc.first_extrapolation,
                                         max_factor=sc.max_extrapolation,
                                         max_change=0.5 * sc.update_per_clearance * self.c_ref)
        N = sc.extrapolation
        return AdaptiveExtrapolation(max(1.0, sc.cycles * N), rtol=sc.rtol, first=N, min_factor=N, max_factor=N)

    # ------------------------------------------------------------------ the loop
    def run_in_memory(self) -> dict[str, Any]:
        """Run the scenario keeping everything in memory -- no lock, checkpoint, streams on disk
        or results file (a study's case: a few cycles, nothing to resume) -- and return what it
        gives (:meth:`_in_memory`: final profile, sectors, geometry, per-cycle summary).  A
        stopped run raises :class:`LimitExceeded` (its results are :attr:`result`)."""
        self.memory = True
        self.ckpt = NoCheckpoints()
        self._run(False)
        assert self.result is not None
        return self.result

    def run(self, resume: bool = False, restart: bool = False) -> Path:
        """Run the scenario; returns the results path.  ``resume``: continue from the
        checkpoint of an interrupted run (with none, a warning says that the run starts at
        cycle 0); ``restart``: discard such a checkpoint and start over (without either, a run
        refuses to start over an interrupted run's checkpoint, unless the checkpoint is its
        owner's: a study's retry continues from it)."""
        sc = self.sc
        lock = self._prepare_out_dir()
        try:
            self.ckpt = ckpt = Checkpointer(self.ckpt_path, sc.raw, self.owner, self.checkpoint_seconds)
            if ckpt.exists() and not resume:
                if ckpt.owned() and not restart:
                    resume = self.retried = True         # the study's own case, its worker lost
                elif not restart:
                    raise MasterError(f"{self.ckpt_path}: an interrupted run of '{sc.name}' left this checkpoint; "
                                      f"continue it with --resume, or start over with --restart")
                else:
                    try:
                        self.ckpt_path.unlink()
                    except OSError as exc:
                        raise MasterError(f"{self.ckpt_path}: cannot remove the checkpoint: {reason(exc)}") from None
            if resume and not ckpt.exists():
                done = " (the results of a completed run are there: they are replaced)" if self.results_path.exists() else ""
                print(f"warning: {self.ckpt_path}: no checkpoint of '{sc.name}' to resume from; the run starts at "
                      f"cycle 0{done}", file=sys.stderr, flush=True)
            if not ckpt.exists():          # streams of a run killed before its first checkpoint
                shutil.rmtree(self.spool_path, ignore_errors=True)
            path = self._run(resume)
            assert path is not None
            return path
        finally:
            lock.release()

    def _run(self, resume: bool) -> Path | None:
        sc = self.sc
        fmu = resolve_fmu(sc, self.build_dir, log=(lambda *a: print(*a, file=sys.stderr)) if self.progress else (lambda *a: None),
                          out_dir=self.out_dir)
        self.fmu = fmu
        self.fmu_sha = "" if self.memory else sha256(fmu)
        r = self._open(fmu) if self.runner is None else self._reuse(self.runner, fmu)
        self.ckpt.fmu_sha = self.fmu_sha
        self._runner, self._slots, self._gen = r, [None, None], [0, 0]     # the marks' FMU states
        self._stats_of = None
        st = None
        self.resumed_from = None
        self.ctl = self._controller()
        self._kernel = WearUpdate(self.ports.n, sc.smoothing, self.ports.circular)
        keep_ckpt = True
        try:
            if resume and self.ckpt_path.exists():
                try:
                    st = self._load_checkpoint(r)
                except FMIError as exc:
                    raise MasterError(f"{self.ckpt_path}: the FMU refused the checkpoint's state: {exc}; "
                                      f"delete the checkpoint or run with --restart") from None
                self.resumed_from = st.cycle
                if self.progress:
                    print(f"{sc.name}: resuming at cycle {st.cycle} from {self.ckpt_path}", file=sys.stderr, flush=True)
            else:
                st = RunState(depth=np.zeros(self.ports.n), pending=np.zeros(self.ports.n))
                try:
                    st.spool = (store.MemorySpool(self._streams()) if self.memory
                                else store.Spool(self.spool_path, self._streams()))
                except OSError as exc:
                    raise MasterError(f"cannot create {exc.filename or self.spool_path}: {reason(exc)}") from None
                # the start's mark: a failure before the first wear update leaves a checkpoint too
                self._hold(r, st, st.depth, st.pending, None, dict(st.spool.lengths), 0, 0.0)
                self._append_update(st, 0, 0.0)
            if self.ports.update != "reset":     # (fixed parameters: the restored state carries them)
                r.set_reals(self.depth_vrs, st.depth)
            N = sc.steps_per_cycle
            buf = np.empty((N, len(self.read_vrs)))
            tbuf = np.empty(N)
            Fn = buf[:, 0]
            # step 3 on the buffer's columns (contact angle, force, half-width, slip), in place
            wear = CycleWear(self.surface, buf[:, 1], Fn, buf[:, 2], buf[:, 3], sc.step, sc.k, sc.hardness)
            series = ["time"] + list(sc.record)
            dec = sc.decimate
            width = len(range(0, N, dec))         # values of a recorded cycle's series
            t_start = time.perf_counter()
            self.ckpt.last = t_start
            c0 = st.cycle
            total = sc.transient_cycles + sc.cycles
            ctl = self.ctl
            while st.cycle < total:
                # (adaptive) the window after the last jump only checks it
                check = sc.adaptive and ctl.finished
                r.step_record(N, self.read_vrs, buf, tbuf)
                worn = st.cycle >= sc.transient_cycles
                if worn:
                    wear.add_to(st.pending)
                # full series of every record_every-th cycle and of the last one
                recorded = st.cycle % sc.record_every == 0 or (st.cycle == total - 1 and not sc.adaptive) or check
                if recorded:      # copied into the streams' held block
                    rows = st.spool.rows(series, width)
                    rows[0] = tbuf[::dec]
                    rows[1:] = buf[::dec, 4:].T
                cyc_summary = [float(recorded), *_peak_mean(Fn)]
                st.cycle += 1
                wear_cycles = st.cycle - sc.transient_cycles
                # every update_cycles wear cycles, and the last (partial) window of a fixed factor
                due = worn and (wear_cycles % sc.update_cycles == 0 or (st.cycle >= total and not sc.adaptive))
                finished = False
                if due:
                    try:
                        cyc_summary, finished, jumped = self._update(r, st, cyc_summary)
                    except LimitExceeded as exc:
                        if self.mark is not None and self.mark["meta"]["summary"] is not None and not self.ckpt.written:
                            self._write_mark(self.mark, st)      # (of an accepted update: not the start's)
                        self.stopped = str(exc)
                        break
                    if jumped and self.ckpt.due(st.cycle >= total and not sc.adaptive):
                        self._write_mark(self.mark, st)
                self._append_summary(st, cyc_summary)
                if st.cycle == c0 + 1 and not sc.adaptive:
                    self._estimate(total - st.cycle, time.perf_counter() - t_start)
                if self.hook:
                    self.hook(self, st)
                if self.progress:
                    self._progress(st, total, c0, t_start, r.time)
                if finished:
                    break
            else:
                if sc.adaptive:      # the cap on simulated cycles came first
                    self.stopped = (f"{sc.name}: adaptive extrapolation needs more than wear.cycles = {sc.cycles} "
                                    f"simulated wear cycles (reached {ctl.done:.6g} of wear.real_cycles = "
                                    f"{sc.real_cycles:.6g} real cycles at factor {ctl.factor:.4g}); raise wear.cycles "
                                    f"or loosen wear.rtol = {sc.rtol:g}")
                    keep_ckpt = False
        except FMIError as exc:
            t = r.last_successful_time() if hasattr(r, "last_successful_time") else float("nan")
            saved = self._flush(st)
            raise MasterError(f"{sc.name}: FMU failed in cycle {st.cycle + 1 if st else 1} (last successful time "
                              f"{t:.9g} s): {exc}{saved}") from None
        except OSError as exc:          # a full disk: the file named, the checkpoint kept if it can be
            saved = self._flush(st)
            raise MasterError(f"{exc.filename or self.out_dir}: {reason(exc)}{saved}") from None
        except BaseException as exc:    # a hook's exception, Ctrl-C, a guard's error: progress kept
            saved = self._flush(st)
            if saved and hasattr(exc, "add_note"):
                exc.add_note(saved[2:])
            raise
        finally:
            if self._bar is not None:
                self._bar.close()
                self._bar = None
            self._free_slots(r)
            if self.runner is None:
                try:
                    r.terminate()
                except Exception:
                    pass
            if st is not None and st.spool is not None and not self.stopped and sys.exc_info()[0] is not None:
                st.spool.close()                  # kept on disk for --resume with the checkpoint
        if self.memory:
            self.result = self._in_memory(st)
            if self.stopped:
                raise LimitExceeded(self.stopped)
            return None
        if self.stopped:       # the series of every simulated cycle, the last accepted profile
            path = self._write(st)
            if not keep_ckpt:
                self.ckpt_path.unlink(missing_ok=True)
            if self.ckpt_path.exists():
                st.spool.close()                      # the checkpoint's streams: kept for --resume
            else:
                st.spool.remove()
            kept = f"; checkpoint of the last accepted update: {self.ckpt_path} (--resume --force goes on)" \
                if self.ckpt_path.exists() else ""
            raise LimitExceeded(f"{self.stopped}; results up to the last accepted update: {path}{kept}")
        path = self._write(st)
        self.ckpt_path.unlink(missing_ok=True)          # the results are durable: nothing to resume
        st.spool.remove()
        return path

    def _in_memory(self, st: RunState) -> dict[str, Any]:
        """A run in memory's results: the final profile, the sectors and the bearing's geometry
        (what a study reads of a case), and the per-cycle summary."""
        return {"final": st.depth.copy(), "sector_centres": self.surface.centres(),
                "radius": float(self.surface.radius), "length": float(self.surface.length),
                "summary": {n: st.spool.read(n) for n in self.SUMMARY}, "stopped": self.stopped}

    def _reuse(self, r: Any, fmu: Path) -> Any:
        """The caller's runner for this run: reset (fmi2Reset) when it ran a case before, then
        set up and initialised like a freshly opened one."""
        try:
            if getattr(r, "_wearcosim_used", False):
                r.reset()
            r._wearcosim_used = True
        except FMIError as exc:
            raise MasterError(f"{fmu}: cannot reset the FMU for the next case: {exc}") from None
        self._init(r, fmu)
        return r

    def _flush(self, st: RunState | None) -> str:
        """After a failure in the loop: the last mark's checkpoint written if it is not yet;
        what to add to the message (where it is, or why there is none)."""
        if st is None or self.mark is None:
            return ""
        return self.ckpt.flush(st.spool, lambda mark: self._write_mark(mark, st))

    def _update(self, r, st: RunState, summary):
        """Steps 4-5 of the loop at the end of a wear window: judge the last jump from the
        window's rate (adaptive: take it back and redo it smaller if rejected), jump, check the
        guards, write the profile into the FMU and record it; returns (the summary of the
        window the loop records, finished, jumped)."""
        sc, ctl = self.sc, self.ctl
        ku = self._kernel
        m = self._window(st.cycle)
        rate = ku.rate(st.pending, m)
        if ctl.pending:
            j = ctl.judge(rate, ku.errors)
            st.spool.append_scalars(self._x_names, (st.cycle - sc.transient_cycles,
                                                    ctl.done + (0 if j.accept else ctl.last_jump), j.factor, j.error,
                                                    ku.local_max, float(j.accept)))
            if not j.accept:         # take the jump back: the FMU, profile and streams of the mark
                arrays, meta = self.mark["arrays"], self.mark["meta"]
                self._restore_mark_state(r, self.mark)
                r.k = int(meta["k"])
                st.cycle, st.depth = int(meta["cycle"]), arrays["before"].copy()
                st.pending[:] = arrays["window"]
                st.spool.truncate(meta["lengths"], keep=self._x_names)
                summary = list(meta["summary"])
                m = self._window(st.cycle)
                J = ctl.redo()
            elif sc.adaptive and ctl.finished:
                return summary, True, False          # the check window: the last jump holds
            else:
                J = ctl.jump(rate, m)
        else:
            J = ctl.jump(rate, m)
        wear_cycles = st.cycle - sc.transient_cycles
        factor = J / m if sc.adaptive else sc.extrapolation
        real = ctl.done if sc.adaptive else wear_cycles * sc.extrapolation
        new, stats = ku.profile(st.depth, st.pending, factor)
        self.check_update(st.depth, new, wear_cycles, real, stats)
        lengths = dict(st.spool.lengths)
        # the profile is a new array (the mark below keeps the old one); the pending wear stays
        # the array the Archard accumulation adds to (its address prepared once): the mark
        # keeps a copy of the window
        before, window = st.depth, st.pending.copy()
        st.depth = new
        st.pending.fill(0.0)
        self._write_profile(r, st.depth)
        self._append_update(st, wear_cycles, real)
        self._hold(r, st, before, window, summary, lengths, wear_cycles, real)
        return summary, False, True

    def _window(self, cycle: int) -> int:
        """Simulated wear cycles in the update window ending after ``cycle`` cycles (the last
        window of a fixed factor may be partial)."""
        w, uc = cycle - self.sc.transient_cycles, self.sc.update_cycles
        return w - ((w - 1) // uc) * uc

    def _estimate(self, remaining: int, first: float):
        """After the first cycle: the run's duration, said for long runs."""
        eta = remaining * first
        if eta > self.long_run_seconds and (self.progress or eta > 3600):
            print(f"{self.sc.name}: {remaining + 1} cycles at {first:.3g} s per cycle: estimated duration "
                  f"{_duration(eta + first)}", file=sys.stderr, flush=True)

    def _progress(self, st, total, c0, t_start, t):
        """On a terminal a progress bar (tqdm: cycles, or real cycles of an adaptive run, with
        rate and ETA); otherwise one plain line per ~10 % of the run."""
        sc = self.sc
        if sys.stderr.isatty():
            if self._bar is None:
                from tqdm import tqdm
                self._bar = tqdm(total=sc.real_cycles if sc.adaptive else total, initial=0, unit="cycle",
                                 desc=sc.name, file=sys.stderr, leave=True, unit_scale=bool(sc.adaptive),
                                 ncols=shutil.get_terminal_size().columns)   # (a pty of width 0: 80)
                self._bar_at = 0.0 if sc.adaptive else c0
                self._bar.update(self._bar_at)
            now = self.ctl.done if sc.adaptive else st.cycle
            self._bar.update(now - self._bar_at)
            self._bar_at = now
            extra = {"peak": f"{st.depth.max() * 1e6:.4g} um"}
            if sc.adaptive:
                extra["factor"] = f"{self.ctl.factor:.4g}"
            self._bar.set_postfix(extra, refresh=False)
            return
        if sc.adaptive:            # the end is in real cycles; the factor says how fast they come
            ctl = self.ctl
            if st.cycle != c0 + 1 and int(10 * ctl.done / ctl.real_cycles) == self._tenth:
                return
            self._tenth = int(10 * ctl.done / ctl.real_cycles)
            print(f"{sc.name}: cycle {st.cycle}  real cycles {ctl.done:.4g}/{ctl.real_cycles:.4g}  "
                  f"factor {ctl.factor:.4g}  peak wear {st.depth.max() * 1e6:.4g} um", file=sys.stderr, flush=True)
            return
        if st.cycle not in (total, c0 + 1) and st.cycle % max(1, total // 10):
            return
        el = time.perf_counter() - t_start
        done = st.cycle - c0
        eta = el / done * (total - st.cycle) if done else float("nan")
        print(f"{sc.name}: cycle {st.cycle}/{total}  t = {t:.4f} s  peak wear {st.depth.max() * 1e6:.4g} um  "
              f"ETA {eta:5.1f} s", file=sys.stderr, flush=True)

    def _write(self, st: RunState) -> Path:
        import platform
        sc = self.sc
        pc = st.spool.read("profile_cycles").astype(np.int64)
        depth = st.spool.read("profiles").reshape(len(pc), -1)
        profiles = {"cycles": st.spool.read("profile_real"),
                    "simulated_cycles": pc,
                    "depth": depth,
                    "sector_centres": self.surface.centres(),
                    "final": st.depth}
        meta = {"scenario": sc.raw, "scenario_file": sc.source, "fmu": str(self.fmu), "fmu_sha256": self.fmu_sha,
                "wearcosim": __version__, "python": platform.python_version(),
                "numpy": np.__version__, "n_sectors": self.ports.n, "radius": self.surface.radius,
                "extent": self.surface.extent,
                "length": self.surface.length, "k": sc.k, "hardness": sc.hardness,
                "extrapolation": "adaptive" if sc.adaptive else sc.extrapolation,
                "real_cycles": float(pc[-1] * sc.extrapolation if not sc.adaptive else self.ctl.done),
                "period": sc.period, "step": sc.step,
                "clearance": self.clearance if self.clearance is not None else 0.0,
                "completed": not self.stopped, "stopped": self.stopped}
        try:
            units = {"time": "s", "peak_Fn": "N", "mean_Fn": "N", "max_depth": "m", "worn_volume": "m3",
                     "depth": "m", "final": "m", "sector_centres": "rad" if self.ports.circular else "m"}
            units.update({n: self.units.get(n, "") for n in sc.record})
            ctl = self.ctl
            bound = ctl.bound if ctl.bound is not None else np.zeros(self.ports.n)
            peak = float(np.max(st.depth, initial=0.0))
            extra = {"extrapolation": {
                "streams": dict(zip(self.HISTORY, self._x_names)),
                "data": {"error_bound": bound},
                "attrs": {"mode": "adaptive" if sc.adaptive else "fixed", "rtol": sc.rtol,
                          "error_estimate": float(np.max(bound, initial=0.0)),
                          "relative_error_estimate": float(np.max(bound, initial=0.0)) / peak if peak > 0 else 0.0,
                          # the same sector by sector, over the sectors above 10 % of the peak
                          "sector_error_estimate": float(np.max(bound[st.depth > 0.1 * peak] / st.depth[st.depth > 0.1 * peak]))
                          if peak > 0 else 0.0,
                          "accepted": ctl.accepted, "rejected": ctl.rejected,
                          "simulated_wear_cycles": int(pc[-1]), "real_cycles": meta["real_cycles"],
                          "note": ("sum over the judged jumps of E = J/2 |r_after - r_before| per sector (error_bound); "
                                   + ("the last jump is judged by one check window"
                                      if sc.adaptive else "a fixed factor's last jump is not judged"))}}}
            units.update({"local_error": "m", "error_bound": "m"})
            return store.write_results_streamed(self.results_path, meta, st.spool, ["time"] + list(sc.record), profiles,
                                                summary_names=list(self.SUMMARY), units=units, extra=extra)
        except OSError as exc:
            raise MasterError(f"cannot write the results {self.results_path}: {reason(exc)}") from None
