"""Using the library in one's own models: a model written outside the repository, as a user
writes it from the Modelica specification, built through the command line and simulated.

The rig: a journal (point mass m) dropped from the centre of a fixed, unworn bearing with
radial clearance c under gravity: it falls through the clearance, bounces (Flores contact,
cr = 0.9) and comes to rest on the bearing bottom, where the solid-contact force carries the
weight (Fn = m*g) at the static Flores penetration (m*g/K)^(1/1.5)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import fmpy
import numpy as np
import pytest

from wctest import ROOT, unzipped

RIG = """
model MyRig "Journal dropped into a fixed clearance bearing"
  parameter Real m = 2 "Journal mass [kg]";
  parameter Real g = 9.81 "Gravity [m/s2]";
  WearCosim.Joints.RevoluteClearance joint(nSectors = 12, R_journal = 0.01, c = 1e-4, L = 0.02, mu_d = 0.1,
    wearDepth = zeros(12), rB = {0, 0}, vB = {0, 0}, phiB = 0, wB = 0, rJ = r, vJ = v, wJ = 0);
  Real r[2](each start = 0, each fixed = true) "Journal centre [m]";
  Real v[2](each start = 0, each fixed = true) "Journal velocity [m/s]";
  output Real Fn = joint.Fn "Normal contact force [N]";
  output Real e = sqrt(r[1]^2 + r[2]^2) "Eccentricity [m]";
equation
  der(r) = v;
  m*der(v) = joint.F + {0, -m*g};
  annotation (experiment(StopTime = 0.5, Interval = 1e-3, Tolerance = 1e-8));
end MyRig;
"""


def _cli(*args, cwd, env=None):
    e = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    e.pop("MODELICAPATH", None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "wearcosim.cli", "build", *args], cwd=cwd, env=e,
                          capture_output=True, text=True, timeout=600)


def _check_rig(fmu):
    with unzipped(fmu) as d:
        r = fmpy.simulate_fmu(d, output=["Fn", "e", "joint.K"])
    t, Fn = r["time"], r["Fn"]
    assert np.max(Fn) > 10 * 2 * 9.81                 # impacts
    late = t > 0.4
    assert np.mean(Fn[late]) == pytest.approx(2 * 9.81, rel=1e-3)   # at rest: contact carries the weight
    K = float(r["joint.K"][-1])
    assert r["e"][-1] - 1e-4 == pytest.approx((2 * 9.81 / K) ** (1 / 1.5), rel=1e-2)


def test_user_model_outside_the_repository_builds_through_the_cli(tmp_path):
    src = tmp_path / "rig" / "MyRig.mo"
    src.parent.mkdir()
    src.write_text(textwrap.dedent(RIG))
    p = _cli("--file", str(src), "MyRig", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    _check_rig(tmp_path / "out" / "MyRig.fmu")


def test_library_option_points_at_a_copy_of_the_library(tmp_path):
    """--library PATH: the library is taken from PATH (searched first, like MODELICAPATH)."""
    import shutil
    lib = tmp_path / "libs"
    shutil.copytree(ROOT / "modelica" / "WearCosim", lib / "WearCosim")
    # mark the copy: a different default restitution, visible as a parameter of the FMU
    f = lib / "WearCosim" / "Joints" / "RevoluteClearance.mo"
    f.write_text(f.read_text().replace("min = 0.01, max = 1) = 0.9", "min = 0.01, max = 1) = 0.85"))
    src = tmp_path / "MyRig.mo"
    src.write_text(textwrap.dedent(RIG))
    p = _cli("--library", str(lib), "--file", str(src), "MyRig", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    md = fmpy.read_model_description(str(tmp_path / "out" / "MyRig.fmu"))
    cr = next(v for v in md.modelVariables if v.name == "joint.cr")
    assert float(cr.start) == 0.85


@pytest.mark.parametrize("decl, expect", [
    ("OtherLib.Joints.RevoluteClearance", "unknown class OtherLib.Joints.RevoluteClearance (type of component 'joint'): "
                                          "no library OtherLib"),
    ("WearCosim.Joints.RevoluteClearanse", "no class named WearCosim.Joints.RevoluteClearanse in WearCosim"),
])
def test_a_missing_class_is_named_in_one_line(tmp_path, decl, expect):
    """Not 'unknown name joint.F[1]': the class of the component is what is missing."""
    src = tmp_path / "MyRig.mo"
    src.write_text(textwrap.dedent(RIG).replace("WearCosim.Joints.RevoluteClearance", decl))
    p = _cli("--file", str(src), "MyRig", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert expect in lines[0] and "MyRig.mo:" in lines[0]
    assert "joint.F" not in lines[0]
