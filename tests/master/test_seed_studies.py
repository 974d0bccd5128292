"""The seed's three studies (seed 002 section 3; SPEC 2.1) run from cosim/seed through the
study runner (2 local worker processes) at 500 communication steps per cycle, and the trends
the model reproduces.

Configuration: chain 3's plane vertical (data.gPlane = 9.81, see
WearCosim.Mechanisms.BaseHybridMechanism3CPaR): a speed-independent (gravity) load against
inertial loads ~ w^2.  Measured (20/80 cycles, k = 1e-4, H = 1.2 GPa, extrapolated):

  speed     4pi      8pi      16pi     32pi      peak/mean 22.4, 12.7, 7.9, 3.1
  clearance 0.15 .. 0.45 mm: peak 0.45 -> 1.42 um, mean x3.9 (speed 4pi -> 32pi: mean x20)
  lubrication (7pi, c = 0.2 mm): lubricated peak 0.16 of dry, 2 sectors apart

What the model does NOT reproduce (stated in the issue's note): the peak depth at 4pi exceeds
the one at 8pi -- at low speed gravity keeps the journal resting at the bottom of the bearing
and all the (small) sliding wears one spot; from 8pi up peak and mean grow with speed.
"""
import numpy as np
import pytest

from wctest import ROOT
from wearcosim.master.scenario import load
from wearcosim.master.store import read_results

SEED = ROOT / "cosim" / "seed"


def _run(names, tmp_path, title):
    import tomli_w
    from wearcosim.studies.runner import run_all, write_report
    paths = []
    for n in names:
        sc = load(SEED / f"{n}.toml")
        d = dict(sc.raw)
        d["run"] = dict(d["run"], steps_per_cycle=500)
        p = tmp_path / f"{n}.toml"
        p.write_text(tomli_w.dumps(d))
        paths.append(p)
    out = run_all(paths, tmp_path / "out", workers=2)
    rows = write_report(out, tmp_path / "out", title)
    assert (tmp_path / "out" / f"{title}.md").exists() and (tmp_path / "out" / f"{title}.csv").exists()
    return {r["case"]: r for r in rows}, {n: read_results(p)[2] for n, p in zip(names, out)}


@pytest.fixture(scope="module")
def speed(tmp_path_factory):
    return _run(["speed_4pi", "speed_8pi", "speed_16pi", "speed_32pi"], tmp_path_factory.mktemp("speed"), "speed")


@pytest.fixture(scope="module")
def clearance(tmp_path_factory):
    return _run(["clearance_015", "clearance_025", "clearance_035", "clearance_045"],
                tmp_path_factory.mktemp("clearance"), "clearance")


def test_speed_makes_wear_more_uniform_and_deeper(speed):
    rows, _ = speed
    r = [rows[f"speed_{w}pi"] for w in (4, 8, 16, 32)]
    ratio = [x["peak_over_mean"] for x in r]
    assert all(a > b for a, b in zip(ratio, ratio[1:])), ratio            # more uniform
    mean = [x["mean_um"] for x in r]
    assert mean[1] < mean[2] < mean[3] and mean[3] > 5 * mean[0], mean     # deeper
    peak = [x["peak_um"] for x in r]
    assert min(peak[2:]) > max(peak[:2]), peak


def test_peak_to_rest_gap_grows_with_cycles(speed):
    """w = 32 pi, c = 0.25 mm (seed Fig. 6): the gap between the wear peak and the rest of the
    bearing (median sector) grows with every wear update."""
    depth = speed[1]["speed_32pi"]["depth"]
    gap = depth.max(axis=1) - np.median(depth, axis=1)
    assert np.all(np.diff(gap[1:]) > 0) and gap[-1] > 5 * gap[1]


def test_clearance_deepens_wear_less_than_speed(clearance, speed):
    rows, _ = clearance
    r = [rows[f"clearance_{c}"] for c in ("015", "025", "035", "045")]
    peak = [x["peak_um"] for x in r]
    assert all(a < b for a, b in zip(peak, peak[1:])), peak
    c_effect = r[-1]["mean_um"] / r[0]["mean_um"]
    s_rows = speed[0]
    s_effect = s_rows["speed_32pi"]["mean_um"] / s_rows["speed_4pi"]["mean_um"]
    assert 1 < c_effect < s_effect, (c_effect, s_effect)


def test_lubrication_reduces_wear_at_the_same_place(tmp_path):
    rows, finals = _run(["lubrication_dry", "lubrication_lubricated"], tmp_path, "lubrication")
    dry, lub = rows["lubrication_dry"], rows["lubrication_lubricated"]
    ratio = lub["peak_um"] / dry["peak_um"]
    assert 0 < ratio < 0.3, ratio
    n = len(finals["lubrication_dry"]["final"])
    d = abs(int(np.argmax(finals["lubrication_dry"]["final"])) - int(np.argmax(finals["lubrication_lubricated"]["final"])))
    assert min(d, n - d) <= 2
