"""Command line: wearcosim build | check | info | simulate | run | plot | study | demo | system.

One error path: every error a user can cause (a bad scenario, FMU, model, path, a full
disk, ...) ends the command with one line "error: ..." on stderr and exit status 1 (2 for
wrong command-line usage, 130 when interrupted, 143 on SIGTERM/SIGHUP); --debug shows the
traceback instead.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

from .progress import say as _say
from .progress import steps as _steps
from .wear_interface import unit_of


class UsageError(Exception):
    """A wrong combination of command-line arguments."""


def _err(msg: str) -> int:
    raise UsageError(msg)


def cmd_build(args: argparse.Namespace) -> int:
    from .export import frontend, openmodelica
    from .export.build import DEFAULT_PACKAGE, build_fmu, fmi_versions
    from .resources import build_dir
    from .export.errors import ExportError
    package_dir = Path(args.package or DEFAULT_PACKAGE)
    try:
        versions = fmi_versions(args.fmi)
    except ExportError as exc:
        return _err(exc.message)
    if args.backend == "openmodelica" and versions != (2,):
        return _err("--fmi: the OpenModelica backend builds FMI 2.0 only (use --backend native for FMI 3.0)")
    out = Path(args.out) if args.out else build_dir()
    backend = args.backend
    if backend == "auto":
        backend = "openmodelica" if openmodelica.available() and versions == (2,) else "native"
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
    if args.platforms:    # read by the packaging step (export/package.py: platforms)
        import os
        from .export import package
        try:
            package.platforms(args.platforms)
        except ExportError as exc:         # a list it cannot build: nothing is built
            return _err(f"--platforms {args.platforms}: {exc.message}")
        os.environ["WEARCOSIM_PLATFORMS"] = args.platforms
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
        totals: dict = {}          # stage -> [wall s, CPU s] over the models built
        built = 0
        for m in _steps(models, "build", unit="FMU"):
            try:
                if backend == "openmodelica":
                    p = openmodelica.build_fmu(m, package_dir, out)
                    _say(f"built {p} (OpenModelica)")
                else:
                    r = build_fmu(m, package_dir, out, path=args.file, expose_protected=args.expose_protected,
                                  fmi=versions, cache=not args.no_build_cache)
                    _say(f"built {' and '.join(str(p) for p in r.fmus.values())}  [{r.seconds:.2f} s, "
                         f"{r.n_states} states, {r.n_event_indicators} event indicators]")
                    if args.timings:
                        _say("  stages (wall s): " + ", ".join(f"{k} {v:.2f}" for k, v in r.stats["stages"].items()))
                        _say("  stages (CPU s):  " + ", ".join(f"{k} {v:.2f}" for k, v in r.stats["stages_cpu"].items()))
                        built += 1
                        for k, v in r.stats["stages"].items():
                            totals.setdefault(k, [0.0, 0.0])[0] += v
                        for k, v in r.stats["stages_cpu"].items():
                            totals.setdefault(k, [0.0, 0.0])[1] += v
            except ExportError as exc:
                _say(f"error: {exc}", sys.stderr)
                rc = 1
                if not args.keep_going:
                    return rc
        if args.timings and built > 1:
            _say(_stage_table(totals, built))
        return rc
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _stage_table(totals: dict, n: int) -> str:
    """The stages' wall and CPU seconds summed over ``n`` builds, a line per stage and the
    total: where the time of building many models went (CPU: this process and the compilers,
    which is what a busy machine does not inflate)."""
    lines = [f"stages of {n} builds:  {'wall s':>8} {'CPU s':>8} {'CPU %':>6}"]
    cpu = sum(c for _, c in totals.values()) or 1.0
    for k, (w, c) in totals.items():
        lines.append(f"  {k:<20s} {w:8.2f} {c:8.2f} {100 * c / cpu:6.1f}")
    lines.append(f"  {'total':<20s} {sum(w for w, _ in totals.values()):8.2f} {cpu:8.2f} {100.0:6.1f}")
    return "\n".join(lines)


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


def _open_fmu(fmu: str) -> tuple[Path, Any]:
    """(extracted folder, model description) of ``fmu``, opened as 'run' and 'check' open it
    (size/count limits, no unsafe paths, schema-validated XML without external entities; one
    error path: FMUOpenError naming it).  The caller removes the folder (remove_temp_dir)."""
    from .fmi.archive import FMUOpenError, remove_temp_dir, safe_extract
    from .fmi.runner import read_md
    if not Path(fmu).is_file():
        raise FMUOpenError(fmu, "no such FMU")
    unzipped = safe_extract(fmu)
    try:
        return unzipped, read_md(fmu, unzipped)
    except BaseException:
        remove_temp_dir(unzipped)
        raise


# ------------------------------------------------------------------ info (as 'fmpy info')

#: the causalities 'info' lists by default ('fmpy info' lists inputs and outputs; the
#: parameters are what --start-values sets, so they are listed too)
INFO_CAUSALITIES = ("parameter", "input", "output")
ALL_CAUSALITIES = ("parameter", "calculatedParameter", "input", "output", "local", "independent")


def info_text(fmu: str, causalities: Sequence[str] = INFO_CAUSALITIES) -> str:
    """What ``wearcosim info`` prints: FMPy's model info and default experiment
    (:func:`fmpy.util.fmu_info`), then a table of the variables of ``causalities`` with type,
    causality, variability, start value, unit and description (names in full)."""
    from fmpy.util import fmu_info
    from .fmi.archive import remove_temp_dir
    unzipped, md = _open_fmu(fmu)
    try:
        head = fmu_info(str(unzipped), causalities=[])   # the same text as 'fmpy info'
    finally:
        remove_temp_dir(unzipped)
    cut = head.find("\nVariables (")
    lines = [(head[:cut] if cut >= 0 else head).rstrip()]
    rows = []
    for v in md.modelVariables:
        if v.causality not in causalities:
            continue
        rows.append([v.name, v.type, v.causality, v.variability, "" if v.start is None else str(v.start),
                     unit_of(v), " ".join((v.description or "").split())])
    lines += ["", f"Variables ({', '.join(causalities)}): {len(rows)} of {len(md.modelVariables)}", ""]
    header = ["Name", "Type", "Causality", "Variability", "Start", "Unit", "Description"]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    fmt = lambda r: "  " + "  ".join(c.ljust(w) if i != 4 else c.rjust(w)  # noqa: E731
                                     for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    lines.append(fmt(header))
    lines += [fmt(r) for r in rows]
    return "\n".join(lines).lstrip("\n") + "\n"


def cmd_info(args: argparse.Namespace) -> int:
    causalities = ALL_CAUSALITIES if args.all else tuple(args.causality or INFO_CAUSALITIES)
    sys.stdout.write(info_text(args.fmu, causalities))
    return 0


# ------------------------------------------------------------------ simulate (as 'fmpy simulate')

_C_INT = (-2**31, 2**31 - 1)
#: the FMI 3.0 integer types and their ranges
_INT3 = {f"{u}Int{b}": ((0, 2**b - 1) if u else (-2**(b - 1), 2**(b - 1) - 1)) for u in ("", "U") for b in (8, 16, 32, 64)}


def settable(v: Any) -> bool:
    """May ``v`` be given a start value before initialisation (FMI 2.0, 3.2.3: variability not
    constant, and a parameter, an input, or initial exact/approx)?"""
    if v.variability == "constant" or v.causality == "independent":
        return False
    return v.causality in ("parameter", "input") or v.initial in ("exact", "approx")


def _bounds(v: Any, x: float, shown: str, where: str) -> None:
    for key, ok in (("min", lambda b: x >= b), ("max", lambda b: x <= b)):
        b = getattr(v, key, None)
        if b is not None and not ok(float(b)):
            raise ValueError(f"{where} {v.name} {shown}: outside the variable's {key} {b}")


def start_value(v: Any, text: str, where: str = "--start-values") -> "float | int | bool | str":
    """``text`` as a start value of model variable ``v``: a float (Real), an int (Integer,
    Enumeration: a number or an item's name), a bool (Boolean: true/false/1/0) or the string
    itself; a ValueError in one line naming the variable otherwise.  FMI 3.0's types are read
    as their FMI 2.0 kin: Float64/Float32 as Real, the integer types as Integer (each within
    its own range)."""
    t = v.type
    limits = _C_INT
    if t in _INT3:
        limits, t = _INT3[t], "Integer"
    elif t in ("Float64", "Float32"):
        t = "Real"
    if t == "Real":
        try:
            x = float(text)
        except ValueError:
            raise ValueError(f"{where} {v.name} {text!r}: a Real needs a number") from None
        if x != x or x in (float("inf"), float("-inf")):
            raise ValueError(f"{where} {v.name} {text!r}: a Real needs a finite number")
        _bounds(v, x, text, where)
        return x
    if t in ("Integer", "Enumeration"):
        items = [it.name for it in getattr(v.declaredType, "items", None) or []] if t == "Enumeration" else []
        if text in items:
            return int(v.declaredType.items[items.index(text)].value)
        try:
            x = int(text.strip(), 10)
        except ValueError:
            extra = f" or one of {', '.join(items)}" if items else ""
            raise ValueError(f"{where} {v.name} {text!r}: an {t} needs a whole number{extra}") from None
        if not limits[0] <= x <= limits[1]:
            what = f"an {t} (a C int)" if limits == _C_INT else f"an {v.type}"
            raise ValueError(f"{where} {v.name} {text!r}: outside the range of {what}")
        _bounds(v, x, text, where)
        return x
    if t == "Boolean":
        word = text.strip().lower()
        if word in ("true", "1"):
            return True
        if word in ("false", "0"):
            return False
        raise ValueError(f"{where} {v.name} {text!r}: a Boolean needs true or false")
    if t == "String":
        return text
    raise ValueError(f"{where} {v.name}: variables of type {t} cannot be given a start value here")


def start_values(pairs: Sequence[str] | None, md: Any, fmu: str) -> dict:
    """{name: value} of ``--start-values NAME VALUE ...`` checked against the model
    description ``md`` of ``fmu``: the names exist and may be set, each is given once, the
    values have the variable's type and lie inside its min/max."""
    import difflib
    if not pairs:
        return {}
    if len(pairs) % 2:
        raise UsageError(f"--start-values takes NAME VALUE pairs; {pairs[-1]!r} has no value")
    by_name = {v.name: v for v in md.modelVariables}
    out = {}
    for name, text in zip(pairs[::2], pairs[1::2]):
        v = by_name.get(name)
        if v is None:
            close = difflib.get_close_matches(name, [n for n, w in by_name.items() if settable(w)], n=3)
            hint = f"; did you mean {' or '.join(close)}?" if close else " (wearcosim info lists them)"
            raise ValueError(f"--start-values: {fmu}: no variable {name!r}{hint}")
        if name in out:
            raise ValueError(f"--start-values: {name} given twice")
        if not settable(v):
            raise ValueError(f"--start-values: {name} is a {v.variability} {v.causality} variable "
                             f"(initial={v.initial or 'calculated'}): only parameters, inputs and variables with "
                             f"initial=exact/approx take start values")
        out[name] = start_value(v, text)
    return out


def pretty_unit(unit: str) -> str:
    """A Modelica unit string for an axis label: 'm/s2' -> 'm/s²', 'N.m' -> 'N·m',
    'kg.m2' -> 'kg·m²', 'um' -> 'µm'; '1' or '' -> ''."""
    import re
    if unit in ("", "1"):
        return ""
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    u = re.sub(r"(?<=[A-Za-z])(-?\d+)", lambda m: m.group(1).translate(sup), unit)
    u = re.sub(r"(?<=[\w⁰¹²³⁴⁵⁶⁷⁸⁹])\.(?=[A-Za-z])", "·", u)
    return re.sub(r"\bu(?=[A-Za-z])", "µ", u)


def axis_label(name: str, unit: str) -> str:
    u = pretty_unit(unit)
    return f"{name} [{u}]" if u else name


def plot_with_units(res: Any, path: str | Path, units: dict, title: str = "",
                    names: Sequence[str] | None = None) -> str | Path:
    """Stacked time series of ``names`` (default: the first six recorded) with their units on
    the axes (``units``: name -> the model description's unit), saved to ``path``."""
    from .plots.timeseries import _plt, save
    plt = _plt()
    names = names or [n for n in res.dtype.names if n != "time"][:6]
    fig, axes = plt.subplots(len(names), 1, sharex=True, figsize=(7, 1.8 * len(names) + 0.6), squeeze=False)
    for ax, n in zip(axes[:, 0], names):
        ax.plot(res["time"], res[n], lw=1)
        ax.set_ylabel(axis_label(n, units.get(n, "")))
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time t [s]")
    if title:
        axes[0, 0].set_title(title)
    try:
        save(fig, path)
    finally:
        plt.close(fig)
    return path


def cmd_simulate(args: argparse.Namespace) -> int:
    import numpy as np
    from fmpy import simulate_fmu
    from .fmi.archive import FMUOpenError, remove_temp_dir
    from .fmi.check import binary_problems
    from .system.run import run_problem
    opts = {"stop": "--stop", "step": "--step", "max_points": "--max-points", "tolerance": "--relative-tolerance"}
    limit = _max_points(args)
    # the options before the FMU is opened, naming them (not the FMI call they would break)
    why = run_problem(args.stop if args.stop is not None else 1.0, args.step if args.step is not None else 1.0,
                      None, args.relative_tolerance, limit, opts)
    if why and "output points" not in why:
        return _err(why)
    if args.start_values and len(args.start_values) % 2:
        return _err(f"--start-values takes NAME VALUE pairs; {args.start_values[-1]!r} has no value")
    for opt in ("csv", "output_file", "plot"):
        given = getattr(args, opt)
        if given and Path(given).is_dir():
            return _err(f"--{opt.replace('_', '-')} {given}: is a folder")
    kw = {}
    if args.stop is not None:
        kw["stop_time"] = args.stop
    if args.step is not None:
        kw["output_interval"] = args.step
    if args.relative_tolerance is not None:
        kw["relative_tolerance"] = args.relative_tolerance
    fmi_type = "ModelExchange" if args.me else "CoSimulation"
    if args.me:
        kw["solver"] = "CVode"
    unzipped, md = _open_fmu(args.fmu)            # removed below
    try:
        missing = binary_problems(args.fmu)
        if missing:
            raise FMUOpenError(args.fmu, missing[0])
        if args.variables:
            known = {v.name for v in md.modelVariables}
            bad = [v for v in args.variables if v not in known]
            if bad:
                raise ValueError(f"{args.fmu}: no variable {bad[0]!r}")
            kw["output"] = list(args.variables)
        kw["start_values"] = start_values(args.start_values, md, args.fmu)
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
    from .atomic import atomic_path
    if args.csv:
        out = Path(args.csv)
        with atomic_path(out) as tmp:             # whole or not at all; an I/O error names the file
            np.savetxt(tmp, np.column_stack([res[n] for n in names]), delimiter=",", header=",".join(names),
                       comments="")
    if args.output_file:                          # FMPy's CSV (fmpy simulate --output-file)
        from fmpy.util import write_csv
        with atomic_path(Path(args.output_file)) as tmp:
            write_csv(tmp, res)
    if args.plot:
        plot_with_units(res, args.plot, {v.name: unit_of(v) for v in md.modelVariables}, title=Path(args.fmu).stem)
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


def cmd_examples(args: argparse.Namespace) -> int:
    from .resources import example_path, examples
    from .master.scenario import read_toml
    names = examples()
    if args.paths:
        for n in names:
            print(example_path(n))
        return 0
    rows = []
    for n in names:
        data = read_toml(example_path(n), "scenario")
        rows.append((n, " ".join(str(data.get("description", "")).split())))
    print(f"scenarios in {example_path(names[0]).parent if names else '(none)'} and below "
          f"(wearcosim.Scenario.example(NAME); 'wearcosim examples --paths' for the files):")
    _print_table(rows, ("name", "description"))
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
    if args.container and args.input_extrapolation:
        return _err("--input-extrapolation and --container exclude each other: the container couples its "
                    "components itself")
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
        if args.container:
            from .system.examples import ensure_fmus
            ensure_fmus(system)
        write_ssp(system, out, container=bool(args.container), interface=bool(args.interface),
                  input_extrapolation=bool(args.input_extrapolation))
        what = "the strongly coupled container" if args.container else f"{len(system.components)} component(s)"
    print(f"packed {out} ({what}" + (", interface as system connectors" if args.interface else "")
          + (", inputs extrapolated by the components" if args.input_extrapolation else "") + ")")
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
    options = _cosim_options(args)
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
        t, values, info = simulate(system, stop, args.step, master=args.master, tolerance=args.tolerance,
                                   record=record, cache_dir=cache, max_points=limit, **options)
    flagged = (info.get("stats") or {}).get("flagged")
    estimate = (info.get("stats") or {}).get("estimate")
    names = list(values)
    data = np.column_stack([t] + [values[n] for n in names])
    lines = [",".join(["time"] + names)] + [",".join(f"{x:.17g}" for x in row) for row in data]
    dest = out / f"{Path(args.file).stem}.csv"
    out.mkdir(parents=True, exist_ok=True)
    write_bytes(dest, ("\n".join(lines) + "\n").encode())
    counts = f", {info['nRhs']} right-hand sides, {info['nEvents']} events" if info.get("nRhs") is not None else ""
    if estimate is not None:                # the co-simulation's error estimate, one row per connection
        from .system.estimate import summary, table_csv
        est = out / f"{Path(args.file).stem}.estimate.csv"
        write_bytes(est, table_csv(estimate).encode())
        counts += f"; {summary(estimate)} -> {est}"
    print(f"simulated {args.file} ({args.master}): {len(t)} points, {len(names)} variables -> {dest}{counts}")
    if flagged:
        what = ("refinement difference" if flagged.get("check") == "refinement" else "energy residual")
        print(f"warning: results FLAGGED (--force): connection {flagged['connection']}: {what} "
              f"{flagged['value']:.3g} exceeds tolerance {flagged['tolerance']:g} at t={flagged['time']:.6g}",
              file=sys.stderr)
    return 0


_COSIM_ONLY = ("algorithm", "step_control", "rollback", "extrapolation", "coupling_tolerance", "energy_tolerance",
               "force", "check", "check_tolerance")


def _cosim_options(args) -> dict:
    """The keyword arguments of run_cosim from 'system run --master cosim ...'; a co-simulation
    option with --master strong is refused."""
    given = [n for n in _COSIM_ONLY if getattr(args, n) not in (None, False)]
    if args.master != "cosim":
        if given:
            raise UsageError(f"--{given[0].replace('_', '-')} is an option of --master cosim")
        return {}
    for n in ("coupling_tolerance", "energy_tolerance", "check_tolerance"):
        x = getattr(args, n)
        if x is not None and not (x > 0 and x != float("inf")):
            raise UsageError(f"--{n.replace('_', '-')} must be a finite number > 0, got {x!r}")
    algorithm = args.algorithm or "ijcsa"
    if algorithm == "ijcsa" and args.extrapolation is not None:
        raise UsageError("--extrapolation is an option of --algorithm gauss-seidel or jacobi (ijcsa interpolates "
                         "the inputs between the values at both ends of a step)")
    opts = {"algorithm": algorithm, "step_control": args.step_control, "force": args.force,
            "check": args.check or "refine"}
    if args.check_tolerance is not None:
        opts["check_tolerance"] = args.check_tolerance
    if args.rollback or args.step_control:
        opts["rollback"] = True
    if args.extrapolation is not None:
        opts["extrapolation"] = args.extrapolation
    if args.coupling_tolerance is not None:
        opts["rtol_coupling"] = args.coupling_tolerance
    from .system.estimate import TOLERANCE
    opts["estimate_tolerance"] = args.energy_tolerance if args.energy_tolerance is not None else TOLERANCE
    return opts


def _max_points(args) -> int:
    """--max-points, else $WEARCOSIM_MAX_POINTS, else wearcosim.system.run.MAX_POINTS."""
    from .system.run import max_points
    return args.max_points if args.max_points is not None else max_points()


def _add_system_parser(sub):
    sy = _sub(sub, "system", "systems of FMUs described in SSP (.ssd / .ssp): check, pack, show, run")
    ssub = sy.add_subparsers(dest="system_cmd", required=True, metavar="SUBCOMMAND")
    ck = _sub(ssub, "check", "check a system against its FMUs (one 'error:' line per problem)")
    ck.add_argument("file", metavar="FILE.ssd|FILE.ssp", help="the system description or archive")
    ck.add_argument("--step", type=float, metavar="SECONDS",
                    help="also check the experiment 'system run --step STEP' would run (output interval [s])")
    ck.add_argument("--stop", type=float, metavar="SECONDS",
                    help="with --step: the stop time [s] (default: the default experiment's)")
    ck.add_argument("--max-points", type=int, default=None, metavar="N",
                    help="with --step: the output-point limit (default $WEARCOSIM_MAX_POINTS, else 1,000,000)")
    ck.set_defaults(func=cmd_system_check)
    pk = _sub(ssub, "pack", "bundle an .ssd and the FMUs it references into an .ssp archive")
    pk.add_argument("file", metavar="FILE.ssd", help="the system description")
    pk.add_argument("-o", "--out", required=True, metavar="OUT.ssp", help="the archive to write")
    pk.add_argument("--container", action="store_true",
                    help="put the strongly coupled container FMU in as the one component, every binding under "
                         "its names (libcosim runs it)")
    pk.add_argument("--interface", action="store_true",
                    help="declare the free inputs and every output as system connectors <component>.<variable> "
                         "(fmu-manipulation-toolbox reads them; libcosim cannot load connections to system "
                         "connectors)")
    pk.add_argument("--input-extrapolation", action="store_true",
                    help="bind solver.inputExtrapolation = 1 on every component that has it: for masters that hold "
                         "inputs over a step (libcosim), each component extrapolates its inputs through the last two "
                         "communication points")
    pk.set_defaults(func=cmd_system_pack)
    sh = _sub(ssub, "show", "components, ports and connections of a system, as tables")
    sh.add_argument("file", metavar="FILE.ssd|FILE.ssp", help="the system description or archive")
    sh.set_defaults(func=cmd_system_show)
    rn = _sub(ssub, "run", "simulate a system: strongly coupled (one solver over the components' "
                           "Model-Exchange interfaces, default) or co-simulated")
    rn.add_argument("file", metavar="FILE.ssd|FILE.ssp", help="the system description or archive")
    rn.add_argument("--master", choices=("strong", "cosim"), default="strong",
                    help="strong: container FMU, one error-controlled solver with events; cosim: "
                         "Gauss-Seidel/Jacobi at communication points (default: %(default)s)")
    rn.add_argument("--stop", type=float, metavar="SECONDS",
                    help="stop time [s] (default: the system's default experiment)")
    rn.add_argument("--step", type=float, required=True, metavar="SECONDS",
                    help="output interval / communication step [s]")
    rn.add_argument("--tolerance", type=float, default=1e-7, metavar="RTOL",
                    help="relative tolerance of the solvers, in (0, 1) (default: %(default)s)")
    rn.add_argument("--algorithm", choices=("ijcsa", "gauss-seidel", "jacobi"), default=None,
                    help="coupling of --master cosim: ijcsa (default): implicit, Newton's method on the exchanged "
                         "values with interface Jacobians, inputs interpolated over each step, step-size control "
                         "with rollback; gauss-seidel, jacobi: explicit, inputs held or extrapolated")
    rn.add_argument("--step-control", action="store_true",
                    help="--master cosim: control the communication step from the coupling error of the "
                         "exchanged values (steps of --step [s] and below, halved on rejection; implies --rollback; "
                         "always on with ijcsa)")
    rn.add_argument("--rollback", action="store_true",
                    help="--master cosim: save the FMU states before each step and redo a step a component "
                         "discards with half the step size")
    rn.add_argument("--extrapolation", type=int, choices=(0, 1), default=None,
                    help="--master cosim: inputs held constant over a step (0, default) or extrapolated linearly (1)")
    rn.add_argument("--coupling-tolerance", type=float, default=None, metavar="RTOL",
                    help="--master cosim with --step-control: relative tolerance of the coupling error of the "
                         "exchanged values (default: 1e-4 with ijcsa, 1e-3 with the explicit algorithms)")
    rn.add_argument("--energy-tolerance", type=float, default=None, metavar="FRACTION",
                    help="--master cosim: largest energy residual at a power bond (force [N] x velocity [m/s], "
                         "torque [N.m] x angular velocity [rad/s]), as a fraction of the energy [J] through the "
                         "connection, before the run stops with an error (default: 2e-4)")
    rn.add_argument("--check", choices=("refine", "energy"), default=None,
                    help="--master cosim: the global check of the run: refine (default): the run repeated finer "
                         "(half the step; a tenth of the coupling tolerance with step control) and every "
                         "connection's values compared, the finer run is the result; energy: the energy residual "
                         "at the power bonds only (always checked)")
    rn.add_argument("--check-tolerance", type=float, default=None, metavar="FRACTION",
                    help="--master cosim --check refine: the largest difference of a connection's value between "
                         "the run and its refinement, as a fraction of the value's range (default: 0.01)")
    rn.add_argument("--force", action="store_true",
                    help="--master cosim: finish a run whose error estimate exceeds --energy-tolerance or "
                         "--check-tolerance; its results are flagged (<system>.estimate.csv, a warning line)")
    rn.add_argument("--record", default="", metavar="NAMES",
                    help="comma-separated <component>.<variable> names (default: all outputs)")
    rn.add_argument("--out", required=True, metavar="DIR",
                    help="folder for <system>.csv (and, with --master cosim, <system>.estimate.csv)")
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


DESCRIPTION = """\
Build FMI 2.0 FMUs of the wear components, simulate them, and run wear co-simulations.

Examples:
  wearcosim demo                          build the example FMUs, run the demo scenario
  wearcosim info fmu/build/Dry7pi.fmu     model info and variables of an FMU
  wearcosim simulate Dry7pi.fmu --stop 0.5 --start-values lubricated true --plot h.png
  wearcosim examples                      the scenarios that come with the package
  wearcosim run cosim/demo_hybrid_dry_32pi.toml --plot
"""

EPILOG = """\
Errors a user can cause end the command with one line "error: ..." on stderr.
Exit status: 0 success; 1 an error (also 'check' finding problems); 2 wrong
command-line usage; 130 interrupted (Ctrl-C); 143 SIGTERM or SIGHUP.
--debug (before the command) shows the Python traceback instead.
Every command has its own --help. Documentation: docs/cli.md.
"""


def _sub(sub, name: str, help: str, description: str = "", **kw):
    """A sub-command parser whose description is its help line (plain text, as typed)."""
    return sub.add_parser(name, help=help, description=description or help[0].upper() + help[1:] + ".",
                          formatter_class=argparse.RawDescriptionHelpFormatter, **kw)


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser (every option has a help text; times in seconds)."""
    from . import __version__
    p = argparse.ArgumentParser(prog="wearcosim", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    p.add_argument("--version", action="version", version=f"wearcosim {__version__}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    b = _sub(sub, "build", "build FMI 2.0 and/or FMI 3.0 FMUs (ME + CS) from Modelica models")
    b.add_argument("models", nargs="*", metavar="MODEL",
                   help="dotted class names (default: every model below --prefix)")
    b.add_argument("--package", metavar="DIR", help="Modelica package folder (default: the bundled WearCosim)")
    b.add_argument("--prefix", default="WearCosim.Examples",
                   help="sub-package whose models are built when no model is named (default: %(default)s)")
    b.add_argument("--file", metavar="FILE.mo", help="build from this .mo file instead of the package (needs model names)")
    b.add_argument("--library", action="append", default=[], metavar="PATH",
                   help="folder holding library packages (e.g. <repo>/modelica for WearCosim); searched before "
                        "MODELICAPATH, repeatable")
    b.add_argument("--out", metavar="DIR", help="output folder (default: ./fmu/build, or $WEARCOSIM_HOME/fmu/build)")
    b.add_argument("--backend", choices=["auto", "native", "openmodelica"], default="native",
                   help="native: our exporter (default); openmodelica: OMPython + omc; auto: omc if on PATH")
    b.add_argument("--keep-going", action="store_true", help="continue after a model fails (exit status 1 at the end)")
    b.add_argument("--expose-protected", action="store_true",
                   help="make protected parameters FMU variables too (default: hidden, as in Dymola)")
    b.add_argument("--timings", action="store_true",
                   help="print each build stage's wall and CPU time: front end (rumoca), DAE (with the index "
                        "reduction), alias, causalise, functions (CasADi), C code, compile (gcc), package; with "
                        "several models, their sums per stage at the end")
    b.add_argument("--no-build-cache", action="store_true",
                   help="do not keep object files in <out>/.build-cache (by default a rebuild into the same "
                        "folder takes the objects of unchanged units from there)")
    b.add_argument("--platforms", metavar="LIST",
                   help="binaries to build, comma-separated FMI platform folders: linux64,win64 (win64 needs "
                        "MinGW-w64); default: auto = this machine's, plus win64 when x86_64-w64-mingw32-gcc is "
                        "installed")
    b.add_argument("--fmi", default="2", metavar="VERSIONS",
                   help="FMI version(s) to build: 2 (default), 3, or 2,3 for both from one run of the passes; "
                        "an FMI 3.0 FMU goes to <out>/fmi3/<Model>.fmu")
    b.set_defaults(func=cmd_build)
    c = _sub(sub, "check", "validate FMUs (FMPy validation; --wear-interface too)")
    c.add_argument("fmus", nargs="+", metavar="FMU", help="the FMU files to check")
    c.add_argument("--wear-interface", action="store_true", help="also check the wear interface (docs/wear-interface.md)")
    c.add_argument("--prefix", default="", help="prefix of the wear-interface names, e.g. 'joint.' (default: none)")
    c.add_argument("--no-smoke", action="store_true",
                   help="skip the smoke test (instantiate, initialise, one step, in a subprocess)")
    c.set_defaults(func=cmd_check)
    i = _sub(sub, "info", "model info and variables of an FMU (what 'fmpy info' shows, and more)",
             "Model info and variables of an FMU: what 'fmpy info' shows (FMI version and type,\n"
             "platforms, states, event indicators, default experiment), then the variables with\n"
             "type, causality, variability, start value, unit and description.")
    i.add_argument("fmu", metavar="FMU", help="the FMU file")
    i.add_argument("--causality", nargs="+", choices=ALL_CAUSALITIES, metavar="CAUSALITY",
                   help="list the variables of these causalities (default: parameter input output; choices: "
                        + ", ".join(ALL_CAUSALITIES) + ")")
    i.add_argument("--all", action="store_true", help="list every variable (locals and derivatives too)")
    i.set_defaults(func=cmd_info)
    s = _sub(sub, "simulate", "simulate an FMU with FMPy",
             "Simulate an FMU with FMPy (Co-Simulation with the FMU's solver, or Model Exchange\n"
             "with CVode), as 'fmpy simulate' does.  Times are in seconds.\n\n"
             "Example:\n  wearcosim simulate Dry7pi.fmu --stop 0.2 --start-values lubricated true "
             "--output-file out.csv --plot out.png")
    s.add_argument("fmu", metavar="FMU", help="the FMU file")
    s.add_argument("--me", action="store_true", help="Model Exchange with FMPy's CVode (default: Co-Simulation)")
    s.add_argument("--stop", "--stop-time", type=float, metavar="SECONDS", dest="stop",
                   help="stop time [s] (default: the FMU's default experiment, else 1 s)")
    s.add_argument("--step", "--output-interval", type=float, metavar="SECONDS", dest="step",
                   help="output interval [s]; in Co-Simulation also the communication step (default: the FMU's "
                        "default experiment step, else FMPy's, at most 1000 points)")
    s.add_argument("--relative-tolerance", type=float, metavar="RTOL",
                   help="relative tolerance, in (0, 1), of CVode (--me) or of the FMU's own solver (passed by "
                        "fmi2SetupExperiment) (default: the FMU's default experiment, else the solver's)")
    s.add_argument("--start-values", nargs="+", metavar="NAME VALUE",
                   help="start values as name-value pairs, e.g. --start-values lubricated true c 2.5e-4; types "
                        "from the FMU: Real a number, Integer a whole number, Boolean true/false, String as is "
                        "(wearcosim info lists the parameters)")
    s.add_argument("--variables", "--output", "--output-variables", nargs="+", metavar="NAME", dest="variables",
                   help="variables to record and plot, e.g. --output h v (default: the outputs)")
    s.add_argument("--output-file", metavar="FILE.csv",
                   help="write the result as CSV the way 'fmpy simulate --output-file' does (quoted names in "
                        "the header row, time first)")
    s.add_argument("--csv", metavar="FILE.csv",
                   help="write the result as CSV with a plain header row (numbers in %%.18e)")
    s.add_argument("--plot", metavar="FILE.png",
                   help="write a plot of the recorded variables (first six), units on the axes; the format "
                        "from the suffix (.png, .pdf, .svg)")
    s.add_argument("--max-points", type=int, default=None, metavar="N",
                   help="refuse more output points than this, (stop - start)/step (default $WEARCOSIM_MAX_POINTS, "
                        "else 1,000,000)")
    s.set_defaults(func=cmd_simulate)
    r = _sub(sub, "run", "run a wear co-simulation scenario (TOML)",
             "Run a wear co-simulation scenario (a TOML file: docs/scenarios.md).\n"
             "'wearcosim examples' lists the scenarios that come with the package.")
    r.add_argument("scenario", metavar="SCENARIO.toml", help="the scenario file")
    r.add_argument("--out", default=None, metavar="DIR",
                   help="results folder (default: ./results, or $WEARCOSIM_HOME/results)")
    r.add_argument("--build-dir", metavar="DIR", help="where FMUs named by model are built (default: ./fmu/build)")
    r.add_argument("--resume", action="store_true", help="continue from the scenario's checkpoint")
    r.add_argument("--restart", action="store_true", help="discard an interrupted run's checkpoint and start over")
    r.add_argument("--force", action="store_true",
                   help="go on past the physical limits of the wear profile (scenario [limits]; warns once)")
    r.add_argument("--plot", action="store_true", help="write the figures too (as 'wearcosim plot')")
    r.add_argument("--checkpoint-every", type=float, metavar="SECONDS",
                   help="least wall time between checkpoints [s] (default 1; always at the end and on failure)")
    r.add_argument("--quiet", action="store_true", help="no progress output")
    r.set_defaults(func=cmd_run)
    ex = _sub(sub, "examples", "list the scenarios that come with the package (names, files, descriptions)",
              "List the scenarios that come with the package: their names (for\n"
              "wearcosim.Scenario.example(name)), files and descriptions.")
    ex.add_argument("--paths", action="store_true", help="print only the scenario files, one per line")
    ex.set_defaults(func=cmd_examples)
    pl = _sub(sub, "plot", "figures of a results file")
    pl.add_argument("results", metavar="RESULTS.h5", help="a results file of 'wearcosim run'")
    pl.add_argument("--out", metavar="DIR", help="folder of the figures (default: the results file's folder)")
    pl.set_defaults(func=cmd_plot)
    st = _sub(sub, "study", "run several scenarios in parallel and write a comparison report")
    st.add_argument("scenarios", nargs="*", metavar="SCENARIO.toml", help="the scenarios to run")
    st.add_argument("--out", default=None, metavar="DIR", help="report folder (default: ./results/study)")
    st.add_argument("--build-dir", metavar="DIR", help="where FMUs named by model are built (default: ./fmu/build)")
    st.add_argument("--workers", type=int, default=2, metavar="N", help="worker processes (default: %(default)s)")
    st.add_argument("--scheduler", metavar="ADDRESS",
                    help="Dask scheduler address (tcp://...; needs wearcosim[dask]); default: local processes")
    st.add_argument("--title", default="study", help="stem of the report files (default: %(default)s)")
    st.add_argument("--sensitivity", metavar="STUDY.toml",
                    help="global sensitivity study (Morris, Sobol, trend map; docs/sensitivity.md) on a Dask "
                         "LocalCluster of --workers processes, or the cluster at --scheduler")
    st.add_argument("--local", action="store_true", help="--sensitivity: local processes instead of Dask")
    st.add_argument("--trajectories", type=int, metavar="R",
                    help="--sensitivity: Morris trajectories (default: the study file's)")
    st.add_argument("--sobol-n", type=int, metavar="N", help="--sensitivity: Sobol base sample, a power of 2")
    st.add_argument("--top", type=int, metavar="K", help="--sensitivity: parameters kept for the Sobol indices")
    st.add_argument("--grid", type=int, metavar="G", help="--sensitivity: points per axis of the trend map")
    st.add_argument("--report-only", action="store_true",
                    help="--sensitivity: write the report again from the samples saved in --out (no runs)")
    st.add_argument("--stages", metavar="LIST",
                    help="--sensitivity: after the Morris screening, 'sobol,trends' (default; 'sobol' "
                         "when the study has no [trends]), 'sobol', 'trends' or '' (screening only)")
    st.set_defaults(func=cmd_study)
    d = _sub(sub, "demo", "build the FMUs and run the default co-simulation into results/")
    d.add_argument("--out", default=None, metavar="DIR", help="results folder (default: ./results)")
    d.add_argument("--build-dir", metavar="DIR", help="where the example FMUs are built (default: ./fmu/build)")
    d.set_defaults(func=cmd_demo)
    _add_system_parser(sub)
    return p


def main(argv: "list[str] | None" = None) -> int:
    args = build_parser().parse_args(argv)
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
    except BrokenPipeError:                       # 'wearcosim info X | head': the reader left; no message
        import os
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
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
