"""Component FMUs of the gear and rotor families (WearCosim.Components.Gears, .Rotor): body models
(wheels and shafts, the finite-element rotor) and force elements (gear mesh, rub contact + stator)
with causal ports, composed again by equations in the wrapper models of
tests/system/fixtures/gears_rotor and compared with the monolithic examples.

Measured (this machine, 20 ms Cardona / 30 ms Kubo / 20 ms GearWear / 1.5 s TwoDiskRub, full
example stop times): the compositions are bitwise identical to the examples except Cardona case 2
(backlash: 1.8e-7 of the force range, round-off through the impacts) and the Cardona transmission
on elastic bearings (2.4e-8); the tests run shorter windows and ask for <= 1e-6 of the range.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy import read_model_description

from wctest import ROOT

FIX = Path(__file__).resolve().parent / "fixtures" / "gears_rotor"
EX = "WearCosim.Examples."
COMP = "WearCosim.Components."
B2_IN = 0.001968                     # Cardona case 2 backlash [in] (CardonaData)

GEAR_KIN = [f"{q}{w}[{i}]" for w in "AB" for q in ("u", "v", "phi", "w") for i in (1, 2, 3)]
GEAR_LOAD = [f"{q}{w}[{i}]" for w in "AB" for q in ("f", "t") for i in (1, 2, 3)]
WEAR_OUT = ["Fn", "Ft", "delta", "vSlip", "halfWidth", "inContact"]
#: component -> (kind, inputs (exact set; wearDepth[i] summarised), outputs that must exist)
COMPONENTS = {
    "Gears.GearMeshElement": ("element", GEAR_KIN + ["wearDepth"], GEAR_LOAD + WEAR_OUT + ["sContact", "F"]),
    "Gears.CardonaMesh": ("element", GEAR_KIN + ["wearDepth"], GEAR_LOAD + WEAR_OUT + ["sContact", "F"]),
    "Gears.KuboMesh": ("element", GEAR_KIN + ["wearDepth"], GEAR_LOAD + WEAR_OUT + ["sContact", "F", "k"]),
    "Gears.CardonaDrive": ("body", GEAR_LOAD, GEAR_KIN + ["w1", "wa", "wb", "w2"]),
    "Gears.PairDrive": ("body", GEAR_LOAD, GEAR_KIN + ["wa", "wb"]),
    "Gears.KuboDrive": ("body", GEAR_LOAD, GEAR_KIN + ["wa", "wb"]),
    "Rotor.TwoDiskRotor": ("body", ["Fext[1]", "Fext[2]"], ["rNode[1]", "rNode[2]", "vNode[1]", "vNode[2]", "Omega"]),
    "Rotor.RubStator": ("element", ["rR[1]", "rR[2]", "vR[1]", "vR[2]", "Omega", "wearDepth"],
                        ["F[1]", "F[2]", "theta", "x", "y"] + WEAR_OUT),
}
#: body -> (force element, body output -> element input, element output -> body input)
PAIRS = [
    ("Gears.CardonaDrive", "Gears.CardonaMesh", {n: n for n in GEAR_KIN}, {n: n for n in GEAR_LOAD}),
    ("Gears.KuboDrive", "Gears.KuboMesh", {n: n for n in GEAR_KIN}, {n: n for n in GEAR_LOAD}),
    ("Gears.PairDrive", "Gears.GearMeshElement", {n: n for n in GEAR_KIN}, {n: n for n in GEAR_LOAD}),
    ("Rotor.TwoDiskRotor", "Rotor.RubStator",
     {"rNode[1]": "rR[1]", "rNode[2]": "rR[2]", "vNode[1]": "vR[1]", "vNode[2]": "vR[2]", "Omega": "Omega"},
     {"F[1]": "Fext[1]", "F[2]": "Fext[2]"}),
]


@pytest.fixture(scope="module")
def fixture_fmu(tmp_path_factory):
    """fixture_fmu("CardonaComposed") -> FMU of tests/system/fixtures/gears_rotor/CardonaComposed.mo (cached)."""
    from wearcosim.export.build import build_fmu
    out = tmp_path_factory.mktemp("gears_rotor_fmus")
    built = {}

    def build(name):
        if name not in built:
            built[name] = build_fmu(name, path=FIX / f"{name}.mo", out_dir=out)
        return built[name]
    return build


def _experiment(fmu):
    ex = read_model_description(str(fmu)).defaultExperiment
    return float(ex.stepSize), float(ex.tolerance)


def _sim(fmu, out, stop, dt, tol, **start):
    r = fmpy.simulate_fmu(str(fmu), stop_time=stop, output_interval=dt, relative_tolerance=tol, output=out,
                          start_values=start)
    return r["time"], {k: np.asarray(r[k], dtype=float) for k in out}


def _compare(mono, composed, names, stop, start=None, bound=1e-6, must_vary=()):
    """Simulate both FMUs at the monolithic example's tolerance and output interval; every output in
    ``names`` agrees within ``bound`` times its range.  Returns (time, monolithic, composed, worst)."""
    dt, tol = _experiment(mono)
    t1, a = _sim(mono, names, stop, dt, tol, **(start or {}))
    t2, b = _sim(composed, names, stop, dt, tol, **(start or {}))
    assert np.array_equal(t1, t2)
    worst = {}
    for n in names:
        rng = np.ptp(a[n])
        assert rng > 0 or n not in must_vary, n
        worst[n] = np.abs(a[n] - b[n]).max() / (rng if rng > 0 else 1.0)
        assert worst[n] <= bound, (n, worst[n])
    return t1, a, b, worst


def _structure(fmu):
    md = read_model_description(str(fmu))
    return len(md.derivatives), md.numberOfEventIndicators


# ---------------------------------------------------------------------------------------------- ports


@pytest.mark.parametrize("name", list(COMPONENTS))
def test_component_ports_and_feedthrough(build_example, name):
    """Each component builds and passes ``wearcosim check`` (force elements with a wear interface also
    ``--wear-interface``); every input and output has its causality, a description and (Real) an SI
    unit, every parameter a description; bodies have no direct feedthrough (no output depends on an
    input in the ModelStructure), force elements have it (their loads depend on the kinematic inputs)."""
    kind, inputs, outputs = COMPONENTS[name]
    fmu = build_example(COMP + name)
    args = ["check", str(fmu)] + (["--wear-interface"] if "wearDepth" in inputs else [])
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-m", "wearcosim.cli", *args], capture_output=True, text=True, cwd=ROOT,
                       env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    md = read_model_description(str(fmu))
    vs = md.modelVariables
    ins = [v for v in vs if v.causality == "input"]
    in_names = sorted("wearDepth" if v.name.startswith("wearDepth[") else v.name for v in ins)
    assert sorted(set(in_names)) == sorted(set(inputs))
    if "wearDepth" in inputs:
        assert in_names.count("wearDepth") >= 1
    outs = {v.name: v for v in vs if v.causality == "output"}
    assert set(outputs) <= set(outs), set(outputs) - set(outs)
    for v in ins + list(outs.values()):
        assert (v.description or "").strip(), v.name
        if v.type == "Real":
            assert v.unit, v.name
    for v in vs:
        if v.causality in ("parameter", "calculatedParameter"):
            assert (v.description or "").strip(), v.name
    in_set = {v.name for v in ins}
    deps = {o.variable.name: (None if o.dependencies is None else {d.name for d in o.dependencies}) for o in md.outputs}
    if kind == "body":
        for n, d in deps.items():
            assert d is not None and not (d & in_set), (n, d)      # declared, and on states/parameters only
    else:
        loads = [n for n in outputs if n[:2] in ("fA", "tA", "fB", "tB", "F[")]
        assert loads and all(deps[n] and deps[n] & in_set for n in loads)


@pytest.mark.parametrize("body, element, kin, loads", PAIRS, ids=[p[0].split(".")[1] for p in PAIRS])
def test_body_and_element_ports_match(build_example, body, element, kin, loads):
    """The outputs of each body feed the inputs of its force element and back, with equal units."""
    vb = {v.name: v for v in read_model_description(str(build_example(COMP + body))).modelVariables}
    ve = {v.name: v for v in read_model_description(str(build_example(COMP + element))).modelVariables}
    for src, dst, a, b in [(vb, ve, n, m) for n, m in kin.items()] + [(ve, vb, n, m) for n, m in loads.items()]:
        assert src[a].causality == "output" and dst[b].causality == "input", (a, b)
        assert src[a].unit == dst[b].unit, (a, b, src[a].unit, dst[b].unit)


# ---------------------------------------------------------------------------------------------- gears


@pytest.mark.parametrize("case, b_in", [(1, 0.0), (2, B2_IN)])
def test_cardona_composition_reproduces_example(build_example, fixture_fmu, case, b_in):
    """CardonaDrive + CardonaMesh (data.b_in = 0 / 0.001968) against CardonaCase1 / CardonaCase2 over
    5 ms (case 2: impacts in the backlash from t = 0): mean mesh force within 0.1 %, force, pitch force,
    speed and contact flag within 1e-6 of their ranges; same number of states and event indicators.
    Measured: case 1 bitwise identical, case 2 1.8e-7 of the range (round-off through the impacts)."""
    mono = build_example(EX + f"Gears.CardonaCase{case}")
    comp = fixture_fmu("CardonaComposed")
    assert comp.n_states == _structure(mono)[0] and comp.n_event_indicators == _structure(mono)[1]
    t, a, b, _ = _compare(mono, comp.fmu, ["F", "Fpitch", "wa", "inContact"], 0.005, {"data.b_in": b_in},
                          must_vary=("F",))
    assert abs(b["F"].mean() / a["F"].mean() - 1) < 1e-3
    if case == 2:
        assert not a["inContact"].all()           # the backlash opens: real impacts are compared


def test_cardona_elastic_bearings_composition(fixture_fmu):
    """CardonaDrive(elasticSupports = true) + CardonaMesh against CardonaTransmission with both wheels
    on ElasticSupports (fixture CardonaElastic), backlash of case 2: mesh force and wheel-centre
    displacements (the translational part of the ports) within 1e-6 of their ranges."""
    mono = fixture_fmu("CardonaElastic")
    comp = fixture_fmu("CardonaElasticComposed")
    assert (comp.n_states, comp.n_event_indicators) == (mono.n_states, mono.n_event_indicators)
    _, a, _, _ = _compare(mono.fmu, comp.fmu, ["F", "wa", "xA", "xB", "yA", "inContact"], 0.005,
                          {"data.b_in": B2_IN}, must_vary=("F", "xA", "yA"))
    assert np.abs(a["yA"]).max() > 1e-6           # the centres move by micrometres


@pytest.mark.parametrize("nRpm", [6000.0, 12000.0])
def test_kubo_composition_reproduces_example(build_example, fixture_fmu, nRpm):
    """KuboDrive + KuboMesh against KuboDynamicFactor (variable mesh stiffness) over 10 ms: mesh force,
    speed and stiffness within 1e-6 of their ranges (measured: bitwise identical)."""
    mono = build_example(EX + "Gears.KuboDynamicFactor")
    comp = fixture_fmu("KuboComposed")
    assert (comp.n_states, comp.n_event_indicators) == _structure(mono)
    _compare(mono, comp.fmu, ["F", "wa", "k"], 0.01, {"nRpm": nRpm}, must_vary=("F", "k"))


def test_gear_wear_composition_reproduces_example(build_example, fixture_fmu):
    """PairDrive + GearMeshElement (flank wear interface) against GearWear with a worn flank (2 um peak
    profile) over 10 ms: every wear-interface output and the transmission error within 1e-6 of their
    ranges (measured: bitwise identical)."""
    mono = build_example(EX + "Gears.GearWear")
    comp = fixture_fmu("GearWearComposed")
    assert (comp.n_states, comp.n_event_indicators) == _structure(mono)
    wear = {f"wearDepth[{i + 1}]": 2e-6 * np.sin(np.pi * (i + 0.5) / 20) ** 2 for i in range(20)}
    names = ["Fn", "Ft", "delta", "sContact", "vSlip", "halfWidth", "te", "hC"]
    _, a, _, _ = _compare(mono, comp.fmu, names, 0.01, wear, must_vary=names)
    assert a["hC"].max() > 1e-6                   # the wear reaches the mesh


# ---------------------------------------------------------------------------------------------- rotor


def _stator_wear(n=36, peak=10e-6):
    """A worn patch on the upper side of the stator, where TwoDiskRub rubs (62..73 deg)."""
    c = (np.arange(n) + 0.5) * 2 * np.pi / n
    return {f"wearDepth[{i + 1}]": peak * max(0.0, np.cos(c[i] - np.radians(67))) ** 4 for i in range(n)}


@pytest.mark.parametrize("worn", [False, True], ids=["unworn", "worn"])
def test_two_disk_rub_composition_reproduces_example(build_example, fixture_fmu, worn):
    """TwoDiskRotor + RubStator (rigid stator) against TwoDiskRub over 0.3 s (first rub at 58 ms):
    rub orbit (x, y) and rub force (Fn, Ft) within 1e-6 of their ranges, unworn and with a worn stator
    patch (measured: bitwise identical)."""
    mono = build_example(EX + "Rotor.TwoDiskRub")
    comp = fixture_fmu("TwoDiskComposed")
    assert (comp.n_states, comp.n_event_indicators) == _structure(mono)
    _, a, _, _ = _compare(mono, comp.fmu, ["x", "y", "Fn", "Ft", "inContact"], 0.3,
                          _stator_wear() if worn else None, must_vary=("x", "y", "Fn", "Ft"))
    assert a["Fn"].max() > 1.0                    # it rubs


def test_two_disk_rub_elastic_stator_composition(fixture_fmu):
    """RubStator(elasticStator = true) + TwoDiskRotor against TwoDiskRub(elasticStator = true) (fixture
    TwoDiskRubElastic) over 0.3 s: orbit and rub force within 1e-6 of their ranges."""
    mono = fixture_fmu("TwoDiskRubElastic")
    comp = fixture_fmu("TwoDiskElasticComposed")
    assert (comp.n_states, comp.n_event_indicators) == (mono.n_states, mono.n_event_indicators)
    _, a, _, _ = _compare(mono.fmu, comp.fmu, ["x", "y", "Fn", "Ft", "inContact"], 0.3,
                          must_vary=("x", "y", "Fn"))
    assert a["Fn"].max() > 1.0
