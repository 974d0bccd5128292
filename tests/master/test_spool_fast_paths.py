"""The spool's held scalars and unbuffered writes, and the runner's direct fmi2SetReal and
reused FMU states: the same streams, values and states as before."""
import numpy as np
import pytest

from wearcosim.master import store


def test_held_scalars_reach_the_files_in_order(tmp_path):
    names = ["a", "b", "s"]
    sp = store.Spool(tmp_path / "sp", names)
    sp.HOLD = 4
    ref = {"a": [], "b": [], "s": []}
    for i in range(11):
        sp.append_scalars(("a", "b"), (i, 0.5 * i))
        ref["a"].append(i)
        ref["b"].append(0.5 * i)
        if i % 3 == 0:
            sp.append("s", np.arange(3.0) + i)
            ref["s"] += list(np.arange(3.0) + i)
    assert sp.lengths == {n: len(v) for n, v in ref.items()}
    for n in names:
        assert np.array_equal(sp.read(n), ref[n]), n
    sp.append_scalars(("a", "b"), (99, 98))
    lengths = sp.sync()
    assert (tmp_path / "sp" / "a.f64").stat().st_size == 8 * lengths["a"] == 8 * 12
    sp.append_scalars(("a", "b"), (1, 2))
    sp.truncate(lengths)
    assert sp.lengths["a"] == 12 and np.array_equal(sp.read("a")[-1:], [99])
    sp.append_scalars(("a", "b"), (5, 6))
    sp.close()
    again = store.Spool(tmp_path / "sp", names, {"a": 13, "b": 13, "s": 12})
    assert np.array_equal(again.read("a")[-2:], [99, 5])
    again.remove()


def test_a_partial_raw_write_is_completed():
    class Slow:
        def __init__(self):
            self.data = b""

        def write(self, d):
            d = memoryview(d).cast("B")
            k = max(1, len(d) // 3)
            self.data += bytes(d[:k])
            return k
    f = Slow()
    x = np.arange(17.0)
    store._put(f, x.data)
    assert np.array_equal(np.frombuffer(f.data), x)


def test_set_reals_and_reused_states(pressed_fmu):
    from wearcosim.fmi.runner import FMIError, open_fmu
    r = open_fmu(pressed_fmu)
    try:
        r.setup(0.0, None, 1e-8, 1e-3)
        r.initialize()
        names = [v.name for v in r.md.modelVariables if v.name.startswith("wearDepth[")]
        vrs = r.vr(names)
        p = np.linspace(0, 1e-6, len(vrs))
        r.set_reals(vrs, p)
        assert np.array_equal(r.get_reals(vrs), p)
        r.set_reals(vrs, list(2 * p))
        assert np.array_equal(r.get_reals(vrs), 2 * p)
        with pytest.raises(ValueError):
            r.set_reals(vrs, p[:2])
        with pytest.raises(FMIError, match="fmi2SetReal"):
            r.set_reals([10 ** 6], [1.0])
        s = r.save_state()
        blob = r.serialize_state(s)
        out1, _ = r.step_record(20, vrs)
        out1 = out1.copy()
        assert r.save_state(s) is s                       # the same state, overwritten
        r.set_state(s)
        assert r.serialize_state(s) != blob
        s2 = r.deserialize_state(blob)
        r.set_state(s2)
        r.k = 0
        out2, _ = r.step_record(20, vrs)
        assert np.array_equal(out1, out2)
        r.free_state(s)
        r.free_state(s2)
    finally:
        r.terminate()


def test_held_rows_reach_the_files_in_order(tmp_path):
    """A recorded cycle's series are held (HOLD_ROWS values per stream) and reach the files in
    order, before any read, cut, sync or close; what sync returns is on disk."""
    names = ["t", "x", "a"]
    sp = store.Spool(tmp_path / "sp", names)
    sp.HOLD_ROWS = 7
    ref = {n: [] for n in names}
    rng = np.random.default_rng(1)
    for i in range(9):
        block = rng.standard_normal((2, 3))
        sp.append_rows(("t", "x"), block)
        ref["t"] += list(block[0])
        ref["x"] += list(block[1])
        if i % 4 == 0:
            sp.append("x", [float(i)])              # a plain append after held rows keeps the order
            ref["x"].append(float(i))
        sp.append_scalars(("a",), (i,))
        ref["a"].append(i)
    assert sp.lengths == {n: len(v) for n, v in ref.items()}
    lengths = sp.sync()
    for n in names:
        assert (tmp_path / "sp" / f"{n}.f64").stat().st_size == 8 * lengths[n]
        assert np.array_equal(sp.read(n), ref[n]), n
    sp.append_rows(("t", "x"), np.ones((2, 3)))
    sp.truncate(lengths)                            # held rows taken back with the rest
    assert all(np.array_equal(sp.read(n), ref[n]) for n in names)
    sp.append_rows(("t", "x"), np.full((2, 2), 5.0))
    sp.close()                                      # held rows written on close
    again = store.Spool(tmp_path / "sp", names, {"t": len(ref["t"]) + 2, "x": len(ref["x"]) + 2, "a": len(ref["a"])})
    assert np.array_equal(again.read("t")[-3:], [ref["t"][-1], 5.0, 5.0])
    again.remove()


_CRASH = """
import json, os, sys
from wearcosim.master import store
from wearcosim.master.loop import WearMaster
from wearcosim.master.scenario import from_dict
d, out, hold, at = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
store.Spool.HOLD_ROWS = hold
def hook(m, st):
    if st.cycle == at:
        os._exit(9)                                 # a crash: nothing flushed, no checkpoint written
m = WearMaster(from_dict(d, "test"), out, progress=False, hook=hook)
m.checkpoint_seconds = 0.0
m.run(resume=os.path.exists(os.path.join(out, d["name"] + ".ckpt")))
"""


@pytest.mark.parametrize("hold,at", [(7, 8), (10 ** 6, 13), (45, 11)])
def test_a_crash_between_checkpoints_leaves_a_resumable_run(pressed_fmu, tmp_path, hold, at):
    """Killed (os._exit) between two checkpoints with recorded series held in memory: every
    stream on disk holds at least what the checkpoint counts, and the resumed run's results
    equal an uninterrupted run's bit for bit (series, summaries, profiles)."""
    import json
    import subprocess
    import sys
    from wctest import ROOT
    from wearcosim.master.loop import WearMaster
    from wearcosim.master.scenario import from_dict
    d = {"name": "crash", "fmu": {"path": str(pressed_fmu)}, "start": {"kw": 1e2},
         "wear": {"k": 1e-4, "hardness": 1.2e9, "cycles": 20, "omega": 50.0, "extrapolation": 10.0,
                  "update_cycles": 5},
         "run": {"steps_per_cycle": 200, "tolerance": 1e-8, "record": ["Fn", "theta"], "decimate": 10}}
    ref = WearMaster(from_dict(d, "test"), tmp_path / "ref", progress=False).run()
    out = tmp_path / "run"
    env = dict(__import__("os").environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-c", _CRASH, json.dumps(d), str(out), str(hold), str(at)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 9, p.stderr
    arrays, meta = store.load_checkpoint(out / "crash.ckpt")
    assert meta["cycle"] == 5 * (at // 5)           # the last update's checkpoint, before the crash
    for n, size in meta["lengths"].items():
        f = out / ".crash.spool" / (n.replace("/", "%2F") + ".f64")
        assert f.stat().st_size >= 8 * size, n       # nothing the checkpoint counts was lost
    p = subprocess.run([sys.executable, "-c", _CRASH, json.dumps(d), str(out), str(hold), "-1"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    m_ref, s_ref, w_ref = store.read_results(ref)
    _, s, w = store.read_results(out / "crash.h5")
    for k in s_ref:
        assert np.array_equal(s[k], s_ref[k]), k
    for k in w_ref:
        assert np.array_equal(w[k], w_ref[k]), k
    for k, v in store.read_summary(ref).items():
        assert np.array_equal(store.read_summary(out / "crash.h5")[k], v), k


@pytest.mark.parametrize("n", [0, 1, 5, 16, 17, 40])
def test_series_chunks_written_as_stored_read_back_everywhere(tmp_path, monkeypatch, n):
    """The series datasets written chunk by chunk as HDF5 stores them (shuffle + deflate,
    edge chunk padded) read back the same values through HDF5's standard filters (h5py,
    xarray via h5netcdf), with ISA-L's deflate and with zlib's; the filters are the standard
    ones (gzip level 1, shuffle)."""
    import zlib
    import h5py
    monkeypatch.setattr(store, "SERIES_CHUNK", 16)
    x = np.random.default_rng(n).standard_normal(n) * 1e-5
    t = np.arange(n) * 1e-3
    for name, codec in (("isal", store._zlib), ("zlib", zlib)):
        monkeypatch.setattr(store, "_zlib", codec)
        sp = store.MemorySpool(["time", "x", "s"])
        sp.append("time", t)
        sp.append("x", x)
        sp.append("s", np.arange(3.0))
        path = store.write_results_streamed(tmp_path / f"{name}{n}.h5", {"a": 1}, sp, ["time", "x"],
                                            {"final": np.zeros(2)}, summary_names=["s"], units={"x": "m"})
        _, series, _ = store.read_results(path)
        assert np.array_equal(series["x"], x) and np.array_equal(series["time"], t)
        with h5py.File(path) as f:
            if n:
                ds = f["series/x"]
                assert (ds.compression, ds.compression_opts, ds.shuffle, ds.chunks) == ("gzip", 1, True, (min(n, 16),))
            assert f["series/x"].attrs["units"] == "m"
        xr = pytest.importorskip("xarray")
        with xr.open_dataset(path, engine="h5netcdf", group="series") as ds:
            assert np.array_equal(ds["x"].values, x)


def test_rows_filled_in_place_reach_the_files_in_order(tmp_path):
    """Spool.rows: the block the caller fills in place is held for the group, written when the
    next one does not fit and before a read; a stream appended to by rows and by append or
    append_scalars keeps its order; MemorySpool.rows gives the same streams."""
    names = ["t", "x", "a"]
    sp, mem = store.Spool(tmp_path / "sp", names), store.MemorySpool(names)
    sp.HOLD_ROWS = 5
    ref = {n: [] for n in names}
    rng = np.random.default_rng(3)
    for i in range(12):
        w = int(rng.integers(1, 8))                 # (wider than HOLD_ROWS too)
        block = rng.standard_normal((2, w))
        for s in (sp, mem):
            s.rows(("t", "x"), w)[...] = block
        ref["t"] += list(block[0])
        ref["x"] += list(block[1])
        if i % 3 == 0:
            for s in (sp, mem):
                s.append("t", [float(i)])
                s.append_scalars(("x", "a"), (-float(i), float(i)))
            ref["t"].append(float(i))
            ref["x"].append(-float(i))
            ref["a"].append(float(i))
    assert sp.lengths == mem.lengths == {n: len(v) for n, v in ref.items()}
    for n in names:
        assert np.array_equal(sp.read(n), ref[n]) and np.array_equal(mem.read(n), ref[n]), n
    lengths = sp.sync()
    sp.rows(("t", "x"), 3)[...] = 7.0
    sp.truncate(lengths)
    assert all(np.array_equal(sp.read(n), ref[n]) for n in names)
    sp.remove()
