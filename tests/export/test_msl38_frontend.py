"""Front-end constructs of the Modelica Standard Library (issue 38) on models written for these
tests from the Modelica specification: enumerations (MLS 4.9.5) and String parameters and
constants (MultiBody's World has several).  Before: "unknown variable 'Mode.Fast'" and
"String variable 'label' is not supported"."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wctest import fixture_path, unzipped
from wearcosim.export import frontend
from wearcosim.export.build import build_fmu


def test_enumeration_literals_are_their_ordinals():
    m = frontend.load(fixture_path("EnumParam"), "EnumParam")
    assert m.variables["mode"].type == "Integer"
    assert set(m.strings) == {"label", "speedUnit"} and "label" not in m.variables


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_enumeration_parameter_comparisons_and_integer(tmp_path, fmi_type):
    """mode = Mode.Fast: Integer(mode) = 3, der(x) = 2 + 1 (mode > Mode.Slow).  The String
    parameter and constant are kept out of the numerics and exported as FMI String variables
    with their values (issue 38)."""
    from fmpy import read_model_description, simulate_fmu
    fmu = build_fmu("EnumParam", path=fixture_path("EnumParam"), out_dir=tmp_path).fmu
    strings = {v.name: v for v in read_model_description(str(fmu)).modelVariables if v.type == "String"}
    assert set(strings) == {"label", "speedUnit"}
    assert strings["label"].start == "drive" and strings["label"].causality == "parameter"
    assert strings["speedUnit"].start == "rad/s" and strings["speedUnit"].variability == "constant"
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=1.0, output=["x", "k"], fmi_type=fmi_type)
    assert r["k"][-1] == 3 and r["x"][-1] == pytest.approx(3.0, rel=1e-9)


_LIB = '''package Lib "a library in MSL's layout: several classes per file, a versioned folder"
  annotation(version = "1.2.0");
end Lib;
'''
_EXAMPLES = '''within Lib;
package Examples "two examples in one file"
  model Slow "decays slowly"
    Real x(start = 1, fixed = true);
  equation
    der(x) = -0.5*x;
    annotation(experiment(StopTime = 4.0, Interval = 0.5));
  end Slow;
  model Fast "decays fast"
    extends Lib.Examples.Slow(x(start = 2));
    annotation(experiment(StopTime = 2.0, Interval = 0.25));
  end Fast;
end Examples;
'''


def _library(tmp):
    lib = Path(tmp) / "libs" / "Lib 1.2.0"
    lib.mkdir(parents=True)
    (lib / "package.mo").write_text(_LIB)
    (lib / "Examples.mo").write_text(_EXAMPLES)
    (lib / "package.order").write_text("Examples\n")
    return lib


def _cli(args):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "wearcosim.cli", "build", *args], capture_output=True, text=True,
                          timeout=600)


def test_a_class_of_a_library_in_msl_layout_is_built_by_its_name(tmp_path):
    """`wearcosim build --library DIR Lib.Examples.Fast`: the library's folder carries its
    version ("Lib 1.2.0", MLS 13.3.3), the class is one of two in Examples.mo, and its own
    experiment annotation is the FMU's default experiment (not the first class's).  Before:
    "no class named Lib.Examples.Fast in .../WearCosim (one class per file)"."""
    from fmpy import read_model_description, simulate_fmu
    lib = _library(tmp_path)
    p = _cli(["--library", str(lib.parent), "Lib.Examples.Fast", "--out", str(tmp_path / "out")])
    assert p.returncode == 0, p.stderr
    fmu = tmp_path / "out" / "Fast.fmu"
    ex = read_model_description(str(fmu)).defaultExperiment
    assert (float(ex.stopTime), float(ex.stepSize)) == (2.0, 0.25)
    r = simulate_fmu(str(fmu), stop_time=2.0, output=["x"])
    assert r["x"][-1] == pytest.approx(2 * np.exp(-1.0), rel=1e-7)
    # the same through --package (the library's folder)
    p = _cli(["--package", str(lib), "Lib.Examples.Slow", "--out", str(tmp_path / "out2")])
    assert p.returncode == 0, p.stderr
    ex = read_model_description(str(tmp_path / "out2" / "Slow.fmu")).defaultExperiment
    assert float(ex.stopTime) == 4.0


# `wearcosim build --library <MSL> Modelica.Mechanics.Rotational.Examples.First` by its name
# (before: not found; through a wrapper file: structurally singular, then Modelica.Math.sin
# refused), compared with the MSL 4.0.0 reference: tests/bench/test_msl_slice.py[First] runs
# that very command and comparison (the ladder's criterion, 1e-3 of each signal's range).


# --------------------------------------------------------------------------- lint warnings
LINT38 = Path(__file__).parent / "fixtures" / "msl38" / "Lint38"


def _load_error(path, model):
    from wearcosim.export.errors import ExportError
    with pytest.raises(ExportError) as info:
        frontend.load(path, model)
    return info.value


@pytest.fixture
def no_rewrites(monkeypatch):
    """The front end without its rewrites of the library view (frontend._rewrites, see
    test_rumoca_refused.py): what it reports where a rewrite does not apply."""
    monkeypatch.setattr(frontend, "_rewrites", lambda index, model: {})


def test_a_lower_case_package_name_is_no_error(no_rewrites):
    """Lint38.Filters.base (MSL's Blocks.Continuous has 'base'): rumoca's linter warns about the
    name; the package builds, and a model of it that fails for another reason is not reported as
    a syntax error at 'package base' (before: "Filters.mo:3: syntax error: package name 'base'
    should start with uppercase (PascalCase)", the first validation warning of any file of the
    package, for the 20 MSL examples that use Blocks.Continuous)."""
    m = frontend.load(LINT38 / "Examples.mo", "Lint38.Examples.Decay")
    assert set(m.variables) == {"x", "g.u", "g.y"}
    err = _load_error(LINT38 / "Examples.mo", "Lint38.Examples.FirstTrue")
    assert "PascalCase" not in err.message and err.kind != "syntax", str(err)
    assert Path(err.loc.file).name == "Examples.mo", str(err)


def test_a_syntax_error_is_still_found_beside_a_lint_warning(tmp_path):
    """A real syntax error in package.mo, read after Filters.mo and its lint warning: the error
    is reported at its line, the warning is passed over (before: the warning)."""
    import shutil
    pkg = tmp_path / "Lint38"
    shutil.copytree(LINT38, pkg)
    (pkg / "package.mo").write_text("package Lint38\n  constant Real c = ;\nend Lint38;\n")
    err = _load_error(pkg / "Examples.mo", "Lint38.Examples.Decay")
    assert err.kind == "syntax" and "PascalCase" not in err.message, str(err)
    assert (Path(err.loc.file).name, err.loc.line) == ("package.mo", 2), str(err)


# --------------------------------------------------------------------------- call statements
def test_call_statements_in_an_initial_algorithm_and_in_functions(tmp_path):
    """``isIncreasing(table);`` in an initial algorithm (MSL's Blocks.Sources.BooleanTable calls
    isValidTable(table) so: LogicalNetwork1, ShowLogicalSources, CharacteristicThyristors) and
    ``(lo, hi) := bounds(u); (, hi) := bounds(2*u);`` in a function.  Before: "internal error
    (KeyError: 'parts')" -- rumoca names the called function in ``comp.name`` and gives the
    outputs as component references."""
    from fmpy import simulate_fmu
    from wearcosim.export import ir
    m = frontend.load(fixture_path("InitCall"), "InitCall")
    (st,), = m.initial_algorithms
    assert isinstance(st.value, ir.Call) and st.value.name.endswith("isIncreasing")
    assert st.value.args == (ir.Ref("table"),) and st.targets == (None,)
    assert st.loc.line == 34
    width = next(f for n, f in m.functions.items() if n.split(".")[-1] == "width")
    calls = [s for s in width.body if s.targets]
    assert [s.value.name.split(".")[-1] for s in calls] == ["bounds", "bounds"]
    assert calls[0].targets == (ir.Ref("lo"), ir.Ref("hi")) and calls[1].targets == (None, ir.Ref("hi"))
    fmu = build_fmu("InitCall", path=fixture_path("InitCall"), out_dir=tmp_path).fmu
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=1.0, output=["x"])
    assert r["x"][-1] == pytest.approx(3.0, rel=1e-9)       # width = 6/2 - 0


# --------------------------------------------------------------------------- rumoca's ToDae refusals
# rumoca 0.10.2's Python API gives the flat stage (Model.to_dict("flat")) only of a model whose DAE
# stage succeeded: Session.load/loads, codegen_file with the flat-stage targets (flat-modelica,
# base-modelica), run_scenario and partial classes all raise the ToDae refusal.  The refusals are
# therefore named in the user's terms, at the construct's line, found in the classes the model uses.
def test_return_inside_a_loop_of_a_function_is_named_at_its_line(no_rewrites):
    """MSL's Modelica.Math.BooleanVectors.firstTrueIndex (RealNetwork1, BooleanNetwork1,
    IntegerNetwork1): before, 'unsupported Flat semantic owner `function return`' at the model's
    first line after a search of up to a minute (or the lint warning of test above).  With the
    rewrites of the library view, the model is brought in (test_rumoca_refused.py)."""
    err = _load_error(LINT38 / "Examples.mo", "Lint38.Examples.FirstTrue")
    assert (Path(err.loc.file).name, err.loc.line, err.loc.col) == ("Examples.mo", 19, 9), str(err)
    assert err.message.startswith("return inside a for-loop of function 'Lint38.Examples.firstTrue'"), str(err)


def test_while_inside_an_if_statement_is_named_in_the_function_the_model_calls(no_rewrites):
    """MSL's Modelica.Math.Vectors.interpolate with a one-row table (Clutch, Brake, OneWayClutch:
    'missing function value definition for identity 2', no place); the function the model does
    not call (also a while-loop inside an if-statement, defined first) is not the one named."""
    err = _load_error(fixture_path("WhileInIf"), "WhileInIf")
    assert (err.loc.line, err.loc.col) == (27, 9), str(err)
    assert "while-loop inside an if-statement of function 'WhileInIf.interpolate'" in err.message, str(err)
    assert "missing function value definition" in err.message


def test_a_parameter_bound_to_a_function_of_two_outputs_is_named(no_rewrites):
    """MSL's Rotational.Components.LossyGear (LossyGearDemo1-3, HeatLosses): rumoca refuses
    'tau_bf_a_0' (type mismatch: Boolean expected, Array found); the cause named is the parameter
    it uses, bound to a call of a function with two outputs, at that declaration."""
    err = _load_error(fixture_path("TupleParam"), "TupleParam")
    assert (err.loc.line, err.loc.col) == (12, 18), str(err)
    assert err.message.startswith("parameter 'eta' is bound to a call of 'TupleParam.lookup', a function with "
                                  "2 outputs"), str(err)
    assert "'lossless'" in err.message


def test_two_functions_of_one_name_in_different_classes_are_named(no_rewrites):
    """MSL's Rotational.Examples.GenerationOfFMUs: rumoca takes one protected function 'position'
    for the other ('function shape proof: q_qd: axis 1 requires extent 2 but the call site proves
    3'); both functions are named."""
    err = _load_error(fixture_path("SameName"), "SameName.Both")
    assert "functions of one name 'position' in different classes" in err.message, str(err)
    assert "SameName.Angle.position" in err.message and "SameName.Length.position" in err.message
    assert err.loc.line in (6, 20)


def test_a_for_loop_inside_a_when_statement_of_an_algorithm_is_named():
    """MSL's Electrical.Analog.Ideal.AD_Converter (AD_DA_conversion): 'event tensor loop must cover
    every target axis exactly once', no place; before, a search of up to a minute in a small
    package and none at all in the MSL."""
    err = _load_error(fixture_path("WhenFor"), "WhenFor")
    assert (err.loc.line, err.loc.col) == (9, 5), str(err)
    assert err.message.startswith("for-loop inside a when-statement of the algorithm of WhenFor"), str(err)


def test_a_model_extending_its_own_nested_class_is_named_at_the_extends(no_rewrites):
    """MSL's Translational.Components.MassWithStopAndFriction (Translational Friction, HeatLosses):
    rumoca's resolver refuses the nested base class's own variables ('reference to non-constant
    variable ... from a lexically nested class', 72 related failures on one message); before: all
    of them on one line at the model's first line, after rumoca.validate of every MSL file."""
    err = _load_error(fixture_path("NestedBase"), "NestedBase")
    assert (err.loc.line, err.loc.col) == (2, 3), str(err)
    assert err.message.startswith("NestedBase extends Base, a class defined inside it"), str(err)


# --------------------------------------------------------------------------- records
def test_records_returned_by_functions_are_flattened_to_their_fields(tmp_path):
    """Frames.Orientation-like records (MLS 12.6): R0 = nullRotation() and Rq = fieldwise(0.5)
    (parameters bound to a field of a function's record result, rumoca's 'FieldAccess'),
    R = compose(planarRotation(phi, w0), 0.5) (a record equation; a record input, a record local
    set by a call and a record constructor inside the function).  Before: "unsupported expression
    'FieldAccess'" (all 21 MultiBody.Examples.Elementary).  R.T = rot(phi + 0.5), R.w = w0,
    v = R.T*{1, 0} + R0.T*{0, 1} + Rq.T[1, :]."""
    from fmpy import simulate_fmu
    from wearcosim.export import ir
    m = frontend.load(fixture_path("RecordFunctions"), "RecordFunctions")
    compose = m.functions["compose"]
    assert [v.name for v in compose.outputs] == ["R2.T", "R2.w"]
    assert [v.name for v in compose.locals] == ["Rrel.T", "Rrel.w"]
    assert m.variables["R0.w"].binding == ir.Call("nullRotation.w", (), False)
    assert [v.name for v in m.functions["nullRotation.w"].outputs] == ["R.w"]
    fmu = build_fmu("RecordFunctions", path=fixture_path("RecordFunctions"), out_dir=tmp_path).fmu
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=1.0, output=["v[1]", "v[2]", "R.w", "R.T[1,2]"])
    phi = 2*r["time"]
    assert np.max(abs(r["v[1]"] - (np.cos(phi + 0.5) + np.cos(0.5)))) < 1e-12
    assert np.max(abs(r["v[2]"] - (-np.sin(phi + 0.5) + 1 + np.sin(0.5)))) < 1e-12
    assert np.max(abs(r["R.T[1,2]"] - np.sin(phi + 0.5))) < 1e-12 and np.all(r["R.w"] == 2)


def test_two_functions_of_one_name_and_size_are_not_merged_silently():
    """rumoca 0.10.2 keys class-local functions by their short name: Angle's and Speed's
    'position' (same input sizes) became one, and a.y = 10*u[2] instead of u[1] without any
    message (before).  The call whose definition is not the function kept is refused."""
    err = _load_error(fixture_path("SameNameSilent"), "SameNameSilent.Both")
    assert err.loc.line in (13, 26), str(err)
    assert "one of two functions of that name in different classes" in err.message, str(err)


def test_a_replaceable_function_is_not_taken_for_two_functions():
    """A replaceable function called through its short class definition (MultiBody's
    PipeWithScalarField.colorMap: Elementary.Surfaces) has another def_id than the function
    rumoca keeps, and is one function: it builds (before this guard: refused as two)."""
    from wearcosim.export import ir
    m = frontend.load(fixture_path("SameNameSilent"), "SameNameSilent.Replaced")
    assert m.equations[0].residual == ir.Bin("-", ir.Ref("y"), ir.Call("scale", (ir.Ref("time"),), False))


def test_a_function_output_sized_by_an_input_is_set_element_by_element(tmp_path):
    """``output Real xsi[n]`` assigned xsi[i] := ... in a loop (MSL's relNodePositions, used by
    MultiBody's PipeWithScalarField: Elementary.Surfaces).  Before: "subscripted assignment to
    scalar 'xsi'" -- the output started as a scalar; now as fill(0.0, n)."""
    from fmpy import simulate_fmu
    from wearcosim.export import ir
    m = frontend.load(fixture_path("SizedOutput"), "SizedOutput")
    (xsi,) = next(f for n, f in m.functions.items() if n.split(".")[-1] == "nodes").outputs
    assert xsi.dims == (-1,) and xsi.binding == ir.Call("fill", (ir.Lit(0.0), ir.Ref("n")), True)
    fmu = build_fmu("SizedOutput", path=fixture_path("SizedOutput"), out_dir=tmp_path).fmu
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=1.0, output=["y"])
    assert r["y"][-1] == pytest.approx(1.25, rel=1e-12)
