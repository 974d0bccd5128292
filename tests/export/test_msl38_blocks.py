"""Constructs of MSL's Blocks examples (issue 38), on models written for these tests from the
Modelica specification:

* an expandable connector's declared member that no connection uses is not part of the model
  (MLS 9.1.3; MSL's BusUsage declares ``realSignal2`` in its bus).  Before: "unbalanced: ...
  variables without an equation: controlBus.realSignal2";
* parameters with ``fixed = false`` determined by a two-output function in an initial equation
  (MSL's Filter: ``(cr, c0, c1) = Bessel(order, normalized)``).  Before: an internal error
  (TypeError, a tuple minus a number);
* ``String(x)`` (MLS 3.7.5) in a function's message, and a local array of size 0 that is never
  assigned (MSL's ``den2[0, 2]`` of the filters of even order).  Before: "unsupported expression
  'StringConversion'" and an internal error (IndexError in size())."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wctest import unzipped
from wearcosim.export import frontend
from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError

HERE = Path(__file__).parent / "fixtures" / "msl38"


def _run(fmu, names):
    from fmpy import simulate_fmu
    with unzipped(fmu) as d:
        return simulate_fmu(d, stop_time=1.0, output=names, fmi_type="CoSimulation")


def test_an_unconnected_member_of_an_expandable_connector_is_not_a_variable(tmp_path):
    m = frontend.load(HERE / "ExpandableUnused.mo", "ExpandableUnused")
    assert "bus.unused" not in m.variables and "bus.used" in m.variables
    r = _run(build_fmu("ExpandableUnused", path=HERE / "ExpandableUnused.mo", out_dir=tmp_path).fmu, ["x"])
    assert r["x"][-1] == pytest.approx(1.0, rel=1e-9)      # x = t^2


def test_an_unconnected_member_of_an_ordinary_connector_is_still_unbalanced(tmp_path):
    text = (HERE / "ExpandableUnused.mo").read_text().replace("expandable connector Signals", "connector Signals")
    src = tmp_path / "ExpandableUnused.mo"
    src.write_text(text)
    with pytest.raises(ExportError, match="unused"):
        build_fmu("ExpandableUnused", path=src, out_dir=tmp_path / "out")


def test_fixed_false_parameters_from_a_two_output_function_string_and_size_zero(tmp_path):
    """a = {1, 2} + size(unused, 2) = {3, 4}, b = {10, 20}: der(x) = a[2] + b[1] = 14."""
    r = _run(build_fmu("InitialTuple", path=HERE / "InitialTuple.mo", out_dir=tmp_path).fmu, ["x", "a[1]", "b[2]"])
    assert r["a[1]"][-1] == 3 and r["b[2]"][-1] == 20
    assert r["x"][-1] == pytest.approx(14.0, rel=1e-12)


def test_string_conversion_follows_the_specification():
    """String(Integer), String(Real, significantDigits), minimumLength/leftJustified,
    String(Boolean) and String(x, format)."""
    from wearcosim.export import ir, symbolic
    ev = symbolic.Evaluator(ir.Model(name="M"), resolve=lambda n, loc: None, numeric=True)
    s = ev.string_of
    assert s([7, 0, True, 6]) == "7"
    assert s([1.5, 0, True, 2]) == "1.5" and s([2.0 / 3.0, 0, True, 3]) == "0.667"
    assert s([1.0, 0, True, 6]) == "1"
    assert s([7, 4, True, 6]) == "7   " and s([7, 4, False, 6]) == "   7"
    assert s([True, 0, True, 6]) == "true"
    assert s([3.14159, ".2f"]) == "3.14"


def test_explicit_initial_equations_give_their_parameters_starts(tmp_path):
    """p = 4, q = sqrt(p) + 1/p (both fixed = false) and z in its steady state (der(z) = 0 with
    der(z) = -q z + 1): the initialisation starts at p = 4 and then q = 2.25, the equations'
    solutions one after the other, not at 0, where q's equation is not evaluable and z's is
    singular (MSL's filters: lowPass(cr, ...) after cr = Bessel(order), then a steady state
    whose matrix is built from them).  Before: "initial equations not solved ... residual not
    evaluable at the start values"."""
    r = _run(build_fmu("ExplicitGuess", path=HERE / "ExplicitGuess.mo", out_dir=tmp_path).fmu, ["x", "q", "z"])
    assert r["q"][-1] == pytest.approx(2.25, rel=1e-12) and r["x"][-1] == pytest.approx(2.25, rel=1e-9)
    assert np.max(abs(r["z"] - 1 / 2.25)) < 1e-9


# --------------------------------------------------------------------------- when-statements, while-loops
def _grid(fmu, names, fmi_type="CoSimulation", stop=1.1, step=0.1):
    from fmpy import simulate_fmu
    with unzipped(fmu) as d:
        return simulate_fmu(d, stop_time=stop, output=names, fmi_type=fmi_type, output_interval=step)


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_when_statements_of_an_algorithm(tmp_path, fmi_type):
    """MLS 11.2.7 (MSL's Sources.TimeTable, RadioButtonSource; Interaction1): events every 0.25 s
    from the algorithm's own next event; (a, b) := pair(time, b) with b's value where the
    algorithm starts; two when-statements assigning 'on', the later one winning.  The model
    has no states: in Co-Simulation its events are located between the communication points
    (before: handled at the next communication point, 'next' drifting by up to a step)."""
    fmu = build_fmu("WhenAlgorithm", path=HERE / "WhenAlgorithm.mo", out_dir=tmp_path).fmu
    r = _grid(fmu, ["count", "a", "b", "next", "on"], fmi_type)
    t = np.round(r["time"], 9)
    k = np.floor(t / 0.25 + 1e-9) + 1                       # events at 0, 0.25, 0.5, ...
    events = np.array([0.0, 0.25, 0.45, 0.5, 0.6, 0.75, 0.95, 1.0])
    ok = np.min(abs(t[:, None] - events), axis=1) > 1e-6    # at an event instant: either side
    assert ok.sum() >= 7
    assert np.all(r["count"][ok] == k[ok]) and np.all(r["b"][ok] == k[ok])
    assert np.allclose(r["a"][ok], 2 * 0.25 * (k[ok] - 1), atol=1e-9)
    assert np.allclose(r["next"][ok], 0.25 * k[ok], atol=1e-9)
    on = (t > 0.45) & ~(t > 0.6)
    assert np.all((r["on"] != 0)[ok] == on[ok])


def test_a_while_loop_whose_condition_varies_with_time(tmp_path):
    """row(x, t) searches the table's row forward from 1 while t passes the next abscissa: the
    loop is followed along its possible exits, the counter a number up to its bound; the row
    selects a matrix element by a time-varying subscript.  Before: "while-loop condition
    depends on time-varying values" and "dynamic subscripts are supported on vectors only"."""
    fmu = build_fmu("WhileTime", path=HERE / "WhileTime.mo", out_dir=tmp_path).fmu
    r = _grid(fmu, ["y", "x"], stop=1.2)
    t = r["time"]
    want = np.select([t < 0.3, t < 0.55, t < 0.9], [1.0, 2.0, 3.0], 4.0)
    away = np.min(abs(t[:, None] - np.array([0.3, 0.55, 0.9])), axis=1) > 1e-9
    assert np.all(r["y"][away] == want[away])
    xs = np.select([t < 0.3, t < 0.55, t < 0.9], [t, 0.3 + 2 * (t - 0.3), 0.8 + 3 * (t - 0.55)], 1.85 + 4 * (t - 0.9))
    assert np.max(abs(r["x"] - xs)) < 1e-5


def test_what_is_not_supported_in_algorithms_is_refused_at_its_line(tmp_path):
    """A loop counting from a time-varying start has no bound known at build time (MSL's
    TimeTable searches from its last row; rumoca refuses such a loop in a model of this size,
    not in MSL's, so the function is called here directly): refused at the loop, quickly; a
    statement after a when-statement: refused at it."""
    import casadi as ca
    import dataclasses
    from wearcosim.export import ir, symbolic
    m = frontend.load(HERE / "WhileTime.mo", "WhileTime")
    f = m.functions["row"]
    i0 = ir.Var(name="i0", type="Integer", causality="input", loc=f.loc)
    f = dataclasses.replace(f, inputs=list(f.inputs) + [i0],
                            body=(ir.Assign(ir.Ref("i"), ir.Ref("i0"), f.body[0].loc),) + tuple(f.body[1:]))
    ev = symbolic.Evaluator(m, resolve=lambda n, loc: None)
    x = np.array([0.0, 0.3, 0.55, 0.9], dtype=object)
    assert ev.inline(dataclasses.replace(f, inputs=list(f.inputs[:2]), body=m.functions["row"].body),
                     [x, 0.6])[0] == 3
    with pytest.raises(ExportError, match="still running after 200 iterations") as info:
        ev.inline(f, [x, ca.SX.sym("t"), ca.SX.sym("last")])
    assert info.value.loc.line == 8
    src = tmp_path / "After.mo"
    src.write_text("model After\n  discrete Real n(start = 0, fixed = true);\n  Real y;\nalgorithm\n"
                   "  when time > 0.5 then\n    n := 1;\n  end when;\n  y := 2*time;\nend After;\n")
    with pytest.raises(ExportError, match="after a when-statement") as info:
        build_fmu("After", path=src, out_dir=tmp_path / "o2")
    assert info.value.loc.line == 8
