"""Global sensitivity study (issue 21): SALib's Morris and Sobol wiring checked on the Ishigami
function (Sobol indices known in closed form), the 2-D index of the peak angle, the report on
tiny inputs, the command line's errors, and the wear runs on a Dask cluster whose workers live
in their own folders and cannot read the client's files (results identical, bit for bit, to
the local processes')."""
from __future__ import annotations

import math
import os
import tempfile

import numpy as np
import pytest

from wctest import ROOT

pytest.importorskip("SALib", reason="SALib is a test extra (pip install SALib)")

from wearcosim.studies import sensitivity as sa  # noqa: E402

HYBRID = "WearCosim.Examples.HybridMechanism.DrySpeed8pi"

# Ishigami (a = 7, b = 0.1) on [-pi, pi]^3: V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2
_A, _B = 7.0, 0.1
_V = _A ** 2 / 8 + _B * math.pi ** 4 / 5 + _B ** 2 * math.pi ** 8 / 18 + 0.5
_V1 = 0.5 * (1 + _B * math.pi ** 4 / 5) ** 2
_V2 = _A ** 2 / 8
_V13 = _B ** 2 * math.pi ** 8 / 18 - _B ** 2 * math.pi ** 8 / 50
ISHIGAMI_S1 = np.array([_V1 / _V, _V2 / _V, 0.0])
ISHIGAMI_ST = np.array([(_V1 + _V13) / _V, _V2 / _V, _V13 / _V])


def _analytic_spec(extra: dict | None = None) -> sa.Spec:
    params = {f"x{i}": {"keys": [f"start.x{i}"], "low": -math.pi, "high": math.pi, "nominal": 0.0} for i in (1, 2, 3)}
    params["x4"] = {"keys": ["start.x4"], "low": 0.0, "high": 1.0, "nominal": 0.5}    # no effect at all
    data = {"name": "ishigami", "scenario": {"fmu": {"model": "None"}, "wear": {"k": 1e-4, "hardness": 1e9, "omega": 1.0}},
            "parameters": params, "morris": {"trajectories": 40, "seed": 3},
            "sobol": {"n": 1024, "top": 3, "resamples": 300, "seed": 5}, **(extra or {})}
    return sa.spec_from_dict(data, "<ishigami>")


def _analytic_run(cases):
    """Outputs of the analytic 'model': peak = Ishigami(x1, x2, x3); peak/mean = 2 + x2;
    the peak angle = x1 (only x1 moves it); volume = 1 + x3^2."""
    out = []
    for c in cases:
        x = [c["start"][f"x{i}"] for i in (1, 2, 3)]
        f = math.sin(x[0]) + _A * math.sin(x[1]) ** 2 + _B * x[2] ** 4 * math.sin(x[0])
        out.append({"peak_um": f, "peak_over_mean": 2 + x[1], "peak_cos": math.cos(x[0]), "peak_sin": math.sin(x[0]),
                    "volume_mm3": 1 + x[2] ** 2})
    return out


@pytest.fixture(scope="module")
def analytic():
    spec = _analytic_spec()
    m = sa.morris_stage(spec, _analytic_run)
    top = sa.pick_top(spec, m, 3)
    s = sa.sobol_stage(spec, _analytic_run, top)
    return spec, m, s


def test_morris_screens_out_the_parameter_without_effect(analytic):
    spec, m, _ = analytic
    assert len(m.Y) == 40 * (4 + 1)
    assert m.importance[spec.names.index("x4")] == 0.0
    assert set(sa.pick_top(spec, m, 3)) == {"x1", "x2", "x3"}
    assert m.indices["peak_um"]["mu_star"][3] == 0.0 and m.indices["peak_um"]["mu_star"][1] > 0


def test_ishigami_sobol_indices_within_their_confidence_intervals(analytic):
    _, _, s = analytic
    order = [s.names.index(n) for n in ("x1", "x2", "x3")]
    d = s.indices["peak_um"]
    assert len(s.Y) == 1024 * (2 * 3 + 2)
    for key, exact in (("S1", ISHIGAMI_S1), ("ST", ISHIGAMI_ST)):
        est, conf = d[key][order], d[f"{key}_conf"][order]
        assert np.all(np.abs(est - exact) <= conf), (key, est, exact, conf)
        assert np.all(conf < 0.1), conf
    assert abs(float(np.sum(d["S1"])) - float(np.sum(ISHIGAMI_S1))) < 0.05


def test_peak_angle_index_is_the_variance_weighted_index_of_its_components(analytic):
    _, _, s = analytic
    i1 = s.names.index("x1")
    ang = s.indices["peak_angle"]
    assert ang["S1"][i1] == pytest.approx(1.0, abs=0.03) and ang["ST"][i1] == pytest.approx(1.0, abs=0.03)
    others = [i for i in range(3) if i != i1]
    assert np.all(np.abs(ang["S1"][others]) < 0.03) and np.all(ang["ST"][others] < 0.03)
    assert ang["S1_conf"][i1] > 0 and np.all(ang["S1_conf"] < 0.1) and np.all(ang["S1_conf"][others] == 0)


def test_case_outputs_circular_peak_refined_between_sectors():
    n = 36
    theta = (np.arange(n) + 0.5) * 2 * np.pi / n
    peak_at = np.radians(2.0)            # between the last sector (355 deg) and the first (5 deg)
    d = np.maximum(0.0, 1 - (np.angle(np.exp(1j * (theta - peak_at))) / 0.6) ** 2) * 1e-6
    o = sa.case_outputs({"final": d, "sector_centres": theta, "radius": 0.01, "length": 0.04})
    assert abs(np.degrees(np.angle(o["peak_cos"] + 1j * o["peak_sin"])) - 2.0) < 1.0
    assert o["peak_angle_deg"] < 5 or o["peak_angle_deg"] > 355
    assert o["peak_um"] == pytest.approx(d.max() * 1e6)
    assert o["volume_mm3"] == pytest.approx(d.sum() * 2 * np.pi * 0.01 / n * 0.04 * 1e9)


def _fake_trends(spec):
    g = 3
    a, b = sa.grid_values(spec.parameter("x1"), g), sa.grid_values(spec.parameter("x2"), g)
    holds = {t: np.eye(g, dtype=bool) | (t == "lubricated_less") for t in sa.TRENDS}
    nums = {k: np.full((g, g), 1.5) for k in ("speed_peak_ratio", "speed_uniformity_ratio", "clearance_peak_ratio",
                                               "lubricated_over_dry")}
    return sa.TrendResult(["x1", "x2"], a, b, holds, nums)


def test_report_writer_on_tiny_inputs(analytic, tmp_path):
    spec, m, s = analytic
    spec.trends = {"speed_values": [1.0, 2.0], "clearance_values": [1.0, 2.0], "lubrication": {}}
    out = tmp_path / "report"
    md = sa.write_report({"spec": spec, "morris": m, "sobol": s, "trends": _fake_trends(spec),
                          "executor": "test"}, out)
    text = md.read_text()
    for f in ("sensitivity.md", "run.json", "morris.csv", "morris_runs.csv", "sobol.csv", "sobol_runs.csv", "trends.csv",
              "morris.png", "morris.pdf", "sobol.png", "sobol.pdf", "trends.png", "trends.pdf"):
        assert (out / f).is_file() and (out / f).stat().st_size > 0, f
    assert not [p for p in out.iterdir() if p.name.startswith(".")]         # no temporaries left
    assert "## Morris screening" in text and "## Sobol indices" in text and "sum S1" in text
    assert f"{float(np.sum(s.indices['peak_um']['S1'])):.3f}" in text
    assert "| more uniform with speed | 3 of 9 points |" in text and "| lubricated much less | 9 of 9 points | - |" in text
    # a report of the screening alone
    sa.write_report({"spec": spec, "morris": m}, tmp_path / "screening")
    assert "Sobol" not in (tmp_path / "screening" / "sensitivity.md").read_text()


def test_report_rebuilt_from_the_saved_samples(analytic, tmp_path):
    """--report-only: the stages rebuilt from the files of a report give the same indices."""
    spec, m, s = analytic
    spec.trends = {"speed_values": [1.0, 2.0], "clearance_values": [1.0, 2.0], "lubrication": {}}
    tr = _fake_trends(spec)
    sa.write_report({"spec": spec, "morris": m, "sobol": s, "trends": tr, "executor": "test", "seconds": 1.0}, tmp_path)
    back = sa.load_saved(spec, tmp_path)
    assert np.array_equal(back["morris"].X, m.X) and np.array_equal(back["morris"].Y, m.Y)
    for o in sa.OUTPUTS:
        assert np.array_equal(back["morris"].indices[o]["mu_star"], m.indices[o]["mu_star"])
    for o in list(sa.OUTPUTS) + ["peak_angle"]:
        assert np.array_equal(back["sobol"].indices[o]["S1"], s.indices[o]["S1"])
        assert np.array_equal(back["sobol"].indices[o]["ST_conf"], s.indices[o]["ST_conf"])
    assert back["sobol"].n == s.n and back["trends"].names == ["x1", "x2"]
    for t in tr.holds:
        assert np.array_equal(back["trends"].holds[t], tr.holds[t])
    assert back["executor"].startswith("test (report rebuilt") and back["seconds"] == 1.0
    with pytest.raises(sa.SensitivityError, match="no morris_runs.csv"):
        sa.load_saved(spec, tmp_path / "nothing")


@pytest.mark.parametrize("change, message", [
    (lambda d: d["parameters"]["x1"].update(low=2.0, high=1.0), "low (2) must be below high (1)"),
    (lambda d: d["parameters"]["x1"].update(nominal=9.0), "'parameters.x1.nominal' (9) is outside"),
    (lambda d: d["parameters"]["x1"].update(keys=["wear.nope"]), "'wear.nope' is not a numeric key of [wear]"),
    (lambda d: d["parameters"]["x1"].update(keys=["x1"]), "must be <table>.<name>"),
    (lambda d: d["parameters"]["x4"].update(log=True, low=0.0), "log-sampled range must be positive"),
    (lambda d: d["sobol"].update(n=100), "'sobol.n' must be a power of 2"),
])
def test_bad_study_files(change, message):
    import copy
    data = {"name": "s", "scenario": {"fmu": {"model": "M"}, "wear": {"k": 1e-4, "hardness": 1e9, "omega": 1.0}},
            "parameters": {"x1": {"keys": ["start.x1"], "low": 0.0, "high": 1.0, "nominal": 0.5},
                           "x4": {"keys": ["start.x4"], "low": 0.0, "high": 1.0, "nominal": 0.5}},
            "sobol": {"n": 64}}
    d = copy.deepcopy(data)
    change(d)
    with pytest.raises(sa.SensitivityError, match=None) as exc:
        sa.spec_from_dict(d, "<s>")
    assert message in str(exc.value)


# ----------------------------------------------------------------------------- with the FMU

def _hybrid_study(fmu, trends: bool = False) -> dict:
    """A tiny study of the hybrid mechanism: 3 parameters, 2 short wear cycles of 200 steps."""
    d = {"name": "tiny", "batch": 3,
         "scenario": {"name": "tiny", "fmu": {"path": str(fmu)},
                      "wear": {"k": 1e-4, "hardness": 1.2e9, "cycles": 2, "omega": 8 * math.pi, "extrapolation": 5000},
                      "run": {"steps_per_cycle": 200, "transient_cycles": 1}},
         "parameters": {
             "gPlane": {"keys": ["start.data.gPlane"], "low": 0.0, "high": 9.81, "nominal": 3.0},
             "mu_d": {"keys": ["start.data.mu_d"], "low": 0.05, "high": 0.3, "nominal": 0.1},
             "speed": {"keys": ["start.omega", "wear.omega"], "low": 4 * math.pi, "high": 32 * math.pi,
                       "nominal": 8 * math.pi, "log": True}},
         "morris": {"trajectories": 2, "seed": 1}, "sobol": {"n": 2, "top": 2, "resamples": 50}}
    if trends:
        d["parameters"]["clearance"] = {"keys": ["start.c"], "low": 1.5e-4, "high": 4.5e-4, "nominal": 2.5e-4}
        d["trends"] = {"grid": 2, "speed_values": [4 * math.pi, 32 * math.pi], "clearance_values": [1.5e-4, 4.5e-4]}
    return d


@pytest.fixture(scope="module")
def hybrid_fmu(build_example):
    return build_example(HYBRID)


def test_cli_study_sensitivity_end_to_end(hybrid_fmu, tmp_path, capsys):
    import tomli_w
    from wearcosim.cli import main
    spec = tmp_path / "tiny.toml"
    spec.write_text(tomli_w.dumps(_hybrid_study(hybrid_fmu, trends=True)))
    out = tmp_path / "out"
    assert main(["study", "--sensitivity", str(spec), "--out", str(out), "--local", "--workers", "2"]) == 0
    text = (out / "sensitivity.md").read_text()
    assert "2 trajectories" in text and "N = 2 base points" in text and "Grid 2 x 2" in text
    for f in ("morris.png", "sobol.pdf", "trends.png", "trends.csv"):
        assert (out / f).is_file()
    rows = (out / "morris_runs.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * (4 + 1)
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_cli_bad_parameter_name_and_range(hybrid_fmu, tmp_path, capsys):
    import tomli_w
    from wearcosim.cli import main
    d = _hybrid_study(hybrid_fmu)
    d["parameters"]["mu_d"]["keys"] = ["start.data.mu_nope"]
    bad = tmp_path / "bad_name.toml"
    bad.write_text(tomli_w.dumps(d))
    out = tmp_path / "out"
    assert main(["study", "--sensitivity", str(bad), "--out", str(out), "--local"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "'data.mu_nope' is not a parameter of the FMU" in err[0]
    d = _hybrid_study(hybrid_fmu)
    d["parameters"]["gPlane"]["high"] = -1.0
    bad.write_text(tomli_w.dumps(d))
    assert main(["study", "--sensitivity", str(bad), "--out", str(out), "--local"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'parameters.gPlane': low (0) must be below high (-1)" in err[0]
    assert main(["study", "--sensitivity", str(bad), "--sobol-n", "3"]) == 2
    assert "--sobol-n must be a power of 2" in capsys.readouterr().err
    assert not out.exists()


def test_dask_workers_in_their_own_folders_give_the_local_results_bit_for_bit(hybrid_fmu, tmp_path):
    """Two Dask worker processes, each in its own working and temp folder (separate machines):
    the FMU reaches them as bytes only (the client's copy is deleted before the runs), the
    results come back to the client, identical to those of local processes."""
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is a test extra")
    import shutil
    fmu_copy = tmp_path / "client" / "model.fmu"
    fmu_copy.parent.mkdir()
    shutil.copy(hybrid_fmu, fmu_copy)
    spec = sa.spec_from_dict(_hybrid_study(fmu_copy), "<tiny>")
    fmu = sa.spec_fmu(spec)
    sa.check_parameters(spec, fmu)
    fmu_copy.unlink()                    # the workers cannot read it from the client's disk
    local = sa.morris_stage(spec, sa.evaluator(fmu, workers=2, log=lambda m: None))
    machines = [tmp_path / f"machine{i}" for i in range(2)]
    for m in machines:
        m.mkdir()

    def isolate(folder):
        os.chdir(folder)
        os.environ["TMPDIR"] = folder
        tempfile.tempdir = folder
        return os.getcwd()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  local_directory=str(tmp_path / "scratch")) as cluster:
        with distributed.Client(cluster) as client:
            workers = sorted(client.scheduler_info()["workers"])
            assert len(workers) == 2
            for w, m in zip(workers, machines):
                assert client.run(isolate, str(m), workers=[w])[w] == str(m)
            with distributed.get_task_stream(client=client) as ts:
                remote = sa.morris_stage(spec, sa.evaluator(fmu, scheduler=client, batch=1, log=lambda m: None))
            dirs = client.run(os.getcwd)
    assert set(dirs.values()) == {str(m) for m in machines}
    ran = {t["worker"] for t in ts.data if str(t.get("key", "")).find("run_shipped") >= 0}
    assert len(ran) == 2, ts.data                                       # both workers ran cases
    assert np.array_equal(local.Y, remote.Y) and local.Y.shape == (2 * 4, len(sa.OUTPUTS))
    for o in sa.OUTPUTS:
        for k in ("mu_star", "sigma"):
            assert np.array_equal(local.indices[o][k], remote.indices[o][k])
    assert all(not any(m.iterdir()) for m in machines)               # nothing left on the 'machines'
    assert not (tmp_path / "client").exists() or not any((tmp_path / "client").iterdir())


@pytest.mark.slow
def test_production_screening_identical_on_local_processes_and_dask(tmp_path):
    """The study file's whole Morris screening (240 runs of the hybrid mechanism) on 2 local
    processes and on a 2-worker Dask LocalCluster: the same outputs, bit for bit."""
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is a test extra")
    spec = sa.load_spec(ROOT / "cosim" / "sensitivity" / "hybrid_dry.toml")
    fmu = sa.spec_fmu(spec, tmp_path / "fmus")
    local = sa.morris_stage(spec, sa.evaluator(fmu, workers=2, batch=spec.batch))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = sa.morris_stage(spec, sa.evaluator(fmu, scheduler=client, batch=spec.batch))
    assert local.Y.shape == (spec.morris["trajectories"] * (len(spec.parameters) + 1), len(sa.OUTPUTS))
    assert np.array_equal(local.Y, remote.Y)


def test_a_batch_in_memory_gives_each_case_bit_for_bit(hybrid_fmu, tmp_path):
    """run_shipped opens the FMU once per batch and runs every case in memory (fmi2Reset
    between cases; no lock, checkpoint, streams or results file): each case's profile equals
    the one of a plain run of its own (fresh instance, results file) bit for bit, also the case
    after one the FMU refused (a failed case's instance is not reused).  Measured on the
    sensitivity study's cases (hybrid mechanism, 7 cycles): 59.5 ms of CPU per case before,
    16.6 ms now, of which the FMU's stepping is about 15 ms."""
    from wearcosim.master.loop import MasterError, WearMaster
    from wearcosim.master.scenario import from_dict
    from wearcosim.master.store import read_results
    from wearcosim.studies.runner import run_shipped
    spec = sa.spec_from_dict(_hybrid_study(hybrid_fmu), "<tiny>")
    fmu = sa.spec_fmu(spec)
    rng = np.random.default_rng(7)
    cases = []
    for i in range(5):
        vals = {p.name: float(rng.uniform(p.low, p.high)) for p in spec.parameters}
        cases.append(sa.case(spec, vals, f"c{i}"))
    cases[2] = sa.case(spec, {}, "refused", extra={"start.c": -1.0})      # the FMU refuses c < 0
    got = run_shipped(cases, fmu)
    assert [r["name"] for r in got] == [c["name"] for c in cases]
    assert "error" in got[2] and "final" not in got[2]
    for k, case in enumerate(cases):
        if k == 2:
            continue
        data = dict(case, fmu={"path": str(hybrid_fmu)})
        res = WearMaster(from_dict(data, "<case>"), tmp_path / f"plain{k}", progress=False).run()
        meta, _, wear = read_results(res)
        assert np.array_equal(got[k]["final"], wear["final"]), k
        assert np.array_equal(got[k]["sector_centres"], wear["sector_centres"])
        assert (got[k]["radius"], got[k]["length"]) == (meta["radius"], meta["length"])
    with pytest.raises(MasterError):
        WearMaster(from_dict(dict(cases[2], fmu={"path": str(hybrid_fmu)}), "<case>"), tmp_path / "x",
                   progress=False).run_in_memory()
    assert not (tmp_path / "x").exists()


def test_a_worker_keeps_the_fmu_instance_for_its_next_batches(hybrid_fmu):
    """run_shipped keeps the opened FMU for the process's next batch of the same FMU (one
    extraction and instance per worker and study): the next batch runs on the same instance,
    its cases give what a batch on a fresh instance gives, bit for bit; a failed case drops
    the instance; other FMU bytes replace it and remove its folder; close_shipped closes it."""
    from wearcosim.studies import runner
    spec = sa.spec_from_dict(_hybrid_study(hybrid_fmu), "<tiny>")
    fmu = sa.spec_fmu(spec)
    rng = np.random.default_rng(11)
    cases = [sa.case(spec, {p.name: float(rng.uniform(p.low, p.high)) for p in spec.parameters}, f"k{i}")
             for i in range(4)]
    runner.close_shipped()
    first = runner.run_shipped(cases[:2], fmu)
    slot = runner._SHIPPED.slot
    kept = slot.runner
    assert kept is not None and slot.path.is_file()
    second = runner.run_shipped(cases[2:], fmu)
    assert runner._SHIPPED.slot is slot and slot.runner is kept          # the same instance, no new folder
    runner.close_shipped()
    assert runner._SHIPPED.slot is None and not slot.path.exists()
    fresh = runner.run_shipped(cases, fmu)
    for a, b in zip(first + second, fresh):
        assert np.array_equal(a["final"], b["final"]), a["name"]
    runner.run_shipped([sa.case(spec, {}, "refused", extra={"start.c": -1.0})], fmu)
    assert runner._SHIPPED.slot.runner is None                            # a failed case's instance dropped
    old = runner._SHIPPED.slot
    other = fmu + b"\0"                                                   # other bytes (the zip still opens)
    again = runner.run_shipped(cases[:1], other)
    assert runner._SHIPPED.slot is not old and not old.path.exists()
    assert np.array_equal(again[0]["final"], fresh[0]["final"])
    runner.close_shipped()
