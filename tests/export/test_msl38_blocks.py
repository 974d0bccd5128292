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
