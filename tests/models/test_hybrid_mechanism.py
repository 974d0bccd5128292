"""3-CPaR&R1R2 hybrid mechanism with a clearance at D3 (SPEC 2.1): near-zero clearance vs
ideal twin, every example runs, the seed's trends, wear-profile plumbing.  rumoca, rtol 1e-9."""
import math
import re
from pathlib import Path

import numpy as np
import pytest

from wctest import ROOT
from rumoca_sim import on_grid, simulate

EXAMPLES = ROOT / "modelica" / "WearCosim" / "Examples" / "HybridMechanism"


def _experiment(name):
    s = (EXAMPLES / f"{name}.mo").read_text()
    stop = float(re.search(r"StopTime = ([0-9.eE+-]+)", s).group(1))
    interval = float(re.search(r"Interval = ([0-9.eE+-]+)", s).group(1))
    return stop, interval


@pytest.mark.parametrize("suffix", ["", "Gravity", "Friction"])
def test_near_zero_clearance_matches_ideal_reaction(suffix):
    """c = 1 um, w = 8 pi: the D3 joint force equals the ideal twin's reaction within 5 % RMS
    (vector difference over the second drive period; the first holds the start-up transient of
    the journal released at the bearing centre, ~1e2 impacts of decreasing size).
    Measured: < 0.1 %.  Also with gravity in the joint plane (data.gPlane = 9.81), which checks
    the gravity terms of the clearance model against those of the ideal twin, and with Coulomb
    friction in chain 3's passive joints (data.tauFricA3 = data.tauFricPa = 0.1 N m), which checks
    the friction terms likewise."""
    period = 2 * math.pi / (8 * math.pi)
    ti, di = simulate("HybridIdeal8pi" + suffix, 2 * period, 1e-4)
    tc, dc = simulate("HybridNearZero" + suffix, 2 * period, 1e-4)
    m = ti >= period
    dfx = on_grid(ti, tc, dc["Fx"]) - di["Fx"]
    dfy = on_grid(ti, tc, dc["Fy"]) - di["Fy"]
    rel = math.sqrt(np.mean(dfx[m] ** 2 + dfy[m] ** 2)) / math.sqrt(np.mean(di["Fjoint"][m] ** 2))
    print("relative RMS difference of the D3 force: %.3e" % rel)
    assert rel < 0.05
    assert np.all(dc["delta"] < 1e-6)            # the 1 um clearance is never crossed by more than 1 um


CASES = ["DrySpeed4pi", "DrySpeed8pi", "DrySpeed16pi", "DrySpeed32pi", "DryClearance015", "DryClearance025",
         "DryClearance035", "DryClearance045", "Dry7pi", "Lubricated7pi"]


@pytest.mark.parametrize("name", CASES)
def test_example_runs_to_stop_time(name):
    """Each example (wearDepth bound to 0) runs over its experiment (two drive periods) without
    solver failure; outputs finite; the journal stays in its bearing (penetration < 10 % of c,
    an order of magnitude above the measured maxima of 1-13 um for c >= 0.15 mm)."""
    stop, interval = _experiment(name)
    t, d = simulate("Hybrid" + name, stop, interval)
    assert t[-1] == pytest.approx(stop, rel=1e-9)
    for k in ("Fn", "Ft", "delta", "theta", "vSlip", "halfWidth", "ex", "ey", "Fjoint"):
        assert np.all(np.isfinite(d[k])), k
    c = float(re.search(r"c = ([0-9.e-]+)", (EXAMPLES / f"{name}.mo").read_text()).group(1))
    assert d["delta"].max() < 0.1 * c
    assert np.all(d["Fn"] >= 0) and np.all(d["halfWidth"] >= 0)


def _stats(name):
    stop, interval = _experiment(name)
    t, d = simulate("Hybrid" + name, stop, interval)
    ic = d["delta"] > 0
    return {"onsets": int(np.sum(ic[1:] & ~ic[:-1])), "maxdelta": d["delta"].max(), "maxFn": d["Fn"].max()}


def test_speed_trend_of_the_seed():
    """Seed 002, section 3.1 (c = 0.25 mm): higher speed -> fewer separate impacts and deeper
    penetration. Measured onsets 38/28/23/20, max penetration 1.3/3.2/5.2/10.1 um."""
    s = [_stats(n) for n in ("DrySpeed4pi", "DrySpeed8pi", "DrySpeed16pi", "DrySpeed32pi")]
    print(s)
    assert all(a["maxdelta"] < b["maxdelta"] for a, b in zip(s, s[1:]))
    assert all(a["onsets"] >= b["onsets"] for a, b in zip(s, s[1:])) and s[0]["onsets"] > s[-1]["onsets"]


def test_clearance_trend():
    """w = 30 pi: larger clearance -> larger impact penetration and force (seed 3.1: deeper wear)."""
    s = [_stats(n) for n in ("DryClearance015", "DryClearance025", "DryClearance035", "DryClearance045")]
    print(s)
    assert all(a["maxdelta"] < b["maxdelta"] for a, b in zip(s, s[1:]))


def test_lubrication_softens_contact():
    """c = 0.20 mm, w = 7 pi (seed 3.2): lubricated -> smaller penetration and solid-contact force
    than dry (here the film carries the whole load: no solid contact at all)."""
    dry, lub = _stats("Dry7pi"), _stats("Lubricated7pi")
    print(dry, lub)
    assert lub["maxdelta"] < dry["maxdelta"] and lub["maxFn"] < dry["maxFn"]
    assert dry["onsets"] > 0


def test_worn_profile_enters_the_local_clearance():
    """With a non-uniform wearDepth the joint uses c_local = c + h(theta): delta = e - c - h(theta)
    with h the periodic linear interpolation of the sector values (checked to round-off)."""
    stop, interval = _experiment("Dry7pi")
    t, d = simulate("HybridDry7piWorn", stop, interval)
    n, c = 36, 0.20e-3
    i = np.arange(1, n + 1)
    h = 20e-6 * np.exp(-(((i - 10) / 3.0) ** 2))
    centres = (i - 0.5) * 2 * math.pi / n
    th = np.mod(d["theta"], 2 * math.pi)
    h_th = np.interp(th, np.concatenate(([centres[-1] - 2 * math.pi], centres, [centres[0] + 2 * math.pi])),
                     np.concatenate(([h[-1]], h, [h[0]])))
    e = np.sqrt(d["ex"] ** 2 + d["ey"] ** 2 + 1e-24)
    np.testing.assert_allclose(d["delta"], e - c - h_th, rtol=0, atol=1e-12)
    assert np.any(h_th > 5e-6)          # the orbit visits the worn zone (else the check would be vacuous)
