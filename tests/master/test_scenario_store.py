"""Scenario validation, atomic results/checkpoints, profile reconstruction."""
import numpy as np
import pytest

from wearcosim.master import store
from wearcosim.master.scenario import ScenarioError, from_dict, load
from wearcosim.wear.reconstruction import smooth_periodic, update_profile

GOOD = {"name": "t", "fmu": {"model": "WearCosim.Examples.SliderCrank.SliderCrankDry"},
        "wear": {"k": 1e-4, "hardness": 1e9, "cycles": 3, "omega": 523.6}, "run": {"steps_per_cycle": 100}}


def test_scenario_defaults_and_period():
    s = from_dict(GOOD, "x.toml")
    assert s.period == pytest.approx(2 * np.pi / 523.6)
    assert s.step == pytest.approx(s.period / 100)


@pytest.mark.parametrize("patch, needle", [
    ({"wear": {"k": 1e-4, "hardness": 1e9, "omega": 1.0, "cycels": 3}}, "wear.cycels"),
    ({"wear": {"k": "big", "hardness": 1e9, "omega": 1.0}}, "wear.k"),
    ({"wear": {"k": 1e-4, "hardness": -1.0, "omega": 1.0}}, "hardness"),
    ({"run": {"steps_per_cycle": 2.5}}, "run.steps_per_cycle"),
    ({"fmu": {}}, "[fmu] needs"),
    ({"start": {"c": "x"}}, "start.c"),
    ({"extra": 1}, "'extra'"),
])
def test_bad_scenarios_name_the_key(patch, needle):
    d = {**GOOD, **patch}
    with pytest.raises(ScenarioError) as ei:
        from_dict(d, "bad.toml")
    assert needle in str(ei.value) and "bad.toml" in str(ei.value)


def test_invalid_toml_file(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text("name = \n")
    with pytest.raises(ScenarioError, match="s.toml: invalid TOML"):
        load(p)


def test_checkpoint_roundtrip_and_corruption(tmp_path):
    p = tmp_path / "c.ckpt"
    arrays = {"depth": np.arange(5.0), "blob": np.frombuffer(b"abc", dtype=np.uint8)}
    store.save_checkpoint(p, arrays, {"cycle": 3})
    a, m = store.load_checkpoint(p)
    assert m == {"cycle": 3} and np.array_equal(a["depth"], arrays["depth"])
    raw = bytearray(p.read_bytes())
    raw[-10] ^= 0xFF
    p.write_bytes(bytes(raw))
    with pytest.raises(store.CheckpointError, match="corrupted"):
        store.load_checkpoint(p)
    p.write_bytes(b"garbage")
    with pytest.raises(store.CheckpointError, match="not a wearcosim checkpoint"):
        store.load_checkpoint(p)
    # no temporary files left behind
    assert sorted(x.name for x in tmp_path.iterdir()) == ["c.ckpt"]


def test_results_file(tmp_path):
    p = store.write_results(tmp_path / "r.h5", {"a": 1, "b": {"x": [1, 2]}}, {"time": np.arange(3.0)},
                            {"final": np.ones(4)})
    meta, series, wear = store.read_results(p)
    assert meta["b"] == {"x": [1, 2]} and series["time"][-1] == 2.0 and wear["final"].sum() == 4


def test_reconstruction_conserves_volume_and_extrapolates():
    rng = np.random.default_rng(0)
    inc = rng.uniform(0, 1e-9, 36)
    h = update_profile(np.zeros(36), inc, 1000, smoothing=2)
    assert h.sum() == pytest.approx(1000 * inc.sum(), rel=1e-12)
    assert np.ptp(h) < 1000 * np.ptp(inc)      # smoothing damps sector noise
    assert np.allclose(smooth_periodic(inc, 0), inc)
    with pytest.raises(ValueError):
        update_profile(np.zeros(3), np.array([1.0, -1.0, 0.0]))


def test_results_of_the_older_layouts_still_plot(tmp_path):
    """A results file as wearcosim wrote it before the streamed layout (no /summary, no
    /extrapolation, a numeric meta/extrapolation): ``wearcosim plot`` draws it; a file that is
    not a results file gets one error line."""
    import subprocess
    import sys

    from wctest import ROOT
    n = 36
    th = (np.arange(n) + 0.5) * 2 * np.pi / n
    depth = np.outer(np.arange(4), 1e-7 * (1 + np.cos(th)))
    t = np.linspace(0, 0.1, 200)
    store.write_results(tmp_path / "old.h5",
                        {"scenario": {"name": "old"}, "extrapolation": 100.0, "clearance": 2.5e-4, "n_sectors": n,
                         "radius": 0.01, "length": 0.02, "extent": 0.0},
                        {"time": t, "ex": 2e-4 * np.cos(60 * t), "ey": 2e-4 * np.sin(60 * t)},
                        {"cycles": np.arange(4) * 100.0, "simulated_cycles": np.arange(4), "depth": depth,
                         "sector_centres": th, "final": depth[-1]})
    assert store.read_summary(tmp_path / "old.h5") == {} and store.read_extrapolation(tmp_path / "old.h5") == {}
    env = dict(__import__("os").environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-m", "wearcosim.cli", "plot", str(tmp_path / "old.h5"), "--out",
                        str(tmp_path / "fig")], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert {f.name for f in (tmp_path / "fig").glob("*.png")} >= {"old_orbit.png", "old_wearmap.png",
                                                                   "old_profiles.png", "old_polar.png"}
    (tmp_path / "junk.h5").write_bytes(b"not hdf5")
    p = subprocess.run([sys.executable, "-m", "wearcosim.cli", "plot", str(tmp_path / "junk.h5")],
                       capture_output=True, text=True, env=env)
    assert p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1 and p.stderr.startswith("error: ")


def test_smoothing_of_an_open_profile_never_mixes_its_ends():
    """Along a gear flank (an open profile) the moving average is cut at the ends: wear at
    the root does not leak to the tip (it would with the periodic average of a bearing)."""
    x = np.zeros(20)
    x[0] = 1.0                                   # wear at the root only
    open_ = smooth_periodic(x, 2, periodic=False)
    closed = smooth_periodic(x, 2)
    assert closed[-1] > 0 and open_[-1] == 0.0 and np.all(open_[3:] == 0.0)
    np.testing.assert_allclose(open_[:3], [1 / 3, 1 / 4, 1 / 5])
    y = np.random.default_rng(2).uniform(size=20)
    assert np.allclose(smooth_periodic(y, 3, periodic=False)[5:-5], smooth_periodic(y, 3)[5:-5])
