"""Issue 38: String parameters and constants, and enumerations, as FMI 2.0 variables of their
own types (FMI 2.0, 2.2.3 TypeDefinitions, 2.2.7 ScalarVariable), on a model written for
these tests from the Modelica specification (fixtures/fmi38/StringsEnums.mo):

- a String parameter is a ``<String>`` variable, causality parameter, variability fixed, its
  start the evaluated string (also one computed from another by ``+``); a String constant is a
  local constant; String value references are their own (0..n-1, unique per base type);
  fmi2GetString reads them, fmi2SetString accepts only their own value (they are kept out of
  the equations);
- an enumeration-typed variable or parameter is an ``<Enumeration declaredType=...>`` whose
  SimpleType lists the literals as Items 1..n with their description strings, read and set
  with fmi2GetInteger.
"""
from __future__ import annotations

import pytest

from wctest import build_alone, unzipped


@pytest.fixture(scope="module")
def fmu(tmp_path_factory):
    return build_alone("StringsEnums", tmp_path_factory.mktemp("fmi38"))


def test_model_description(fmu):
    from fmpy import read_model_description
    from fmpy.validation import validate_fmu
    assert validate_fmu(str(fmu)) == []
    md = read_model_description(str(fmu))
    (t,) = md.typeDefinitions
    assert t.name == "StringsEnums.Mode"
    import xml.etree.ElementTree as ET
    import zipfile
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    # (FMPy does not read a SimpleType's description)
    assert root.find("TypeDefinitions/SimpleType").get("description") == "operating mode"
    assert [(i.name, int(i.value), i.description) for i in t.items] == \
        [("off", 1, "switched off"), ("on", 2, "switched on"), ("auto", 3, None)]
    v = {x.name: x for x in md.modelVariables}
    for name in ("mode", "tunedMode", "m"):
        assert v[name].type == "Enumeration" and v[name].declaredType is t
    assert (v["mode"].variability, int(v["mode"].start)) == ("constant", 2)
    assert (v["tunedMode"].causality, v["tunedMode"].variability, int(v["tunedMode"].start)) == \
        ("parameter", "fixed", 3)
    assert v["m"].description == "mode chosen by the state"
    strings = {n: x for n, x in v.items() if x.type == "String"}
    assert {n: (x.causality, x.variability, x.start) for n, x in strings.items()} == {
        "label": ("parameter", "fixed", "x"), "tag": ("parameter", "fixed", "x-2"),
        "unitName": ("local", "constant", "rad/s")}
    assert sorted(x.valueReference for x in strings.values()) == [0, 1, 2]
    assert v["label"].description == "a label"


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_simulate(fmu, fmi_type):
    import numpy as np
    from fmpy import simulate_fmu
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=1.0, output=["x", "m", "k"], fmi_type=fmi_type, output_interval=0.01,
                         relative_tolerance=1e-10, start_values={"label": "x", "tunedMode": 3})
    t = r["time"]
    assert np.allclose(r["x"], np.exp(-t), rtol=1e-5)
    on = np.exp(-t) > 0.5 + 1e-3
    off = np.exp(-t) < 0.5 - 1e-3
    assert (r["m"][on] == 3).all() and (r["m"][off] == 1).all()
    assert (r["k"][on] == 3).all() and (r["k"][off] == 0).all()


def test_get_and_set_string(fmu):
    from fmpy import read_model_description
    from fmpy.fmi1 import FMICallException
    from fmpy.fmi2 import FMU2Slave
    md = read_model_description(str(fmu))
    vr = {x.name: x.valueReference for x in md.modelVariables}
    with unzipped(fmu) as d:
        s = FMU2Slave(guid=md.guid, unzipDirectory=d, modelIdentifier=md.coSimulation.modelIdentifier,
                      instanceName="s")
        s.instantiate()
        try:
            s.setupExperiment(startTime=0.0)
            s.setString([vr["label"]], ["x"])              # its own value: accepted
            with pytest.raises(FMICallException):
                s.setString([vr["label"]], ["y"])
            s.setInteger([vr["tunedMode"]], [1])
            s.enterInitializationMode()
            s.exitInitializationMode()
            assert s.getString([vr["label"], vr["tag"], vr["unitName"]]) == [b"x", b"x-2", b"rad/s"]
            assert s.getInteger([vr["tunedMode"], vr["m"]]) == [1, 3]
            with pytest.raises(FMICallException):
                s.getString([3])
            s.terminate()
        finally:
            s.freeInstance()


def test_fmi_name_of_higher_derivatives():
    """FMI 2.0 structured names (2.2.9): der(der(x)) of the index reduction is der(x,2)."""
    from wearcosim.export.codegen import fmi_name
    assert fmi_name("x") == "x" and fmi_name("der(x)") == "der(x)"
    assert fmi_name("der(der(x))") == "der(x,2)"
    assert fmi_name("der(der(der(a.b[1])))") == "der(a.b[1],3)"
