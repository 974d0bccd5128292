"""The composed examples: each monolithic example of the library written as a system of
component FMUs (``WearCosim.Components``), kept as SSP files in ``cosim/systems/``.

``python -m wearcosim.system.examples`` (re)writes the ``.ssd`` files from the table below;
:func:`ensure_fmus` builds the component FMUs a system refers to (``fmus/<Name>.fmu`` beside
the ``.ssd``, git-ignored) when they are missing or older than the library.  The monolithic
example of each system is its oracle (tests/system/test_composed_examples.py).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, Callable

from .model import Component, Connection, System

from ..resources import data_root

SYSTEMS = data_root() / "cosim" / "systems"
FMU_FOLDER = "fmus"

_JOINT_PORTS = ["rB[1]", "rB[2]", "vB[1]", "vB[2]", "phiB", "wB", "rJ[1]", "rJ[2]", "vJ[1]", "vJ[2]", "wJ"]
_JOINT_LOADS = ["F[1]", "F[2]", "tauJ", "tauB"]
_HUB = [f"{q}{w}[{i}]" for w in "AB" for q in ("u", "v", "phi", "w") for i in (1, 2, 3)]
_MESH_LOADS = [f"{q}{w}[{i}]" for w in "AB" for q in ("f", "t") for i in (1, 2, 3)]
# the hybrid mechanism's D3 joint: bronze bearing, steel journal, seed 002's friction, squeeze film
_BRONZE = {"E_bearing": 110e9, "nu_bearing": 0.34, "mu_d": 0.1, "wedgeScale": 0.0}


def _same(a: str, b: str, ports):
    return [Connection(a, p, b, p) for p in ports]


def _mechanism(name, description, body, body_par, joint, joint_par, monolithic, stop):
    return dict(name=name, description=description, monolithic=monolithic, stop=stop,
                components=[("body", body, body_par), ("joint", joint, joint_par)],
                connections=_same("body", "joint", _JOINT_PORTS) + _same("joint", "body", _JOINT_LOADS),
                wear="joint")


#: name -> definition (components: (instance, FMU name = last part of the class name, parameters))
EXAMPLES = {e["name"]: e for e in [
    _mechanism("slider_crank_dry", "Slider-crank, dry clearance joint (Flores-Ambrosio benchmark)",
               "SliderCrankBody", {}, "RevoluteClearanceDry", {},
               "WearCosim.Examples.SliderCrank.SliderCrankDry", 0.048),
    _mechanism("slider_crank_lubricated", "Slider-crank, lubricated clearance joint (Flores hybrid)",
               "SliderCrankBody", {}, "RevoluteClearanceLubricated", {},
               "WearCosim.Examples.SliderCrank.SliderCrankLubricated", 0.048),
    _mechanism("hybrid_dry_32pi", "3-CPaR&R1R2 hybrid mechanism, dry D3 joint, c = 0.25 mm, 32 pi rad/s",
               "HybridMechanismBody", {"omega": 32 * math.pi}, "RevoluteClearanceDry", {"c": 0.25e-3, **_BRONZE},
               "WearCosim.Examples.HybridMechanism.DrySpeed32pi", 0.125),
    _mechanism("hybrid_dry_7pi", "3-CPaR&R1R2 hybrid mechanism, dry D3 joint, c = 0.20 mm, 7 pi rad/s",
               "HybridMechanismBody", {"omega": 7 * math.pi}, "RevoluteClearanceDry", {"c": 0.20e-3, **_BRONZE},
               "WearCosim.Examples.HybridMechanism.Dry7pi", 0.571),
    _mechanism("hybrid_lubricated_7pi", "3-CPaR&R1R2 hybrid mechanism, lubricated D3 joint, c = 0.20 mm, 7 pi rad/s",
               "HybridMechanismBody", {"omega": 7 * math.pi}, "RevoluteClearanceLubricated", {"c": 0.20e-3, **_BRONZE},
               "WearCosim.Examples.HybridMechanism.Lubricated7pi", 0.571),
    dict(name="cardona_case1", description="Cardona's spatial gear pair, case 1 (no backlash, rigid supports)",
         monolithic="WearCosim.Examples.Gears.CardonaCase1", stop=0.02,
         components=[("drive", "CardonaDrive", {}), ("mesh", "CardonaMesh", {"data.b_in": 0.0})],
         connections=_same("drive", "mesh", _HUB) + _same("mesh", "drive", _MESH_LOADS), wear="mesh"),
    dict(name="cardona_case2", description="Cardona's spatial gear pair, case 2 (backlash, rigid supports)",
         monolithic="WearCosim.Examples.Gears.CardonaCase2", stop=0.02,
         components=[("drive", "CardonaDrive", {}), ("mesh", "CardonaMesh", {"data.b_in": 0.001968})],
         connections=_same("drive", "mesh", _HUB) + _same("mesh", "drive", _MESH_LOADS), wear="mesh"),
    dict(name="two_disk_rub", description="Two-disk flexible rotor rubbing on a misaligned rigid stator (seed 004)",
         monolithic="WearCosim.Examples.Rotor.TwoDiskRub", stop=1.5,
         components=[("rotor", "TwoDiskRotor", {}), ("stator", "RubStator", {})],
         connections=[Connection("rotor", f"rNode[{i}]", "stator", f"rR[{i}]") for i in (1, 2)] +
                     [Connection("rotor", f"vNode[{i}]", "stator", f"vR[{i}]") for i in (1, 2)] +
                     [Connection("rotor", "Omega", "stator", "Omega")] +
                     [Connection("stator", f"F[{i}]", "rotor", f"Fext[{i}]") for i in (1, 2)], wear="stator"),
]}


def component_classes(package: str | Path | None = None) -> dict[str, str]:
    """FMU name (last part of the class name) -> class, for every model of WearCosim.Components."""
    from ..export import frontend
    from ..export.build import DEFAULT_PACKAGE
    return {m.split(".")[-1]: m for m in frontend.list_models(Path(package or DEFAULT_PACKAGE), "WearCosim.Components")}


def system_of(name: str) -> System:
    """The System of a composed example (sources ``fmus/<Name>.fmu``, relative to cosim/systems)."""
    e = EXAMPLES[name]
    comps = [Component(inst, f"{FMU_FOLDER}/{fmu}.fmu", path=SYSTEMS / FMU_FOLDER / f"{fmu}.fmu", parameters=dict(par))
             for inst, fmu, par in e["components"]]
    return System(name=name, components=comps, connections=list(e["connections"]), description=e["description"],
                  start_time=0.0, stop_time=e["stop"])


def ensure_fmus(system: System, log: Callable[[str], Any] = print) -> System:
    """Build the component FMUs of ``system`` that are missing or older than the library, when
    their file name names a model of WearCosim.Components (other FMUs are the user's: only
    checked to exist, by the validator)."""
    from ..export.build import DEFAULT_PACKAGE
    from ..export.ondemand import ensure_fmu, sources_mtime
    classes, newest = None, None
    for c in system.components:
        p = Path(c.path) if c.path else None
        if p is None or p.suffix != ".fmu":
            continue
        if classes is None:
            classes, newest = component_classes(), sources_mtime(DEFAULT_PACKAGE)
        if p.stem in classes:
            ensure_fmu(classes[p.stem], p.parent, DEFAULT_PACKAGE, log, newest)
    return system


def declare_connectors(system: System) -> System:
    """Declare on each component the connectors its connections use, with causality, type and
    unit from its FMU (SSP tools such as libcosim read a connection's ports from there)."""
    from .model import Connector
    from .validate import interface
    for c in system.components:
        used = sorted({x.start_connector for x in system.connections if x.start_element == c.name} |
                      {x.end_connector for x in system.connections if x.end_element == c.name},
                      key=lambda n: [int(t) if t.isdigit() else t for t in n.replace("[", " [ ").replace("]", " ] ").split()])
        it = interface(c.path)
        if it.error:
            raise FileNotFoundError(f"{c.path}: {it.error}")
        c.connectors = []
        for n in used:
            v = it.variables[n]
            c.connectors.append(Connector(n, v.causality, v.type, it.unit(n) if v.type == "Real" else "",
                                          v.description or ""))
    return system


def write_all(folder: Path = SYSTEMS, log: Callable[[str], Any] = print) -> list[Path]:
    """(Re)write every composed example's .ssd in ``folder`` (building the component FMUs
    first: the connectors' types and units are read from them)."""
    from .ssp import write_ssd
    out = []
    for name in EXAMPLES:
        s = declare_connectors(ensure_fmus(system_of(name), log))
        out.append(write_ssd(s, Path(folder) / f"{name}.ssd"))
        log(f"wrote {out[-1]}")
    return out


if __name__ == "__main__":
    write_all()
    sys.exit(0)
