"""Issue 34, acceptance points 1 and 2: the implicit coupling step (``algorithm="ijcsa"``,
:mod:`wearcosim.system.ijcsa`) and the refinement check (:mod:`wearcosim.system.refine`).

System: ``fixtures/issue34/TwoMassSpring.mo`` (mass 1 carrying a stiff spring, k = 1e4 N/m,
whose other end is mass 2 in another FMU), built by the command line.  Closed form (equal
masses, mass 2 released 0.1 m away, at rest): x2(t) = 0.05 + 0.05 cos(w t), w = sqrt(2k/m).

Measured (0.1 s, 2.25 periods, error max |x2 - closed form| over the range 0.1 m):
communication step 1e-3 s, Gauss-Seidel with inputs held 0.39; ijcsa 1.9e-3 (218 accepted
steps); ijcsa with the refinement check 1.4e-4, its estimate 2e-3.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from wearcosim import cli
from wearcosim.system.cosim import run_cosim
from wearcosim.system.refine import RefinementError
from wearcosim.system.ssp import open_system

FIX = Path(__file__).resolve().parent / "fixtures" / "issue34"
W = np.sqrt(2 * 1e4 / 1.0)


@pytest.fixture(scope="module")
def ssd(tmp_path_factory):
    out = tmp_path_factory.mktemp("ijcsa")
    rc = cli.main(["build", "--file", str(FIX / "TwoMassSpring.mo"), "TwoMassSpring.SpringMass",
                   "TwoMassSpring.Mass", "--out", str(out)])
    assert rc == 0
    shutil.copy(FIX / "TwoMassSpring.ssd", out / "TwoMassSpring.ssd")
    return out / "TwoMassSpring.ssd"


def error(r) -> float:
    return float(np.max(np.abs(r["b.x2"] - (0.05 + 0.05 * np.cos(W * r.time)))) / 0.1)


def test_implicit_step_is_right_where_the_explicit_one_is_not(ssd):
    with open_system(ssd) as system:
        gs = run_cosim(system, 0.1, 1e-3, algorithm="gauss-seidel", tolerance=1e-10, force=True)
        ij = run_cosim(system, 0.1, 1e-3, algorithm="ijcsa", tolerance=1e-10)
    assert error(gs) > 0.1
    assert error(ij) < 5e-3
    assert ij.algorithm == "ijcsa" and ij.settings["step_control"] is True and ij.settings["rollback"] is True
    s = ij.stats
    assert s["ijcsa_evaluations"] >= s["accepted_steps"] > 100
    assert s["ijcsa_jacobians"] >= 1 and s["ijcsa_iterations"] >= s["accepted_steps"]
    assert s["fmi_calls_by_function"]["fmi2SetFMUstate"] > 0


def test_the_evaluation_in_c_and_in_python_agree(ssd, monkeypatch):
    with open_system(ssd) as system:
        c = run_cosim(system, 0.02, 1e-3, algorithm="ijcsa", tolerance=1e-10)
        monkeypatch.setenv("WEARCOSIM_NO_CLOOP", "1")
        p = run_cosim(system, 0.02, 1e-3, algorithm="ijcsa", tolerance=1e-10)
    assert np.array_equal(c.steps, p.steps)
    for k in c.values:
        np.testing.assert_allclose(c[k], p[k], rtol=0, atol=1e-12 * max(1.0, float(np.max(np.abs(p[k])))))


def test_a_failing_component_is_reported_alike_from_c_and_python(ssd, monkeypatch):
    """A component whose step fails inside the Newton iteration in C (``wc_advance``): the
    step is repeated by the Python iteration, which raises the FMI error with the component's
    log -- the same error as without the C path."""
    from wearcosim.fmi.runner import FMIError
    rc = cli.main(["build", "--file", str(FIX / "TwoMassSpring.mo"), "TwoMassSpring.MassWithStop",
                   "--out", str(ssd.parent)])
    assert rc == 0
    stop = ssd.parent / "stop.ssd"
    stop.write_text(ssd.read_text().replace('source="Mass.fmu"', 'source="MassWithStop.fmu"'))
    msgs = []
    for env in ("", "1"):
        monkeypatch.setenv("WEARCOSIM_NO_CLOOP", env)
        with open_system(stop) as system:
            with pytest.raises(FMIError) as ei:
                run_cosim(system, 0.05, 1e-3, algorithm="ijcsa", tolerance=1e-10)
        msgs.append(str(ei.value))
    assert "mass 2 passed its stop" in msgs[0]
    assert msgs[0] == msgs[1]


def test_ijcsa_needs_rollback(ssd):
    with open_system(ssd) as system:
        with pytest.raises(ValueError, match="ijcsa' needs rollback"):
            run_cosim(system, 0.01, 1e-3, algorithm="ijcsa", rollback=False)


def test_no_convergence_at_the_smallest_step_names_the_connection(ssd, monkeypatch):
    from wearcosim.system import ijcsa
    from wearcosim.system.cosim import CouplingError
    monkeypatch.setattr(ijcsa, "MAX_ITER", 1)
    with open_system(ssd) as system:
        with pytest.raises(CouplingError, match=r"co-simulation of twoMassSpring: connection [ab]\.\w+ -> [ab]\.\w+: "
                                                r"the implicit coupling step at t=0 did not converge at the smallest "
                                                r"step 0\.001 s") as ei:
            run_cosim(system, 0.01, 1e-3, algorithm="ijcsa", rtol_coupling=1e-14, h_min=1e-3, tolerance=1e-10)
    assert ei.value.connection and ei.value.time == 0.0


def test_refinement_estimate_bounds_the_error_of_the_result(ssd):
    with open_system(ssd) as system:
        r = run_cosim(system, 0.1, 1e-3, algorithm="ijcsa", tolerance=1e-10, check="refine")
    rows = {x["connection"]: x for x in r.stats["estimate"] if x["check"] == "refinement"}
    assert {"a.F2 -> b.F2", "b.x2 -> a.x2", "b.v2 -> a.v2"} <= set(rows)     # every connection
    assert {"a.x1 (recorded)", "a.v1 (recorded)"} <= set(rows)                # every other recorded signal
    assert all(x["verdict"] == "ok" for x in rows.values())
    assert error(r) <= rows["b.x2 -> a.x2"]["estimate"]          # conservative where the runs converge
    assert r.stats["refinement"]["worst"]["estimate"] < 0.01
    assert r.settings["check"] == "refine" and "coupling tolerance" in r.settings["refinement"]
    assert len(r.time) == 101 and r.time[-1] == 0.1                # the result on the run's grid


def test_refinement_stops_a_wrong_explicit_run_naming_the_connection(ssd):
    with open_system(ssd) as system:
        with pytest.raises(RefinementError, match=r"co-simulation of twoMassSpring: connection .* error estimate "
                                                  r".* % of the value's range .* communication step 0\.001 -> "
                                                  r"0\.0005 s") as ei:
            run_cosim(system, 0.1, 1e-3, algorithm="gauss-seidel", tolerance=1e-10, check="refine",
                      estimate_tolerance=10.0)
        assert ei.value.row["estimate"] > 0.01
        r = run_cosim(system, 0.1, 1e-3, algorithm="gauss-seidel", tolerance=1e-10, check="refine", force=True,
                      estimate_tolerance=10.0)
    assert r.stats["flagged"]["check"] == "refinement"


def test_cli_default_is_the_implicit_step_with_the_refinement_check(ssd, tmp_path, capsys):
    out = tmp_path / "o"
    rc = cli.main(["system", "run", str(ssd), "--master", "cosim", "--step", "1e-3", "--stop", "0.1",
                   "--tolerance", "1e-10", "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert "refinement: largest error estimate" in cap.out and "all ok" in cap.out
    d = np.genfromtxt(out / "TwoMassSpring.csv", delimiter=",", names=True)
    assert np.max(np.abs(d["bx2"] - (0.05 + 0.05 * np.cos(W * d["time"])))) / 0.1 < 0.01
    assert "refinement" in (out / "TwoMassSpring.estimate.csv").read_text()


@pytest.mark.parametrize("options, message", [
    (["--algorithm", "ijcsa", "--extrapolation", "1"], "--extrapolation is an option of --algorithm gauss-seidel"),
    (["--check-tolerance", "0"], "--check-tolerance must be a finite number > 0"),
    (["--master", "strong", "--check", "refine"], "--check is an option of --master cosim"),
    (["--master", "strong", "--algorithm", "ijcsa"], "--algorithm is an option of --master cosim"),
])
def test_cli_bad_options_one_line(ssd, tmp_path, capsys, options, message):
    opts = options if "--master" in options else ["--master", "cosim", *options]
    rc = cli.main(["system", "run", str(ssd), "--step", "1e-3", "--out", str(tmp_path / "o"), *opts])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(err) == 1 and message in err[0], err
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------------------ the contact systems (slow)

def _against_container(system, stop, step, signals, **kw):
    import warnings
    from wearcosim.system.run import simulate
    _, ref, _ = simulate(system, stop, step, "strong", tolerance=1e-7, record=list(signals), log=lambda *a: None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, got, info = simulate(system, stop, step, "cosim", tolerance=1e-7, record=list(signals),
                                algorithm="ijcsa", **kw)
    dev = {k: float(np.max(np.abs(got[k] - ref[k])) / np.ptp(ref[k])) for k in signals}
    return dev, info["stats"]


@pytest.mark.slow
def test_hybrid_dry_32pi_within_one_percent_of_the_container():
    """The seed mechanism's dry D3 joint as two FMUs, 0.125 s (19 impacts, then sliding
    contact), communication step 1e-4 s: measured 0.6 % of Fn's range, 1.3e-4 of the orbit's."""
    from wearcosim.system import examples
    system = examples.ensure_fmus(examples.system_of("hybrid_dry_32pi"), log=lambda *a: None)
    dev, stats = _against_container(system, 0.125, 1e-4, ("body.ex", "body.ey", "joint.Fn"), rtol_coupling=1e-5)
    assert max(dev.values()) < 0.01, dev
    assert stats["event_bisections"] > 0


@pytest.mark.slow
def test_a_users_pendulum_on_the_joint_within_one_percent_of_the_container(tmp_path):
    """A pendulum written from a dynamics textbook (fixtures/issue34/PendulumOnPin.mo) on the
    library's dry joint FMU, 0.2 s (20 impacts, then contact): measured 0.56 % of Fn's range."""
    from wearcosim.system import examples
    from wearcosim.system.examples import _JOINT_LOADS, _JOINT_PORTS, _same
    from wearcosim.system.model import Component, System
    assert cli.main(["build", "--file", str(FIX / "PendulumOnPin.mo"), "PendulumOnPin", "--out", str(tmp_path)]) == 0
    joint = examples.ensure_fmus(examples.system_of("hybrid_dry_32pi"), log=lambda *a: None).components[1].path
    system = System(name="pendulum_on_pin", start_time=0.0, stop_time=0.2,
                    components=[Component("body", "PendulumOnPin.fmu", path=tmp_path / "PendulumOnPin.fmu"),
                                Component("joint", "RevoluteClearanceDry.fmu", path=joint,
                                          parameters={"c": 0.1e-3, "mu_d": 0.1})],
                    connections=_same("body", "joint", _JOINT_PORTS) + _same("joint", "body", _JOINT_LOADS))
    dev, _ = _against_container(system, 0.2, 1e-4, ("body.rJ[1]", "body.rJ[2]", "joint.Fn"), rtol_coupling=1e-5)
    assert max(dev.values()) < 0.01, dev
