"""Issue 32, the events' and initialisation's part: edge() and change() of variables assigned
by other when-clauses, refusals of invalid when-clauses at their lines, parameters with
fixed=false, and a package built with ``--package .``.

The models were written from the Modelica specification for these tests (MLS 3.7.5: edge(b) =
b and not pre(b), change(v) = v <> pre(v); 8.3.5/8.6: the when-conditions and when-equations of
an event instant are solved together, pre() fixed; 8.3.6: reinit() of a variable in one
when-equation only; 8.6: a parameter with fixed=false is determined by the initial equations),
each checked against its closed form (fixtures in tests/export/fixtures/events32/, each built
from a folder of its own: rumoca reads every .mo file beside the model's).  Every one failed on
the main of 2026-12-05 (ae847cc): the counters of edge()/change() stayed 0, the two refusals
had no line or the wrong advice, a run-time subscript outside 1..3 read 0, the parameters were
"1 initial equations but only 0 states with fixed=false" (or, without an initial equation,
silently 0), and ``--package .`` did not find Dots32.Decay32.
"""
from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wctest import FIXTURES, fixture_path, unzipped
from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError

EVENTS32 = FIXTURES / "events32"


def _alone(name, tmp) -> Path:
    """The fixture ``name`` copied into a folder of its own (rumoca reads every .mo file in the
    model file's folder)."""
    d = Path(tmp) / f"src-{name}"
    d.mkdir(parents=True, exist_ok=True)
    f = d / f"{name}.mo"
    shutil.copyfile(fixture_path(name), f)
    return f


def _build(name, tmp):
    tmp = Path(tmp)
    return build_fmu(name, path=_alone(name, tmp), out_dir=tmp / f"out-{name}")


def _run(fmu, names, fmi_type, stop=1.0, interval=0.01, **kw):
    from fmpy import simulate_fmu
    with unzipped(fmu) as d:
        return simulate_fmu(d, stop_time=stop, output=names, fmi_type=fmi_type, output_interval=interval,
                            relative_tolerance=1e-10, **kw)


@pytest.fixture(scope="module")
def edge(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("issue32-edge")
    return {m: _build(m, tmp).fmu for m in ("EdgeOther", "EdgeChain")}


def _at(r, name, t):
    """The value of ``name`` at the last output point before or at ``t``."""
    return float(r[name][r["time"] <= t + 1e-12][-1])


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_edge_and_change_of_a_boolean_assigned_by_another_when_clause(edge, fmi_type):
    """b is true from 0.3 and false from 0.6: one rising edge, two changes (before: 0 and 0)."""
    r = _run(edge["EdgeOther"], ["n1", "n2"], fmi_type)
    assert (_at(r, "n1", 1.0), _at(r, "n2", 1.0)) == (1, 2)
    assert (_at(r, "n1", 0.29), _at(r, "n2", 0.29)) == (0, 0)
    assert (_at(r, "n1", 0.5), _at(r, "n2", 0.5)) == (1, 1)


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_change_of_an_integer_and_chains_through_assigned_variables(edge, fmi_type):
    """k counts x passing 0.2, 0.45, 0.8; change(k) fires at each; k == 2 sets c, edge(c) sets
    d, change(d) counts: a chain of three conditions at the instant t = 0.45."""
    names = ["k", "nk", "nc", "nd", "big", "r"]
    r = _run(edge["EdgeChain"], names, fmi_type)
    assert {n: _at(r, n, 1.0) for n in names} == {"k": 3, "nk": 3, "nc": 10, "nd": 1, "big": 1, "r": 3}
    assert {n: _at(r, n, 0.4) for n in names} == {"k": 1, "nk": 1, "nc": 0, "nd": 0, "big": 0, "r": 1}
    assert {n: _at(r, n, 0.6) for n in names} == {"k": 2, "nk": 2, "nc": 10, "nd": 1, "big": 0, "r": 2}


def _error(model, tmp_path) -> ExportError:
    out = tmp_path / "out"
    with pytest.raises(ExportError) as ei:
        build_fmu(model, path=_alone(model, tmp_path), out_dir=out)
    assert not out.exists() or list(out.iterdir()) == []
    e = ei.value
    assert "\n" not in str(e)
    assert e.loc is not None and e.loc.line and e.loc.line > 0, str(e)
    assert Path(e.loc.file).name == f"{model}.mo", str(e)
    return e


def test_reinit_of_one_state_in_two_when_clauses_names_both_lines(tmp_path):
    e = _error("ReinitTwice", tmp_path)
    assert (e.loc.line, e.loc.col) == (9, 5), str(e)
    assert "ReinitTwice.mo:6" in e.message and "ReinitTwice.mo:9" in e.message and "reinit(v" in e.message


def test_reinit_in_two_branches_of_one_when_chain_is_allowed(tmp_path):
    """MLS 8.3.6 allows it: v = 2 at 0.5, 3 at 0.7, then decays."""
    r = _build("ReinitElsewhen", tmp_path)
    for fmi_type in ("CoSimulation", "ModelExchange"):
        v = _run(r.fmu, ["v"], fmi_type, interval=0.05)["v"][-1]
        assert v == pytest.approx(3 * math.exp(-0.3), rel=1e-5)


def test_when_clause_assigning_a_state_says_use_reinit(tmp_path):
    e = _error("WhenAssignsState", tmp_path)
    assert (e.loc.line, e.loc.col) == (8, 5), str(e)
    assert "state 'v'" in e.message and "reinit(v, ...)" in e.message


def test_reinit_in_two_when_clauses_is_refused_by_the_dae_pass_too(tmp_path):
    """The check does not rely on rumoca's refusal: the same model as the IR of two clauses."""
    from wearcosim.export import dae, frontend, ir
    m = frontend.load(_alone("ReinitElsewhen", tmp_path), "ReinitElsewhen")
    (w,) = m.whens
    m.whens = [ir.WhenClause([b], w.loc) for b in w.branches]
    with pytest.raises(ExportError) as ei:
        dae.build(m)
    assert "ReinitElsewhen.mo:6" in ei.value.message and "ReinitElsewhen.mo:8" in ei.value.message


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_parameter_with_fixed_false_is_computed_by_the_initial_equations(tmp_path, fmi_type):
    """c = qin/h(0) = 0.5 (steady start); after the inflow's step at 0.5: h = 6 - 2 exp(-(t-0.5))."""
    r = _build("SteadyTank", tmp_path)
    res = _run(r.fmu, ["h", "c"], fmi_type, interval=0.05)
    assert res["c"][0] == res["c"][-1] == 0.5
    assert _at(res, "h", 0.5) == pytest.approx(4.0, abs=1e-7)
    want = 6 - 2 * math.exp(-0.5)
    assert res["h"][-1] == pytest.approx(want, abs=1e-6 if fmi_type == "CoSimulation" else 1e-4)
    from fmpy import read_model_description
    (c,) = [v for v in read_model_description(str(r.fmu)).modelVariables if v.name == "c"]
    assert (c.causality, c.variability, c.initial) == ("calculatedParameter", "fixed", "calculated")


def test_parameter_with_fixed_false_without_an_initial_equation_is_an_error(tmp_path):
    """Before: built, with k silently 0."""
    e = _error("FreeParamNoEquation", tmp_path)
    assert e.loc.line == 2 and "'k' has fixed=false" in e.message, str(e)


def test_parameter_bound_to_a_parameter_with_fixed_false_is_refused_at_its_line(tmp_path):
    e = _error("FreeParamBinding", tmp_path)
    assert e.loc.line == 3 and "'k2' depends on 'k'" in e.message, str(e)


def _cli(args, cwd):
    return subprocess.run([sys.executable, "-m", "wearcosim.cli", "build", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_package_given_as_dot_is_its_folder(tmp_path, monkeypatch):
    """``wearcosim build --package . Dots32.Decay32`` from inside Dots32/ (before: "no class
    named Dots32.Decay32 in ."): the package's name is its resolved folder's name."""
    pkg = tmp_path / "Dots32"
    shutil.copytree(EVENTS32 / "Dots32", pkg)
    monkeypatch.chdir(pkg)
    assert build_fmu("Dots32.Decay32", package_dir=".", out_dir=tmp_path / "api").fmu.is_file()
    p = _cli(["--package", ".", "Dots32.Decay32", "--out", str(tmp_path / "cli")], pkg)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "cli" / "Decay32.fmu").is_file()
    p = _cli(["--package", ".", "Decay32", "--out", str(tmp_path / "x")], pkg)
    assert p.returncode == 1
    line, = p.stderr.strip().splitlines()
    assert line.startswith("error: ") and str(pkg.resolve()) in line and "did you mean Dots32.Decay32?" in line, line


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_a_run_time_subscript_of_a_short_vector_inside_its_range(tmp_path, fmi_type):
    """k = integer(2 time) + 1 on a 3-vector (a select chain): x(1) = 0.5*10 + 0.5*20 = 15."""
    r = _build("RuntimeIndexShort", tmp_path)
    res = _run(r.fmu, ["x", "y", "k"], fmi_type, interval=0.05)
    assert res["x"][-1] == pytest.approx(15.0, rel=1e-4)
    assert _at(res, "y", 0.2) == 10 and _at(res, "y", 0.7) == 20 and res["y"][-1] == 30


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_a_run_time_subscript_outside_the_range_fails_the_evaluation(tmp_path, fmi_type):
    """From t = 1.5, k = 4 in a 3-vector: the evaluation fails with an error status (before:
    a[4] read 0, and x stayed at 30 as if the model were right)."""
    from fmpy.fmi1 import FMICallException
    r = _build("RuntimeIndexShort", tmp_path)
    with pytest.raises(FMICallException) as ei:
        # ME with FMPy's Euler: CVode would meet the failure inside its right-hand-side callback
        _run(r.fmu, ["x", "y", "k"], fmi_type, stop=2.5, interval=0.05,
             **({"solver": "Euler", "step_size": 1e-3} if fmi_type == "ModelExchange" else {}))
    assert "status 3" in str(ei.value) or "error" in str(ei.value), str(ei.value)


def test_the_select_chain_is_nan_outside_and_its_branches_do_not_leak():
    """symbolic.select_chain: NaN outside 1..n (as the indexed load); inside, the NaN of the
    branches not taken leaks neither into the value nor into the derivative."""
    import casadi as ca
    from wearcosim.export.symbolic import select_chain
    k, x = ca.SX.sym("k"), ca.SX.sym("x", 3)
    e = select_chain(k, ca.vertsplit(x))
    f = ca.Function("f", [k, x], [e, ca.jacobian(e, x)])
    for i in (1, 2, 3):
        v, j = f(i, [1.5, 2.5, 3.5])
        assert float(v) == i + 0.5
        assert list(np.array(j).ravel()) == [1.0 if m == i else 0.0 for m in (1, 2, 3)]
    for i in (0, 4, -1, 2.5):
        assert math.isnan(float(f(i, [1.5, 2.5, 3.5])[0]))
