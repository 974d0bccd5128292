"""Exporter correctness on models written from the Modelica specification and textbooks
(issue 15): what the FMUs compute is checked against closed-form answers and rumoca's own
simulator of the same .mo file, in Co-Simulation (embedded solver) and Model Exchange.

* Nonlinear algebraic loops start Newton from the variables' ``start`` values (a loop whose
  Jacobian is singular at 0; a cubic with several roots, where ``start`` selects one).
* The equations of a when-clause are solved together at the event: an equation that uses
  another variable assigned at the same event sees its new value (MLS 8.3.5), ``pre()`` only
  where it is written.
* A linear block whose matrix is singular for every value of its coefficients is refused at
  build time, naming its variables and equations.
"""
import math

import numpy as np
import pytest

from wctest import fixture_path, unzipped
from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError

FMI_TYPES = ["CoSimulation", "ModelExchange"]


@pytest.fixture(scope="module")
def fmu_of(tmp_path_factory):
    """fmu_of("TwoLinkElbow") -> the fixture's FMU, built once per module."""
    out = tmp_path_factory.mktemp("correctness")
    built = {}

    def get(name):
        if name not in built:
            p = fixture_path(name)
            built[name] = build_fmu(name, p.parent, out, path=p).fmu
        return built[name]
    return get


def simulate(fmu, fmi_type, stop, names, interval=None, **kw):
    """FMPy simulation from an extraction that is removed afterwards (also on failure)."""
    from fmpy import simulate_fmu
    opts = dict(solver="CVode", relative_tolerance=1e-10) if fmi_type == "ModelExchange" \
        else dict(relative_tolerance=1e-10)
    opts.update(kw)
    with unzipped(fmu) as d:
        return simulate_fmu(d, fmi_type=fmi_type, stop_time=stop, output_interval=interval or stop / 50,
                            output=names, **opts)


def rumoca_simulation(name, stop, dt):
    """rumoca's simulator on the fixture: (t, data) with the left limits at events dropped."""
    import rumoca
    m = rumoca.Session().load(str(fixture_path(name)), model=name)
    r = m.simulate((0.0, stop), dt=dt, config=rumoca.SimConfig(rtol=1e-10, atol=1e-12)).to_dict()
    t = np.asarray(r["time"], dtype=float)
    keep = np.ones_like(t, dtype=bool)
    keep[:-1] = np.diff(t) > 0
    return t[keep], {k: np.asarray(v, dtype=float)[keep] for k, v in r["data"].items()}


# ----------------------------------------------------------------------------- item 2
def elbow_up(d, L1=1.0, L2=0.8):
    """Closed-form elbow position of the two-link arm with the hand at (d, 0), y > 0."""
    x = (L1 ** 2 - L2 ** 2 + d ** 2) / (2 * d)
    return x, np.sqrt(L1 ** 2 - x ** 2)


@pytest.mark.parametrize("fmi_type", FMI_TYPES)
def test_newton_starts_from_start_values_where_the_jacobian_at_zero_is_singular(fmi_type, fmu_of):
    """x^2 + y^2 = L1^2, (d - x)^2 + y^2 = L2^2: the Jacobian is singular at x = y = 0 (Newton
    from 0 failed in its first iteration); start = L1/2 selects the elbow-up solution."""
    res = simulate(fmu_of("TwoLinkElbow"), fmi_type, 4.0, ["d", "x", "y"])
    x, y = elbow_up(res["d"])
    assert np.max(np.abs(res["x"] - x)) < 1e-9
    assert np.max(np.abs(res["y"] - y)) < 1e-9
    t, ref = rumoca_simulation("TwoLinkElbow", 4.0, 0.01)
    assert np.max(np.abs(res["y"] - np.interp(res["time"], t, ref["y"]))) < 1e-6


def test_newton_start_expression_follows_a_changed_parameter(fmu_of):
    """start = L1/2 is evaluated with the parameter set before initialisation."""
    res = simulate(fmu_of("TwoLinkElbow"), "CoSimulation", 1.0, ["d", "x", "y"], start_values={"L1": 1.1})
    x, y = elbow_up(res["d"], L1=1.1)
    assert np.max(np.abs(res["x"] - x)) < 1e-9 and np.max(np.abs(res["y"] - y)) < 1e-9


def vapour_root(pr, Tr=0.9):
    A, B = 27 * pr / (64 * Tr ** 2), pr / (8 * Tr)
    return max(z.real for z in np.roots([1, -(1 + B), A, -A * B]) if abs(z.imag) < 1e-12)


@pytest.mark.parametrize("fmi_type", FMI_TYPES)
def test_newton_converges_to_the_root_its_start_value_selects(fmi_type, fmu_of):
    """The van der Waals cubic in Z has three real roots (liquid 0.153, unstable 0.25, vapour
    0.680 at Tr = 0.9, pr = 0.6); start = 1 (ideal gas) selects the vapour root, which the
    runtime then follows as pr varies (Newton from 0 silently gave the liquid root)."""
    res = simulate(fmu_of("VanDerWaalsZ"), fmi_type, 4.0, ["pr", "Z"])
    expect = np.array([vapour_root(p) for p in res["pr"]])
    assert np.max(np.abs(res["Z"] - expect)) < 1e-9
    t, ref = rumoca_simulation("VanDerWaalsZ", 4.0, 0.01)
    assert np.max(np.abs(res["Z"] - np.interp(res["time"], t, ref["Z"]))) < 1e-6


# ----------------------------------------------------------------------------- item 3
WHEN_AFTER = {"a": 1, "b": 2, "c": 2, "d": 1, "e": 2, "f": 1, "y": 3, "z": 3, "n": 1, "m": 10}


@pytest.mark.parametrize("fmi_type", FMI_TYPES)
def test_when_equations_see_the_new_values_of_their_event(fmi_type, fmu_of):
    """b = 2*a after a = 1, c = 2*d before d = 1, m = 10*n before n = pre(n) + 1, e = a + 1 in
    another clause with the same condition, z = y through the continuous y = 3*a: all use the
    values of the event (they were computed from the values before it: b = c = m = z = 0,
    e = 1); f = pre(a) + 1 keeps the value before the event."""
    names = sorted(WHEN_AFTER)
    res = simulate(fmu_of("WhenOrder"), fmi_type, 1.0, names, interval=0.05)
    before, after = res["time"] < 0.49, res["time"] > 0.51
    for n in names:
        assert np.all(res[n][before] == 0), n
        assert np.all(res[n][after] == WHEN_AFTER[n]), (n, res[n][after][:3])
    # rumoca's simulator agrees, except for z (it keeps z at 0: its when-equation z = y sees
    # the y of before the event)
    t, ref = rumoca_simulation("WhenOrder", 1.0, 0.05)
    for n in names:
        if n != "z":
            assert ref[n][-1] == WHEN_AFTER[n], (n, ref[n][-1])


def worn_ball_impacts(stop, h0=1.0, g=9.81, e0=0.9, de=0.1):
    """[(t_k, v_k after the impact)] of the ball whose k-th impact has e = e0 - de*k."""
    t = math.sqrt(2 * h0 / g)
    v = g * t
    out = []
    k = 1
    while t < stop:
        v = (e0 - de * k) * v
        out.append((t, v))
        t += 2 * v / g
        k += 1
    return out


@pytest.mark.parametrize("fmi_type", FMI_TYPES)
def test_reinit_and_assignments_use_the_values_of_their_event(fmi_type, fmu_of):
    """reinit(v, -e*pre(v)) with e = e0 - de*n and n = pre(n) + 1 in the same clause: the k-th
    impact uses e = e0 - de*k (it used the e of the impact before, 0.9 at the first)."""
    stop, g = 2.0, 9.81
    imp = worn_ball_impacts(stop)
    assert len(imp) == 4
    res = simulate(fmu_of("WornBall"), fmi_type, stop, ["h", "v", "n", "e"], interval=0.01)
    t = res["time"]
    for k, (tk, vk) in enumerate(imp, 1):
        t_next = imp[k][0] if k < len(imp) else stop
        sel = (t > tk + 1e-3) & (t < t_next - 1e-3)
        assert np.all(res["n"][sel] == k) and np.allclose(res["e"][sel], 0.9 - 0.1 * k, rtol=0, atol=1e-14)
        assert np.max(np.abs(res["v"][sel] - (vk - g * (t[sel] - tk)))) < 1e-6
        assert np.max(np.abs(res["h"][sel] - (vk * (t[sel] - tk) - g / 2 * (t[sel] - tk) ** 2))) < 1e-6


@pytest.mark.parametrize("fmi_type", FMI_TYPES)
def test_when_clauses_with_different_conditions_may_use_each_other(fmi_type, fmu_of):
    """p = q + 1 (x > 0.5) and q = 2*p (x > 0.7): a dependency cycle only through two
    conditions, never active together: p = 1 from t = 0.5, q = 2 from t = 0.7."""
    res = simulate(fmu_of("WhenTwoConditions"), fmi_type, 1.0, ["p", "q"], interval=0.05)
    t = res["time"]
    assert np.all(res["p"][t < 0.49] == 0) and np.all(res["p"][t > 0.51] == 1)
    assert np.all(res["q"][t < 0.69] == 0) and np.all(res["q"][t > 0.71] == 2)


def test_when_equations_forming_a_loop_at_one_event_are_refused(tmp_path):
    p = fixture_path("WhenLoop")
    with pytest.raises(ExportError) as ei:
        build_fmu("WhenLoop", p.parent, tmp_path, path=p)
    e = ei.value
    assert e.kind == "structure" and e.loc.file == str(p) and e.loc.line == 8
    assert "algebraic loop" in e.message and "a (" in e.message and "b (" in e.message
    assert "\n" not in str(e)
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- item 4
@pytest.mark.parametrize("name, line, why", [
    ("SplitFlowRedundant", 6, "constant and singular"),
    ("SplitFlowSumOfDrops", 8, "singular for every value of R"),
])
def test_singular_linear_block_is_refused_at_build_time(name, line, why, tmp_path):
    """The junction balance written twice (a constant singular matrix), or the pressure drop of
    the summed flows (singular whatever R): the build succeeded and the FMU failed at
    initialisation with 'q1 is not finite at t=0'."""
    p = fixture_path(name)
    with pytest.raises(ExportError) as ei:
        build_fmu(name, p.parent, tmp_path, path=p)
    e = ei.value
    assert e.kind == "structure" and e.loc.file == str(p) and e.loc.line == line
    assert "singular linear system" in e.message and "q1, q2" in e.message and why in e.message
    assert f"{name}.mo:{line} " in e.message and f"{name}.mo:{line + 1} " in e.message   # both equations
    assert "\n" not in str(e)
    assert list(tmp_path.iterdir()) == []


def test_linear_block_singular_for_some_parameter_values_stays_a_runtime_error(fmu_of):
    """q1 + q2 = Q, R1*q1 = R2*q2 is singular only for R2 = -R1: it builds, computes the split,
    and fails at initialisation only with such values."""
    res = simulate(fmu_of("SplitFlow"), "CoSimulation", 1.0, ["q1", "q2"])
    assert np.allclose(res["q1"], 0.75, rtol=0, atol=1e-14) and np.allclose(res["q2"], 0.25, rtol=0, atol=1e-14)
    with pytest.raises(Exception, match="fmi2EnterInitializationMode"):
        simulate(fmu_of("SplitFlow"), "CoSimulation", 1.0, ["q1", "q2"], start_values={"R2": -1.0})
