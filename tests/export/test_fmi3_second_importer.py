"""Issue 35: a second, independent FMI 3.0 importer runs our FMI 3.0 FMUs.  FMPy is the reference
importer; the second is fmu-manipulation-toolbox's container (its own C runtime, shipped built
in the wheel, loads the inner FMI 3.0 FMU and calls its ``fmi3*`` functions: ``fmi3DoStep`` for
Co-Simulation, its own fixed-step integrator around ``fmi3GetContinuousStateDerivatives`` and
event handling for Model Exchange).  The container's outer interface is FMI 2.0, so FMPy only
drives the container, never FMI 3.0 code.  Other candidates, checked 2026-12-06: libcosimpy
0.0.6 reads no FMI 3.0; ecospy 0.7.2 runs FMI 3.0 Co-Simulation only and needs Debian's
libtbb12; OMSimulator cannot be installed here.

Checked: the same model built once with ``--fmi 2,3``; the FMI 3.0 FMU inside the container
(Co-Simulation, and Model Exchange from a copy without ``<CoSimulation>``) against the FMI 2.0
FMU run by FMPy on the same grid.  Measured (largest difference, share of the signal's range):
VanDerPol CS 1.2e-11, ME (the container's RK4 at 1e-3 s) 1.3e-11; BouncingBall CS 2.6e-15, ME
1.4e-5 (the container locates the impacts itself).
"""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import simulate_fmu

from wearcosim import cli

fmt = pytest.importorskip("fmu_manipulation_toolbox.container",
                          reason="fmu-manipulation-toolbox is not importable (in the test extra)")

# model, outputs, stop, communication step, bound on the CS difference (share of the range),
# bound on the ME difference (the container's RK4 at the step against our embedded solver)
CASES = [("WearCosim.Examples.Basic.VanDerPol", ("x", "y"), 5.0, 1e-3, 1e-9, 1e-5),
         ("WearCosim.Examples.Basic.BouncingBall", ("h", "v"), 2.0, 1e-3, 1e-9, 1e-4)]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("fmi3b")
    for model, *_ in CASES:
        assert cli.main(["build", model, "--fmi", "2,3", "--out", str(out)]) == 0
    return out


def _me_only(src: Path, dest: Path) -> Path:
    """A copy of the FMU whose description offers Model Exchange only (the container takes
    Co-Simulation when both are there)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "modelDescription.xml":
                data = re.sub(rb"<CoSimulation\b.*?/>", b"", data, flags=re.S)
                data = re.sub(rb"<CoSimulation\b.*?</CoSimulation>", b"", data, flags=re.S)
            zout.writestr(item, data)
    return dest


def _container(inner: Path, outputs, step: float, dest: Path) -> Path:
    c = fmt.FMUContainer(dest.stem, inner.parent, fmi_version=2)
    c.get_fmu(inner.name)
    for name in outputs:
        c.add_output(inner.name, name, name)
    c.make_fmu(dest, step_size=step)
    return dest


@pytest.mark.parametrize("model, outputs, stop, step, cs_bound, me_bound", CASES,
                         ids=[c[0].rsplit(".", 1)[1] for c in CASES])
def test_the_toolbox_container_runs_our_fmi3_fmus(built, tmp_path, model, outputs, stop, step, cs_bound, me_bound):
    name = model.rsplit(".", 1)[1]
    fmi2, fmi3 = built / f"{name}.fmu", built / "fmi3" / f"{name}.fmu"
    assert fmi3.is_file()
    ref = simulate_fmu(str(fmi2), fmi_type="CoSimulation", stop_time=stop, output_interval=step, output=list(outputs))
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "cs.fmu").write_bytes(fmi3.read_bytes())
    _me_only(fmi3, inner / "me.fmu")
    for kind, bound in (("cs", cs_bound), ("me", me_bound)):
        cont = _container(inner / f"{kind}.fmu", outputs, step, tmp_path / f"cont_{kind}.fmu")
        start = {"container.solver": 1} if kind == "me" else {}          # RK4 for Model Exchange
        got = simulate_fmu(str(cont), stop_time=stop, output_interval=step, output=list(outputs),
                           start_values=start)
        n = min(len(got), len(ref))
        assert n >= int(stop / step) - 1
        assert np.allclose(got["time"][:n], ref["time"][:n], rtol=0, atol=1e-9)
        for o in outputs:
            span = float(np.ptp(ref[o]))
            dev = float(np.max(np.abs(got[o][:n] - ref[o][:n]))) / span
            assert dev <= bound, (kind, o, dev)
