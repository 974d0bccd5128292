"""The container FMU's directional derivatives, input and output derivatives (issue 34, point 3):
``fmi2GetDirectionalDerivative`` of the container (outputs and state derivatives with respect to
states and inputs, as its ModelStructure lists them) assembled from its components' directional
derivatives through the action list (fmu/container/ct_eval.c, ``mdl_ddir``), declared
``providesDirectionalDerivative="true"`` when every component provides them; and, since the
container is compiled with the same runtime, ``canInterpolateInputs`` and
``maxOutputDerivativeOrder="1"`` in Co-Simulation.

System: a pendulum (states phi, w; torque in; tip position out) and a nonlinear spring-damper
(tip position and rate in, torque out: feedthrough, explicit time dependence), a system input
``drive`` into the spring and a system output ``torque``; its monolithic model (the same equations
connected in one model, built by the exporter with its own generated Jacobian) is the oracle next
to finite differences.
"""
from __future__ import annotations

from ctypes import c_double
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Model, FMU2Slave
from fmpy.validation import validate_fmu

from wctest import unzipped
from wearcosim.export.build import build_fmu
from wearcosim.system.container import build_container
from wearcosim.system.model import Component, Connection, Connector, System

PKG = """package DDTests "Container directional derivatives (tests/system/test_container_dd.py)"
  model Pendulum "Angle and rate (states), torque in, tip position out"
    parameter Real L = 0.7;
    parameter Real g = 9.81;
    input Real tau(start = 0);
    output Real phi(start = 0.4, fixed = true);
    output Real w(start = -0.2, fixed = true);
    output Real xTip;
    output Real yTip;
  equation
    der(phi) = w;
    der(w) = -g/L*sin(phi) + tau;
    xTip = L*sin(phi);
    yTip = -L*cos(phi);
  end Pendulum;
  model Spring "Nonlinear spring-damper: tip position and rate in, torque out (feedthrough)"
    parameter Real k = 3;
    parameter Real d = 0.4;
    input Real x(start = 0);
    input Real w(start = 0);
    input Real drive(start = 0);
    output Real tau;
    output Real power;
  equation
    tau = -k*x^3 - d*w + drive*cos(x) + 0.1*sin(3*time);
    power = tau*w;
  end Spring;
  model SpringLoop "The spring with its torque from a nonlinear equation (a Newton loop: no directional derivatives)"
    parameter Real k = 3;
    parameter Real d = 0.4;
    input Real x(start = 0);
    input Real w(start = 0);
    input Real drive(start = 0);
    output Real tau;
    output Real power;
  equation
    tau + 0.01*tau^3 = -k*x^3 - d*w + drive*cos(x) + 0.1*sin(3*time);
    power = tau*w;
  end SpringLoop;
  model Mono "The pendulum on the spring in one model"
    input Real drive(start = 0);
    output Real torque;
    Pendulum p(tau = s.tau);
    Spring s(x = p.xTip, w = p.w, drive = drive);
  equation
    torque = s.tau;
  end Mono;
end DDTests;
"""

UNKNOWNS = ["der(p.phi)", "der(p.w)", "p.xTip", "p.yTip", "s.tau", "s.power", "torque", "p.phi"]
KNOWNS = ["p.phi", "p.w", "drive"]
#: the unknowns the monolithic model has too (its p.xTip, s.tau, ... are not outputs of its own)
MONO = ["der(p.phi)", "der(p.w)", "torque", "p.phi"]


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    d = tmp_path_factory.mktemp("ddtests")
    (d / "DDTests.mo").write_text(PKG)
    out = d / "fmus"
    built = {n: build_fmu("DDTests." + n, d, out, path=d / "DDTests.mo").fmu
             for n in ("Pendulum", "Spring", "SpringLoop", "Mono")}

    def system(spring):
        return System("PS", components=[Component("p", "Pendulum.fmu", built["Pendulum"]),
                                        Component("s", f"{spring}.fmu", built[spring])],
                      connectors=[Connector("drive", "input", "Real", ""), Connector("torque", "output", "Real", "")],
                      connections=[Connection("p", "xTip", "s", "x"), Connection("p", "w", "s", "w"),
                                   Connection("s", "tau", "p", "tau"), Connection(None, "drive", "s", "drive"),
                                   Connection("s", "tau", None, "torque")])
    built["container"] = build_container(system("Spring"), out / "PS.fmu")
    built["container_loop"] = build_container(system("SpringLoop"), out / "PSLoop.fmu")
    return built


def _md(path):
    md = read_model_description(str(path))
    return md, {v.name: v.valueReference for v in md.modelVariables}


def test_capabilities(fmus):
    md, _ = _md(fmus["container"])
    assert md.modelExchange.providesDirectionalDerivative and md.coSimulation.providesDirectionalDerivative
    assert md.coSimulation.canInterpolateInputs and int(md.coSimulation.maxOutputDerivativeOrder) == 1
    assert validate_fmu(str(fmus["container"])) == []
    md, _ = _md(fmus["container_loop"])          # a component without directional derivatives
    assert not read_model_description(str(fmus["SpringLoop"])).modelExchange.providesDirectionalDerivative
    assert not md.modelExchange.providesDirectionalDerivative
    assert md.coSimulation.canInterpolateInputs and int(md.coSimulation.maxOutputDerivativeOrder) == 1
    assert validate_fmu(str(fmus["container_loop"])) == []


class ME:
    """A Model-Exchange instance in continuous-time mode at (t, x, drive)."""

    def __init__(self, folder, md, vr):
        self.vr = vr
        self.m = FMU2Model(guid=md.guid, unzipDirectory=folder, modelIdentifier=md.modelExchange.modelIdentifier,
                           instanceName="me")
        self.m.instantiate()
        self.m.setupExperiment(startTime=0.0)
        self.m.enterInitializationMode()
        self.m.exitInitializationMode()
        self.m.newDiscreteStates()
        self.m.enterContinuousTimeMode()

    def at(self, t, x, drive):
        self.m.setTime(t)
        self.m.setContinuousStates((c_double * 2)(*x), 2)
        self.m.setReal([self.vr["drive"]], [drive])

    def values(self, names):
        return np.array(self.m.getReal([self.vr[n] for n in names]))

    def jacobian(self, unknowns, knowns):
        J = np.zeros((len(unknowns), len(knowns)))
        for j in range(len(knowns)):
            seed = [0.0] * len(knowns)
            seed[j] = 1.0
            J[:, j] = self.m.getDirectionalDerivative([self.vr[n] for n in unknowns], [self.vr[n] for n in knowns],
                                                      seed)
        return J

    def close(self):
        self.m.terminate()
        self.m.freeInstance()


def _fd(me, t, x, drive, eps=1e-6):
    J = np.zeros((len(UNKNOWNS), 3))
    for j in range(3):
        xp, xm, dp, dm = list(x), list(x), drive, drive
        if j < 2:
            xp[j] += eps
            xm[j] -= eps
        else:
            dp, dm = drive + eps, drive - eps
        me.at(t, xp, dp)
        fp = me.values(UNKNOWNS)
        me.at(t, xm, dm)
        J[:, j] = (fp - me.values(UNKNOWNS)) / (2 * eps)
    me.at(t, x, drive)
    return J


@pytest.mark.parametrize("point", [(0.3, (0.4, -0.2), 0.7), (1.7, (-1.1, 2.5), -3.0), (0.0, (2.9, 0.0), 0.0)])
def test_model_exchange_directional_derivatives_match_differences(fmus, point):
    """Every column of d(derivatives, outputs)/d(states, input) of the container: against central
    differences of its own evaluations, and against the monolithic model's generated Jacobian."""
    t, x, drive = point
    md, vr = _md(fmus["container"])
    mmd, mvr = _md(fmus["Mono"])
    with unzipped(fmus["container"]) as d, unzipped(fmus["Mono"]) as dm:
        me, mono = ME(d, md, vr), ME(dm, mmd, mvr)
        try:
            me.at(t, x, drive)
            J = me.jacobian(UNKNOWNS, KNOWNS)
            fd = _fd(me, t, x, drive)
            mono.at(t, x, drive)
            Jm = mono.jacobian(MONO, KNOWNS)
        finally:
            me.close()
            mono.close()
    scale = np.max(np.abs(J))
    Jc = J[[UNKNOWNS.index(n) for n in MONO]]
    print(f"container vs differences {np.max(np.abs(J - fd)) / scale:.2g}, vs monolithic "
          f"{np.max(np.abs(Jc - Jm)) / scale:.2g} of the largest entry")
    assert np.max(np.abs(J - fd)) <= 1e-7 * scale
    assert np.max(np.abs(Jc - Jm)) <= 1e-12 * scale
    assert J[UNKNOWNS.index("p.phi")].tolist() == [1.0, 0.0, 0.0]          # a state: its own seed


def _slave(folder, md):
    s = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier=md.coSimulation.modelIdentifier,
                  instanceName="cs")
    s.instantiate()
    s.setupExperiment(tolerance=1e-10, startTime=0.0)
    s.enterInitializationMode()
    s.exitInitializationMode()
    return s


def _run(s, vr, h, n, drive, interpolate=True, outder=()):
    """n steps of h with drive(t) = 0.5 + 2 t - t^2 set at each point (with its derivatives, or held);
    the output derivatives of outder at each point (before the next set)"""
    rows, ders = [], []
    for k in range(n):
        t = k * h
        s.setReal([vr["drive"]], [drive(t)])
        if interpolate:
            s.setRealInputDerivatives([vr["drive"]] * 2, [1, 2], [2 - 2 * t, -2.0])
        s.doStep(t, h)
        rows.append(s.getReal([vr[n] for n in ("p.phi", "p.w", "torque", "s.power")]))
        if outder:
            ders.append(s.getRealOutputDerivatives([vr[n] for n in outder], [1] * len(outder)))
    return np.array(rows), np.array(ders)


def _drive(t):
    return 0.5 + 2 * t - t * t


def test_co_simulation_directional_derivatives_after_steps(fmus):
    """After Co-Simulation steps (the components' states moved by the solver, its last evaluations
    beyond the communication point): the container's directional derivatives at the communication
    point are the monolithic model's at the same point."""
    md, vr = _md(fmus["container"])
    mmd, mvr = _md(fmus["Mono"])
    with unzipped(fmus["container"]) as d, unzipped(fmus["Mono"]) as dm:
        s, m = _slave(d, md), _slave(dm, mmd)
        try:
            _run(s, vr, 0.05, 13, _drive)
            _run(m, mvr, 0.05, 13, _drive)
            J = np.array([s.getDirectionalDerivative([vr[n] for n in MONO], [vr[n] for n in KNOWNS],
                                                     list(np.eye(3)[j])) for j in range(3)]).T
            Jm = np.array([m.getDirectionalDerivative([mvr[n] for n in MONO], [mvr[n] for n in KNOWNS],
                                                      list(np.eye(3)[j])) for j in range(3)]).T
        finally:
            for inst in (s, m):
                inst.terminate()
                inst.freeInstance()
    assert np.max(np.abs(J - Jm)) <= 1e-7 * np.max(np.abs(J))     # (the two runs agree to ~1e-9)


def test_co_simulation_input_and_output_derivatives(fmus):
    """The container in Co-Simulation with the drive given as a quadratic (value and derivatives at
    each point of a coarse grid): the same trajectory as the monolithic model driven the same way
    (the moving input reaches the spring at every right-hand side) and as the container with the
    input held on a 10x and a 100x finer grid, in the limit; its output derivatives match the monolithic's
    and differences of the run; with a component without directional derivatives (the differences
    along the trajectory) as well."""
    h, n = 0.01, 100
    out = ("torque", "s.power", "p.xTip", "p.phi")
    md, vr = _md(fmus["container"])
    mmd, mvr = _md(fmus["Mono"])
    lmd, lvr = _md(fmus["container_loop"])
    with unzipped(fmus["container"]) as d, unzipped(fmus["Mono"]) as dm, unzipped(fmus["container_loop"]) as dl:
        res = {}
        for key, folder, m_, v_, kw in (("c", d, md, vr, {}), ("m", dm, mmd, mvr, {"outder": ("torque", "p.phi")}),
                                        ("held", d, md, vr, {"interpolate": False}),
                                        ("held10", d, md, vr, {"interpolate": False}),
                                        ("loop", dl, lmd, lvr, {})):
            s = _slave(folder, m_)
            try:
                if key == "held":
                    res[key] = _run(s, v_, h / 10, n * 10, _drive, **kw)
                elif key == "held10":
                    res[key] = _run(s, v_, h / 100, n * 100, _drive, **kw)
                else:
                    res[key] = _run(s, v_, h, n, _drive, **({"outder": out} | kw))
            finally:
                s.terminate()
                s.freeInstance()
    (c, dc), (m, dmono), (lp, dl_) = res["c"], res["m"], res["loop"]
    e_mono = np.max(np.abs(c - m))
    e10, e100 = (np.max(np.abs(res[k][0][(10 if k == "held" else 100) - 1::(10 if k == "held" else 100)] - c))
                 for k in ("held", "held10"))
    print(f"container vs monolithic {e_mono:.2g}; input held over {h / 10:g} s: {e10:.2g}, {h / 100:g} s: {e100:.2g}")
    assert e_mono <= 1e-7
    assert 8 < e10 / e100 < 12                   # first order: the held input converges to it
    assert np.max(np.abs(dc[:, [0, 3]] - dmono)) <= 1e-7 * np.max(np.abs(dc))
    # the loop variant: a different torque law (tau + 0.01 tau^3 = ...), its own run's differences
    for tag, (rows, ders) in (("directional", (c, dc)), ("along the trajectory", (lp, dl_))):
        fd = (rows[2:, 2] - rows[:-2, 2]) / (2 * h)
        e = np.max(np.abs(fd - ders[1:-1, 0])) / np.max(np.abs(ders[:, 0]))
        print(f"d torque/dt ({tag}) vs central differences of the run (h = {h}): {e:.2g} of the largest")
        assert e <= 1e-3
        assert np.max(np.abs(ders[:, 3] - rows[:, 1])) <= 1e-12 * np.max(np.abs(rows[:, 1]))   # dphi/dt = w


def test_directional_derivatives_refused_without_component_support(fmus):
    md, vr = _md(fmus["container_loop"])
    with unzipped(fmus["container_loop"]) as d:
        s = _slave(d, md)
        try:
            s.doStep(0.0, 0.1)
            with pytest.raises(FMICallException):
                s.getDirectionalDerivative([vr["torque"]], [vr["drive"]], [1.0])
            assert len(s.getRealOutputDerivatives([vr["torque"]], [1])) == 1
        finally:
            s.terminate()
            s.freeInstance()
