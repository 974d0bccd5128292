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
import math
import os
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .model import System

MASTERS = ("strong", "cosim")

#: the most output points a run writes unless told otherwise ('--max-points', the environment
#: variable WEARCOSIM_MAX_POINTS, or ``max_points=``): each point is one CSV row, 10**6 rows of
#: 20 variables are about 400 MB; a stopTime of 1e300 would otherwise run for ever
MAX_POINTS = 1_000_000
MAX_POINTS_ENV = "WEARCOSIM_MAX_POINTS"


def max_points() -> int:
    """The output-point limit: ``$WEARCOSIM_MAX_POINTS`` when set, else :data:`MAX_POINTS`."""
    raw = os.environ.get(MAX_POINTS_ENV, "").strip()
    if not raw:
        return MAX_POINTS
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"{MAX_POINTS_ENV}={raw!r} must be a whole number >= 1 (the most output points of a run)")
    return n


def run_problem(stop: float, step: float, start: float = 0.0, tolerance: float | None = None,
                limit: int | None = None, names: dict | None = None) -> str | None:
    """Why a run from ``start`` to ``stop`` with output every ``step`` (and ``tolerance``) must
    not start (None: it may): non-finite or non-positive values, stop not after start, more
    than ``limit`` output points (default :func:`max_points`).  ``names`` maps "stop",
    "step", "tolerance", "max_points" to what the user calls them (an option, an argument)."""
    n = {"stop": "stop_time", "step": "step", "tolerance": "tolerance", "max_points": "max_points",
         **(names or {})}
    limit = max_points() if limit is None else limit
    if not (isinstance(limit, int) and limit >= 1):
        return f"{n['max_points']} must be a whole number >= 1, got {limit!r}"
    for key, x in (("step", step), ("stop", stop)):
        if not (isinstance(x, (int, float)) and math.isfinite(x) and x > 0):
            return f"{n[key]} must be a finite number > 0 (s), got {x!r}"
    if tolerance is not None and not (isinstance(tolerance, (int, float)) and math.isfinite(tolerance)
                                      and 0 < tolerance < 1):
        return f"{n['tolerance']} must be in (0, 1), got {tolerance!r}"
    start = 0.0 if start is None else start
    if not math.isfinite(start):
        return f"the start time {start!r} is not a finite number"
    if not stop > start:
        return f"{n['stop']} {stop:g} s is not after the start time {start:g} s"
    points = (stop - start) / step
    if points > limit:
        return (f"{n['stop']} {stop:g} s with {n['step']} {step:g} s gives {points:.3g} output points, "
                f"more than {n['max_points']} {limit} (raise it if that is meant)")
    return None


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
        from ..atomic import named
        try:
            build_container(system, dest, name=system.name)
        except OSError as exc:                   # a full disk names the file, not only '[Errno 28]'
            raise named(exc, dest) from None
        log(f"built container {dest.name}")
    return dest


def simulate(system: System, stop_time: float, step: float, master: str = "strong", tolerance: float | None = None,
             record: Sequence[str] | None = None, start_values: dict[str, Any] | None = None,
             cache_dir: str | Path | None = None, solver: int | None = None, log: Callable[[str], Any] = print,
             max_points: int | None = None, **cosim: Any) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, Any]]:
    """Run ``system`` to ``stop_time`` with results every ``step`` seconds.  ``master``:
    ``"strong"`` (the container, its embedded error-controlled solver; ``solver``: the
    container's ``solver.method``) or ``"cosim"`` (:func:`wearcosim.system.cosim.run_cosim`
    with ``step`` as communication step; ``**cosim`` its options).  Returns
    ``(time, {name: values}, info)``.  An absurd experiment (see :func:`run_problem`; at most
    ``max_points`` output points, default :func:`max_points`) raises ValueError before
    anything is built or written."""
    if master not in MASTERS:
        raise ValueError(f"master must be one of {', '.join(MASTERS)}, not {master!r}")
    why = run_problem(stop_time, step, system.start_time or 0.0, tolerance, max_points)
    if why:
        raise ValueError(f"{system.where}: {why}")
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
