"""The subprocess side of the MSL ladder (:mod:`wearcosim.bench.msl`): one build or one
simulation per process, so that a build or an FMU that hangs or crashes stops only itself.

``python -m wearcosim.bench.msl_worker build LIBRARY CLASS OUT``
    runs ``wearcosim build --library LIBRARY CLASS --out OUT`` in this process -- the command
    line's own ``main``, exactly what a user types -- and prints :data:`FRONT_END_DONE` on
    stderr when the exporter's front end (``wearcosim.export.build.load``: class lookup, rumoca,
    the flat model) has returned, which tells the ladder whether a failed build stopped in the
    front end or in a later pass.  The exporter itself is not changed: the marker wraps the
    function in this process only.

``python -m wearcosim.bench.msl_worker simulate SPEC.json``
    simulates an FMU in Co-Simulation with FMPy as SPEC says (``fmu``, ``unzipdir``,
    ``result``, ``start``, ``stop``, ``interval``, ``tolerance``, ``signals``) and writes the
    time and the signals that are variables of the FMU into ``result`` (``.npz``: ``time``,
    ``names``, ``values``; atomically).  A failure prints one ``error: ...`` line, exit 1.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

#: printed on stderr once the exporter's front end has returned a flat model
FRONT_END_DONE = "wearcosim-msl: front end done"
#: printed on stderr with "loads" or "refuses: <its message>" once rumoca (the front end's
#: Modelica compiler) has compiled the example as it is -- before the exporter's own rewrites of
#: what rumoca refuses (issue 38 measures the examples rumoca loads and those it refuses apart)
RUMOCA_MARK = "wearcosim-msl: rumoca "


def build(library: str, name: str, out: str) -> int:
    """``wearcosim build --library LIBRARY NAME --out OUT`` in this process, with the
    front-end marker; returns the command's exit code."""
    from wearcosim import cli
    from wearcosim.export import build as _build
    original = getattr(_build, "load", None)
    if original is not None:
        def load(*args: Any, **kw: Any) -> Any:
            model = original(*args, **kw)
            print(FRONT_END_DONE, file=sys.stderr, flush=True)
            return model
        _build.load = load  # type: ignore[assignment]
    _mark_rumoca()
    return cli.main(["build", "--library", library, name, "--out", out])


def _mark_rumoca() -> None:
    """Print :data:`RUMOCA_MARK` with rumoca's verdict on the model as it is: the front end's
    first compile (not of a partial class, not of the rewritten view), in this process only."""
    from wearcosim.export import frontend
    original = getattr(frontend, "_rumoca_flat", None)
    if original is None:
        return
    said = []

    def rumoca_flat(src: Any, model: str, text: str, partial: bool = False, rewritten: Any = None) -> Any:
        first = not said and not partial and not rewritten
        try:
            flat = original(src, model, text, partial, rewritten)
        except Exception as exc:
            if first:
                said.append(1)
                print(f"{RUMOCA_MARK}refuses: {' '.join(str(exc).split())[:300]}", file=sys.stderr, flush=True)
            raise
        if first:
            said.append(1)
            print(f"{RUMOCA_MARK}loads", file=sys.stderr, flush=True)
        return flat
    frontend._rumoca_flat = rumoca_flat  # type: ignore[assignment]


def simulate(spec: dict[str, Any]) -> int:
    """Simulate ``spec["fmu"]`` in Co-Simulation and save the requested signals that the FMU
    has; returns 0, or 1 after printing one ``error:`` line."""
    import numpy as np
    from fmpy import extract, read_model_description, simulate_fmu
    from wearcosim.atomic import atomic_path
    unzipdir = Path(spec["unzipdir"])
    try:
        md = read_model_description(spec["fmu"])
        have = {v.name for v in md.modelVariables}
        names = [s for s in spec["signals"] if s in have]
        extract(spec["fmu"], unzipdir=str(unzipdir))
        r = simulate_fmu(str(unzipdir), fmi_type="CoSimulation", start_time=spec["start"],
                         stop_time=spec["stop"], output_interval=spec["interval"],
                         relative_tolerance=spec["tolerance"], output=names, model_description=md)
        time = np.asarray(r["time"], dtype=float)
        values = np.array([np.asarray(r[n], dtype=float) for n in names]).reshape(len(names), len(time))
        with atomic_path(spec["result"], suffix=".npz") as tmp:
            with open(tmp, "wb") as f:
                np.savez(f, time=time, names=np.array(names, dtype=str), values=values)
        return 0
    except Exception as exc:                      # noqa: BLE001 -- any failure is the simulation's
        msg = " ".join(str(exc).split()) or type(exc).__name__
        print(f"error: {type(exc).__name__}: {msg}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(unzipdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``build LIBRARY CLASS OUT`` or ``simulate SPEC.json``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) == 4 and args[0] == "build":
        return build(args[1], args[2], args[3])
    if len(args) == 2 and args[0] == "simulate":
        return simulate(json.loads(Path(args[1]).read_text(encoding="utf-8")))
    print("error: usage: python -m wearcosim.bench.msl_worker build LIBRARY CLASS OUT | simulate SPEC.json",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
