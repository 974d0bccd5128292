"""The Python API (``import wearcosim as wc``): the quick-start example runs as a user would run
it; Scenario.replace merges and re-validates; run() takes a Scenario, a path or a dict and
gives Results with NumPy arrays; the results open in xarray with named dimensions and units
(through the API and through h5netcdf); study() runs Scenario objects and reports."""
import os
import subprocess
import sys

import numpy as np
import pytest

import wearcosim as wc
from wctest import ROOT
from wearcosim.master.scenario import ScenarioError


def _pressed(fmu, **over):
    d = {"name": "api", "fmu": {"path": str(fmu)},
         "wear": {"k": 1e-4, "hardness": 1.2e9, "cycles": 3, "omega": 50.0, "extrapolation": 100.0},
         "run": {"steps_per_cycle": 100, "record": ["Fn", "theta"]}}
    d.update(over)
    return d


def test_quickstart_example_runs(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart.py"), str(tmp_path / "qs")],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "peak wear" in p.stdout and "after 5000 real cycles" in p.stdout
    assert (tmp_path / "qs" / "quickstart.h5").is_file() and (tmp_path / "qs" / "quickstart_polar.png").is_file()
    assert (tmp_path / "qs" / "fmus" / "DrySpeed32pi.fmu").is_file()


def test_scenario_replace_merges_and_validates(pressed_fmu):
    sc = wc.Scenario.from_dict(_pressed(pressed_fmu))
    s2 = sc.replace(wear={"cycles": 7}, name="other", **{"run.decimate": 2})
    assert (s2.cycles, s2.name, s2.decimate, s2.k) == (7, "other", 2, sc.k)
    assert (sc.cycles, sc.name) == (3, "api")                      # the original is unchanged
    with pytest.raises(ScenarioError, match="wear.cycles must be >= 1"):
        sc.replace(**{"wear.cycles": 0})
    with pytest.raises(ScenarioError, match="unknown key 'wear.cycels'"):
        sc.replace(wear={"cycels": 2})


def test_run_gives_results_with_arrays_and_xarray(pressed_fmu, tmp_path):
    xr = pytest.importorskip("xarray")
    res = wc.run(_pressed(pressed_fmu), out=tmp_path)
    assert isinstance(res, wc.Results) and res.completed
    assert res.final.shape == (36,) and res.real_cycles == 300.0
    assert np.array_equal(res.final, wc.load_results(res.path).final)
    assert set(res.summary) >= {"peak_Fn", "max_depth"} and res.extrapolation["attrs"]["mode"] == "fixed"
    ds = res.to_xarray()
    assert ds["depth"].dims == ("cycles", "sector") and ds["depth"].attrs["units"] == "m"
    # (the test FMU declares no units on its outputs; the master's own quantities have them)
    assert ds["Fn"].dims == ("time",) and ds["time"].attrs["units"] == "s"
    assert ds["summary_peak_Fn"].dims == ("cycle",) and ds["summary_peak_Fn"].attrs["units"] == "N"
    # the file itself: named dimensions and units for any netCDF reader
    pytest.importorskip("h5netcdf")
    w = xr.open_dataset(res.path, engine="h5netcdf", group="wear")
    assert w["depth"].dims == ("cycles", "sector_centres") and w["depth"].attrs["units"] == "m"
    assert w["sector_centres"].attrs["units"] == "rad"
    s = xr.open_dataset(res.path, engine="h5netcdf", group="series")
    assert s["Fn"].dims == ("time",) and s["time"].attrs["units"] == "s"
    x = xr.open_dataset(res.path, engine="h5netcdf", group="extrapolation")
    assert x["factor"].dims == ("jump",) and x["error_bound"].dims == ("sector",)


def test_study_of_scenario_objects(pressed_fmu, tmp_path):
    base = wc.Scenario.from_dict(_pressed(pressed_fmu))
    runs = wc.study([base.replace(name=f"F{f}", start={"F": float(f)}) for f in (100, 200)], out=tmp_path,
                    workers=1, title="force")
    assert [r.path.stem for r in runs] == ["F100", "F200"]
    assert runs[1].final.sum() == pytest.approx(2 * runs[0].final.sum(), rel=1e-9)   # Archard: linear in F
    assert (tmp_path / "force.md").is_file() and (tmp_path / ".scenarios" / "F100.toml").is_file()
