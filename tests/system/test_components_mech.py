"""Component FMUs of the clearance joint and of the mechanisms around it (issue "Component FMUs
that compose"): ports (causality, unit, description), causality structure (force elements with
feedthrough, bodies without), wear interface, ``wearcosim check``, and compositions that
reproduce the monolithic examples.

The compositions are Modelica wrappers (``fixtures/mech/*Composed.mo``) that instantiate a body
component and a joint component and connect them port to port by equations, with the parameter
values a system file would set (docs/components/joints_mechanisms.md).  They are built into FMUs
and compared with the monolithic example FMUs, both simulated with FMPy (Co-Simulation, the
examples' tolerance 1e-9 and output interval).

Window.  A dry clearance joint amplifies every perturbation at its impacts.  Perturbing the
monolithic examples at round-off level (20 runs, one parameter times 1 +- (1..4)*2.2e-16) gives
the first time at which ex, ey or Fn deviates by more than 1e-6 of its range:

* SliderCrankDry: 1.02 ms at the earliest (median 1.4-2.8 ms), i.e. after the third impact
  (contact onsets at 0.23, 0.65, 0.76, 1.16 ms); deviations reach 1e-3 at ~28 ms and 0.1-0.6
  of the range within the example's 48 ms: chaotic.  Window: [0, 1.0 ms].
* DrySpeed32pi: Fn at 12.19 ms at the earliest (the third impact; onsets 3.19, 7.69, 12.19 ms),
  the orbit stays within 2e-6 over three times the example.  Window: [0, 12 ms].
* SliderCrankLubricated, Lubricated7pi: no impact (the film keeps the journal off the wall), the
  perturbed runs stay within 1e-9 (orbit) of the reference: window = the whole experiment.

Measured: the compositions agree with the examples bit for bit (0 deviation) over the whole
experiment in all four cases, worn bearing included; the tests assert the issue's 1e-6 of the
range within the windows above, which a build with a different round-off would still meet.

Separate FMUs: the lubricated cases are also run as two Model-Exchange FMUs (body, joint) coupled
port to port in Python (test_separate_component_fmus_compose).
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu

from wctest import unzipped

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mech"
COMP = "WearCosim.Components."
JOINTS = {"RevoluteClearanceDry": COMP + "Joints.RevoluteClearanceDry",
          "RevoluteClearanceLubricated": COMP + "Joints.RevoluteClearanceLubricated"}
BODIES = {"SliderCrankBody": COMP + "Mechanisms.SliderCrankBody",
          "HybridMechanismBody": COMP + "Mechanisms.HybridMechanismBody"}
N_SECTORS = 36

# ---------------------------------------------------------------------------------------- ports
KINEMATICS = {"rB[1]": "m", "rB[2]": "m", "vB[1]": "m/s", "vB[2]": "m/s", "phiB": "rad", "wB": "rad/s",
              "rJ[1]": "m", "rJ[2]": "m", "vJ[1]": "m/s", "vJ[2]": "m/s", "wJ": "rad/s"}
LOADS = {"F[1]": "N", "F[2]": "N", "tauJ": "N.m", "tauB": "N.m"}
WEAR_OUT = {"Fn": "N", "Ft": "N", "delta": "m", "theta": "rad", "vSlip": "m/s", "halfWidth": "m", "inContact": None}
JOINT_INPUTS = {**KINEMATICS, **{f"wearDepth[{i}]": "m" for i in range(1, N_SECTORS + 1)}}
JOINT_OUTPUTS = {**LOADS, **WEAR_OUT}
BODY_INPUTS = dict(LOADS)
BODY_OUTPUTS = {
    "SliderCrankBody": {**KINEMATICS, "ex": "m", "ey": "m", "aSlider": "m/s2"},
    "HybridMechanismBody": {**KINEMATICS, "ex": "m", "ey": "m", "q1": "m", "q2": "m", "q3": "m", "q4": "rad", "q5": "rad"},
}
#: outputs of a body that may depend on its inputs: the slider's acceleration is -F_x/m3 (monitoring only)
BODY_FEEDTHROUGH = {"SliderCrankBody": {"aSlider": {"F[1]"}}, "HybridMechanismBody": {}}
#: parameters the monolithic examples set on their joint (directly or through HybridMechanismData):
#: settable parameters of both joint FMUs
JOINT_PARAMETERS = {"R_journal": "m", "c": "m", "L": "m", "E_bearing": "Pa", "nu_bearing": "1", "E_journal": "Pa",
                    "nu_journal": "1", "n_exp": "1", "cr": "1", "mu_d": "1", "v0": "m/s", "v1": "m/s",
                    "vImpactMin": "m/s", "mu_oil": "Pa.s", "epsMax": "1", "wedgeScale": "1", "eReg": "m"}


def _unit(v):
    return v.unit or (v.declaredType.unit if v.declaredType is not None else None)


@pytest.fixture(scope="module")
def component(build_example):
    """component("RevoluteClearanceDry") -> path of the built FMU (cached for the session)."""
    return lambda name: build_example({**JOINTS, **BODIES}[name])


COMPOSED = ("SliderCrankDryComposed", "SliderCrankLubricatedComposed", "HybridDrySpeed32piComposed",
            "HybridLubricated7piComposed")


@pytest.fixture(scope="module", autouse=True)
def composed(tmp_path_factory):
    """composed("SliderCrankDryComposed") -> path of the FMU built from fixtures/mech.  The four
    are built in one background process, started with the module, while the tests build the
    components and examples in this one (two builds at a time instead of one)."""
    import multiprocessing
    import sys
    from concurrent.futures import ProcessPoolExecutor
    from wearcosim.export.build import build_fmu
    out, tmp = tmp_path_factory.mktemp("composed"), tmp_path_factory.mktemp("composed-tmp")
    # the worker: this session's import path, its temp files in the module's tmp_path tree (the
    # initializer is the builtin exec, so nothing of this module has to be imported there)
    init = (f"import os, sys, tempfile; sys.path[:0] = {list(sys.path)!r}; "
            f"os.environ['TMPDIR'] = tempfile.tempdir = {str(tmp)!r}")
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=exec,
                             initargs=(init,)) as pool:
        jobs = {n: pool.submit(build_fmu, n, path=FIXTURES / f"{n}.mo", out_dir=out) for n in COMPOSED}
        try:
            yield lambda name: jobs[name].result().fmu
        finally:
            for j in jobs.values():                       # a partial run (-k) does not wait for them all
                j.cancel()


# ---------------------------------------------------------------------------------------- ports and structure
@pytest.mark.parametrize("name", list(JOINTS) + list(BODIES))
def test_ports_causality_unit_description(component, name):
    """Inputs and outputs are exactly the declared ports, with their SI units and types; every
    port and parameter carries a description."""
    md = read_model_description(str(component(name)))
    vs = {v.name: v for v in md.modelVariables}
    ins, outs = (JOINT_INPUTS, JOINT_OUTPUTS) if name in JOINTS else (BODY_INPUTS, BODY_OUTPUTS[name])
    assert {n for n, v in vs.items() if v.causality == "input"} == set(ins)
    assert {n for n, v in vs.items() if v.causality == "output"} == set(outs)
    for n, unit in {**ins, **outs}.items():
        assert n in vs, f"{name}: missing port {n}"
        v = vs[n]
        assert v.causality == ("input" if n in ins else "output"), (n, v.causality)
        assert _unit(v) == unit, (n, _unit(v), unit)
        assert v.type == ("Boolean" if unit is None else "Real"), (n, v.type)
    undocumented = [n for n, v in vs.items()
                    if v.causality in ("input", "output", "parameter", "calculatedParameter")
                    and not n.startswith("solver.") and not (v.description or "").strip()]
    assert not undocumented, undocumented


def test_joints_share_one_parameter_set(component):
    """Dry and lubricated joint FMUs have the same ports and the same settable parameters (so
    one system file serves both, and swapping the law is swapping the FMU); every parameter the
    examples set is a settable (causality parameter) Real with its unit; R_bearing is there for
    the wear master."""
    def params(name):
        md = read_model_description(str(component(name)))
        return {v.name: (v.causality, _unit(v), v.start) for v in md.modelVariables
                if v.causality in ("parameter", "calculatedParameter", "input", "output")}
    dry, lub = params("RevoluteClearanceDry"), params("RevoluteClearanceLubricated")
    assert dry == lub
    for n, unit in JOINT_PARAMETERS.items():
        assert dry[n][:2] == ("parameter", unit), (n, dry.get(n))
    assert dry["R_bearing"][:2] == ("calculatedParameter", "m")


def _dependencies(fmu):
    """{output: set of input/state names it depends on, or None = depends on everything}, read
    from <ModelStructure><Outputs> (FMI 2.0: no 'dependencies' attribute = all knowns)."""
    md = read_model_description(str(fmu))
    with zipfile.ZipFile(fmu) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    svs = root.find("ModelVariables").findall("ScalarVariable")
    deps = {}
    for u in root.find("ModelStructure").find("Outputs").findall("Unknown"):
        name = svs[int(u.get("index")) - 1].get("name")
        d = u.get("dependencies")
        deps[name] = None if d is None else {svs[int(i) - 1].get("name") for i in d.split()}
    inputs = {v.name for v in md.modelVariables if v.causality == "input"}
    return deps, inputs


@pytest.mark.parametrize("name", list(BODIES))
def test_bodies_have_no_direct_feedthrough(component, name):
    """The kinematic outputs of a body depend on its states only (no input in their
    dependencies); the only exception allowed is the slider's acceleration, -F_x/m3."""
    deps, inputs = _dependencies(component(name))
    for out, d in deps.items():
        assert d is not None, f"{out}: dependencies not declared (= on everything)"
        assert d & inputs == BODY_FEEDTHROUGH[name].get(out, set()), (out, sorted(d & inputs))
    for out in KINEMATICS:
        assert not deps[out] & inputs


@pytest.mark.parametrize("name", list(JOINTS))
def test_joints_are_force_elements_with_feedthrough(component, name):
    """The joint's forces depend directly on the kinematic inputs (a force element)."""
    deps, inputs = _dependencies(component(name))
    for out in LOADS:
        d = deps[out]
        assert d is None or {"rB[1]", "rB[2]", "rJ[1]", "rJ[2]", "vJ[1]", "vJ[2]"} <= d, (out, d)


@pytest.mark.parametrize("body, joint", [("SliderCrankBody", "RevoluteClearanceDry"),
                                         ("HybridMechanismBody", "RevoluteClearanceLubricated")])
def test_body_joint_system_has_no_algebraic_loop(component, body, joint):
    """Connect body and joint port to port (same names) and look for a cycle of direct
    dependencies through both FMUs: there is none."""
    db, ib = _dependencies(component(body))
    dj, ij = _dependencies(component(joint))
    edges = {}                                            # node -> successors; nodes ("b"|"j", var)
    for tag, deps, ins in (("b", db, ib), ("j", dj, ij)):
        for out, d in deps.items():
            for i in (ins if d is None else d & ins):
                edges.setdefault((tag, i), set()).add((tag, out))
    for k in KINEMATICS:                                  # body output -> joint input
        edges.setdefault(("b", k), set()).add(("j", k))
    for k in LOADS:                                       # joint output -> body input
        edges.setdefault(("j", k), set()).add(("b", k))
    state = {}

    def cyclic(n):
        state[n] = 1
        for m in edges.get(n, ()):
            if state.get(m) == 1 or (m not in state and cyclic(m)):
                return True
        state[n] = 2
        return False
    assert not any(cyclic(n) for n in list(edges) if n not in state)


@pytest.mark.parametrize("name", list(JOINTS) + list(BODIES))
def test_component_passes_wearcosim_check(component, name):
    """`wearcosim check`: FMPy validation, archive, binary, smoke run in a subprocess; the
    joints also carry the wear interface at the top level."""
    from wearcosim.fmi.check import validate
    from wearcosim.wear_interface import describe
    fmu = component(name)
    assert validate(fmu) == []
    if name in JOINTS:
        ports = describe(read_model_description(str(fmu)))
        assert ports.update == "input" and ports.n == N_SECTORS
        assert ports.radius_name == "R_bearing" and ports.length_name == "L"


# ---------------------------------------------------------------------------------------- compositions
def _worn(centre, n=N_SECTORS, depth=20e-6):
    """A smooth wear scar 20 um deep (4-8 % of the clearance), centred at ``centre`` (rad, bearing
    frame) where the journal hits: -x for the slider-crank (theta ~ +-180 deg), -130 deg for
    the hybrid mechanism at 32 pi."""
    ang = (np.arange(n) + 0.5) * 2 * math.pi / n
    return {f"wearDepth[{i + 1}]": float(depth * max(0.0, math.cos(a - centre)) ** 2) for i, a in enumerate(ang)}


CASES = {   # id: (example, composed fixture, window end [s], wear profile)
    "SliderCrankDry": ("WearCosim.Examples.SliderCrank.SliderCrankDry", "SliderCrankDryComposed", 1.0e-3, None),
    "SliderCrankDry-worn": ("WearCosim.Examples.SliderCrank.SliderCrankDry", "SliderCrankDryComposed", 1.0e-3, _worn(math.pi)),
    "SliderCrankLubricated": ("WearCosim.Examples.SliderCrank.SliderCrankLubricated", "SliderCrankLubricatedComposed", None, None),
    "DrySpeed32pi": ("WearCosim.Examples.HybridMechanism.DrySpeed32pi", "HybridDrySpeed32piComposed", 0.012, None),
    "DrySpeed32pi-worn": ("WearCosim.Examples.HybridMechanism.DrySpeed32pi", "HybridDrySpeed32piComposed", 0.012, _worn(math.radians(-130))),
    "Lubricated7pi": ("WearCosim.Examples.HybridMechanism.Lubricated7pi", "HybridLubricated7piComposed", None, None),
}
SIGNALS = ("ex", "ey", "Fn", "Fjoint")


def _simulate(fmu, stop, wear):
    md = read_model_description(str(fmu))
    ex = md.defaultExperiment
    outs = [v.name for v in md.modelVariables if v.causality == "output"]
    with unzipped(fmu) as d:
        return simulate_fmu(d, model_description=md, stop_time=stop, output_interval=float(ex.stepSize),
                            relative_tolerance=float(ex.tolerance), start_values=dict(wear or {}), output=outs)


@pytest.mark.parametrize("case", list(CASES))
def test_composition_reproduces_monolithic_example(build_example, composed, case):
    """Body + joint components connected by equations give the monolithic example's orbit and
    joint forces within 1e-6 of each signal's range over the window where the run is not
    chaotic (module docstring); every common output is compared, and the contact must happen
    in the dry windows (the comparison covers impacts)."""
    example, fixture, window, wear = CASES[case]
    mono, comp = build_example(example), composed(fixture)
    stop = window or float(read_model_description(str(mono)).defaultExperiment.stopTime)
    a, b = _simulate(mono, stop, wear), _simulate(comp, stop, wear)
    assert len(a) == len(b) and np.array_equal(a["time"], b["time"])
    common = sorted(set(a.dtype.names) & set(b.dtype.names) - {"time"})
    assert set(SIGNALS) <= set(common)
    worst = {}
    for k in common:
        x, y = a[k].astype(float), b[k].astype(float)
        scale = np.ptp(x) or np.abs(x).max()          # range; a constant signal: its size
        worst[k] = np.abs(x - y).max() / scale if scale > 0 else np.abs(x - y).max()
    print(case, "t <= %g s:" % stop, ", ".join("%s %.1e" % kv for kv in worst.items()))
    assert all(w <= 1e-6 for w in worst.values()), worst
    if window is not None:
        assert a["inContact"].any() and a["Fn"].max() > 0
    if wear:                                              # the profile reached the joint
        assert np.abs(_simulate(mono, stop, None)["delta"] - a["delta"]).max() > 1e-6


# ---------------------------------------------------------------------------------------- separate FMUs
def _me_couple(body_fmu, joint_fmu, body_params, joint_params, stop, dt, rtol=1e-9):
    """Body and joint as two Model-Exchange FMUs, coupled port to port in Python: at every
    right-hand side the body's kinematic outputs (from its states) go to the joint's inputs, the
    joint's loads to the body's inputs, then the body's derivatives (scipy's DOP853).  No event
    handling: for runs without contact.  Returns (t, {name: samples}) of the body's orbit and
    the joint's outputs."""
    from ctypes import c_double

    from fmpy.fmi2 import FMU2Model
    from scipy.integrate import solve_ivp

    kin, loads = list(KINEMATICS), list(LOADS)
    with unzipped(body_fmu) as bd, unzipped(joint_fmu) as jd:
        fmus = []
        for path, d, name, params in ((body_fmu, bd, "body", body_params), (joint_fmu, jd, "joint", joint_params)):
            md = read_model_description(str(path))
            vr = {v.name: v.valueReference for v in md.modelVariables}
            f = FMU2Model(guid=md.guid, unzipDirectory=d, modelIdentifier=md.modelExchange.modelIdentifier,
                          instanceName=name)
            f.instantiate()
            f.setupExperiment(startTime=0.0)
            if params:
                f.setReal([vr[k] for k in params], list(params.values()))
            f.enterInitializationMode()
            f.exitInitializationMode()
            while f.newDiscreteStates()[0]:
                pass
            f.enterContinuousTimeMode()
            fmus.append((f, vr, md))
        (body, bvr, bmd), (joint, jvr, _) = fmus
        try:
            nx = bmd.numberOfContinuousStates
            x = (c_double * nx)()
            body.getContinuousStates(x, nx)
            bk, jk = [bvr[k] for k in kin], [jvr[k] for k in kin]
            jl, bl = [jvr[k] for k in loads], [bvr[k] for k in loads]

            def rhs(t, y):
                body.setTime(t)
                joint.setTime(t)
                body.setContinuousStates((c_double * nx)(*y), nx)
                joint.setReal(jk, body.getReal(bk))
                body.setReal(bl, joint.getReal(jl))
                dx = (c_double * nx)()
                body.getDerivatives(dx, nx)
                return np.array(dx)
            t = np.arange(round(stop / dt) + 1) * dt
            sol = solve_ivp(rhs, (0.0, t[-1]), np.array(x), method="DOP853", rtol=rtol, atol=1e-12, t_eval=t)
            assert sol.success, sol.message
            out = {k: [] for k in ("ex", "ey", "F[1]", "F[2]", "delta")}
            for ti, yi in zip(sol.t, sol.y.T):
                rhs(ti, yi)
                out["ex"].append(body.getReal([bvr["ex"]])[0])
                out["ey"].append(body.getReal([bvr["ey"]])[0])
                for k in ("F[1]", "F[2]", "delta"):
                    out[k].append(joint.getReal([jvr[k]])[0])
            return sol.t, {k: np.array(v) for k, v in out.items()}
        finally:
            for f, _, _ in fmus:
                f.terminate()
                f.freeInstance()


ME_CASES = {   # id: (example, body, body parameters, joint, joint parameters, stop [s])
    "SliderCrankLubricated": ("WearCosim.Examples.SliderCrank.SliderCrankLubricated", "SliderCrankBody", {},
                              "RevoluteClearanceLubricated", {}, 0.012),
    "Lubricated7pi": ("WearCosim.Examples.HybridMechanism.Lubricated7pi", "HybridMechanismBody", {"omega": 7 * math.pi},
                      "RevoluteClearanceLubricated",
                      {"c": 0.20e-3, "E_bearing": 110e9, "nu_bearing": 0.34, "mu_d": 0.1, "wedgeScale": 0.0}, 0.1),
}


@pytest.mark.parametrize("case", list(ME_CASES))
def test_separate_component_fmus_compose(build_example, component, case):
    """The component FMUs themselves, not a wrapper: body and lubricated joint as two ME FMUs
    coupled port to port (the table of the docs) with the parameter values of the docs reproduce
    the monolithic example (CS FMU, rtol 1e-9) over one crank revolution / 0.1 s: orbit within
    1e-6 of its range, joint force within 1e-3 (two integrators at rtol 1e-9; measured: orbit
    3-5e-9 slider-crank, 1.2e-8 hybrid; force 2.2e-5 and 5.6e-5, an integration error: 9.5e-7
    for the hybrid at rtol 1e-11).  Runs without contact (the film holds the journal), so no
    event handling."""
    example, body, bp, joint, jp, stop = ME_CASES[case]
    mono = build_example(example)
    dt = float(read_model_description(str(mono)).defaultExperiment.stepSize)
    t, c = _me_couple(component(body), component(joint), bp, jp, stop, dt)
    with unzipped(mono) as d:
        ref = simulate_fmu(d, stop_time=t[-1], output_interval=dt, relative_tolerance=1e-9,
                           output=["ex", "ey", "Fn", "inContact", "Fjoint"])
    assert len(ref) == len(t) and np.allclose(ref["time"], t, rtol=0, atol=1e-12)
    assert not ref["inContact"].any() and (c["delta"] < 0).all()
    dev = {k: np.abs(c[k] - ref[k]).max() / np.ptp(ref[k]) for k in ("ex", "ey")}
    fj = np.hypot(c["F[1]"], c["F[2]"])
    dev["Fjoint"] = np.abs(fj - ref["Fjoint"]).max() / np.ptp(ref["Fjoint"])
    print(case, ", ".join("%s %.1e" % kv for kv in dev.items()))
    assert dev["ex"] <= 1e-6 and dev["ey"] <= 1e-6 and dev["Fjoint"] <= 1e-3
