"""Evaluation in parts (model_api.h): in Model Exchange continuous-time mode the runtime answers
fmi2GetDerivatives / fmi2GetEventIndicators with the derivatives-and-indicators function alone and
a get of outputs with the outputs-and-indicators function alone, instead of a whole model
evaluation per read (what an importer coupling FMUs asks at every right-hand side).  Whatever the
order of the calls, every value must be exactly the value of a whole evaluation at the same
point: random call sequences on one instance against a second instance that forces a whole
evaluation (a get of every variable) before each read.  Models written here as a user would:
a driven mass on a spring with a one-sided stop (feedthrough output, acceleration output, a
relation), and the same with a nonlinear algebraic loop (no evaluation in parts: the fallback).
Directional derivatives are among the reads: an instance that keeps its Jacobian between
directions at one point must give what an instance computing it afresh gives.""" 
from __future__ import annotations

import ctypes
import random
import textwrap

import numpy as np

import fmpy
import pytest
from fmpy.fmi2 import FMU2Model

import wctest

DRIVEN = """
model DrivenStop "A mass on a spring, driven by an input force, against a one-sided stop"
  parameter Real m = 2 "Mass [kg]";
  parameter Real k = 40 "Spring stiffness [N/m]";
  parameter Real d = 0.3 "Damping [N.s/m]";
  parameter Real kStop = 1e3 "Stop stiffness [N/m]";
  input Real F(start = 0) "Driving force [N]";
  output Real pos "Position [m]";
  output Real acc "Acceleration [m/s2] (depends on the input)";
  output Real power "Power of the driving force [W]";
  Real x(start = 0.1, fixed = true);
  Real v(start = 0, fixed = true);
  Real spring "Spring force (not an output)";
  Real stop "Stop force (not an output)";
equation
  spring = -k*x;
  stop = if x < 0 then -kStop*x else 0;
  der(x) = v;
  m*der(v) = spring + stop - d*v + F;
  pos = x;
  acc = der(v);
  power = F*v;
end DrivenStop;
"""

LOOP = """
model DrivenLoop "DrivenStop with its damping force from a nonlinear loop"
  parameter Real m = 2;
  parameter Real k = 40;
  input Real F(start = 0);
  output Real pos;
  output Real fd "Damping force, from fd + 0.1*fd^3 = 0.3*v";
  Real x(start = 0.1, fixed = true);
  Real v(start = 0, fixed = true);
  Real fd0(start = 0);
equation
  fd0 + 0.1*fd0^3 = 0.3*v;
  fd = fd0;
  der(x) = v;
  m*der(v) = -k*x - fd0 + F + (if x < 0 then -1e3*x else 0);
  pos = x;
end DrivenLoop;
"""


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    from wearcosim.export.build import build_fmu
    d = tmp_path_factory.mktemp("parts")
    out = {}
    for name, src in (("DrivenStop", DRIVEN), ("DrivenLoop", LOOP)):
        p = d / f"{name}.mo"
        p.write_text(textwrap.dedent(src))
        out[name] = build_fmu(name, d, d, path=p).fmu
    return out


def _instance(unzipdir, md, name):
    fmu = FMU2Model(guid=md.guid, unzipDirectory=unzipdir, modelIdentifier=md.modelExchange.modelIdentifier,
                    instanceName=name)
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    while True:
        r = fmu.newDiscreteStates()
        if not r[0]:
            break
    fmu.enterContinuousTimeMode()
    return fmu


@pytest.mark.parametrize("name", ["DrivenStop", "DrivenLoop"])
@pytest.mark.parametrize("seed", range(4))
def test_random_call_orders_give_the_values_of_a_whole_evaluation(fmus, name, seed):
    rng = random.Random(seed)
    with wctest.unzipped(fmus[name]) as d:
        md = fmpy.read_model_description(d)
        vr = {v.name: v.valueReference for v in md.modelVariables}
        real = sorted(v.valueReference for v in md.modelVariables if v.type == "Real")
        outs = [vr[v.name] for v in md.modelVariables if v.causality == "output"]
        others = [vr[n] for n in ("spring", "stop", "fd0") if n in vr]
        ders = [vr[n] for n in ("der(x)", "der(v)")]
        a, b = _instance(d, md, "parts"), _instance(d, md, "whole")
        nz = md.numberOfEventIndicators
        try:
            t = 0.0
            for _ in range(60):
                t += rng.uniform(0.0, 0.01)
                x = [rng.uniform(0.02, 0.2), rng.uniform(-1, 1)]       # x > 0: the stop's relation keeps its sign
                f = rng.uniform(-5, 5)
                set_t, set_f = rng.random() < 0.8, rng.random() < 0.7
                for inst in (a, b):
                    if set_t:
                        inst.setTime(t)
                    inst.setContinuousStates((ctypes.c_double * 2)(*x), 2)
                    if set_f:
                        inst.setReal([vr["F"]], [f])
                reads = [("out", outs), ("der", None), ("z", None), ("states", [vr["x"], vr["v"]]),
                         ("dvr", ders), ("mixed", outs[:1] + [vr["x"]]), ("other", others), ("dd", None)]
                rng.shuffle(reads)
                for what, refs in reads[:rng.randint(1, len(reads))]:
                    b.getReal(real)                                   # a whole evaluation first
                    if what == "dd":
                        if not md.modelExchange.providesDirectionalDerivative:
                            continue
                        # a: the Jacobian it may have kept from an earlier direction at this point;
                        # b: set to the same states first, so its Jacobian is computed afresh
                        b.setContinuousStates((ctypes.c_double * 2)(*x), 2)
                        seed = [rng.gauss(0, 1) for _ in range(3)]
                        knowns = [vr["x"], vr["v"], vr["F"]]
                        got = a.getDirectionalDerivative(ders + outs, knowns, seed)
                        want = b.getDirectionalDerivative(ders + outs, knowns, seed)
                    elif what in ("der", "z"):
                        n = 2 if what == "der" else nz
                        got, want = (ctypes.c_double * n)(), (ctypes.c_double * n)()
                        getattr(a, "getDerivatives" if what == "der" else "getEventIndicators")(got, n)
                        getattr(b, "getDerivatives" if what == "der" else "getEventIndicators")(want, n)
                    elif not refs:
                        continue
                    else:
                        got, want = a.getReal(refs), b.getReal(refs)
                    assert list(got) == list(want), (what, t)
        finally:
            for inst in (a, b):
                inst.terminate()
                inst.freeInstance()


def test_me_simulation_unchanged_by_parts(fmus):
    """A whole ME simulation through FMPy (CVode, events) equals the CS FMU's embedded solver to
    its tolerance and passes the stop: evaluation in parts does not disturb event handling."""
    with wctest.unzipped(fmus["DrivenStop"]) as d:
        me = fmpy.simulate_fmu(d, fmi_type="ModelExchange", stop_time=3.0, output_interval=0.01,
                               relative_tolerance=1e-9, start_values={"F": -3.0}, output=["pos", "acc"])
        cs = fmpy.simulate_fmu(d, fmi_type="CoSimulation", stop_time=3.0, output_interval=0.01,
                               relative_tolerance=1e-9, start_values={"F": -3.0}, output=["pos", "acc"])
    assert min(me["pos"]) < 0                        # the stop is reached (events happened)
    assert max(abs(np.interp(cs["time"], me["time"], me["pos"]) - cs["pos"])) < 1e-5
