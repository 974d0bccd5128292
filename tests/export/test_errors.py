"""Errors a user meets on models nobody here wrote (issue 15 item 6): every one is a single
line ``file:line[:col]: <kind> error: <message>`` naming what is wrong, no FMU (nor temporary
file) is left behind, and ``build --file`` compiles the file named and what it references,
never an unrelated neighbour of its folder."""
import subprocess
import sys
from pathlib import Path

import pytest

from wctest import PACKAGE, ROOT, fixture_path
from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError


def build_error(name, tmp_path, model=None) -> ExportError:
    p = fixture_path(name)
    out = tmp_path / "out"
    with pytest.raises(ExportError) as ei:
        build_fmu(model or name, p.parent, out, path=p)
    assert not out.exists() or list(out.iterdir()) == []
    e = ei.value
    assert "\n" not in str(e), str(e)
    return e


def at(e: ExportError, name, line, col=None):
    """The error is located at ``<fixture name>.mo:line[:col]``."""
    assert e.loc is not None and Path(e.loc.file).resolve() == fixture_path(name).resolve(), str(e)
    assert e.loc.line == line, str(e)
    if col is not None:
        assert e.loc.col == col, str(e)
    assert str(e).startswith(f"{e.loc.file}:{line}")


def wearcosim(*args):
    return subprocess.run([sys.executable, "-m", "wearcosim.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin:/usr/local/bin"},
                          timeout=300)


# ----------------------------------------------------------------------------- balance
def test_unbalanced_model_names_the_variable_without_an_equation(tmp_path):
    """The valve law of a draining tank is missing: qout has no equation (rumoca only counts:
    the error pointed at line 1 and named no variable)."""
    e = build_error("TankNoValve", tmp_path)
    assert e.kind == "balance"
    at(e, "TankNoValve", 5)                       # the declaration of qout
    assert "1 equations, 2 unknowns" in e.message
    assert "variables without an equation: qout (TankNoValve.mo:5)" in e.message


def test_overdetermined_model_names_the_extra_equation(tmp_path):
    e = build_error("TankTwoLaws", tmp_path)
    assert e.kind == "balance"
    at(e, "TankTwoLaws", 10)
    assert "3 equations, 2 unknowns" in e.message
    assert "equations without a variable" in e.message and "TankTwoLaws.mo:10" in e.message


# ----------------------------------------------------------------------------- der(parameter)
def test_der_of_a_parameter_has_its_own_message(tmp_path):
    """der(T) of a parameter T: rumoca reported an unbalanced model (1 equation, 0 unknowns)."""
    e = build_error("CoolingParameter", tmp_path)
    at(e, "CoolingParameter", 6, 3)
    assert "der(T)" in e.message and "'T' is a parameter" in e.message
    assert "unbalanced" not in e.message


def test_der_of_a_parameter_in_a_balanced_model_is_an_error_not_a_crash(tmp_path):
    """rate = der(r) with a parameter r: rumoca panicked (a Python traceback, a Rust report
    on stderr); now an ExportError at the der() with file:line:col."""
    e = build_error("SetpointRate", tmp_path)
    at(e, "SetpointRate", 7, 10)
    assert "der(r)" in e.message and "'r' is a parameter" in e.message


def test_der_of_a_parameter_cli_prints_one_line(tmp_path):
    p = wearcosim("build", "--file", str(fixture_path("SetpointRate")), "SetpointRate", "--out", str(tmp_path))
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("error: ") and "SetpointRate.mo:7:10" in p.stderr, p.stderr
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- other errors
def test_dimension_mismatch_has_line_and_column(tmp_path):
    e = build_error("MassChain", tmp_path)
    assert e.kind == "type"
    at(e, "MassChain", 7, 3)
    assert "dimension mismatch" in e.message and "[2]" in e.message and "[3]" in e.message


def test_empty_file(tmp_path):
    e = build_error("EmptyModel", tmp_path)
    at(e, "EmptyModel", 1)
    assert "empty" in e.message


def test_function_output_never_assigned_points_at_the_output(tmp_path):
    e = build_error("UnassignedOutput", tmp_path)
    at(e, "UnassignedOutput", 9)                  # output Real y;
    assert "'y'" in e.message and "'rate'" in e.message


def test_file_that_is_not_utf8_points_at_the_byte(tmp_path):
    e = build_error("Latin1Comment", tmp_path)
    at(e, "Latin1Comment", 1, 23)                 # the 0xe9 of "Décroissance"
    assert "UTF-8" in e.message and "0xe9" in e.message


def test_misspelt_model_name_suggests_the_classes_of_the_file(tmp_path):
    e = build_error("SwingingPendulum", tmp_path, model="SwingingPendlum")
    assert e.kind == "name" and Path(e.loc.file).name == "SwingingPendulum.mo"
    assert "SwingingPendlum" in e.message and "did you mean SwingingPendulum?" in e.message
    assert "resolve/parse failed" not in e.message


def test_misspelt_library_model_name_suggests_close_matches(tmp_path):
    with pytest.raises(ExportError) as ei:
        build_fmu("WearCosim.Examples.Basic.BouncingBal", PACKAGE, tmp_path)
    assert "did you mean WearCosim.Examples.Basic.BouncingBall?" in str(ei.value)
    assert "\n" not in str(ei.value) and list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- what is compiled
def test_file_is_compiled_without_its_neighbours(tmp_path):
    """Decay.mo builds although its folder holds a broken Broken.mo and DecayOld.mo, an older
    copy defining another class Decay (rumoca read every file of the folder: 'Duplicate
    class Decay')."""
    r = build_fmu("Decay", fixture_path("Decay").parent, tmp_path, path=fixture_path("Decay"))
    assert r.fmu.exists() and r.n_states == 1


def test_own_error_is_reported_not_a_neighbours_syntax_error(tmp_path):
    """`build --file DecayTypo.mo DecayTypo` with a broken Broken.mo beside it printed
    `Broken.mo:3: syntax error`."""
    p = wearcosim("build", "--file", str(fixture_path("DecayTypo")), "DecayTypo", "--out", str(tmp_path))
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1 and "DecayTypo.mo:5" in p.stderr and "'rat'" in p.stderr, p.stderr
    assert "Broken.mo" not in p.stderr and "Decay.mo" not in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_file_outside_the_library_may_use_the_library(tmp_path):
    """A stand-alone file that references WearCosim (its unit types) compiles with the library
    as its only other source."""
    p = fixture_path("BallWithLibraryUnits")
    r = build_fmu("BallWithLibraryUnits", p.parent, tmp_path, path=p)
    assert r.fmu.exists() and r.n_states == 2
