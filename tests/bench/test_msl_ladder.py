"""The MSL ladder (``python -m wearcosim.bench.msl``, issue 38): the comparison criterion on
synthetic signals (the tube's edges, events, NaN, missing signals, different time grids), the
experiment-annotation parser, class lookup and example discovery on a small library and
reference tree written here in MSL's layout, the tables, the command's error lines, a hanging
subprocess, the whole ladder on that small library (each stage reached once) and, when the
Modelica Standard Library 4.0.0 and its reference results are present, on two real examples.

No timing is asserted."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wctest import MSL_ABSENT, msl_references, msl_root
from wearcosim.bench import msl


# --------------------------------------------------------------------------- comparison

def _grid(n=1001, t1=1.0):
    return np.linspace(0.0, t1, n)


def test_identical_signals_pass_with_zero_deviation():
    t = _grid()
    ref = {"x": np.sin(2 * np.pi * t)}
    c = msl.compare(t, ref, t, dict(ref), ["x"])
    assert c.passed and c.n_compared == 1 and c.worst.deviation == 0.0 and c.worst.scale == pytest.approx(2.0)


@pytest.mark.parametrize("frac, ok", [(0.999, True), (1.001, False)])
def test_the_tube_is_rtol_of_the_signals_range(frac, ok):
    """sin on [0, 1] has range 2: an offset of 0.999 * 1e-3 * 2 passes, 1.001 * 1e-3 * 2 fails."""
    t = _grid()
    r = np.sin(2 * np.pi * t)
    c = msl.compare(t, {"x": r}, t, {"x": r + frac * 1e-3 * 2.0}, ["x"])
    assert c.passed is ok
    assert c.worst.deviation == pytest.approx(frac * 1e-3, rel=1e-9)
    # a wider tube on request
    assert msl.compare(t, {"x": r}, t, {"x": r + 1.5e-3 * 2.0}, ["x"], rtol=2e-3).passed


def test_a_constant_signal_is_measured_against_its_value_and_zero_against_one():
    t = _grid(11)
    c = msl.compare(t, {"c": np.full(11, 50.0), "z": np.zeros(11)}, t,
                    {"c": np.full(11, 50.04), "z": np.full(11, 9e-4)}, ["c", "z"])
    assert c.passed
    assert {s.name: s.scale for s in c.signals} == {"c": 50.0, "z": 1.0}
    assert not msl.compare(t, {"z": np.zeros(11)}, t, {"z": np.full(11, 2e-3)}, ["z"]).passed


def _step(t, at):
    return np.where(t < at, 0.0, 1.0)


def test_points_near_an_event_are_not_compared_but_a_late_event_fails():
    """The reference writes its step at t = 0.5 twice (left and right limit); the simulation,
    on a coarser grid that straddles the step, interpolates across it: the points within two
    intervals of the event are left out.  A step at 0.6 instead is a real difference."""
    rt = np.sort(np.r_[np.linspace(0, 1, 2001), 0.5])
    r = np.where(rt < 0.5, 0.0, 1.0)
    r[np.searchsorted(rt, 0.5)] = 0.0          # the left limit first, then the right limit
    st = np.linspace(0, 1, 1001) + 0.0003      # no simulation point at 0.5
    st[0], st[-1] = 0.0, 1.0
    c = msl.compare(rt, {"y": r}, st, {"y": _step(st, 0.5)}, ["y"])
    assert c.passed, c
    bad = msl.compare(rt, {"y": r}, st, {"y": _step(st, 0.6)}, ["y"])
    assert not bad.passed and bad.worst.deviation == pytest.approx(1.0)
    assert 0.5 < bad.worst.t_worst < 0.6
    # without the repeated time stamp the step is compared everywhere, and interpolation across
    # it fails at the reference points between the simulation's two samples
    flat = np.linspace(0, 1, 2001)
    assert not msl.compare(flat, {"y": _step(flat, 0.50025)}, st, {"y": _step(st, 0.50025)}, ["y"]).passed


def test_an_event_written_twice_by_the_simulation_is_also_left_out():
    rt = np.linspace(0, 1, 1001)
    st = np.sort(np.r_[np.linspace(0, 1, 101), 0.505, 0.505])
    sv = _step(st, 0.505)
    sv[np.searchsorted(st, 0.505)] = 0.0
    assert msl.compare(rt, {"y": _step(rt, 0.5052)}, st, {"y": sv}, ["y"]).passed


def test_nan_in_the_simulation_fails_nan_in_the_reference_is_skipped():
    t = _grid(101)
    r = np.cos(t)
    s = r.copy()
    s[40] = np.nan
    c = msl.compare(t, {"x": r}, t, {"x": s}, ["x"])
    assert not c.passed and math.isinf(c.worst.deviation) and c.worst.note == "not finite"
    r2 = r.copy()
    r2[40] = np.nan
    ok = msl.compare(t, {"x": r2}, t, {"x": r}, ["x"])
    assert ok.passed and ok.worst.points == 100


def test_a_signal_missing_from_the_fmu_fails_one_missing_from_the_reference_is_skipped():
    t = _grid(101)
    ref = {"a": t, "b": t ** 2}
    c = msl.compare(t, ref, t, {"a": t}, ["a", "b"])
    assert not c.passed and c.worst.name == "b" and c.worst.note == "not a variable of the FMU"
    c = msl.compare(t, {"a": t}, t, {"a": t, "b": t}, ["a", "b"])
    assert c.passed and c.n_compared == 1 and "not in the reference CSV" in c.signals[1].note
    nothing = msl.compare(t, {"a": t}, t, {"a": t}, ["b"])
    assert not nothing.passed and nothing.reason == "no signal could be compared"


def test_different_time_grids_are_interpolated_and_must_cover_the_reference():
    """A smooth signal: reference on 2001 points, simulation on 501 -> linear interpolation
    error (h^2/8 |x''| = 1.2e-5 of the range) passes; a simulation that stopped at 0.8 fails."""
    rt = np.linspace(0, 1, 2001)
    st = np.linspace(0, 1, 501)
    c = msl.compare(rt, {"x": np.sin(2 * np.pi * rt)}, st, {"x": np.sin(2 * np.pi * st)}, ["x"])
    assert c.passed and 0 < c.worst.deviation < 2e-5
    short = st[st <= 0.8]
    c = msl.compare(rt, {"x": np.sin(2 * np.pi * rt)}, short, {"x": np.sin(2 * np.pi * short)}, ["x"])
    assert not c.passed and "covers t = 0..0.8" in c.reason


# --------------------------------------------------------------------------- experiment

@pytest.mark.parametrize("text, expected", [
    ("annotation(experiment(StopTime=1.0, Interval=0.001));", (0.0, 1.0, 0.001, 1e-6)),
    ("experiment(StartTime = -1, StopTime = 2*3, Tolerance = 1e-8, Interval = 7e-3)", (-1.0, 6.0, 7e-3, 1e-8)),
    ('experiment(StopTime=5, __Dymola_NumberOfIntervals=2500, __Dymola_Algorithm="Dassl")',
     (0.0, 5.0, 0.002, 1e-6)),
    ("experiment(StopTime=10)", (0.0, 10.0, 0.02, 1e-6)),
    ("annotation(Documentation(info=\"no experiment here\"))", (0.0, 1.0, 0.002, 1e-6)),
    ("experiment(StopTime=pi, Interval=0.5)", (0.0, 1.0, 0.5, 1e-6)),
    ("experiment(StopTime=3, Tolerance=0)", (0.0, 3.0, 0.006, 1e-6)),
])
def test_experiment_annotation(text, expected):
    e = msl.parse_experiment(text)
    assert (e.start, e.stop) == pytest.approx(expected[:2])
    assert e.interval == pytest.approx(expected[2]) and e.tolerance == pytest.approx(expected[3])


def test_experiment_annotation_of_a_class_ignores_strings_comments_and_takes_its_own():
    cls = '''model M "experiment(StopTime=99)"
  // annotation(experiment(StopTime=98))
  /* experiment(StopTime=97) */
  model Inner
    annotation(experiment(StopTime=96));
  end Inner;
  annotation(Documentation(info="<html>experiment(StopTime=95)</html>"),
    experiment(StopTime=1.5, Interval=0.5e-3, Tolerance=1e-7));
end M;'''
    e = msl.parse_experiment(cls)
    assert (e.stop, e.interval, e.tolerance) == (1.5, 5e-4, 1e-7)
    assert e.given == ("StopTime", "Interval", "Tolerance")
    assert e.describe() == "0*..1.5 s, interval 0.0005, tolerance 1e-07"


# --------------------------------------------------------------------------- a small library

_FILES = {
    "Modelica/package.mo": 'package Modelica "a small library in MSL\'s layout"\n'
                           '  annotation(version="9.9.9");\nend Modelica;\n',
    "Modelica/Fake/package.mo": "within Modelica;\npackage Fake\nend Fake;\n",
    "Modelica/Fake/Examples/package.mo": '''within Modelica.Fake;
package Examples "several classes in one file"
  model Decay "x' = -x; 'model Wrong' in a string"
    Real x(start = 1, fixed = true);
  equation
    der(x) = -x;
    annotation(experiment(StopTime = 2, Interval = 0.01));
  end Decay;
  model Wrong "decays faster than its reference"
    Real x(start = 1, fixed = true);
  equation
    der(x) = -1.2*x;
    annotation(experiment(StopTime = 2, Interval = 0.01));
  end Wrong;
  model Singular "two equations, one of them twice"
    Real x, y;
  equation
    x + y = 1;
    2*x + 2*y = 3;
  end Singular;
  model Bad "an unknown name"
    Real x(start = 1, fixed = true);
  equation
    der(x) = -z;
  end Bad;
  model Halt "an assert that fails at t = 0.5"
    Real x(start = 1, fixed = true);
  equation
    der(x) = -x;
    assert(time < 0.5, "halted on purpose");
    annotation(experiment(StopTime = 1, Interval = 0.01));
  end Halt;
  package Group
    model A
      Real x(start = 0, fixed = true);
    equation
      der(x) = 1;
      annotation(experiment(StopTime = 4, Interval = 0.1));
    end A;
  end Group;
end Examples;
''',
    "Modelica/Fake/Examples/Tree/package.mo": "within Modelica.Fake.Examples;\npackage Tree\nend Tree;\n",
    "Modelica/Fake/Examples/Tree/Leaf.mo": '''within Modelica.Fake.Examples.Tree;
model Leaf "one class in its own file" // experiment(StopTime=99)
  Real x(start = 2, fixed = true);
equation
  der(x) = 0;
  annotation(experiment(StartTime=1, StopTime=3, Tolerance=1e-8, __Dymola_NumberOfIntervals=100));
end Leaf;
''',
}


def _library(tmp: Path) -> Path:
    lib = tmp / "lib"
    for rel, text in _FILES.items():
        (lib / rel).parent.mkdir(parents=True, exist_ok=True)
        (lib / rel).write_text(text)
    return lib


def _reference(refs: Path, name: str, t=None, cols=None, csv=True):
    d = refs.joinpath(*name.split("."))
    d.mkdir(parents=True)
    (d / "comparisonSignals.txt").write_text("time\n" + "\n".join(cols or ["x"]) + "\n")
    if csv:
        head = ",".join(f'"{c}"' for c in ["time"] + list(cols))
        rows = [",".join(repr(float(v)) for v in row) for row in zip(t, *[cols[c] for c in cols])]
        (d / f"{name.split('.')[-1]}.csv").write_text(head + "\n" + "\n".join(rows) + "\n")


def _references(tmp: Path) -> Path:
    refs = tmp / "refs"
    t = np.r_[np.linspace(0, 2, 401), 2.0]                     # the last time written twice, as MSL's
    ex = "Modelica.Fake.Examples"
    for name in ("Decay", "Wrong", "Bad", "Singular"):
        _reference(refs, f"{ex}.{name}", t, {"x": np.exp(-t)})
    th = np.linspace(0, 1, 201)
    _reference(refs, f"{ex}.Halt", th, {"x": np.exp(-th)})
    ta = np.linspace(0, 4, 41)
    _reference(refs, f"{ex}.Group.A", ta, {"x": ta})
    _reference(refs, f"{ex}.Tree.Leaf", cols=["x"], csv=False)
    _reference(refs, f"{ex}.Ghost", ta, {"x": ta})
    return refs


def test_class_source_in_msl_layout(tmp_path):
    lib = _library(tmp_path)
    s = msl.class_source(lib, "Modelica.Fake.Examples.Wrong")
    assert s.path.name == "package.mo" and s.line == 9 and "der(x) = -1.2*x" in s.code
    assert msl.class_source(lib, "Modelica.Fake.Examples.Group.A").line == 34
    leaf = msl.class_source(lib, "Modelica.Fake.Examples.Tree.Leaf")
    assert leaf.path.name == "Leaf.mo" and leaf.line == 2
    assert msl.class_source(lib, "Modelica.Fake.Examples").line == 2
    assert msl.class_source(lib, "Modelica.Fake.Examples.Ghost") is None
    assert msl.class_source(lib, "Other.Thing") is None
    # a versioned folder name is the package (MLS 13.3.3)
    (lib / "Modelica").rename(lib / "Modelica 9.9.9")
    assert msl.class_source(lib, "Modelica.Fake.Examples.Decay").line == 3
    assert msl.msl_version(lib) == "9.9.9"


def test_discovery_of_examples_with_references(tmp_path):
    lib, refs = _library(tmp_path), _references(tmp_path)
    found = msl.discover(lib, refs, ["Modelica.Fake.Examples"])
    names = [e.short for e in found]
    assert names == ["Bad", "Decay", "Ghost", "Group.A", "Halt", "Singular", "Tree.Leaf", "Wrong"]
    by = {e.short: e for e in found}
    assert {e.package for e in found} == {"Modelica.Fake.Examples"}
    d = by["Decay"]
    assert d.csv.name == "Decay.csv" and d.signals == ["x"] and d.note == ""
    assert (d.experiment.stop, d.experiment.interval, d.experiment.tolerance) == (2.0, 0.01, 1e-6)
    leaf = by["Tree.Leaf"]
    assert leaf.csv is None and "no reference CSV" in leaf.note and leaf.source.name == "Leaf.mo"
    assert (leaf.experiment.start, leaf.experiment.stop, leaf.experiment.interval) == (1.0, 3.0, 0.02)
    assert "class not found" in by["Ghost"].note and by["Ghost"].source is None
    assert by["Group.A"].experiment.stop == 4.0
    # one example by its name; an example under two selections is listed once
    one = msl.discover(lib, refs, ["Modelica.Fake.Examples.Decay", "Modelica.Fake.Examples"])
    assert one[0].name == "Modelica.Fake.Examples.Decay" and one[0].package == "Modelica.Fake.Examples"
    assert len(one) == len(found)
    with pytest.raises(msl.LadderInputError, match="no reference results for Modelica.Fake.Nothing"):
        msl.discover(lib, refs, ["Modelica.Fake.Nothing"])


def test_tables_summary_and_causes(tmp_path):
    R = msl.Record
    recs = [R("P.A", "P.A.x", "pass", 1.0, 2.0, 0.1, 1e-5, "s", "1/1", "", rumoca="loads"),
            R("P.A", "P.A.y", "flatten", error="/m/M.mo:3: unsupported error: unsupported expression 'FieldAccess'",
              rumoca="loads"),
            R("P.A", "P.A.z", "flatten", error="/m/N.mo:44:2: unsupported error: unsupported expression 'FieldAccess'",
              rumoca="refuses"),
            R("P.B", "P.B.w", "compare", error="no reference CSV in /r", has_csv=False),
            R("P.B", "P.B.v", "simulate", error="fmi2DoStep failed at t = 0.25"),
            R("P.B", "P.B.u", "found")]
    s = msl.summary(recs)
    assert [x["package"] for x in s] == ["P.A", "P.B", "all"]
    assert s[0] == {"package": "P.A", "examples": 3, "front_end": 1, "built": 1, "simulated": 1, "passed": 1,
                    "percent": 33.3, "no_reference_csv": 0, "rumoca_loads": 2, "passed_loaded": 1,
                    "percent_loaded": 50.0, "rumoca_refuses": 1, "refused_brought_in": 0, "refused_passed": 0}
    assert (s[2]["examples"], s[2]["built"], s[2]["simulated"], s[2]["no_reference_csv"]) == (6, 3, 2, 1)
    cs = msl.causes(recs)
    assert cs[0] == ("flatten", "unsupported error: unsupported expression 'FieldAccess'", 2)
    assert ("simulate", "fmi2DoStep failed at t = #", 1) in cs
    msl.write_outputs(recs, tmp_path / "o", meta=["date: today"])
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["ladder.csv", "ladder.md", "summary.csv"]
    md = (tmp_path / "o" / "ladder.md").read_text()
    assert "| P.A | x | loads | pass |" in md and "- date: today" in md and "| 2 | flatten |" in md
    assert "| P.A | 3 | 1 | 1 | 1 | 1 | 33.3 | 0 | 2 | 1 | 50 | 1 | 0 | 0 |" in md
    rows = (tmp_path / "o" / "ladder.csv").read_text().splitlines()
    assert rows[0].startswith("package,example,stage,build_wall_s") and len(rows) == 7
    assert "P.A.y,flatten" in rows[2] and "/m/M.mo:3: unsupported error" in rows[2]
    assert "all,6,3,3,2,1,16.7,1" in (tmp_path / "o" / "summary.csv").read_text()
    assert "P.B" in msl.format_summary(recs)
    assert msl.read_table(tmp_path / "o" / "ladder.csv") == recs           # the table read back
    assert msl.error_cause("mass1.v: outside the tube (0.2 of its range) at t = 0.5 (+2 more signals)") == \
        "a signal outside the tube"
    assert msl.error_cause("no reference CSV in /r/X") == "no reference CSV"
    assert msl.markdown(recs, title=None).startswith("| package | examples |")


# --------------------------------------------------------------------------- command line

def _main(capsys, *args):
    rc = msl.main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def test_command_line_errors_are_one_line_exit_2(tmp_path, capsys):
    lib, refs = _library(tmp_path), _references(tmp_path)
    out = tmp_path / "out"
    cases = [
        ([], "the following arguments are required: --library, --references"),
        (["--library", str(tmp_path / "nope"), "--references", str(refs)], "no such folder"),
        (["--library", str(refs), "--references", str(refs)], "no Modelica package in it"),
        (["--library", str(lib), "--references", str(tmp_path / "nope")], "--references"),
        (["--library", str(lib), "--references", str(lib)], "no reference results for Modelica.Mechanics"),
        (["--library", str(lib), "--references", str(refs), "--packages", "Modelica.Fake.None"],
         "no reference results for Modelica.Fake.None"),
        (["--library", str(lib), "--references", str(refs), "--jobs", "0"], "--jobs 0"),
        (["--library", str(lib), "--references", str(refs), "--timeout", "-1"], "--timeout"),
        (["--library", str(lib), "--references", str(refs), "--jobs", "x"], "invalid int value"),
        (["--library", str(lib), "--references", str(refs), "--packages", "a/b"], "not a dotted class name"),
    ]
    for args, text in cases:
        rc, so, se = _main(capsys, *args, "--out", str(out))
        assert rc == 2, (args, se)
        assert len(se.splitlines()) == 1 and se.startswith("error: ") and text in se, (args, se)
        assert "Traceback" not in se and not out.exists()
    (tmp_path / "file").write_text("")
    rc, so, se = _main(capsys, "--library", str(lib), "--references", str(refs), "--out", str(tmp_path / "file"))
    assert rc == 2 and "not a folder" in se
    with pytest.raises(msl.LadderInputError):                    # --debug: the exception itself
        msl.main(["--library", str(tmp_path / "nope"), "--references", str(refs), "--debug"])


def test_command_line_as_a_module(tmp_path):
    p = subprocess.run([sys.executable, "-m", "wearcosim.bench.msl", "--library", str(tmp_path / "none"),
                        "--references", str(tmp_path)], capture_output=True, text=True, timeout=120,
                       cwd=str(tmp_path))
    assert p.returncode == 2 and p.stderr == f"error: --library {tmp_path / 'none'}: no such folder\n"
    assert not (tmp_path / "msl-ladder").exists()


def test_a_hanging_subprocess_is_ended_at_the_timeout(tmp_path):
    lad = msl.Ladder(tmp_path, tmp_path, timeout=0.5)
    p = lad.run_process([sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"],
                        tmp_path / "x.log", tmp_path)
    assert p.timed_out and p.rc < 0 and "started" in p.output
    assert (tmp_path / "x.log").is_file() and not list(tmp_path.glob(".x.log*"))
    assert msl._first_error(p, 0.5, "the build") == "the build timed out after 0.5 s"


# --------------------------------------------------------------------------- the ladder

def test_the_ladder_on_a_small_library_reaches_every_stage(tmp_path, capsys):
    """Decay passes; Wrong (x' = -1.2x against exp(-t)) stops at compare; Halt at simulate (an
    assert, named by the FMU's message); Singular in the build (a later pass: after the front
    end); Bad in the front end; Tree.Leaf has no reference CSV."""
    lib, refs = _library(tmp_path), _references(tmp_path)
    out = tmp_path / "out"
    ex = "Modelica.Fake.Examples"
    rc, so, se = _main(capsys, "--library", str(lib), "--references", str(refs), "--out", str(out), "--jobs", "2",
                       "--timeout", "300", "--packages", *[f"{ex}.{n}" for n in
                                                           ("Decay", "Wrong", "Halt", "Singular", "Bad")])
    assert rc == 0, se
    rows = {r["example"].split(".")[-1]: r for r in _csv_rows(out / "ladder.csv")}
    assert {k: v["stage"] for k, v in rows.items()} == {
        "Decay": "pass", "Wrong": "compare", "Halt": "simulate", "Singular": "build", "Bad": "flatten"}
    assert float(rows["Decay"]["max_deviation"]) < 1e-3 and rows["Decay"]["worst_signal"] == "x"
    assert float(rows["Decay"]["step"]) == 0.005            # the reference's grid, finer than Interval 0.01
    # rumoca's verdict on each as it is: only Bad (an unknown name) does not compile
    assert {k: v["rumoca"] for k, v in rows.items()} == {
        "Decay": "loads", "Wrong": "loads", "Halt": "loads", "Singular": "loads", "Bad": "refuses"}
    assert float(rows["Wrong"]["max_deviation"]) > 1e-2 and rows["Wrong"]["error"].startswith("x: outside the tube")
    assert "halted on purpose" in rows["Halt"]["error"] and "package.mo:30" in rows["Halt"]["error"]
    assert rows["Singular"]["error"].startswith(f"{lib}/Modelica/Fake/Examples/package.mo:18: structure error")
    assert rows["Bad"]["error"].startswith(f"{lib}/Modelica/Fake/Examples/package.mo:24: name error")
    assert float(rows["Decay"]["build_cpu_s"]) > 0 and float(rows["Decay"]["build_wall_s"]) > 0
    assert "all" in so and "passed" in so and "[5/5]" in so
    # only the output folder was written: tables, and per example its log, FMU and results
    assert sorted(p.name for p in out.iterdir()) == ["ladder.csv", "ladder.md", "summary.csv", "work"]
    decay = out / "work" / f"{ex}.Decay"
    assert sorted(p.name for p in decay.iterdir()) == ["Decay.fmu", "build.log", "result.npz", "simulate.json",
                                                       "simulate.log"]
    assert "all,5,4,3,2,1,20.0,0" in (out / "summary.csv").read_text()


def _csv_rows(path):
    import csv
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.skipif(msl_root() is None or msl_references() is None,
                    reason=MSL_ABSENT + ", or its reference results are not on WEARCOSIM_MSL_REFERENCES")
def test_the_ladder_on_two_msl_examples(tmp_path, capsys):
    """Translational.Examples.SignConvention builds and matches its reference; Analog's
    ChuaCircuit builds and simulates, but MSL 4.0.0's reference folder has no CSV for it (only
    comparisonSignals.txt), so it stops at compare, saying so."""
    out = tmp_path / "out"
    rc, so, se = _main(capsys, "--library", str(msl_root()), "--references", str(msl_references()), "--out", str(out),
                       "--jobs", "1", "--packages", "Modelica.Mechanics.Translational.Examples.SignConvention",
                       "Modelica.Electrical.Analog.Examples.ChuaCircuit")
    assert rc == 0, se
    rows = {r["example"].split(".")[-1]: r for r in _csv_rows(out / "ladder.csv")}
    sc = rows["SignConvention"]
    assert sc["stage"] == "pass" and sc["signals"] == "6/6" and float(sc["max_deviation"]) <= 1e-3, sc
    chua = rows["ChuaCircuit"]
    assert chua["stage"] == "compare" and chua["error"].startswith("no reference CSV"), chua
    assert "Modelica.Mechanics.Translational.Examples" in (out / "ladder.md").read_text()


def test_a_signal_zero_to_rounding_noise_is_measured_against_the_tubes_floor():
    """A reference that is zero to rounding noise (range 1e-37, as MultiBody's body1.w_a[2] in
    SpringDamperSystem) and a simulation off by 1e-16: inside the tube (atol 1e-12), and the
    deviation reported against max(range, atol/rtol) = 1e-9, not as 1e21 of the noise's range."""
    t = _grid(101)
    ref = 1e-37 * np.sin(7 * t)
    c = msl.compare(t, {"w": ref}, t, {"w": ref + 1e-16}, ["w"])
    assert c.passed
    assert c.worst.deviation == pytest.approx(1e-16 / 1e-9, rel=1e-6)
    assert not msl.compare(t, {"w": ref}, t, {"w": ref + 2e-12}, ["w"]).passed


# --------------------------------------------------------------------------- build servers

_FAKE_SERVER = r"""
import json, os, sys, time
for line in sys.stdin:
    req = json.loads(line)
    with open(req["log"], "w") as log:
        log.write("building " + req["name"] + "\n")
    if req["name"].endswith("Hang"):
        time.sleep(120)
    if req["name"].endswith("Crash"):
        os.kill(os.getpid(), 11)
    print(json.dumps({"rc": 0, "cpu": 0.25}), flush=True)
"""


def _server(tmp_path):
    import threading
    return msl.BuildServer(tmp_path / "work", threading.Lock(), set(),
                           command=(sys.executable, "-c", _FAKE_SERVER))


def _serve(server, tmp_path, name, timeout=60.0):
    import threading
    wd = tmp_path / name
    (wd / "tmp").mkdir(parents=True)
    return server.build("lib", name, wd, wd / "build.log", wd / "tmp", timeout, threading.Event())


def test_a_build_server_serves_many_builds_and_ends_with_its_input(tmp_path):
    server = _server(tmp_path)
    for name in ("A", "B", "C"):
        p = _serve(server, tmp_path, name)
        assert (p.rc, p.cpu, p.timed_out, p.output) == (0, 0.25, False, f"building {name}\n")
        assert server.alive()
    server.close()
    assert not server.alive()
    assert not list((tmp_path / "work").iterdir()), "the server's temporary folder was left behind"
    assert not list(tmp_path.rglob(".build.log*"))


def test_a_hanging_build_ends_its_server_at_the_timeout(tmp_path):
    server = _server(tmp_path)
    assert _serve(server, tmp_path, "A").rc == 0
    p = _serve(server, tmp_path, "Hang", timeout=0.5)
    assert p.timed_out and p.rc < 0 and p.output == "building Hang\n"
    assert not server.alive() and not list((tmp_path / "work").iterdir())
    assert msl._first_error(p, 0.5, "the build") == "the build timed out after 0.5 s"


def test_a_crashing_build_is_told_by_its_signal_and_the_ladder_starts_a_new_server(tmp_path, monkeypatch):
    server = _server(tmp_path)
    p = _serve(server, tmp_path, "Crash")
    assert p.rc == -11 and not p.timed_out and p.output == "building Crash\n"
    assert not server.alive()
    # the ladder's thread gets a new server for its next example
    monkeypatch.setattr(msl.BuildServer, "COMMAND", (sys.executable, "-c", _FAKE_SERVER))
    lad = msl.Ladder(tmp_path, tmp_path, timeout=60)
    ex = msl.Example("Fake.Crash", "Fake", tmp_path, None, [])
    wd = tmp_path / "w1"
    (wd / "tmp").mkdir(parents=True)
    assert lad.build(ex, wd, wd / "tmp").rc == -11
    ex.name = "Fake.After"
    wd = tmp_path / "w2"
    (wd / "tmp").mkdir(parents=True)
    assert lad.build(ex, wd, wd / "tmp").rc == 0
    lad.close()
    assert not list((tmp_path / "work").glob(".build-server-*")), "a server's folder was left behind"
