"""Scenario files (TOML) for ``wearcosim run``: loaded, validated, with messages that name
the file and the key.

Example::

    name = "hybrid-dry-32pi"
    [fmu]
    model = "WearCosim.Examples.HybridMechanism.DrySpeed32pi"   # built if needed
    # path = "fmu/build/DrySpeed32pi.fmu"                        # or an FMU built elsewhere
    prefix = ""                     # wear-interface prefix
    [start]                         # start values / parameters set before initialisation
    "joint.mu_d" = 0.1
    [wear]
    k = 1e-4                        # Archard wear coefficient (-)
    hardness = 1.2e9                # hardness of the worn body (Pa)
    cycles = 160                    # simulated cycles
    period = 0.0625                 # s per cycle (or omega = 100.53 rad/s)
    update_cycles = 1               # wear update every N cycles
    extrapolation = 1000            # each simulated cycle stands for N real ones, or "adaptive"
    # real_cycles = 1e5             # adaptive: the real cycles the run stands for
    # rtol = 0.01                   # adaptive: error of each jump / the wear it adds
    # max_extrapolation = 1e4       # adaptive: largest factor (default: none)
    smoothing = 0                   # sectors of the moving-average half window (0: none)
    [run]
    steps_per_cycle = 1000          # communication steps per cycle
    tolerance = 1e-7                # embedded solver tolerance
    record = ["ex", "ey", "Fn", "theta", "delta"]
    decimate = 4                    # keep every N-th sample of the recorded series
    transient_cycles = 0            # cycles run before wear is accumulated
    [limits]                        # physical guards, checked before every wear update
    depth_per_clearance = 4.0       # stop when the worn depth exceeds 4 c
    update_per_clearance = 0.1      # stop when one update changes the profile by > 0.1 c
    # clearance = 2.5e-4            # reference length c (m) if the FMU has no parameter 'c'
    force = false                   # go on past the limits (a warning is printed once)

Instead of ``[fmu]``, a scenario may name a system of FMUs (an SSP ``.ssd``/``.ssp``) and the
component that carries the wear interface; the system is strongly coupled into one container
FMU (written into the output folder, ``.containers/``) and the master runs it like any FMU,
with the wear interface under ``<wear_component>.``::

    [system]
    file = "systems/hybrid_dry_32pi.ssd"   # relative to the scenario file
    wear_component = "joint"

With ``extrapolation = "adaptive"`` the master chooses the factor of every update from an
error criterion (:mod:`wearcosim.wear.extrapolation`) until ``real_cycles`` real cycles are
reached; ``cycles`` is then the most simulated wear cycles it may take (default: as many as
``real_cycles``, at most 10^4) and ``first_extrapolation`` (default 1) the factor of the first update.

The wear of the last update window is always applied: with ``cycles = 4`` and
``update_cycles = 5`` the final profile holds the wear of the 4 cycles (extrapolated), not 0.
"""
from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import names

SCHEMA = {
    "name": str,
    "description": str,
    "fmu": {"model": str, "path": str, "prefix": str, "package": str},
    "system": {"file": str, "wear_component": str},
    "start": dict,
    "wear": {"k": float, "hardness": float, "cycles": int, "period": float, "omega": float,
             "update_cycles": int, "extrapolation": (float, "adaptive"), "smoothing": int, "real_cycles": float,
             "rtol": float, "max_extrapolation": float, "first_extrapolation": float},
    "run": {"steps_per_cycle": int, "tolerance": float, "record": list, "decimate": int, "record_every": int,
            "transient_cycles": int, "backend": str, "solver": int},
    "limits": {"depth_per_clearance": float, "update_per_clearance": float, "clearance": float,
               "force": bool},
}

#: a scenario name becomes the stem of the files it writes (``<name>.h5``, ``<name>.ckpt``)
#: inside the output folder: checked like every name that becomes a path (wearcosim.names)
NAME_RE = names.NAME_RE


#: plausible machines (checked up front: a run outside these bounds ends in nonsense, e.g. zero
#: wear with the simulated time stuck at 0 for omega = 1e300): the fastest shaft, 10**5 rad/s
#: (about 10**6 rpm, beyond the fastest turbomachinery), the slowest cycle, a day
OMEGA_MAX = 1e5
PERIOD_MAX = 86400.0
#: communication steps of one cycle (its samples are held in memory: 10**6 steps of a few
#: contact outputs are tens of MB; 10**9 ended in a MemoryError)
STEPS_PER_CYCLE_MAX = 1_000_000
#: a clearance reference length (m): from a nanometre to a metre
CLEARANCE_RANGE = (1e-9, 1.0)


class ScenarioError(ValueError):
    pass


@dataclass
class Scenario:
    name: str
    source: str
    model: str = ""
    fmu_path: str = ""
    package: str = ""
    prefix: str = ""
    system_file: str = ""           # an SSP system instead of an FMU
    wear_component: str = ""        # its component with the wear interface
    start: dict = field(default_factory=dict)
    k: float = 1e-4
    hardness: float = 1e9
    cycles: int = 1
    period: float = 0.0
    update_cycles: int = 1
    extrapolation: float = 1.0      # fixed factor (adaptive: 1.0, unused)
    smoothing: int = 0
    adaptive: bool = False          # extrapolation = "adaptive"
    real_cycles: float = 0.0        # adaptive: the real cycles to reach
    rtol: float = 0.01              # error of each jump relative to its wear (adaptive; fixed: reported)
    max_extrapolation: float = math.inf
    first_extrapolation: float = 1.0
    steps_per_cycle: int = 500
    tolerance: float = 1e-7
    record: list = field(default_factory=list)
    decimate: int = 1
    record_every: int = 1           # full series of every Nth cycle (and the last); summaries of all
    transient_cycles: int = 0
    backend: str = "fmpy"
    solver: int = 0
    depth_per_clearance: float = 4.0
    update_per_clearance: float = 0.1
    clearance: float = 0.0          # 0: the FMU's parameter 'c' (or a fraction of the radius)
    force: bool = False
    description: str = ""
    raw: dict = field(default_factory=dict)

    base: str = "."                 # folder relative paths of the scenario are taken from

    @property
    def step(self) -> float:
        return self.period / self.steps_per_cycle

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Scenario":
        """The scenario of a TOML file (relative paths in it: from the file's folder)."""
        return load(path)

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<scenario>",
                  base: str | os.PathLike[str] = ".") -> "Scenario":
        """The scenario of a dict shaped like the TOML file (relative paths: from ``base``)."""
        return from_dict(data, source, Path(base))

    def replace(self, **changes: Any) -> "Scenario":
        """A new, re-validated scenario with ``changes`` merged in: tables as dicts
        (``wear={"cycles": 2}`` changes only that key of [wear]), top-level keys as values
        (``name="short"``), or dotted keys through ``**{"wear.cycles": 2}``."""
        import copy
        data = copy.deepcopy(self.raw)
        for key, val in changes.items():
            parts = key.split(".")
            node = data
            for part in parts[:-1]:
                node = node.setdefault(part, {})
                if not isinstance(node, dict):
                    raise ScenarioError(f"{self.source}: '{key}': '{part}' is not a table")
            last = parts[-1]
            if isinstance(val, dict) and isinstance(node.get(last), dict):
                node[last] = {**node[last], **val}
            else:
                node[last] = val
        return from_dict(data, self.source, Path(self.base))


def _check(data: dict, schema: dict, where: str, src: str):
    for key, val in data.items():
        if key not in schema:
            known = ", ".join(sorted(schema))
            raise ScenarioError(f"{src}: unknown key '{where}{key}' (known here: {known})")
        typ = schema[key]
        if isinstance(typ, tuple):          # (float, "word"): a number or that word
            if val == typ[1]:
                continue
            if isinstance(val, str):
                raise ScenarioError(f"{src}: '{where}{key}' must be a number or \"{typ[1]}\", got {val!r}")
            typ = typ[0]
        if isinstance(typ, dict):
            if not isinstance(val, dict):
                raise ScenarioError(f"{src}: '{where}{key}' must be a table [{key}]")
            _check(val, typ, f"{where}{key}.", src)
        elif typ is float:
            if isinstance(val, bool) or not isinstance(val, (int, float)) or not math.isfinite(val):
                raise ScenarioError(f"{src}: '{where}{key}' must be a finite number, got {val!r}")
        elif typ is int:
            if isinstance(val, bool) or not isinstance(val, int):
                raise ScenarioError(f"{src}: '{where}{key}' must be an integer, got {val!r}")
        elif typ is bool:
            if not isinstance(val, bool):
                raise ScenarioError(f"{src}: '{where}{key}' must be true or false, got {val!r}")
        elif not isinstance(val, typ):
            raise ScenarioError(f"{src}: '{where}{key}' must be of type {typ.__name__}, got {val!r}")


def read_toml(path: Path, what: str, error: type[Exception] = ScenarioError) -> dict[str, Any]:
    """The table of the TOML file ``path``; a missing file or a syntax error raises ``error``
    with one line naming the file (``what``: the kind of file, for the message)."""
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise error(f"{path}: no such {what} file") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: invalid TOML: {exc}") from None


def load(path: str | os.PathLike[str]) -> Scenario:
    """The scenario of a TOML file (relative paths in it: from the file's folder)."""
    path = Path(path)
    return from_dict(read_toml(path, "scenario"), str(path), base=path.parent)


def from_dict(data: dict, source: str = "<scenario>", base: Path = Path(".")) -> Scenario:
    _check(data, SCHEMA, "", source)
    fmu = data.get("fmu", {})
    wear = data.get("wear", {})
    run = data.get("run", {})
    system = data.get("system", {})
    if system and fmu:
        raise ScenarioError(f"{source}: give [fmu] or [system], not both")
    if system:
        if not system.get("file") or not system.get("wear_component"):
            raise ScenarioError(f"{source}: [system] needs 'file' (an .ssd or .ssp) and 'wear_component' "
                                f"(the component with the wear interface)")
    elif not fmu.get("model") and not fmu.get("path"):
        raise ScenarioError(f"{source}: [fmu] needs 'model' (a Modelica class to build) or 'path' (an FMU), "
                            f"or give [system]")
    for key in ("k", "hardness"):
        if key not in wear:
            raise ScenarioError(f"{source}: missing key 'wear.{key}'")
    if "period" not in wear and "omega" not in wear:
        raise ScenarioError(f"{source}: [wear] needs 'period' (s) or 'omega' (rad/s)")
    if "period" in wear and "omega" in wear:
        raise ScenarioError(f"{source}: [wear] gives both 'period' ({wear['period']!r} s) and 'omega' "
                            f"({wear['omega']!r} rad/s); give one of them")
    if "omega" in wear and not float(wear["omega"]) > 0:
        raise ScenarioError(f"{source}: wear.omega must be > 0 (rad/s), got {wear['omega']!r}")
    key = "period" if "period" in wear else "omega"
    cycle = float(wear["period"]) if key == "period" else 2 * math.pi / float(wear["omega"])
    if cycle > 0 and not 2 * math.pi / OMEGA_MAX <= cycle <= PERIOD_MAX:
        raise ScenarioError(f"{source}: wear.{key} = {wear[key]!r} is outside any machine's range: a cycle must last "
                            f"between {2 * math.pi / OMEGA_MAX:.3g} s and {PERIOD_MAX:g} s (omega between "
                            f"{2 * math.pi / PERIOD_MAX:.3g} and {OMEGA_MAX:g} rad/s)")
    period = float(wear["period"]) if "period" in wear else 2 * math.pi / float(wear["omega"])
    name = data.get("name")
    if name is None:
        name = Path(source).stem if NAME_RE.fullmatch(Path(source).stem) else "scenario"
    if names.stem_problem(name) is not None:
        raise ScenarioError(f"{source}: 'name' must be a plain file stem (letters, digits, '.', '_', '-'; "
                            f"no folders), got {name!r}")
    limits = data.get("limits", {})
    adaptive = wear.get("extrapolation") == "adaptive"
    if adaptive and "real_cycles" not in wear:
        raise ScenarioError(f"{source}: wear.extrapolation = \"adaptive\" needs wear.real_cycles (the real cycles "
                            f"the run stands for)")
    if not adaptive:
        for key in ("real_cycles", "max_extrapolation", "first_extrapolation"):
            if key in wear:
                raise ScenarioError(f"{source}: wear.{key} is for wear.extrapolation = \"adaptive\" (a fixed factor "
                                    f"stands for cycles x extrapolation real cycles)")
    s = Scenario(
        name=name, source=source, description=data.get("description", ""),
        model=fmu.get("model", ""),
        fmu_path=str((base / fmu["path"]).resolve()) if fmu.get("path") else "",
        package=str((base / fmu["package"]).resolve()) if fmu.get("package") else "",
        prefix=(system["wear_component"] + ".") if system else fmu.get("prefix", ""),
        system_file=str((base / system["file"]).resolve()) if system else "",
        wear_component=system.get("wear_component", ""),
        start=dict(data.get("start", {})),
        k=float(wear["k"]), hardness=float(wear["hardness"]),
        cycles=int(wear.get("cycles", max(1, int(min(float(wear.get("real_cycles", 1)), 1e4))) if adaptive else 1)),
        period=period, update_cycles=int(wear.get("update_cycles", 1)),
        extrapolation=1.0 if adaptive else float(wear.get("extrapolation", 1.0)),
        smoothing=int(wear.get("smoothing", 0)), adaptive=adaptive,
        real_cycles=float(wear.get("real_cycles", 0.0)), rtol=float(wear.get("rtol", 0.01)),
        max_extrapolation=float(wear.get("max_extrapolation", math.inf)),
        first_extrapolation=float(wear.get("first_extrapolation", 1.0)),
        steps_per_cycle=int(run.get("steps_per_cycle", 500)), tolerance=float(run.get("tolerance", 1e-7)),
        record=list(run.get("record", [])), decimate=int(run.get("decimate", 1)),
        record_every=int(run.get("record_every", 1)),
        transient_cycles=int(run.get("transient_cycles", 0)), backend=run.get("backend", "fmpy"),
        solver=int(run.get("solver", 0)),
        depth_per_clearance=float(limits.get("depth_per_clearance", 4.0)),
        update_per_clearance=float(limits.get("update_per_clearance", 0.1)),
        clearance=float(limits.get("clearance", 0.0)), force=bool(limits.get("force", False)), raw=data,
        base=str(base))
    checks = [
        (s.k >= 0, "wear.k must be >= 0"), (s.hardness > 0, "wear.hardness must be > 0 (Pa)"),
        (s.cycles >= 1, "wear.cycles must be >= 1"), (s.period > 0, "wear.period / omega must be > 0"),
        (s.update_cycles >= 1, "wear.update_cycles must be >= 1"),
        (s.extrapolation >= 1, "wear.extrapolation must be >= 1"), (s.smoothing >= 0, "wear.smoothing must be >= 0"),
        (0 < s.rtol < 1, "wear.rtol must be in (0, 1)"),
        (not s.adaptive or s.real_cycles >= 1, "wear.real_cycles must be >= 1"),
        (not s.adaptive or s.max_extrapolation >= 1, "wear.max_extrapolation must be >= 1"),
        (not s.adaptive or s.first_extrapolation >= 1, "wear.first_extrapolation must be >= 1"),
        (10 <= s.steps_per_cycle <= STEPS_PER_CYCLE_MAX,
         f"run.steps_per_cycle must be between 10 and {STEPS_PER_CYCLE_MAX:,} (one cycle's samples are held in "
         f"memory), got {s.steps_per_cycle}"),
        (0 < s.tolerance < 1, "run.tolerance must be in (0, 1)"), (s.decimate >= 1, "run.decimate must be >= 1"),
        (s.record_every >= 1, "run.record_every must be >= 1 (cycles)"),
        (s.transient_cycles >= 0, "run.transient_cycles must be >= 0"),
        (all(isinstance(r, str) for r in s.record), "run.record must be a list of variable names"),
        (s.solver in (0, 1, 2, 3), "run.solver must be 0 (auto), 1 (Dormand-Prince), 2 (implicit) or 3 (Adams)"),
        (s.backend in ("fmpy", "pyfmi"), f"run.backend must be 'fmpy' or 'pyfmi', got {s.backend!r}"),
        (s.depth_per_clearance > 0, "limits.depth_per_clearance must be > 0"),
        (s.update_per_clearance > 0, "limits.update_per_clearance must be > 0"),
        (s.clearance == 0 or CLEARANCE_RANGE[0] <= s.clearance <= CLEARANCE_RANGE[1],
         f"limits.clearance must be 0 (the FMU's parameter c) or between {CLEARANCE_RANGE[0]:g} and "
         f"{CLEARANCE_RANGE[1]:g} m, got {s.clearance!r}"),
    ]
    for section in ("wear", "run", "limits"):
        for k, v in (data.get(section) or {}).items():
            if isinstance(v, float) and not math.isfinite(v):
                raise ScenarioError(f"{source}: {section}.{k} must be a finite number, got {v!r}")
    for ok, msg in checks:
        if not ok:
            raise ScenarioError(f"{source}: {msg}")
    for k, v in s.start.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ScenarioError(f"{source}: start value 'start.{k}' must be a finite number, got {v!r}")
    return s
