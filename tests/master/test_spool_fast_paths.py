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
