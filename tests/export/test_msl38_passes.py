"""Issue 38, the passes' part: constructs of the Modelica Standard Library's examples that the
exporter's passes (dae, index, causalize, events, codegen) did not handle, each on a model
written for these tests from the Modelica specification and checked against its closed form
(fixtures in tests/export/fixtures/passes38/).

- RelativeSprings: two masses, each held between two walls by two spring-dampers whose
  relative positions are preferred as states (MSL's SpringDamper/ElastoGap around a Mass:
  Translational.Examples.ElastoGap and InitialConditions).  The constraints are linear with
  constant coefficients; the dummy derivatives were then chosen without any rank test (the
  constant matrix was taken for a failed evaluation) and both states of one mass were kept:
  "structurally singular ... variables without an equation".
- SampledCounter, SampledMean: ``sample(start, interval)`` (MLS 3.7.5: true at start +
  i*interval, i = 0, 1, ..., in the first event iteration there; MSL's BooleanPulse, Mean and
  the switched-capacitor filters) -- a counter and a sampled-and-held sine, an instant at the
  start time, sample() as an expression, a start time that is a sampling instant, and the
  period's mean of MSL's Mean with its start t0 a parameter with fixed = false set by
  t0 = time.  It was "sample() is not supported here".
- InitialDiscrete: the discrete unknowns of the initialisation (MLS 8.6) -- a when-assigned
  variable set by an initial equation (MSL's BooleanPulse: pulseStart = startTime), pre() of a
  Boolean defined by an equation (MSL's OnOffController: pre(y) = pre_y_start) and pre() of a
  when-assigned Integer.  It was "3 initial equations but only 0 unknowns of the
  initialisation".
- RedundantStart: two heat capacitors with fixed start temperatures held equal (MSL's
  HeatTransfer GenerationOfFMUs): after the index reduction one fixed start is an initial
  equation that the other already satisfies -- dropped, where it holds at the default values;
  an inconsistent one is still an error at its line.  It was "1 initial equations but only 0
  unknowns".
- ZeroCapacitance: a junction whose capacitance, an algebraic variable, is zero for the
  evaluated parameter (MSL's HeatingNPN_NORGate and HeatingPNP_NORGate with CapVal = 0): the
  derivative it multiplies vanishes, and the junction voltage is algebraic.  It was "equation
  cannot be solved for der(v) (zero coefficient)" (in the MSL examples "singular linear
  system ... constant and singular").
- InitialAlgorithm: an initial algorithm (MLS 11.1.2, part of the initialisation): the period
  counter of MSL's Trapezoid, count := integer((time - startTime)/period), negative before the
  start.  The passes ignored initial algorithms, so the counter started at 0 and every
  trapezoid came one period late (HeatingNPN_NORGate: 0.34 of the range off).
- ResistorLadder: a linear block of 10 unknowns (a resistor ladder behind a capacitor) is
  reduced on its constant coefficients before the symbolic QR (causalize.solve_linear): MSL's
  DifferenceAmplifier, whose 35-unknown block made 122 000 operations of Jacobian code and a
  build of over ten minutes, is now built in seconds.
"""
from __future__ import annotations

import numpy as np
import pytest

from wctest import fixture_path, unzipped
from wearcosim.export import causalize, dae, frontend
from wearcosim.export.build import build_fmu


def _run(fmu, names, fmi_type, stop=3.0, interval=0.01, **kw):
    from fmpy import simulate_fmu
    with unzipped(fmu) as d:
        return simulate_fmu(d, stop_time=stop, output=names, fmi_type=fmi_type, output_interval=interval,
                            relative_tolerance=1e-10, **kw)


def _tol(fmi_type):
    return 1e-8 if fmi_type == "CoSimulation" else 1e-6


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("passes38")
    return {m: build_fmu(m, path=fixture_path(m), out_dir=out).fmu
            for m in ("RelativeSprings", "SampledCounter", "SampledMean", "InitialDiscrete", "RedundantStart",
                      "ZeroCapacitance", "InitialAlgorithm", "ResistorLadder")}


def test_relative_springs_keep_one_state_per_mass():
    c = causalize.causalize(dae.build(frontend.load(fixture_path("RelativeSprings"), "RelativeSprings")))
    states = c.dae.reduction.states
    # one position per mass (a preferred relative length) and the two velocities
    assert len(states) == 4 and {"v1", "v2"} <= set(states), states
    assert len({"ra1", "rb1"} & set(states)) == 1 and len({"ra2", "rb2"} & set(states)) == 1, states


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_relative_springs_against_the_damped_oscillator(fmus, fmi_type):
    """m s'' = -2 c (s - L/2) - 2 d s' for each mass, from rest at s0."""
    r = _run(fmus["RelativeSprings"], ["s1", "s2", "ra1", "rb2"], fmi_type)
    t = r["time"]
    m, c, d, L = 1.0, 10.0, 1.5, 2.0
    w0, zeta = np.sqrt(2 * c / m), (2 * d / m) / (2 * np.sqrt(2 * c / m))
    wd = w0 * np.sqrt(1 - zeta ** 2)

    def s(s0):
        a = s0 - L / 2
        return L / 2 + a * np.exp(-zeta * w0 * t) * (np.cos(wd * t) + zeta * w0 / wd * np.sin(wd * t))
    tol = _tol(fmi_type)
    assert np.max(abs(r["s1"] - s(0.5))) < tol
    assert np.max(abs(r["s2"] - s(1.2))) < tol
    assert np.max(abs(r["ra1"] - s(0.5))) < tol
    assert np.max(abs(r["rb2"] - (L - s(1.2)))) < tol


def _instants(start, interval, t0, t1):
    return start + interval * np.arange(max(0, int(np.ceil((t0 - start) / interval - 1e-9))),
                                         int(np.floor((t1 - start) / interval + 1e-9)) + 1)


def _away(t, *instants, eps=1e-6):
    """The points of ``t`` that are not at a sampling instant (there the values before and after
    the event are both right)."""
    ok = np.ones(len(t), dtype=bool)
    for ins in instants:
        for s in ins:
            ok &= abs(t - s) > eps
    return ok


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_sampled_counter_and_sample_and_hold(fmus, fmi_type):
    """n counts the instants 0.105 + 0.25 i up to t, held = sin(3 t_k) of the last one; m counts
    0.295 i including t = 0; ticks counts 0.05 + 0.2 i through a Boolean equal to sample()."""
    r = _run(fmus["SampledCounter"], ["n", "held", "m", "ticks"], fmi_type, stop=2.0)
    t = r["time"]
    a, b, c = _instants(0.105, 0.25, 0, 2), _instants(0, 0.295, 0, 2), _instants(0.05, 0.2, 0, 2)
    ok = _away(t, a, b, c)
    n = np.array([np.sum(a <= x) for x in t])
    assert np.array_equal(r["n"][ok], n[ok])
    held = np.where(n > 0, np.sin(3 * (0.105 + 0.25 * (n - 1))), -1.0)
    assert np.max(abs(r["held"][ok] - held[ok])) < 1e-6
    assert np.array_equal(r["m"][ok], np.array([np.sum(b <= x) for x in t])[ok])
    assert r["m"][0] == 1                               # the instant at the start time
    assert np.array_equal(r["ticks"][ok], np.array([np.sum(c <= x) for x in t])[ok])
    assert r["n"][-1] == 8 and r["m"][-1] == 7 and r["ticks"][-1] == 10


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_sample_from_a_later_start_time(fmus, fmi_type):
    """Started at 0.59 = 2*0.295: that instant fires at the start, the earlier ones never."""
    r = _run(fmus["SampledCounter"], ["n", "m", "ticks"], fmi_type, start_time=0.59, stop=1.6)
    t = r["time"]
    a, b, c = (_instants(0.105, 0.25, 0.59, 1.6), _instants(0, 0.295, 0.59, 1.6), _instants(0.05, 0.2, 0.59, 1.6))
    ok = _away(t, a, b, c)
    for name, ins in (("n", a), ("m", b), ("ticks", c)):
        assert np.array_equal(r[name][ok], np.array([np.sum(ins <= x) for x in t])[ok]), name
    assert r["m"][0] == 1 and r["n"][0] == 0


def test_sample_counters_are_internal(fmus):
    from fmpy import read_model_description
    md = read_model_description(str(fmus["SampledCounter"]))
    names = [v.name for v in md.modelVariables]
    assert not any(n.startswith("$") or "sample" in n for n in names), names
    assert md.numberOfEventIndicators == 3


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_sampled_mean_from_the_start_time(fmus, fmi_type):
    """MSL's Mean: y is the mean of u = time over the last period 1/f = 0.5 of the instants
    t0 + 0.5 i (i >= 1) from t0 = the start time 0.3: t_k - 0.25."""
    r = _run(fmus["SampledMean"], ["y", "t0"], fmi_type, start_time=0.3, stop=2.0)
    t = r["time"]
    ins = _instants(0.8, 0.5, 0.3, 2.0)
    ok = _away(t, ins)
    last = np.array([ins[ins <= x][-1] if np.any(ins <= x) else np.nan for x in t])
    y = np.where(np.isnan(last), 0.0, last - 0.25)
    assert np.max(abs(r["y"][ok] - y[ok])) < 1e-8
    assert np.all(r["t0"] == 0.3)


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_discrete_unknowns_of_the_initialisation(fmus, fmi_type):
    """x from 1 rises (pre(on) = true) to 1.1, then falls and rises between 0.9 and 1.1 at slope 1;
    k = 3 + the rises through 1.05; pulseStart = 0.1, then 0.4, 0.7, 1.0, ..."""
    r = _run(fmus["InitialDiscrete"], ["x", "on", "k", "pulseStart"], fmi_type, stop=1.5)
    t = r["time"]
    rises, pulses = 0.05 + 0.4 * np.arange(4), 0.4 + 0.3 * np.arange(4)
    turns = np.concatenate([[0.1], 0.3 + 0.2 * np.arange(7)])
    ok = _away(t, rises, pulses, turns)
    ph = (t - 0.1) % 0.4
    x = np.where(t < 0.1, 1 + t, np.where(ph < 0.2, 1.1 - ph, 0.9 + (ph - 0.2)))
    assert np.max(abs(r["x"] - x)) < 1e-6
    on = (t < 0.1) | (ph >= 0.2)
    assert np.array_equal(r["on"][ok].astype(bool), on[ok])
    assert np.array_equal(r["k"][ok], 3 + np.array([np.sum(rises <= x_) for x_ in t])[ok])
    assert r["k"][0] == 3 and r["pulseStart"][0] == 0.1
    ps = 0.1 + 0.3 * np.array([np.sum(pulses <= x_) for x_ in t])
    assert np.max(abs(r["pulseStart"][ok] - ps[ok])) < 1e-12


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_redundant_fixed_start_is_dropped(fmus, fmi_type):
    """(C1 + C2) T' = 1000 sin(4 pi t) from 293.15."""
    r = _run(fmus["RedundantStart"], ["T1", "T2"], fmi_type, stop=1.0)
    t = r["time"]
    T = 293.15 + 1000 / 3.3 * (1 - np.cos(4 * np.pi * t)) / (4 * np.pi)
    tol = 1e-6 if fmi_type == "CoSimulation" else 1e-5      # FMPy's CVode: its own absolute tolerance
    assert np.max(abs(r["T1"] - T)) < tol and np.max(abs(r["T2"] - T)) < tol


def test_inconsistent_redundant_start_is_an_error(tmp_path):
    from wearcosim.export.errors import ExportError
    with pytest.raises(ExportError) as ei:
        build_fmu("RedundantStartInconsistent", path=fixture_path("RedundantStartInconsistent"), out_dir=tmp_path)
    e = ei.value
    assert e.kind == "balance" and "over-determine the start" in e.message, str(e)
    assert e.loc.file.endswith("RedundantStartInconsistent.mo") and e.loc.line in (4, 5), str(e)
    assert "residual" in e.message and "\n" not in str(e)


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_zero_capacitance_makes_the_junction_algebraic(fmus, fmi_type):
    """(u - v)/R = G v: v = sin(3 t)/(1 + G R), no state."""
    from fmpy import read_model_description
    assert read_model_description(str(fmus["ZeroCapacitance"])).modelExchange is not None
    r = _run(fmus["ZeroCapacitance"], ["v", "c"], fmi_type, stop=2.0)
    assert np.max(abs(r["v"] - np.sin(3 * r["time"]) / 2)) < 1e-12
    assert np.all(r["c"] == 0)


def test_zero_capacitance_leaves_no_state():
    c = causalize.causalize(dae.build(frontend.load(fixture_path("ZeroCapacitance"), "ZeroCapacitance")))
    assert not [s for s in c.dae.scalars.values() if s.kind == "state"]


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_initial_algorithm_sets_the_period_counter(fmus, fmi_type):
    """count = integer((t - 0.55)/0.5) from -2 at t = 0; y = t - T_start from 0.55 on."""
    r = _run(fmus["InitialAlgorithm"], ["count", "T_start", "y"], fmi_type, stop=2.0)
    t = r["time"]
    ins = 0.05 + 0.5 * np.arange(4)
    ok = _away(t, ins)
    count = np.floor((t - 0.55) / 0.5)
    assert np.array_equal(r["count"][ok], count[ok])
    assert r["count"][0] == -2 and r["T_start"][0] == pytest.approx(-0.45, abs=1e-15)
    y = np.where(t < 0.55, 0.0, t - (0.55 + 0.5 * count))
    assert np.max(abs(r["y"][ok] - y[ok])) < 1e-9


def _thevenin():
    Rs, Rp, V0 = [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], 10.0

    def node_voltages(v0, i_in):
        G, b = np.zeros((4, 4)), np.zeros(4)
        for k in range(4):
            G[k, k] += 1 / Rs[k] + 1 / Rp[k]
            if k > 0:
                G[k, k - 1] -= 1 / Rs[k]
            if k < 3:
                G[k, k] += 1 / Rs[k + 1]
                G[k, k + 1] -= 1 / Rs[k + 1]
        b[0] += v0 / Rs[0]
        b[3] += i_in
        return np.linalg.solve(G, b)
    return node_voltages(V0, 0.0)[3], node_voltages(0.0, 1.0)[3]


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_resistor_ladder_charges_the_capacitor(fmus, fmi_type):
    """vc = Vth (1 - exp(-t/(Rth C))), Vth and Rth of the ladder from its nodal equations."""
    vth, rth = _thevenin()
    r = _run(fmus["ResistorLadder"], ["vc", "v[1]"], fmi_type, stop=3.0)
    t = r["time"]
    assert np.max(abs(r["vc"] - vth * (1 - np.exp(-t / (rth * 0.1))))) < 1e-7


def test_large_linear_block_is_reduced_before_the_qr():
    from wearcosim.export import codegen
    c = causalize.causalize(dae.build(frontend.load(fixture_path("ResistorLadder"), "ResistorLadder")))
    assert [len(b.vars) for b in c.blocks if b.kind == "linear"] == [10]
    g = codegen.build_functions(c)
    # the symbolic QR of the whole block: 919 operations for the derivative
    assert g.functions["deriv"].n_instructions() < 300


def test_solve_linear_against_numpy():
    """Mixed constant (+-1, 2.5, a tiny 1e-7) and symbolic coefficients, 12 unknowns."""
    import casadi as ca
    rng = np.random.default_rng(38)
    n = 12
    p = ca.SX.sym("p", 6)
    A = ca.SX(n, n)
    for i in range(n):
        A[i, i] = 1.0 if i % 3 else p[i % 6]
        A[i, (i + 1) % n] = [-1.0, 2.5, p[(i + 2) % 6], 1e-7][i % 4]
        if i % 5 == 0:
            A[i, (i + 4) % n] = p[(i + 3) % 6] * p[i % 6]
    b = ca.vertcat(*[p[i % 6] + i for i in range(n)])
    x = causalize.solve_linear(A, b)
    f = ca.Function("f", [p], [ca.vertcat(*x), A, b])
    for _ in range(5):
        pv = rng.uniform(0.5, 2.0, 6)
        xv, Av, bv = (np.array(m) for m in f(pv))
        assert np.allclose(xv.ravel(), np.linalg.solve(Av, bv).ravel(), rtol=1e-9, atol=1e-12)


def test_arrays_of_size_zero_beside_a_state(tmp_path):
    """A parameter array and an unknown array of size 0 (MSL's filters of even order have
    such, Blocks.Examples.FilterWithRiseTime): no scalars, no equations, and the rest of the
    model as without them: x(t) = exp(-t).  The DAE build indexed the first scalar of every
    variable (IndexError)."""
    from fmpy import simulate_fmu
    fmu = build_fmu("ZeroSizeArrays", path=fixture_path("ZeroSizeArrays"), out_dir=tmp_path).fmu
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=1.0, output=["x"], relative_tolerance=1e-8)
    assert r["x"][-1] == pytest.approx(np.exp(-1.0), rel=1e-6)
