"""fmi2GetDirectionalDerivative from the generated sparse Jacobian d(dx, outputs)/d(x, u): on
library examples and components of every family, random seed directions over all states and
inputs give the central finite difference of the derivatives and outputs (ME, continuous-time
mode, at points near the initial one; the best of the steps 1e-4, 1e-5, 1e-6 times the seed)
to 1e-6 of the result's magnitude; unknowns/knowns that are not
derivatives/outputs resp. states/inputs are refused with the variable's name; models with
nonlinear loops declare providesDirectionalDerivative="false" and refuse the call."""
from __future__ import annotations

import ctypes
import random
import textwrap

import fmpy
import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Model

import wctest

from wearcosim.export import frontend
from wearcosim.export.build import DEFAULT_PACKAGE

#: every library example, and components of every family
MODELS = frontend.list_models(DEFAULT_PACKAGE, "WearCosim.Examples") + [
          "WearCosim.Components.Joints.RevoluteClearanceDry", "WearCosim.Components.Joints.RevoluteClearanceLubricated",
          "WearCosim.Components.Mechanisms.HybridMechanismBody", "WearCosim.Components.Gears.GearMeshElement",
          "WearCosim.Components.Rotor.RubStator"]


class _ME:
    """One ME instance in continuous-time mode at its initial point."""

    def __init__(self, unzipdir):
        self.md = md = fmpy.read_model_description(unzipdir)
        self.fmu = FMU2Model(guid=md.guid, unzipDirectory=unzipdir, modelIdentifier=md.modelExchange.modelIdentifier,
                             instanceName="dd")
        self.fmu.instantiate()
        self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()
        self.fmu.exitInitializationMode()
        while self.fmu.newDiscreteStates()[0]:
            pass
        self.fmu.enterContinuousTimeMode()
        self.states = [d.variable.derivative.valueReference for d in md.derivatives]
        self.ders = [d.variable.valueReference for d in md.derivatives]
        self.inputs = [v.valueReference for v in md.modelVariables if v.causality == "input" and v.type == "Real"]
        self.outputs = [v.valueReference for v in md.modelVariables if v.causality == "output" and v.type == "Real"]

    def at(self, known_values):
        n = len(self.states)
        if n:
            self.fmu.setContinuousStates((ctypes.c_double * n)(*known_values[:n]), n)
        if self.inputs:
            self.fmu.setReal(self.inputs, list(known_values[n:]))
        return np.array(self.fmu.getReal(self.ders + self.outputs))

    def close(self):
        self.fmu.terminate()
        self.fmu.freeInstance()


@pytest.mark.parametrize("model", MODELS, ids=[m.rsplit(".", 1)[-1] for m in MODELS])
def test_directional_derivatives_match_central_differences(build_example, model):
    rng = random.Random(7)
    with wctest.unzipped(build_example(model)) as d:
        m = _ME(d)
        try:
            assert m.md.modelExchange.providesDirectionalDerivative
            knowns = m.states + m.inputs
            # a generic point near the initial one (the joints start centred, where the angle of
            # the eccentricity atan2(ey, ex) has no derivative)
            x0 = np.array(m.fmu.getReal(knowns))
            x0 = x0 + np.array([0.05 * rng.gauss(0, 1) * max(abs(v), 1e-4) for v in x0])
            m.at(x0)
            unknowns = m.ders + m.outputs
            for _ in range(3):
                seed = np.array([rng.gauss(0, 1) * max(abs(v), 1e-3) for v in x0])
                dd = np.array(m.fmu.getDirectionalDerivative(unknowns, knowns, list(seed)))
                scale = max(float(np.max(np.abs(dd))), 1e-300)
                # central differences on a ladder of steps: truncation error falls with h,
                # round-off (cancellation inside the model: SliderCrankIdeal's kinematic loop)
                # grows as 1/h; the best rung is the difference's accuracy
                errs = {}
                for h in (1e-4, 1e-5, 1e-6):
                    fd = (m.at(x0 + h * seed) - m.at(x0 - h * seed)) / (2 * h)
                    errs[h] = float(np.max(np.abs(dd - fd))) / scale
                m.at(x0)
                err = min(errs.values())
                assert err <= 1e-6, f"{model}: directional derivative vs central differences {errs}"
        finally:
            m.close()


def test_bad_references_refused_with_name(build_example):
    with wctest.unzipped(build_example("WearCosim.Examples.Basic.BouncingBall")) as d:
        m = _ME(d)
        try:
            vr = {v.name: v.valueReference for v in m.md.modelVariables}
            with pytest.raises(FMICallException):
                m.fmu.getDirectionalDerivative([m.ders[0]], [vr["e"]], [1.0])        # a parameter as known
            with pytest.raises(FMICallException):
                m.fmu.getDirectionalDerivative([vr["e"]], [m.states[0]], [1.0])       # a parameter as unknown
            # a state that is an output: its own seed
            assert m.fmu.getDirectionalDerivative([m.states[0]], [m.states[0]], [2.5]) == [2.5]
        finally:
            m.close()


def test_nonlinear_loop_model_declares_none(tmp_path):
    from wearcosim.export.build import build_fmu
    src = tmp_path / "Loop.mo"
    src.write_text(textwrap.dedent("""
        model Loop
          Real x(start = 1, fixed = true);
          Real y(start = 1);
        equation
          y + 0.1*y^3 = x;
          der(x) = -y;
        end Loop;
        """))
    fmu = build_fmu("Loop", tmp_path, tmp_path, path=src).fmu
    with wctest.unzipped(fmu) as d:
        m = _ME(d)
        try:
            assert not m.md.modelExchange.providesDirectionalDerivative
            with pytest.raises(FMICallException):
                m.fmu.getDirectionalDerivative(m.ders, m.states, [1.0])
        finally:
            m.close()
