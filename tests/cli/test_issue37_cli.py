"""Issue 37: FMPy parity on the command line (``wearcosim info``; ``simulate`` with
``--start-values``, ``--relative-tolerance``, ``--output-file``, units on the plot axes),
help text for every option in plain text, the packaged scenarios through the API
(``Scenario.example``), ``to_xarray`` naming its extra, and the packaging (LICENSE in the
wheel, no exact pins, extras, constraints, requires-python).

The FMUs are built once from a small falling-mass model with a parameter of each type that
start values can set (Real, run-time Integer and Boolean), so the results are known in
closed form: h(t) = 1 - g n k t^2 / 2 with k = 2 when ``fast``, else 1."""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from wctest import ROOT

MODEL = """\
model Params37 "A falling mass with parameters of every type"
  parameter Real g(unit="m/s2", min=0, max=100) = 9.81 "gravity";
  parameter Integer n = 2 "an integer factor" annotation(Evaluate = false);
  parameter Boolean fast = false "double the rate" annotation(Evaluate = false);
  Real h(start=1, fixed=true, unit="m") "height";
  Real v(start=0, fixed=true, unit="m/s") "velocity";
  output Real y(unit="m") "height output";
equation
  der(h) = v;
  der(v) = -g * n * (if fast then 2 else 1);
  y = h;
  annotation(experiment(StopTime=1, Interval=0.01));
end Params37;
"""


@pytest.fixture(scope="module")
def fmu(tmp_path_factory):
    from wearcosim.export.build import build_fmu
    d = tmp_path_factory.mktemp("issue37")
    (d / "Params37.mo").write_text(MODEL)
    return build_fmu("Params37", path=d / "Params37.mo", out_dir=d / "fmus").fmu


def cli(*argv) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``wearcosim ARGV`` run in this process."""
    from wearcosim import cli as wcli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = wcli.main([str(a) for a in argv])
        except SystemExit as exc:                 # argparse: --help, usage errors
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def h_exact(t, g=9.81, n=2, fast=False):
    return 1 - 0.5 * g * n * (2 if fast else 1) * np.asarray(t) ** 2


# ------------------------------------------------------------------ info
def test_info_shows_what_fmpy_info_shows_and_the_parameters(fmu):
    from fmpy.util import fmu_info
    rc, out, err = cli("info", fmu)
    assert rc == 0, err
    theirs = fmu_info(str(fmu))
    for line in theirs.split("\nVariables (")[0].splitlines():     # model info, default experiment
        assert line.strip() in out, line
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:] if line.startswith("  ")}
    assert rows["g"][:6] == ["g", "Real", "parameter", "fixed", "9.81", "m/s2"] and "gravity" in out
    assert rows["n"][:5] == ["n", "Integer", "parameter", "fixed", "2"]
    assert rows["fast"][:5] == ["fast", "Boolean", "parameter", "fixed", "false"]
    assert rows["y"][:5] == ["y", "Real", "output", "continuous", "m"]
    assert "der(h)" not in rows and "h" not in rows             # locals only with --all
    rc, out, _ = cli("info", fmu, "--all")
    assert rc == 0 and "der(h)" in out and "Time derivative of h" in out
    rc, out, _ = cli("info", fmu, "--causality", "output")
    assert rc == 0 and "  y " in out and "  g " not in out


def test_info_of_a_missing_or_damaged_fmu_is_one_line(tmp_path):
    bad = tmp_path / "bad.fmu"
    bad.write_bytes(b"not a zip")
    for f in (tmp_path / "none.fmu", bad):
        rc, out, err = cli("info", f)
        assert rc == 1 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
        assert str(f) in err


# ------------------------------------------------------------------ simulate
def test_start_values_of_each_type_change_the_run(fmu, tmp_path):
    from fmpy.util import read_csv
    out = tmp_path / "r.csv"
    rc, _, err = cli("simulate", fmu, "--start-values", "fast", "true", "n", "3", "g", "9.0",
                     "--output-file", out, "--variables", "h", "y", "--relative-tolerance", "1e-9")
    assert rc == 0, err
    res = read_csv(str(out))                                  # FMPy reads what it would write
    assert res.dtype.names == ("time", "h", "y")
    assert res["time"][-1] == pytest.approx(1.0)
    assert np.allclose(res["h"], h_exact(res["time"], g=9.0, n=3, fast=True), rtol=0, atol=1e-6)
    # FMPy's own CSV layout: quoted names in the header row
    assert out.read_text().splitlines()[0] == '"time","h","y"'
    rc, _, err = cli("simulate", fmu, "--output-file", out)   # the defaults again
    assert rc == 0, err
    res = read_csv(str(out))
    assert np.allclose(res["y"], h_exact(res["time"]), rtol=0, atol=1e-6)


def test_start_values_lubricated_true_reproduces_the_lubricated_variant(build_example, tmp_path):
    """The issue's acceptance: the dry FMU with --start-values lubricated true gives the
    lubricated example's results (the law switch is a run-time parameter: no rebuild)."""
    from fmpy.util import read_csv
    dry = build_example("WearCosim.Examples.HybridMechanism.Dry7pi")
    wet = build_example("WearCosim.Examples.HybridMechanism.Lubricated7pi")
    runs = {}
    for name, f, extra in (("switched", dry, ["--start-values", "lubricated", "true"]), ("variant", wet, []),
                           ("dry", dry, [])):
        out = tmp_path / f"{name}.csv"
        rc, _, err = cli("simulate", f, "--stop", "0.05", "--step", "1e-3", "--variables", "ex", "ey", "Fn",
                         "--output-file", out, *extra)
        assert rc == 0, err
        runs[name] = read_csv(str(out))
    for n in ("ex", "ey", "Fn"):
        assert np.allclose(runs["switched"][n], runs["variant"][n], rtol=1e-9, atol=1e-15), n
    assert np.max(np.abs(runs["dry"]["Fn"] - runs["variant"]["Fn"])) > 1.0     # the switch did something


def test_boolean_words_and_fmpy_option_names(fmu, tmp_path):
    out = tmp_path / "r.csv"
    for word in ("TRUE", "1", "True"):
        rc, _, err = cli("simulate", fmu, "--stop-time", "0.5", "--output-interval", "0.05",
                         "--start-values", "fast", word, "--output-variables", "y", "--output-file", out)
        assert rc == 0, err
        rows = np.loadtxt(out, delimiter=",", skiprows=1)
        assert rows[-1, 0] == pytest.approx(0.5) and len(rows) == 11
        assert rows[-1, 1] == pytest.approx(float(h_exact(0.5, fast=True)), abs=1e-6)


@pytest.mark.parametrize("pairs, needle, status", [
    (["fats", "true"], "no variable 'fats'; did you mean fast?", 1),
    (["fast", "maybe"], "fast 'maybe': a Boolean needs true or false", 1),
    (["n", "2.5"], "n '2.5': an Integer needs a whole number", 1),
    (["n", "99999999999"], "outside the range of an Integer", 1),
    (["g", "abc"], "g 'abc': a Real needs a number", 1),
    (["g", "nan"], "a Real needs a finite number", 1),
    (["g", "1000"], "outside the variable's max 100", 1),
    (["g", "-1"], "outside the variable's min 0", 1),
    (["der(h)", "1"], "der(h) is a continuous local variable", 1),
    (["y", "3"], "y is a continuous output variable", 1),
    (["g", "1", "g", "2"], "g given twice", 1),
    (["fast"], "--start-values takes NAME VALUE pairs; 'fast' has no value", 2),
])
def test_a_bad_start_value_is_one_line_without_traceback(fmu, tmp_path, pairs, needle, status):
    out = tmp_path / "r.csv"
    rc, _, err = cli("simulate", fmu, "--start-values", *pairs, "--output-file", out)
    assert rc == status, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert needle in err, err
    assert not out.exists()


def test_a_bad_start_value_with_debug_shows_the_traceback(fmu):
    with pytest.raises(ValueError, match="a Boolean needs true or false"):
        cli("--debug", "simulate", fmu, "--start-values", "fast", "maybe")


@pytest.mark.parametrize("rtol", ["0", "1", "-1e-6", "inf"])
def test_relative_tolerance_outside_0_1_is_refused_before_the_fmu_is_opened(rtol, tmp_path):
    rc, _, err = cli("simulate", tmp_path / "none.fmu", f"--relative-tolerance={rtol}")
    assert rc == 2 and "--relative-tolerance must be in (0, 1)" in err, err


def test_options_reach_fmpy(fmu, monkeypatch):
    import fmpy
    seen = {}

    def fake(filename, **kw):
        seen.update(kw)
        return np.zeros(3, dtype=[("time", float), ("y", float)])
    monkeypatch.setattr(fmpy, "simulate_fmu", fake)
    rc, _, err = cli("simulate", fmu, "--relative-tolerance", "1e-8", "--start-values", "n", "4", "fast", "false",
                     "g", "1.5")
    assert rc == 0, err
    assert seen["relative_tolerance"] == 1e-8
    assert seen["start_values"] == {"n": 4, "fast": False, "g": 1.5}
    assert type(seen["start_values"]["n"]) is int and type(seen["start_values"]["fast"]) is bool


def test_start_value_types_from_the_model_description():
    from wearcosim.cli import start_value
    item = SimpleNamespace(name="dry", value="1"), SimpleNamespace(name="wet", value="2")
    var = lambda t, **kw: SimpleNamespace(name="x", type=t, min=kw.get("min"), max=kw.get("max"),  # noqa: E731
                                          declaredType=SimpleNamespace(items=list(item)) if t == "Enumeration" else None)
    assert start_value(var("String"), "two words") == "two words"
    assert start_value(var("Real"), "2.5e-4") == 2.5e-4
    assert start_value(var("Integer"), "-3") == -3
    assert start_value(var("Boolean"), "false") is False
    assert start_value(var("Enumeration"), "wet") == 2 and start_value(var("Enumeration"), "1") == 1
    with pytest.raises(ValueError, match="whole number or one of dry, wet"):
        start_value(var("Enumeration"), "damp")
    with pytest.raises(ValueError, match="max 3"):
        start_value(var("Integer", max="3"), "4")


def test_the_plot_has_units_on_its_axes(fmu, tmp_path, monkeypatch):
    import wearcosim.plots.timeseries as ts
    labels = {}
    real_save = ts.save

    def spy(fig, path):
        labels["y"] = [ax.get_ylabel() for ax in fig.axes]
        labels["x"] = fig.axes[-1].get_xlabel()
        real_save(fig, path)
    monkeypatch.setattr(ts, "save", spy)
    png = tmp_path / "p.png"
    rc, _, err = cli("simulate", fmu, "--variables", "h", "v", "der(v)", "y", "--plot", png)
    assert rc == 0, err
    assert png.stat().st_size > 0
    assert labels["y"] == ["h [m]", "v [m/s]", "der(v) [m/s²]", "y [m]"]
    assert labels["x"] == "time t [s]"


def test_pretty_units():
    from wearcosim.cli import pretty_unit
    assert [pretty_unit(u) for u in ("m/s2", "N.m", "kg.m2", "s-1", "um", "mm3", "rad/s", "1", "")] == \
        ["m/s²", "N·m", "kg·m²", "s⁻¹", "µm", "mm³", "rad/s", "", ""]


# ------------------------------------------------------------------ help
def _parsers():
    """(command path, parser) of every parser of the command line."""
    import argparse

    from wearcosim.cli import build_parser
    todo, out = [((), build_parser())], []
    while todo:
        path, p = todo.pop()
        out.append((path, p))
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                todo += [(path + (name,), sp) for name, sp in a.choices.items()]
    return out


def test_every_option_and_command_has_help_text():
    import argparse
    missing = []
    for path, p in _parsers():
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                helps = {c.dest: c.help for c in a._choices_actions}
                missing += [f"{' '.join(path)} {n}" for n in a.choices if not helps.get(n)]
            elif not (a.help or "").strip():
                missing.append(f"{' '.join(path) or 'wearcosim'} {a.option_strings or a.dest}")
    assert not missing, f"no help text: {missing}"


def test_times_have_units_in_the_help():
    for path, p in _parsers():
        for a in p._actions:
            if {"--stop", "--step", "--checkpoint-every"} & set(a.option_strings):
                assert "[s]" in a.help, (path, a.option_strings, a.help)


def test_help_is_plain_text():
    for path, _ in _parsers():
        rc, out, _ = cli(*path, "--help")
        assert rc == 0 and out
        for markup in ("``", ":class:", ":func:", ":mod:", ":data:", "**"):
            assert markup not in out, (path, markup)
    rc, out, _ = cli("--help")
    assert "Exit status" in out and "info" in out and "examples" in out
    rc, out, _ = cli("--version")
    assert rc == 0 and out.startswith("wearcosim ")


# ------------------------------------------------------------------ packaged scenarios
def test_packaged_scenarios_load_by_name_from_any_folder(tmp_path, monkeypatch):
    import wearcosim as wc
    from wearcosim.master.scenario import ScenarioError
    from wearcosim.resources import example_path, examples_root
    monkeypatch.chdir(tmp_path)
    names = wc.Scenario.examples()
    assert {"demo_hybrid_dry_32pi", "gear_wear", "rotor_stator_wear", "system_hybrid_dry_32pi",
            "seed/speed_4pi", "seed/tilted/speed_4pi"} <= set(names)
    assert not [n for n in names if n.startswith("sensitivity/")]    # study files are not scenarios
    sc = wc.Scenario.example("demo_hybrid_dry_32pi")
    assert sc.name == "demo_hybrid_dry_32pi" and sc.model.endswith("DrySpeed32pi")
    assert wc.Scenario.example("seed/speed_4pi.toml").name == wc.Scenario.load(
        examples_root() / "seed" / "speed_4pi.toml").name
    assert example_path("gear_wear") == examples_root() / "gear_wear.toml"      # a unique stem
    assert sc.replace(wear={"cycles": 2}).cycles == 2
    with pytest.raises(ScenarioError, match="did you mean demo_hybrid_dry_32pi"):
        wc.Scenario.example("demo_hybrid_dry")
    with pytest.raises(ScenarioError, match="ambiguous: seed/speed_4pi, seed/tilted/speed_4pi"):
        wc.Scenario.example("speed_4pi")
    with pytest.raises(ScenarioError):
        wc.Scenario.example("../pyproject")
    assert list(tmp_path.iterdir()) == []


def test_examples_command_lists_them():
    from wearcosim.resources import example_path
    rc, out, err = cli("examples")
    assert rc == 0, err
    assert re.search(r"^  demo_hybrid_dry_32pi +Hybrid mechanism, dry D3 joint", out, re.M), out
    rc, out, _ = cli("examples", "--paths")
    assert rc == 0 and str(example_path("gear_wear")) in out.splitlines()


def test_to_xarray_names_the_extra_when_xarray_is_missing(monkeypatch):
    from wearcosim.api import Results
    monkeypatch.setitem(sys.modules, "xarray", None)          # import xarray raises ImportError
    with pytest.raises(ImportError, match=r'pip install "wearcosim\[xarray\]"'):
        Results.to_xarray(object.__new__(Results))


# ------------------------------------------------------------------ packaging
def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _reqs(project) -> list[str]:
    return list(project["dependencies"]) + [r for rs in project["optional-dependencies"].values() for r in rs]


def test_pyproject_has_ranges_extras_metadata_and_the_3_11_floor():
    from packaging.requirements import Requirement
    p = _project()
    assert not [r for r in p["dependencies"] if "==" in r], "exact pins in the runtime dependencies"
    names = [Requirement(r).name.lower() for r in p["dependencies"]]
    assert len(names) == len(set(names)), names
    for extra, reqs in p["optional-dependencies"].items():
        n = [Requirement(r).name.lower() for r in reqs]
        assert len(n) == len(set(n)), (extra, n)
    assert {"test", "docs", "bench", "dask", "xarray"} <= set(p["optional-dependencies"])
    heavy = {"ross-rotordynamics", "dask", "mkdocs", "mypy", "xarray", "salib", "plotly", "pytest"}
    assert not heavy & set(names), heavy & set(names)
    assert p["requires-python"] == ">=3.11"           # tomllib; 3.10 is not supported
    assert p["license"] == {"text": "BSD-3-Clause"} and p["authors"] and p["classifiers"]
    assert "Programming Language :: Python :: 3.11" in p["classifiers"]
    assert "License :: OSI Approved :: BSD License" in p["classifiers"]


def test_constraints_pin_every_dependency_inside_its_range():
    from packaging.requirements import Requirement
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.strip().lower()] = version.strip()
    missing = []
    for text in _reqs(_project()):
        r = Requirement(text)
        if r.name.lower() in ("wearcosim", "ompython"):    # the extras' self-reference; omc's is optional
            continue
        if r.name.lower() not in pins:
            missing.append(r.name)
        else:
            assert r.specifier.contains(pins[r.name.lower()], prereleases=True), (text, pins[r.name.lower()])
    assert not missing, f"constraints.txt has no version for {missing}"


def test_license_file():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License") and "the wearcosim developers" in text
    assert "Neither the name of the copyright holder" in text


def test_the_wheel_carries_the_license_and_its_scenarios_load_by_name(tmp_path):
    """The wheel built from the tracked files (no install: unpacked onto PYTHONPATH) has
    LICENSE in its dist-info, and Scenario.example reads its own copy of the scenarios."""
    src, dist, site, work = (tmp_path / d for d in ("src", "dist", "site", "work"))
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in files.decode().split("\0"):
        if rel and (ROOT / rel).is_file() and rel.split("/")[0] in (
                "pyproject.toml", "setup.py", "README.md", "LICENSE", "python", "modelica", "fmu", "cosim"):
            if rel.startswith("fmu/") and not rel.startswith(("fmu/runtime", "fmu/templates", "fmu/container")):
                continue
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_bytes((ROOT / rel).read_bytes())
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WEARCOSIM_HOME", "WEARCOSIM_BUILD_DIR")}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(dist), str(src)], check=True, env=env, capture_output=True, timeout=600)
    (wheel,) = dist.glob("wearcosim-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert "wearcosim-0.1.0.dist-info/LICENSE" in names, [n for n in names if "dist-info" in n]
        meta = z.read("wearcosim-0.1.0.dist-info/METADATA").decode()
        z.extractall(site)
    assert "Requires-Python: >=3.11" in meta and "Provides-Extra: xarray" in meta
    assert not re.search(r"^Requires-Dist: [\w-]+==", meta, re.M)
    work.mkdir()
    script = ("import wearcosim as wc; from wearcosim import resources as r; assert r.installed(); "
              "sc = wc.Scenario.example('demo_hybrid_dry_32pi'); print(len(wc.Scenario.examples()), sc.source)")
    p = subprocess.run([sys.executable, "-c", script], cwd=work, capture_output=True, text=True, timeout=300,
                       env={**env, "PYTHONPATH": str(site)})
    assert p.returncode == 0, p.stderr[-3000:]
    count, source = p.stdout.split()
    assert int(count) >= 20 and Path(source).is_relative_to(site), p.stdout
    assert list(work.iterdir()) == []
