"""Issue 15 item 1: the values of fmi2DoStep at EVERY communication point, against closed-form
(or high-accuracy) solutions, on random grids.

The Co-Simulation stepping of the runtime (fmu/runtime/rt_cs.c, cs_integrate) lets a
solver step reach past communication points: the values at a communication point inside a
step come from the step's dense output, the next fmi2DoStep continues the step, an event
beyond the point is handled by the fmi2DoStep containing it, fmi2GetFMUstate saves a step
reaching ahead as it is (the running solver is part of the FMU state).  Every one of those paths has to deliver the solution at exactly the
master's point.  The bug of the issue: a step continued from the previous fmi2DoStep that
ends exactly on the new communication point (the first step of 100*1e-6 =
9.9999999999999991e-05 s, one ulp short of the first point, is followed by a step stretched
onto its bound, the second point) was delivered from v[], which still held the first point
(x = 4.0e-7 instead of 1.6e-6 at 2e-4 s on a 1e-4 s grid; the next point right again).

The property tests step small smooth models (fixtures/*.mo and the library's BouncingBall):

* ConstAccel      x'' = a, any start: a polynomial, which every method integrates exactly;
* LinearInput     damped oscillator driving a lag, harmonic forcing sin(w*time) and an input
                  u with direct feedthrough to an output; closed form by the matrix
                  exponential of the system augmented with (sin, cos, u);
* Pendulum        nonlinear; from rest without torque closed-form (Jacobi elliptic
                  functions), after its input torque is set: scipy's DOP853 at rtol 1e-13;
* BouncingBall    impacts (state events with reinit) between closed-form parabolas;

with random coefficients and start values, on random grids (1e-4, 0.1, 1/3, random decimals:
mostly not representable; the master computes t0 + k*h), random start times, random
tolerances (fmi2SetupExperiment or solver.rtol), random sets of an input or of the tunable
parameter solver.rtol between steps, and an fmi2GetFMUstate between steps that is restored
after the run: the replay from it must be bit-identical to the first pass.  Every point is
compared with the reference within K * (rtol * scale + atol) per variable (scale: the
largest magnitude of the reference over the run, atol = 1e-3 rtol the solver's default),
for all four methods (solver.method 0 auto, 1 Dormand-Prince, 2 RODAS4, 3 Adams).

Examples per test: WEARCOSIM_GRID_EXAMPLES (default 50); WEARCOSIM_GRID_RANDOM=1 draws a
new random seed per run (bug hunting) instead of the fixed one of the suite.
"""
from __future__ import annotations

import ctypes as C
import dataclasses
import math
import os
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures"
sys.path.insert(0, str(HERE.parent / "reliability"))
import wc_fmi_driver as D  # noqa: E402

EXAMPLES = int(os.environ.get("WEARCOSIM_GRID_EXAMPLES", "50"))
DERANDOMIZE = os.environ.get("WEARCOSIM_GRID_RANDOM", "0") in ("", "0")
BB = "WearCosim.Examples.Basic.BouncingBall"
METHODS = pytest.mark.parametrize("method", [0, 1, 2, 3], ids=["auto", "dopri5", "rodas4", "adams"])
SETTINGS = settings(max_examples=EXAMPLES, derandomize=DERANDOMIZE, database=None,
                    deadline=None, print_blob=False,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


# ----------------------------------------------------------------------------- FMUs
@pytest.fixture(scope="module")
def fmus(build_example, tmp_path_factory):
    """fmus(name) -> wc_fmi_driver.Fmu (loaded in this process), each FMU built and extracted
    once per module into pytest's temp tree: a fixture of tests/runtime/fixtures or a library
    example (built once per session)."""
    from wearcosim.export.build import build_fmu
    base = tmp_path_factory.mktemp("gridprop")
    cache = {}

    def get(name):
        if name not in cache:
            if name.startswith("WearCosim."):
                fmu = build_example(name)
            else:
                fmu = build_fmu(name, FIX, base, path=FIX / f"{name}.mo").fmu
            cache[name] = D.load_fmu(fmu, base / ("unzipped-" + fmu.stem))
        return cache[name]
    return get


def _ok(f, st_, what):
    assert st_ == D.OK, (what, st_, [m for _, _, m in f.log[-4:]])


class Instance:
    """One Co-Simulation instance of a loaded FMU (ctypes), freed by close()."""

    def __init__(self, f: D.Fmu):
        self.f = f
        self.var = {v["name"]: v for v in f.info["variables"]}
        f.log.clear()
        self.c = f.instantiate(D.CS)
        assert self.c, f.log
        self.states = []

    def set(self, values: dict):
        for name, x in values.items():
            v = self.var[name]
            vr = (D.fmi2VR * 1)(v["vr"])
            if v["type"] == "Integer":
                _ok(self.f, self.f.SetInteger(self.c, vr, 1, (D.fmi2Integer * 1)(int(x))), name)
            else:
                _ok(self.f, self.f.SetReal(self.c, vr, 1, (D.fmi2Real * 1)(float(x))), name)

    def get(self, names):
        out = []
        for name in names:
            v = self.var[name]
            vr = (D.fmi2VR * 1)(v["vr"])
            if v["type"] == "Integer":
                buf = (D.fmi2Integer * 1)()
                _ok(self.f, self.f.GetInteger(self.c, vr, 1, buf), name)
            else:
                buf = (D.fmi2Real * 1)()
                _ok(self.f, self.f.GetReal(self.c, vr, 1, buf), name)
            out.append(float(buf[0]))
        return out

    def init(self, t0, tolerance=None):
        f = self.f
        _ok(f, f.SetupExperiment(self.c, tolerance is not None, tolerance or 0.0, t0, 0, 0.0),
            "fmi2SetupExperiment")
        _ok(f, f.EnterInitializationMode(self.c), "fmi2EnterInitializationMode")
        _ok(f, f.ExitInitializationMode(self.c), "fmi2ExitInitializationMode")

    def do_step(self, t, h):
        _ok(self.f, self.f.DoStep(self.c, t, h, 1), f"fmi2DoStep({t!r}, {h!r})")

    def save(self):
        s = D.fmi2FMUstate()
        _ok(self.f, self.f.GetFMUstate(self.c, C.byref(s)), "fmi2GetFMUstate")
        self.states.append(s)
        return s

    def restore(self, s):
        _ok(self.f, self.f.SetFMUstate(self.c, s), "fmi2SetFMUstate")

    def close(self):
        for s in self.states:
            self.f.FreeFMUstate(self.c, C.byref(s))
        self.f.FreeInstance(self.c)


# ----------------------------------------------------------------------------- plans
@dataclass
class Plan:
    """One run: grid t0 + k*h, k = 0..n; before fmi2DoStep k: save the FMU state if k == save,
    then the sets of sets[k] (input values, solver.rtol).  restore: after the run, go back to
    the saved state and replay steps save..n-1 (with the same sets)."""
    t0: float
    h: float
    n: int
    rtol: float
    via_setup: bool                     # tolerance of fmi2SetupExperiment, else solver.rtol
    sets: dict = field(default_factory=dict)
    save: int | None = None
    restore: bool = False

    def grid(self):
        return [self.t0 + k * self.h for k in range(self.n + 1)]

    def copy(self, **changes):
        """a copy (the sets too) with some fields changed"""
        return dataclasses.replace(self, sets={k: dict(v) for k, v in self.sets.items()},
                                   **changes)

    def rtol_max(self):
        return max([self.rtol] + [s["solver.rtol"] for s in self.sets.values()
                                  if "solver.rtol" in s])


#: communication step sizes: exactly representable or not, and random decimals
GRIDS = [1e-4, 1e-3, 0.01, 0.05, 0.1, 1 / 3, 0.3, 2 / 3, 1 / 7, 0.125]
decimals = st.builds(lambda m, e: m * 10.0 ** -e, st.integers(1, 999), st.integers(2, 5))
start_times = st.one_of(st.just(0.0), st.sampled_from([1.0, 0.1, 1e3, 12345.678, -7.3]),
                        st.floats(-100.0, 1e4, allow_nan=False, allow_infinity=False))
log_rtol = st.floats(-10.0, -5.0)


@st.composite
def plans(draw, input_name=None, n_max=30, grids=GRIDS, t_max=10.0):
    """n <= n_max steps of h, at most t_max (at least 2 steps)"""
    h = draw(st.one_of(st.sampled_from(grids), decimals))
    n = draw(st.integers(2, max(2, min(n_max, int(t_max / h)))))
    rtol = 10.0 ** draw(log_rtol)
    sets = {}
    for _ in range(draw(st.integers(0, 3))):
        k = draw(st.integers(1, n - 1))
        what = draw(st.sampled_from(["input", "rtol"] if input_name else ["rtol"]))
        if what == "input":
            sets.setdefault(k, {})[input_name] = draw(st.floats(-3.0, 3.0))
        else:
            sets.setdefault(k, {})["solver.rtol"] = 10.0 ** draw(log_rtol)
    save = draw(st.one_of(st.none(), st.integers(1, n - 1)))
    return Plan(t0=draw(start_times), h=h, n=n, rtol=rtol, via_setup=draw(st.booleans()),
                sets=sets, save=save, restore=save is not None and draw(st.booleans()))


def bits(rows):
    return [tuple(struct.pack("<d", x) for x in row) for row in rows]


def run(f, method, plan: Plan, start: dict, names):
    """Step the plan; returns (grid, values at every point [n+1][len(names)], inputs in
    force during each step [n] as dicts).  With plan.restore the replay from the saved
    state must repeat the first pass bit for bit."""
    inst = Instance(f)
    try:
        inst.set(dict(start, **{"solver.method": method}))
        if not plan.via_setup:
            inst.set({"solver.rtol": plan.rtol})
        inst.init(plan.t0, plan.rtol if plan.via_setup else None)
        grid = plan.grid()
        rows = [inst.get(names)]
        held, inputs, saved = {}, [], None
        for k in range(plan.n):
            if k == plan.save:
                saved = inst.save()
            for name, x in plan.sets.get(k, {}).items():
                inst.set({name: x})
                held[name] = x
            inputs.append(dict(held))
            inst.do_step(grid[k], grid[k + 1] - grid[k])
            rows.append(inst.get(names))
        if plan.restore:
            inst.restore(saved)
            again = [inst.get(names)]
            for k in range(plan.save, plan.n):
                for name, x in plan.sets.get(k, {}).items():
                    inst.set({name: x})
                inst.do_step(grid[k], grid[k + 1] - grid[k])
                again.append(inst.get(names))
            assert bits(again) == bits(rows[plan.save:]), (
                f"replay from the FMU state saved at t={grid[plan.save]!r} differs from the "
                f"first pass: {again} vs {rows[plan.save:]}")
        return grid, np.array(rows), inputs
    finally:
        inst.close()


def check(plan, grid, got, ref, names, K, scale, floor=0.0, skip=(), cycles=0.0):
    """every point within K * (1 + cycles) * (rtol * scale + atol) (+ floor) of the
    reference; scale: the largest magnitude of each variable over the whole run (not only at
    the points); cycles: oscillation periods in the run (the global error of an oscillator
    grows with them)"""
    rtol = plan.rtol_max()
    scale = np.maximum(np.asarray(scale, dtype=float), np.max(np.abs(ref), axis=0))
    bound = K * (1.0 + cycles) * (rtol * scale + 1e-3 * rtol) + floor
    err = np.abs(got - ref)
    for k in skip:
        err[k] = 0.0
    bad = np.argwhere(err > bound)
    if len(bad):
        k, i = bad[0]
        worst = np.max(err / bound)
        raise AssertionError(
            f"{names[i]} at t[{k}]={grid[k]!r}: {got[k, i]!r}, reference {ref[k, i]!r} "
            f"(error {err[k, i]:.3g} > bound {bound[i]:.3g}; worst error/bound {worst:.3g}; "
            f"{len(bad)} bad values)\n{plan}")


# ----------------------------------------------------------------------------- regression
@METHODS
def test_continued_step_ending_on_the_next_point_is_delivered(fmus, method):
    """The issue's case (x = 40 t^2 from rest on a 1e-4 s grid): the first solver step
    100*1e-6 s ends one ulp short of 1e-4, the next one is stretched onto its bound 2e-4 and
    reaches past 1e-4; the fmi2DoStep to 2e-4 continues it and must deliver its end point,
    not the value at 1e-4 that v still held (4.0e-7 instead of 1.6e-6).  The FMU state saved
    there must hold 2e-4 as well (restoring it used to continue from the stale point)."""
    f = fmus("ConstAccel")
    h = 1e-4
    for restore in (False, True):
        inst = Instance(f)
        try:
            inst.set({"a": 80.0, "solver.method": method})
            inst.init(0.0)
            for k in range(6):
                inst.do_step(k * h, (k + 1) * h - k * h)
                t = (k + 1) * h
                x, v = inst.get(["x", "v"])
                assert x == pytest.approx(40 * t * t, rel=1e-12), (k, t, x, 40 * t * t)
                assert v == pytest.approx(80 * t, rel=1e-12), (k, t, v, 80 * t)
                if restore and k == 1:
                    inst.restore(inst.save())
        finally:
            inst.close()


# ----------------------------------------------------------------------------- properties
@METHODS
def test_grid_const_accel(fmus, method):
    """x'' = a from any start: every method is exact on the parabola (round-off only)."""
    f = fmus("ConstAccel")

    @SETTINGS
    @given(plan=plans(), x0=st.one_of(st.just(0.0), st.floats(-1.0, 1.0)),
           v0=st.one_of(st.just(0.0), st.floats(-1.0, 1.0)), a=st.floats(-100.0, 100.0))
    # the case (see the regression test above), also with the state saved there
    @example(plan=Plan(t0=0.0, h=1e-4, n=4, rtol=1e-6, via_setup=True), x0=0.0, v0=0.0, a=80.0)
    @example(plan=Plan(t0=0.0, h=1e-4, n=4, rtol=1e-6, via_setup=False, save=2, restore=True),
             x0=0.0, v0=0.0, a=80.0)
    def prop(plan, x0, v0, a):
        names = ["x", "v"]
        grid, got, _ = run(f, method, plan, {"x": x0, "v": v0, "a": a}, names)
        tau = np.array(grid) - plan.t0
        ref = np.column_stack([x0 + v0 * tau + 0.5 * a * tau ** 2, v0 + a * tau])
        tx = np.clip(-v0 / a if a else 0.0, 0.0, tau[-1])      # extremum of x
        scale = [max(abs(x0), abs(x0 + v0 * tx + 0.5 * a * tx * tx)), 0.0]
        # exact up to round-off (of the grid: t0 + k*h - t0 is not k*h)
        floor = 1e-12 * (1 + abs(plan.t0)) * (abs(v0) + abs(a) * (tau[-1] + 1))
        check(plan, grid, got, ref, names, K=10, scale=scale, floor=floor)
    prop()


def _linear_matrix(k, c, lam, F, w, b):
    """z = (p, v, q, sin(w t), cos(w t), u): z' = M z"""
    M = np.zeros((6, 6))
    M[0, 1] = 1.0
    M[1, 0], M[1, 1], M[1, 3], M[1, 5] = -k, -c, F, b
    M[2, 0], M[2, 2] = 1.0, -lam
    M[3, 4], M[4, 3] = w, -w
    return M


@METHODS
def test_grid_linear_input(fmus, method):
    """Linear ODE with random coefficients, harmonic forcing and an input set between steps:
    closed form (matrix exponential, interval by interval with the input held)."""
    from scipy.linalg import expm
    f = fmus("LinearInput")

    @SETTINGS
    @given(plan=plans(input_name="u"), k=st.floats(0.5, 400.0), c=st.floats(0.0, 5.0),
           lam=st.floats(0.1, 50.0), F=st.floats(-2.0, 2.0), w=st.floats(0.5, 20.0),
           b=st.floats(-2.0, 2.0), p0=st.floats(-1.0, 1.0), v0=st.floats(-1.0, 1.0),
           q0=st.floats(-1.0, 1.0))
    def prop(plan, k, c, lam, F, w, b, p0, v0, q0):
        names = ["p", "v", "q", "y"]
        start = dict(k=k, c=c, lam=lam, F=F, w=w, b=b, p=p0, v=v0, q=q0)
        grid, got, inputs = run(f, method, plan, start, names)
        M = _linear_matrix(k, c, lam, F, w, b)
        x = np.array([p0, v0, q0])
        ref = [[p0, v0, q0, p0 - 2 * q0]]
        sub = expm(M * (plan.h / 16))          # for the scale: 16 points per interval
        scale = np.abs(ref[0])
        for j in range(plan.n):
            u = inputs[j].get("u", 0.0)
            z = np.concatenate([x, [math.sin(w * grid[j]), math.cos(w * grid[j]), u]])
            zs = z
            for _ in range(16):
                zs = sub @ zs
                scale = np.maximum(scale, np.abs([zs[0], zs[1], zs[2], zs[0] - 2 * zs[2] + u]))
            x = (expm(M * (grid[j + 1] - grid[j])) @ z)[:3]
            ref.append([x[0], x[1], x[2], x[0] - 2 * x[2] + u])
        ref = np.array(ref)
        cycles = (grid[-1] - plan.t0) * max(math.sqrt(k), w) / (2 * math.pi)
        # RODAS4 (also inside auto) takes df/dt of this non-autonomous model from a forward
        # difference with the increment 1.5e-8*|t|: at rtol 1e-10 its error grows with the
        # absolute time (~0.5 rtol*scale at t = 0, ~30 at t = 1e4), hence the wider margin
        K = 100 if method == 1 else 500
        check(plan, grid, got, ref, names, K=K, scale=scale, cycles=cycles)
    prop()


def _pendulum_from_rest(theta0, w0, tau):
    """theta, omega of the pendulum released at rest from theta0 (|theta0| < pi), tau (array)
    after the release"""
    from scipy.special import ellipj, ellipk
    kk = math.sin(abs(theta0) / 2)
    m = kk * kk
    sn, cn, _, _ = ellipj(ellipk(m) - w0 * np.asarray(tau), m)
    sgn = 1.0 if theta0 >= 0 else -1.0
    return sgn * 2 * np.arcsin(kk * sn), -sgn * 2 * kk * w0 * cn


@METHODS
def test_grid_pendulum(fmus, method):
    """Nonlinear oscillator: closed form from rest; once the torque input is set, scipy's
    DOP853 at rtol 1e-13 from the closed-form state, interval by interval."""
    from scipy.integrate import solve_ivp
    f = fmus("Pendulum")

    @SETTINGS
    @given(plan=plans(input_name="tau"), theta0=st.floats(0.05, 2.0), g=st.floats(1.0, 50.0),
           L=st.floats(0.2, 5.0), neg=st.booleans())
    def prop(plan, theta0, g, L, neg):
        plan = plan.copy()
        theta0 = -theta0 if neg else theta0
        # amplitudes up to 2 rad, torques up to 0.05 g/L: the swing stays away from the
        # separatrix (near it the period depends strongly on the energy: the phase error of
        # any integrator grows much faster than with the number of periods)
        for values in plan.sets.values():
            if "tau" in values:
                values["tau"] *= g / L / 60.0
        names = ["theta", "omega"]
        grid, got, inputs = run(f, method, plan, {"theta": theta0, "omega": 0.0, "g": g,
                                                  "L": L}, names)
        w0 = math.sqrt(g / L)
        first = next((j for j in range(plan.n) if "tau" in inputs[j]), plan.n)
        th, om = _pendulum_from_rest(theta0, w0, np.array(grid[:first + 1]) - plan.t0)
        ref = [list(r) for r in zip(th, om)]
        kk = math.sin(abs(theta0) / 2)
        scale = np.array([abs(theta0), 2 * kk * w0])       # the swing's amplitudes
        y = np.array(ref[-1])
        for j in range(first, plan.n):
            tq = inputs[j]["tau"]
            sol = solve_ivp(lambda t, s: [s[1], -g / L * math.sin(s[0]) + tq],
                            (0.0, grid[j + 1] - grid[j]), y, method="DOP853", rtol=1e-13,
                            atol=1e-15, dense_output=True)
            dense = sol.sol(np.linspace(0.0, grid[j + 1] - grid[j], 17))
            scale = np.maximum(scale, np.max(np.abs(dense), axis=1))
            y = sol.y[:, -1]
            ref.append(list(y))
        cycles = (grid[-1] - plan.t0) * w0 / (2 * math.pi)
        check(plan, grid, got, np.array(ref), names, K=100, scale=scale, cycles=cycles)
    prop()


def _ball(tau, H, v0, g, e):
    """height, velocity and number of impacts at tau after the start (height H, velocity v0)"""
    V = math.sqrt(v0 * v0 + 2 * g * H)
    T = (v0 + V) / g
    if tau < T:
        return H + v0 * tau - 0.5 * g * tau * tau, v0 - g * tau, 0
    tau -= T
    Vn, n = e * V, 1
    while True:
        Fl = 2 * Vn / g
        if tau < Fl:
            return Vn * tau - 0.5 * g * tau * tau, Vn - g * tau, n
        tau -= Fl
        Vn *= e
        n += 1


def _ball_impacts(H, v0, g, e, n):
    """times of the first n impacts after the start"""
    V = math.sqrt(v0 * v0 + 2 * g * H)
    t = [(v0 + V) / g]
    Vn = e * V
    while len(t) < n:
        t.append(t[-1] + 2 * Vn / g)
        Vn *= e
    return t


@METHODS
def test_grid_bouncing_ball(fmus, method):
    """State events with reinit between closed-form parabolas (the library's BouncingBall),
    run to at most 8 impacts (far from its Zeno point): height, velocity and the impact count
    at every point; a point closer than 1e-8 s to an impact is not compared (either side of
    the event is right there)."""
    f = fmus(BB)

    @SETTINGS
    @given(plan=plans(n_max=40, grids=[0.01, 0.05, 0.1, 1 / 3, 0.3, 2 / 3, 1 / 7, 0.125, 1e-3],
                      t_max=20.0),
           H=st.floats(0.1, 3.0), v0=st.floats(-2.0, 2.0), g=st.floats(1.0, 20.0),
           e=st.floats(0.5, 0.9))
    # 4 impacts at rtol 1e-10: the lateness of the impacts (hysteresis) is 2e-9 in v
    @example(plan=Plan(t0=0.0, h=1.97, n=2, rtol=1e-10, via_setup=False), H=0.1015625, v0=0.0,
             g=1.0, e=0.875)
    def prop(plan, H, v0, g, e):
        impacts = _ball_impacts(H, v0, g, e, 8)
        plan = plan.copy(n=min(plan.n, int(impacts[-1] / plan.h)))
        if plan.n < 2:                           # two steps up to the 8th impact at most
            plan.h, plan.n = 0.49 * impacts[-1], 2
        if plan.save is not None and plan.save >= plan.n:
            plan.save = plan.n - 1
        plan.sets = {k: s for k, s in plan.sets.items() if k < plan.n}
        names = ["h", "v", "nImpacts"]
        grid, got, _ = run(f, method, plan, {"h": H, "v": v0, "g": g, "e": e}, names)
        ref = np.array([_ball(t - plan.t0, H, v0, g, e) for t in grid], dtype=float)
        near = [k for k, t in enumerate(grid)
                if min(abs(t - plan.t0 - ti) for ti in impacts) < 1e-8 * max(1.0, abs(t))]
        # the impacts happen ~1e-10 m below the floor (the relation's hysteresis): each one
        # is late by ~2e-10 m / its speed; event location: 1e-12*max(1,|t|) (both x g, V)
        V = math.sqrt(v0 * v0 + 2 * g * H)
        late = sum(2e-10 / (V * e ** j) for j, ti in enumerate(impacts)
                   if ti <= grid[-1] - plan.t0)
        floor = (late + 1e-10 * max(1.0, abs(grid[-1]))) * (g + V)
        scale = [H + max(v0, 0.0) ** 2 / (2 * g), V, 0.0]
        check(plan, grid, got, ref, names, K=30, scale=scale, floor=floor, skip=near)
    prop()
