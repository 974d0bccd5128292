"""The Python API: build FMUs, run wear co-simulations, read and plot their results.

Everything the command line does, from a script or a notebook::

    import wearcosim as wc

    wc.Scenario.examples()     # the scenarios that come with the package, by name
    sc = wc.Scenario.example("demo_hybrid_dry_32pi").replace(wear={"cycles": 2})
    res = wc.run(sc, out="results")      # builds the FMU the scenario names into ./fmu/build
    res.final                  # worn depth per sector after the run (m)
    res.to_xarray()            # xarray.Dataset with named dimensions and units
                               # (pip install "wearcosim[xarray]")
    res.plot()                 # the run's figures beside the results file
    fmu = wc.build("WearCosim.Examples.HybridMechanism.DrySpeed32pi", out="fmus")

``Scenario.example(name)`` works from any folder, with a checkout or an installed wheel
(which carries the ``cosim/`` scenarios); ``Scenario.load(path)`` reads a file of one's own.

Errors a user can cause raise :class:`wearcosim.master.scenario.ScenarioError`,
:class:`wearcosim.master.loop.MasterError` (a physical guard: its subclass
``LimitExceeded``) or :class:`wearcosim.export.errors.ExportError`, each with one line that
names the file and the key or variable.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from .master.scenario import Scenario

PathLike = str | os.PathLike


def _example(cls, name: str) -> Scenario:
    """The packaged scenario ``name`` (one of :meth:`Scenario.examples`, e.g.
    ``"demo_hybrid_dry_32pi"`` or ``"seed/speed_4pi"``), from any folder: the checkout's
    ``cosim/`` or the installed wheel's copy.  Relative paths in it are taken from its folder;
    a model it names is built on demand into ``./fmu/build`` (``build_dir`` of :func:`run`).
    An unknown name raises ScenarioError with the close matches."""
    from .resources import example_path
    return cls.load(example_path(name))


def _examples() -> list[str]:
    """Names of the packaged scenarios (for :meth:`Scenario.example`), sorted."""
    from .resources import examples
    return examples()


# the packaged scenarios, reachable from the class users already have (wc.Scenario)
Scenario.example = classmethod(_example)          # type: ignore[attr-defined]
Scenario.examples = staticmethod(_examples)       # type: ignore[attr-defined]

__all__ = ["Results", "Scenario", "build", "run", "study", "load_results"]


def build(model: str, out: PathLike = ".", *, file: PathLike | None = None, package: PathLike | None = None,
          expose_protected: bool = False) -> Path:
    """Build the FMU of Modelica class ``model`` into folder ``out``; returns its absolute path.

    ``file``: a ``.mo`` file that holds the class (a model outside the library);
    ``package``: a library folder other than the bundled WearCosim; ``expose_protected``:
    protected parameters as FMU variables too.  Libraries the model uses are found on
    ``MODELICAPATH``."""
    from .export.build import DEFAULT_PACKAGE, build_fmu
    r = build_fmu(model, Path(package) if package else DEFAULT_PACKAGE, Path(out),
                  path=Path(file) if file else None, expose_protected=expose_protected)
    return Path(r.fmu).resolve()


def _scenario(scenario: "Scenario | PathLike | Mapping[str, Any]") -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(dict(scenario))
    return Scenario.load(scenario)


def run(scenario: "Scenario | PathLike | Mapping[str, Any]", out: PathLike = "results", *, progress: bool = False,
        resume: bool = False, restart: bool = False, force: bool | None = None, build_dir: PathLike | None = None,
        hook: Callable | None = None, checkpoint_seconds: float | None = None) -> "Results":
    """Run a wear co-simulation; returns its :class:`Results` (``<out>/<name>.h5``).

    ``scenario``: a :class:`Scenario`, a TOML path or a dict shaped like the TOML file.
    ``resume``/``restart``: continue or discard an interrupted run's checkpoint (``resume``
    without one warns that the run starts at cycle 0);
    ``force``: go on past the physical guards (warns once); ``build_dir``: where FMUs named
    by model are built (default: ``$WEARCOSIM_BUILD_DIR``, else ``fmu/build`` below
    ``$WEARCOSIM_HOME`` or the current folder); ``hook(master, state)``:
    called after every cycle (an exception it raises stops the run and leaves the
    checkpoint, named in the exception's note, that ``resume=True`` continues from);
    ``progress``: the progress line on stderr."""
    from .master.loop import WearMaster
    m = WearMaster(_scenario(scenario), Path(out), build_dir=build_dir, progress=progress, hook=hook, force=force)
    if checkpoint_seconds is not None:
        m.checkpoint_seconds = float(checkpoint_seconds)
    return Results(m.run(resume=resume, restart=restart))


def study(scenarios: Iterable["Scenario | PathLike"], out: PathLike = "results", *, workers: int = 2,
          title: str = "study", scheduler: Any = None, checkpoint_seconds: float | None = None) -> list["Results"]:
    """Run several scenarios in parallel (``workers`` local processes, or a Dask cluster at
    ``scheduler``: an address or a ``distributed.Client``) and write the comparison report
    (``<out>/<title>.md``, ``.csv`` and figures); returns their results in the order given,
    a list whose ``retried`` names the cases run again because their worker was lost (they
    continue from their last checkpoint: the results are the same).  :class:`Scenario`
    objects are written as TOML files into ``<out>/.scenarios/`` for the workers."""
    from .studies.runner import StudyResults, run_all, write_report
    out = Path(out)
    paths = []
    for s in scenarios:
        if isinstance(s, Scenario):
            paths.append(_write_scenario(s, out / ".scenarios"))
        else:
            paths.append(Path(s))
    done = run_all(paths, out, workers=workers, scheduler=scheduler, checkpoint_seconds=checkpoint_seconds)
    write_report(done, out, title)
    return StudyResults([Results(Path(p)) for p in done], done.retried, done.resumed_from)


def _write_scenario(sc: Scenario, folder: Path) -> Path:
    """``sc`` as a TOML file in ``folder`` (relative paths made absolute, so the file works
    from any folder)."""
    import copy

    import tomli_w

    from .atomic import write_bytes
    data = copy.deepcopy(sc.raw)
    if sc.fmu_path:
        data.setdefault("fmu", {})["path"] = sc.fmu_path
    if sc.system_file:
        data.setdefault("system", {})["file"] = sc.system_file
    data["name"] = sc.name
    path = folder / f"{sc.name}.toml"
    write_bytes(path, tomli_w.dumps(data).encode())
    return path


def load_results(path: PathLike) -> "Results":
    """The results of a finished (or stopped) run."""
    return Results(Path(path))


@dataclass
class Results:
    """A results file (``<out>/<name>.h5``) read into NumPy arrays.

    ``meta``: the run's facts (scenario, FMU and its SHA-256, versions, k, H, clearance,
    ``completed``/``stopped``); ``series``: the recorded signals and ``time`` (s);
    ``wear``: ``depth`` (profiles x sectors, m), ``cycles`` (real cycles of each profile),
    ``simulated_cycles``, ``sector_centres`` (rad, or m along a profile), ``final``;
    ``summary``: one value per simulated cycle (``peak_Fn``, ``mean_Fn``, ``max_depth``,
    ``worn_volume``; empty for files of older layouts); ``extrapolation``: the factor
    history and error estimate (empty for older files)."""
    path: Path
    meta: dict = field(init=False)
    series: dict = field(init=False)
    wear: dict = field(init=False)
    summary: dict = field(init=False)
    extrapolation: dict = field(init=False)

    def __post_init__(self):
        from .master import store
        self.path = Path(self.path)
        self.meta, self.series, self.wear = store.read_results(self.path)
        self.summary = store.read_summary(self.path)
        self.extrapolation = store.read_extrapolation(self.path)

    @property
    def final(self) -> np.ndarray:
        """Worn depth per sector at the end of the run (m)."""
        return np.asarray(self.wear["final"])

    @property
    def sector_centres(self) -> np.ndarray:
        """Sector centres: angles (rad) on a bearing or stator, lengths (m) along a flank."""
        return np.asarray(self.wear["sector_centres"])

    @property
    def real_cycles(self) -> float:
        """The real cycles the final profile stands for."""
        return float(np.asarray(self.wear["cycles"])[-1])

    @property
    def completed(self) -> bool:
        return bool(self.meta.get("completed", True))

    def to_xarray(self) -> Any:
        """An ``xarray.Dataset``: ``depth(cycles, sector)``, ``final(sector)``, the series
        over ``time`` and the summaries over ``cycle``, with ``units`` attributes; the run's
        facts as dataset attributes.  Needs the ``xarray`` extra
        (``pip install "wearcosim[xarray]"``: xarray, and h5netcdf for ``to_netcdf``)."""
        try:
            import xarray as xr
        except ImportError:
            raise ImportError("Results.to_xarray needs xarray, which a plain install of wearcosim does not "
                              "include: pip install \"wearcosim[xarray]\" (or: pip install xarray h5netcdf)") from None
        import h5py
        with h5py.File(self.path, "r") as f:          # the units attributes, read in one pass
            unit_of = {(g, k): str(f[g][k].attrs["units"]) for g in ("series", "summary") if g in f
                       for k in f[g] if "units" in f[g][k].attrs}

        def units(group, name):
            u = unit_of.get((group, name))
            return {"units": u} if u else {}
        sector_units = "m" if float(self.meta.get("extent", 0) or 0) > 0 else "rad"
        coords = {"cycles": ("cycles", np.asarray(self.wear["cycles"]), {"units": "1", "long_name": "real cycles"}),
                  "sector": ("sector", self.sector_centres, {"units": sector_units, "long_name": "sector centre"})}
        data = {"depth": (("cycles", "sector"), np.asarray(self.wear["depth"]), {"units": "m"}),
                "final": (("sector",), self.final, {"units": "m"}),
                "simulated_cycles": (("cycles",), np.asarray(self.wear["simulated_cycles"]), {"units": "1"})}
        t = self.series.get("time")
        if t is not None and len(t):
            coords["time"] = ("time", np.asarray(t), {"units": "s"})
            for k, v in self.series.items():
                if k != "time" and np.shape(v) == np.shape(t):
                    data[k] = (("time",), np.asarray(v), units("series", k))
        if self.summary:
            coords["cycle"] = ("cycle", np.asarray(self.summary["cycle"]), {"long_name": "simulated cycle"})
            for k, v in self.summary.items():
                if k != "cycle":
                    data[f"summary_{k}"] = (("cycle",), np.asarray(v), units("summary", k))
        attrs = {k: (v if isinstance(v, (str, int, float)) else str(v)) for k, v in self.meta.items()
                 if not isinstance(v, (dict, list))}
        return xr.Dataset(data, coords=coords, attrs=attrs)

    def plot(self, out_dir: PathLike | None = None) -> list[Path]:
        """The run's figures (orbit, wear over angle and cycles, profiles, final profile,
        extrapolation history) as PNG and PDF in ``out_dir`` (default: beside the file)."""
        from .plots.wear import plot_results
        return plot_results(self.path, None if out_dir is None else Path(out_dir))

    def __repr__(self) -> str:
        peak = float(np.max(self.final)) if self.final.size else float("nan")
        return (f"Results({str(self.path)!r}: {len(self.wear['cycles']) - 1} updates, "
                f"{self.real_cycles:.4g} real cycles, peak wear {peak * 1e6:.4g} um"
                f"{'' if self.completed else ', stopped'})")
