"""Adaptive (error-controlled) extrapolation in the wear master, on the PressedJournal test FMU
whose force grows with the worn volume (``kw``): the worn volume has a closed form
(``sum h = (exp(kw a n) - 1)/kw``), so the controller's result is checked against it; and
rejected jumps taken back across checkpoints, kills and resumes, bit for bit."""
import os
import subprocess
import sys

import numpy as np
import pytest

from wctest import ROOT
from wearcosim.master import store
from wearcosim.master.loop import LimitExceeded, WearMaster
from wearcosim.master.scenario import ScenarioError, from_dict

KW = 15000.0          # force growth per metre of summed depth: exp(kw a n) = 2.44 over 2000 cycles
REAL = 2000.0


def adaptive(fmu, name="ad", **wear):
    return {"name": name, "fmu": {"path": str(fmu)}, "start": {"kw": KW},
            "wear": {"k": 1e-4, "hardness": 1.2e9, "omega": 50.0, "extrapolation": "adaptive",
                     "real_cycles": REAL, **wear},
            "run": {"steps_per_cycle": 200, "tolerance": 1e-8, "decimate": 10}}


def exact_sum(n):
    """Closed-form summed depth of the PressedJournal after n real cycles (its force
    F (1 + kw sum h), slip R omega, Archard volume k F s / H spread over sectors of area A)."""
    R, L, F, k, H = 0.01, 0.02, 200.0, 1e-4, 1.2e9
    area = L * (R + 1e-4) * 2 * np.pi / 36
    a = k * F * 2 * np.pi * R / (H * area)
    return (np.exp(KW * a * n) - 1) / KW


@pytest.mark.parametrize("rtol", [0.03, 0.003])
def test_adaptive_run_follows_the_closed_form(pressed_fmu, tmp_path, rtol):
    path = WearMaster(from_dict(adaptive(pressed_fmu, rtol=rtol), "t"), tmp_path, progress=False).run()
    meta, _, wear = store.read_results(path)
    x = store.read_extrapolation(path)
    got, want = wear["final"].sum(), exact_sum(REAL)
    assert abs(got / want - 1) <= 2.5 * rtol, (got / want - 1)       # growth 2.44x: a few rtol (see the docs)
    assert meta["extrapolation"] == "adaptive" and meta["real_cycles"] == REAL
    assert wear["cycles"][0] == 0 and wear["cycles"][-1] == REAL and np.all(np.diff(wear["cycles"]) > 0)
    sim = int(wear["simulated_cycles"][-1])
    assert sim < min(REAL / 10, 1 / rtol) and x["attrs"]["simulated_wear_cycles"] == sim
    assert x["attrs"]["mode"] == "adaptive" and x["attrs"]["accepted"] == sim
    # the history: one entry per judged jump, accepted ones end at increasing real cycles
    acc = x["accepted"] == 1
    assert np.all(np.diff(x["real_cycles"][acc]) > 0) and x["real_cycles"][acc][-1] == REAL
    assert np.all(x["error"][acc] <= 1) or x["factor"][acc].min() == 1.0
    # the estimate is of the size of the true error
    est = x["attrs"]["relative_error_estimate"]
    true = abs(got / want - 1)
    assert true / 10 < est < 10 * max(true, rtol / 10)
    assert x["error_bound"].shape == (36,) and x["error_bound"].max() == pytest.approx(x["attrs"]["error_estimate"])


def test_fixed_factor_reports_its_error_estimate(pressed_fmu, tmp_path):
    d = adaptive(pressed_fmu, name="fx")
    d["wear"] = {"k": 1e-4, "hardness": 1.2e9, "omega": 50.0, "extrapolation": 100.0, "cycles": 20}
    path = WearMaster(from_dict(d, "t"), tmp_path, progress=False).run()
    meta, _, wear = store.read_results(path)
    x = store.read_extrapolation(path)
    assert x["attrs"]["mode"] == "fixed" and meta["extrapolation"] == 100.0 and meta["real_cycles"] == REAL
    assert np.all(x["factor"] == 100.0) and len(x["factor"]) == 19 and x["attrs"]["rejected"] == 0
    true = abs(wear["final"].sum() / exact_sum(REAL) - 1)
    assert 0.3 * true < x["attrs"]["relative_error_estimate"] < 3 * true
    np.testing.assert_array_equal(wear["cycles"], np.arange(21) * 100.0)


def test_too_few_simulated_cycles_stop_clearly(pressed_fmu, tmp_path):
    sc = from_dict(adaptive(pressed_fmu, name="cap", rtol=1e-4, cycles=8), "t")
    with pytest.raises(LimitExceeded, match=r"needs more than wear.cycles = 8 .*loosen wear.rtol"):
        WearMaster(sc, tmp_path, progress=False).run()
    _, _, wear = store.read_results(tmp_path / "cap.h5")
    assert wear["simulated_cycles"][-1] == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cap.h5"]


@pytest.mark.parametrize("wear, msg", [
    ({"extrapolation": "adaptive"}, "needs wear.real_cycles"),
    ({"extrapolation": "adaptiv"}, "must be a number or \"adaptive\""),
    ({"extrapolation": 10.0, "real_cycles": 1e5}, "wear.real_cycles is for"),
    ({"extrapolation": "adaptive", "real_cycles": 1e5, "rtol": 0.0}, "rtol must be in"),
    ({"extrapolation": "adaptive", "real_cycles": 1e5, "max_extrapolation": 0.5}, "max_extrapolation must be >= 1"),
])
def test_adaptive_settings_are_checked(wear, msg):
    d = {"fmu": {"path": "x.fmu"}, "wear": {"k": 1e-4, "hardness": 1e9, "period": 0.1, **wear}}
    with pytest.raises(ScenarioError, match=msg):
        from_dict(d, "s.toml")


def test_crash_after_a_rollback_resumes_identically(pressed_fmu, tmp_path):
    """A jump rejected by the check of the next window is taken back (FMU state, profile,
    streams); a crash right then, before the redone jump's checkpoint, leaves the checkpoint
    of the rejected jump: the resumed run judges it again, takes it back again and ends
    bit-identical to an uninterrupted run."""
    d = adaptive(pressed_fmu, name="rb", rtol=0.003, first_extrapolation=100.0)
    ref = WearMaster(from_dict(d, "t"), tmp_path / "ref", progress=False).run()
    xr = store.read_extrapolation(ref)
    assert xr["attrs"]["rejected"] >= 1

    class Crash(Exception):
        pass

    m = WearMaster(from_dict(d, "t"), tmp_path / "run", progress=False)
    m.checkpoint_seconds = 0.0
    real_write = m._write_mark

    def write_mark(mark, st):
        if m.ctl.rejected:
            raise Crash()
        real_write(mark, st)
    m._write_mark = write_mark
    with pytest.raises(Crash):
        m.run()
    assert (tmp_path / "run" / "rb.ckpt").exists()
    m2 = WearMaster(from_dict(d, "t"), tmp_path / "run", progress=False)
    path = m2.run(resume=True)
    _, s, w = store.read_results(path)
    _, s_ref, w_ref = store.read_results(ref)
    x = store.read_extrapolation(path)
    assert np.array_equal(w["final"], w_ref["final"]) and np.array_equal(w["depth"], w_ref["depth"])
    assert np.array_equal(w["cycles"], w_ref["cycles"])
    for k in s_ref:
        assert np.array_equal(s[k], s_ref[k]), k
    for k in ("factor", "error", "accepted", "real_cycles"):
        assert np.array_equal(x[k], xr[k]), k
    assert np.array_equal(store.read_summary(path)["max_depth"], store.read_summary(ref)["max_depth"])


def test_kill_and_resume_of_an_adaptive_run(pressed_fmu, tmp_path):
    """SIGKILL at >= 10 points chosen from the run's own progress (checkpoints after every
    update; rejected jumps at the start, so kills land around take-backs too), resumed with
    --resume each time: the final profile, the series and the factor history equal an
    uninterrupted run bit for bit."""
    from test_master_loop import kill_and_resume
    d = adaptive(pressed_fmu, name="kad", rtol=0.001, first_extrapolation=100.0)
    ref, got, kills, _ = kill_and_resume(d, tmp_path, seed=11)
    _, s_ref, w_ref = store.read_results(ref)
    _, s, w = store.read_results(got)
    assert np.array_equal(w["final"], w_ref["final"])
    for k in s_ref:
        assert np.array_equal(s[k], s_ref[k]), k
    x, xr = store.read_extrapolation(got), store.read_extrapolation(ref)
    for k in ("factor", "error", "accepted", "simulated_cycle"):
        assert np.array_equal(x[k], xr[k]), k
    assert xr["attrs"]["rejected"] >= 1
    assert kills == int(os.environ.get("WEARCOSIM_KILLS", "12")), kills


def test_cli_says_one_line_for_a_bad_adaptive_setting(tmp_path):
    toml = tmp_path / "bad.toml"
    toml.write_text('[fmu]\npath = "x.fmu"\n[wear]\nk = 1e-4\nhardness = 1e9\nperiod = 0.1\n'
                    'extrapolation = "adaptive"\n')
    p = subprocess.run([sys.executable, "-m", "wearcosim.cli", "run", str(toml), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT / "python")))
    assert p.returncode != 0
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "wear.real_cycles" in lines[0], p.stderr
    assert not (tmp_path / "o").exists()
