"""Run a system: the strongly coupled container (Model Exchange, one solver) or the
co-simulation master (Co-Simulation FMUs at communication points).

:func:`container_fmu` builds the container FMU of a system once and keeps it in a cache folder
under a name that is a digest of everything it is made of (the component FMUs' contents, the
parameters, the connections), so a swapped component or a changed parameter gives a new
container and an unchanged system reuses the old one.  :func:`simulate` runs either master and
returns ``(time, {name: values})`` with the ``<component>.<variable>`` names of both.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .model import System

MASTERS = ("strong", "cosim")


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def system_digest(system: System) -> str:
    """Digest of what a container of ``system`` is built from."""
    from . import container
    h = hashlib.sha256()
    h.update(json.dumps({
        "name": system.name,
        "components": [(c.name, _file_digest(Path(c.path)), sorted((k, repr(v)) for k, v in c.parameters.items()))
                       for c in system.components],
        "connections": [(x.start_element, x.start_connector, x.end_element, x.end_connector) for x in system.connections],
        "parameters": sorted((k, repr(v)) for k, v in (getattr(system, "parameters", None) or {}).items()),
    }).encode())
    from ..resources import fmu_sources
    src = fmu_sources()
    for f in sorted(list((src / "container").glob("*.[ch]")) + list((src / "runtime").glob("*.[ch]"))):
        h.update(f.name.encode() + _file_digest(f).encode())
    h.update(_file_digest(Path(container.__file__)).encode())
    return h.hexdigest()[:16]


def container_fmu(system: System, cache_dir: str | Path, log: Callable[[str], Any] = print) -> Path:
    """The container FMU of ``system`` in ``cache_dir`` (built when missing)."""
    from .container import build_container
    from ..names import safe_stem
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    # the system's name comes from the .ssd: only its plain-stem form becomes a file name
    dest = cache_dir / f"{safe_stem(system.name, 'system')}-{system_digest(system)}.fmu"
    if not dest.exists():
        build_container(system, dest, name=system.name)
        log(f"built container {dest.name}")
    return dest


def simulate(system: System, stop_time: float, step: float, master: str = "strong", tolerance: float | None = None,
             record: Sequence[str] | None = None, start_values: dict[str, Any] | None = None,
             cache_dir: str | Path | None = None, solver: int | None = None, log: Callable[[str], Any] = print,
             **cosim: Any) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, Any]]:
    """Run ``system`` to ``stop_time`` with results every ``step`` seconds.  ``master``:
    ``"strong"`` (the container, its embedded error-controlled solver; ``solver``: the
    container's ``solver.method``) or ``"cosim"`` (:func:`wearcosim.system.cosim.run_cosim`
    with ``step`` as communication step; ``**cosim`` its options).  Returns
    ``(time, {name: values}, info)``."""
    if master not in MASTERS:
        raise ValueError(f"master must be one of {', '.join(MASTERS)}, not {master!r}")
    if master == "cosim":
        from .cosim import run_cosim
        r = run_cosim(system, stop_time, step, record=record, tolerance=tolerance, start_values=start_values, **cosim)
        return r.time, dict(r.values), {"stats": r.stats, "master": "cosim"}
    import fmpy
    fmu = container_fmu(system, cache_dir or Path(system.components[0].path).parent / ".containers", log)
    starts = dict(start_values or {})
    if solver is not None:
        starts["solver.method"] = int(solver)
    names = list(record) if record else None
    diag = ["_container.nRhs", "_container.nEvents"]
    res = fmpy.simulate_fmu(str(fmu), stop_time=stop_time, output_interval=step, relative_tolerance=tolerance,
                            start_values=starts, output=(names + diag) if names else None)
    values = {n: np.asarray(res[n]) for n in res.dtype.names if n != "time" and not n.startswith("_container.")}
    info = {"master": "strong", "fmu": str(fmu), "nRhs": int(res["_container.nRhs"][-1]) if names else None,
            "nEvents": int(res["_container.nEvents"][-1]) if names else None}
    return np.asarray(res["time"]), values, info
