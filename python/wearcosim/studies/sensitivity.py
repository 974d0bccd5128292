"""Global sensitivity analysis of wear predictions: Morris screening, then Sobol indices on the
parameters that matter, then a map of where the seed's trends hold.

A study is described by a TOML file (``cosim/sensitivity/hybrid_dry.toml``)::

    name = "hybrid_dry"
    [scenario]                     # the base wear run, shaped like a scenario file
    ...
    [parameters.gPlane]            # one table per uncertain parameter
    keys = ["start.data.gPlane"]   # scenario keys it sets: <table>.<name>; start names are FMU variables
    low = 0.0
    high = 9.81
    nominal = 0.0                  # its value when it is not varied
    log = false                    # true: sampled uniformly in log10
    label = "gravity in plane g_p [m/s^2]"
    [morris]                       # trajectories, levels, seed
    [sobol]                        # n (base sample), top (parameters kept), second_order, resamples, seed
    [trends]                       # grid, speed/clearance ladders, lubrication pair

Every case is one short wear run of the base scenario with the parameters set; the runs go
through :func:`wearcosim.studies.runner.run_many`: a Dask cluster (a ``LocalCluster`` by
default, or a scheduler address) or local processes.  The FMU is shipped to the workers as
bytes and the final wear profiles come back to the client, so the same command runs on a
multi-machine cluster whose workers do not see the client's disk.

Outputs of each case (from the final wear profile):

* ``peak_um``: the deepest wear (um);
* ``peak_over_mean``: peak / mean depth over the sectors (1: uniform wear);
* ``peak_cos``, ``peak_sin``: the unit vector of the peak's angle (the angle itself is a
  circular quantity: 359 deg and 1 deg are 2 deg apart, and its variance is not defined
  across the cut); their Sobol indices are also combined into one index of the angle as a
  2-D output (variance-weighted, the generalised index of Gamboa et al. 2014), ``peak_angle``;
* ``volume_mm3``: worn volume (mm^3).

The peak angle is the centre of the deepest sector refined by a parabola through it and its
two neighbours (sub-sector resolution, so that it varies smoothly with the parameters).
"""
from __future__ import annotations

import copy
import csv
import io
import json
import math
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ..master.scenario import SCHEMA, ScenarioError, from_dict
from ..progress import say as progress_say

#: the outputs of a case, in the column order of every table
OUTPUTS = ("peak_um", "peak_over_mean", "peak_cos", "peak_sin", "volume_mm3")
#: their labels in the report
OUTPUT_LABELS = {"peak_um": "peak depth [um]", "peak_over_mean": "peak/mean", "peak_cos": "cos(peak angle)",
                 "peak_sin": "sin(peak angle)", "volume_mm3": "worn volume [mm^3]",
                 "peak_angle": "peak angle (cos, sin)"}
#: the Sobol outputs of the report's figure: the angle as its 2-D index
SOBOL_SHOWN = ("peak_um", "peak_over_mean", "peak_angle", "volume_mm3")
TRENDS = ("speed_deeper", "speed_uniform", "clearance_deeper", "lubricated_less")
TREND_LABELS = {"speed_deeper": "deeper wear with higher speed", "speed_uniform": "more uniform with speed",
                "clearance_deeper": "larger clearance, deeper wear", "lubricated_less": "lubricated much less"}
#: the number each trend is judged on, and what it is
TREND_NUMBERS = {"speed_deeper": ("speed_peak_ratio", "peak, fastest / slowest"),
                 "speed_uniform": ("speed_uniformity_ratio", "peak/mean, fastest / slowest"),
                 "clearance_deeper": ("clearance_peak_ratio", "peak, largest / smallest clearance"),
                 "lubricated_less": ("lubricated_over_dry", "peak, lubricated / dry")}
TABLES = ("start", "wear", "run")


class SensitivityError(ScenarioError):
    """A wrong sensitivity study file (one line naming the file and the key)."""


@dataclass
class Parameter:
    """One uncertain parameter: the scenario keys it sets, its range and nominal value."""
    name: str
    keys: tuple
    low: float
    high: float
    nominal: float
    log: bool = False
    label: str = ""

    @property
    def bounds(self) -> list[float]:
        """The SALib bounds: the range, in log10 when sampled in log."""
        return [math.log10(self.low), math.log10(self.high)] if self.log else [self.low, self.high]

    def physical(self, x: np.ndarray | float) -> np.ndarray:
        """Sampled values (SALib space) to the parameter's own values."""
        x = np.asarray(x, dtype=float)
        return 10.0 ** x if self.log else x


@dataclass
class Spec:
    """A sensitivity study: base scenario, parameters, and the settings of its three stages."""
    source: str
    name: str
    description: str
    base: dict
    parameters: list
    morris: dict = field(default_factory=dict)
    sobol: dict = field(default_factory=dict)
    trends: dict = field(default_factory=dict)
    batch: int = 8

    def parameter(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise SensitivityError(f"{self.source}: no parameter {name!r} (known: "
                               f"{', '.join(p.name for p in self.parameters)})")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.parameters]


def _num(v, where: str, src: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise SensitivityError(f"{src}: '{where}' must be a finite number, got {v!r}")
    return float(v)


def _int(d: Mapping, key: str, default: int, where: str, src: str, least: int = 1) -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < least:
        raise SensitivityError(f"{src}: '{where}.{key}' must be an integer >= {least}, got {v!r}")
    return int(v)


def _check_key(key: str, where: str, src: str):
    table, _, name = key.partition(".")
    if table not in TABLES or not name:
        raise SensitivityError(f"{src}: '{where}': key {key!r} must be <table>.<name> with table one of "
                               f"{', '.join(TABLES)} (e.g. 'start.data.gPlane', 'wear.omega')")
    if table != "start":
        typ = SCHEMA[table].get(name)
        if typ not in (float, int) and not (isinstance(typ, tuple) and typ[0] is float):
            raise SensitivityError(f"{src}: '{where}': {key!r} is not a numeric key of [{table}] "
                                   f"(known: {', '.join(k for k, t in SCHEMA[table].items() if t in (float, int))})")


def load_spec(path: str | Path) -> Spec:
    """The study of a TOML file, checked (a wrong key, range or name raises
    :class:`SensitivityError` naming the file and the key)."""
    from ..master.scenario import read_toml
    path = Path(path)
    return spec_from_dict(read_toml(path, "sensitivity study", SensitivityError), str(path), path.parent)


def spec_from_dict(data: Mapping[str, Any], source: str = "<sensitivity>", base: str | Path = ".") -> Spec:
    """The study of a dict shaped like the TOML file (relative paths: from ``base``)."""
    src = source
    known = {"name", "description", "scenario", "parameters", "morris", "sobol", "trends", "batch"}
    for k in data:
        if k not in known:
            raise SensitivityError(f"{src}: unknown key '{k}' (known here: {', '.join(sorted(known))})")
    sc = data.get("scenario")
    if isinstance(sc, str):
        p = Path(base) / sc
        try:
            sc = tomllib.loads(p.read_text())
        except FileNotFoundError:
            raise SensitivityError(f"{src}: 'scenario': no such scenario file {p}") from None
        scenario_base = p.parent
    elif isinstance(sc, dict):
        scenario_base = Path(base)
    else:
        raise SensitivityError(f"{src}: needs 'scenario' (a table [scenario] or the path of a scenario file)")
    sc = copy.deepcopy(dict(sc))
    if sc.get("fmu", {}).get("path"):
        sc["fmu"]["path"] = str((scenario_base / sc["fmu"]["path"]).resolve())
    if "system" in sc:
        raise SensitivityError(f"{src}: the base scenario must name an FMU ([fmu]), not a [system]")
    from_dict(sc, f"{src} [scenario]", scenario_base)          # the base run must be valid itself
    params = data.get("parameters")
    if not isinstance(params, dict) or len(params) < 2:
        raise SensitivityError(f"{src}: needs at least two [parameters.<name>] tables")
    plist = []
    for name, p in params.items():
        where = f"parameters.{name}"
        if not isinstance(p, dict):
            raise SensitivityError(f"{src}: '{where}' must be a table")
        for k in p:
            if k not in ("keys", "low", "high", "nominal", "log", "label"):
                raise SensitivityError(f"{src}: unknown key '{where}.{k}' (known here: high, keys, label, log, "
                                       f"low, nominal)")
        keys = p.get("keys")
        if isinstance(keys, str):
            keys = [keys]
        if not keys or not all(isinstance(k, str) for k in keys):
            raise SensitivityError(f"{src}: '{where}.keys' must name the scenario keys it sets, e.g. "
                                   f"[\"start.data.gPlane\"]")
        for k in keys:
            _check_key(k, f"{where}.keys", src)
        for k in ("low", "high", "nominal"):
            if k not in p:
                raise SensitivityError(f"{src}: missing key '{where}.{k}'")
        low, high = _num(p["low"], f"{where}.low", src), _num(p["high"], f"{where}.high", src)
        nominal = _num(p["nominal"], f"{where}.nominal", src)
        log = p.get("log", False)
        if not isinstance(log, bool):
            raise SensitivityError(f"{src}: '{where}.log' must be true or false, got {log!r}")
        if not low < high:
            raise SensitivityError(f"{src}: '{where}': low ({low:g}) must be below high ({high:g})")
        if log and low <= 0:
            raise SensitivityError(f"{src}: '{where}': a log-sampled range must be positive, got low = {low:g}")
        if not low <= nominal <= high:
            raise SensitivityError(f"{src}: '{where}.nominal' ({nominal:g}) is outside [{low:g}, {high:g}]")
        plist.append(Parameter(name, tuple(keys), low, high, nominal, log, str(p.get("label", name))))
    morris = dict(data.get("morris", {}))
    sobol = dict(data.get("sobol", {}))
    trends = dict(data.get("trends", {}))
    m = {"trajectories": _int(morris, "trajectories", 10, "morris", src, 2),
         "levels": _int(morris, "levels", 4, "morris", src, 2), "seed": _int(morris, "seed", 21, "morris", src, 0)}
    s = {"n": _int(sobol, "n", 64, "sobol", src, 2), "top": _int(sobol, "top", 4, "sobol", src, 2),
         "resamples": _int(sobol, "resamples", 1000, "sobol", src, 10), "seed": _int(sobol, "seed", 21, "sobol", src, 0),
         "second_order": bool(sobol.get("second_order", True))}
    if s["n"] & (s["n"] - 1):
        raise SensitivityError(f"{src}: 'sobol.n' must be a power of 2 (Sobol' sequence), got {s['n']}")
    if s["top"] > len(plist):
        raise SensitivityError(f"{src}: 'sobol.top' ({s['top']}) exceeds the {len(plist)} parameters")
    spec = Spec(source=src, name=str(data.get("name", "sensitivity")), description=str(data.get("description", "")),
                base=sc, parameters=plist, morris=m, sobol=s, batch=_int(data, "batch", 8, "batch", src, 1))
    if trends:
        spec.trends = _trends(trends, spec, src)
    return spec


def _trends(t: dict, spec: Spec, src: str) -> dict:
    out = {"grid": _int(t, "grid", 5, "trends", src, 2)}
    for role in ("speed", "clearance"):
        pname = t.get(f"{role}_parameter", role)
        spec.parameter(pname)
        vals = t.get(f"{role}_values")
        if not isinstance(vals, list) or len(vals) < 2:
            raise SensitivityError(f"{src}: 'trends.{role}_values' must list at least two values of "
                                   f"parameter {pname!r}")
        out[f"{role}_parameter"] = pname
        out[f"{role}_values"] = [_num(v, f"trends.{role}_values", src) for v in vals]
    lub = t.get("lubrication")
    if lub is not None:
        if not isinstance(lub, dict) or not isinstance(lub.get("dry"), dict) or not isinstance(lub.get("lubricated"), dict):
            raise SensitivityError(f"{src}: 'trends.lubrication' needs tables 'dry' and 'lubricated' of scenario keys")
        for side in ("dry", "lubricated"):
            for k, v in lub[side].items():
                _check_key(k, f"trends.lubrication.{side}", src)
                _num(v, f"trends.lubrication.{side}.{k}", src)
        much = _num(lub.get("much_less", 0.1), "trends.lubrication.much_less", src)
        out["lubrication"] = {"dry": dict(lub["dry"]), "lubricated": dict(lub["lubricated"]), "much_less": much}
    for k in t:
        if k not in ("grid", "speed_parameter", "speed_values", "clearance_parameter", "clearance_values", "lubrication"):
            raise SensitivityError(f"{src}: unknown key 'trends.{k}'")
    return out


# ------------------------------------------------------------------------------------------------ the FMU

def spec_fmu(spec: Spec, build_dir: str | Path | None = None) -> bytes:
    """The bytes of the base scenario's FMU (built on demand, like ``wearcosim run``)."""
    from ..master.loop import resolve_fmu
    from ..resources import build_dir as default_build_dir
    sc = from_dict(spec.base, f"{spec.source} [scenario]")
    return resolve_fmu(sc, Path(build_dir) if build_dir else default_build_dir()).read_bytes()


def check_parameters(spec: Spec, fmu: bytes) -> None:
    """Every ``start.`` key of the study (parameters, lubrication pair) names a parameter of the
    FMU; else :class:`SensitivityError` naming it."""
    import xml.etree.ElementTree as ET
    import zipfile
    with zipfile.ZipFile(io.BytesIO(fmu)) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    settable = {v.get("name") for v in root.iter("ScalarVariable")
                if v.get("causality") in ("parameter", "input") or v.get("initial") in ("exact", "approx")}
    where = [(f"parameters.{p.name}.keys", k) for p in spec.parameters for k in p.keys]
    for side in ("dry", "lubricated"):
        where += [(f"trends.lubrication.{side}", k) for k in spec.trends.get("lubrication", {}).get(side, {})]
    for w, k in where:
        table, _, name = k.partition(".")
        if table == "start" and name not in settable:
            raise SensitivityError(f"{spec.source}: '{w}': {name!r} is not a parameter of the FMU "
                                   f"({root.get('modelName')})")


# ------------------------------------------------------------------------------------------------ cases

def _set(data: dict, key: str, value: float):
    table, _, name = key.partition(".")
    data.setdefault(table, {})
    v = float(value)
    if table != "start" and SCHEMA[table].get(name) is int:
        v = int(round(v))
    data[table][name] = v


def case(spec: Spec, values: Mapping[str, float], name: str, extra: Mapping[str, float] | None = None) -> dict:
    """The scenario dict of one case: the base run, every parameter at its nominal value
    except those in ``values`` (their own units), then the scenario keys of ``extra``."""
    d = copy.deepcopy(spec.base)
    for p in spec.parameters:
        v = values.get(p.name, p.nominal)
        for k in p.keys:
            _set(d, k, v)
    for k, v in (extra or {}).items():
        _set(d, k, v)
    d["name"] = name
    return d


def case_outputs(result: Mapping[str, Any]) -> dict:
    """The outputs (:data:`OUTPUTS`, plus ``peak_angle_deg``) of one case's compact result."""
    d = np.asarray(result["final"], dtype=float)
    n = d.size
    k = int(np.argmax(d))
    peak, mean = float(d[k]), float(d.mean())
    theta = np.asarray(result["sector_centres"], dtype=float)
    dm, dp = d[(k - 1) % n], d[(k + 1) % n]
    curv = dm - 2 * peak + dp
    off = float(np.clip(0.5 * (dm - dp) / curv, -0.5, 0.5)) if curv < 0 else 0.0
    ang = float(theta[k] + off * 2 * np.pi / n)
    arc = 2 * np.pi * result["radius"] / n
    return {"peak_um": peak * 1e6, "peak_over_mean": peak / mean if mean > 0 else float("nan"),
            "peak_cos": math.cos(ang), "peak_sin": math.sin(ang),
            "volume_mm3": float(d.sum() * arc * result["length"] * 1e9),
            "peak_angle_deg": float(np.degrees(ang) % 360.0)}


Evaluator = Callable[[list], list]


def evaluator(fmu: bytes, workers: int = 2, scheduler: Any = None, batch: int = 8,
              log: Callable[[str], Any] | None = None) -> Evaluator:
    """A function running a list of case dicts through the study runner (Dask ``scheduler``
    or ``workers`` local processes) and returning the outputs of each case, in order; a case
    the master stopped raises :class:`wearcosim.master.loop.MasterError` naming it."""
    from ..master.loop import MasterError
    from .runner import run_many

    def run(cases: list) -> list:
        res = run_many(cases, fmu, workers=workers, scheduler=scheduler, batch=batch, log=log)
        bad = [r for r in res if r.get("error")]
        if bad:
            raise MasterError(f"{len(bad)} of {len(res)} cases failed; first: {bad[0]['name']}: {bad[0]['error']}")
        return [case_outputs(r) for r in res]
    return run


def _matrix(outs: Sequence[Mapping[str, float]]) -> np.ndarray:
    return np.array([[o[k] for k in OUTPUTS] for o in outs], dtype=float)


# ------------------------------------------------------------------------------------------------ stages

@dataclass
class MorrisResult:
    """Morris screening: samples (SALib space and own units), outputs, and per output the
    indices ``mu_star``, ``mu_star_conf``, ``mu`` and ``sigma`` (one value per parameter)."""
    names: list
    X: np.ndarray
    values: np.ndarray
    Y: np.ndarray
    indices: dict
    importance: np.ndarray
    trajectories: int
    levels: int


def problem(spec: Spec, names: Sequence[str]) -> dict:
    """The SALib problem of the named parameters."""
    ps = [spec.parameter(n) for n in names]
    return {"num_vars": len(ps), "names": [p.name for p in ps], "bounds": [p.bounds for p in ps]}


def morris_stage(spec: Spec, run: Evaluator, trajectories: int | None = None) -> MorrisResult:
    """Morris screening of every parameter (``trajectories`` x (k + 1) runs)."""
    from SALib.sample import morris as morris_sample
    r = int(trajectories or spec.morris["trajectories"])
    levels, seed = spec.morris["levels"], spec.morris["seed"]
    prob = problem(spec, spec.names)
    X = morris_sample.sample(prob, r, num_levels=levels, seed=seed)
    vals = np.column_stack([p.physical(X[:, i]) for i, p in enumerate(spec.parameters)])
    Y = _matrix(run([case(spec, dict(zip(spec.names, row)), f"morris{i:05d}") for i, row in enumerate(vals)]))
    _finite(Y, "Morris")
    idx = analyze_morris(prob, X, Y, levels, seed)
    return MorrisResult(spec.names, X, vals, Y, idx, screening_importance(idx, Y), r, levels)


def analyze_morris(prob: dict, X: np.ndarray, Y: np.ndarray, levels: int, seed: int) -> dict:
    """SALib's Morris analysis of every output column of ``Y`` (:data:`OUTPUTS` order)."""
    from SALib.analyze import morris as morris_analyze
    idx = {}
    for j, out in enumerate(OUTPUTS):
        si = morris_analyze.analyze(prob, X, Y[:, j], num_levels=levels, seed=seed, num_resamples=1000)
        idx[out] = {k: np.asarray(si[k], dtype=float) for k in ("mu_star", "mu_star_conf", "mu", "sigma")}
    return idx


def _finite(Y: np.ndarray, what: str):
    bad = ~np.isfinite(Y).all(axis=1)
    if bad.any():
        from ..master.loop import MasterError
        raise MasterError(f"{what}: {int(bad.sum())} cases gave no wear at all (peak/mean undefined); "
                          f"narrow the parameter ranges or run more cycles")


def screening_importance(indices: Mapping[str, Mapping[str, np.ndarray]], Y: np.ndarray) -> np.ndarray:
    """One importance per parameter: its largest mu* over the outputs, each output's mu*
    divided by that output's standard deviation over the sample (dimensionless)."""
    sd = np.std(Y, axis=0)
    rows = [indices[o]["mu_star"] / sd[j] if sd[j] > 0 else np.zeros_like(indices[o]["mu_star"])
            for j, o in enumerate(OUTPUTS)]
    return np.max(np.vstack(rows), axis=0)


@dataclass
class SobolResult:
    """Sobol indices of the ``names`` parameters: per output ``S1``, ``S1_conf``, ``ST``,
    ``ST_conf`` (conf: half-width of the 95 % bootstrap interval), and ``S2`` when computed."""
    names: list
    X: np.ndarray
    values: np.ndarray
    Y: np.ndarray
    indices: dict
    n: int
    second_order: bool


def vector_indices(Y2: np.ndarray, D: int, second_order: bool, resamples: int, seed: int) -> dict:
    """First- and total-order indices of a 2-D output (the peak angle's cos and sin):
    sum over the components of the partial variances over the sum of their variances,
    with bootstrap half-widths (95 %), from the same Saltelli sample as SALib's."""
    from SALib.analyze.sobol import first_order, total_order
    step = 2 * D + 2 if second_order else D + 2
    N = Y2.shape[0] // step
    blocks = Y2[: N * step].reshape(N, step, 2)
    A, B = blocks[:, 0], blocks[:, step - 1]
    AB = blocks[:, 1:D + 1]

    def est(rows):
        a, b = A[rows], B[rows]
        var = np.var(np.r_[a, b], axis=0)
        tot = float(var.sum())
        s1, st = np.zeros(D), np.zeros(D)
        if tot <= 0:
            return s1, st
        for i in range(D):
            s1[i] = float(np.sum(first_order(a, AB[rows, i], b) * var)) / tot
            st[i] = float(np.sum(total_order(a, AB[rows, i], b) * var)) / tot
        return s1, st
    s1, st = est(np.arange(N))
    rng = np.random.default_rng(seed)
    boot = [est(rng.integers(0, N, N)) for _ in range(resamples)]
    z = 1.959963984540054
    return {"S1": s1, "ST": st, "S1_conf": z * np.std([b[0] for b in boot], axis=0, ddof=1),
            "ST_conf": z * np.std([b[1] for b in boot], axis=0, ddof=1)}


def sobol_stage(spec: Spec, run: Evaluator, names: Sequence[str], n: int | None = None) -> SobolResult:
    """Sobol indices of ``names`` (the others at their nominal values): Saltelli's sample of
    ``n`` base points, n (2k + 2) runs with second order, n (k + 2) without."""
    from SALib.sample import sobol as sobol_sample
    n = int(n or spec.sobol["n"])
    so, seed, res = spec.sobol["second_order"], spec.sobol["seed"], spec.sobol["resamples"]
    prob = problem(spec, names)
    X = sobol_sample.sample(prob, n, calc_second_order=so, seed=seed)
    ps = [spec.parameter(k) for k in names]
    vals = np.column_stack([p.physical(X[:, i]) for i, p in enumerate(ps)])
    Y = _matrix(run([case(spec, dict(zip(names, row)), f"sobol{i:06d}") for i, row in enumerate(vals)]))
    _finite(Y, "Sobol")
    idx = analyze_sobol(prob, Y, so, res, seed)
    return SobolResult(list(names), X, vals, Y, idx, n, so)


def analyze_sobol(prob: dict, Y: np.ndarray, second_order: bool, resamples: int, seed: int) -> dict:
    """SALib's Sobol analysis of every output column of ``Y`` (:data:`OUTPUTS` order), plus
    the 2-D peak-angle index (:func:`vector_indices`) as ``peak_angle``."""
    import warnings

    from SALib.analyze import sobol as sobol_analyze
    idx = {}
    for j, out in enumerate(OUTPUTS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            si = sobol_analyze.analyze(prob, Y[:, j], calc_second_order=second_order, num_resamples=resamples,
                                       seed=seed)
        idx[out] = {k: np.asarray(si[k], dtype=float) for k in ("S1", "S1_conf", "ST", "ST_conf")}
        if second_order:
            idx[out]["S2"] = np.asarray(si["S2"], dtype=float)
    jc, js = OUTPUTS.index("peak_cos"), OUTPUTS.index("peak_sin")
    idx["peak_angle"] = vector_indices(Y[:, [jc, js]], prob["num_vars"], second_order, resamples, seed)
    return idx


@dataclass
class TrendResult:
    """Where the seed's trends hold over a grid of two parameters: ``holds[trend]`` (grid x
    grid booleans, rows: values of ``names[0]``), and the numbers they are judged on."""
    names: list
    a: np.ndarray
    b: np.ndarray
    holds: dict
    numbers: dict


def grid_values(p: Parameter, n: int) -> np.ndarray:
    """``n`` values spanning the parameter's range (geometric when it is log-sampled)."""
    return np.geomspace(p.low, p.high, n) if p.log else np.linspace(p.low, p.high, n)


def trend_stage(spec: Spec, run: Evaluator, names: Sequence[str], grid: int | None = None) -> TrendResult:
    """Run the seed's speed and clearance ladders (and the dry/lubricated pair) at every point
    of a grid over the two parameters ``names`` (the others nominal) and judge each trend:

    * speed_deeper: peak and mean depth rise at every step of the speed ladder;
    * speed_uniform: peak/mean falls at every step of the speed ladder;
    * clearance_deeper: peak depth rises at every step of the clearance ladder;
    * lubricated_less: lubricated peak < ``much_less`` x dry peak."""
    t = spec.trends
    if not t:
        raise SensitivityError(f"{spec.source}: no [trends] table")
    g = int(grid or t["grid"])
    pa, pb = spec.parameter(names[0]), spec.parameter(names[1])
    a, b = grid_values(pa, g), grid_values(pb, g)
    sp, cp = t["speed_parameter"], t["clearance_parameter"]
    cases, where = [], []
    for i, va in enumerate(a):
        for j, vb in enumerate(b):
            at = {pa.name: va, pb.name: vb}
            for s, w in enumerate(t["speed_values"]):
                cases.append(case(spec, {**at, sp: w}, f"trend{i:02d}{j:02d}s{s}"))
                where.append((i, j, "speed", s))
            for s, c in enumerate(t["clearance_values"]):
                cases.append(case(spec, {**at, cp: c}, f"trend{i:02d}{j:02d}c{s}"))
                where.append((i, j, "clearance", s))
            if "lubrication" in t:
                for side in ("dry", "lubricated"):
                    cases.append(case(spec, at, f"trend{i:02d}{j:02d}{side}", t["lubrication"][side]))
                    where.append((i, j, side, 0))
    outs = run(cases)
    got = {}
    for (i, j, kind, s), o in zip(where, outs):
        got.setdefault((i, j, kind), {})[s] = o
    holds = {k: np.zeros((g, g), dtype=bool) for k in TRENDS}
    numbers = {k: np.full((g, g), np.nan) for k in ("speed_peak_ratio", "speed_uniformity_ratio",
                                                      "clearance_peak_ratio", "lubricated_over_dry")}
    for i in range(g):
        for j in range(g):
            sl = [got[(i, j, "speed")][s] for s in range(len(t["speed_values"]))]
            peak = np.array([o["peak_um"] for o in sl])
            mean = np.array([o["peak_um"] / o["peak_over_mean"] if o["peak_over_mean"] > 0 else 0.0 for o in sl])
            ratio = np.array([o["peak_over_mean"] for o in sl])
            holds["speed_deeper"][i, j] = bool(np.all(np.diff(peak) > 0) and np.all(np.diff(mean) > 0))
            holds["speed_uniform"][i, j] = bool(np.all(np.diff(ratio) < 0))
            numbers["speed_peak_ratio"][i, j] = peak[-1] / peak[0] if peak[0] > 0 else np.inf
            numbers["speed_uniformity_ratio"][i, j] = ratio[-1] / ratio[0]
            cl = np.array([got[(i, j, "clearance")][s]["peak_um"] for s in range(len(t["clearance_values"]))])
            holds["clearance_deeper"][i, j] = bool(np.all(np.diff(cl) > 0))
            numbers["clearance_peak_ratio"][i, j] = cl[-1] / cl[0] if cl[0] > 0 else np.inf
            if "lubrication" in t:
                dry, lub = got[(i, j, "dry")][0]["peak_um"], got[(i, j, "lubricated")][0]["peak_um"]
                r = lub / dry if dry > 0 else np.inf
                numbers["lubricated_over_dry"][i, j] = r
                holds["lubricated_less"][i, j] = bool(r < t["lubrication"]["much_less"])
    if "lubrication" not in t:
        holds.pop("lubricated_less")
    return TrendResult([pa.name, pb.name], a, b, holds, numbers)


def pick_top(spec: Spec, morris: MorrisResult, k: int) -> list[str]:
    """The ``k`` parameters of largest screening importance (in the study's order of ties)."""
    order = np.argsort(-morris.importance, kind="stable")
    return [spec.names[i] for i in order[:k]]


def pick_map(spec: Spec, morris: MorrisResult, sobol: SobolResult | None) -> list[str]:
    """The two most important parameters other than the trends' own (speed, clearance): by
    the largest total Sobol index over the outputs when there is one, else by screening."""
    own = {spec.trends.get("speed_parameter"), spec.trends.get("clearance_parameter")}
    by_screening = pick_top(spec, morris, len(spec.names))
    if sobol is not None:
        st = np.max(np.vstack([sobol.indices[o]["ST"] for o in SOBOL_SHOWN]), axis=0)
        ranked = [sobol.names[i] for i in np.argsort(-st, kind="stable")]
    else:
        ranked = []
    ranked += [n for n in by_screening if n not in ranked]
    return [n for n in ranked if n not in own][:2]


# ------------------------------------------------------------------------------------------------ driver

def run_sensitivity(spec: Spec | str | Path, out: str | Path, *, workers: int = 2, scheduler: Any = None,
                    local: bool = False, trajectories: int | None = None, n: int | None = None,
                    top: int | None = None, grid: int | None = None, stages: Iterable[str] = ("morris", "sobol", "trends"),
                    build_dir: str | Path | None = None, log: Callable[[str], None] | None = None) -> dict:
    """Run the study (Morris screening of every parameter, Sobol indices of the ``top`` most
    important, the trend map over the two most important others) and write its report into
    ``out`` (:func:`write_report`); returns the stage results.

    Executor: a Dask ``scheduler`` (address or ``distributed.Client``); by default a
    ``distributed.LocalCluster`` of ``workers`` processes; ``local=True``: local processes
    without Dask.  ``trajectories``, ``n``, ``top``, ``grid`` override the study file."""
    import sys
    spec = spec if isinstance(spec, Spec) else load_spec(spec)
    stages = tuple(stages)
    for s in stages:
        if s not in ("morris", "sobol", "trends"):
            raise SensitivityError(f"unknown stage {s!r} (morris, sobol, trends)")
    if "trends" in stages and not spec.trends:
        raise SensitivityError(f"{spec.source}: the trend map needs a [trends] table")
    if workers < 1:
        raise SensitivityError("workers must be >= 1")
    say = log or (lambda m: progress_say(m, sys.stderr))
    _need("SALib", "SALib")
    if not local and scheduler is None:
        _need("distributed", "'dask[distributed]' (or run with local=True / --local)")
    fmu = spec_fmu(spec, build_dir)
    check_parameters(spec, fmu)
    out = Path(out)
    cluster = client = None
    t0 = time.time()
    try:
        if local:
            where, sched = f"{workers} local processes", None
        elif scheduler is None:
            from distributed import Client, LocalCluster
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
            where, sched = f"Dask LocalCluster, {workers} workers", client
        else:
            from .runner import connect
            client = connect(scheduler) if isinstance(scheduler, str) else scheduler
            nw = len(client.scheduler_info().get("workers", {}))
            where, sched = f"Dask cluster {getattr(client, 'scheduler', None) and client.scheduler.address}, {nw} workers", client
        run = evaluator(fmu, workers=workers, scheduler=sched, batch=spec.batch, log=say)
        res = {"spec": spec, "executor": where}
        say(f"Morris screening: {len(spec.names)} parameters")
        m = morris_stage(spec, run, trajectories)
        res["morris"] = m
        say(f"Morris: {len(m.Y)} runs; importance " + ", ".join(
            f"{n} {v:.3g}" for n, v in sorted(zip(m.names, m.importance), key=lambda x: -x[1])))
        s = None
        if "sobol" in stages:
            names = pick_top(spec, m, int(top or spec.sobol["top"]))
            say(f"Sobol indices of {', '.join(names)}")
            s = sobol_stage(spec, run, names, n)
            res["sobol"] = s
        if "trends" in stages:
            names = pick_map(spec, m, s)
            say(f"trend map over {names[0]} x {names[1]}")
            res["trends"] = trend_stage(spec, run, names, grid)
        res["seconds"] = time.time() - t0
    finally:
        if client is not None and (cluster is not None or isinstance(scheduler, str)):
            client.close()
        if cluster is not None:
            cluster.close()
    report = write_report(res, out)
    say(f"report: {report}")
    return res


def _read_runs(path: Path, spec: Spec) -> tuple[list, np.ndarray, np.ndarray, np.ndarray]:
    """(names, SALib-space samples, own-unit values, outputs) of a ``*_runs.csv`` file."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, k = rows[0], len(rows[0]) - len(OUTPUTS)
    if tuple(head[k:]) != OUTPUTS or k < 2:
        raise SensitivityError(f"{path}: not a samples file of this study (columns {', '.join(head)})")
    data = np.array([[float(v) for v in r] for r in rows[1:]], dtype=float)
    names = head[:k]
    ps = [spec.parameter(n) for n in names]
    vals = data[:, :k]
    X = np.column_stack([np.log10(vals[:, i]) if p.log else vals[:, i] for i, p in enumerate(ps)])
    return names, X, vals, data[:, k:]


def load_saved(spec: Spec, out: str | Path) -> dict:
    """The stage results of a finished study rebuilt from the files it wrote into ``out``
    (samples and outputs: ``morris_runs.csv``, ``sobol_runs.csv``; ``trends.csv``), the indices
    recomputed with the study file's settings, for :func:`write_report` (a new report
    without running the cases again)."""
    out = Path(out)
    if not (out / "morris_runs.csv").is_file():
        raise SensitivityError(f"{out}: no morris_runs.csv (run the study first)")
    names, X, vals, Y = _read_runs(out / "morris_runs.csv", spec)
    if names != spec.names:
        raise SensitivityError(f"{out / 'morris_runs.csv'}: its parameters ({', '.join(names)}) are not the "
                               f"study's ({', '.join(spec.names)})")
    levels = spec.morris["levels"]
    idx = analyze_morris(problem(spec, names), X, Y, levels, spec.morris["seed"])
    run = {}
    if (out / "run.json").is_file():
        run = json.loads((out / "run.json").read_text())
    res = {"spec": spec, "rebuilt": True,
           "executor": f"{run.get('executor', '?')} (report rebuilt from the saved samples)",
           "morris": MorrisResult(names, X, vals, Y, idx, screening_importance(idx, Y), len(Y) // (len(names) + 1), levels)}
    if run.get("seconds") is not None:
        res["seconds"] = float(run["seconds"])
    if (out / "sobol_runs.csv").is_file():
        names, X, vals, Y = _read_runs(out / "sobol_runs.csv", spec)
        so = spec.sobol["second_order"]
        n = len(Y) // ((2 if so else 1) * len(names) + 2)
        res["sobol"] = SobolResult(names, X, vals, Y, analyze_sobol(problem(spec, names), Y, so, spec.sobol["resamples"],
                                                                   spec.sobol["seed"]), n, so)
    if (out / "trends.csv").is_file():
        with open(out / "trends.csv", newline="") as f:
            rows = list(csv.reader(f))
        head, data = rows[0], np.array([[float(v) for v in r] for r in rows[1:]], dtype=float)
        g = int(round(math.sqrt(len(data))))
        trends = [h for h in head[2:] if h in TRENDS]
        nums = [h for h in head[2:] if h not in TRENDS]
        col = {h: i for i, h in enumerate(head)}
        res["trends"] = TrendResult(head[:2], data[::g, 0], data[:g, 1],
                                    {t: data[:, col[t]].reshape(g, g).astype(bool) for t in trends},
                                    {k: data[:, col[k]].reshape(g, g) for k in nums})
    return res


def _need(module: str, package: str):
    """A clear error when an optional dependency of the study is missing."""
    import importlib.util
    if importlib.util.find_spec(module) is None:
        from ..master.loop import MasterError
        raise MasterError(f"the sensitivity study needs {module}: pip install {package}")


# ------------------------------------------------------------------------------------------------ report

def _csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]]):
    from ..atomic import write_bytes
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(header)
    for r in rows:
        w.writerow([repr(float(v)) if isinstance(v, float) else v for v in r])     # round-trips exactly
    write_bytes(path, buf.getvalue().encode())


def _fmt(v: float, conf: float | None = None) -> str:
    return f"{v:.3f}" if conf is None else f"{v:.3f} ± {conf:.3f}"


def write_report(res: Mapping[str, Any], out: str | Path) -> Path:
    """The study's Markdown report ``<out>/sensitivity.md``, its tables (``morris.csv``,
    ``sobol.csv``, ``trends.csv``, the samples and outputs ``*_runs.csv``, the executor and
    wall time ``run.json``) and figures
    (``morris``, ``sobol``, ``trends``: PDF + 300-dpi PNG); every file written atomically.
    ``res``: what :func:`run_sensitivity` returns (``morris`` required, ``sobol`` and
    ``trends`` optional)."""
    from ..atomic import write_bytes
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    spec: Spec = res["spec"]
    m: MorrisResult = res["morris"]
    s: SobolResult | None = res.get("sobol")
    tr: TrendResult | None = res.get("trends")
    md = [f"# Sensitivity of the wear predictions: {spec.name}", ""]
    if spec.description:
        md += [spec.description, ""]
    md += [f"Executor: {res.get('executor', '?')}." + (f" Wall time {res['seconds']:.0f} s." if "seconds" in res else ""),
           "", "## Parameters", "", "| parameter | sets | range | nominal | sampled |", "|---|---|---|---|---|"]
    for p in spec.parameters:
        md.append(f"| {p.label} | {', '.join(f'`{k}`' for k in p.keys)} | {p.low:g} .. {p.high:g} | {p.nominal:g} | "
                  f"{'log-uniform' if p.log else 'uniform'} |")
    # Morris
    _csv(out / "morris.csv", ["parameter"] + [f"{o}_{k}" for o in OUTPUTS for k in ("mu_star", "mu_star_conf", "mu", "sigma")]
         + ["importance"],
         ([n] + [float(m.indices[o][k][i]) for o in OUTPUTS for k in ("mu_star", "mu_star_conf", "mu", "sigma")]
          + [float(m.importance[i])] for i, n in enumerate(m.names)))
    _csv(out / "morris_runs.csv", list(m.names) + list(OUTPUTS),
         ([float(v) for v in row] + [float(y) for y in yr] for row, yr in zip(m.values, m.Y)))
    md += ["", "## Morris screening", "",
           f"{m.trajectories} trajectories, {m.levels} levels, {len(m.names)} parameters: {len(m.Y)} runs. "
           "mu* (mean absolute elementary effect over a step of the normalised range) per output; "
           "importance = the largest mu*/std(output) over the outputs.", "",
           "| parameter | " + " | ".join(f"mu* {OUTPUT_LABELS[o]}" for o in OUTPUTS) + " | sigma peak | importance |",
           "|---" * (len(OUTPUTS) + 3) + "|"]
    for i in np.argsort(-m.importance, kind="stable"):
        md.append(f"| {spec.parameter(m.names[i]).label} | " +
                  " | ".join(f"{m.indices[o]['mu_star'][i]:.3g}" for o in OUTPUTS) +
                  f" | {m.indices['peak_um']['sigma'][i]:.3g} | {m.importance[i]:.3f} |")
    figs = [plot_morris(m, spec, out / "morris")]
    md += ["", "![Morris mu* and sigma](morris.png)", ""]
    if s is not None:
        rows = []
        for o in list(OUTPUTS) + ["peak_angle"]:
            for i, n in enumerate(s.names):
                d = s.indices[o]
                rows.append([o, n, float(d["S1"][i]), float(d["S1_conf"][i]), float(d["ST"][i]), float(d["ST_conf"][i])])
        _csv(out / "sobol.csv", ["output", "parameter", "S1", "S1_conf", "ST", "ST_conf"], rows)
        _csv(out / "sobol_runs.csv", list(s.names) + list(OUTPUTS),
             ([float(v) for v in row] + [float(y) for y in yr] for row, yr in zip(s.values, s.Y)))
        k = len(s.names)
        md += ["## Sobol indices", "",
               f"Parameters {', '.join(s.names)} (the others nominal); Saltelli sample with N = {s.n} base points, "
               f"{'with' if s.second_order else 'without'} second order: {len(s.Y)} runs. "
               "S1 first order, ST total; ± is the half-width of the 95 % bootstrap confidence interval.", "",
               "| output | " + " | ".join(f"{spec.parameter(n).label} S1 | ST" for n in s.names) + " | sum S1 | mean CI width S1 / ST |",
               "|---" * (2 * k + 3) + "|"]
        for o in list(OUTPUTS) + ["peak_angle"]:
            d = s.indices[o]
            md.append(f"| {OUTPUT_LABELS[o]} | " + " | ".join(
                f"{_fmt(d['S1'][i], d['S1_conf'][i])} | {_fmt(d['ST'][i], d['ST_conf'][i])}" for i in range(k))
                + f" | {float(np.sum(d['S1'])):.3f} | {2 * float(np.mean(d['S1_conf'])):.3f} / "
                  f"{2 * float(np.mean(d['ST_conf'])):.3f} |")
        ang = np.degrees(np.arctan2(s.Y[:, OUTPUTS.index("peak_sin")], s.Y[:, OUTPUTS.index("peak_cos")]))
        z = np.mean(np.exp(1j * np.radians(ang)))
        md += ["", f"Peak angle over the Sobol sample: circular mean {np.degrees(np.angle(z)) % 360:.1f} deg, "
                   f"mean resultant length R = {abs(z):.3f}, circular standard deviation "
                   f"{np.degrees(math.sqrt(-2 * math.log(max(abs(z), 1e-300)))):.1f} deg.", "",
               "![Sobol indices](sobol.png)", ""]
        figs.append(plot_sobol(s, spec, out / "sobol"))
    if tr is not None:
        rows = []
        for i, va in enumerate(tr.a):
            for j, vb in enumerate(tr.b):
                rows.append([float(va), float(vb)] + [int(tr.holds[t][i, j]) for t in tr.holds]
                            + [float(tr.numbers[k][i, j]) for k in tr.numbers])
        _csv(out / "trends.csv", list(tr.names) + list(tr.holds) + list(tr.numbers), rows)
        g = len(tr.a)
        la, lb = spec.parameter(tr.names[0]).label, spec.parameter(tr.names[1]).label
        md += ["## Where the seed's trends hold", "",
               f"Grid {g} x {g} over {la} and {lb} (the two most important parameters besides the trends' own, "
               "speed and clearance; the others nominal). At every point the speed ladder "
               f"({', '.join(f'{v:g}' for v in spec.trends['speed_values'])}), the clearance ladder "
               f"({', '.join(f'{v:g}' for v in spec.trends['clearance_values'])})"
               + (" and the dry/lubricated pair" if "lubrication" in spec.trends else "") + " are run.", "",
               "| trend | holds at | where it fails | judged on | its range over the grid |", "|---|---|---|---|---|"]
        for t, h in tr.holds.items():
            fails = [f"({tr.a[i]:.3g}, {tr.b[j]:.3g})" for i in range(g) for j in range(g) if not h[i, j]]
            key, what = TREND_NUMBERS[t]
            v = tr.numbers.get(key, np.array([np.nan]))
            v = v[np.isfinite(v)]
            span = f"{v.min():.3g} – {v.max():.3g}" if v.size else "-"
            md.append(f"| {TREND_LABELS[t]} | {int(h.sum())} of {h.size} points | "
                      f"{', '.join(fails[:8]) + (' ...' if len(fails) > 8 else '') if fails else '-'} | {what} | {span} |")
        md += ["", f"Points are ({tr.names[0]}, {tr.names[1]}).", "", "![Trend validity](trends.png)", ""]
        figs.append(plot_trends(tr, spec, out / "trends"))
    if not res.get("rebuilt"):
        write_bytes(out / "run.json", json.dumps({"executor": res.get("executor", "?"),
                                                  "seconds": res.get("seconds")}).encode())
    write_bytes(out / "sensitivity.md", ("\n".join(md) + "\n").encode())
    return out / "sensitivity.md"


#: the outputs in the figures: name with its symbol, and unit (mathtext; "" dimensionless)
OUTPUT_FIG = {"peak_um": (r"peak depth $h_\mathrm{max}$", "µm"),
              "peak_over_mean": (r"peak/mean depth $h_\mathrm{max}/\bar{h}$", ""),
              "peak_cos": (r"$\cos\,\theta_\mathrm{max}$ (peak angle)", ""),
              "peak_sin": (r"$\sin\,\theta_\mathrm{max}$ (peak angle)", ""),
              "volume_mm3": ("worn volume $V$", "mm³"),
              "peak_angle": (r"peak angle $\theta_\mathrm{max}$ as ($\cos$, $\sin$)", "")}
#: the parameters' symbols in the figures: symbol (mathtext), unit, what it is, factor from
#: the study's own unit to the unit shown (the hybrid mechanism's names,
#: cosim/sensitivity/hybrid_dry.toml; another study's parameters fall back on their labels)
PARAM_SYMBOLS = {
    "speed": (r"$\omega$", "rad/s", "drive speed", 1.0),
    "clearance": (r"$c$", "mm", "radial clearance", 1e3),
    "gPlane": (r"$g_\mathrm{p}$", "m/s²", "gravity in the plane of chain 3", 1.0),
    "m31": (r"$m_{31}$", "kg", "mass of link A3B3", 1.0),
    "m32": (r"$m_{32}$", "kg", "mass of the parallelogram bars", 1.0),
    "m33": (r"$m_{33}$", "kg", "mass of the coupler with C3D3", 1.0),
    "J31": (r"$J_{31}$", "kg·m²", "moment of inertia of A3B3", 1.0),
    "J32": (r"$J_{32}$", "kg·m²", "of the parallelogram bars", 1.0),
    "J33": (r"$J_{33}$", "kg·m²", "of the coupler with C3D3", 1.0),
    "mu_d": (r"$\mu_\mathrm{d}$", "", "dry friction coefficient", 1.0),
    "cr": (r"$c_\mathrm{r}$", "", "coefficient of restitution", 1.0),
}


def param_symbol(spec: Spec, name: str) -> tuple[str, str, str, float]:
    """(symbol, unit, description, scale) of a parameter for the figures: from
    :data:`PARAM_SYMBOLS`, else from its label ``text [unit]`` (units typeset)."""
    if name in PARAM_SYMBOLS:
        return PARAM_SYMBOLS[name]
    import re

    from ..plots.style import pretty
    label = spec.parameter(name).label or name
    m = re.match(r"\s*(.*?)\s*\[([^\]]*)\]\s*$", label)
    text, unit = (m.group(1), m.group(2)) if m else (label, "")
    unit = "" if unit.strip() in ("-", "1", "") else pretty(f"[{unit}]")[1:-1]
    return pretty(text), unit, "", 1.0


def _axis_label(sym: str, unit: str) -> str:
    return f"{sym} ({unit})" if unit else sym


def _definitions(spec: Spec, names: Sequence[str], width: int = 150) -> str:
    """One line (wrapped) defining the parameters' symbols, for the figure's foot."""
    from ..plots.style import wrap_math
    parts = []
    for n in names:
        sym, unit, desc, _ = param_symbol(spec, n)
        if desc:
            parts.append(f"{sym} {desc}" + (f" ({unit})" if unit else ""))
    return wrap_math("; ".join(parts) + ".", width) if parts else ""


def plot_morris(m: MorrisResult, spec: Spec, base: Path) -> Path:
    """μ* against σ per output (one panel each; both in the output's unit), every parameter
    labelled by its symbol clear of the points, of the other labels and of the line σ = μ*;
    the screening ranking; the symbols defined at the foot."""
    from ..plots import style
    fig, axes = style.figure(style.DOUBLE, 0.66, nrows=2, ncols=3)
    axes = axes.ravel()
    syms = [param_symbol(spec, n)[0] for n in m.names]
    for ax, o in zip(axes, OUTPUTS):
        d = m.indices[o]
        what, unit = OUTPUT_FIG[o]
        x, y = np.asarray(d["mu_star"], float), np.asarray(d["sigma"], float)
        ax.scatter(x, y, s=10, color=style.OKABE_ITO[0], zorder=3)
        hi = float(max(np.max(x), np.max(y), 1e-30)) * 1.15
        ax.plot([0, hi], [0, hi], color="0.55", lw=0.6, ls="--", zorder=1)
        ax.set_xlim(-0.1 * hi, hi)                   # room left of and below the points at the origin
        ax.set_ylim(-0.1 * hi, hi)
        ax.set_xlabel(_axis_label(r"$\mu^*$", unit))
        ax.set_ylabel(_axis_label(r"$\sigma$", unit))
        ax.set_title(what)
    ax = axes[-1]
    order = np.argsort(-m.importance, kind="stable")
    ax.barh([syms[i] for i in order][::-1], m.importance[order][::-1], color=style.OKABE_ITO[4])
    ax.set_xlabel(r"importance: largest $\mu^*_y/s_y$ over the outputs $y$")
    ax.set_title("screening ranking")
    fig.supxlabel(style.wrap_math(r"$\mu^*$: mean absolute elementary effect of a parameter on the output (a step "
                                  r"of its normalised range), $\sigma$: standard deviation of the elementary effects, "
                                  r"both in the output's unit; dashed: $\sigma = \mu^*$; $s_y$: standard deviation of "
                                  "output $y$.", 150) + "\n" + _definitions(spec, m.names),
                  fontsize=6, ha="left", x=0.01, multialignment="left")
    fig.canvas.draw()                                # labels last, in the layout fixed by this drawing
    for ax, o in zip(axes, OUTPUTS):
        d = m.indices[o]
        x, y = np.asarray(d["mu_star"], float), np.asarray(d["sigma"], float)
        hi = ax.get_xlim()[1]
        line = ax.transData.transform(np.column_stack([np.linspace(0, hi, 200)] * 2))
        order = np.argsort(-np.hypot(x, y), kind="stable")
        style.place_labels(ax, x[order], y[order], [syms[i] for i in order], obstacles=line, draw=False)
    return style.save(fig, base)


def plot_sobol(s: SobolResult, spec: Spec, base: Path) -> Path:
    """First- and total-order Sobol indices with their 95 % bootstrap intervals, one panel per
    output; the key above the panels (clear of every bar), the symbols defined at the foot."""
    from ..plots import style
    fig, axes = style.figure(style.DOUBLE, 0.4, ncols=len(SOBOL_SHOWN), sharey=True, squeeze=False)
    axes = axes[0]
    x = np.arange(len(s.names))
    syms = [param_symbol(spec, n)[0] for n in s.names]
    err = dict(capsize=2, error_kw=dict(lw=0.7, capthick=0.7))
    for ax, o in zip(axes, SOBOL_SHOWN):
        d = s.indices[o]
        ax.bar(x - 0.2, d["S1"], 0.4, yerr=d["S1_conf"], label=r"first order $S_1$", color=style.OKABE_ITO[0], **err)
        ax.bar(x + 0.2, d["ST"], 0.4, yerr=d["ST_conf"], label=r"total order $S_T$", color=style.OKABE_ITO[4],
               hatch="////", edgecolor="white", lw=0, **err)
        ax.set_xticks(x)
        ax.set_xticklabels(syms)
        ax.set_title(f"{OUTPUT_FIG[o][0]}\n" + r"$\Sigma S_1$" + f" = {float(np.sum(d['S1'])):.2f}")
        ax.axhline(0, color="0.3", lw=0.5)
        ax.grid(axis="x", visible=False)
    axes[0].set_ylabel("Sobol index")
    h, lab = axes[0].get_legend_handles_labels()
    fig.legend(h, lab, loc="outside upper center", ncol=2, fontsize=7)
    fig.supxlabel(style.wrap_math(r"$S_1$: share of the output's variance due to the parameter alone; $S_T$: due "
                                  "to it alone and in interactions with the others; error bars: 95 % bootstrap "
                                  "confidence intervals.", 150) + "\n" + _definitions(spec, s.names),
                  fontsize=6, ha="left", x=0.01, multialignment="left")
    return style.save(fig, base)


#: the trend map's two colours and the fail cells' hatching (Okabe-Ito blue and orange: told
#: apart with colour-vision deficiencies and in grey)
TREND_COLOURS = {"holds": "#0072B2", "fails": "#E69F00"}


def plot_trends(tr: TrendResult, spec: Spec, base: Path) -> Path:
    """One panel per trend over the grid of two parameters: cells blue where it holds, orange
    and hatched where it fails, with a key; axes labelled with the parameters' symbols and
    units."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch, Rectangle

    from ..plots import style
    ts = list(tr.holds)
    fig, axes = style.figure(style.DOUBLE, 0.36, ncols=len(ts), sharey=True, squeeze=False)
    axes = axes[0]
    cmap = ListedColormap([TREND_COLOURS["fails"], TREND_COLOURS["holds"]])
    pa, pb = spec.parameter(tr.names[0]), spec.parameter(tr.names[1])
    sa_, ua, _, fa = param_symbol(spec, tr.names[0])
    sb_, ub, _, fb = param_symbol(spec, tr.names[1])

    def edges(v, log):
        return 10 ** style.edges(np.log10(v)) if log else style.edges(v)
    ea, eb = edges(np.asarray(tr.a, float), pa.log) * fa, edges(np.asarray(tr.b, float), pb.log) * fb
    for ax, t in zip(axes, ts):
        h = tr.holds[t].astype(float)
        ax.pcolormesh(eb, ea, h, cmap=cmap, vmin=0, vmax=1, edgecolors="white", linewidth=0.6)
        for i, j in zip(*np.nonzero(h < 0.5)):      # fails: hatched too, for print in grey
            ax.add_patch(Rectangle((eb[j], ea[i]), eb[j + 1] - eb[j], ea[i + 1] - ea[i], fill=False, hatch="xx",
                                   edgecolor="0.25", lw=0, zorder=2))
        if pb.log:
            ax.set_xscale("log")
        if pa.log:
            ax.set_yscale("log")
        ax.set_title(f"{TREND_LABELS[t]}\nholds at {int(tr.holds[t].sum())} of {tr.holds[t].size}")
        ax.set_xlabel(_axis_label(sb_, ub))
        ax.grid(False)
    axes[0].set_ylabel(_axis_label(sa_, ua))
    key = [Patch(facecolor=TREND_COLOURS["holds"], edgecolor="white", label="trend holds"),
           Patch(facecolor=TREND_COLOURS["fails"], edgecolor="0.25", hatch="xx", label="trend fails")]
    fig.legend(handles=key, loc="outside upper center", ncol=2, fontsize=7)
    foot = _definitions(spec, list(tr.names))
    if foot:
        fig.supxlabel(foot, fontsize=6, ha="left", x=0.01)
    return style.save(fig, base)


def replot(spec: Spec, folder: str | Path) -> list[Path]:
    """The three figures of a finished study drawn again from its tables in ``folder``
    (``morris.csv``, ``sobol.csv``, ``trends.csv``: the indices as reported, without SALib and
    without the samples); returns the PNGs written."""
    folder = Path(folder)
    made = []

    def rows(name):
        with open(folder / name, newline="") as f:
            r = list(csv.DictReader(f))
        return r
    if (folder / "morris.csv").is_file():
        r = rows("morris.csv")
        names = [x["parameter"] for x in r]
        idx = {o: {k: np.array([float(x[f"{o}_{k}"]) for x in r]) for k in ("mu_star", "mu_star_conf", "mu", "sigma")}
               for o in OUTPUTS}
        m = MorrisResult(names, np.zeros((0, len(names))), np.zeros((0, len(names))), np.zeros((0, len(OUTPUTS))), idx,
                         np.array([float(x["importance"]) for x in r]), 0, int(spec.morris.get("levels", 4)))
        made.append(plot_morris(m, spec, folder / "morris"))
    if (folder / "sobol.csv").is_file():
        r = rows("sobol.csv")
        names = list(dict.fromkeys(x["parameter"] for x in r))
        idx = {}
        for o in dict.fromkeys(x["output"] for x in r):
            sel = {x["parameter"]: x for x in r if x["output"] == o}
            idx[o] = {k: np.array([float(sel[n][k]) for n in names]) for k in ("S1", "S1_conf", "ST", "ST_conf")}
        so = SobolResult(names, np.zeros((0, len(names))), np.zeros((0, len(names))), np.zeros((0, len(OUTPUTS))), idx,
                         0, bool(spec.sobol.get("second_order", False)))
        made.append(plot_sobol(so, spec, folder / "sobol"))
    if (folder / "trends.csv").is_file():
        with open(folder / "trends.csv", newline="") as f:
            r = list(csv.reader(f))
        head, data = r[0], np.array([[float(v) for v in x] for x in r[1:]], dtype=float)
        g = int(round(math.sqrt(len(data))))
        col = {h: i for i, h in enumerate(head)}
        tr = TrendResult(head[:2], data[::g, 0], data[:g, 1],
                         {t: data[:, col[t]].reshape(g, g).astype(bool) for t in head[2:] if t in TRENDS},
                         {k: data[:, col[k]].reshape(g, g) for k in head[2:] if k not in TRENDS})
        made.append(plot_trends(tr, spec, folder / "trends"))
    return made
