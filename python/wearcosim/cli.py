"""Command line: ``wearcosim build | check | simulate | run | plot | study | demo | system``.

One error path: every error a user can cause (a bad scenario, FMU, model, path, a full
disk, ...) ends the command with one line ``error: ...`` on stderr and exit status 1 (2 for
wrong command-line usage, 130 when interrupted, 143 on SIGTERM/SIGHUP); ``--debug`` shows the traceback instead.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .progress import say as _say
from .progress import steps as _steps


class UsageError(Exception):
    """A wrong combination of command-line arguments."""


def _err(msg: str) -> int:
    raise UsageError(msg)


def cmd_build(args: argparse.Namespace) -> int:
    from .export import frontend, openmodelica
    from .export.build import DEFAULT_PACKAGE, build_fmu
    from .resources import build_dir
    from .export.errors import ExportError
    package_dir = Path(args.package or DEFAULT_PACKAGE)
    out = Path(args.out) if args.out else build_dir()
    backend = args.backend
    if backend == "auto":
        backend = "openmodelica" if openmodelica.available() else "native"
    if args.file and not Path(args.file).is_file():
        return _err(f"--file {args.file}: no such file")
    for lib in args.library:
        if not Path(lib).is_dir():
            return _err(f"--library {lib}: no such folder")
    if args.library:      # searched first, as if prepended to MODELICAPATH (specification 13.3.3)
        import os
        os.environ["MODELICAPATH"] = os.pathsep.join(
            [str(Path(x).resolve()) for x in args.library] + [p for p in [os.environ.get("MODELICAPATH")] if p])
    if not args.file and not package_dir.is_dir():
        return _err(f"--package {package_dir}: no such folder")
    try:
        if args.file:
            models = args.models
            if not models:
                return _err("--file needs the model name(s) to build")
        else:
            models = args.models or frontend.list_models(package_dir, args.prefix)
        if not models:
            return _err(f"no models found below {args.prefix} in {package_dir}")
        seen = {}
        for m in models:
            short = m.split(".")[-1]
            if short in seen:
                return _err(f"two models would build {short}.fmu: {seen[short]} and {m}")
            seen[short] = m
        rc = 0
        for m in _steps(models, "build", unit="FMU"):
            try:
                if backend == "openmodelica":
                    p = openmodelica.build_fmu(m, package_dir, out)
                    _say(f"built {p} (OpenModelica)")
                else:
                    r = build_fmu(m, package_dir, out, path=args.file, expose_protected=args.expose_protected)
                    _say(f"built {r.fmu}  [{r.seconds:.2f} s, {r.n_states} states, "
                         f"{r.n_event_indicators} event indicators]")
            except ExportError as exc:
                _say(f"error: {exc}", sys.stderr)
                rc = 1
                if not args.keep_going:
                    return rc
        return rc
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def cmd_check(args: argparse.Namespace) -> int:
    from .fmi.check import validate
    rc = 0
    for f in _steps(args.fmus, "check", unit="FMU"):
        problems = validate(f, smoke=not args.no_smoke)
        if args.wear_interface and not problems:
            from .fmi.check import wear_interface_problems
            problems = wear_interface_problems(f, args.prefix)
        if problems:
            rc = 1
            _say(f"{f}: {len(problems)} problem(s)" + "".join(f"\n  - {p}" for p in problems))
        else:
            _say(f"{f}: OK")
    return rc


def cmd_simulate(args: argparse.Namespace) -> int:
    import numpy as np
    from fmpy import simulate_fmu
    from .fmi.archive import FMUOpenError, remove_temp_dir, safe_extract
    from .fmi.check import binary_problems
    from .fmi.runner import read_md
    from .system.run import run_problem
    opts = {"stop": "--stop", "step": "--step", "max_points": "--max-points"}
    limit = _max_points(args)
    # the options before the FMU is opened, naming them (not the FMI call they would break)
    why = run_problem(args.stop if args.stop is not None else 1.0, args.step if args.step is not None else 1.0,
                      None, None, limit, opts)
    if why and "output points" not in why:
        return _err(why)
    if not Path(args.fmu).is_file():
        raise FMUOpenError(args.fmu, "no such FMU")
    kw = {}
    if args.stop is not None:
        kw["stop_time"] = args.stop
    if args.step is not None:
        kw["output_interval"] = args.step
    fmi_type = "ModelExchange" if args.me else "CoSimulation"
    if args.me:
        kw["solver"] = "CVode"
    # the FMU is opened as 'run' and 'check' open it (one error path: FMUOpenError naming it)
    unzipped = safe_extract(args.fmu)             # size/count limits, no unsafe paths; removed below
    try:
        md = read_md(args.fmu, unzipped)          # schema-validated; no external entities
        missing = binary_problems(args.fmu)
        if missing:
            raise FMUOpenError(args.fmu, missing[0])
        if args.variables:
            known = {v.name for v in md.modelVariables}
            bad = [v for v in args.variables if v not in known]
            if bad:
                raise ValueError(f"{args.fmu}: no variable {bad[0]!r}")
            kw["output"] = list(args.variables)
        if (md.modelExchange if args.me else md.coSimulation) is None:
            raise ValueError(f"{args.fmu}: no {'Model Exchange' if args.me else 'Co-Simulation'} interface")
        if args.step is not None:                 # FMPy spreads its own default over at most 1000 points
            de = md.defaultExperiment
            start = float(de.startTime) if de is not None and de.startTime is not None else 0.0
            stop = args.stop if args.stop is not None else (
                float(de.stopTime) if de is not None and de.stopTime is not None else 1.0)
            if args.stop is None:
                opts["stop"] = f"{args.fmu}: DefaultExperiment stopTime"
            why = run_problem(stop, args.step, start, None, limit, opts)
            if why:
                raise ValueError(why)
        try:
            res = simulate_fmu(str(unzipped), fmi_type=fmi_type, model_description=md, **kw)
        except OSError as exc:                    # the shared library could not be loaded
            raise FMUOpenError(args.fmu, f"cannot load its binary: {exc}") from None
    finally:
        remove_temp_dir(unzipped)
    names = res.dtype.names
    if args.csv:
        from .atomic import atomic_path
        out = Path(args.csv)
        out.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(out) as tmp:             # whole or not at all; an I/O error names the file
            np.savetxt(tmp, np.column_stack([res[n] for n in names]), delimiter=",", header=",".join(names),
                       comments="")
    if args.plot:
        from .plots.timeseries import plot_result
        plot_result(res, args.plot, title=Path(args.fmu).stem)
    print(f"simulated {args.fmu}: {len(res)} rows, variables: {', '.join(names[1:8])}{' ...' if len(names) > 8 else ''}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .master.loop import WearMaster
    from .master.scenario import load
    if args.resume and args.restart:
        return _err("--resume and --restart exclude each other")
    if args.checkpoint_every is not None and not args.checkpoint_every >= 0:
        return _err("--checkpoint-every must be >= 0 seconds")
    sc = load(args.scenario)
    _build_dir(args)
    m = WearMaster(sc, _out(args.out), progress=not args.quiet, force=True if args.force else None)
    if args.checkpoint_every is not None:
        m.checkpoint_seconds = args.checkpoint_every
    path = m.run(resume=args.resume, restart=args.restart)
    print(f"results: {path}")
    if args.plot:
        from .plots.wear import plot_results
        for f in plot_results(path):
            print(f"figure: {f}")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from .plots.wear import plot_results
    for f in plot_results(Path(args.results), args.out):
        print(f"figure: {f}")
    return 0


def cmd_study(args: argparse.Namespace) -> int:
    from .studies.runner import run_study
    if args.workers < 1:
        return _err("--workers must be >= 1")
    if args.sensitivity:
        return _sensitivity(args)
    for opt in ("local", "trajectories", "sobol_n", "top", "grid", "stages", "report_only"):
        if getattr(args, opt) not in (None, False):
            return _err(f"--{opt.replace('_', '-')} is an option of --sensitivity")
    if not args.scenarios:
        return _err("study needs scenario files (or --sensitivity STUDY.toml)")
    _build_dir(args)
    return run_study([Path(p) for p in args.scenarios], _out(args.out, "study"), workers=args.workers,
                     scheduler=args.scheduler, title=args.title)


def _sensitivity(args: argparse.Namespace) -> int:
    """``wearcosim study --sensitivity STUDY.toml``: Morris, Sobol and the trend map, one report."""
    from .studies.sensitivity import load_spec, run_sensitivity
    if args.scenarios:
        return _err("--sensitivity takes the study file, not scenario files")
    if args.local and args.scheduler:
        return _err("give --local or --scheduler, not both")
    for opt in ("trajectories", "sobol_n", "top", "grid"):
        v = getattr(args, opt)
        if v is not None and v < 2:
            return _err(f"--{opt.replace('_', '-')} must be >= 2")
    if args.sobol_n is not None and args.sobol_n & (args.sobol_n - 1):
        return _err(f"--sobol-n must be a power of 2, got {args.sobol_n}")
    spec = load_spec(args.sensitivity)
    default = "sobol,trends" if spec.trends else "sobol"
    stages = ("morris",) + tuple(s for s in (args.stages if args.stages is not None else default).split(",")
                                 if s and s != "morris")
    if args.top is not None and args.top > len(spec.parameters):
        return _err(f"--top {args.top} exceeds the {len(spec.parameters)} parameters of {args.sensitivity}")
    if args.report_only:
        from .studies.sensitivity import load_saved, write_report
        out = _out(args.out, "sensitivity")
        print(f"report: {write_report(load_saved(spec, out), out)}")
        return 0
    _build_dir(args)
    run_sensitivity(spec, _out(args.out, "sensitivity"), workers=args.workers, scheduler=args.scheduler,
                    local=args.local, trajectories=args.trajectories, n=args.sobol_n, top=args.top, grid=args.grid,
                    stages=stages)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo
    _build_dir(args)
    return run_demo(_out(args.out))


def _out(given, sub: str = "") -> Path:
    """The --out folder, or the default below the current folder / $WEARCOSIM_HOME."""
    from .resources import results_dir
    return Path(given) if given else (results_dir() / sub if sub else results_dir())


def _build_dir(args):
    """--build-dir for everything that builds on demand in this process and its workers."""
    if getattr(args, "build_dir", None):
        import os
        os.environ["WEARCOSIM_BUILD_DIR"] = str(Path(args.build_dir).resolve())


# ------------------------------------------------------------------ systems of FMUs (SSP)
# ``wearcosim system check | pack | show``; ``system run`` (the masters) is added by the lead
# next to these, in _add_system_parser.

def _print_table(rows, header):
    rows = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    print("  " + "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    for r in rows:
        print("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def _print_problems(found) -> int:
    for p in found:
        print(f"error: {p}", file=sys.stderr)
    return 1 if found else 0


_RUN_OPTIONS = {"stop": "--stop", "step": "--step", "tolerance": "--tolerance", "max_points": "--max-points"}


def _option_problem(args, limit: int) -> "str | None":
    """--stop/--step/--tolerance/--max-points of 'system run' (and 'system check') alone, before
    any file is opened."""
    from .system.run import run_problem
    why = run_problem(args.stop if args.stop is not None else 1.0, args.step if args.step is not None else 1.0,
                      0.0, getattr(args, "tolerance", None), limit, _RUN_OPTIONS)
    return why if why and "output points" not in why else None


def _experiment_problem(args, system, limit: int) -> "tuple[float | None, str | None]":
    """(stop time, why the run must not start) for ``system`` with the options of ``args``:
    the same for 'system run' and 'system check --step'."""
    from .system.run import run_problem
    stop = args.stop if args.stop is not None else system.stop_time
    if stop is None:
        return None, f"{args.file}: no default experiment stop time: give --stop"
    opts = dict(_RUN_OPTIONS)
    if args.stop is None:
        opts["stop"] = f"{args.file}: DefaultExperiment stopTime"
    return stop, run_problem(stop, args.step, system.start_time or 0.0, getattr(args, "tolerance", None), limit, opts)


def cmd_system_check(args: argparse.Namespace) -> int:
    from .system.ssp import open_system
    from .system.validate import problems
    limit = _max_points(args)
    why = _option_problem(args, limit)
    if why:
        return _err(why)
    with open_system(args.file) as system:
        found = problems(system)
        if not found and args.step is not None:       # what 'system run --step STEP' would refuse
            _, why = _experiment_problem(args, system, limit)
            if why:
                found.append(why)
        n, m = len(system.components), len(system.connections)
    if found:
        return _print_problems(found)
    print(f"{args.file}: OK ({n} component(s), {m} connection(s))")
    return 0


def cmd_system_pack(args: argparse.Namespace) -> int:
    from .system.ssp import open_system, write_ssp
    from .system.validate import problems
    out = Path(args.out)
    if out.suffix.lower() != ".ssp":
        return _err(f"-o {out}: an .ssp archive is written (name it *.ssp)")
    if out.is_dir():
        return _err(f"-o {out}: is a folder")
    with open_system(args.file) as system:
        found = problems(system)
        if found:
            _print_problems(found)
            print(f"error: {args.file}: not packed ({len(found)} problem(s))", file=sys.stderr)
            return 1
        write_ssp(system, out)
        n = len(system.components)
    print(f"packed {out} ({n} component(s))")
    return 0


def cmd_system_show(args: argparse.Namespace) -> int:
    from .system.ssp import open_system
    with open_system(args.file, extract=False) as s:
        title = f"system {s.name!r}" + (f" ({s.ssd_name})" if s.ssd_name and s.ssd_name != s.name else "")
        exp = ""
        if s.start_time is not None or s.stop_time is not None:
            stop = f"{s.stop_time:g}" if s.stop_time is not None else "?"
            exp = f", default experiment {s.start_time if s.start_time is not None else 0:g} .. {stop} s"
        print(f"{args.file}: {title}, SSP {s.version}, {len(s.components)} component(s), "
              f"{len(s.connections)} connection(s){exp}")
        print("components:")
        _print_table([(c.name, c.source, c.implementation, len(c.parameters)) for c in s.components],
                     ("name", "source", "implementation", "parameters"))
        print("ports:")
        ports = [("(system)", c.name, c.kind, c.type or "-", c.unit or "-") for c in s.connectors]
        ports += [(comp.name, c.name, c.kind, c.type or "-", c.unit or "-")
                  for comp in s.components for c in comp.connectors]
        _print_table(ports, ("element", "connector", "kind", "type", "unit"))
        print("connections:")
        _print_table([(c.start, "->", c.end) for c in s.connections], ("start", "", "end"))
        params = [(comp.name, k, v) for comp in s.components for k, v in comp.parameters.items()]
        params += [("(system)", k, v) for k, v in s.parameters.items()]
        if params:
            print("parameters:")
            _print_table(params, ("element", "name", "value"))
    return 0


def cmd_system_run(args: argparse.Namespace) -> int:
    import numpy as np
    from .atomic import write_bytes
    from .system.examples import ensure_fmus
    from .system.run import simulate
    from .system.ssp import open_system
    from .system.validate import problems
    limit = _max_points(args)
    why = _option_problem(args, limit)     # the options alone, before any file is opened
    if why:
        return _err(why)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        return _err(f"--out {out}: is not a folder")
    with open_system(args.file) as system:
        ensure_fmus(system)
        found = problems(system)             # what 'system check' says
        if found:
            return _print_problems(found)
        stop, why = _experiment_problem(args, system, limit)
        if why:
            return _err(why)
        record = [r.strip() for r in args.record.split(",") if r.strip()] or None
        cache = out / ".containers"         # the container FMU is written where the user said, nowhere else
        options = {"algorithm": args.algorithm} if args.master == "cosim" else {}
        t, values, info = simulate(system, stop, args.step, master=args.master, tolerance=args.tolerance,
                                   record=record, cache_dir=cache, max_points=limit, **options)
    names = list(values)
    data = np.column_stack([t] + [values[n] for n in names])
    lines = [",".join(["time"] + names)] + [",".join(f"{x:.17g}" for x in row) for row in data]
    dest = out / f"{Path(args.file).stem}.csv"
    out.mkdir(parents=True, exist_ok=True)
    write_bytes(dest, ("\n".join(lines) + "\n").encode())
    counts = f", {info['nRhs']} right-hand sides, {info['nEvents']} events" if info.get("nRhs") is not None else ""
    print(f"simulated {args.file} ({args.master}): {len(t)} points, {len(names)} variables -> {dest}{counts}")
    return 0


def _max_points(args) -> int:
    """--max-points, else $WEARCOSIM_MAX_POINTS, else wearcosim.system.run.MAX_POINTS."""
    from .system.run import max_points
    return args.max_points if args.max_points is not None else max_points()


def _add_system_parser(sub):
    sy = sub.add_parser("system", help="systems of FMUs described in SSP (.ssd / .ssp): check, pack, show, run")
    ssub = sy.add_subparsers(dest="system_cmd", required=True, metavar="SUBCOMMAND")
    ck = ssub.add_parser("check", help="check a system against its FMUs (one 'error:' line per problem)")
    ck.add_argument("file", metavar="FILE.ssd|FILE.ssp")
    ck.add_argument("--step", type=float, help="also check the experiment 'system run --step STEP' would run")
    ck.add_argument("--stop", type=float, help="with --step: the stop time (default: the default experiment's)")
    ck.add_argument("--max-points", type=int, default=None, metavar="N",
                    help="with --step: the output-point limit (default $WEARCOSIM_MAX_POINTS, else 1,000,000)")
    ck.set_defaults(func=cmd_system_check)
    pk = ssub.add_parser("pack", help="bundle an .ssd and the FMUs it references into an .ssp archive")
    pk.add_argument("file", metavar="FILE.ssd")
    pk.add_argument("-o", "--out", required=True, metavar="OUT.ssp")
    pk.set_defaults(func=cmd_system_pack)
    sh = ssub.add_parser("show", help="components, ports and connections of a system, as tables")
    sh.add_argument("file", metavar="FILE.ssd|FILE.ssp")
    sh.set_defaults(func=cmd_system_show)
    rn = ssub.add_parser("run", help="simulate a system: strongly coupled (one solver over the components' "
                                      "Model-Exchange interfaces, default) or co-simulated")
    rn.add_argument("file", metavar="FILE.ssd|FILE.ssp")
    rn.add_argument("--master", choices=("strong", "cosim"), default="strong",
                    help="strong: container FMU, one error-controlled solver with events; cosim: "
                         "Gauss-Seidel/Jacobi at communication points")
    rn.add_argument("--stop", type=float, help="stop time [s] (default: the system's default experiment)")
    rn.add_argument("--step", type=float, required=True, help="output interval / communication step [s]")
    rn.add_argument("--tolerance", type=float, default=1e-7, help="relative tolerance of the solvers")
    rn.add_argument("--algorithm", choices=("gauss-seidel", "jacobi"), default="gauss-seidel", help="cosim only")
    rn.add_argument("--record", default="", help="comma-separated <component>.<variable> names (default: all outputs)")
    rn.add_argument("--out", required=True, help="folder for <system>.csv")
    rn.add_argument("--max-points", type=int, default=None, metavar="N",
                    help="refuse a run of more output points than this (default $WEARCOSIM_MAX_POINTS, else 1,000,000)")
    rn.set_defaults(func=cmd_system_run)
    return sy


#: what a user can cause; anything else is a bug and says so (still one line without --debug)
def _user_errors():
    import zipfile
    from .export.errors import ExportError
    from .fmi.runner import FMIError
    from .master.loop import MasterError
    from .master.scenario import ScenarioError
    from .master.store import CheckpointError
    errs = [UsageError, ExportError, FMIError, MasterError, ScenarioError, CheckpointError, OSError,
            ValueError, zipfile.BadZipFile]
    try:
        from fmpy.fmi1 import FMICallException
        errs.append(FMICallException)
    except ImportError:
        pass
    return tuple(errs)


def _one_line(exc: BaseException, out: "str | None" = None) -> str:
    """One line for ``exc``; an I/O error names its file, or else ``out`` (the folder the
    command writes into), never a bare '[Errno 28] No space left on device'."""
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    if isinstance(exc, OSError) and exc.strerror and exc.errno is not None and out:
        return f"{out}: {exc.strerror} (while writing into this folder)"
    msg = " ".join(str(exc).split()) or type(exc).__name__
    return msg


def main(argv: "list[str] | None" = None) -> int:
    p = argparse.ArgumentParser(prog="wearcosim", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    b = sub.add_parser("build", help="build FMI 2.0 FMUs (ME + CS) from Modelica models")
    b.add_argument("models", nargs="*", help="dotted class names (default: every model below --prefix)")
    b.add_argument("--package", help="Modelica package directory (default: modelica/WearCosim)")
    b.add_argument("--prefix", default="WearCosim.Examples", help="sub-package whose models are built by default")
    b.add_argument("--file", help="build from this .mo file instead of the package (needs model names)")
    b.add_argument("--library", action="append", default=[], metavar="PATH",
                   help="folder holding library packages (e.g. <repo>/modelica for WearCosim); searched before "
                        "MODELICAPATH, repeatable")
    b.add_argument("--out", help="output directory (default: ./fmu/build, or $WEARCOSIM_HOME/fmu/build)")
    b.add_argument("--backend", choices=["auto", "native", "openmodelica"], default="native",
                   help="native: our exporter (default); openmodelica: OMPython + omc; auto: omc if on PATH")
    b.add_argument("--keep-going", action="store_true", help="continue after a model fails")
    b.add_argument("--expose-protected", action="store_true",
                   help="make protected parameters ScalarVariables too (default: hidden, as in Dymola)")
    b.set_defaults(func=cmd_build)
    c = sub.add_parser("check", help="validate FMUs (FMPy validation; --wear-interface too)")
    c.add_argument("fmus", nargs="+")
    c.add_argument("--wear-interface", action="store_true", help="also check the wear interface (docs/wear-interface.md)")
    c.add_argument("--prefix", default="", help="prefix of the wear-interface names")
    c.add_argument("--no-smoke", action="store_true",
                   help="skip the smoke test (instantiate, initialise, one step, in a subprocess)")
    c.set_defaults(func=cmd_check)
    s = sub.add_parser("simulate", help="simulate an FMU with FMPy")
    s.add_argument("fmu")
    s.add_argument("--me", action="store_true", help="Model Exchange with CVode (default: Co-Simulation)")
    s.add_argument("--stop", type=float)
    s.add_argument("--step", type=float)
    s.add_argument("--csv")
    s.add_argument("--max-points", type=int, default=None, metavar="N",
                   help="refuse more output points than this, (stop - start)/step (default $WEARCOSIM_MAX_POINTS, "
                        "else 1,000,000)")
    s.add_argument("--plot")
    s.add_argument("--variables", "--output", nargs="+", metavar="NAME", dest="variables",
                   help="variables to record and plot, e.g. --output h v (default: the outputs)")
    s.set_defaults(func=cmd_simulate)
    r = sub.add_parser("run", help="run a wear co-simulation scenario (TOML)")
    r.add_argument("scenario")
    r.add_argument("--out", default=None, help="results folder (default: ./results, or $WEARCOSIM_HOME/results)")
    r.add_argument("--build-dir", help="where FMUs named by model are built (default: ./fmu/build)")
    r.add_argument("--resume", action="store_true", help="continue from the scenario's checkpoint")
    r.add_argument("--restart", action="store_true", help="discard an interrupted run's checkpoint and start over")
    r.add_argument("--force", action="store_true",
                   help="go on past the physical limits of the wear profile (scenario [limits]; warns once)")
    r.add_argument("--plot", action="store_true", help="write the figures too")
    r.add_argument("--checkpoint-every", type=float, metavar="SECONDS",
                   help="least wall time between checkpoints (default 1; always at the end and on failure)")
    r.add_argument("--quiet", action="store_true")
    r.set_defaults(func=cmd_run)
    pl = sub.add_parser("plot", help="figures of a results file")
    pl.add_argument("results")
    pl.add_argument("--out")
    pl.set_defaults(func=cmd_plot)
    st = sub.add_parser("study", help="run several scenarios in parallel and write a comparison report")
    st.add_argument("scenarios", nargs="*")
    st.add_argument("--out", default=None, help="report folder (default: ./results/study)")
    st.add_argument("--build-dir", help="where FMUs named by model are built (default: ./fmu/build)")
    st.add_argument("--workers", type=int, default=2)
    st.add_argument("--scheduler", help="Dask scheduler address (tcp://...); default: local processes")
    st.add_argument("--title", default="study")
    st.add_argument("--sensitivity", metavar="STUDY.toml",
                    help="global sensitivity study (Morris, Sobol, trend map; docs/sensitivity.md) on a Dask "
                         "LocalCluster of --workers processes, or the cluster at --scheduler")
    st.add_argument("--local", action="store_true", help="--sensitivity: local processes instead of Dask")
    st.add_argument("--trajectories", type=int, help="--sensitivity: Morris trajectories (default: the study file's)")
    st.add_argument("--sobol-n", type=int, help="--sensitivity: Sobol base sample, a power of 2")
    st.add_argument("--top", type=int, help="--sensitivity: parameters kept for the Sobol indices")
    st.add_argument("--grid", type=int, help="--sensitivity: points per axis of the trend map")
    st.add_argument("--report-only", action="store_true",
                    help="--sensitivity: write the report again from the samples saved in --out (no runs)")
    st.add_argument("--stages", help="--sensitivity: after the Morris screening, 'sobol,trends' (default; 'sobol' "
                                     "when the study has no [trends]), 'sobol', 'trends' or '' (screening only)")
    st.set_defaults(func=cmd_study)
    d = sub.add_parser("demo", help="build the FMUs and run the default co-simulation into results/")
    d.add_argument("--out", default=None, help="results folder (default: ./results)")
    d.add_argument("--build-dir", help="where the example FMUs are built (default: ./fmu/build)")
    d.set_defaults(func=cmd_demo)
    _add_system_parser(sub)
    args = p.parse_args(argv)
    # SIGTERM/SIGHUP (a killed job, a closed terminal) end like Ctrl-C: as an exception, so the
    # `finally` blocks and TemporaryDirectory of the build run (gcc's process groups killed,
    # temp folders removed, no half-written FMU) instead of the process vanishing mid-build
    restore = _terminate_as_interrupt()
    try:
        if args.debug:
            return args.func(args)
        return _run(args)
    finally:
        restore()


class Terminated(KeyboardInterrupt):
    """SIGTERM/SIGHUP received (see _terminate_as_interrupt)."""


def _terminate_as_interrupt():
    """Install handlers raising Terminated on SIGTERM/SIGHUP; returns a function restoring the old ones."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum, frame):
        raise Terminated(f"terminated by signal {signum}")
    old = {}
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            try:
                old[sig] = signal.signal(sig, handler)
            except (ValueError, OSError):
                pass

    def restore():
        for sig, h in old.items():
            try:
                signal.signal(sig, h)
            except (ValueError, OSError):
                pass
    return restore


def _run(args) -> int:
    try:
        return args.func(args)
    except Terminated as exc:
        print(f"error: {exc}; stopped, temporary files removed", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except UsageError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except _user_errors() as exc:
        out = getattr(args, "out", None) or getattr(args, "csv", None)
        print(f"error: {_one_line(exc, str(out) if out else None)}", file=sys.stderr)
        return 1
    except Exception as exc:                      # a bug: still one line, the traceback with --debug
        print(f"error: internal error ({type(exc).__name__}: {_one_line(exc)}); run with --debug for the "
              f"traceback and please report it", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
