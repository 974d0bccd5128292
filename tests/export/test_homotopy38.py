"""Issue 38: homotopy(actual, simplified) (MLS 3.7.4.4).

The exporter used to take ``actual`` alone.  Now the homotopy parameter lambda (1: actual)
travels in the generated functions' initial() flag (INIT = 2 - lambda, symbolic.Evaluator.
homotopy): every evaluation outside the initialisation sees ``actual`` exactly; a model with
homotopy() in a nonlinear loop gets HAS_HOMOTOPY in config.h, and at initialisation rt_newton
solves the loop with the simplified expressions (lambda = 0) and follows lambda to 1 in natural-
parameter steps before its ordinary solve (rt_newton.c "Homotopy").  Models without homotopy()
generate the same sources as before (no HAS_HOMOTOPY, no mdl_nl_res_hom).

The models (fixtures/homotopy38/) were written for these tests from textbook circuits; the
references are closed forms and SciPy on the models' own equations.
"""
from __future__ import annotations

import math
import zipfile

import numpy as np
import pytest
from scipy.optimize import brentq

from wctest import build_alone, simulate


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("homotopy38")
    return {m: build_alone(m, tmp) for m in ("HomCubic", "HomRelaxation")}


def _source(fmu, name):
    with zipfile.ZipFile(fmu) as z:
        return z.read(f"sources/{name}").decode()


def test_sources_flag(fmus):
    for m in ("HomCubic", "HomRelaxation"):
        assert "#define HAS_HOMOTOPY 1" in _source(fmus[m], "config.h")
        assert "int mdl_nl_res_hom(" in _source(fmus[m], "model.c")


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_cubic_takes_the_simplified_branch(fmus, fmi_type):
    """x^3 - 4x + 1 + d(t) = 0 has three roots; the actual expression alone from x = 0 gives
    the middle one (0.254 at t = 0), the homotopy from x = 2 the largest, which the
    simulation then follows."""
    r = simulate(fmus["HomCubic"], ["x", "y", "d"], fmi_type, 1.0, 0.01, 1e-8)
    t = r["time"]
    ref = np.array([brentq(lambda x, d=0.5 * math.sin(2 * math.pi * tt): x ** 3 - 4 * x + 1 + d, 1.2, 3.0)
                    for tt in t])
    np.testing.assert_allclose(r["x"], ref, rtol=0, atol=1e-7)
    np.testing.assert_allclose(r["y"], 2 * ref, rtol=0, atol=2e-7)
    # the branch the actual expression alone would give from the start value 0: not taken
    middle = brentq(lambda x: x ** 3 - 4 * x + 1, -1.0, 1.0)
    assert abs(r["x"][0] - middle) > 1.0


RC, VSAT, BETA = 1000 * 1e-4, 15.0, 0.5     # HomRelaxation: R C, Vsat, R1/(R1 + R2)


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_relaxation_starts_on_the_lower_limit(fmus, fmi_type):
    """At vc = 1 V (inside the hysteresis band) the loop has three solutions: vout = -15,
    +15 and 2.00 V (linear region, unstable); simplified = -Vsat selects -15 V, and the
    capacitor discharges towards -15 V until it reaches the threshold -BETA Vsat:
    vc = -15 + 16 exp(-t/RC) up to t1 = RC ln(16/7.5) = 0.0758."""
    r = simulate(fmus["HomRelaxation"], ["vc", "vp", "vout"], fmi_type, 0.06, 0.002, 1e-8)
    t = r["time"]
    assert r["vout"][0] == pytest.approx(-VSAT, abs=1e-9)
    assert r["vp"][0] == pytest.approx(-BETA * VSAT, abs=1e-9)
    np.testing.assert_allclose(r["vout"], -VSAT, atol=1e-6)
    np.testing.assert_allclose(r["vc"], -VSAT + (1 + VSAT) * np.exp(-t / RC), rtol=0, atol=1e-5)


@pytest.mark.xfail(strict=True, reason="the loop loses its hysteresis during the simulation: rt_newton is "
                   "warm-started from the last evaluation (a solver stage or a rejected step beyond the "
                   "fold), so the output switches up to 0.5 V before the threshold; not the homotopy's")
def test_relaxation_period(fmus):
    """Switching times: t1 = RC ln((1 + Vsat)/(Vsat (1 - BETA))), then every half period
    RC ln(1 + 2 R1/R2) = RC ln 3 (period 2 RC ln 3 = 0.2197)."""
    r = simulate(fmus["HomRelaxation"], ["vout"], "CoSimulation", 1.0, 0.0002, 1e-8)
    t, v = r["time"], r["vout"]
    sw = t[1:][np.sign(v[1:]) != np.sign(v[:-1])]
    t1 = RC * math.log((1 + VSAT) / (VSAT * (1 - BETA)))
    ref = t1 + RC * math.log(3) * np.arange(len(sw))
    assert len(sw) == 9
    np.testing.assert_allclose(sw, ref, atol=1e-3)
