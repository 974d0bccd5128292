"""The wear co-simulation master: the six-step loop of seed 002 / SPEC section 4.

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

After a wear update a checkpoint (FMU state serialised by the FMU itself, profile,
recorded series) is written atomically (at most once per ``checkpoint_seconds`` of wall time); ``resume=True`` continues from it and gives the
same final profile, bit for bit, as an uninterrupted run.
"""
from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__
from ..fmi.runner import FMIError, open_fmu
from ..wear import reconstruction
from ..wear.archard import SectorSurface, archard_depth
from ..wear_interface import describe
from . import store
from .scenario import Scenario


class MasterError(RuntimeError):
    pass


def sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def resolve_fmu(sc: Scenario, build_dir: Path, log=print) -> Path:
    if sc.fmu_path:
        p = Path(sc.fmu_path)
        if not p.exists():
            raise MasterError(f"{sc.source}: FMU {p} does not exist")
        return p
    from ..demo import ensure_fmu
    return ensure_fmu(sc.model, build_dir, package=sc.package or None, log=log)


@dataclass
class RunState:
    cycle: int = 0                                   # cycles completed
    depth: np.ndarray = None                         # current wear profile (m)
    pending: np.ndarray = None                       # wear accumulated since the last update
    profiles: list = field(default_factory=list)     # [(cycle, depth copy)]
    series: dict = field(default_factory=dict)       # name -> list of arrays (per cycle)


class WearMaster:
    """Runs one scenario.  ``hook(master, cycle)`` is called after every cycle (like FMPy's
    ``step_finished``), e.g. for progress or to stop early by raising."""

    #: a checkpoint is written after a wear update when at least this much wall time has passed
    #: since the previous one (and after the last update): the checkpoint holds the whole
    #: recorded series, so writing it after every one of thousands of short cycles would cost
    #: O(n^2); a resumed run repeats at most these seconds of work, deterministically
    checkpoint_seconds = 1.0

    def __init__(self, sc: Scenario, out_dir, build_dir=None, progress: bool = True, hook=None):
        self.sc = sc
        self.out_dir = Path(out_dir)
        self.build_dir = Path(build_dir) if build_dir else Path(__file__).resolve().parents[3] / "fmu" / "build"
        self.progress = progress
        self.hook = hook
        self.results_path = self.out_dir / f"{sc.name}.h5"
        self.ckpt_path = self.out_dir / f"{sc.name}.ckpt"

    # ------------------------------------------------------------------ set-up
    def _open(self, fmu):
        sc = self.sc
        r = open_fmu(fmu, sc.backend, instance_name=sc.name)
        self.ports = describe(r.md, sc.prefix)
        if self.ports.update not in ("input", "tunable", "reset"):
            raise MasterError(f"{fmu}: cannot rewrite {sc.prefix}wearDepth[] (neither inputs nor parameters)")
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
        self.start_values = start
        if self.ports.update == "reset":
            # fixed parameters (e.g. OpenModelica's export): every wear update resets the FMU,
            # sets the new profile and the states read just before, and re-initialises it at the
            # current time (fmi2SetFMUstate cannot be used: it restores the old parameters too)
            self.state_names = r.state_names()
            self.state_vrs = r.vr(self.state_names)
        r.setup(0.0, None, sc.tolerance, sc.step)
        r.initialize()
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
        self.depth_vrs = r.vr(self.ports.depth_names)
        return r

    def _write_profile(self, r, depth):
        """Step 5 of the loop: the new profile into the FMU, by the strategy its interface allows."""
        if self.ports.update == "reset":
            x = r.get_reals(self.state_vrs)
            r.reinit({**self.start_values, **dict(zip(self.ports.depth_names, depth)),
                      **dict(zip(self.state_names, x))}, self.sc.tolerance)
        else:
            r.set_reals(self.depth_vrs, depth)

    # ------------------------------------------------------------------ checkpoint
    def _mark(self, r, st: RunState):
        """Everything a checkpoint needs at this wear update: the FMU's serialised state and
        the lengths of the growing lists (cheap; the file is written by ``_write_mark``)."""
        s = r.get_state()
        try:
            blob = np.frombuffer(r.serialize_state(s), dtype=np.uint8).copy()
        finally:
            r.free_state(s)
        return {"blob": blob, "cycle": st.cycle, "k": r.k, "depth": st.depth.copy(),
                "pending": st.pending.copy(), "n_profiles": len(st.profiles),
                "n_chunks": {k: len(v) for k, v in st.series.items()}}

    def _write_mark(self, mark, st: RunState):
        prof = st.profiles[:mark["n_profiles"]]
        arrays = {"depth": mark["depth"], "pending": mark["pending"], "fmu_state": mark["blob"],
                  "profile_cycles": np.array([c for c, _ in prof], dtype=np.int64),
                  "profiles": np.array([p for _, p in prof]).reshape(len(prof), -1)}
        for k, chunks in st.series.items():
            chunks = chunks[:mark["n_chunks"][k]]
            arrays["series/" + k] = np.concatenate(chunks) if chunks else np.zeros(0)
        meta = {"cycle": mark["cycle"], "k": mark["k"], "scenario": self.sc.raw, "fmu_sha256": self.fmu_sha}
        store.save_checkpoint(self.ckpt_path, arrays, meta)

    def _load_checkpoint(self, r) -> RunState:
        arrays, meta = store.load_checkpoint(self.ckpt_path)
        if meta.get("fmu_sha256") != self.fmu_sha:
            raise MasterError(f"{self.ckpt_path}: checkpoint was made with another FMU; delete it or run without --resume")
        if meta.get("scenario") != self.sc.raw:
            raise MasterError(f"{self.ckpt_path}: checkpoint belongs to a different scenario")
        s = r.deserialize_state(arrays["fmu_state"].tobytes())
        try:
            r.set_state(s)
        finally:
            r.free_state(s)
        r.k = int(meta["k"])
        st = RunState(cycle=int(meta["cycle"]), depth=arrays["depth"].copy(), pending=arrays["pending"].copy())
        st.profiles = [(int(c), p.copy()) for c, p in zip(arrays["profile_cycles"], arrays["profiles"])]
        for k, v in arrays.items():
            if k.startswith("series/"):
                st.series[k[7:]] = [v]
        return st

    # ------------------------------------------------------------------ the loop
    def run(self, resume: bool = False) -> Path:
        sc = self.sc
        self.out_dir.mkdir(parents=True, exist_ok=True)
        fmu = resolve_fmu(sc, self.build_dir, log=(lambda *a: print(*a, file=sys.stderr)) if self.progress else (lambda *a: None))
        self.fmu = fmu
        self.fmu_sha = sha256(fmu)
        r = self._open(fmu)
        n_rec = len(sc.record)
        try:
            if resume and self.ckpt_path.exists():
                st = self._load_checkpoint(r)
            else:
                st = RunState(depth=np.zeros(self.ports.n), pending=np.zeros(self.ports.n))
                st.profiles = [(0, st.depth.copy())]
                st.series = {k: [] for k in ["time"] + list(sc.record)}
            if self.ports.update != "reset":     # (fixed parameters: the restored state carries them)
                r.set_reals(self.depth_vrs, st.depth)
            N = sc.steps_per_cycle
            buf = np.empty((N, len(self.read_vrs)))
            tbuf = np.empty(N)
            t_start = time.perf_counter()
            last_ckpt = t_start
            mark, written = None, True
            c0 = st.cycle
            total = sc.transient_cycles + sc.cycles
            while st.cycle < total:
                r.step_record(N, self.read_vrs, buf, tbuf)
                Fn, th, b, vs = buf[:, 0], buf[:, 1], buf[:, 2], buf[:, 3]
                worn = st.cycle >= sc.transient_cycles
                if worn:
                    st.pending += archard_depth(self.surface, th, Fn, b, vs, sc.step, sc.k, sc.hardness)
                sel = slice(None, None, sc.decimate)
                st.series["time"].append(tbuf[sel].copy())
                for i, name in enumerate(sc.record):
                    st.series[name].append(buf[sel, 4 + i].copy())
                st.cycle += 1
                wear_cycles = st.cycle - sc.transient_cycles
                if worn and wear_cycles % sc.update_cycles == 0:
                    st.depth = reconstruction.update_profile(st.depth, st.pending, sc.extrapolation, sc.smoothing)
                    st.pending = np.zeros_like(st.pending)
                    self._write_profile(r, st.depth)
                    st.profiles.append((wear_cycles, st.depth.copy()))
                    mark = self._mark(r, st)
                    written = False
                    now = time.perf_counter()
                    if now - last_ckpt >= self.checkpoint_seconds or st.cycle >= total:
                        self._write_mark(mark, st)
                        last_ckpt, written = now, True
                if self.hook:
                    self.hook(self, st)
                if self.progress:
                    self._progress(st, total, c0, t_start, r.time)
            if self.progress and sys.stderr.isatty():
                print(file=sys.stderr)
        except FMIError as exc:
            t = r.last_successful_time() if hasattr(r, "last_successful_time") else float("nan")
            saved = ""
            if mark is not None and not written:      # flush the last wear update's checkpoint
                self._write_mark(mark, st)
            if self.ckpt_path.exists():
                saved = f"; checkpoint of the last wear update (cycle {mark['cycle'] if mark else '?'}): {self.ckpt_path}"
            raise MasterError(f"{sc.name}: FMU failed in cycle {st.cycle + 1} (last successful time {t:.9g} s): "
                              f"{exc}{saved}") from None
        finally:
            try:
                r.terminate()
            except Exception:
                pass
        return self._write(st)

    def _progress(self, st, total, c0, t_start, t):
        """Progress line: rewritten in place on a terminal, one line per ~10 % otherwise."""
        tty = sys.stderr.isatty()
        if not tty and st.cycle not in (total, c0 + 1) and st.cycle % max(1, total // 10):
            return
        el = time.perf_counter() - t_start
        done = st.cycle - c0
        eta = el / done * (total - st.cycle) if done else float("nan")
        line = (f"{self.sc.name}: cycle {st.cycle}/{total}  t = {t:.4f} s  "
                f"peak wear {st.depth.max() * 1e6:.4g} um  ETA {eta:5.1f} s")
        print(("\r" + line) if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)

    def _write(self, st: RunState) -> Path:
        import platform
        sc = self.sc
        series = {k: (np.concatenate(v) if v else np.zeros(0)) for k, v in st.series.items()}
        profiles = {"cycles": np.array([c for c, _ in st.profiles]) * sc.extrapolation,
                    "simulated_cycles": np.array([c for c, _ in st.profiles]),
                    "depth": np.array([p for _, p in st.profiles]),
                    "sector_centres": self.surface.centres(),
                    "final": st.depth}
        meta = {"scenario": sc.raw, "scenario_file": sc.source, "fmu": str(self.fmu), "fmu_sha256": self.fmu_sha,
                "wearcosim": __version__, "python": platform.python_version(),
                "numpy": np.__version__, "n_sectors": self.ports.n, "radius": self.surface.radius,
                "extent": self.surface.extent,
                "length": self.surface.length, "k": sc.k, "hardness": sc.hardness,
                "extrapolation": sc.extrapolation, "period": sc.period, "step": sc.step,
                "clearance": self.clearance if self.clearance is not None else 0.0}
        return store.write_results(self.results_path, meta, series, profiles)
