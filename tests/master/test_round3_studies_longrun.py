"""Reliability, round 3 (issue 33): long runs and studies under attack.  A failing hook or any
exception inside the loop leaves a checkpoint from which ``resume`` continues bit-identically;
``resume`` never silently starts over; damaged, foreign and other owners' checkpoints are
refused with one line naming the file; a full disk names the file; a study's lost workers
are bounded.  All on the small PressedJournal FMU; nothing here measures time."""
import errno
import json
import os
import resource
import signal

import numpy as np
import pytest

from wearcosim.master import store
from wearcosim.master.loop import MasterError, WearMaster
from wearcosim.master.scenario import from_dict


def sdict(fmu, name="lr", **over):
    return {"name": name, "fmu": {"path": str(fmu)}, "start": {"kw": 1e2, **over.pop("start", {})},
            "wear": {"k": 1e-4, "hardness": 1.2e9, "cycles": 8, "omega": 50.0, "update_cycles": 1,
                     "extrapolation": 10.0, **over.pop("wear", {})},
            "run": {"steps_per_cycle": 50, "tolerance": 1e-8, "record": ["Fn"], **over.pop("run", {})}, **over}


def master(d, out, **kw):
    return WearMaster(from_dict(d, "t.toml"), out, progress=False, **kw)


def same(a, b):
    """Two results files hold the same profiles, series and summaries, bit for bit."""
    _, sa, wa = store.read_results(a)
    _, sb, wb = store.read_results(b)
    for k in ("final", "depth", "cycles", "simulated_cycles"):
        assert np.array_equal(wa[k], wb[k]), k
    assert sa.keys() == sb.keys()
    for k in sa:
        assert np.array_equal(sa[k], sb[k]), k
    sua, sub = store.read_summary(a), store.read_summary(b)
    for k in sua:
        assert np.array_equal(sua[k], sub[k]), k


class Boom(Exception):
    pass


def raise_at(cycle, exc=Boom):
    def hook(m, st):
        if st.cycle == cycle:
            raise exc(f"hook at cycle {cycle}")
    return hook


@pytest.fixture(scope="module")
def reference(pressed_fmu, tmp_path_factory):
    """Uninterrupted runs, by (update_cycles, transient_cycles)."""
    out, done = tmp_path_factory.mktemp("lr_ref"), {}

    def get(update_cycles=1, transient=0):
        key = (update_cycles, transient)
        if key not in done:
            d = sdict(pressed_fmu, name=f"lr{update_cycles}_{transient}", wear={"update_cycles": update_cycles},
                      run={"transient_cycles": transient})
            done[key] = master(d, out / f"{update_cycles}_{transient}").run()
        return done[key]
    return get


# ------------------------------------------------------------------ a failing hook, any exception
@pytest.mark.parametrize("update_cycles, transient, at, ckpt_cycle", [
    (1, 0, 1, 1),      # the case: a hook raising at cycle 1
    (1, 0, 6, 6),
    (3, 0, 2, 0),      # before the first wear update: the start's checkpoint
    (3, 0, 7, 6),      # inside a window: the last update's
    (1, 3, 2, 0),      # in the transient cycles
    (1, 0, 8, 8),      # after the last update (the end's checkpoint is written already)
])
def test_a_hook_raising_leaves_a_checkpoint_resume_continues(pressed_fmu, reference, tmp_path, update_cycles,
                                                             transient, at, ckpt_cycle):
    import wearcosim as wc
    d = sdict(pressed_fmu, name=f"lr{update_cycles}_{transient}", wear={"update_cycles": update_cycles},
              run={"transient_cycles": transient})
    with pytest.raises(Boom) as ei:
        wc.run(d, out=tmp_path, hook=raise_at(at))
    ck = tmp_path / f"{d['name']}.ckpt"
    assert ck.exists(), "no checkpoint after the hook's exception"
    assert store.load_checkpoint(ck)[1]["cycle"] == ckpt_cycle
    assert any(str(ck) in n for n in getattr(ei.value, "__notes__", []))     # the exception says where
    with pytest.raises(MasterError, match="continue it with --resume"):      # a plain run does not start over
        wc.run(d, out=tmp_path)
    m = master(d, tmp_path)
    same(m.run(resume=True), reference(update_cycles, transient))
    assert m.resumed_from == ckpt_cycle
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{d['name']}.h5"]


def test_ctrl_c_in_the_loop_leaves_a_checkpoint(pressed_fmu, reference, tmp_path):
    d = sdict(pressed_fmu, name="lr1_0")
    m = master(d, tmp_path, hook=raise_at(4, KeyboardInterrupt))
    m.checkpoint_seconds = 1e9                # only the failure writes it
    with pytest.raises(KeyboardInterrupt):
        m.run()
    assert store.load_checkpoint(tmp_path / "lr1_0.ckpt")[1]["cycle"] == 4
    same(master(d, tmp_path).run(resume=True), reference())


def test_an_exception_inside_the_loop_leaves_a_checkpoint(pressed_fmu, reference, tmp_path, monkeypatch):
    """Not the hook: the wear integration itself raises in the 5th cycle."""
    from wearcosim.master import loop
    real, calls = loop.CycleWear.add_to, []

    def failing(*a, **k):
        calls.append(1)
        if len(calls) == 5:
            raise FloatingPointError("injected")
        return real(*a, **k)
    monkeypatch.setattr(loop.CycleWear, "add_to", failing)
    d = sdict(pressed_fmu, name="lr1_0")
    m = master(d, tmp_path)
    m.checkpoint_seconds = 1e9
    with pytest.raises(FloatingPointError):
        m.run()
    assert store.load_checkpoint(tmp_path / "lr1_0.ckpt")[1]["cycle"] == 4
    monkeypatch.setattr(loop.CycleWear, "add_to", real)
    same(master(d, tmp_path).run(resume=True), reference())


def test_resume_after_repeated_failures(pressed_fmu, reference, tmp_path):
    """Fails at cycle 2, resumed, fails at cycle 5, resumed: the same results."""
    d = sdict(pressed_fmu, name="lr1_0")
    with pytest.raises(Boom):
        master(d, tmp_path, hook=raise_at(2)).run()
    with pytest.raises(Boom):
        master(d, tmp_path, hook=raise_at(5)).run(resume=True)
    assert store.load_checkpoint(tmp_path / "lr1_0.ckpt")[1]["cycle"] == 5
    same(master(d, tmp_path).run(resume=True), reference())


def test_an_adaptive_run_failing_in_a_hook_resumes_identically(pressed_fmu, tmp_path):
    d = sdict(pressed_fmu, name="ad", wear={"extrapolation": "adaptive", "real_cycles": 3e3, "cycles": 60,
                                            "first_extrapolation": 50.0, "rtol": 0.01})
    ref = master(d, tmp_path / "ref").run()
    with pytest.raises(Boom):
        master(d, tmp_path / "run", hook=raise_at(9)).run()
    path = master(d, tmp_path / "run").run(resume=True)
    same(path, ref)
    for k in ("factor", "accepted", "real_cycles"):
        assert np.array_equal(store.read_extrapolation(path)[k], store.read_extrapolation(ref)[k]), k


# ------------------------------------------------------------------ resume never silently starts over
def test_resume_without_a_checkpoint_says_it_starts_at_cycle_0(pressed_fmu, tmp_path, capsys):
    d = sdict(pressed_fmu, wear={"cycles": 2})
    m = master(d, tmp_path)
    m.run(resume=True)
    err = capsys.readouterr().err
    assert "no checkpoint of 'lr' to resume from; the run starts at cycle 0" in err and str(m.ckpt_path) in err
    assert m.resumed_from is None
    master(d, tmp_path).run(resume=True)        # after a completed run: says the results are replaced
    assert "results of a completed run are there" in capsys.readouterr().err


# ------------------------------------------------------------------ damaged and foreign checkpoints
def _interrupted(fmu, out, name="lr", owner=None, at=3):
    d = sdict(fmu, name=name)
    with pytest.raises(Boom):
        master(d, out, hook=raise_at(at), owner=owner).run()
    return d, out / f"{name}.ckpt"


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage_payload", "no_meta_keys"])
def test_damaged_checkpoints_are_refused_naming_the_file(pressed_fmu, tmp_path, damage):
    import hashlib
    import io
    d, ck = _interrupted(pressed_fmu, tmp_path)
    raw = ck.read_bytes()
    if damage == "flip":
        raw = raw[:-40] + bytes([raw[-40] ^ 0xFF]) + raw[-39:]
    elif damage == "truncate":
        raw = raw[: len(raw) // 2]
    elif damage == "empty":
        raw = b""
    elif damage == "garbage_payload":           # checksum made right: the payload is not an archive
        payload = b"PK\x03\x04 not a zip at all" * 10
        raw = b"WCCK1\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    else:                                        # right checksum, the layout's keys missing
        buf = io.BytesIO()
        np.savez(buf, __meta__=np.frombuffer(json.dumps({"layout": 3}).encode(), dtype=np.uint8))
        payload = buf.getvalue()
        raw = b"WCCK1\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    ck.write_bytes(raw)
    with pytest.raises((MasterError, store.CheckpointError)) as ei:
        master(d, tmp_path).run(resume=True)
    assert str(ck) in str(ei.value) and "\n" not in str(ei.value)
    assert ck.read_bytes() == raw                # left for the user to look at
    assert not list(tmp_path.glob("*.h5"))


def test_a_checkpoint_that_does_not_fit_the_fmu_is_refused(pressed_fmu, tmp_path):
    """A crafted checkpoint of the right scenario and FMU but 7 sectors instead of 36."""
    d, ck = _interrupted(pressed_fmu, tmp_path)
    arrays, meta = store.load_checkpoint(ck)
    arrays["depth"] = arrays["depth"][:7]
    store.save_checkpoint(ck, arrays, meta)
    with pytest.raises(MasterError, match="checkpoint does not fit this run"):
        master(d, tmp_path).run(resume=True)


def test_owner_check_accepts_the_study_own_retry_only(pressed_fmu, reference, tmp_path):
    """A checkpoint left by a study's case (owner "A"): the same study's retry continues it
    without being asked; another study ("B") and a plain run refuse it; an explicit resume
    takes it."""
    d, ck = _interrupted(pressed_fmu, tmp_path, name="lr1_0", owner="A")
    assert store.load_checkpoint(ck)[1]["owner"] == "A"
    for owner in ("B", None):
        with pytest.raises(MasterError, match="continue it with --resume"):
            master(d, tmp_path, owner=owner).run()
    m = master(d, tmp_path, owner="A")
    same(m.run(), reference())
    assert m.retried and m.resumed_from == 3


def test_a_study_refuses_a_plain_runs_checkpoint_in_its_folder(pressed_fmu, tmp_path):
    from wearcosim.studies.runner import run_all
    import tomli_w
    d, ck = _interrupted(pressed_fmu, tmp_path / "out")
    before = ck.read_bytes()
    toml = tmp_path / "lr.toml"
    toml.write_text(tomli_w.dumps(d))
    with pytest.raises(MasterError, match=f"{ck}: an interrupted run"):
        run_all([toml], tmp_path / "out", workers=1)
    assert ck.read_bytes() == before


def test_a_stale_or_garbage_lock_file_is_no_obstacle(pressed_fmu, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / ".lr.lock").write_bytes(b"\xff\x00 not json")
    m = master(sdict(pressed_fmu, wear={"cycles": 2}), out, owner="S")
    m.run()
    assert not m.retried and sorted(p.name for p in out.iterdir()) == ["lr.h5"]


# ------------------------------------------------------------------ a full disk names the file
def test_full_disk_at_a_checkpoint_names_it(pressed_fmu, tmp_path, monkeypatch):
    import wearcosim.atomic as atomic
    real = atomic.os.replace

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), src)      # names the temporary file
    monkeypatch.setattr(atomic.os, "replace", full)
    m = master(sdict(pressed_fmu), tmp_path)
    m.checkpoint_seconds = 0.0
    with pytest.raises(MasterError) as ei:
        m.run()
    monkeypatch.setattr(atomic.os, "replace", real)
    msg = str(ei.value)
    assert msg == f"cannot write the checkpoint {m.ckpt_path}: No space left on device", msg
    assert not list(tmp_path.glob(".*.tmp")) and not m.ckpt_path.exists()


def test_full_disk_in_the_results_hdf5_names_it(pressed_fmu, tmp_path, monkeypatch):
    """HDF5's own message (its errno inside the text) becomes the file and the cause."""
    def full(f, group, *a, **k):
        raise OSError(f"Can't synchronously write data (file write failed: time = Sat Dec  5, filename = "
                      f"'{f.filename}', file descriptor = 7, errno = 28, error message = 'No space left on device')")
    monkeypatch.setattr(store, "_streamed_group", full)
    m = master(sdict(pressed_fmu), tmp_path)
    with pytest.raises(MasterError) as ei:
        m.run()
    assert str(ei.value) == f"cannot write the results {m.results_path}: No space left on device"
    assert not list(tmp_path.glob(".*.tmp"))


def test_full_disk_in_the_streams_names_the_stream_and_keeps_the_checkpoint(pressed_fmu, reference, tmp_path):
    """The stream "Fn" cannot grow after cycle 5 (its file refuses every write, like a full
    disk): one error naming its file, found when the next checkpoint makes the held values
    durable (the spool holds them till then; here a checkpoint after every update): that
    checkpoint is not written, the one of cycle 5 is kept; resume ends bit-identical."""
    class Full:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.f, name)

    def fill(m, st):
        if st.cycle == 5:
            st.spool._files["Fn"] = Full(st.spool._files["Fn"])
    d = sdict(pressed_fmu, name="lr1_0")
    m = master(d, tmp_path, hook=fill)
    m.checkpoint_seconds = 0.0
    with pytest.raises(MasterError) as ei:
        m.run()
    msg = str(ei.value)
    assert msg.startswith(f"{tmp_path / '.lr1_0.spool' / 'Fn.f64'}: No space left on device; the checkpoint of "
                          f"cycle 6 could not be written"), msg
    assert msg.endswith(f"the older one is kept: {tmp_path / 'lr1_0.ckpt'}"), msg
    assert store.load_checkpoint(tmp_path / "lr1_0.ckpt")[1]["cycle"] == 5
    same(master(d, tmp_path).run(resume=True), reference())


def test_file_size_limit_is_one_error_naming_the_file_then_resumes(pressed_fmu, reference, tmp_path):
    """RLIMIT_FSIZE set from the hook at cycle 2 (a disk that fills up during the run): the
    write that crosses it fails with one error naming the file; the last checkpoint that
    could be written stays; without the limit ``resume`` ends with the uninterrupted run's
    results."""
    d = sdict(pressed_fmu, name="fs", wear={"cycles": 12}, run={"steps_per_cycle": 400})
    ref = master(d, tmp_path / "ref").run()
    out = tmp_path / "out"
    old = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_sig = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)          # EFBIG instead of the signal

    def limit(m, st):
        if st.cycle == 2:
            biggest = max(p.stat().st_size for p in [*out.rglob("*")] if p.is_file())
            resource.setrlimit(resource.RLIMIT_FSIZE, (biggest + 16_000, old[1]))
    m = master(d, out, hook=limit)
    m.checkpoint_seconds = 0.0
    try:
        with pytest.raises(MasterError) as ei:
            m.run()
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old)
        signal.signal(signal.SIGXFSZ, old_sig)
    msg = str(ei.value)
    assert "File too large" in msg and str(out) in msg and "\n" not in msg, msg
    assert m.ckpt_path.exists() and not list(out.glob(".*.tmp"))
    same(master(d, out).run(resume=True), ref)


# ------------------------------------------------------------------ a study's lost workers are bounded
def _die_once(marker):
    """A call whose process dies the first time it runs (a killed worker), not after."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)
    return os.getpid()


def _square_or_die(x, die):
    if x == die:
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x


def test_local_pool_gives_the_unfinished_calls_to_a_new_pool(tmp_path, capsys):
    from wearcosim.studies.runner import _execute
    seen = []
    out = _execute(_square_or_die, [(k, -1) for k in range(6)], 2, None, lambda k, ok, r: seen.append(ok))
    assert out == [k * k for k in range(6)] and seen == [True] * 6
    got = _execute(_die_once, [(str(tmp_path / "m"),)] * 3, 2, None, lambda k, ok, r: seen.append(ok))
    assert len(got) == 3 and "a worker process was lost" in capsys.readouterr().err


def test_a_case_that_always_kills_its_worker_ends_the_study_with_one_error(tmp_path):
    from wearcosim.studies import runner
    with pytest.raises(MasterError, match="worker processes died 4 times"):
        runner._execute(_square_or_die, [(k, 3) for k in range(5)], 2, None, lambda k, ok, r: None)


def _crash(x):
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_case_that_kills_every_dask_worker_is_one_error(tmp_path):
    """Dask gives up on a task whose workers all died (KilledWorker): one error naming the
    case, not an internal error."""
    pytest.importorskip("distributed", reason="dask[distributed] is a test extra")
    import dask
    from distributed import Client, LocalCluster
    from wearcosim.studies import runner
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            with Client(cluster) as client:
                with pytest.raises(MasterError, match=r"^/x/bad.toml: every Dask worker that ran it died"):
                    runner._execute(_crash, [("/x/bad.toml",)], 2, client, lambda k, ok, r: None)
