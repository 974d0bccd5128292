"""The wear master end to end on a small test FMU with a closed-form answer, the feedback of
the profile into the FMU, and kill/resume durability."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from wctest import ROOT
from wearcosim.master import store
from wearcosim.master.loop import WearMaster
from wearcosim.master.scenario import from_dict
from wearcosim.wear.archard import SectorSurface, sector_pressure

FIX = ROOT / "tests" / "master" / "fixtures"


def scenario(fmu, **over):
    d = {"name": over.pop("name", "pressed"), "fmu": {"path": str(fmu)},
         "start": over.pop("start", {}),
         "wear": {"k": 1e-4, "hardness": 1.2e9, "cycles": 5, "omega": 50.0, "update_cycles": 1,
                  "extrapolation": 100.0, **over.pop("wear", {})},
         "run": {"steps_per_cycle": 200, "tolerance": 1e-8, "record": ["Fn", "theta"], **over.pop("run", {})},
         **over}
    return from_dict(d, "test")


def test_analytic_wear_of_a_pressed_spinning_journal(pressed_fmu, tmp_path):
    """Constant force F at a fixed angle, slip R*omega: after N cycles (time t = N*2pi/omega,
    extrapolated by X) sector i has h_i = X * k * pbar_i * R * omega * t / H exactly; pbar_i is
    the sector-mean of the Hertz ellipse.  1 % is the acceptance bound; the discretisation
    here is exact, so the test asks for 1e-9."""
    sc = scenario(pressed_fmu)
    path = WearMaster(sc, tmp_path, progress=False).run()
    meta, series, wear = store.read_results(path)
    R, L, F, omega, E, nu = 0.01, 0.02, 200.0, 50.0, 207e9, 0.3
    Rb = R + 1e-4
    Req, Eeq = R * Rb / (Rb - R), E / (2 * (1 - nu ** 2))
    b = np.sqrt(4 * F * Req / (np.pi * L * Eeq))
    surf = SectorSurface(36, L, radius=Rb)
    pbar = sector_pressure(surf, [1.0], [F], [b])[0]
    t = sc.cycles * 2 * np.pi / omega
    expect = sc.extrapolation * sc.k * pbar * R * omega * t / sc.hardness
    got = wear["final"]
    assert np.argmax(got) == np.argmax(expect)
    np.testing.assert_allclose(got, expect, rtol=1e-9, atol=1e-18)
    # volume balance: sum h*A = X * k F s / H
    assert got.sum() * surf.area == pytest.approx(sc.extrapolation * sc.k * F * R * omega * t / sc.hardness, rel=1e-9)
    # one profile per update, recorded series on the communication grid
    assert wear["depth"].shape == (sc.cycles + 1, 36)
    assert np.allclose(np.diff(series["time"]), sc.step)


def test_profile_reaches_the_fmu(pressed_fmu, tmp_path):
    """With kw > 0 the FMU's force depends on the wear inputs: a run with wear updates must
    see the force change after the first update, a run without wear (k = 0) must not."""
    # (a strong feedback: each update wears 0.3 mm, far beyond the physical guards' limits)
    worn = WearMaster(scenario(pressed_fmu, name="fb", start={"kw": 1e6}, wear={"extrapolation": 1e4},
                               limits={"force": True}),
                      tmp_path, progress=False).run()
    flat = WearMaster(scenario(pressed_fmu, name="nofb", start={"kw": 1e6}, wear={"k": 0.0}),
                      tmp_path, progress=False).run()
    _, s1, w1 = store.read_results(worn)
    _, s0, _ = store.read_results(flat)
    n = 200
    assert np.allclose(s1["Fn"][:n], 200.0) and np.allclose(s0["Fn"], 200.0)
    assert s1["Fn"][-1] > 200.0 * (1 + 1e6 * w1["depth"][-2].sum()) * 0.999
    assert np.all(np.diff(s1["Fn"][::n]) > 0)       # the force grows with every update


def _wait_for_checkpoints(p, ckpt, n, limit=600.0):
    """Block until ``ckpt`` has been (re)written ``n`` more times by process ``p`` (each atomic
    write replaces the file: a new inode) or ``p`` has ended; returns False if it ended.
    ``limit`` only keeps a broken run from hanging the suite; nothing here measures speed."""
    def ident():
        try:
            st = os.stat(ckpt)
            return st.st_ino, st.st_mtime_ns
        except FileNotFoundError:
            return None
    seen, changes, t_end = ident(), 0, time.monotonic() + limit
    while changes < n:
        if p.poll() is not None:
            return False
        now = ident()
        if now is not None and now != seen:
            seen, changes = now, changes + 1
        if time.monotonic() > t_end:
            raise AssertionError(f"no progress of {ckpt.name} within {limit:.0f} s")
        time.sleep(0.0005)
    return True


def kill_and_resume(sc_dict, tmp_path, seed, checkpoints=(1, 4), pause=0.003):
    """Run ``sc_dict`` uninterrupted (the reference) and through ``wearcosim run`` killed with
    SIGKILL WEARCOSIM_KILLS times (default 12), each time after a random number in
    ``checkpoints`` of further checkpoint writes plus up to ``pause`` s (so kills land inside
    updates and writes too), resumed with --resume until it completes.  Returns (reference
    results, results, kills, resumes that started from a checkpoint).  Driven by the run's
    progress, not by timing: the outcome does not depend on the machine's speed or load."""
    import tomli_w
    name = sc_dict["name"]
    toml = tmp_path / f"{name}.toml"
    toml.write_text(tomli_w.dumps(sc_dict))
    ref = WearMaster(from_dict(sc_dict, str(toml)), tmp_path / "ref", progress=False).run()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "wearcosim.cli", "run", str(toml), "--out", str(out), "--quiet",
           "--checkpoint-every", "0"]
    ckpt = out / f"{name}.ckpt"
    rng = np.random.default_rng(seed)
    kills = from_ckpt = 0
    for _ in range(int(os.environ.get("WEARCOSIM_KILLS", "12"))):
        had_ckpt = ckpt.exists()
        p = subprocess.Popen(cmd + (["--resume"] if kills else []), env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not _wait_for_checkpoints(p, ckpt, int(rng.integers(*checkpoints))):
            break                                       # finished (or failed) before the kill
        time.sleep(rng.uniform(0.0, pause))             # anywhere in the next update / write
        p.send_signal(signal.SIGKILL)
        p.wait()
        kills += 1
        from_ckpt += had_ckpt
    p = subprocess.run(cmd[:-2] + ["--resume"], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in out.iterdir()) == [f"{name}.h5"]     # no .tmp, no lock, no checkpoint
    return ref, out / f"{name}.h5", kills, from_ckpt


def test_kill_and_resume_gives_identical_profile(pressed_fmu, tmp_path):
    """SIGKILL at points chosen from the master's own progress (:func:`kill_and_resume`,
    checkpoints after every wear update); the final profile equals an uninterrupted run bit
    for bit, every resume starts from a checkpoint, and no temporary file or lock is left."""
    sc_dict = {"name": "kill", "fmu": {"path": str(pressed_fmu)}, "start": {"kw": 1e2},
               "wear": {"k": 1e-4, "hardness": 1.2e9, "cycles": 600, "omega": 50.0, "extrapolation": 10.0},
               "run": {"steps_per_cycle": 200, "tolerance": 1e-8, "decimate": 10}}
    ref, got, kills, from_ckpt = kill_and_resume(sc_dict, tmp_path, seed=7)
    n_kills = int(os.environ.get("WEARCOSIM_KILLS", "12"))
    _, s_ref, w_ref = store.read_results(ref)
    _, s, w = store.read_results(got)
    assert np.array_equal(w["final"], w_ref["final"])
    for k in s_ref:                                  # the streamed series too, cut back and continued
        assert np.array_equal(s[k], s_ref[k]), k
    for k in ("depth", "simulated_cycles"):
        assert np.array_equal(w[k], w_ref[k]), k
    assert kills == n_kills and from_ckpt == n_kills - 1, (kills, from_ckpt)
    print(f"killed {kills} times, {from_ckpt} of the resumes from a checkpoint")


def test_wear_feeds_back_into_the_mechanism(tmp_path):
    """Hybrid mechanism FMU (32 pi, c = 0.25 mm): with wear updates the orbit and contact
    force after the first update differ from a run without wear (k = 0); before it they are
    identical (same FMU, same start)."""
    from wearcosim.master.scenario import load
    sc = load(ROOT / "cosim" / "demo_hybrid_dry_32pi.toml")

    def run(k, name):
        d = dict(sc.raw)
        d["name"] = name
        d["wear"] = dict(d["wear"], k=k, cycles=3, extrapolation=5e5)
        d["run"] = dict(d["run"], steps_per_cycle=500, decimate=1)
        return store.read_results(WearMaster(from_dict(d, "fb"), tmp_path, progress=False).run())
    _, s1, w1 = run(1e-4, "worn")
    _, s0, w0 = run(0.0, "unworn")
    n = 1000                                   # transient cycle + first wear cycle, before any update
    assert np.array_equal(s1["Fn"][:n], s0["Fn"][:n])
    assert w1["final"].max() > 5e-6 and w0["final"].max() == 0
    de = np.max(np.abs(np.hypot(s1["ex"], s1["ey"])[n:] - np.hypot(s0["ex"], s0["ey"])[n:]))
    assert de > 1e-6                           # the orbit moves into the worn zone (~um)
    assert not np.allclose(s1["Fn"][n:], s0["Fn"][n:], rtol=1e-3)


def test_pyfmi_backend_is_optional(pressed_fmu, tmp_path):
    from wearcosim.fmi.runner import PyFMIRunner
    try:
        import pyfmi  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="conda install -c conda-forge pyfmi"):
            PyFMIRunner(pressed_fmu)
        pytest.skip("PyFMI is not installed here (no wheel for this platform); the backend is import-guarded")
    a = store.read_results(WearMaster(scenario(pressed_fmu, name="pyfmi", run={"backend": "pyfmi"}), tmp_path,
                                      progress=False).run())[2]["final"]
    b = store.read_results(WearMaster(scenario(pressed_fmu, name="fmpy"), tmp_path, progress=False).run())[2]["final"]
    np.testing.assert_allclose(a, b, rtol=1e-9)


def test_fmu_failure_mid_run_is_reported_with_time_and_checkpoint(pressed_fmu, tmp_path):
    """The FMU's derivative becomes NaN at t = 0.5 s (cycle 4 of 2*pi/50 s): the FMU discards
    the step naming the time, the master writes the checkpoint of the last completed wear
    update and stops with a message that names the time, the cause and the checkpoint; the
    run can be resumed from it (here: with the failure still in the model, it fails again)."""
    from wearcosim.master.loop import MasterError
    sc = scenario(pressed_fmu, name="fail", start={"tFail": 0.5}, wear={"cycles": 8})
    m = WearMaster(sc, tmp_path, progress=False)
    m.checkpoint_seconds = 1e9          # only the failure path writes the checkpoint
    with pytest.raises(MasterError) as ei:
        m.run()
    msg = str(ei.value)
    assert "fmi2DoStep" in msg and "last successful time 0.5" in msg
    assert "not finite" in msg or "NaN" in msg
    assert "fail.ckpt" in msg and m.ckpt_path.exists()
    arrays, meta = store.load_checkpoint(m.ckpt_path)
    assert meta["cycle"] == 3                       # 3 whole cycles (0.377 s) before 0.5 s
    assert np.count_nonzero(arrays["depth"]) > 0


def test_profile_surface_wear_is_exact(tmp_path):
    """A profile surface (gear flank: ``sContact``/``profileLength`` instead of
    ``theta``/``R_bearing``): a pad pressed by F at s0 sliding at v wears sector i by
    X * k * pbar_i * v * t / H, pbar_i the sector mean of the Hertz ellipse centred at s0
    (positions in metres along the profile); exact discretisation, so 1e-9."""
    from wearcosim.export.build import build_fmu
    from wearcosim.wear_interface import check
    fmu = build_fmu("PressedFlank", FIX / "flank", tmp_path, path=FIX / "flank" / "PressedFlank.mo").fmu
    assert check(fmu) == []
    sc = from_dict({"name": "flank", "fmu": {"path": str(fmu)},
                    "wear": {"k": 1e-4, "hardness": 1.2e9, "cycles": 4, "period": 0.02, "update_cycles": 1,
                             "extrapolation": 10.0},
                    "run": {"steps_per_cycle": 50, "tolerance": 1e-8, "record": ["Fn"]}}, "test")
    path = WearMaster(sc, tmp_path, progress=False).run()
    meta, _, wear = store.read_results(path)
    surf = SectorSurface(20, 0.02, extent=0.01)
    assert meta["extent"] == pytest.approx(0.01) and meta["radius"] == 0
    pbar = sector_pressure(surf, [0.0064], [500.0], [2e-4])[0]
    expect = 10.0 * 1e-4 * pbar * 0.5 * (4 * 0.02) / 1.2e9
    np.testing.assert_allclose(wear["final"], expect, rtol=1e-9, atol=1e-18)
    assert np.count_nonzero(expect) == 2            # s0 +- b = 6.2..6.6 mm spans sectors 13 and 14 (0.5 mm each)
    assert wear["final"].sum() * surf.area == pytest.approx(10.0 * 1e-4 * 500.0 * 0.5 * 0.08 / 1.2e9, rel=1e-9)
    from wearcosim.plots.wear import plot_results
    made = plot_results(path, tmp_path / "fig")
    assert any(p.name.endswith("_final.png") for p in made) and all(p.exists() for p in made)


def test_fixed_parameter_profile_is_rewritten_by_reinitialisation(pressed_fmu, tmp_path):
    """An FMU exposing wearDepth[] as *fixed* parameters (OpenModelica's export) is driven by
    reset + re-initialise at the update time with the states read just before: the profile
    reaches it (force feedback), the state continues (the journal angle phi does not restart),
    and the run equals the one of the same model with wearDepth as inputs.  Tolerance 1e-9
    relative: phi is restored exactly, the outputs do not depend on the solver's history."""
    from wearcosim.export.build import build_fmu
    from wearcosim.wear_interface import describe
    from fmpy import read_model_description
    fixed = build_fmu("PressedJournalParam", FIX / "pressedparam", tmp_path,
                      path=FIX / "pressedparam" / "PressedJournalParam.mo").fmu
    assert describe(read_model_description(str(fixed))).update == "reset"
    runs = {}
    for name, fmu in (("inputs", pressed_fmu), ("fixed", fixed)):
        sc = scenario(fmu, name=name, start={"kw": 1e6}, wear={"extrapolation": 1e4},
                      run={"record": ["Fn", "phi"]}, limits={"force": True})
        runs[name] = store.read_results(WearMaster(sc, tmp_path, progress=False).run())
    (_, s_in, w_in), (_, s_fx, w_fx) = runs["inputs"], runs["fixed"]
    assert s_fx["Fn"][-1] > 200.0 * 1.001                       # the profile reached the FMU
    np.testing.assert_allclose(s_fx["Fn"], s_in["Fn"], rtol=1e-9)
    np.testing.assert_allclose(s_fx["phi"], s_in["phi"], rtol=1e-9)
    assert np.all(np.diff(s_fx["phi"]) > 0)                     # no restart of the state at updates
    np.testing.assert_allclose(w_fx["final"], w_in["final"], rtol=1e-9, atol=1e-18)


def test_checkpoint_cost_does_not_grow_with_the_run(pressed_fmu, tmp_path):
    """The checkpoint holds the FMU state, the profile, the pending wear and the streams'
    lengths, not the series (they stream to disk): its size is the same after cycle 2 and after
    cycle 40, and the run's memory does not hold the series either."""
    sizes = {}

    def hook(m, st):
        if m.ckpt_path.exists():
            sizes[st.cycle] = m.ckpt_path.stat().st_size
    m = WearMaster(scenario(pressed_fmu, name="o1", wear={"cycles": 40, "update_cycles": 1}), tmp_path,
                   progress=False, hook=hook)
    m.checkpoint_seconds = 0.0
    path = m.run()
    assert len(sizes) >= 30 and max(sizes.values()) - min(sizes.values()) <= 64, sizes
    _, series, _ = store.read_results(path)
    assert series["time"].size > 40 * 10
    assert not (tmp_path / ".o1.spool").exists() and not m.ckpt_path.exists()


def test_checkpoint_of_the_older_layout_is_refused_clearly(pressed_fmu, tmp_path):
    from wearcosim.master.loop import MasterError
    sc = scenario(pressed_fmu, name="old", wear={"cycles": 3})
    store.save_checkpoint(tmp_path / "old.ckpt", {"depth": np.zeros(36), "series/time": np.zeros(5)}, {"cycle": 1})
    with pytest.raises(MasterError, match="older wearcosim.*--restart"):
        WearMaster(sc, tmp_path, progress=False).run(resume=True)


def test_record_every_nth_cycle_with_summaries_of_all(pressed_fmu, tmp_path):
    """run.record_every = 5 over 12 cycles: the full series of cycles 0, 5, 10 and the last (11),
    one summary value per cycle (peak and mean force, maximum depth, worn volume) with the cycle
    index as dimension scale, units on the datasets; the wear equals the run recording
    everything (recording does not change the physics)."""
    import h5py
    every = WearMaster(scenario(pressed_fmu, name="every", wear={"cycles": 12}, run={"record_every": 5}), tmp_path,
                       progress=False).run()
    full = WearMaster(scenario(pressed_fmu, name="full", wear={"cycles": 12}), tmp_path, progress=False).run()
    _, s5, w5 = store.read_results(every)
    _, s1, w1 = store.read_results(full)
    assert np.array_equal(w5["final"], w1["final"])
    per = s1["time"].size // 12
    assert s5["time"].size == 4 * per
    for k, c in enumerate((0, 5, 10, 11)):
        assert np.array_equal(s5["Fn"][k * per:(k + 1) * per], s1["Fn"][c * per:(c + 1) * per])
    summ = store.read_summary(every)
    assert list(summ["cycle"]) == list(range(12)) and np.flatnonzero(summ["recorded"]).tolist() == [0, 5, 10, 11]
    assert np.allclose(summ["peak_Fn"][5], s1["Fn"][5 * per:6 * per].max())
    assert summ["max_depth"][-1] == w1["final"].max() and np.all(np.diff(summ["worn_volume"]) >= 0)
    with h5py.File(every) as f:
        assert f["summary/peak_Fn"].attrs["units"] == "N" and f["series/time"].attrs["units"] == "s"
        assert f["summary/peak_Fn"].dims[0][0].name == "/summary/cycle"
        assert f["series/Fn"].dims[0][0].name == "/series/time"


def test_kill_and_resume_of_the_direct_reference_configuration(tmp_path):
    """The benchmark's direct reference (README demo: hybrid mechanism at 32 pi, no
    extrapolation, the profile updated after every cycle, series of every 100th cycle),
    shortened to 300 cycles: killed at >= 10 points chosen from its own progress and resumed,
    it ends bit-identical to an uninterrupted run."""
    from wearcosim.master.scenario import load
    d = dict(load(ROOT / "cosim" / "demo_hybrid_dry_32pi.toml").raw)
    d["name"] = "direct"
    d["fmu"] = {"model": d["fmu"]["model"]}
    d["wear"] = dict(d["wear"], cycles=300, extrapolation=1.0, update_cycles=1)
    d["run"] = dict(d["run"], record_every=100)
    ref, got, kills, _ = kill_and_resume(d, tmp_path, seed=5, checkpoints=(1, 20), pause=0.005)
    _, s_ref, w_ref = store.read_results(ref)
    _, s, w = store.read_results(got)
    assert np.array_equal(w["final"], w_ref["final"]) and np.array_equal(w["depth"], w_ref["depth"])
    for k in s_ref:
        assert np.array_equal(s[k], s_ref[k]), k
    assert np.array_equal(store.read_summary(got)["max_depth"], store.read_summary(ref)["max_depth"])
    assert kills >= 10, kills
