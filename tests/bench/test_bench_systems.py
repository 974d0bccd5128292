"""``python -m wearcosim.bench.systems`` runs end to end (a smoke test of the plumbing with
tiny settings: one system, a short window, DOPRI5, one repeat; no timing is asserted).

What is asserted is what does not depend on the machine: with the same explicit solver the
container and the monolithic FMU compute the same numbers (measured: bit-identical, the
container's states and right-hand sides are the monolithic model's), the solver counters are
read from both FMUs' fmi2Terminate log, the container counts its right-hand sides and component
calls, timing on changes no result, and the report and the JSON are written."""
import json

import numpy as np

from wearcosim.bench import systems as bs


def test_quick_run_report_and_json(tmp_path, monkeypatch):
    res = bs.run(quick=True, build_dir=tmp_path / "fmus", cache_dir=tmp_path / "containers")
    assert res["settings"]["quick"] is True
    (row,) = res["systems"]
    assert row["system"] == "hybrid_dry_32pi" and row["states"] == 5
    s = row["solvers"]["DOPRI5"]
    assert s["repeats"] == 1 and s["monolithic"]["cpu"] > 0 and s["container"]["cpu"] > 0
    assert s["deviation"]["orbit"] <= 1e-12 and s["deviation"]["states"] <= 1e-12
    assert s["deviation"]["timing_on_identical"]
    ms, cs = s["monolithic"]["solver"], s["container"]["solver"]
    assert ms["nfev"] > 0 and ms["njev"] == 0 and cs["nfev"] == ms["nfev"] and cs["steps"] == ms["steps"]
    assert s["container"]["nRhs"] >= cs["nfev"] and s["container"]["nCalls"] > s["container"]["nRhs"]
    on = s["container_timing_on"]
    assert on["time_in_components"] > 0 and on["time_in_container"] > 0
    cosim = row["cosim"]
    assert [x["divisor"] for x in cosim["ladder"]] == [16]
    assert cosim["error"] is not None and np.isfinite(cosim["error"]) and cosim["cpu"] > 0
    lines = bs.report(res["systems"])
    assert lines[0].startswith("hybrid_dry_32pi") and any("DOPRI5" in x for x in lines)
    assert any("co-simulation" in x for x in lines)
    assert bs.report(res) == lines

    # the command line writes the same figures (JSON) and prints the table
    calls = []
    monkeypatch.setattr(bs, "run", lambda **kw: calls.append(kw) or res)
    out = tmp_path / "results" / "bench_systems.json"
    assert bs.main(["--quick", "--out", str(out)]) == 0
    assert calls[0]["quick"] is True
    assert json.loads(out.read_text())["systems"][0]["solvers"]["DOPRI5"]["ratio"] == s["ratio"]
