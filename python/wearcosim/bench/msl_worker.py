"""The subprocess side of the MSL ladder (:mod:`wearcosim.bench.msl`): the builds in build
servers (or one per process), each simulation in a process of its own, so that a build or an
FMU that hangs or crashes stops only itself and the ladder goes on.

``python -m wearcosim.bench.msl_worker build LIBRARY CLASS OUT``
    runs ``wearcosim build --library LIBRARY CLASS --out OUT`` in this process -- the command
    line's own ``main``, exactly what a user types -- and prints :data:`FRONT_END_DONE` on
    stderr when the exporter's front end (``wearcosim.export.build.load``: class lookup, rumoca,
    the flat model) has returned, which tells the ladder whether a failed build stopped in the
    front end or in a later pass.  The exporter itself is not changed: the marker wraps the
    function in this process only.

``python -m wearcosim.bench.msl_worker serve``
    the same builds, one per request read from stdin, in one process that keeps the
    libraries rumoca has loaded (:func:`serve`; the ladder's default).

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
    front-end marker; returns the command's exit code.  The markers are put in for the call
    and taken out afterwards (a build server, :func:`serve`, runs many)."""
    from wearcosim import cli
    from wearcosim.export import build as _build
    from wearcosim.export import frontend
    load0 = getattr(_build, "load", None)
    flat0 = getattr(frontend, "_rumoca_flat", None)      # (_mark_rumoca wraps it)
    if load0 is not None:
        def load(*args: Any, **kw: Any) -> Any:
            model = load0(*args, **kw)
            print(FRONT_END_DONE, file=sys.stderr, flush=True)
            return model
        _build.load = load  # type: ignore[assignment]
    _mark_rumoca()
    try:
        return cli.main(["build", "--library", library, name, "--out", out])
    finally:
        if load0 is not None:
            _build.load = load0  # type: ignore[assignment]
        if flat0 is not None:
            frontend._rumoca_flat = flat0  # type: ignore[assignment]


def serve() -> int:
    """A build server: one build per request, many requests per process, so the libraries
    rumoca has loaded stay loaded (the front end keeps its session between builds: an MSL
    example's front end about 10 s of CPU in a new process, 2 s in this one).  A request is
    one JSON line on stdin, ``{"library", "name", "out", "log", "tmp"}``: :func:`build` runs
    with its output (file descriptors 1 and 2, so the compiler's and rumoca's as well) into
    ``log``, ``tmp`` as its temporary folder and working directory; the answer is one JSON line
    on stdout, ``{"rc": exit code, "cpu": CPU seconds of the build and its compilers}``.  Ends at
    the end of stdin.  A crash or a hang ends the process: the ladder then records the example
    as it would a build process of its own, and starts a new server for the next one."""
    import os
    import tempfile
    import traceback
    from wearcosim.export import frontend
    from wearcosim.export.build import cpu_seconds as cpu
    answer = os.fdopen(os.dup(1), "w", encoding="utf-8")
    frontend._process_rumoca_cache()        # in the server's own temporary folder, for its life
    home = os.getcwd()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        c0 = cpu()
        with open(req["log"], "wb") as log:
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            os.environ["TMPDIR"] = tempfile.tempdir = req["tmp"]
            os.chdir(req["tmp"])
            try:
                rc = build(req["library"], req["name"], req["out"])
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 1
            except BaseException:                 # noqa: BLE001 -- the build's, told in its log
                traceback.print_exc()
                rc = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os.chdir(home)
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                for fd in saved:
                    os.close(fd)
        answer.write(json.dumps({"rc": rc, "cpu": cpu() - c0}) + "\n")
        answer.flush()
    return 0


def _mark_rumoca() -> None:
    """Print :data:`RUMOCA_MARK` with rumoca's verdict on the model as it is: the front end's
    first compile (not of a partial class, not of the rewritten view), for one build."""
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
    """Dispatch ``build LIBRARY CLASS OUT``, ``serve`` or ``simulate SPEC.json``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) == 4 and args[0] == "build":
        return build(args[1], args[2], args[3])
    if args == ["serve"]:
        return serve()
    if len(args) == 2 and args[0] == "simulate":
        return simulate(json.loads(Path(args[1]).read_text(encoding="utf-8")))
    print("error: usage: python -m wearcosim.bench.msl_worker build LIBRARY CLASS OUT | serve | simulate SPEC.json",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
