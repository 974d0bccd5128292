"""The strong-coupling container (issue "Component FMUs that compose", item 3a):
``wearcosim.system.container.build_container`` turns a system of Model-Exchange FMUs into one
FMU (ME + CS) whose embedded solver integrates all components' states as one ODE
(fmu/container/ + the unchanged runtime with its MDL_HAS_HOOKS hooks).

Models (``fixtures/container/ContainerTests.mo``), each split into components and also written
as one monolithic model of the same equations (the components instantiated and connected by
equations, built by the exporter):

* contact: a mass under gravity (``ContactBody``: force in, position/velocity out, no
  feedthrough) on a stiff penalty contact (``ContactSpring``: position/velocity in, force out,
  feedthrough, an event indicator and a when-clause counting the impacts, Integer output);
* chain: two masses (``ChainMass``, one FMU used twice with different parameter bindings) and a
  spring-damper with backlash between them (``ChainCoupling``: feedthrough, two indicators);
* ball: a bouncing ball (``Ball``) on a reinit-free penalty floor (``Floor``), the floor's
  Boolean contact signal connected to the ball's Boolean input, which counts the bounces in a
  when-clause (a discrete value crossing the boundary in the event iteration).

Each container is compared with its monolithic model, both run by FMPy ``simulate_fmu`` with
the same settings (relative tolerance 1e-9, 1000 output intervals): Co-Simulation with the
embedded auto method and with RODAS4 (the container's Jacobian assembled from the components'
directional derivatives, the monolithic's from its own generated Jacobian), and Model Exchange
(FMPy's CVode).  Measured max deviation / range: identical (0) in all three, RODAS4 included
(with a finite-difference Jacobian in the container it was up to 1.6e-7); the discrete outputs
agree exactly.  Asserted: <= 1e-6 of the range.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path


import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu
from fmpy.fmi2 import FMU2Slave

from wctest import ROOT, unzipped
from wearcosim.export.build import build_fmu
from wearcosim.system.container import ContainerError, build_container
from wearcosim.system.model import Component, Connection, Connector, System

FIX = Path(__file__).resolve().parent / "fixtures" / "container"
PKG = FIX / "ContainerTests.mo"
TOL = 1e-9


@pytest.fixture(scope="module")
def fmu(tmp_path_factory):
    """fmu("ContactBody") -> the exporter's FMU of ContainerTests.ContactBody (built once)."""
    out = tmp_path_factory.mktemp("container-fmus")
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = build_fmu("ContainerTests." + name, FIX, out, path=PKG).fmu
        return cache[name]
    return get


def _c(a, b, c, d):
    return Connection(a, b, c, d)


def _system(case, fmu):
    if case == "contact":
        return System("ContactSystem", components=[
            Component("body", "ContactBody.fmu", fmu("ContactBody")),
            Component("contact", "ContactSpring.fmu", fmu("ContactSpring"))],
            connections=[_c("body", "x", "contact", "x"), _c("contact", "v", "body", "v"),   # (either order)
                         _c("contact", "F", "body", "F")])
    if case == "chain":
        return System("ChainSystem", components=[
            Component("m1", "ChainMass.fmu", fmu("ChainMass"), parameters={"m": 2}),
            Component("c", "ChainCoupling.fmu", fmu("ChainCoupling")),
            Component("m2", "ChainMass.fmu", fmu("ChainMass"), parameters={"x0": 1, "v0": 3})],
            connections=[_c("m1", "x", "c", "x1"), _c("m1", "v", "c", "v1"), _c("m2", "x", "c", "x2"),
                         _c("m2", "v", "c", "v2"), _c("c", "F1", "m1", "F"), _c("c", "F2", "m2", "F")])
    assert case == "ball"
    return System("BallSystem", components=[
        Component("ball", "Ball.fmu", fmu("Ball")), Component("floor", "Floor.fmu", fmu("Floor"))],
        connections=[_c("ball", "h", "floor", "h"), _c("ball", "v", "floor", "v"), _c("floor", "F", "ball", "F"),
                     _c("floor", "contact", "ball", "inContact")])


CASES = {   # monolithic model, compared variables, stop time, counter of events (>= minimum)
    "contact": ("ContactMono", ["body.x", "body.v", "contact.F", "contact.impacts", "contact.vImpact"], 1.0,
                ("contact.impacts", 3)),
    "chain": ("ChainMono", ["m1.x", "m1.v", "m2.x", "m2.v", "c.F1", "c.F2"], 0.5, ("_container.nEvents", 10)),
    "ball": ("BallMono", ["ball.h", "ball.v", "floor.F", "ball.bounces", "floor.contact"], 3.0, ("ball.bounces", 4)),
}


@pytest.fixture(scope="module")
def container(fmu, tmp_path_factory):
    """container("contact") -> the container FMU of that system (built once)."""
    out = tmp_path_factory.mktemp("containers")
    cache = {}

    def get(case):
        if case not in cache:
            cache[case] = build_container(_system(case, fmu), out / f"{case}.fmu")
        return cache[case]
    return get


def _simulate(path, kind, stop, names, method=None):
    sv = {} if method is None else {"solver.method": method}
    return simulate_fmu(str(path), fmi_type=kind, stop_time=stop, output_interval=stop / 1000, output=names,
                        relative_tolerance=TOL, start_values=sv)


@pytest.mark.parametrize("kind,method", [("CoSimulation", 0), ("CoSimulation", 2), ("ModelExchange", None)])
@pytest.mark.parametrize("case", list(CASES))
def test_container_agrees_with_monolithic(case, kind, method, fmu, container):
    mono, names, stop, (counter, least) = CASES[case]
    ref = _simulate(fmu(mono), kind, stop, names, method)
    got = _simulate(container(case), kind, stop, names + ["_container.nRhs", "_container.nEvents"], method)
    assert np.array_equal(ref["time"], got["time"])
    for n in names:
        a, b = ref[n].astype(float), got[n].astype(float)
        rng = float(np.ptp(a)) or 1.0
        dev = float(np.max(np.abs(a - b))) / rng
        assert dev <= 1e-6, f"{case} {kind} method={method}: {n} deviates by {dev:.3g} of its range"
    assert got[counter][-1] >= least            # the events happened
    assert got["_container.nRhs"][-1] > 0


@pytest.fixture(scope="module")
def reinit_ball(build_example, tmp_path_factory):
    """(the exporter's bouncing ball, the container of it alone)"""
    ball = build_example("WearCosim.Examples.Basic.BouncingBall")
    out = tmp_path_factory.mktemp("reinit") / "BallAlone.fmu"
    return ball, build_container(System("BallAlone", components=[Component("ball", "BouncingBall.fmu", ball)]), out)


@pytest.mark.parametrize("kind", ["CoSimulation", "ModelExchange"])
def test_single_component_with_reinit(kind, reinit_ball):
    """A component whose when-clause reinitializes its own states (the exporter's bouncing ball):
    valuesOfContinuousStatesChanged -> the container re-reads its states (MDL_EV_REINIT)."""
    ball, container = reinit_ball
    ref = _simulate(ball, kind, 3.0, ["h", "v", "nImpacts"])
    got = _simulate(container, kind, 3.0, ["ball.h", "ball.v", "ball.nImpacts"])
    for n in ("h", "v", "nImpacts"):
        a, b = ref[n].astype(float), got["ball." + n].astype(float)
        assert float(np.max(np.abs(a - b))) <= 1e-6 * float(np.ptp(a)), n
    assert got["ball.nImpacts"][-1] == ref["nImpacts"][-1] >= 5


def test_component_failing_at_a_trial_point_is_set_back(fmu, tmp_path):
    """A component whose evaluation fails at a solver trial point (beyond its domain) is set back
    to its state after the last event (fmi2SetFMUstate); the solver takes a smaller step and the
    simulation goes on, as with a monolithic model."""
    system = System("Trial", components=[Component("osc", "", fmu("TrialOscillator")),
                                         Component("sensor", "", fmu("TrialSensor"))],
                    connections=[_c("osc", "x", "sensor", "x"), _c("sensor", "F", "osc", "F")])
    path = build_container(system, tmp_path / "trial.fmu")
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode() if isinstance(message, bytes) else message)

    r = simulate_fmu(str(path), stop_time=2.0, output_interval=0.01, output=["osc.x"], debug_logging=True,
                     logger=logger, start_values={"solver.method": 1})
    assert any(m.startswith("component sensor set back to its state after the last event") for m in messages)
    assert np.max(np.abs(r["osc.x"] - np.cos(10 * r["time"]))) < 1e-6


def _state_run(s, refs, t, t2, h):
    out = []
    while t < t2 - 1e-12:
        s.doStep(t, h)
        t += h
        out.append(s.getReal(refs))
    return np.array(out)


def test_fmu_state_roundtrip_bit_for_bit(container, tmp_path):
    """Get, set, serialize, deserialize (also into a fresh instance): the continuation is the same
    bit for bit (the components' states, discrete ones included, are inside the container's)."""
    path = container("ball")
    d = tmp_path / "ball"
    with zipfile.ZipFile(path) as z:
        z.extractall(d)
    md = read_model_description(str(d))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    refs = [vr[n] for n in ("ball.h", "ball.v", "floor.F")]
    intref = [vr["ball.bounces"]]

    def new():
        s = FMU2Slave(guid=md.guid, unzipDirectory=str(d), modelIdentifier=md.coSimulation.modelIdentifier,
                      instanceName="c")
        s.instantiate()
        s.setupExperiment(tolerance=TOL, startTime=0.0)
        s.enterInitializationMode()
        s.exitInitializationMode()
        return s

    s, s2 = new(), new()
    try:
        _state_run(s, refs, 0.0, 1.0, 0.01)
        bounces = s.getInteger(intref)
        st = s.getFMUstate()
        ser = s.serializeFMUstate(st)
        a = _state_run(s, refs, 1.0, 2.0, 0.01)
        s.setFMUstate(st)
        assert s.getInteger(intref) == bounces
        b = _state_run(s, refs, 1.0, 2.0, 0.01)
        st2 = s.deSerializeFMUstate(ser)
        s.setFMUstate(st2)
        c = _state_run(s, refs, 1.0, 2.0, 0.01)
        st3 = s2.deSerializeFMUstate(ser)
        s2.setFMUstate(st3)
        e = _state_run(s2, refs, 1.0, 2.0, 0.01)
        assert s2.getInteger(intref)[0] > bounces[0]        # bounces happened after the state
        for x in (b, c, e):
            assert np.array_equal(a, x)
        corrupt = bytearray(ser)
        corrupt[-9] ^= 0xFF                                  # inside a component's part
        with pytest.raises(Exception):
            s.deSerializeFMUstate(bytes(corrupt))
        for inst, state in ((s, st), (s, st2), (s2, st3)):
            inst.freeFMUstate(state)
    finally:
        for inst in (s, s2):
            inst.terminate()
            inst.freeInstance()


def test_container_runs_in_libcosim(container, fmu):
    """Another importer (OSP libcosim over Modelon's FMI Library) runs the container FMU as an
    ordinary Co-Simulation FMU and gets FMPy's values at the same fixed step (measured: 1e-15 and
    3e-14 of the range; the solver tolerance is set explicitly, libcosim defines none)."""
    from wearcosim.fmi import libcosim
    if not libcosim.available():
        pytest.skip("libcosimpy is not installed")
    names = ["body.x", "contact.F"]
    step, stop = 1e-3, 0.5
    tol = {"solver.rtol": TOL}        # libcosim defines no tolerance in fmi2SetupExperiment
    t, vals = libcosim.run(container("contact"), stop, step, outputs=names, real_values=tol)
    ref = simulate_fmu(str(container("contact")), stop_time=stop, output_interval=step, output=names,
                       start_values=tol)
    for n in names:
        a = np.interp(t, ref["time"], ref[n])
        dev = float(np.max(np.abs(np.asarray(vals[n]) - a))) / (float(np.ptp(a)) or 1.0)
        print(f"{n}: libcosim vs FMPy {dev:.3g} of the range")
        assert dev <= 1e-6, f"{n}: libcosim vs FMPy {dev:.3g} of the range"


def test_container_passes_check(container):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-m", "wearcosim.cli", "check", str(container("contact"))],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().endswith(": OK")


def test_system_connectors_inputs_and_diagnostics(fmu, tmp_path):
    """A system input feeds a component input, a system output shows a state; the unconnected
    input of a second body is a container input of its own; the counters are readable."""
    system = System("Free", components=[
        Component("a", "ContactBody.fmu", fmu("ContactBody")),
        Component("b", "ContactBody.fmu", fmu("ContactBody"), parameters={"x": 1.0})],
        connectors=[Connector("Fext", "input", "Real", "N"), Connector("height", "output", "Real", "m")],
        connections=[_c(None, "Fext", "a", "F"), _c("a", "x", None, "height")])
    path = build_container(system, tmp_path / "free.fmu")
    md = read_model_description(str(path))
    by = {v.name: v for v in md.modelVariables}
    assert by["Fext"].causality == "input" and by["b.F"].causality == "input"
    assert "a.F" not in by                                   # fed by the system input
    assert by["height"].causality == "output" and by["a.x"].causality == "output"
    assert by["der(a.v)"].derivative is by["a.v"] and by["a.m"].causality == "parameter"
    assert by["b.x"].start == "1.0"                          # the binding
    names = ["a.x", "height", "b.x", "_container.nRhs", "_container.nCalls", "_container.timeInComponents"]
    r = simulate_fmu(str(path), stop_time=1.0, output_interval=0.1, output=names, relative_tolerance=TOL,
                     start_values={"Fext": 9.81, "b.F": 0.0})
    t = r["time"]
    assert np.allclose(r["a.x"], 0.2, rtol=0, atol=1e-9)                   # held by Fext = m g
    assert np.array_equal(r["height"], r["a.x"])
    assert np.allclose(r["b.x"], 1.0 - 9.81 * t**2 / 2, rtol=0, atol=1e-9)  # free fall from the binding
    assert r["_container.nRhs"][-1] > 0 and r["_container.nCalls"][-1] > r["_container.nRhs"][-1]
    assert r["_container.timeInComponents"][-1] == 0.0                     # timing off by default
    r = simulate_fmu(str(path), stop_time=0.1, output=["_container.timeInComponents"],
                     start_values={"_container.timing": True})
    assert np.isfinite(r["_container.timeInComponents"][-1])


def test_component_messages_forwarded_with_its_name(fmu, container, tmp_path):
    """A component failing in the initialization (mass 0: der(v) not finite) is named in the
    container's messages, its own message forwarded with its name."""
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode() if isinstance(message, bytes) else message)

    with unzipped(container("contact")) as d:
        with pytest.raises(Exception):
            simulate_fmu(d, stop_time=0.1, start_values={"body.m": 0.0}, logger=logger)
    text = "\n".join(messages)
    assert re.search(r"^body: .*not finite", text, re.M), text
    assert "component body: " in text


# ------------------------------------------------------------------------------ refusals

def _rewrite(src: Path, dest: Path, fn) -> Path:
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dest, "w") as zo:
        for item in zi.infolist():
            data = zi.read(item.filename)
            if item.filename == "modelDescription.xml":
                data = fn(data.decode()).encode()
            zo.writestr(item, data)
    return dest


def test_refuses_feedthrough_loop(fmu, tmp_path):
    spring = fmu("ContactSpring")
    system = System("Loop", components=[Component("a", "", spring), Component("b", "", spring)],
                    connections=[_c("a", "F", "b", "x"), _c("b", "F", "a", "x")])
    with pytest.raises(ContainerError, match=r"feedthrough loop.*: input a\.x -> output a\.F -> input b\.x "
                                             r"-> output b\.F -> input a\.x; break it"):
        build_container(system, tmp_path / "loop.fmu")
    assert not (tmp_path / "loop.fmu").exists()


def test_refuses_fmu_without_model_exchange(fmu, tmp_path):
    cs_only = _rewrite(fmu("ContactBody"), tmp_path / "CsOnly.fmu",
                       lambda x: re.sub(r"<ModelExchange.*?</ModelExchange>", "", x, flags=re.S))
    system = System("S", components=[Component("body", "", cs_only), Component("contact", "", fmu("ContactSpring"))],
                    connections=[_c("body", "x", "contact", "x")])
    with pytest.raises(ContainerError, match=r"^component 'body' \(CsOnly\.fmu\): no Model Exchange interface"):
        build_container(system, tmp_path / "s.fmu")


def test_refuses_fmu_without_fmu_state(fmu, tmp_path):
    def no_state(x):
        return re.sub(r'(<ModelExchange[^>]*?)canGetAndSetFMUstate="true"', r'\1canGetAndSetFMUstate="false"', x)
    bad = _rewrite(fmu("ContactSpring"), tmp_path / "NoState.fmu", no_state)
    system = System("S", components=[Component("body", "", fmu("ContactBody")), Component("contact", "", bad)])
    with pytest.raises(ContainerError, match=r"^component 'contact' \(NoState\.fmu\): .*canGetAndSetFMUstate"):
        build_container(system, tmp_path / "s.fmu")


@pytest.mark.parametrize("connections,message", [
    ([_c("floor", "contact", "ball", "F")], r"floor\.contact is Boolean but ball\.F is Real"),
    ([_c("floor", "F", "ball", "F"), _c("ball", "h", "ball", "F")], r"input ball\.F is connected twice"),
    ([_c("floor", "force", "ball", "F")], r"component 'floor' \(Floor\.fmu\) has no variable 'force'"),
    ([_c("floor", "k", "ball", "F")], r"'k' of component 'floor' is a parameter"),
    ([_c("ball", "h", "ball", "v")], r"joins two outputs \(ball\.h and ball\.v\)"),
])
def test_refuses_bad_connections(fmu, tmp_path, connections, message):
    system = System("S", components=[Component("ball", "", fmu("Ball")), Component("floor", "", fmu("Floor"))],
                    connections=connections)
    with pytest.raises(ContainerError, match=message) as exc:
        build_container(system, tmp_path / "s.fmu")
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("case", list(CASES))
def test_container_model_description_is_valid_with_base_units(case, container):
    """FMPy's validation finds nothing in a container FMU; every unit it carries over from its
    components is defined with its SI base-unit exponents (as the exporter's own FMUs)."""
    from fmpy import read_model_description
    from fmpy.validation import validate_fmu

    from wearcosim.export import units
    path = container(case)
    assert validate_fmu(str(path)) == []
    md = read_model_description(str(path))
    used = {v.unit or (v.declaredType.unit if v.declaredType else None) for v in md.modelVariables} - {None, ""}
    defined = {u.name: u for u in md.unitDefinitions}
    assert used <= set(defined), used - set(defined)
    for name, u in defined.items():
        want = units.dim(name)
        got = [getattr(u.baseUnit, b, 0) or 0 for b in units.BASE] if u.baseUnit else None
        assert got == list(want.exps), (name, got, want.exps)
