"""Index reduction (issue 38): Pantelides' algorithm and dummy derivatives
(wearcosim.export.index), on models written from textbook physics for these tests, each
checked against an independent solution of its reduced equations (a closed form, or SciPy on
the minimal coordinates).  Every one of them stopped with "structurally singular" before the
pass (the project reduced only a constraint among states alone, one at a time).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from wctest import fixture_path, unzipped
from wearcosim.export import causalize, dae, frontend, index
from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError

STOP = 3.0


def _reduced(name):
    d = dae.build(frontend.load(fixture_path(name), name))
    return index.reduce(d)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("index38")
    return {m: build_fmu(m, path=fixture_path(m), out_dir=out).fmu
            for m in ("GearPair", "Pendulum", "RigidMasses", "ParallelCaps", "StarInductors")}


def _run(fmu, names, fmi_type):
    from fmpy import simulate_fmu
    with unzipped(fmu) as d:
        return simulate_fmu(d, stop_time=STOP, output=names, fmi_type=fmi_type, relative_tolerance=1e-10,
                            output_interval=0.01)


def _tol(fmi_type):
    # CS: the FMU's own solver at rtol 1e-10; ME: FMPy's CVode with its default absolute tolerance
    return 1e-8 if fmi_type == "CoSimulation" else 1e-6


FMI = ["CoSimulation", "ModelExchange"]


@pytest.mark.parametrize("fmi_type", FMI)
def test_gear_pair_moves_as_one_inertia(fmus, fmi_type):
    """phi1 = ratio*phi2 between two inertias: J1 + J2/ratio^2 driven by 2 sin t."""
    r = _run(fmus["GearPair"], ["phi1", "w1", "phi2", "w2"], fmi_type)
    t, k = r["time"], 2 / (1 + 2 / 9)
    w1, phi1 = 1 + k * (1 - np.cos(t)), t + k * (t - np.sin(t))
    for name, ref in (("w1", w1), ("phi1", phi1), ("phi2", phi1 / 3), ("w2", w1 / 3)):
        assert np.max(abs(r[name] - ref)) < _tol(fmi_type), name


@pytest.mark.parametrize("fmi_type", FMI)
def test_cartesian_pendulum_index_3(fmus, fmi_type):
    """x^2 + y^2 = L^2 (index 3: differentiated twice) against theta'' = -g/L sin(theta)."""
    r = _run(fmus["Pendulum"], ["x", "y"], fmi_type)
    s = solve_ivp(lambda t, z: [z[1], -9.81 * np.sin(z[0])], (0, STOP), [0.5, 0], t_eval=r["time"],
                  rtol=1e-12, atol=1e-12)
    assert np.max(abs(r["x"] - np.sin(s.y[0]))) < 10 * _tol(fmi_type)
    assert np.max(abs(r["y"] + np.cos(s.y[0]))) < 10 * _tol(fmi_type)


@pytest.mark.parametrize("fmi_type", FMI)
def test_rigidly_joined_masses(fmus, fmi_type):
    """s2 = s1 + d: (m1 + m2) s1'' = -c s1 + 1."""
    r = _run(fmus["RigidMasses"], ["s1", "s2"], fmi_type)
    t, w, se = r["time"], np.sqrt(40 / 4.0), 1 / 40
    s1 = se + (0.1 - se) * np.cos(w * t)
    assert np.max(abs(r["s1"] - s1)) < _tol(fmi_type)
    assert np.max(abs(r["s2"] - s1 - 0.5)) < _tol(fmi_type)


@pytest.mark.parametrize("fmi_type", FMI)
def test_parallel_capacitors(fmus, fmi_type):
    """u1 = u2: one RC charge with C1 + C2."""
    r = _run(fmus["ParallelCaps"], ["u1", "u2", "i1", "i2"], fmi_type)
    t = r["time"]
    u = 5 * (1 - np.exp(-t / (10 * 4e-3)))
    assert np.max(abs(r["u1"] - u)) < _tol(fmi_type) and np.max(abs(r["u2"] - u)) < _tol(fmi_type)
    # the currents split as the capacitances (1:3)
    assert np.max(abs(3 * r["i1"] - r["i2"])) < 1e3 * _tol(fmi_type)


@pytest.mark.parametrize("fmi_type", FMI)
def test_star_connected_inductors(fmus, fmi_type):
    """i1 + i2 + i3 = 0: two currents are states, the star point's voltage follows."""
    r = _run(fmus["StarInductors"], ["i1", "i2", "i3"], fmi_type)
    L, R = np.array([0.1, 0.2, 0.3]), 2.0

    def rhs(t, y):
        e = 10 * np.sin(50 * t + np.array([0, -2.0944, 2.0944]))
        i = np.array([y[0], y[1], -y[0] - y[1]])
        vn = np.sum((e - R * i) / L) / np.sum(1 / L)
        return ((e - R * i - vn) / L)[:2]

    s = solve_ivp(rhs, (0, STOP), [0, 0], t_eval=r["time"], rtol=1e-12, atol=1e-12)
    assert np.max(abs(r["i1"] - s.y[0])) < _tol(fmi_type)
    assert np.max(abs(r["i2"] - s.y[1])) < _tol(fmi_type)
    assert np.max(abs(r["i3"] + s.y[0] + s.y[1])) < _tol(fmi_type)


def test_the_states_chosen_keep_the_fixed_starts():
    """The dummy derivatives are taken where the starts are not fixed: the declared initial
    conditions stay the states' (the pendulum: x and vx; the gear: phi1 and w1)."""
    p = _reduced("Pendulum").reduction
    assert p.states == ["x", "vx"], p
    # four differentiated equations (the constraint twice, der(x) = vx and der(y) = vy once), four
    # dummies: y's and vy's derivatives, and the second derivatives, which are not states
    assert sorted(p.dummies) == ["der(der(x))", "der(der(y))", "der(vy)", "der(y)"], p
    assert sorted(o for _, o in p.differentiated) == [1, 1, 1, 2], p
    g = _reduced("GearPair").reduction
    assert g.states == ["phi1", "w1"], g
    s = _reduced("StarInductors").reduction
    assert s.states == ["i1", "i2"] and s.dummies == ["der(i3)"], s


def test_an_index_1_model_is_returned_unchanged():
    d = dae.build(frontend.load(fixture_path("DerAlg"), "DerAlg"))
    before = [str(r) for r, _ in d.equations]
    d2 = index.reduce(dae.build(frontend.load(fixture_path("Blt"), "Blt")))
    assert not hasattr(d2, "reduction")
    assert [str(r) for r, _ in index.reduce(d).equations][:len(before)] == before


def test_a_structurally_singular_model_is_still_named_by_the_balance_check():
    """a = 1; 2*a = 3 is singular whatever is differentiated: no reduction, the balance
    check's message with the variable and the line."""
    d = dae.build(frontend.load(fixture_path("Singular"), "Singular"))
    with pytest.raises(ExportError) as ei:
        causalize.causalize(d)
    assert ei.value.kind == "balance" and "variables without an equation: b" in str(ei.value)


def test_the_derivative_of_an_input_is_refused_at_the_constraint():
    with pytest.raises(ExportError) as ei:
        causalize.causalize(dae.build(frontend.load(fixture_path("NoDerivativeOfInput"), "NoDerivativeOfInput")))
    assert ei.value.kind == "unsupported" and ei.value.loc.line == 7 and "input 'u'" in ei.value.message


def test_state_select_prefer_picks_the_states(tmp_path):
    """stateSelect = StateSelect.prefer on the second shaft (the front end reads rumoca's
    state_select): phi2 and w2 are the states, with their fixed starts, and the motion is the
    same as GearPair's (phi2 = phi1/3)."""
    r = _reduced("GearPairPrefer").reduction
    assert r.states == ["phi2", "w2"], r
    fmu = build_fmu("GearPairPrefer", path=fixture_path("GearPairPrefer"), out_dir=tmp_path).fmu
    res = _run(fmu, ["phi2", "w2"], "CoSimulation")
    t, k = res["time"], 2 / (1 + 2 / 9)
    assert np.max(abs(res["phi2"] - (t + k * (t - np.sin(t))) / 3)) < 1e-8
    assert np.max(abs(res["w2"] - (1 + k * (1 - np.cos(t))) / 3)) < 1e-8


def test_external_builtin_functions_are_their_built_ins(tmp_path):
    """external "builtin" (MLS 12.9; how MSL's Modelica.Math declares sin, exp, ...): before,
    "external function 'mySin' is not supported"."""
    fmu = build_fmu("BuiltinExternal", path=fixture_path("BuiltinExternal"), out_dir=tmp_path).fmu
    res = _run(fmu, ["x", "y"], "CoSimulation")
    t = res["time"]
    assert np.max(abs(res["x"] - (1 - np.cos(t)))) < 1e-8
    assert np.max(abs(res["y"] - np.exp(-t))) < 1e-12


@pytest.mark.parametrize("fmi_type", FMI)
def test_fixed_starts_of_a_variable_not_chosen_as_state_are_initial_equations(tmp_path, fmi_type):
    """s_rel and v_rel are preferred as states; s and v have the fixed starts (MSL's Damper and
    Oscillator examples): the starts become initial equations that fix s_rel(0) = -0.3 (before:
    s_rel started at 0, silently, and the mass never moved)."""
    assert _reduced("PreferRelative").reduction.states == ["s_rel", "v_rel"]
    fmu = build_fmu("PreferRelative", path=fixture_path("PreferRelative"), out_dir=tmp_path).fmu
    r = _run(fmu, ["s", "s_rel"], fmi_type)
    t, wd = r["time"], np.sqrt(99.0)
    x = np.exp(-t) * (-0.3 * np.cos(wd * t) - 0.3 / wd * np.sin(wd * t))
    assert np.max(abs(r["s_rel"] - x)) < 10 * _tol(fmi_type)
    assert np.max(abs(r["s"] - x - 0.5)) < 10 * _tol(fmi_type)


@pytest.mark.parametrize("fmi_type", FMI)
def test_a_fixed_start_of_an_algebraic_variable_is_an_initial_equation(tmp_path, fmi_type):
    """a(fixed = true, start = 0) with a = der(x) (MSL's Blocks.Examples.PID_Controller has
    inertia1(a(fixed = true)) and spring(w_rel(fixed = true)); it started 2.7x its range off the
    reference): x(0) = 2, x = 2 + (sin t - cos t)/4 + exp(-t)/4 (before: x(0) = 5, silently)."""
    fmu = build_fmu("FixedAlgebraic", path=fixture_path("FixedAlgebraic"), out_dir=tmp_path).fmu
    r = _run(fmu, ["x", "a"], fmi_type)
    t = r["time"]
    assert np.max(abs(r["x"] - (2 + (np.sin(t) - np.cos(t)) / 4 + np.exp(-t) / 4))) < 10 * _tol(fmi_type)
    assert abs(r["a"][0]) < 1e-9


def test_a_nonlinear_loop_is_torn_to_the_joint_of_two_springs_in_series(tmp_path):
    """Two springs in series hold a mass, their joint p has no mass: the force balance at p is
    a nonlinear loop of 18 unknowns.  Torn, p (which has a start value) is the Newton
    unknown, every other unknown of the loop follows in closed form (d = p - a, l = |d|, e =
    d/l, f = k (l - L), the force vectors), the balance is the residual; the motion against
    SciPy with the joint found by fsolve at every step."""
    from scipy.optimize import fsolve
    c = causalize.causalize(dae.build(frontend.load(fixture_path("SeriesSprings"), "SeriesSprings")))
    assert [n for n, _ in c.w] == ["p[1]", "p[2]"]
    assert [b.kind for b in c.blocks if "l1" in b.vars] == ["explicit"]
    k1, k2, L1, L2, m, g = 40, 60, 0.3, 0.4, 0.5, 9.81
    guess = [np.array([0.2, -0.3])]

    def force2(q):
        def bal(p):
            d1, d2 = p, q - p
            l1, l2 = np.linalg.norm(d1), np.linalg.norm(d2)
            return k1 * (l1 - L1) * d1 / l1 - k2 * (l2 - L2) * d2 / l2
        p = fsolve(bal, guess[0], xtol=1e-12)
        guess[0] = p
        d2 = q - p
        l2 = np.linalg.norm(d2)
        return k2 * (l2 - L2) * d2 / l2

    def rhs(t, y):
        return [y[2], y[3], *((-force2(y[:2]) + [0, -m * g]) / m)]

    fmu = build_fmu("SeriesSprings", path=fixture_path("SeriesSprings"), out_dir=tmp_path).fmu
    r = _run(fmu, ["q[1]", "q[2]"], "CoSimulation")
    s = solve_ivp(rhs, (0, STOP), [0.5, -0.6, 0, 0], t_eval=r["time"], rtol=1e-11, atol=1e-11)
    assert np.max(abs(r["q[1]"] - s.y[0])) < 1e-6
    assert np.max(abs(r["q[2]"] - s.y[1])) < 1e-6
