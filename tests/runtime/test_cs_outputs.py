"""Co-Simulation reads between steps, and what a step may span (fmu/runtime/rt_cs.c).

* After fmi2DoStep only the states are current; a read of outputs evaluates the outputs alone
  (mdl_out), or, when every output asked is a cheap one, the cheap outputs alone
  (mdl_out_cheap: kinematics, not the contact law).  Whatever is read in whatever order, every
  value must be bit for bit the value of a whole evaluation at the same point: random read
  sequences on one instance against a second that reads every variable after every step.
* A solver step may span several communication points (up to 16): on a fine grid the steps
  are far fewer than the points, and the values at the points are as exact as elsewhere.
* pow with the exponents of contact laws (wc_math.h): x^1.5 and x^2 against libm's pow.

The model is written here as a user would: a pendulum striking a compliant wall (Hunt-Crossley
contact, exponent 3/2 written literally and as a parameter), with a tip position (cheap) and
contact forces (the whole contact law) as outputs."""
from __future__ import annotations

import random
import re
import subprocess
import textwrap
import zipfile

import numpy as np
import pytest

from wearcosim.fmi.runner import open_fmu

STRIKER = """
model Striker "A pendulum striking a compliant wall (Hunt-Crossley contact)"
  parameter Real L = 0.5 "Length [m]";
  parameter Real g = 9.81 "Gravity [m/s2]";
  parameter Real xw = 0.2 "Wall position [m]";
  parameter Real k = 2e4 "Contact stiffness [N/m^1.5]";
  parameter Real n = 1.5 "Contact exponent";
  parameter Real cr = 0.8 "Coefficient of restitution";
  parameter Real m = 1 "Tip mass [kg]";
  Real phi(start = 1.2, fixed = true) "Angle from the vertical [rad]";
  Real w(start = 0, fixed = true) "Angular velocity [rad/s]";
  output Real xTip "Tip position, horizontal [m]";
  output Real yTip "Tip position, vertical [m]";
  output Real vTip "Tip speed [m/s]";
  output Real delta "Penetration [m]";
  output Real Fn "Contact force (exponent literal) [N]";
  output Real Fp "Contact force (exponent a parameter) [N]";
  output Real torque "Contact torque [N.m]";
equation
  xTip = L*sin(phi);
  yTip = -L*cos(phi);
  vTip = L*w;
  delta = max(xTip - xw, 0);
  Fn = k*delta^1.5*(1 + 3*(1 - cr^2)/4*max(L*w*cos(phi), 0)/1.0)*(1 + 0.01*tanh(delta/1e-6));
  Fp = k*delta^n*(1 + 3*(1 - cr^2)/4*max(L*w*cos(phi), 0)/1.0);
  torque = -Fn*L*cos(phi) - 0.5*Fp*L*cos(phi)*exp(-delta/1e-3);
  m*L^2*der(w) = -m*g*L*sin(phi) + torque;
  der(phi) = w;
  annotation (experiment(StopTime = 2, Interval = 1e-3));
end Striker;
"""
OUTS = ["xTip", "yTip", "vTip", "delta", "Fn", "Fp", "torque"]


@pytest.fixture(scope="module")
def striker(tmp_path_factory):
    from wearcosim.export.build import build_fmu
    d = tmp_path_factory.mktemp("striker")
    p = d / "Striker.mo"
    p.write_text(textwrap.dedent(STRIKER))
    return build_fmu("Striker", d, d, path=p).fmu


def _config(fmu) -> str:
    with zipfile.ZipFile(fmu) as z:
        return z.read("sources/config.h").decode()


def test_the_kinematic_outputs_are_cheap_and_the_contact_forces_are_not(striker):
    cfg = _config(striker)
    assert re.search(r"#define MDL_HAS_OUT_CHEAP\s+1", cfg)
    with zipfile.ZipFile(striker) as z:
        model = z.read("sources/model.c").decode()
    idx = [int(i) for i in re.search(r"mdl_out_cheap_idx\[N_OUT_CHEAP\] = \{([0-9,]*)\}", model).group(1).split(",")]
    slots = [int(i) for i in re.search(r"mdl_out_slot\[[^]]*\] = \{([0-9,]*)\}", model).group(1).split(",")]
    import fmpy
    names = {v.valueReference: v.name for v in fmpy.read_model_description(str(striker)).modelVariables}
    cheap = {names[slots[i]] for i in idx}
    assert {"xTip", "yTip", "vTip"} <= cheap
    assert not cheap & {"Fn", "Fp", "torque"}


def _reader(fmu, method):
    r = open_fmu(fmu, log_level=0)
    r.setup(0.0, None, 1e-7)
    r.set({"solver.method": method})
    r.initialize()
    return r


@pytest.mark.parametrize("method", [0, 1, 2, 3], ids=["auto", "dopri5", "rodas4", "adams"])
@pytest.mark.parametrize("seed", range(3))
def test_random_reads_after_steps_give_the_values_of_a_whole_evaluation(striker, method, seed):
    rng = random.Random(seed)
    a, b = _reader(striker, method), _reader(striker, method)
    try:
        every = sorted(v.valueReference for v in b.md.modelVariables if v.type == "Real")
        names = {v.name: v.valueReference for v in b.md.modelVariables}
        groups = [["xTip"], ["yTip", "xTip"], ["vTip"], ["Fn"], ["xTip", "torque"], ["delta", "Fp"],
                  ["phi", "xTip"], ["der(w)"], OUTS]
        t, contacts = 0.0, 0
        for _ in range(150):
            h = rng.choice([1e-4, 1e-3, 3.7e-3, 0.02])
            for inst in (a, b):
                inst.slave.doStep(t, h, True)
            t += h
            whole = dict(zip(every, b.slave.getReal(every)))
            contacts += whole[names["Fn"]] > 0
            for _ in range(rng.randint(0, 3)):
                g = rng.choice(groups)
                got = a.slave.getReal([names[x] for x in g])
                assert list(got) == [whole[names[x]] for x in g], (g, t)
        assert contacts > 10                     # in contact at > 10 points: contact forces were read
    finally:
        a.terminate()
        b.terminate()


def _solver_steps(r) -> int:
    """fmi2Terminate with logging on: the solver's step count (the runtime's counters line)."""
    r.log.clear()
    r.slave.setDebugLogging(True, [])
    r.terminate()
    line = next(x for x in r.log if "steps=" in x)
    return int(re.search(r"steps=(\d+)", line).group(1))


@pytest.mark.parametrize("method", [1, 3], ids=["dopri5", "adams"])
def test_a_solver_step_spans_many_communication_points(striker, method):
    """A free swing (0 - 0.05 s, off the wall) on a 1e-5 s grid: 5000 points; the solver's
    steps span up to 16 of them (limited by that: the tolerance alone would allow longer
    ones), and every value still agrees with the same run on a grid 10x coarser."""
    fine, coarse = [], []
    for n, store in ((5000, fine), (500, coarse)):
        r = open_fmu(striker, log_level=0)
        r.setup(0.0, None, 1e-8, 0.05 / n)
        r.set({"solver.method": method, "phi": 0.2})          # the tip stays off the wall
        r.initialize()
        t, y = r.step_record(n, r.vr(["xTip", "vTip"]))
        store += [t, y, _solver_steps(r)]
    steps = fine[2]
    assert steps <= 5000 / 16 + 5, steps        # one step per point before: >= 5000
    yf = fine[1][9::10]
    assert np.max(np.abs(yf - coarse[1]) / np.ptp(coarse[1], axis=0)) < 1e-6


def test_wc_pow_matches_libm(tmp_path):
    """wc_pow (fmu/templates/wc_math.h, compiled as the FMUs compile it) against pow: within
    two units in the last place for the exponent 1.5, exact for 2 and for other exponents, the
    same special values."""
    from wearcosim.export.codegen import TEMPLATES
    src = tmp_path / "p.c"
    src.write_text(textwrap.dedent("""
        #include <stdio.h>
        #include <math.h>
        static double lib(double x, double y) { return pow(x, y); }
        #include "wc_math.h"
        int main(void) {
            double x;
            while (scanf("%lf", &x) == 1)
                printf("%a %a %a %a %a %a\\n", wc_pow(x, 1.5), lib(x, 1.5), wc_pow(x, 2.0),
                       lib(x, 2.0), wc_pow(x, 2.5), lib(x, 2.5));
            return 0;
        }"""))
    exe = tmp_path / "p"
    subprocess.run(["gcc", "-O2", "-fno-math-errno", "-std=c99", "-ffp-contract=off", "-I", str(TEMPLATES),
                    str(src), "-o", str(exe), "-lm"], check=True)
    rng = np.random.default_rng(5)
    xs = np.concatenate([10.0 ** rng.uniform(-300, 300, 2000), rng.uniform(0, 1e-3, 1000),
                         [0.0, -0.0, 1.0, 4.0, np.inf, -1.0, -np.inf, np.nan, 5e-324, 1.7e308]])
    out = subprocess.run([str(exe)], input="\n".join(repr(float(x)) for x in xs),
                         capture_output=True, text=True, check=True).stdout.split("\n")
    for x, line in zip(xs, out):
        a15, l15, a2, l2, a25, l25 = (float.fromhex(v) for v in line.split())
        if np.isnan(l15):
            assert np.isnan(a15), x
        elif np.isinf(l15) or l15 == 0.0:
            assert a15 == l15, x
        elif l15 > 1e-290:                                   # normal range: two ulp
            assert abs(a15 - l15) <= 2 * np.spacing(l15), (x, a15, l15)
        assert a2 == l2 or (np.isnan(a2) and np.isnan(l2)), x
        assert a25 == l25 or (np.isnan(a25) and np.isnan(l25)), x
