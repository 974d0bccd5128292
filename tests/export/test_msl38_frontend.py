"""Front-end constructs of the Modelica Standard Library (issue 38) on models written for these
tests from the Modelica specification: enumerations (MLS 4.9.5) and String parameters and
constants (MultiBody's World has several).  Before: "unknown variable 'Mode.Fast'" and
"String variable 'label' is not supported"."""
from __future__ import annotations

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
    """mode = Mode.Fast: Integer(mode) = 3, der(x) = 2 + 1 (mode > Mode.Slow)."""
    from fmpy import read_model_description, simulate_fmu
    fmu = build_fmu("EnumParam", path=fixture_path("EnumParam"), out_dir=tmp_path).fmu
    names = {v.name for v in read_model_description(str(fmu)).modelVariables}
    assert not names & {"label", "speedUnit"}
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=1.0, output=["x", "k"], fmi_type=fmi_type)
    assert r["k"][-1] == 3 and r["x"][-1] == pytest.approx(3.0, rel=1e-9)
