"""Issue 34, acceptance point 2: the error estimate of every co-simulation (energy residuals at
the power bonds of the connections, :mod:`wearcosim.system.estimate`) and the options of
``wearcosim system run --master cosim``.

System (``fixtures/issue34/TwoMassSpring.mo``, built with ``wearcosim build --file``): mass 1
carrying a stiff spring (k = 1e4 N/m) whose other end is mass 2 in another FMU; a's ``F2``
[N] -> b, b's ``x2`` [m] and ``v2`` [m/s] -> a.  One power bond (a.F2 with b.v2), one
connection without partner (the position).  Closed form: equal masses 1 kg, x1(0) = 0,
x2(0) = 0.1 m, at rest: x2(t) = 0.05 + 0.05 cos(w t), w = sqrt(2k) = 141.4 rad/s.

Measured (0.1 s, 2.25 periods, Gauss-Seidel, inputs held; error: max |x2 - closed form| over
the range 0.1 m; estimate: the bond's sum |dE| / energy through it):

    step    error    estimate
    1e-3    0.39     0.15
    1e-4    0.036    0.017
    1e-5    0.0035   0.0017
    2e-6    0.0007   0.00034

so the estimate is first order like the error, about half of it on this system.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from wearcosim import cli
from wearcosim.system import estimate
from wearcosim.system.cosim import EstimateError, run_cosim
from wearcosim.system.ssp import open_system

FIX = Path(__file__).resolve().parent / "fixtures" / "issue34"
K, M = 1e4, 1.0
W = np.sqrt(2 * K / M)


@pytest.fixture(scope="module")
def ssd(tmp_path_factory):
    """The two FMUs, built by the command line, beside a copy of the .ssd."""
    out = tmp_path_factory.mktemp("issue34")
    rc = cli.main(["build", "--file", str(FIX / "TwoMassSpring.mo"), "TwoMassSpring.SpringMass",
                   "TwoMassSpring.Mass", "--out", str(out)])
    assert rc == 0
    shutil.copy(FIX / "TwoMassSpring.ssd", out / "TwoMassSpring.ssd")
    return out / "TwoMassSpring.ssd"


def closed_form(t):
    return 0.05 + 0.05 * np.cos(W * t)


def run(ssd, tmp_path, capsys, *options, step="1e-3", stop="0.05"):
    """The command line; the explicit master with the energy check only unless the options
    name an algorithm or a check (this file tests the energy estimate; the implicit algorithm
    and the refinement check, the defaults, are tests/system/test_ijcsa.py's)."""
    out = tmp_path / "out"
    if "--algorithm" not in options:
        options = ("--algorithm", "gauss-seidel") + options
    if "--check" not in options:
        options = ("--check", "energy") + options
    rc = cli.main(["system", "run", str(ssd), "--master", "cosim", "--step", step, "--stop", stop,
                   "--tolerance", "1e-10", "--out", str(out), *options])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err, out


# ------------------------------------------------------------------------------ the pairing rule

def test_pairing_rule_by_units_indices_and_tags():
    units = {("mesh", "fA[1]"): "N", ("mesh", "tA[1]"): "N.m", ("drive", "vA[1]"): "m/s",
             ("drive", "vA[2]"): "m/s", ("drive", "wA[1]"): "rad/s", ("drive", "vB[1]"): "m/s",
             ("joint", "F[1]"): "N", ("joint", "tauJ"): "N.m", ("body", "vJ[1]"): "m/s",
             ("body", "vB[1]"): "m/s", ("body", "wJ"): "rad/s", ("body", "wB"): "rad/s",
             ("body", "rJ[1]"): "m", ("rotor", "Omega"): "rad/s"}
    dst = {("drive", "vA[1]"): ("mesh", "vA[1]"), ("drive", "vA[2]"): ("mesh", "vA[2]"),
           ("drive", "wA[1]"): ("mesh", "wA[1]"), ("drive", "vB[1]"): ("mesh", "vB[1]"),
           ("body", "vJ[1]"): ("joint", "vJ[1]"), ("body", "vB[1]"): ("joint", "vB[1]"),
           ("body", "wJ"): ("joint", "wJ"), ("body", "wB"): ("joint", "wB"),
           ("body", "rJ[1]"): ("joint", "rJ[1]"), ("rotor", "Omega"): ("stator", "Omega")}
    flows = [(s, d, "Real") for s, d in dst.items()]
    flows += [(("mesh", "fA[1]"), ("drive", "fA[1]"), "Real"), (("mesh", "tA[1]"), ("drive", "tA[1]"), "Real"),
              (("joint", "F[1]"), ("body", "F[1]"), "Real"), (("joint", "tauJ"), ("body", "tauJ"), "Real")]

    def unit(c, v):
        return units.get((c, v)) or units[next(s for s, d in dst.items() if d == (c, v))]
    found, rest = estimate.bonds(flows, unit)
    pairs = {(b.e_src[1], b.f_dst[1]) for b in found}
    assert pairs == {("fA[1]", "vA[1]"), ("tA[1]", "wA[1]"), ("F[1]", "vJ[1]"), ("F[1]", "vB[1]"),
                     ("tauJ", "wJ")}
    # joint.F[1] pairs with the mesh's vB[1]? no: another component pair
    left = {d[1] for _, d in rest}
    assert {"vA[2]", "vB[1]", "wB", "rJ[1]", "Omega"} <= left
    assert estimate.split_name("tauJ") == ("J", "")
    assert estimate.split_name("F2") == ("", "[2]")
    assert estimate.is_power("N.m", "rad/s") == 1.0 and estimate.is_power("N.m", "m/s") is None
    assert estimate.effort_kind("kN") == "force" and estimate.effort_kind("m/s") is None


# ------------------------------------------------------------------------------ the Python API

def test_the_estimate_is_small_on_a_fine_step_and_the_result_right(ssd):
    with open_system(ssd) as system:
        r = run_cosim(system, 0.05, 1e-5, tolerance=1e-10, estimate_tolerance=5e-3)
    err = np.max(np.abs(r["b.x2"] - closed_form(r.time))) / 0.1
    assert err < 0.01
    rows = {x["connection"]: x for x in r.stats["estimate"]}
    bond = rows["a.F2 -> b.F2"]
    assert bond["partner"] == "b.v2 -> a.v2" and bond["verdict"] == "ok"
    assert 0 < bond["estimate"] < 5e-3 and bond["energy_J"] > 0
    assert rows["b.x2 -> a.x2"]["check"].startswith("defect")
    assert r.stats["flagged"] is None


def test_a_coarse_step_raises_naming_the_connection_and_the_time(ssd):
    with open_system(ssd) as system:
        with pytest.raises(EstimateError, match=r"co-simulation of twoMassSpring: connection a\.F2 -> b\.F2: "
                                                r"energy residual .* exceeds tolerance 0\.001 at t=") as ei:
            run_cosim(system, 0.05, 1e-3, tolerance=1e-10, estimate_tolerance=1e-3)
        assert ei.value.violation.value > 1e-3
        # without a tolerance the estimate is reported, not raised
        r = run_cosim(system, 0.05, 1e-3, tolerance=1e-10)
    assert r.stats["flagged"]["connection"] == "a.F2 -> b.F2"
    assert np.max(np.abs(r["b.x2"] - closed_form(r.time))) / 0.1 > 0.05     # and it is wrong


# ------------------------------------------------------------------------------ the command line

def test_cli_coarse_step_one_error_line_nothing_written(ssd, tmp_path, capsys):
    rc, out, err, folder = run(ssd, tmp_path, capsys, step="1e-3")
    assert rc == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: co-simulation of twoMassSpring: connection a.F2 -> b.F2: energy residual ")
    assert "exceeds tolerance 0.0002 at t=" in lines[0] and "--force to finish flagged" in lines[0]
    assert not folder.exists() or not any(folder.iterdir())


def test_cli_fine_step_passes_with_a_small_estimate(ssd, tmp_path, capsys):
    rc, out, err, folder = run(ssd, tmp_path, capsys, "--energy-tolerance", "5e-3", step="1e-5")
    assert rc == 0, err
    assert err == ""
    assert "all ok" in out
    d = np.genfromtxt(folder / "TwoMassSpring.csv", delimiter=",", names=True)
    assert np.max(np.abs(d["bx2"] - closed_form(d["time"]))) / 0.1 < 0.01
    est = (folder / "TwoMassSpring.estimate.csv").read_text().splitlines()
    assert est[0].startswith("connection,partner,check,estimate")
    row = next(x for x in est if x.startswith("a.F2 -> b.F2"))
    assert ",ok," in row and float(row.split(",")[3]) < 5e-3


def test_cli_force_finishes_flagged(ssd, tmp_path, capsys):
    rc, out, err, folder = run(ssd, tmp_path, capsys, "--force", step="1e-3")
    assert rc == 0
    assert "FLAGGED" in out
    assert err.strip().startswith("warning: results FLAGGED (--force): connection a.F2 -> b.F2")
    assert (folder / "TwoMassSpring.csv").exists()
    assert ",flagged," in (folder / "TwoMassSpring.estimate.csv").read_text()


def test_cli_options_reach_the_master(ssd, tmp_path, capsys, monkeypatch):
    from wearcosim.system import cosim
    seen = {}
    real = cosim.run_cosim

    def spy(*a, **kw):
        seen.update(kw)
        return real(*a, **kw)
    monkeypatch.setattr(cosim, "run_cosim", spy)
    rc, out, err, _ = run(ssd, tmp_path, capsys, "--algorithm", "jacobi", "--step-control", "--extrapolation", "1",
                          "--coupling-tolerance", "1e-4", "--energy-tolerance", "0.5", step="1e-3")
    assert rc == 0, err
    assert seen["algorithm"] == "jacobi" and seen["step_control"] is True and seen["rollback"] is True
    assert seen["extrapolation"] == 1 and seen["rtol_coupling"] == 1e-4 and seen["estimate_tolerance"] == 0.5
    seen.clear()
    rc, out, err, _ = run(ssd, tmp_path, capsys, "--rollback", "--force", step="1e-3")
    assert rc == 0
    assert seen["rollback"] is True and seen["step_control"] is False and seen["force"] is True


def test_step_control_from_the_cli_makes_the_coarse_run_pass(ssd, tmp_path, capsys):
    """--step-control with rollback, reached from the command line: the step the estimate
    refuses fixed (1e-3 s) becomes right under control."""
    rc, out, err, folder = run(ssd, tmp_path, capsys, "--step-control", "--extrapolation", "1",
                               "--coupling-tolerance", "1e-4", "--energy-tolerance", "5e-3", step="1e-3")
    assert rc == 0, err
    d = np.genfromtxt(folder / "TwoMassSpring.csv", delimiter=",", names=True)
    assert np.max(np.abs(d["bx2"] - closed_form(d["time"]))) / 0.1 < 0.01


@pytest.mark.parametrize("options, message", [
    (["--master", "strong", "--step-control"], "--step-control is an option of --master cosim"),
    (["--master", "strong", "--force"], "--force is an option of --master cosim"),
    (["--master", "cosim", "--energy-tolerance", "0"], "--energy-tolerance must be a finite number > 0"),
    (["--master", "cosim", "--coupling-tolerance", "nan"], "--coupling-tolerance must be a finite number > 0"),
])
def test_cli_bad_options_one_line(ssd, tmp_path, capsys, options, message):
    rc = cli.main(["system", "run", str(ssd), "--step", "1e-3", "--out", str(tmp_path / "o"), *options])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(err) == 1 and message in err[0]
    assert not (tmp_path / "o").exists()


def test_help_names_the_units(capsys):
    with pytest.raises(SystemExit):
        cli.main(["system", "run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for opt in ("--step-control", "--rollback", "--energy-tolerance", "--force", "--coupling-tolerance"):
        assert opt in text
    assert "force [N] x velocity [m/s]" in text and "torque [N.m] x angular velocity [rad/s]" in text
