"""Issue 35: the FMI 3.0 model description (``wearcosim.export.md3``) of the models the FMI 2.0
export builds, and the value-reference table of the FMI 3.0 C face.

The models: a fixture written for these tests (fixtures/md3/Arrays3.mo: a parameter vector, an
input vector, an output matrix, state vectors with equal and with different per-element
attributes, an Integer, a Boolean, an enumeration, a String parameter, an alias, a relation and
a when-equation), the library's dry revolute clearance joint (the wear interface: the input
``wearDepth[36]``), the bouncing ball, MassSpringMatrix (state vectors, parameter matrices),
BevelPlanetary (about 1900 slots), StringsEnums (fmi38) and HomRelaxation (a nonlinear loop).

The oracles: the FMI 3.0 schema (FMPy's copy of fmi3ModelDescription.xsd, through lxml), FMPy's
reader and validator, and the FMI 2.0 description of the same generated model
(:func:`codegen.render_xml`), which every FMI 2.0 scalar must be found in the FMI 3.0 one from.
The C table is compiled with the system's C compiler as C99 and read back.
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from wctest import PACKAGE, fixture_path
from wearcosim.export import build, codegen, md3

JOINT = "WearCosim.Components.Joints.RevoluteClearanceDry"
BALL = "WearCosim.Examples.Basic.BouncingBall"
MSM = "WearCosim.Examples.Basic.MassSpringMatrix"
BIG = "WearCosim.Examples.Gears.BevelPlanetary"
MODELS = ["Arrays3", JOINT, BALL, MSM, BIG, "StringsEnums", "HomRelaxation"]
TYPE2 = {"Float64": "Real", "Int32": "Integer", "Boolean": "Boolean", "Enumeration": "Enumeration",
         "String": "String"}


def generate(model: str):
    """(front end's model, Generated) of a library class or a fixture, as build_fmu has them
    when it renders the model description."""
    if "." in model:
        path = build.model_path(PACKAGE, model)
    else:
        path = fixture_path(model)
    irm, _, gen = build.generate(model, path)
    gen.identifier = build.short_name(model)
    return irm, gen


EXPERIMENT = {"startTime": 0.0, "stopTime": 1.0, "tolerance": 1e-6}


@pytest.fixture(scope="module")
def models():
    """{model: (irm, gen, FMI 3.0 XML, FMI 2.0 XML)}; the FMI 3.0 description rendered first
    (it must not need the FMI 2.0 writer's side effects)."""
    out = {}
    for m in MODELS:
        irm, gen = generate(m)
        x3 = md3.render_xml3(gen, EXPERIMENT, irm.description, irm.metadata)
        x2 = codegen.render_xml(gen, EXPERIMENT, irm.description, meta=irm.metadata)
        out[m] = (irm, gen, x3, x2)
    return out


@pytest.fixture(scope="module")
def schema():
    from lxml import etree
    import fmpy
    return etree.XMLSchema(file=str(Path(fmpy.__file__).parent / "schema" / "fmi3" / "fmi3ModelDescription.xsd"))


def variables3(xml: str) -> dict:
    """{valueReference: element} of the FMI 3.0 ModelVariables."""
    root = ET.fromstring(xml)
    return {int(e.get("valueReference")): e for e in root.find("ModelVariables")}


def element_name(array: str, idx: tuple) -> str:
    """The FMI 2.0 name of element ``idx`` of FMI 3.0 array ``array`` (``der(x)`` -> ``der(x[i])``)."""
    sub = "[" + ",".join(map(str, idx)) + "]"
    if array.startswith("der("):
        inner = array[4:-1]
        base, _, order = inner.partition(",")
        return f"der({base}{sub}{',' + order if order else ''})"
    return array + sub


def indices(dims: tuple) -> list:
    import itertools
    return list(itertools.product(*(range(1, d + 1) for d in dims)))


# ----------------------------------------------------------------------------- validity
@pytest.mark.parametrize("model", MODELS)
def test_schema_and_fmpy(models, schema, model, tmp_path):
    from lxml import etree
    from fmpy import read_model_description
    from fmpy.validation import validate_model_description
    irm, gen, x3, _ = models[model]
    doc = etree.fromstring(x3.encode())
    assert schema.validate(doc), [str(e) for e in schema.error_log]
    p = tmp_path / "modelDescription.xml"
    p.write_text(x3, encoding="utf-8")
    md = read_model_description(str(p))          # validates against the schema too
    assert md.fmiVersion == "3.0" and md.guid == gen.guid
    assert validate_model_description(md, validate_variable_names=True) == []
    # FMPy's check of the model structure counts an alias as a variable of its own (so an
    # alias of an output would need an InitialUnknown); FMI 3.0 aliases are names of their
    # variable, not variables: checked without them
    md.modelVariables = [v for v in md.modelVariables if v.alias is None]
    assert validate_model_description(md, validate_model_structure=True) == []
    L = gen.layout
    assert md.numberOfContinuousStates == L.n["X"]
    assert md.numberOfEventIndicators == L.n["M"]


@pytest.mark.parametrize("model", MODELS)
def test_header_and_capabilities(models, model):
    irm, gen, x3, _ = models[model]
    root = ET.fromstring(x3)
    assert root.get("fmiVersion") == "3.0" and root.get("instantiationToken") == gen.guid
    assert root.get("variableNamingConvention") == "structured" and root.get("modelName") == gen.model_name
    assert root.get("numberOfEventIndicators") is None and root.get("guid") is None
    dd = "true" if "dd" in gen.functions else "false"
    me, cs = root.find("ModelExchange"), root.find("CoSimulation")
    for e in (me, cs):
        assert e.get("modelIdentifier") == gen.identifier
        assert (e.get("canGetAndSetFMUState"), e.get("canSerializeFMUState"), e.get("providesDirectionalDerivatives")) == \
            ("true", "true", dd)
        assert e.get("canNotUseMemoryManagementFunctions") is None      # FMI 2.0 only
    assert me.get("needsCompletedIntegratorStep") == "false"
    assert {k: cs.get(k) for k in ("canHandleVariableCommunicationStepSize", "hasEventMode", "maxOutputDerivativeOrder",
                                   "mightReturnEarlyFromDoStep", "providesIntermediateUpdate",
                                   "canReturnEarlyAfterIntermediateUpdate")} == \
        {"canHandleVariableCommunicationStepSize": "true", "hasEventMode": "true", "maxOutputDerivativeOrder": "1",
         "mightReturnEarlyFromDoStep": "true", "providesIntermediateUpdate": "false",
         "canReturnEarlyAfterIntermediateUpdate": "false"}
    assert cs.get("canInterpolateInputs") is None                       # no FMI 3.0 attribute
    assert [c.get("name") for c in root.find("LogCategories")] == [n for n, _ in codegen.LOG_CATEGORIES]
    assert "fmi2" not in ET.tostring(root.find("LogCategories"), encoding="unicode")
    de = root.find("DefaultExperiment")
    assert {k: float(v) for k, v in de.attrib.items()} == EXPERIMENT
    # exactly one independent variable, time, value reference 0, no start and no initial
    ind = [e for e in root.find("ModelVariables") if e.get("causality") == "independent"]
    assert len(ind) == 1 and ind[0].tag == "Float64" and ind[0].get("name") == "time"
    assert ind[0].get("valueReference") == "0" and ind[0].get("start") is None and ind[0].get("initial") is None


# ----------------------------------------------------------------------------- FMI 2.0 -> 3.0
@pytest.mark.parametrize("model", MODELS)
def test_every_fmi2_scalar_once(models, model):
    """Every FMI 2.0 ScalarVariable is in the FMI 3.0 description exactly once, as a scalar or
    an element of an array, with the same type, causality, variability, initial and start;
    FMI 2.0 aliases are Alias names of the FMI 3.0 variable holding their representative."""
    irm, gen, x3, x2 = models[model]
    v3 = variables3(x3)
    table = md3.fmi3_table(gen)
    # every FMI 3.0 name of a scalar: name -> (element, position in the start list)
    found = {}
    alias_names = {}
    for vr, e in v3.items():
        if e.get("causality") == "independent":
            continue
        dims = tuple(int(d.get("start")) for d in e.findall("Dimension"))
        starts = (e.get("start").split() if e.get("start") is not None
                  else [s.get("value") for s in e.findall("Start")] or None)
        names = [(element_name(e.get("name"), i), p) for p, i in enumerate(indices(dims))] if dims \
            else [(e.get("name"), 0)]
        for n, p in names:
            assert n not in found, n
            found[n] = (e, None if starts is None else starts[p])
        for a in e.findall("Alias"):
            for i in (indices(dims) if dims else [None]):
                alias_names[element_name(a.get("name"), i) if i else a.get("name")] = vr
    root2 = ET.fromstring(x2)
    seen = set()
    first_name = {}         # FMI 2.0 value reference (not String) -> name of its first ScalarVariable
    for sv in root2.find("ModelVariables"):
        t = sv[0]
        name, vr2 = sv.get("name"), int(sv.get("valueReference"))
        if t.tag != "String" and vr2 in first_name:
            # an FMI 2.0 alias (its representative's value reference): an FMI 3.0 Alias name of
            # the variable that holds the representative
            assert alias_names.get(name) == int(found[first_name[vr2]][0].get("valueReference")), name
            seen.add(name)
            continue
        if t.tag != "String":
            first_name[vr2] = name
        assert name in found, name
        e, start = found[name]
        assert TYPE2[e.tag] == t.tag, name
        assert (e.get("causality"), e.get("variability")) == (sv.get("causality"), sv.get("variability")), name
        init2 = sv.get("initial") or ("exact" if sv.get("causality") == "input" else None)
        assert e.get("initial") == init2, name
        start2 = t.get("start")
        if start2 is None:
            assert start is None, name
        elif t.tag == "Real":
            assert float(start) == float(start2), name
        else:
            assert start == start2, name
        if t.tag == "Enumeration":
            assert e.get("declaredType") == t.get("declaredType")
        for a in ("unit", "displayUnit", "quantity"):
            assert e.get(a) == t.get(a), (name, a)
        for a in ("min", "max", "nominal"):
            assert e.get(a) == t.get(a), (name, a)
        desc2 = sv.get("description")
        if name.startswith("solver."):          # the runtime's own text, with FMI 3.0's function names
            desc2 = md3._fmi3_description(desc2)
        if not e.findall("Dimension") or not e.get("name").startswith("der("):
            assert e.get("description") == desc2, name
        assert name not in seen
        seen.add(name)
    # nothing else in FMI 3.0 but time and the event indicators
    extra = set(found) - seen
    ev = [v for v in table if v.is_event_indicator]
    assert extra == {element_name(v.name, i) for v in ev for i in indices(v.dims)}
    assert not (set(alias_names) - seen)


@pytest.mark.parametrize("model", MODELS)
def test_table(models, model):
    """Value references dense from 0 (time); the elements of the slot variables cover every
    exported slot once, consecutive; Strings and event indicators likewise."""
    irm, gen, x3, _ = models[model]
    L = gen.layout
    table = md3.fmi3_table(gen)
    assert [v.vr for v in table] == list(range(len(table)))
    assert (table[0].name, table[0].where, table[0].vr) == ("time", md3.TIME, md3.VR_TIME)
    exported = [k for k, s in enumerate(L.slots) if s.kind != "MK_INTERNAL"]
    slots = [k for v in table if v.where == md3.SLOT for k in v.elements]
    assert slots == exported                    # in slot order, each once
    assert sum(v.n for v in table if v.where == md3.SLOT) == len(exported)
    assert [i for v in table if v.where == md3.STRING for i in v.elements] == list(range(len(gen.strings)))
    ev = [v for v in table if v.is_event_indicator]
    assert sum(v.n for v in ev) == L.n["M"] and len(ev) == (1 if L.n["M"] else 0)
    for v in table:
        assert v.n == (math.prod(v.dims) if v.dims else 1)
        if v.where == md3.SLOT and v.dims:
            assert all(L.slots[k].kind == L.slots[v.k].kind for k in v.elements)
    # the XML is the table's
    v3 = variables3(x3)
    assert sorted(v3) == [v.vr for v in table]
    for v in table:
        e = v3[v.vr]
        assert (e.get("name"), e.tag) == (v.name, v.type)
        assert tuple(int(d.get("start")) for d in e.findall("Dimension")) == v.dims
    # the order of the states (ContinuousStateDerivative, serialised) is the order of the slots
    root = ET.fromstring(x3)
    ders = [table[int(u.get("valueReference"))] for u in root.find("ModelStructure").findall("ContinuousStateDerivative")]
    assert [k for d in ders for k in d.elements] == list(range(L.off["DX"], L.off["DX"] + L.n["DX"]))
    states = [k for d in ders for k in table[d.derivative].elements]
    assert states == [L.off["X"] + L.slots[k].derivative_of for d in ders for k in d.elements]
    for d in ders:
        assert table[d.derivative].dims == d.dims and table[d.derivative].kind == "MK_STATE"


@pytest.mark.parametrize("model", MODELS)
def test_model_structure(models, model):
    """Outputs, state derivatives, initial unknowns and event indicators by FMI 3.0's rules;
    dependencies name existing knowns (inputs, states, parameters, discrete-time states, time)
    and include every state and input the FMI 2.0 description's dependencies name."""
    irm, gen, x3, _ = models[model]
    L = gen.layout
    table = md3.fmi3_table(gen)
    v3 = variables3(x3)
    ms = ET.fromstring(x3).find("ModelStructure")
    tags = [u.tag for u in ms]
    order = ["Output", "ContinuousStateDerivative", "InitialUnknown", "EventIndicator"]
    assert tags == sorted(tags, key=order.index)
    outs = [int(u.get("valueReference")) for u in ms.findall("Output")]
    assert outs == [vr for vr, e in v3.items() if e.get("causality") == "output"]
    ders = [int(u.get("valueReference")) for u in ms.findall("ContinuousStateDerivative")]
    assert ders == [vr for vr, e in v3.items() if e.get("derivative") is not None]
    states = {int(v3[d].get("derivative")) for d in ders}
    expect = [vr for vr, e in v3.items()
              if (e.get("causality") == "output" and e.get("initial") in ("approx", "calculated"))
              or e.get("causality") == "calculatedParameter"
              or ((vr in ders or vr in states) and e.get("initial") in ("approx", "calculated"))]
    assert [int(u.get("valueReference")) for u in ms.findall("InitialUnknown")] == expect
    evs = [int(u.get("valueReference")) for u in ms.findall("EventIndicator")]
    assert evs == [v.vr for v in table if v.is_event_indicator]
    for vr in evs:
        e = v3[vr]
        assert (e.tag, e.get("causality"), e.get("variability")) == ("Float64", "local", "continuous")

    discrete_states = {vr for vr, e in v3.items() if e.get("causality") == "local" and e.get("variability") == "discrete"}
    knowns = {vr for vr, e in v3.items() if e.get("causality") in ("input", "parameter", "independent")} | states | \
        discrete_states
    vr_of_slot = {k: v.vr for v in table if v.where == md3.SLOT for k in v.elements}
    fmi2 = gen.deps or {}
    n_with = 0
    for u in ms:
        d, kinds = u.get("dependencies"), u.get("dependenciesKind")
        if d is None:
            assert kinds is None
            continue
        n_with += 1
        deps = [int(x) for x in d.split()]
        assert len(kinds.split()) == len(deps) and set(kinds.split()) <= {"dependent"}
        assert deps == sorted(set(deps)) and set(deps) <= knowns, (u.get("valueReference"), set(deps) - knowns)
        v = table[int(u.get("valueReference"))]
        if u.tag in ("Output", "ContinuousStateDerivative") and v.where == md3.SLOT:
            want = {vr_of_slot[j] for k in v.elements for j in fmi2.get(k, ()) if j in vr_of_slot}
            assert want <= set(deps), (v.name, want - set(deps))
    if model in ("Arrays3", JOINT, BALL):
        assert n_with > 0


def test_dependencies_arrays3(models):
    irm, gen, x3, _ = models["Arrays3"]
    table = {v.name: v for v in md3.fmi3_table(gen)}
    dep = md3.dependencies(gen)
    name = {v.vr: v.name for v in table.values()}

    def of(n):
        return [name[vr] for vr in dep[table[n].vr]]
    assert of("der(x)") == ["x", "p", "u"]
    assert of("der(w[2])") == ["w[2]", "g"]
    assert of("der(xs)") == ["xs", "u"]
    assert of("y") == ["time", "x", "xs", "u"]      # y[2,2] = time (gear is a constant)
    assert of("s") == ["x"]                          # if up then x[3] else -x[3]: up is discrete
    assert of("_eventIndicator") == ["x"]


def test_dependencies_through_a_nonlinear_loop(models):
    """der(vc) reads vout, a Newton unknown of the loop that the parameters and vc determine:
    FMI 3.0's dependencies list them all (the FMI 2.0 deps of codegen stop at the loop)."""
    irm, gen, x3, _ = models["HomRelaxation"]
    table = {v.name: v for v in md3.fmi3_table(gen)}
    name = {v.vr: v.name for v in table.values()}
    assert [name[vr] for vr in md3.dependencies(gen)[table["der(vc)"].vr]] == ["vc", "R", "C", "R1", "R2", "Vsat", "A"]


# ----------------------------------------------------------------------------- grouping
def test_grouping_arrays3(models):
    irm, gen, x3, _ = models["Arrays3"]
    table = md3.fmi3_table(gen)
    by = {v.name: v for v in table}
    arrays = {v.name: v.dims for v in table if v.dims}
    assert arrays == {"x": (3,), "der(x)": (3,), "p": (3,), "g": (2,), "u": (4,), "y": (2, 2), "_eventIndicator": (2,)}
    # w[1], w[2] have different nominals: scalars, and so are their derivatives (whose own
    # attributes are equal) because a state array and its derivative go together
    for n in ("w[1]", "w[2]", "der(w[1])", "der(w[2])", "xs", "der(xs)"):
        assert not by[n].dims
    assert by["der(x)"].derivative == by["x"].vr and by["der(w[2])"].derivative == by["w[2]"].vr
    assert by["der(x)"].description == "Time derivative of x"
    assert by["x"].start == (0.5, 0.5, 0.5) and by["p"].start == (1, 2, 3) and by["u"].start == (0.0,) * 4
    assert by["y"].start is None and by["y"].causality == "output"
    L = gen.layout
    assert [L.slots[k].name for k in by["y"].elements] == ["y[1,1]", "y[1,2]", "y[2,1]", "y[2,2]"]
    assert by["xs"].aliases == (("xa", "alias of xs"),)
    assert (by["gear"].type, by["n"].type, by["up"].type, by["label"].type) == ("Enumeration", "Int32", "Boolean", "String")
    v3 = variables3(x3)
    assert v3[by["u"].vr].get("start") == "0.0 0.0 0.0 0.0"
    assert v3[by["x"].vr].get("start") == "0.5 0.5 0.5"
    assert [a.get("name") for a in v3[by["xs"].vr].findall("Alias")] == ["xa"]
    assert [s.get("value") for s in v3[by["label"].vr].findall("Start")] == ["md3"]
    assert v3[by["gear"].vr].get("declaredType") == "Arrays3.Gear"
    types = ET.fromstring(x3).find("TypeDefinitions")
    (et,) = types
    assert et.tag == "EnumerationType" and [(i.get("name"), i.get("value")) for i in et] == [("low", "1"), ("high", "2")]


def test_grouping_joint(models):
    """The wear interface of the dry joint: wearDepth[36] is one input array; nG is not
    (tG[2] is an alias of nG[1] alone), nor is tG (tG[2] is not a slot of its own)."""
    irm, gen, x3, _ = models[JOINT]
    by = {v.name: v for v in md3.fmi3_table(gen)}
    wd = by["wearDepth"]
    assert (wd.dims, wd.causality, wd.variability, wd.type) == ((36,), "input", "continuous", "Float64")
    assert wd.start == (0.0,) * 36
    assert by["F"].dims == (2,) and by["F"].causality == "output"
    for a in ("rB", "vB", "rJ", "vJ"):
        assert by[a].dims == (2,) and by[a].causality == "input"
    assert "nG" not in by and not by["nG[1]"].dims and not by["nG[2]"].dims
    assert by["nG[1]"].aliases == (("tG[2]", by["nG[1]"].aliases[0][1]),)
    assert "tG" not in by and not by["tG[1]"].dims
    e = variables3(x3)[wd.vr]
    assert e.get("unit") == "m" and [d.get("start") for d in e.findall("Dimension")] == ["36"]


def test_grouping_msm(models):
    irm, gen, x3, _ = models[MSM]
    by = {v.name: v for v in md3.fmi3_table(gen)}
    assert (by["M"].dims, by["K"].dims) == ((2, 2), (2, 2))
    assert by["M"].start == (2, 0.5, 0.5, 1)        # row-major
    assert by["der(v)"].derivative == by["v"].vr and by["der(q)"].derivative == by["q"].vr


def test_fallback_when_elements_differ():
    """Elements that differ in an attribute an FMI 3.0 array holds once, or that are not in
    row-major order, stay scalars; the others stay arrays."""
    irm, gen = generate("Arrays3")
    L = gen.layout
    slot = {s.name: s for s in L.slots}
    slot["p[2]"].description = "another"
    slot["u[1]"].name, slot["u[2]"].name = "u[2]", "u[1]"
    slot["y[2,1]"].max = 10.0
    by = {v.name: v for v in md3.fmi3_table(gen)}
    for n in ("p[1]", "p[2]", "p[3]", "u[1]", "u[2]", "u[3]", "u[4]", "y[1,1]", "y[2,1]", "y[2,2]"):
        assert n in by and not by[n].dims, n
    assert by["x"].dims == (3,) and by["g"].dims == (2,)
    slot["x[3]"].nominal = 2.0
    by = {v.name: v for v in md3.fmi3_table(gen)}
    assert "x" not in by and "der(x)" not in by and not by["der(x[3])"].dims


@pytest.mark.parametrize("name, expect", [
    ("a", None), ("a[3]", ("a", (3,))), ("a.b[2,10]", ("a.b", (2, 10))), ("a[1].b", None),
    ("a[1].b[2]", ("a[1].b", (2,))), ("der(x[2])", ("der(x)", (2,))), ("der(x[1,2],2)", ("der(x,2)", (1, 2))),
    ("der(x)", None), ("der(x,2)", None), ("'q[1]'", None)])
def test_split_element(name, expect):
    assert md3.split_element(name) == expect


def test_unique_name():
    assert md3._unique_name("_eventIndicator", {"x"}) == "_eventIndicator"
    assert md3._unique_name("_eventIndicator", {"_eventIndicator[1]"}) == "_eventIndicator_"
    assert md3._unique_name("_eventIndicator", {"_eventIndicator", "_eventIndicator_"}) == "_eventIndicator__"


# ----------------------------------------------------------------------------- purity
def test_independent_of_render_xml():
    """The FMI 3.0 description is the same before and after the FMI 2.0 writer ran (which sets
    attributes of the slots), and the FMI 2.0 description is the same with or without the FMI
    3.0 writer before it; neither run changes the slots."""
    irm, gen = generate("Arrays3")
    L = gen.layout

    def snapshot():
        return [(s.name, s.causality, s.variability, s.initial, s.description, s.start if not hasattr(s.start, "is_symbolic") else None)
                for s in L.slots]
    before = snapshot()
    a3 = md3.render_xml3(gen, EXPERIMENT)
    c3 = md3.render_table_c(gen)
    assert snapshot() == before
    a2 = codegen.render_xml(gen, EXPERIMENT)
    b3 = md3.render_xml3(gen, EXPERIMENT)
    assert a3 == b3 and md3.render_table_c(gen) == c3
    irm2, gen2 = generate("Arrays3")
    assert codegen.render_xml(gen2, EXPERIMENT) == a2
    assert md3.render_xml3(gen2, EXPERIMENT) == a3          # deterministic across builds


# ----------------------------------------------------------------------------- the C table
@pytest.mark.parametrize("model", ["Arrays3", JOINT, "StringsEnums", BIG])
def test_c_table_compiles(models, model, tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    irm, gen, _, _ = models[model]
    table = md3.fmi3_table(gen)
    (tmp_path / "table3.h").write_text(md3.render_table_c(gen))
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include "table3.h"\n#include "table3.h"\n'
        'int main(void) {\n'
        '    unsigned int vr;\n'
        '    printf("%d %u %d\\n", N_VARS3, VR3_TIME, N_EVENT_INDICATORS3);\n'
        '    for (vr = 0; vr < N_VARS3; vr++)\n'
        '        printf("%u %u %u %u\\n", wc3_vars[vr].first, wc3_vars[vr].count,\n'
        '               (unsigned)wc3_vars[vr].where, (unsigned)wc3_vars[vr].type);\n'
        '    return 0;\n}\n')
    exe = tmp_path / "t"
    subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(tmp_path / "main.c")],
                   check=True, capture_output=True)
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split("\n")
    assert lines[0].split() == [str(len(table)), "0", str(gen.layout.n["M"])]
    where = {md3.TIME: 0, md3.SLOT: 1, md3.STRING: 2, md3.INDICATOR: 3}
    types = {"Float64": 1, "Int32": 2, "Boolean": 3, "Enumeration": 4, "String": 5}
    got = [tuple(map(int, ln.split())) for ln in lines[1:] if ln]
    assert got == [(max(v.k, 0), v.n, where[v.where], types[v.type]) for v in table]
