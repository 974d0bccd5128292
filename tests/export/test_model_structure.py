"""modelDescription's ModelStructure against an independent oracle: the dependencies of every
output and derivative on the states and inputs (FMI 2.0 3.2.3), checked by perturbing each of
them in the Model Exchange FMU (FMPy's ``FMU2Model``) and seeing what moves.  Every unknown that
moves must list the known that moved it.

The models have nonlinear loops, where the exporter's dependencies once stopped at the loop's
Newton unknowns (an output computed from the loop was declared to depend on nothing):
``fixtures/structure/LoopDeps.mo`` (written for this test: r i + 0.1 sinh(i) = u - x) and the
homotopy fixture ``HomRelaxation``; a loop-free model is checked alongside.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from ctypes import POINTER, c_double
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi2 import FMU2Model

from wctest import unzipped
from wearcosim import cli

HERE = Path(__file__).resolve().parent
MODELS = [("LoopDeps", HERE / "fixtures" / "structure" / "LoopDeps.mo"),
          ("HomRelaxation", HERE / "fixtures" / "homotopy38" / "HomRelaxation.mo"),
          ("TwoMassSpring.SpringMass", HERE.parent / "system" / "fixtures" / "issue34" / "TwoMassSpring.mo")]


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("structure")
    made = {}
    for name, path in MODELS:
        assert cli.main(["build", "--file", str(path), name, "--out", str(out)]) == 0
        made[name] = out / (name.split(".")[-1] + ".fmu")
    return made


def declared(fmu: Path) -> dict:
    """{unknown's value reference: set of the value references it is declared to depend on}"""
    with zipfile.ZipFile(fmu) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    vrs = [int(sv.get("valueReference")) for sv in root.iter("ScalarVariable")]
    out = {}
    for group in ("Outputs", "Derivatives"):
        for u in root.iter(group):
            for el in u.iter("Unknown"):
                deps = el.get("dependencies")
                # no attribute: depends on all knowns (FMI 2.0)
                out[vrs[int(el.get("index")) - 1]] = None if deps is None else \
                    {vrs[int(i) - 1] for i in deps.split()}
    return out


@pytest.mark.parametrize("name", [m[0] for m in MODELS])
def test_declared_dependencies_cover_what_moves(fmus, name):
    fmu = fmus[name]
    md = read_model_description(str(fmu))
    dec = declared(fmu)
    states = [d.variable.derivative.valueReference for d in md.derivatives]
    der_vrs = [d.variable.valueReference for d in md.derivatives]
    inputs = [v.valueReference for v in md.modelVariables if v.causality == "input" and v.type == "Real"]
    outputs = [v.valueReference for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
    with unzipped(fmu) as folder:
        m = FMU2Model(guid=md.guid, unzipDirectory=folder, modelIdentifier=md.modelExchange.modelIdentifier,
                      instanceName="structure")
        m.instantiate()
        m.setupExperiment(startTime=0.0)
        m.enterInitializationMode()
        m.exitInitializationMode()
        while True:
            info = m.newDiscreteStates()
            if not info[0]:
                break
        m.enterContinuousTimeMode()
        nx = len(md.derivatives)
        x0 = np.zeros(nx)
        if nx:
            m.getContinuousStates(x0.ctypes.data_as(POINTER(c_double)), nx)
        u0 = np.array(m.getReal(inputs)) if inputs else np.zeros(0)
        unknowns = outputs + der_vrs

        def values(x, u):
            if nx:
                x = np.ascontiguousarray(x)
                m.setContinuousStates(x.ctypes.data_as(POINTER(c_double)), nx)
            if inputs:
                m.setReal(inputs, list(u))
            return np.array(m.getReal(unknowns))
        base = values(x0, u0)
        checked = 0
        for j, known in enumerate(states + inputs):
            x, u = x0.copy(), u0.copy()
            if j < nx:
                x[j] += 1e-6 * max(1.0, abs(x[j]))
            else:
                u[j - nx] += 1e-6 * max(1.0, abs(u[j - nx]))
            moved = np.abs(values(x, u) - base) > 1e-12 * np.maximum(1.0, np.abs(base))
            for k, vr in enumerate(unknowns):
                if moved[k]:
                    checked += 1
                    deps = dec.get(vr)
                    assert deps is None or known in deps, \
                        f"{name}: {md.modelVariables[vr].name} moves with {md.modelVariables[known].name} " \
                        f"but declares only {sorted(md.modelVariables[d].name for d in deps)}"
        values(x0, u0)
        m.terminate()
        m.freeInstance()
    assert checked > 0
