"""MSL's time tables (Modelica.Blocks.Sources.CombiTimeTable and the blocks built on it), which
the exporter evaluates itself instead of linking the C library ModelicaStandardTables
(wearcosim.export.tables, issue 38).  Before: "external function
'Modelica.Blocks.Tables.Internal.getTimeTableValueNoDer' is not supported" (LogicalNetwork1,
ShowLogicalSources, CharacteristicThyristors, Translational Vehicle, HeatTransfer Motor).

The oracle is written here from MSL's documentation of CombiTimeTable (interpolation,
extrapolation, startTime/shiftTime, time events), independently of the implementation: a search
for the row, not a chain of conditions."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

from wctest import MSL_ABSENT, msl_root, unzipped
from wearcosim.export import tables
from wearcosim.export.errors import ExportError
from wearcosim.export.symbolic import _numeric

HERE = Path(__file__).parent / "fixtures" / "msl38"
DBL_MAX = sys.float_info.max


class _Ev:
    """The part of the evaluator the table functions use."""
    loc = None

    def num(self, v):
        return _numeric(v)

    def fail(self, msg, kind="unsupported"):
        raise ExportError(msg, None, kind)


def _oracle_value(a, y, s, smooth, extra):
    n = len(a)
    if n == 1:
        return y[0]
    if extra == tables.PERIODIC:
        s = a[0] + (s - a[0]) % (a[-1] - a[0])
    below = [k for k in range(n) if a[k] <= s]
    if smooth == tables.CONSTANT:
        return y[below[-1]] if below else y[0]
    if not below:                                       # left of the table
        if extra == tables.LAST_TWO:
            return y[0] + (s - a[0]) * (y[1] - y[0]) / (a[1] - a[0])
        return y[0]
    k = below[-1]
    if k == n - 1:                                      # at or right of the last abscissa
        if extra == tables.LAST_TWO:
            return y[-1] + (s - a[-1]) * (y[-1] - y[-2]) / (a[-1] - a[-2])
        return y[-1]
    return y[k] + (s - a[k]) * (y[k + 1] - y[k]) / (a[k + 1] - a[k])


def _oracle_next(a, t, shift, start, smooth, extra, events):
    cands = []
    if t < start:
        cands.append(start)
    if events != tables.NO_TIME_EVENTS and len(a) > 1:
        if events == tables.ALWAYS or smooth == tables.CONSTANT:
            pts = sorted(set(a))
        else:
            pts = sorted({a[k] for k in range(len(a) - 1) if a[k] == a[k + 1]})
        if extra == tables.PERIODIC:
            period = a[-1] - a[0]
            pts = [p for p in pts if p < a[-1]]
            for p in pts:
                m = np.floor((t - (p + shift)) / period) + 1
                cands.append(p + shift + m * period)
        else:
            cands += [p + shift for p in pts if p + shift > t]
    return min(cands) if cands else DBL_MAX


def _random_table(rng, n, ncols, ends_distinct=True):
    a = sorted(rng.uniform(-2, 5) for _ in range(n))
    for k in range(1, n - 1):                           # a few jumps (two equal abscissae)
        if rng.random() < 0.2:
            a[k] = a[k - 1]
    if ends_distinct and n > 2:
        a[0] = min(a[0], a[1] - 0.1)
        a[-1] = max(a[-1], a[-2] + 0.1)
    table = np.empty((n, ncols + 1), dtype=object)
    for k in range(n):
        table[k, 0] = a[k]
        for j in range(ncols):
            table[k, j + 1] = rng.uniform(-3, 3)
    return table


@pytest.mark.parametrize("seed", range(40))
def test_values_and_next_events_match_the_documented_behaviour(seed):
    """Random tables (1-9 rows, jumps inside, 1-3 columns, a column subset), every smoothness and
    extrapolation supported, shifted and started; values at random times (none on an abscissa:
    there the side depends on the event, tested below) and the next event after each."""
    rng = random.Random(seed)
    n = rng.randint(1, 9) if seed % 5 else 1 + seed % 3
    ncols = rng.randint(1, 3)
    table = _random_table(rng, max(n, 2) if rng.random() < 0.9 else n, ncols)
    n = table.shape[0]
    columns = [rng.randint(2, ncols + 1) for _ in range(rng.randint(1, 3))]
    smooth = rng.choice([tables.LINEAR, tables.CONSTANT])
    extra = rng.choice([tables.HOLD, tables.LAST_TWO, tables.PERIODIC] if n > 1 else [tables.HOLD])
    events = rng.choice([tables.ALWAYS, tables.AT_DISCONTINUITIES, tables.NO_TIME_EVENTS])
    shift = rng.choice([0.0, rng.uniform(-1, 1)])
    start = rng.choice([-1e60, rng.uniform(-3, 3)])
    ev = _Ev()
    tab = tables.init(ev, ["NoName", "NoName", table, n, ncols + 1, start, np.array(columns, dtype=object),
                           len(columns), smooth, extra, shift, events, False])
    a = [float(x) for x in table[:, 0]]
    for _ in range(60):
        t = rng.uniform(-6, 12)
        for icol, c in enumerate(columns, 1):
            y = [float(x) for x in table[:, c - 1]]
            got = tables.value(ev, [tab, icol, t, DBL_MAX, DBL_MAX])
            want = 0.0 if t < start else _oracle_value(a, y, t - shift, smooth, extra)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (t, icol, a, y, smooth, extra)
        got = tables.next_event(ev, [tab, t])
        want = _oracle_next(a, t, shift, start, smooth, extra, events)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (t, a, smooth, extra, events, shift, start)
        assert got > t


def test_on_a_jump_the_left_value_until_its_event_is_handled():
    """At t = 3, where the table jumps to 2: the value left of 3 (linear: 9; constant segments:
    0, row 1's) while the block's next event is still 3 (the event not yet handled), 2 once it
    has moved on, as the C library does."""
    ev = _Ev()
    table = np.array([[0, 0], [3, 9], [3, 2], [4, 2]], dtype=object)
    for smooth, before in ((tables.LINEAR, 9), (tables.CONSTANT, 0)):
        tab = tables.init(ev, ["NoName", "NoName", table, 4, 2, 0.0, np.array([2], dtype=object), 1, smooth,
                               tables.HOLD, 0.0, tables.ALWAYS, False])
        assert tables.value(ev, [tab, 1, 3.0, 3.0, 3.0]) == before
        assert tables.value(ev, [tab, 1, 3.0, 4.0, 3.0]) == 2
        assert tables.next_event(ev, [tab, 3.0]) == 4.0
        assert tables.next_event(ev, [tab, 4.0]) == DBL_MAX


def test_symbolic_table_stays_an_expression_of_its_parameters():
    """A table of parameters (tunable in the FMU) gives an expression of them and of time."""
    import casadi as ca
    ev = _Ev()
    p = ca.SX.sym("p")
    t = ca.SX.sym("time")
    table = np.array([[0.0, 0.0], [1.0, p], [2.0, 0.0]], dtype=object)
    tab = tables.init(ev, ["NoName", "NoName", table, 3, 2, 0.0, np.array([2], dtype=object), 1, tables.LINEAR,
                           tables.HOLD, 0.0, tables.ALWAYS, False])
    f = ca.Function("f", [t, p], [tables.value(ev, [tab, 1, t, DBL_MAX, DBL_MAX])])
    assert float(f(0.5, 4.0)) == pytest.approx(2.0) and float(f(1.5, 8.0)) == pytest.approx(4.0)
    assert float(f(7.0, 8.0)) == 0.0


@pytest.mark.parametrize("args, said", [
    ({8: 2}, "smoothness ContinuousDerivative of a CombiTimeTable is not supported"),
    ({9: 4}, "extrapolation NoExtrapolation"),
    ({0: "losses.mat", 1: "tab1"}, "read from a file"),
])
def test_what_is_not_evaluated_is_refused_with_what(args, said):
    ev = _Ev()
    vals = ["NoName", "NoName", np.array([[0, 0], [1, 1]], dtype=object), 2, 2, 0.0,
            np.array([2], dtype=object), 1, tables.LINEAR, tables.HOLD, 0.0, tables.ALWAYS, False]
    for k, v in args.items():
        vals[k] = v
    with pytest.raises(ExportError, match=said):
        tables.call(ev, "ModelicaStandardTables_CombiTimeTable_init2", vals)


# ----------------------------------------------------------------------------- FMUs with MSL
needs_msl = pytest.mark.skipif(msl_root() is None, reason=MSL_ABSENT)


@needs_msl
@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_msl_time_tables_in_an_fmu(tmp_path, monkeypatch, fmi_type):
    """CombiTimeTable (linear, a jump, hold), BooleanTable and a periodic constant-segment table
    with a time scale (MSL's HeatTransfer.Motor's loss table), and the integral of the first:
    compared with the oracle away from the events."""
    from fmpy import simulate_fmu
    from wearcosim.export.build import build_fmu
    monkeypatch.setenv("MODELICAPATH", str(msl_root()))
    fmu = build_fmu("TimeTables", path=HERE / "TimeTables.mo", out_dir=tmp_path).fmu
    with unzipped(fmu) as d:
        r = simulate_fmu(d, fmi_type=fmi_type, stop_time=5.0, output_interval=0.01, relative_tolerance=1e-8,
                         output=["lin.y[1]", "bool.y", "periodic.y[1]", "periodic.y[2]", "x"])
    t = r["time"]
    away = np.min(np.abs(t[:, None] - np.array([0.5, 1.0, 1.5, 1.8, 2.0, 2.2, 3.0, 4.0, 5.0])), axis=1) > 1e-6
    a, y = [0, 1, 2, 3, 3, 4], [0, 1, 4, 9, 2, 2]
    lin = np.array([_oracle_value(a, y, s, tables.LINEAR, tables.HOLD) for s in t])
    assert np.max(abs(r["lin.y[1]"] - lin)[away]) < 1e-12
    boolean = ((t >= 0.5) & (t < 1.5)) | (t >= 2.2)
    assert np.all(((r["bool.y"] != 0) == boolean)[away])
    ts = (t / 0.005) % 600
    assert np.all((r["periodic.y[1]"] == np.where(ts < 360, 100.0, 1000.0))[away])
    assert np.all(r["periodic.y[2]"] == 500.0)
    # x = integral of lin, piece by piece: s^2/2 on [0, 1], 1 + 3 (s - 1) on [1, 2],
    # 4 + 5 (s - 2) on [2, 3], then 2
    xe = np.piecewise(t, [t < 1, (t >= 1) & (t < 2), (t >= 2) & (t < 3), t >= 3],
                      [lambda s: s**2 / 2, lambda s: 0.5 + (s - 1) + 1.5 * (s - 1)**2,
                       lambda s: 3.0 + 4 * (s - 2) + 2.5 * (s - 2)**2, lambda s: 9.5 + 2 * (s - 3)])
    assert np.max(abs(r["x"] - xe)) < 1e-5


@needs_msl
def test_an_unsupported_table_is_refused_at_the_model(tmp_path, monkeypatch):
    from wearcosim.export.build import build_fmu
    monkeypatch.setenv("MODELICAPATH", str(msl_root()))
    src = tmp_path / "Akima.mo"
    src.write_text("model Akima\n  Modelica.Blocks.Sources.CombiTimeTable t(table = [0, 0; 1, 1; 2, 4],\n"
                   "    smoothness = Modelica.Blocks.Types.Smoothness.ContinuousDerivative);\nend Akima;\n")
    with pytest.raises(ExportError, match="ContinuousDerivative of a CombiTimeTable is not supported") as info:
        build_fmu("Akima", path=src, out_dir=tmp_path / "out")
    assert not (tmp_path / "out" / "Akima.fmu").exists()
    assert info.value.loc is not None and info.value.loc.line


@needs_msl
def test_msl_heat_transfer_motor_against_its_physics(tmp_path, monkeypatch):
    """MSL's Thermal.HeatTransfer.Examples.Motor has no reference result; its periodic loss
    table (constant segments, 100 W for 360 s, 1000 W for 240 s, period 600 s) drives a
    second-order thermal network, integrated here with SciPy piece by piece between the
    table's switching instants, from the physics as MSL's documentation states it:
    C_w T_w' = Q_w (1 + alpha (T_w - T_ref)) - G (T_w - T_c),
    C_c T_c' = Q_c + G (T_w - T_c) - G_c (T_c - T_amb)."""
    from fmpy import simulate_fmu
    from scipy.integrate import solve_ivp
    from wearcosim.export.build import build_fmu
    monkeypatch.setenv("MODELICAPATH", str(msl_root()))
    (tmp_path / "M.mo").write_text("model M\n  extends Modelica.Thermal.HeatTransfer.Examples.Motor;\nend M;\n")
    fmu = build_fmu("M", path=tmp_path / "M.mo", out_dir=tmp_path / "out").fmu
    stop = 7200.0
    with unzipped(fmu) as d:
        r = simulate_fmu(d, fmi_type="CoSimulation", stop_time=stop, output_interval=5.0, relative_tolerance=1e-8,
                         output=["winding.T", "core.T"])
    C_w, C_c, G, G_c, T_amb, alpha, T_ref, Q_c = 2500.0, 25000.0, 10.0, 25.0, 293.15, 3.03e-3, 368.15, 500.0

    def rhs(q_w):
        def f(t, T):
            w, c = T
            return [(q_w * (1 + alpha * (w - T_ref)) - G * (w - c)) / C_w,
                    (Q_c + G * (w - c) - G_c * (c - T_amb)) / C_c]
        return f
    edges = sorted({0.0, stop} | {k * 600.0 + o for k in range(12) for o in (0.0, 360.0)})
    T = [T_amb, T_amb]
    ts, ws, cs = [], [], []
    for a, b in zip(edges[:-1], edges[1:]):
        q_w = 100.0 if (a % 600.0) < 360.0 else 1000.0
        grid = r["time"][(r["time"] >= a) & (r["time"] < b)]
        s = solve_ivp(rhs(q_w), (a, b), T, t_eval=grid, rtol=1e-11, atol=1e-9, method="DOP853")
        ts += list(s.t)
        ws += list(s.y[0])
        cs += list(s.y[1])
        T = list(solve_ivp(rhs(q_w), (a, b), T, rtol=1e-11, atol=1e-9, method="DOP853").y[:, -1])
    ts = np.array(ts)
    sel = np.isin(r["time"], ts)
    for name, ref in (("winding.T", np.array(ws)), ("core.T", np.array(cs))):
        sim = r[name][sel]
        assert len(sim) == len(ref)
        span = np.ptp(ref)
        assert np.max(abs(sim - ref)) < 1e-6 * span + 1e-9, name
