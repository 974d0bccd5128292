"""The MSL ladder: how far each example of the Modelica Standard Library gets through the
project's exporter, and whether its FMU reproduces the MSL reference results.

    python -m wearcosim.bench.msl --library DIR --references DIR [--packages NAME ...]
                                  [--out DIR] [--jobs N] [--timeout S] [--rtol R] [--debug]

A measurement tool, not part of the exporter: it runs the exporter the way a user does and
records what happens.

**Examples.**  An example is a folder below ``--references`` (the MSL reference results'
layout: ``<refs>/Modelica/Mechanics/Rotational/Examples/First/`` holding ``First.csv`` and
``comparisonSignals.txt``) under one of the chosen packages (default :data:`DEFAULT_PACKAGES`);
its class is the folder's path as a dotted name.  A name given to ``--packages`` may also be one
example.  The class's ``experiment(StartTime, StopTime, Interval, Tolerance)`` annotation is read
from the library's source (:func:`parse_experiment`; absent values: StartTime 0, StopTime 1,
Interval (StopTime - StartTime)/500 or ``__Dymola_NumberOfIntervals``, Tolerance 1e-6).

**Each example**, in subprocesses with ``--timeout`` seconds each (a hang or a crash stops only
that example; :mod:`.msl_worker`):

1. build: ``wearcosim build --library <DIR> <class> --out <out>/work/<class>`` (the command
   line's own code) in the job's build server (:class:`BuildServer`), a process that serves the
   job's builds one after the other and keeps the libraries rumoca has loaded: the first build
   of each job pays for loading the MSL (about 10 s of CPU), the next ones do not.  A build
   that hangs or crashes ends its server; the next example gets a new one.  CPU time of the
   build and its compilers (measured in the server), and wall time;
2. simulate: FMPy, Co-Simulation, from StartTime to StopTime with relative tolerance Tolerance,
   recording the comparison signals at every communication point; the communication step is
   Interval, or the reference's (median) time step when that is finer -- the MSL references
   are mostly written at Interval/2, and interpolating the simulation linearly between its
   points would be measured instead of the FMU (Rotational.Examples.ElasticBearing: 1.2e-3 of
   range at Interval, 2.4e-4 on the reference's grid; the embedded solver's steps do not
   depend on the communication step);
3. compare (:func:`compare`) with the reference CSV.

**Stage**: where the example stopped -- ``found`` (not run: the ladder was interrupted before
it), ``flatten`` (the exporter's front end: class lookup, rumoca, the flat model), ``build``
(a later pass of the exporter: DAE, index reduction, causalisation, code generation, C
compilation, packaging), ``simulate`` (an FMU was built; the simulation failed), ``compare``
(simulated; a signal is outside the tube or missing, or the reference has no CSV) or ``pass``.
The first error is the first ``error:`` line the exporter printed, as printed: ``file:line: kind
error: message`` (for a simulation, FMPy's error and the FMU's first error message; a timeout or
a crash says so).

**Pass criterion** (:func:`compare`; stricter than MAP-LIB's csv-compare tube, which also
widens the tube in time).  For each signal of ``comparisonSignals.txt`` found in the CSV:

* ``scale`` = max - min of the reference's finite values; when that is 0 (a constant),
  max |ref|; when that is 0 too, 1;
* an *event* is a time stamp written twice in the reference (the MSL tools write the left and
  right limits of a discontinuity as two rows; the first and last time are usually written twice
  as well and are treated alike) or in the simulation's output; reference points with
  |t - t_event| <= eps are not compared, eps = 2 max(h_ref, h_sim), h = the median positive
  spacing of that time grid (the simulation is interpolated linearly between its communication
  points, so a discontinuity spoils one interval of it either side);
* at every other reference point t_i (reference values that are not finite are skipped) the
  simulation, linearly interpolated at t_i, must satisfy
  ``|sim(t_i) - ref_i| <= max(rtol * scale, atol)``, rtol = 1e-3 (``--rtol``), atol = 1e-12;
  a non-finite simulated value fails;
* the signal's deviation is max_i |sim(t_i) - ref_i| / scale.

The example passes when every signal passes, at least one signal was compared, and the
simulation covers the reference's time span (to 1e-9 of it).  A comparison signal that is not
a variable of the FMU fails; one missing from the reference CSV is skipped (noted).

**Output** (``--out``, default ``./msl-ladder``; nothing is written outside it, every result file
atomically, the table after each example): ``ladder.csv`` and ``ladder.md`` (one row per example),
``summary.csv`` (per package: examples, front end passed, built, simulated, passed, pass
percentage), and ``work/<class>/`` (``build.log``, the FMU, ``simulate.log``, ``result.npz``).
The summary is printed at the end.  Bad input (no ``--library`` folder or no Modelica package in
it, no reference results) is one ``error:`` line and exit code 2 (the traceback with
``--debug``).  See docs/msl.md.
"""
from __future__ import annotations

import argparse
import ast
import csv
import datetime as _dt
import functools
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..atomic import atomic_path
from .msl_worker import FRONT_END_DONE, RUMOCA_MARK

#: packages whose examples the ladder runs by default
DEFAULT_PACKAGES: tuple[str, ...] = (
    "Modelica.Mechanics.Rotational.Examples",
    "Modelica.Mechanics.Translational.Examples",
    "Modelica.Mechanics.MultiBody.Examples.Elementary",
    "Modelica.Blocks.Examples",
    "Modelica.Electrical.Analog.Examples",
    "Modelica.Thermal.HeatTransfer.Examples",
)
#: the stages, in order; an example's stage is where it stopped
STAGES: tuple[str, ...] = ("found", "flatten", "build", "simulate", "compare", "pass")
#: default relative tube half-width (of the signal's range) and absolute floor
RTOL = 1e-3
ATOL = 1e-12
#: default timeout of one build and of one simulation, seconds
TIMEOUT = 600.0


class LadderInputError(Exception):
    """Bad input to the ladder (a missing folder, no reference results, a bad option)."""


# --------------------------------------------------------------------------- the source

_BLANK = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|\'(?:\\.|[^\'\\])*\'', re.S)


def code_only(text: str) -> str:
    """``text`` with the insides of string literals and comments blanked (spaces; newlines
    kept), so that searches for keywords see only code; offsets and lines are unchanged.
    Quoted identifiers (``'x y'``) are kept."""
    def blank(m: re.Match[str]) -> str:
        s = m.group(0)
        if s.startswith("'"):
            return s
        inner = re.sub(r"[^\n]", " ", s[1:-1] if s.startswith('"') else s)
        return f'"{inner}"' if s.startswith('"') else inner
    return _BLANK.sub(blank, text)


_PREFIXES = r"(?:(?:encapsulated|partial|final|replaceable|redeclare|inner|outer|expandable|pure|impure)\s+)*"
_KINDS = r"(?:operator\s+record|operator\s+function|model|block|class|package|connector|record|function|type|operator)"


def class_span(code: str, name: str, lo: int = 0, hi: int | None = None) -> tuple[int, int] | None:
    """(start, end) of the first class definition ``name`` in ``code[lo:hi]`` (from its
    header to after ``end name;``), or None."""
    hi = len(code) if hi is None else hi
    head = re.compile(r"(?<![\w.])" + _PREFIXES + _KINDS + r"\s+" + re.escape(name) + r"(?![\w])")
    m = head.search(code, lo, hi)
    if m is None:
        return None
    e = re.compile(r"(?<![\w.])end\s+" + re.escape(name) + r"\s*;").search(code, m.end(), hi)
    return (m.start(), e.end() if e else hi)


@dataclass
class ClassSource:
    """Where a class is defined: its file, the line of its header, and its code
    (:func:`code_only` of the class's text)."""
    path: Path
    line: int
    code: str


@functools.lru_cache(maxsize=64)
def _file_code(path: Path) -> str:
    return code_only(path.read_text(encoding="utf-8", errors="replace"))


def top_package(library: Path, name: str) -> Path | None:
    """The folder (``Name/package.mo``, or ``Name <version>/``) or file (``Name.mo``) of the
    top-level package ``name`` in the library folder ``library``, or None."""
    if (library / name / "package.mo").is_file():
        return library / name
    if (library / f"{name}.mo").is_file():
        return library / f"{name}.mo"
    try:
        for child in sorted(library.iterdir()):
            if child.is_dir() and child.name.split(" ")[0] == name and (child / "package.mo").is_file():
                return child
    except OSError:
        pass
    return None


def class_source(library: Path, name: str) -> ClassSource | None:
    """The source of class ``name`` (dotted) in a library folder laid out as MSL is (a
    package per folder with ``package.mo``, a class per ``.mo`` file or several classes in
    one file), or None when it is not found."""
    parts = name.split(".")
    cur = top_package(Path(library), parts[0])
    if cur is None:
        return None
    i = 1
    nested: list[str]
    if cur.is_file():
        path, nested = cur, parts
    else:
        while True:
            if i == len(parts):                   # the class is a package folder itself
                path, nested = cur / "package.mo", [parts[-1]]
                break
            p = parts[i]
            if (cur / p / "package.mo").is_file():
                cur, i = cur / p, i + 1
                continue
            if (cur / f"{p}.mo").is_file():
                path, nested = cur / f"{p}.mo", parts[i:]
            else:
                path, nested = cur / "package.mo", [parts[i - 1]] + parts[i:]
            break
    try:
        code = _file_code(path)
    except OSError:
        return None
    lo, hi = 0, len(code)
    for n in nested:
        span = class_span(code, n, lo, hi)
        if span is None:
            return None
        lo, hi = span
    return ClassSource(path, code.count("\n", 0, lo) + 1, code[lo:hi])


# --------------------------------------------------------------------------- experiment

@dataclass
class Experiment:
    """A simulation's time span, output interval and relative tolerance; ``given`` names the
    values the annotation set (the others are the defaults)."""
    start: float = 0.0
    stop: float = 1.0
    interval: float = 1.0 / 500
    tolerance: float = 1e-6
    given: tuple[str, ...] = ()

    def describe(self) -> str:
        """``0..1 s, interval 0.001, tolerance 1e-06`` (``*`` after a default value)."""
        star = {k: ("" if k in self.given else "*") for k in ("StartTime", "StopTime", "Interval", "Tolerance")}
        return (f"{self.start:g}{star['StartTime']}..{self.stop:g}{star['StopTime']} s, interval "
                f"{self.interval:g}{star['Interval']}, tolerance {self.tolerance:g}{star['Tolerance']}")


def _number(expr: str) -> float | None:
    """A numeric literal or simple arithmetic of literals, else None."""
    try:
        node = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        return None

    def ev(n: ast.AST) -> float:
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            return float(n.value)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.UAdd, ast.USub)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            a, b = ev(n.left), ev(n.right)
            return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b,
                    ast.Div: a / b if b else math.nan, ast.Pow: a ** b if abs(b) < 64 else math.nan}[type(n.op)]
        raise ValueError(n)
    try:
        v = ev(node)
    except (ValueError, OverflowError, ZeroDivisionError):
        return None
    return v if math.isfinite(v) else None


def _split_top(s: str) -> list[str]:
    out, depth, cur = [], 0, []
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


def parse_experiment(text: str) -> Experiment:
    """The ``experiment(...)`` annotation in ``text`` (an annotation or a whole class; the
    last one outside strings and comments, which is the class's own when its nested classes
    come first): StartTime, StopTime, Interval, Tolerance; ``__Dymola_NumberOfIntervals`` gives
    the interval when Interval is absent.  Values that are not numbers are ignored; missing
    values are the defaults (0, 1, span/500, 1e-6), and so is a text without the annotation."""
    code = code_only(text)
    ms = list(re.finditer(r"(?<![\w.])experiment\s*\(", code))
    if not ms:
        return Experiment()
    i = ms[-1].end()
    depth, j = 1, i
    while j < len(code) and depth:
        depth += {"(": 1, ")": -1}.get(code[j], 0)
        j += 1
    vals: dict[str, float] = {}
    for item in _split_top(code[i:j - 1] if depth == 0 else code[i:j]):
        if "=" not in item:
            continue
        k, v = item.split("=", 1)
        x = _number(v)
        if x is not None:
            vals[k.strip()] = x
    start = vals.get("StartTime", 0.0)
    stop = vals.get("StopTime", start + 1.0)
    given = [k for k in ("StartTime", "StopTime", "Interval", "Tolerance") if k in vals]
    interval = vals.get("Interval")
    if interval is None or interval <= 0:
        given = [k for k in given if k != "Interval"]
        n = vals.get("__Dymola_NumberOfIntervals")
        interval = (stop - start) / (n if n and n >= 1 else 500) if stop > start else 1.0 / 500
        if n and n >= 1:
            given.append("Interval")
    tol = vals.get("Tolerance")
    if tol is None or not 0 < tol < 1:
        given = [k for k in given if k != "Tolerance"]
        tol = 1e-6
    return Experiment(start, stop, interval, tol, tuple(given))


# --------------------------------------------------------------------------- references

def read_signals(path: Path) -> list[str]:
    """The signals of a ``comparisonSignals.txt`` (one per line; ``time`` and blank lines
    left out)."""
    out = []
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        s = line.strip()
        if s and s != "time" and s not in out:
            out.append(s)
    return out


def read_reference(path: Path) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(time, {signal: values}) of a reference CSV (a header of quoted names, ``time``
    first; a value that is not a number is NaN)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f))
    if not rows or len(rows) < 2:
        raise ValueError(f"{path}: no data")
    head = [h.strip() for h in rows[0]]

    def num(x: str) -> float:
        try:
            return float(x)
        except ValueError:
            return math.nan
    data = np.array([[num(x) for x in r[:len(head)]] + [math.nan] * (len(head) - len(r)) for r in rows[1:] if r],
                    dtype=float)
    return data[:, 0], {h: data[:, k] for k, h in enumerate(head) if k > 0}


# --------------------------------------------------------------------------- comparison

@dataclass
class SignalResult:
    """One signal's comparison: ``deviation`` = max |sim - ref| / ``scale`` over the compared
    points (inf for a non-finite simulated value), at time ``t_worst``; ``passed`` whether
    every compared point is inside the tube; ``note`` why it failed or was not compared."""
    name: str
    compared: bool
    passed: bool
    deviation: float = 0.0
    scale: float = 1.0
    t_worst: float = math.nan
    points: int = 0
    note: str = ""


@dataclass
class Comparison:
    """The comparison of one simulation with one reference (see the module's criterion)."""
    passed: bool
    signals: list[SignalResult]
    reason: str = ""

    @property
    def worst(self) -> SignalResult | None:
        """The compared (or missing) signal with the largest deviation."""
        cand = [s for s in self.signals if s.compared or not s.passed]
        return max(cand, key=lambda s: s.deviation) if cand else None

    @property
    def n_compared(self) -> int:
        """How many signals were compared."""
        return sum(1 for s in self.signals if s.compared)


def _median_step(t: np.ndarray) -> float:
    d = np.diff(t)
    d = d[d > 0]
    return float(np.median(d)) if d.size else 0.0


def _repeated(t: np.ndarray) -> np.ndarray:
    d = np.diff(t)
    return np.unique(t[1:][d == 0])


def event_mask(t: np.ndarray, events: np.ndarray, eps: float) -> np.ndarray:
    """True where ``t`` is farther than ``eps`` from every event time."""
    if events.size == 0:
        return np.ones(t.shape, dtype=bool)
    ev = np.sort(events)
    k = np.searchsorted(ev, t)
    left = np.abs(t - ev[np.clip(k - 1, 0, ev.size - 1)])
    right = np.abs(ev[np.clip(k, 0, ev.size - 1)] - t)
    return np.minimum(left, right) > eps


def compare(ref_time: Sequence[float] | np.ndarray, ref: dict[str, np.ndarray], sim_time: Sequence[float] | np.ndarray,
            sim: dict[str, np.ndarray], signals: Iterable[str], rtol: float = RTOL, atol: float = ATOL) -> Comparison:
    """Compare simulated signals with reference signals (the criterion of this module's
    docstring): each of ``signals`` at the reference's time points outside the event windows,
    the simulation interpolated linearly, in a tube of half-width max(rtol*scale, atol)."""
    rt = np.asarray(ref_time, dtype=float)
    st = np.asarray(sim_time, dtype=float)
    results: list[SignalResult] = []
    if st.size == 0 or not np.all(np.isfinite(st)):
        return Comparison(False, [], "the simulation has no (finite) time points")
    eps = 2.0 * max(_median_step(rt), _median_step(st))
    events = np.concatenate([_repeated(rt), _repeated(st)])
    keep = event_mask(rt, events, eps) & np.isfinite(rt)
    # the simulation's right limits where it wrote a time twice, for the interpolation
    last = np.r_[np.diff(st) > 0, True]
    st_i = st[last]
    span = float(np.nanmax(rt) - np.nanmin(rt)) if rt.size else 0.0
    slack = 1e-9 * span if span > 0 else 1e-12
    cover = (rt >= st_i[0] - slack) & (rt <= st_i[-1] + slack)
    reason = ""
    if rt.size and not np.all(cover[np.isfinite(rt)]):
        reason = (f"the simulation covers t = {st_i[0]:g}..{st_i[-1]:g}, the reference "
                  f"{np.nanmin(rt):g}..{np.nanmax(rt):g}")
    for name in signals:
        if name not in ref:
            results.append(SignalResult(name, False, True, note="not in the reference CSV (skipped)"))
            continue
        r = np.asarray(ref[name], dtype=float)
        fin = r[np.isfinite(r)]
        if fin.size == 0:
            results.append(SignalResult(name, False, True, note="no finite reference value (skipped)"))
            continue
        scale = float(fin.max() - fin.min())
        if not scale > 0:
            scale = float(np.abs(fin).max()) or 1.0
        if name not in sim:
            results.append(SignalResult(name, False, False, math.inf, scale,
                                        note="not a variable of the FMU"))
            continue
        sv = np.asarray(sim[name], dtype=float)[last]
        m = keep & np.isfinite(r) & cover
        if not m.any():
            results.append(SignalResult(name, False, True, scale=scale,
                                        note="no reference point outside the event windows (skipped)"))
            continue
        tm = rt[m]
        if np.all(np.isfinite(sv)):
            s_at = np.interp(tm, st_i, sv)
        else:
            # a non-finite value spoils the interval either side of it
            bad = ~np.isfinite(sv)
            s_at = np.interp(tm, st_i, np.where(bad, 0.0, sv))
            near_bad = np.interp(tm, st_i, bad.astype(float)) > 0
            s_at[near_bad] = math.nan
        err = np.abs(s_at - r[m])
        err[~np.isfinite(err)] = math.inf
        k = int(np.argmax(err))
        # the deviation in units of the tube's scale: max(range, atol/rtol), so that a signal
        # that is zero to rounding noise (range 1e-37, e.g. a MultiBody angular velocity about
        # an axis nothing turns about) is not reported 0.76 of its "range" while inside the tube
        dev = float(err[k]) / max(scale, atol / rtol if rtol > 0 else 0.0)
        ok = bool(np.all(err <= max(rtol * scale, atol)))
        note = "" if ok else ("not finite" if math.isinf(dev) else f"outside the tube ({dev:.2g} of its range)")
        results.append(SignalResult(name, True, ok, dev, scale, float(tm[k]), int(m.sum()), note))
    compared = [s for s in results if s.compared]
    passed = not reason and bool(compared) and all(s.passed for s in results)
    if not reason and not compared:
        reason = "no signal could be compared"
    return Comparison(passed, results, reason)


# --------------------------------------------------------------------------- discovery

@dataclass
class Example:
    """An example found below ``--references``: its class, the selected package it belongs
    to, its reference folder, CSV (None when missing) and signals, where its source is, and its
    experiment."""
    name: str
    package: str
    ref_dir: Path
    csv: Path | None
    signals: list[str]
    source: Path | None = None
    line: int | None = None
    experiment: Experiment = field(default_factory=Experiment)
    note: str = ""

    @property
    def short(self) -> str:
        """The class's name relative to its package (``OpAmps.Adder``)."""
        return self.name[len(self.package) + 1:] if self.name.startswith(self.package + ".") else self.name


def modelica_root(library: Path) -> Path | None:
    """The ``Modelica`` package folder in a library folder (``Modelica/`` or ``Modelica
    <version>/``), or None."""
    p = top_package(Path(library), "Modelica")
    return p if p is not None and p.is_dir() else None


def msl_version(library: Path) -> str:
    """The ``version`` annotation of the Modelica package in ``library`` ('' if unknown)."""
    root = modelica_root(library)
    if root is None:
        return ""
    try:
        m = re.search(r'(?<![\w.])version\s*=\s*"([^"]*)"', (root / "package.mo").read_text(errors="replace"))
    except OSError:
        return ""
    return m.group(1) if m else ""


def discover(library: Path, references: Path, packages: Sequence[str] = DEFAULT_PACKAGES) -> list[Example]:
    """Every example with a reference folder (``comparisonSignals.txt``) below the reference
    folder of each of ``packages`` (a package, or one example), in package order then by
    name; a class found under two selected packages is listed once.  Raises
    :class:`LadderInputError` for a package without reference results."""
    library, references = Path(library), Path(references)
    out: dict[str, Example] = {}
    for pkg in packages:
        rdir = references.joinpath(*pkg.split("."))
        folders = sorted({p.parent for p in rdir.rglob("comparisonSignals.txt")}) if rdir.is_dir() else []
        if not folders:
            raise LadderInputError(f"--references {references}: no reference results for {pkg} "
                                   f"(no comparisonSignals.txt below {rdir})")
        is_example = (rdir / "comparisonSignals.txt").is_file()
        package = pkg.rsplit(".", 1)[0] if is_example and "." in pkg else pkg
        for d in folders:
            name = ".".join(pkg.split(".") + list(d.relative_to(rdir).parts))
            if name in out:
                continue
            short = name.split(".")[-1]
            csvs = [d / f"{short}.csv"] if (d / f"{short}.csv").is_file() else sorted(d.glob("*.csv"))
            ex = Example(name, package, d, csvs[0] if len(csvs) == 1 else None,
                         read_signals(d / "comparisonSignals.txt"))
            if ex.csv is None:
                ex.note = f"no reference CSV in {d}" if not csvs else f"several CSV files in {d}"
            src = class_source(library, name)
            if src is not None:
                ex.source, ex.line = src.path, src.line
                ex.experiment = parse_experiment(src.code)
            else:
                ex.note = (ex.note + "; " if ex.note else "") + "class not found in the library's source " \
                                                                "(experiment defaults)"
            out[name] = ex
    return list(out.values())


# --------------------------------------------------------------------------- running

@dataclass
class Record:
    """One row of the ladder's table: the stage where the example stopped, the build's wall
    and CPU seconds, the simulation's wall seconds, the largest deviation (of the signal's
    range) and its signal, compared/requested signals, the first error (one line), the
    experiment (``*``: a default), the communication step used, and rumoca's verdict on the
    example as it is ("loads", "refuses", or "" when the build did not get that far)."""
    package: str
    example: str
    stage: str = "found"
    build_wall_s: float | None = None
    build_cpu_s: float | None = None
    simulate_wall_s: float | None = None
    max_deviation: float | None = None
    worst_signal: str = ""
    signals: str = ""
    error: str = "not run"
    experiment: str = ""
    step: float | None = None
    has_csv: bool = True
    rumoca: str = ""

    @property
    def short(self) -> str:
        """The example's name relative to its package."""
        return self.example[len(self.package) + 1:] if self.example.startswith(self.package + ".") else self.example


@dataclass
class Proc:
    """A finished subprocess: exit code (negative: killed by that signal), wall and CPU
    seconds (the process and the children it waited for), whether the timeout killed it, and
    its output (stdout and stderr together)."""
    rc: int
    wall: float
    cpu: float | None
    timed_out: bool
    output: str


class BuildServer:
    """A build process that serves many builds (``msl_worker serve``), in its own process
    group: the libraries rumoca loaded for one example stay loaded for the next (an MSL
    example's front end 10 s of CPU in a new process, about 2 s in a served one).  A build
    that does not answer within the timeout is ended with its server (SIGTERM, then SIGKILL
    after 10 s); a server that died answers every later request with nothing, and the ladder
    starts a new one."""

    #: the server's command line
    COMMAND = (sys.executable, "-m", "wearcosim.bench.msl_worker", "serve")

    def __init__(self, cwd: Path, lock: threading.Lock, running: set[int],
                 command: Sequence[str] | None = None) -> None:
        cwd.mkdir(parents=True, exist_ok=True)
        self._tmp = Path(tempfile.mkdtemp(prefix=".build-server-", dir=cwd))
        env = dict(os.environ, TMPDIR=str(self._tmp), PYTHONUNBUFFERED="1")
        self._p = subprocess.Popen(list(command or self.COMMAND),
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env=env, start_new_session=True, cwd=str(self._tmp), text=True)
        self._lock, self._running = lock, running
        self._status: int | None = None

    def alive(self) -> bool:
        """The server has not ended."""
        return self._status is None and self._p.poll() is None

    def build(self, library: str, name: str, out: Path, log: Path, tmp: Path, timeout: float,
              stop: threading.Event) -> Proc:
        """One build, as :meth:`Ladder.run_process` would report a process of its own: exit
        code (negative: the server was killed by that signal), wall and CPU seconds, whether
        the timeout ended it, and its output."""
        part = log.with_name(f".{log.name}.part")
        t0 = time.perf_counter()
        answer: list[str] = []
        def read() -> None:
            try:
                answer.append(self._p.stdout.readline())
            except (OSError, ValueError):
                pass
        reader = threading.Thread(target=read, daemon=True)
        with self._lock:
            self._running.add(self._p.pid)
        timed_out = False
        try:
            self._p.stdin.write(json.dumps({"library": library, "name": name, "out": str(out),
                                            "log": str(part), "tmp": str(tmp)}) + "\n")
            self._p.stdin.flush()
            reader.start()
            deadline = t0 + timeout
            while reader.is_alive():
                reader.join(0.05)
                if reader.is_alive() and (time.perf_counter() > deadline or stop.is_set()):
                    timed_out = time.perf_counter() > deadline
                    self._end()
                    reader.join(5)
                    break
        except (BrokenPipeError, OSError):          # the server had died
            pass
        finally:
            with self._lock:
                self._running.discard(self._p.pid)
        wall = time.perf_counter() - t0
        reply = json.loads(answer[0]) if answer and answer[0].strip() and not timed_out else None
        if reply is None:
            self._end()
            reader.join(5)
            self._close_files()
        if part.exists():
            os.replace(part, log)
        else:
            log.write_text("", encoding="utf-8")
        output = log.read_text(encoding="utf-8", errors="replace")
        if reply is None:
            rc = self._status if self._status is not None and self._status < 0 else -signal.SIGKILL
            return Proc(rc, wall, None, timed_out, output)
        return Proc(int(reply["rc"]), wall, float(reply["cpu"]), False, output)

    def _end(self) -> None:
        """End the server's process group: SIGTERM, SIGKILL after 10 s."""
        if self._status is not None:
            return
        _kill_group(self._p.pid, signal.SIGTERM)
        try:
            self._p.wait(10)
        except subprocess.TimeoutExpired:
            _kill_group(self._p.pid, signal.SIGKILL)
            self._p.wait()
        _kill_group(self._p.pid, signal.SIGKILL)     # what it left running in its group
        self._status = self._p.returncode

    def close(self) -> None:
        """End the server: the end of its input, then :meth:`_end` if it does not stop."""
        if self._status is None:
            try:
                self._p.stdin.close()
                self._p.wait(30)
                self._status = self._p.returncode
                _kill_group(self._p.pid, signal.SIGKILL)
            except (OSError, subprocess.TimeoutExpired):
                self._end()
        self._close_files()

    def _close_files(self) -> None:
        """Close the server's pipes and remove its temporary folder."""
        for f in (self._p.stdin, self._p.stdout):
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self._tmp, ignore_errors=True)


class Ladder:
    """Runs examples one per thread (``jobs`` at a time), each build by the thread's build
    server (:class:`BuildServer`) and each simulation in its own process group; :meth:`stop`
    ends the running ones (by their process group ids), :meth:`close` the servers."""

    def __init__(self, library: Path, out: Path, timeout: float = TIMEOUT, rtol: float = RTOL) -> None:
        self.library = Path(library).resolve()
        self.out = Path(out).resolve()
        self.timeout = timeout
        self.rtol = rtol
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._running: set[int] = set()
        self._servers = threading.local()
        self._all_servers: list[BuildServer] = []

    def stop(self) -> None:
        """Stop launching, and end the running subprocesses' process groups."""
        self._stop.set()
        with self._lock:
            pids = list(self._running)
        for pid in pids:
            _kill_group(pid, signal.SIGTERM)

    def run_process(self, cmd: list[str], log: Path, tmp: Path) -> Proc:
        """Run ``cmd`` with its output into ``log`` (renamed into place when it ends), TMPDIR
        ``tmp``, in a new session; killed (SIGTERM, then SIGKILL) after the timeout."""
        env = dict(os.environ, TMPDIR=str(tmp), PYTHONUNBUFFERED="1")
        part = log.with_name(f".{log.name}.part")
        t0 = time.perf_counter()
        timed_out = False
        with open(part, "wb") as f:
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 env=env, start_new_session=True, cwd=str(tmp))
            with self._lock:
                self._running.add(p.pid)
            try:
                deadline = t0 + self.timeout
                killed_at = None
                while True:
                    pid, status, ru = os.wait4(p.pid, os.WNOHANG)
                    if pid:
                        break
                    now = time.perf_counter()
                    if killed_at is None and (now > deadline or self._stop.is_set()):
                        timed_out = now > deadline
                        _kill_group(p.pid, signal.SIGTERM)
                        killed_at = now
                    elif killed_at is not None and now > killed_at + 10:
                        _kill_group(p.pid, signal.SIGKILL)
                        pid, status, ru = os.wait4(p.pid, 0)
                        break
                    time.sleep(0.05)
            finally:
                with self._lock:
                    self._running.discard(p.pid)
            _kill_group(p.pid, signal.SIGKILL)     # what the process left running in its group
            p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        os.replace(part, log)
        return Proc(p.returncode, wall, ru.ru_utime + ru.ru_stime, timed_out,
                    log.read_text(encoding="utf-8", errors="replace"))

    def build(self, ex: Example, wd: Path, tmp: Path) -> Proc:
        """Build ``ex`` into ``wd`` by this thread's build server (:class:`BuildServer`, made
        when the thread has none or its last one ended), with the same timeout, output log and
        temporary folder as a process of its own."""
        server = getattr(self._servers, "server", None)
        if server is None or not server.alive():
            server = self._servers.server = BuildServer(self.out / "work", self._lock, self._running)
            with self._lock:
                self._all_servers.append(server)
        return server.build(str(self.library), ex.name, wd, wd / "build.log", tmp, self.timeout, self._stop)

    def close(self) -> None:
        """End the build servers (at the end of their input; the killed ones are ended)."""
        with self._lock:
            servers, self._all_servers = self._all_servers, []
        for server in servers:
            server.close()

    def run(self, ex: Example) -> Record:
        """Build, simulate and compare one example; never raises for the example's own
        failures."""
        rec = Record(ex.package, ex.name, experiment=ex.experiment.describe(), has_csv=ex.csv is not None)
        if self._stop.is_set():
            return rec
        wd = self.out / "work" / ex.name
        if wd.exists():
            shutil.rmtree(wd)
        tmp = wd / "tmp"
        tmp.mkdir(parents=True)
        try:
            return self._run(ex, rec, wd, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _run(self, ex: Example, rec: Record, wd: Path, tmp: Path) -> Record:
        py = [sys.executable, "-m", "wearcosim.bench.msl_worker"]
        b = self.build(ex, wd, tmp)
        rec.build_wall_s, rec.build_cpu_s = round(b.wall, 2), (round(b.cpu, 2) if b.cpu is not None else None)
        verdict = [x[len(RUMOCA_MARK):] for x in b.output.splitlines() if x.startswith(RUMOCA_MARK)]
        rec.rumoca = ("loads" if verdict[0] == "loads" else "refuses") if verdict else ""
        fmu = wd / f"{ex.name.split('.')[-1]}.fmu"
        if b.rc != 0 or not fmu.is_file():
            rec.stage = "build" if FRONT_END_DONE in b.output else "flatten"
            rec.error = _first_error(b, self.timeout, "the build")
            return rec
        rec.stage = "simulate"
        if self._stop.is_set():
            rec.error = "interrupted"
            return rec
        e = ex.experiment
        reference = None
        step = e.interval
        if ex.csv is not None:
            try:
                reference = read_reference(ex.csv)
            except (OSError, ValueError) as exc:
                rec.error = f"reading the reference: {' '.join(str(exc).split())}"
                return rec
            h = _median_step(reference[0])
            if 0 < h < step:
                step = h
        rec.step = step
        result = wd / "result.npz"
        spec = {"fmu": str(fmu), "unzipdir": str(wd / "unzipped"), "result": str(result), "start": e.start,
                "stop": e.stop, "interval": step, "tolerance": e.tolerance, "signals": ex.signals}
        with atomic_path(wd / "simulate.json") as t:
            t.write_text(json.dumps(spec, indent=1), encoding="utf-8")
        s = self.run_process(py + ["simulate", str(wd / "simulate.json")], wd / "simulate.log", tmp)
        rec.simulate_wall_s = round(s.wall, 2)
        if s.rc != 0 or not result.is_file():
            rec.error = _first_error(s, self.timeout, "the simulation")
            fmu_says = [x.split("] ", 1)[1] for x in s.output.splitlines()
                        if x.startswith(("[FATAL] ", "[ERROR] ", "[DISCARD] ")) and "] " in x]
            if fmu_says and fmu_says[0] not in rec.error:
                rec.error += " -- the FMU: " + " ".join(fmu_says[0].split())
            return rec
        rec.stage = "compare"
        if reference is None:
            rec.error = ex.note or "no reference CSV"
            return rec
        rt, ref = reference
        try:
            with np.load(result) as z:
                st, names, values = z["time"], [str(n) for n in z["names"]], z["values"]
        except (OSError, ValueError) as exc:
            rec.error = f"reading the results: {' '.join(str(exc).split())}"
            return rec
        c = compare(rt, ref, st, {n: values[k] for k, n in enumerate(names)}, ex.signals, self.rtol)
        rec.signals = f"{c.n_compared}/{len(ex.signals)}"
        w = c.worst
        if w is not None:
            rec.max_deviation, rec.worst_signal = w.deviation, w.name
        if c.passed:
            rec.stage, rec.error = "pass", ""
        else:
            bad = [x for x in c.signals if not x.passed]
            if c.reason:
                rec.error = c.reason
            elif bad:
                worst = max(bad, key=lambda x: x.deviation)
                at = f" at t = {worst.t_worst:g}" if math.isfinite(worst.t_worst) else ""
                rec.error = f"{worst.name}: {worst.note}{at}" + (f" (+{len(bad) - 1} more signals)"
                                                                  if len(bad) > 1 else "")
        skipped = [x.name for x in c.signals if not x.compared and x.passed]
        if skipped and rec.stage == "pass":
            rec.error = f"not compared: {', '.join(skipped)}"
        return rec


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _first_error(p: Proc, timeout: float, what: str) -> str:
    if p.timed_out:
        return f"{what} timed out after {timeout:g} s"
    for line in p.output.splitlines():
        if line.startswith("error: "):
            return " ".join(line[len("error: "):].split())
    if p.rc < 0:
        try:
            name = signal.Signals(-p.rc).name
        except ValueError:
            name = str(-p.rc)
        return f"{what} was killed by signal {name}"
    lines = [x.strip() for x in p.output.splitlines()
             if x.strip() and FRONT_END_DONE not in x and not x.startswith(RUMOCA_MARK)]
    return " ".join(lines[-1].split()) if lines else f"{what} ended with exit code {p.rc}"


# --------------------------------------------------------------------------- tables

_COLUMNS = ("package", "example", "stage", "build_wall_s", "build_cpu_s", "simulate_wall_s", "max_deviation",
            "worst_signal", "signals", "error", "experiment", "step", "has_csv", "rumoca")


def summary(records: Sequence[Record]) -> list[dict[str, Any]]:
    """Per package (in order of appearance) and in all: examples, front end passed (stage
    build or later), built (simulate or later), simulated (compare or later), passed, the
    passed percentage (of all examples), and how many examples have no reference CSV (they
    cannot pass); then apart for the examples rumoca loads as they are (issue 38's acceptance
    is measured on those: how many, passed, %) and those it refuses (how many, brought in
    anyway -- past the front end --, passed)."""
    order = list(dict.fromkeys(r.package for r in records))
    rows = []
    for pkg in order + ["all"]:
        rs = [r for r in records if pkg == "all" or r.package == pkg]
        at = [STAGES.index(r.stage) for r in rs]
        n = len(rs)
        passed = sum(1 for a in at if a >= 5)
        rows.append({"package": pkg, "examples": n, "front_end": sum(1 for a in at if a >= 2),
                     "built": sum(1 for a in at if a >= 3), "simulated": sum(1 for a in at if a >= 4),
                     "passed": passed, "percent": round(100.0 * passed / n, 1) if n else 0.0,
                     "no_reference_csv": sum(1 for r in rs if not r.has_csv)})
        loads = [r for r in rs if r.rumoca == "loads"]
        refuses = [r for r in rs if r.rumoca == "refuses"]
        ok = sum(1 for r in loads if r.stage == "pass")
        rows[-1].update({"rumoca_loads": len(loads), "passed_loaded": ok,
                         "percent_loaded": round(100.0 * ok / len(loads), 1) if loads else 0.0,
                         "rumoca_refuses": len(refuses),
                         "refused_brought_in": sum(1 for r in refuses if STAGES.index(r.stage) >= 2),
                         "refused_passed": sum(1 for r in refuses if r.stage == "pass")})
    return rows


def error_cause(error: str) -> str:
    """An error line without its place (``file:line[:col]: ``) and with numbers in its
    message replaced by ``#``, to group examples that stop for the same reason; a
    comparison's failure is its kind (a signal outside the tube, not finite, not a variable of
    the FMU; no reference CSV) without the signal's name."""
    e = error.strip()
    if e.startswith("no reference CSV"):
        return "no reference CSV"
    m = re.match(r"^\S+: (outside the tube|not finite|not a variable of the FMU)", e)
    if m:
        return "a signal " + m.group(1)
    s = re.sub(r"^(?:\S+?\.mo:\d+(?::\d+)?:\s*)", "", e)
    s = re.sub(r"\S+\.mo:\d+(?::\d+)?", "<file:line>", s)
    return re.sub(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])", "#", s)


def causes(records: Sequence[Record], limit: int = 15) -> list[tuple[str, str, int]]:
    """The most frequent first errors: (stage, cause, count), most frequent first."""
    c = Counter((r.stage, error_cause(r.error)) for r in records if r.stage not in ("pass", "found") and r.error)
    return [(st, cause, n) for (st, cause), n in c.most_common(limit)]


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if math.isinf(v):
            return "inf"
        return f"{v:.3g}" if abs(v) < 1e-2 or abs(v) >= 1e4 else f"{v:.4g}"
    return str(v)


def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def markdown(records: Sequence[Record], library: Path | str | None = None, title: str | None = "MSL ladder",
             meta: Sequence[str] = ()) -> str:
    """The summary, the most frequent first errors and the table, as Markdown (paths below
    ``library`` written relative to it; no heading when ``title`` is None)."""
    lib = f"{Path(library).resolve()}/" if library is not None else None

    def rel(s: str) -> str:
        return s.replace(lib, "") if lib else s
    out = ([f"# {title}", ""] if title else []) + [f"- {m}" for m in meta] + ([""] if meta else [])
    out += ["| package | examples | front end | built | simulated | passed | % | no reference CSV "
            "| rumoca loads | passed | % | rumoca refuses | brought in | passed |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in summary(records):
        out.append(f"| {s['package']} | {s['examples']} | {s['front_end']} | {s['built']} | {s['simulated']} | "
                   f"{s['passed']} | {s['percent']:g} | {s['no_reference_csv']} | {s['rumoca_loads']} | "
                   f"{s['passed_loaded']} | {s['percent_loaded']:g} | {s['rumoca_refuses']} | "
                   f"{s['refused_brought_in']} | {s['refused_passed']} |")
    cs = causes(records)
    if cs:
        out += ["", "Most frequent first errors:", "", "| count | stage | cause |", "|---:|---|---|"]
        out += [f"| {n} | {st} | {_md(rel(c))} |" for st, c, n in cs]
    out += ["", "| package | example | rumoca | stage | build wall s | build CPU s | max dev / range | signal "
            "| first error |", "|---|---|---|---|---:|---:|---:|---|---|"]
    for r in records:
        out.append(f"| {r.package} | {r.short} | {r.rumoca} | {r.stage} | {_fmt(r.build_wall_s)} | "
                   f"{_fmt(r.build_cpu_s)} | {_fmt(r.max_deviation)} | {_md(r.worst_signal)} | {_md(rel(r.error))} |")
    return "\n".join(out) + "\n"


def write_outputs(records: Sequence[Record], out: Path, library: Path | None = None,
                  meta: Sequence[str] = ()) -> None:
    """Write ``ladder.csv``, ``ladder.md`` and ``summary.csv`` into ``out``, each atomically."""
    out = Path(out)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(_COLUMNS)
    for r in records:
        d = asdict(r)
        w.writerow([_fmt(d[c]) if isinstance(d[c], float) else ("" if d[c] is None else d[c]) for c in _COLUMNS])
    with atomic_path(out / "ladder.csv") as t:
        t.write_text(buf.getvalue(), encoding="utf-8")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    rows = summary(records)
    w.writerow(list(rows[0]))
    for s in rows:
        w.writerow(list(s.values()))
    with atomic_path(out / "summary.csv") as t:
        t.write_text(buf.getvalue(), encoding="utf-8")
    with atomic_path(out / "ladder.md") as t:
        t.write_text(markdown(records, library, meta=meta), encoding="utf-8")


def read_table(path: Path) -> list[Record]:
    """The records of a ``ladder.csv`` (to tabulate a finished run again; a table without
    the ``has_csv`` column is read from the errors)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        def num(k: str) -> float | None:
            v = r.get(k, "")
            return float(v) if v not in ("", None) else None
        out.append(Record(r["package"], r["example"], r["stage"], num("build_wall_s"), num("build_cpu_s"),
                          num("simulate_wall_s"), num("max_deviation"), r.get("worst_signal", ""),
                          r.get("signals", ""), r.get("error", ""), r.get("experiment", ""), num("step"),
                          r["has_csv"] == "True" if r.get("has_csv") else
                          not r.get("error", "").startswith("no reference CSV"), r.get("rumoca", "") or ""))
    return out


def format_summary(records: Sequence[Record]) -> str:
    """The per-package summary as plain text (what the command prints)."""
    rows = summary(records)
    w = max(len(s["package"]) for s in rows)
    lines = [f"{'package':<{w}}  examples  front end  built  simulated  passed      %  no ref. CSV"
             f"  rumoca loads  passed      %  refuses  brought in  passed"]
    for s in rows:
        lines.append(f"{s['package']:<{w}}  {s['examples']:8d}  {s['front_end']:9d}  {s['built']:5d}  "
                     f"{s['simulated']:9d}  {s['passed']:6d}  {s['percent']:5.1f}  {s['no_reference_csv']:11d}"
                     f"  {s['rumoca_loads']:12d}  {s['passed_loaded']:6d}  {s['percent_loaded']:5.1f}"
                     f"  {s['rumoca_refuses']:7d}  {s['refused_brought_in']:10d}  {s['refused_passed']:6d}")
    return "\n".join(lines)


def _git_state() -> str:
    root = Path(__file__).resolve().parents[3]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "python/wearcosim/export",
                                "fmu"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return f"{head}{' (exporter with uncommitted changes)' if dirty else ''}" if head else ""


# --------------------------------------------------------------------------- command line

def _terminate_as_interrupt() -> Any:
    """SIGTERM/SIGHUP end the ladder like Ctrl-C (its builds and simulations, which run in
    sessions of their own, are ended too); returns a function restoring the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")
    old = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            old[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):
            pass

    def restore() -> None:
        for sig, h in old.items():
            signal.signal(sig, h)
    return restore


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:        # one line, exit 2 (not argparse's usage block)
        raise LadderInputError(message)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="python -m wearcosim.bench.msl", description=__doc__.split("\n\n")[0])
    ap.add_argument("--library", required=True, metavar="DIR",
                    help="folder holding the Modelica package (MSL: Modelica/, ModelicaServices/, Complex.mo)")
    ap.add_argument("--references", required=True, metavar="DIR",
                    help="MSL reference results (<DIR>/Modelica/.../<Example>/<Example>.csv + comparisonSignals.txt)")
    ap.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES), metavar="NAME",
                    help="packages (or single examples) whose examples are run (default: the six of the ladder)")
    ap.add_argument("--out", default="msl-ladder", metavar="DIR", help="output folder (default: ./msl-ladder)")
    ap.add_argument("--jobs", type=int, default=1, metavar="N", help="examples run at the same time (default 1)")
    ap.add_argument("--timeout", type=float, default=TIMEOUT, metavar="S",
                    help=f"seconds for one build and for one simulation (default {TIMEOUT:g})")
    ap.add_argument("--rtol", type=float, default=RTOL, metavar="R",
                    help=f"tube half-width as a fraction of each signal's range (default {RTOL:g})")
    ap.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    return ap


def _check(args: argparse.Namespace) -> tuple[Path, Path, Path]:
    library, refs, out = Path(args.library), Path(args.references), Path(args.out)
    if not library.is_dir():
        raise LadderInputError(f"--library {library}: no such folder")
    if modelica_root(library) is None:
        raise LadderInputError(f"--library {library}: no Modelica package in it (expected {library}/Modelica/"
                               f"package.mo; give the folder that holds Modelica/)")
    if not refs.is_dir():
        raise LadderInputError(f"--references {refs}: no such folder")
    if args.jobs < 1:
        raise LadderInputError(f"--jobs {args.jobs}: at least 1")
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        raise LadderInputError(f"--timeout {args.timeout:g}: a positive number of seconds")
    if not (math.isfinite(args.rtol) and 0 < args.rtol < 1):
        raise LadderInputError(f"--rtol {args.rtol:g}: between 0 and 1")
    for p in args.packages:
        if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", p):
            raise LadderInputError(f"--packages {p}: not a dotted class name")
    if out.exists() and not out.is_dir():
        raise LadderInputError(f"--out {out}: not a folder")
    return library, refs, out


def run_ladder(library: Path, references: Path, packages: Sequence[str] = DEFAULT_PACKAGES,
               out: Path = Path("msl-ladder"), jobs: int = 1, timeout: float = TIMEOUT, rtol: float = RTOL,
               say: Any = print) -> list[Record]:
    """Discover, run and tabulate; returns the records (in discovery order).  ``say`` prints
    one line per finished example."""
    examples = discover(library, references, packages)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ladder = Ladder(library, out, timeout, rtol)
    records = [Record(e.package, e.name, experiment=e.experiment.describe(), has_csv=e.csv is not None)
               for e in examples]
    today = _dt.date.today().isoformat()
    meta = [f"date: {today}", f"MSL: {msl_version(library) or '?'} ({Path(library).resolve()})",
            f"wearcosim: {_git_state() or '?'}", f"criterion: rtol {rtol:g} of each signal's range "
            f"(see docs/msl.md)", f"timeout: {timeout:g} s per build and per simulation, jobs {jobs}"]
    write_outputs(records, out, library, meta)
    index = {e.name: k for k, e in enumerate(examples)}
    done = 0
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = {pool.submit(ladder.run, e): e for e in examples}
        for f in as_completed(futures):
            e = futures[f]
            try:
                rec = f.result()
            except Exception as exc:          # noqa: BLE001 -- the ladder's own failure on one example
                rec = Record(e.package, e.name, experiment=e.experiment.describe(), has_csv=e.csv is not None,
                             error=f"ladder error: {type(exc).__name__}: {' '.join(str(exc).split())}")
            records[index[e.name]] = rec
            done += 1
            dev = f", deviation {_fmt(rec.max_deviation)} ({rec.worst_signal})" if rec.max_deviation is not None else ""
            bt = f", build {rec.build_wall_s:.1f} s" if rec.build_wall_s is not None else ""
            say(f"[{done}/{len(examples)}] {e.name}: {rec.stage}{bt}{dev}" + (f" -- {rec.error}" if rec.error else ""))
            write_outputs(records, out, library, meta)
    except BaseException:
        ladder.stop()
        pool.shutdown(wait=True, cancel_futures=True)
        ladder.close()
        write_outputs(records, out, library, meta)
        raise
    pool.shutdown(wait=True)
    ladder.close()
    return records


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit code (0 when the ladder ran, whatever it found)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    restore = _terminate_as_interrupt()
    try:
        args = _parser().parse_args(argv)
        library, refs, out = _check(args)
        records = run_ladder(library, refs, args.packages, out, args.jobs, args.timeout, args.rtol)
    except LadderInputError as exc:
        if debug:
            raise
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if debug:
            raise
        print("error: interrupted; the table holds the examples that finished", file=sys.stderr)
        return 130
    except OSError as exc:
        if debug:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    finally:
        restore()
    print(format_summary(records))
    print(f"table: {Path(out) / 'ladder.md'}, {Path(out) / 'ladder.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
