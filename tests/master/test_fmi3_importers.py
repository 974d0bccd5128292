"""Issue 35, point 5: the project's own importers accept FMI 3.0 FMUs.

The hybrid mechanism of the README's demo (``cosim/demo_hybrid_dry_32pi.toml``) is built once
with ``--fmi 2,3``: two FMUs of one run of the passes, over one runtime core.  The oracle is the
FMI 2.0 FMU of the same build: the runner's outputs on the FMI 3.0 FMU must equal it bit for bit
(same core, same solver, same steps), the wear master's final profile to 1e-9 relative (it is
bit-identical too, measured), and ``check``/``simulate`` must accept the FMI 3.0 FMU.  In FMI 3.0
``wearDepth`` is one array variable of 36 elements; the importers address it as
``wearDepth[1]``..``wearDepth[36]``, as in FMI 2.0.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from wctest import PACKAGE, ROOT
from wearcosim.fmi.runner import FMIError, FMPy3Runner, FMPyRunner, FMUOpenError, open_fmu

MODEL = "WearCosim.Examples.HybridMechanism.DrySpeed32pi"
DEMO = ROOT / "cosim" / "demo_hybrid_dry_32pi.toml"
OMEGA = 100.53096491487338
H = 2 * np.pi / OMEGA / 1000
OUTS = ["Fn", "theta", "halfWidth", "vSlip", "ex", "ey", "delta"]
DEPTH = [f"wearDepth[{i}]" for i in range(1, 37)]


@pytest.fixture(scope="module")
def fmus(tmp_path_factory) -> dict[int, Path]:
    """{2: the FMI 2.0 FMU, 3: the FMI 3.0 FMU} of the demo's model, one build."""
    from wearcosim.export.build import build_fmu
    out = tmp_path_factory.mktemp("fmi23")
    r = build_fmu(MODEL, PACKAGE, out, fmi="2,3")
    return {2: r.fmus[2], 3: r.fmus[3]}


def _started(fmu: Path, cloop: bool = True):
    r = open_fmu(fmu)
    r.use_cloop = cloop
    r.set({"data.gPlane": 0.0})
    r.setup(0.0, None, 1e-7, H)
    r.initialize()
    return r


def _profile() -> np.ndarray:
    return 1e-6 * (1 + np.cos(np.linspace(0, 2 * np.pi, 36, endpoint=False)))


def _run(fmu: Path, cloop: bool = True) -> tuple[np.ndarray, np.ndarray]:
    r = _started(fmu, cloop)
    try:
        r.set_reals(r.vr(DEPTH), _profile())
        vrs = r.vr(OUTS + ["wearDepth[7]"])
        t, y = r.step_record(1500, vrs)
        return t.copy(), y.copy()
    finally:
        r.terminate()


def test_open_fmu_picks_the_runner_of_the_version(fmus):
    r2, r3 = _started(fmus[2]), _started(fmus[3])
    try:
        assert type(r2) is FMPyRunner and type(r3) is FMPy3Runner
    finally:
        r2.terminate()
        r3.terminate()
    with pytest.raises(FMUOpenError, match="FMI 3.0 FMU"):
        FMPyRunner(fmus[3])
    with pytest.raises(FMUOpenError, match="FMI 3.0 only"):
        FMPy3Runner(fmus[2])


@pytest.mark.parametrize("cloop", [True, False], ids=["c-loop", "python-loop"])
def test_outputs_equal_the_fmi2_fmu_bit_for_bit(fmus, cloop):
    """Same runtime core behind both faces: the same numbers, whichever loop steps it."""
    t2, y2 = _run(fmus[2], cloop)
    t3, y3 = _run(fmus[3], cloop)
    assert np.array_equal(t2, t3)
    assert np.array_equal(y2, y3)
    assert np.max(y2[:, 0]) > 0                    # the journal touches the bearing
    assert np.all(y3[:, -1] == _profile()[6])      # an input element read back through the table


def test_element_names_map_to_the_array(fmus):
    r = _started(fmus[3])
    try:
        assert r.arrays["wearDepth"] == DEPTH
        assert all(r.has(n) for n in DEPTH) and r.type_of("wearDepth[5]") == "Float64"
        with pytest.raises(KeyError, match="array of 36 elements"):
            r.vr(["wearDepth"])
        with pytest.raises(KeyError, match="no variable 'wearDepth\\[37\\]'"):
            r.vr(["wearDepth[37]"])
        p = _profile()
        r.set_reals(r.vr(DEPTH), p)
        assert np.array_equal(r.get_reals(r.vr(DEPTH)), p)
        # elements out of order, mixed with scalars: one call per distinct array, then a gather
        got = r.get_reals(r.vr(["wearDepth[36]", "Fn", "wearDepth[2]"]))
        assert got[0] == p[35] and got[2] == p[1]
        # part of an array: the other elements are kept
        r.set_reals(r.vr(["wearDepth[3]"]), [5e-6])
        q = p.copy()
        q[2] = 5e-6
        assert np.array_equal(r.get_reals(r.vr(DEPTH)), q)
        r.set({"wearDepth[4]": 6e-6})
        q[3] = 6e-6
        assert r.get(["wearDepth"])["wearDepth"] == list(q)
        r.set({"wearDepth": np.zeros(36)})
        assert r.get(["wearDepth[4]"]) == {"wearDepth[4]": 0.0}
        with pytest.raises(ValueError, match="36 elements"):
            r.set({"wearDepth": [0.0, 1.0]})
    finally:
        r.terminate()


def test_fmu_state_round_trip(fmus):
    """Get, serialise, step on, de-serialise, set: the steps after it repeat bit for bit."""
    r = _started(fmus[3])
    try:
        vrs = r.vr(OUTS)
        r.step_record(300, vrs)
        s = r.get_state()
        blob = r.serialize_state(s)
        r.free_state(s)
        k = r.k
        _, a = r.step_record(200, vrs)
        a = a.copy()
        s = r.deserialize_state(blob)
        r.set_state(s)
        r.free_state(s)
        r.k = k
        _, b = r.step_record(200, vrs)
        assert np.array_equal(a, b)
        assert r.last_successful_time() == pytest.approx(r.time, abs=1e-12)
    finally:
        r.terminate()


def test_errors_name_the_fmi3_function(fmus):
    r = _started(fmus[3])
    try:
        with pytest.raises(FMIError) as e:
            r.initialize()                       # already initialised: the state machine refuses
        assert e.value.function == "fmi3EnterInitializationMode" and e.value.status == 3
        assert "returned fmi3Error" in str(e.value) and e.value.log
        with pytest.raises(FMIError, match="fmi3DeserializeFMUState"):
            r.deserialize_state(b"not a state")
        r.step_record(10, r.vr(OUTS))            # still usable
    finally:
        r.terminate()
    r.terminate()                                # a second call does nothing


def test_reinit_keeps_the_grid(fmus):
    """The master's strategy for fixed parameters: reset, set, initialise at the current time."""
    r = _started(fmus[3])
    try:
        r.step(50)
        t = r.time
        x = r.get_reals(r.vr(r.state_names()))
        assert len(x) == len(r.state_names()) and "q[1]" in r.state_names()
        r.reinit({"data.gPlane": 0.0, **dict(zip(DEPTH, _profile())), **dict(zip(r.state_names(), x))}, 1e-7)
        assert r.time == t
        assert np.array_equal(r.get_reals(r.vr(DEPTH)), _profile())
        r.step(5)
    finally:
        r.terminate()


def _demo_copy(tmp: Path, fmu: Path, tag: str, cycles: int) -> Path:
    txt = DEMO.read_text()
    txt = txt.replace(f'model = "{MODEL}"', f'path = "{fmu}"')
    txt, n = re.subn(r"^cycles = \d+", f"cycles = {cycles}", txt, flags=re.M)
    assert n == 1
    txt = txt.replace('name = "demo_hybrid_dry_32pi"', f'name = "demo_fmi{tag}"')
    p = tmp / f"demo_fmi{tag}.toml"
    p.write_text(txt)
    return p


def test_demo_profile_fmi3_equals_fmi2(fmus, tmp_path):
    """The acceptance point: the demo scenario (shortened to 5 wear cycles) gives the same final
    profile with the FMI 3.0 FMU as with the FMI 2.0 FMU, to 1e-9 relative."""
    from wearcosim.master.loop import WearMaster
    from wearcosim.master.scenario import load
    from wearcosim.master.store import read_results
    wear = {}
    for v in (2, 3):
        m = WearMaster(load(_demo_copy(tmp_path, fmus[v], str(v), 5)), tmp_path / "runs", progress=False)
        wear[v] = read_results(m.run())[2]
    a, b = wear[2]["final"], wear[3]["final"]
    assert a.shape == (36,) and np.max(a) > 0
    assert np.max(np.abs(b - a)) <= 1e-9 * np.max(np.abs(a))
    assert np.array_equal(wear[2]["depth"], wear[3]["depth"])      # measured: bit for bit


def test_cli_check_and_simulate(fmus, tmp_path, capsys):
    from wearcosim import cli
    assert cli.main(["check", str(fmus[3])]) == 0
    assert cli.main(["check", "--wear-interface", str(fmus[3])]) == 0
    assert "OK" in capsys.readouterr().out
    csv = {}
    for v in (2, 3):
        csv[v] = tmp_path / f"s{v}.csv"
        assert cli.main(["simulate", str(fmus[v]), "--stop", "0.02", "--start-values", "data.gPlane", "1.5",
                         "--csv", str(csv[v])]) == 0
    names = {v: csv[v].read_text().splitlines()[0].split(",") for v in (2, 3)}
    data = {v: np.loadtxt(csv[v], delimiter=",", skiprows=1) for v in (2, 3)}
    for n in ("Fn", "ex", "ey", "theta"):
        assert np.array_equal(data[2][:, names[2].index(n)], data[3][:, names[3].index(n)]), n
    assert cli.main(["simulate", "--me", str(fmus[3]), "--stop", "0.01"]) == 0


def test_check_validation_filter_keeps_real_problems(tmp_path, fmus):
    """The Alias rule drops only FMPy's InitialUnknowns false positive: a damaged FMI 3.0
    description is still reported."""
    import zipfile
    from wearcosim.fmi.check import fmpy_validation_problems, validate
    assert fmpy_validation_problems(fmus[3]) == []
    bad = tmp_path / "bad.fmu"
    with zipfile.ZipFile(fmus[3]) as zin, zipfile.ZipFile(bad, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "modelDescription.xml":
                data = data.replace(b'name="Fn"', b'name="Fn Fn"', 1)
            zout.writestr(item, data)
    assert validate(bad, smoke=False)
