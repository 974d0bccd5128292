"""The wear master refuses what it cannot do and stops before physically impossible wear
(issue 14): physical guards, the last partial update window, scenario checks before cycle 1,
output-folder hygiene (lock, leftovers, umask), interrupted-run checkpoints, and the CLI's one
error path (one line ``error: ...``, non-zero exit, a traceback only with ``--debug``).

Hostile inputs are generated here, from the small PressedJournal test model (a journal
pressed by F = 200 N at a fixed angle, clearance c = 0.1 mm, R_bearing = 10.1 mm)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from wctest import ROOT
from wearcosim.master import store
from wearcosim.master.loop import LimitExceeded, MasterError, WearMaster
from wearcosim.master.scenario import ScenarioError, from_dict

FIX = ROOT / "tests" / "master" / "fixtures"


def sdict(fmu, **over):
    return {"name": over.pop("name", "g"), "fmu": {"path": str(fmu)}, "start": over.pop("start", {}),
            "wear": {"k": 1e-4, "hardness": 1.2e9, "cycles": 4, "omega": 50.0, "update_cycles": 1,
                     "extrapolation": 100.0, **over.pop("wear", {})},
            "run": {"steps_per_cycle": 100, "tolerance": 1e-8, "record": ["Fn"], **over.pop("run", {})},
            **over}


def run(d, out, **kw):
    return WearMaster(from_dict(d, "test.toml"), out, progress=False, **kw).run()


def cli(*args, env_extra=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "wearcosim.cli", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=300)


def one_error_line(r):
    """The CLI's contract for a user error."""
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


# ---------------------------------------------------------------------------- physical guards
@pytest.mark.parametrize("extrapolation", [1e7, 1e9])
def test_impossible_wear_stops_the_run(pressed_fmu, tmp_path, extrapolation):
    """extrapolation 1e7 gave 0.42 m of wear in a 0.25 mm clearance with exit 0: now the first
    update that breaks a limit stops the run, naming cycle, sector and values; the results hold
    the last accepted profile and say that the run stopped."""
    with pytest.raises(LimitExceeded) as ei:
        run(sdict(pressed_fmu, wear={"extrapolation": extrapolation}), tmp_path)
    msg = str(ei.value)
    assert "wear cycle 1" in msg and "sector 6" in msg and "limits.depth_per_clearance" in msg
    assert "limits.update_per_clearance" in msg and "c = 0.0001 m" in msg and "--force" in msg
    meta, _, wear = store.read_results(tmp_path / "g.h5")
    assert meta["completed"] is False or meta["completed"] == 0
    assert "limits" in meta["stopped"] and wear["final"].max() == 0.0


def test_tiny_clearance_stops_on_depth(pressed_fmu, tmp_path):
    """A clearance of 1e-9 m wore 25x deeper than the clearance: the depth guard (4 c) stops it
    even where a single update is small."""
    d = sdict(pressed_fmu, start={"c": 1e-9}, wear={"extrapolation": 1.0, "cycles": 40},
              limits={"update_per_clearance": 1e9})
    with pytest.raises(LimitExceeded, match=r"worn depth reaches .* more than limits.depth_per_clearance = 4 x c"):
        run(d, tmp_path)


def test_force_goes_on_with_one_warning(pressed_fmu, tmp_path, capsys):
    d = sdict(pressed_fmu, wear={"extrapolation": 1e6})
    path = run(d, tmp_path, force=True)
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "going on (--force)" in err
    meta, _, wear = store.read_results(path)
    assert meta["completed"] and wear["final"].max() > 4e-4          # beyond 4 c, knowingly
    d["limits"] = {"force": True}
    np.testing.assert_array_equal(store.read_results(run(d, tmp_path / "b"))[2]["final"], wear["final"])


def test_guard_reference_can_be_given(pressed_fmu, tmp_path):
    """limits.clearance overrides the FMU's c: with c_ref = 1 m the 3e3 run (89 um per update,
    0.36 mm in all: more than 0.1 c and 4 c of the FMU's c = 0.1 mm) is not stopped."""
    d = sdict(pressed_fmu, wear={"extrapolation": 3e3})
    with pytest.raises(LimitExceeded):
        run(d, tmp_path)
    d["limits"] = {"clearance": 1.0}
    assert store.read_results(run(d, tmp_path / "b"))[0]["completed"]


def test_stopped_run_can_be_resumed_with_force(pressed_fmu, tmp_path):
    """The limit is reached after a few accepted updates: the checkpoint of the last accepted
    one is kept, --resume --force continues from it to the same profile as a forced run."""
    d = sdict(pressed_fmu, wear={"extrapolation": 3e3, "cycles": 6}, limits={"update_per_clearance": 1e9})
    m = WearMaster(from_dict(d, "t.toml"), tmp_path / "a", progress=False)
    m.checkpoint_seconds = 0.0
    with pytest.raises(LimitExceeded, match="--resume --force"):
        m.run()
    assert m.ckpt_path.exists()
    cyc = store.load_checkpoint(m.ckpt_path)[1]["cycle"]
    assert 1 <= cyc < 6
    resumed = WearMaster(from_dict(d, "t.toml"), tmp_path / "a", progress=False, force=True).run(resume=True)
    forced = WearMaster(from_dict(d, "t.toml"), tmp_path / "b", progress=False, force=True).run()
    np.testing.assert_array_equal(store.read_results(resumed)[2]["final"], store.read_results(forced)[2]["final"])


# ---------------------------------------------------------------------------- last partial window
@pytest.mark.parametrize("cycles, update", [(4, 5), (7, 3), (1, 2)])
def test_last_partial_window_is_applied(pressed_fmu, tmp_path, cycles, update):
    """cycles = 4, update_cycles = 5 ended with wear exactly 0: the wear of every simulated
    cycle now reaches the final profile.  Without feedback (kw = 0) the total is the same as
    updating every cycle."""
    w = {"cycles": cycles, "extrapolation": 10.0}
    a = run(sdict(pressed_fmu, name="a", wear={**w, "update_cycles": update}), tmp_path)
    b = run(sdict(pressed_fmu, name="b", wear={**w, "update_cycles": 1}), tmp_path)
    wa, wb = store.read_results(a)[2], store.read_results(b)[2]
    assert wa["final"].max() > 0
    np.testing.assert_allclose(wa["final"], wb["final"], rtol=1e-12, atol=0)
    assert wa["simulated_cycles"][-1] == cycles


# ---------------------------------------------------------------------------- scenario checks
@pytest.mark.parametrize("name", ["../evil", "/tmp/evil", "a/b", "..", ".hidden", "", "x" * 200, "a b"])
def test_name_must_be_a_plain_stem(pressed_fmu, tmp_path, name):
    with pytest.raises(ScenarioError, match="plain file stem"):
        from_dict(sdict(pressed_fmu, name=name), "t.toml")


@pytest.mark.parametrize("wear, needle", [
    ({"omega": 0.0}, "wear.omega must be > 0"),
    ({"omega": -3.0}, "wear.omega must be > 0"),
    ({"period": 0.1}, "both 'period'"),
])
def test_period_and_omega(pressed_fmu, wear, needle):
    with pytest.raises(ScenarioError, match=needle):
        from_dict(sdict(pressed_fmu, wear=wear), "t.toml")


@pytest.mark.parametrize("limits, needle", [
    ({"depth_per_clearance": 0.0}, "depth_per_clearance"), ({"update_per_clearance": -1.0}, "update_per_clearance"),
    ({"clearance": -1e-3}, "limits.clearance"), ({"force": 1}, "limits.force"), ({"forse": True}, "limits.forse"),
])
def test_bad_limits(pressed_fmu, limits, needle):
    with pytest.raises(ScenarioError, match=needle):
        from_dict(sdict(pressed_fmu, limits=limits), "t.toml")


def test_smoothing_wider_than_the_sectors_is_refused_before_cycle_1(pressed_fmu, tmp_path):
    cycles = []
    m = WearMaster(from_dict(sdict(pressed_fmu, wear={"smoothing": 18}), "t.toml"), tmp_path, progress=False,
                   hook=lambda m, st: cycles.append(st.cycle))
    with pytest.raises(MasterError, match=r"wear.smoothing = 18 .* 36; use at most 17"):
        m.run()
    assert cycles == [] and not list(tmp_path.iterdir())


def test_run_too_large_for_the_disk(pressed_fmu, tmp_path):
    """Refused before cycle 1; memory is no limit (the series stream to disk)."""
    with pytest.raises(MasterError, match="records about .* free"):
        run(sdict(pressed_fmu, wear={"cycles": 10**9}), tmp_path)
    assert not list(tmp_path.glob("g.*")) and not list(tmp_path.glob(".g.spool"))


def test_long_run_says_its_duration(pressed_fmu, tmp_path, capsys):
    m = WearMaster(from_dict(sdict(pressed_fmu, wear={"cycles": 3}), "t.toml"), tmp_path, progress=True)
    m.long_run_seconds = 0.0
    m.run()
    assert "estimated duration" in capsys.readouterr().err


# ---------------------------------------------------------------------------- output folder
def test_output_folder_that_cannot_be_made_or_written(pressed_fmu, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("x")
    with pytest.raises(MasterError, match="cannot create the output folder"):
        run(sdict(pressed_fmu), tmp_path / "file" / "out")
    from wearcosim.master import loop
    monkeypatch.setattr(loop.os, "access", lambda p, m: False)    # (root ignores permission bits)
    with pytest.raises(MasterError, match="is not writable"):
        run(sdict(pressed_fmu), tmp_path / "ro")


def test_full_disk_at_the_end_is_one_error(pressed_fmu, tmp_path, monkeypatch):
    import errno

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(store, "write_results_streamed", full)
    with pytest.raises(MasterError, match="cannot write the results .*No space left"):
        run(sdict(pressed_fmu), tmp_path)


def test_leftovers_of_a_killed_run_are_removed(pressed_fmu, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for n in (".g.h5.abc123.tmp", ".g.ckpt.x9.tmp"):
        (out / n).write_bytes(b"\0" * 1000)
    (out / ".other.h5.zz.tmp").write_text("not ours")        # another scenario's: left alone
    run(sdict(pressed_fmu), out)
    assert sorted(p.name for p in out.iterdir()) == [".other.h5.zz.tmp", "g.h5"]


def test_second_concurrent_run_of_a_scenario_is_refused(pressed_fmu, tmp_path):
    from wearcosim.master.loop import _Lock
    tmp_path.joinpath("out").mkdir()
    lock = _Lock(tmp_path / "out" / ".g.lock")
    try:
        with pytest.raises(MasterError, match="another run of scenario 'g'"):
            run(sdict(pressed_fmu), tmp_path / "out")
    finally:
        lock.release()
    run(sdict(pressed_fmu), tmp_path / "out")


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_files_honour_the_umask(pressed_fmu, tmp_path, mask):
    from wearcosim.export.build import build_fmu
    old = os.umask(mask)
    try:
        res = run(sdict(pressed_fmu), tmp_path)
        fmu = build_fmu("PressedJournal", FIX / "pressed", tmp_path / "b", path=FIX / "pressed" / "PressedJournal.mo").fmu
        from wearcosim.plots.wear import plot_results
        figs = plot_results(res, tmp_path / "fig")
    finally:
        os.umask(old)
    for p in [res, fmu, *figs]:
        assert p.stat().st_mode & 0o777 == 0o666 & ~mask, (p, oct(p.stat().st_mode))


# ---------------------------------------------------------------------------- checkpoints
def test_plain_run_over_an_interrupted_checkpoint_is_refused(pressed_fmu, tmp_path):
    d = sdict(pressed_fmu, start={"tFail": 0.3}, wear={"cycles": 5})
    with pytest.raises(MasterError, match="FMU failed"):
        run(d, tmp_path)
    ck = tmp_path / "g.ckpt"
    assert ck.exists()
    with pytest.raises(MasterError, match="interrupted run .* --resume, or .* --restart"):
        run(d, tmp_path)
    d["start"] = {}
    with pytest.raises(MasterError, match="different scenario"):
        WearMaster(from_dict(d, "t.toml"), tmp_path, progress=False).run(resume=True)
    path = WearMaster(from_dict(d, "t.toml"), tmp_path, progress=False).run(restart=True)
    assert store.read_results(path)[0]["completed"] and not ck.exists()    # completed: removed


def test_resume_whose_fmu_state_is_refused_names_the_cause(pressed_fmu, tmp_path):
    """--resume crashed with UnboundLocalError ('mark') when the FMU refused the checkpoint's
    state: now one message naming the checkpoint and the FMU's reason."""
    d = sdict(pressed_fmu, start={"tFail": 0.3}, wear={"cycles": 5})
    with pytest.raises(MasterError):
        run(d, tmp_path)
    ck = tmp_path / "g.ckpt"
    arrays, meta = store.load_checkpoint(ck)
    blob = arrays["fmu_state"].copy()
    blob[8:40] ^= 0x5A                                   # a valid file (checksum) with a foreign state
    arrays["fmu_state"] = blob
    store.save_checkpoint(ck, arrays, meta)
    with pytest.raises(MasterError) as ei:
        WearMaster(from_dict(d, "t.toml"), tmp_path, progress=False).run(resume=True)
    assert "refused the checkpoint's state" in str(ei.value) and "g.ckpt" in str(ei.value)


# ---------------------------------------------------------------------------- the CLI
def _toml(tmp_path, d, name="s.toml"):
    import tomli_w
    p = tmp_path / name
    p.write_text(tomli_w.dumps(d))
    return p


def test_cli_errors_are_one_line(pressed_fmu, tmp_path):
    """Every user error of `run`, `simulate`, `check`, `plot`, `build`: one line, exit != 0,
    nothing written outside --out."""
    out = tmp_path / "out"
    bad_zip = tmp_path / "bad.fmu"
    bad_zip.write_text("not a zip")
    no_wear = tmp_path / "plain.fmu"
    from wearcosim.export.build import build_fmu
    no_wear = build_fmu("WearCosim.Examples.Basic.BouncingBall", ROOT / "modelica" / "WearCosim",
                        tmp_path / "bb").fmu
    cases = {
        "missing scenario": ("run", tmp_path / "nope.toml", "--out", out),
        "bad toml": ("run", _toml(tmp_path, {}, "empty.toml"), "--out", out),
        "missing fmu": ("run", _toml(tmp_path, sdict(tmp_path / "nope.fmu"), "m.toml"), "--out", out),
        "not a zip": ("run", _toml(tmp_path, sdict(bad_zip), "z.toml"), "--out", out),
        "no wear interface": ("run", _toml(tmp_path, sdict(no_wear), "nw.toml"), "--out", out),
        "omega 0": ("run", _toml(tmp_path, sdict(pressed_fmu, wear={"omega": 0.0}), "w.toml"), "--out", out),
        "impossible wear": ("run", _toml(tmp_path, sdict(pressed_fmu, wear={"extrapolation": 1e7}), "x.toml"),
                            "--out", out),
        "out is a file": ("run", _toml(tmp_path, sdict(pressed_fmu), "o.toml"), "--out", bad_zip),
        "resume and restart": ("run", _toml(tmp_path, sdict(pressed_fmu), "o.toml"), "--resume", "--restart"),
        "simulate missing": ("simulate", tmp_path / "nope.fmu"),
        "simulate not a zip": ("simulate", bad_zip),
        "simulate unknown variable": ("simulate", pressed_fmu, "--variables", "nope"),
        "plot missing": ("plot", tmp_path / "nope.h5"),
        "plot not hdf5": ("plot", bad_zip),
        "build missing file": ("build", "--file", tmp_path / "nope.mo", "M"),
        "build unknown model": ("build", "WearCosim.Examples.Nope", "--out", out),
    }
    before = set(tmp_path.rglob("*"))
    for what, args in cases.items():
        r = cli(*args)
        line = one_error_line(r)
        assert len(line) < 2000, what
    made = set(tmp_path.rglob("*")) - before
    assert all(out in p.parents or p == out for p in made), made
    r = cli("--debug", "run", tmp_path / "nope.toml")
    assert r.returncode != 0 and "Traceback" in r.stderr


def test_cli_force_and_restart(pressed_fmu, tmp_path):
    sc = _toml(tmp_path, sdict(pressed_fmu, wear={"extrapolation": 1e6}))
    line = one_error_line(cli("run", sc, "--out", tmp_path / "o", "--quiet"))
    assert "--force" in line and "sector" in line
    r = cli("run", sc, "--out", tmp_path / "o", "--quiet", "--force")
    assert r.returncode == 0 and "warning:" in r.stderr, r.stderr


def test_unreachable_scheduler_is_one_error(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    import socket
    from wearcosim.studies import runner
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()                                            # a port nobody listens on
    monkeypatch.setattr(runner, "CONNECT_TIMEOUT", 2.0)
    with pytest.raises(MasterError, match=f"cannot reach the Dask scheduler tcp://127.0.0.1:{port}"):
        runner.run_all([ROOT / "cosim" / "gear_wear.toml"], tmp_path / "out", scheduler=f"tcp://127.0.0.1:{port}")
    assert not (tmp_path / "out").exists()                # failed before any work
