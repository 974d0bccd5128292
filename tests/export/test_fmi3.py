"""Issue 35: FMI 3.0 FMUs (``wearcosim build --fmi 3``, fmu/runtime/fmi3_face.c over the core that
the FMI 2.0 face uses).

The models, each built once with ``--fmi 2,3`` (one run of the passes, two FMUs): the bouncing
ball (state events with reinit), the library's dry revolute clearance joint (the wear interface:
the array input ``wearDepth[36]``, one FMI 3.0 variable) and the dry slider-crank.

The oracles: FMPy's validation; the FMI 2.0 FMU of the same build (FMPy, CS and ME: every signal
equal to 1e-9 of its range, the bouncing ball's impact times to 1e-6 s); the bouncing ball's
analytic first impact, t1 = sqrt(2 h0 / g), for the early return; the FMU's own earlier values
for the FMU state round trip.  Misuse of the FMI 3.0 state machine must give fmi3Error with a
message naming the function and leave the instance usable; a random call sequence runs in a
child process (a crash would show as its exit status).
"""
from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from wctest import PACKAGE
from wearcosim.export import build, package

BALL = "WearCosim.Examples.Basic.BouncingBall"
JOINT = "WearCosim.Components.Joints.RevoluteClearanceDry"
CRANK = "WearCosim.Examples.SliderCrank.SliderCrankDry"
#: (model, stop time, output interval or None for the model's own)
RUNS = {BALL: (3.0, None), JOINT: (0.5, None), CRANK: (0.048, 4.8e-5)}
T1 = math.sqrt(2 * 1.0 / 9.81)            # the bouncing ball's first impact (h0 = 1, g = 9.81)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{model: BuildResult} of the three models, each built once for FMI 2.0 and 3.0."""
    out = tmp_path_factory.mktemp("fmi3")
    return {m: build.build_fmu(m, PACKAGE, out, fmi="2,3") for m in RUNS}


def fmu3(built, model) -> Path:
    return built[model].fmus[3]


# ----------------------------------------------------------------------------- the archive
@pytest.mark.parametrize("model", list(RUNS))
def test_layout(built, model):
    """FMI 3.0 FMU at <out>/fmi3/<id>.fmu beside the FMI 2.0 one; its binary in the FMI 3.0
    platform folder; sources with the FMI 3.0 face only, listed in buildDescription.xml."""
    r = built[model]
    ident = build.short_name(model)
    assert r.fmu == r.fmus[2] and r.fmus[2].name == f"{ident}.fmu"
    assert r.fmus[3] == r.fmus[2].parent / "fmi3" / f"{ident}.fmu"
    with zipfile.ZipFile(r.fmus[3]) as z:
        names = set(z.namelist())
        bd = z.read("sources/buildDescription.xml").decode()
        md = z.read("modelDescription.xml").decode()
    assert f"binaries/{package.platform_folder(3)}/{ident}{package.shared_ext()}" in names
    assert not any(n.startswith("binaries/linux64/") for n in names)
    assert {"sources/fmi3_face.c", "sources/fmi3_table.h", "sources/fmi3Functions.h"} <= names
    assert "sources/fmi2_face.c" not in names and "sources/fmi2Functions.h" not in names
    assert "fmi3_face.c" in bd and "fmi2_face.c" not in bd
    assert 'fmiVersion="3.0"' in md
    with zipfile.ZipFile(r.fmus[2]) as z:
        names2 = set(z.namelist())
    assert "sources/fmi2_face.c" in names2 and "sources/fmi3_face.c" not in names2


def _exported(so: bytes, tmp_path: Path) -> set:
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm not installed")
    f = tmp_path / "lib.so"
    f.write_bytes(so)
    out = subprocess.run([nm, "-D", "--defined-only", str(f)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if " T " in line}


def test_one_version_per_binary(built, tmp_path):
    """The FMI 3.0 binary exports fmi3* functions only, the FMI 2.0 binary fmi2* only."""
    if package.platform_dir() != "linux64":
        pytest.skip("ELF only")
    ident = build.short_name(BALL)
    with zipfile.ZipFile(built[BALL].fmus[3]) as z:
        e3 = _exported(z.read(f"binaries/x86_64-linux/{ident}.so"), tmp_path)
    with zipfile.ZipFile(built[BALL].fmus[2]) as z:
        e2 = _exported(z.read(f"binaries/linux64/{ident}.so"), tmp_path)
    assert e3 and all(s.startswith("fmi3") for s in e3), sorted(e3)
    assert e2 and all(s.startswith("fmi2") for s in e2), sorted(e2)
    assert {"fmi3DoStep", "fmi3UpdateDiscreteStates", "fmi3GetFloat64", "fmi3EnterStepMode"} <= e3


# ----------------------------------------------------------------------------- validation
def fmpy_problems(fmu: Path) -> list[str]:
    """FMPy's validate_fmu without its false positive on FMI 3.0 aliases (the one rule of
    wearcosim.fmi.check, which ``wearcosim check`` applies too)."""
    from wearcosim.fmi.check import fmpy_validation_problems
    return fmpy_validation_problems(fmu)


@pytest.mark.parametrize("model", list(RUNS))
def test_fmpy_validation(built, model):
    assert fmpy_problems(fmu3(built, model)) == []


# ----------------------------------------------------------------------------- results
def _simulate(fmu: Path, kind: str, model: str):
    from fmpy import simulate_fmu
    stop, interval = RUNS[model]
    return simulate_fmu(str(fmu), fmi_type=kind, stop_time=stop, output_interval=interval)


def _compare(r2, r3) -> float:
    """The largest difference of a signal of r2 from r3 relative to its range (the FMI 3.0
    array ``a`` holds FMI 2.0's ``a[1]``..``a[n]`` in its columns)."""
    worst = 0.0
    assert np.array_equal(r2["time"], r3["time"])
    for n in r2.dtype.names:
        if n in r3.dtype.names:
            b = r3[n].astype(float)
        else:
            m = re.fullmatch(r"(.*)\[(\d+)\]", n)
            assert m and m.group(1) in r3.dtype.names, n
            b = r3[m.group(1)][:, int(m.group(2)) - 1].astype(float)
        a = r2[n].astype(float)
        rng = float(np.ptp(a)) or max(float(np.max(np.abs(a))), 1.0)
        worst = max(worst, float(np.max(np.abs(a - b))) / rng)
    return worst


@pytest.mark.parametrize("kind", ["CoSimulation", "ModelExchange"])
@pytest.mark.parametrize("model", list(RUNS))
def test_results_equal_fmi2(built, model, kind):
    """FMPy on the FMI 3.0 FMU gives the FMI 2.0 FMU's results: every signal to 1e-9 of its
    range (measured: 0, the same core computes both)."""
    r2 = _simulate(built[model].fmus[2], kind, model)
    r3 = _simulate(built[model].fmus[3], kind, model)
    assert len(r2) > 10
    assert _compare(r2, r3) <= 1e-9


def test_ball_impact_times(built):
    """The bouncing ball's impact times (ME, the samples where nImpacts grows) agree to 1e-6 s."""
    def impacts(r):
        k = np.nonzero(np.diff(r["nImpacts"]) > 0)[0]
        return r["time"][k + 1]
    t2 = impacts(_simulate(built[BALL].fmus[2], "ModelExchange", BALL))
    t3 = impacts(_simulate(built[BALL].fmus[3], "ModelExchange", BALL))
    assert len(t2) >= 5 and len(t2) == len(t3)
    assert np.max(np.abs(t2 - t3)) <= 1e-6
    assert abs(t3[0] - T1) <= 1e-6


# ----------------------------------------------------------------------------- low-level
class Instance:
    """An FMPy FMU3Slave/FMU3Model of an extracted FMU, with the messages its logger got."""

    def __init__(self, fmu: Path, where: Path, kind: str = "cs", **kw) -> None:
        from fmpy import extract, read_model_description
        from fmpy import fmi3
        self.md = read_model_description(str(fmu))
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.messages: list = []

        def log(env, status, category, message):
            self.messages.append((status, message.decode()))
        self.dir = extract(str(fmu), unzipdir=str(where))
        cls = fmi3.FMU3Slave if kind == "cs" else fmi3.FMU3Model
        self.fmu = cls(guid=self.md.guid, unzipDirectory=self.dir,
                       modelIdentifier=self.md.coSimulation.modelIdentifier, instanceName="i")
        self.fmu.instantiate(logMessage=log, **kw)

    def fails(self, call, *args) -> str:
        """Call ``call(*args)``: it must fail with fmi3Error; returns the message it logged."""
        from fmpy.fmi1 import FMICallException
        n = len(self.messages)
        with pytest.raises(FMICallException) as ei:
            call(*args)
        assert ei.value.status == 3
        assert len(self.messages) > n, "no message"
        return self.messages[-1][1]

    def close(self) -> None:
        self.fmu.freeInstance()


def test_array_variable(built, tmp_path):
    """wearDepth[36] is one Float64 array variable: set and read back element-wise with one
    value reference; a wrong nValues is fmi3Error and changes nothing; the values reach the
    model (the same as the FMI 2.0 FMU given them element by element)."""
    fmu = fmu3(built, JOINT)
    i = Instance(fmu, tmp_path / "x")
    var = next(v for v in i.md.modelVariables if v.name == "wearDepth")
    assert [d.start for d in var.dimensions] == [36]
    vr = var.valueReference
    f = i.fmu
    values = [1e-6 * (k + 1) for k in range(36)]
    f.setFloat64([vr], values)
    assert f.getFloat64([vr], nValues=36) == values
    msg = i.fails(f.setFloat64, [vr], values[:35])
    assert "fmi3SetFloat64" in msg and "36 elements" in msg
    assert f.getFloat64([vr], nValues=36) == values
    msg = i.fails(f.getInt32, [vr], 36)
    assert "not Int32" in msg
    msg = i.fails(f.setFloat64, [0], [1.0])
    assert "time" in msg
    f.enterInitializationMode(startTime=0.0, stopTime=0.1)
    f.exitInitializationMode()
    f.doStep(0.0, 0.01)
    got3 = f.getFloat64([i.vr["tauJ"], vr], nValues=37)
    assert got3[1:] == values
    i.close()
    # the FMI 2.0 FMU with the same values element by element
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    md2 = read_model_description(str(built[JOINT].fmus[2]))
    vr2 = {v.name: v.valueReference for v in md2.modelVariables}
    s2 = FMU2Slave(guid=md2.guid, unzipDirectory=extract(str(built[JOINT].fmus[2]), unzipdir=str(tmp_path / "y")),
                   modelIdentifier=md2.coSimulation.modelIdentifier, instanceName="j")
    s2.instantiate()
    s2.setReal([vr2[f"wearDepth[{k + 1}]"] for k in range(36)], values)
    s2.setupExperiment(startTime=0.0, stopTime=0.1)
    s2.enterInitializationMode()
    s2.exitInitializationMode()
    s2.doStep(0.0, 0.01)
    assert s2.getReal([vr2["tauJ"]])[0] == got3[0]
    s2.terminate()
    s2.freeInstance()


@pytest.mark.parametrize("event_mode", [False, True])
def test_early_return_at_impact(built, tmp_path, event_mode):
    """A step of 1 s over the ball's first impact returns early at the impact, within 1e-9 s of
    t1 = sqrt(2 h0/g).  Without event mode the FMU has handled it (nImpacts = 1); with event mode
    it asks for event handling (nImpacts still 0 until fmi3UpdateDiscreteStates).  Going on to
    t = 1 gives the state of a run without early return to the solver's tolerance."""
    i = Instance(fmu3(built, BALL), tmp_path / "x", earlyReturnAllowed=True, eventModeUsed=event_mode)
    f = i.fmu
    f.enterInitializationMode(startTime=0.0, stopTime=3.0)
    f.exitInitializationMode()
    if event_mode:                       # event mode follows initialization
        while f.updateDiscreteStates()[0]:
            pass
        f.enterStepMode()
    need, term, early, t = f.doStep(0.0, 1.0)
    assert early and not term and need == event_mode
    assert abs(t - T1) <= 1e-9, t - T1
    assert f.getFloat64([i.vr["time"]])[0] == t
    n = f.getInt32([i.vr["nImpacts"]])[0]
    if event_mode:
        assert n == 0
        f.enterEventMode()
        passes = 0
        while f.updateDiscreteStates()[0]:
            passes += 1
        f.enterStepMode()
        assert f.getInt32([i.vr["nImpacts"]])[0] == 1 and passes < 5
    else:
        assert n == 1
    assert f.getFloat64([i.vr["v"]])[0] > 0            # bouncing up
    while t < 1.0 - 1e-12:
        need, term, early, t2 = f.doStep(t, 1.0 - t)
        t = t2 if early else 1.0
        if need:
            f.enterEventMode()
            while f.updateDiscreteStates()[0]:
                pass
            f.enterStepMode()
    h = f.getFloat64([i.vr["h"]])[0]
    i.close()
    ref = Instance(fmu3(built, BALL), tmp_path / "y")
    ref.fmu.enterInitializationMode(startTime=0.0, stopTime=3.0)
    ref.fmu.exitInitializationMode()
    ref.fmu.doStep(0.0, 1.0)
    assert abs(ref.fmu.getFloat64([ref.vr["h"]])[0] - h) < 1e-6
    ref.close()


def test_no_early_return_when_not_allowed(built, tmp_path):
    i = Instance(fmu3(built, BALL), tmp_path / "x")
    i.fmu.enterInitializationMode(startTime=0.0, stopTime=3.0)
    i.fmu.exitInitializationMode()
    assert i.fmu.doStep(0.0, 1.0) == (False, False, False, 1.0)
    assert i.fmu.getInt32([i.vr["nImpacts"]])[0] == 1     # t2 = 2.6 t1 > 1
    i.close()


def test_fmu_state_round_trip(built, tmp_path):
    """Get, serialise, deserialise and set the FMU state: the steps after it repeat exactly."""
    i = Instance(fmu3(built, BALL), tmp_path / "x")
    f = i.fmu
    f.enterInitializationMode(startTime=0.0, stopTime=3.0)
    f.exitInitializationMode()
    f.doStep(0.0, 0.3)
    s = f.getFMUState()
    blob = f.serializeFMUState(s)
    f.freeFMUState(s)
    f.doStep(0.3, 0.5)
    first = f.getFloat64([i.vr["h"], i.vr["v"]])
    s2 = f.deserializeFMUState(blob)
    f.setFMUState(s2)
    f.freeFMUState(s2)
    assert f.getFloat64([i.vr["time"]])[0] == 0.3
    f.doStep(0.3, 0.5)
    assert f.getFloat64([i.vr["h"], i.vr["v"]]) == first
    i.close()


def test_model_exchange_counts(built, tmp_path):
    i = Instance(fmu3(built, JOINT), tmp_path / "x", kind="me")
    from fmpy.fmi3 import fmi3Float64
    from ctypes import c_size_t, byref
    n = c_size_t()
    i.fmu.fmi3GetNumberOfContinuousStates(i.fmu.component, byref(n))
    assert n.value == i.md.numberOfContinuousStates
    i.fmu.fmi3GetNumberOfEventIndicators(i.fmu.component, byref(n))
    assert n.value == i.md.numberOfEventIndicators > 0
    i.fmu.enterInitializationMode(startTime=0.0)
    i.fmu.exitInitializationMode()
    z = (fmi3Float64 * n.value)()
    i.fmu.getEventIndicators(z, n.value)
    ev = next(v for v in i.md.modelVariables if v.name == "_eventIndicator")
    assert i.fmu.getFloat64([ev.valueReference], nValues=n.value) == list(z)
    i.close()


# ----------------------------------------------------------------------------- misuse
def test_state_machine_misuse(built, tmp_path):
    """Calls out of the FMI 3.0 state machine, and FMI 3.0 features the FMU does not have, give
    fmi3Error with a message naming the function (FMI 3.0 state names); the instance goes on."""
    i = Instance(fmu3(built, BALL), tmp_path / "x")
    f = i.fmu
    c = f.component
    assert i.fails(f.doStep, 0.0, 0.1).startswith("fmi3DoStep: not allowed in state instantiated")
    assert "fmi3ExitInitializationMode: not allowed" in i.fails(f.exitInitializationMode)
    assert i.fails(f.fmi3SetTime, c, 1.0).startswith("fmi3SetTime: not allowed in state instantiated")
    f.enterInitializationMode(startTime=0.0, stopTime=1.0)
    f.exitInitializationMode()
    assert "eventModeUsed = false" in i.fails(f.enterEventMode)
    assert "fmi3EnterStepMode: not allowed in state stepMode" in i.fails(f.enterStepMode)
    assert "no structural parameters" in i.fails(f.fmi3EnterConfigurationMode, c)
    assert "no clocks" in i.fails(f.fmi3GetClock, c, None, 0, None)
    assert "not provided" in i.fails(f.fmi3GetNumberOfVariableDependencies, c, 1, None)
    msg = i.fails(f.setFloat64, [i.vr["g"]], [1.0])
    assert "fixed parameters can only be set before fmi3ExitInitializationMode" in msg
    assert "beyond the stop time" in i.fails(f.doStep, 0.0, 2.0)
    f.doStep(0.0, 0.5)                           # still usable
    f.terminate()
    assert "not allowed in state terminated" in i.fails(f.doStep, 0.5, 0.1)
    f.reset()
    f.enterInitializationMode(startTime=0.0)
    f.exitInitializationMode()
    f.doStep(0.0, 0.5)
    i.close()


def test_scheduled_execution_refused(built, tmp_path):
    from fmpy import extract
    from fmpy.fmi3 import FMU3ScheduledExecution
    md_guid = Instance(fmu3(built, BALL), tmp_path / "a")
    md_guid.close()
    se = FMU3ScheduledExecution(guid=md_guid.md.guid, unzipDirectory=extract(str(fmu3(built, BALL)),
                                unzipdir=str(tmp_path / "b")), modelIdentifier="BouncingBall", instanceName="s")
    with pytest.raises(Exception):
        se.instantiate()


_FUZZ = r'''
import random, sys
from fmpy import extract, read_model_description
from fmpy import fmi3
from fmpy.fmi1 import FMICallException
fmu, where, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
md = read_model_description(fmu)
d = extract(fmu, unzipdir=where)
rng = random.Random(seed)
zbuf = (fmi3.fmi3Float64 * 2)()
xbuf = (fmi3.fmi3Float64 * 2)()
n_err = n_silent = 0
def log(env, status, category, message):
    global n_msg
    n_msg += 1
for round_ in range(20):
    kind = rng.choice(["cs", "me"])
    cls = fmi3.FMU3Slave if kind == "cs" else fmi3.FMU3Model
    f = cls(guid=md.guid, unzipDirectory=d, modelIdentifier="BouncingBall", instanceName="f")
    kw = dict(eventModeUsed=rng.random() < 0.5, earlyReturnAllowed=rng.random() < 0.5) if kind == "cs" else {}
    n_msg = 0
    f.instantiate(logMessage=log, **kw)
    t = 0.0
    calls = [
        lambda: f.enterInitializationMode(startTime=0.0, stopTime=rng.choice([None, 2.0])),
        lambda: f.exitInitializationMode(),
        lambda: f.enterEventMode(),
        lambda: f.enterStepMode() if kind == "cs" else f.enterContinuousTimeMode(),
        lambda: f.updateDiscreteStates(),
        lambda: f.doStep(t, rng.choice([0.0, 0.05, 0.5, -1.0])) if kind == "cs" else f.setTime(t + 0.01),
        lambda: f.getFloat64([rng.randrange(0, 20)]),
        lambda: f.setFloat64([rng.randrange(0, 20)], [rng.choice([0.5, float("nan"), 1e300])]),
        lambda: f.getInt32([rng.randrange(0, 20)]),
        lambda: f.terminate(),
        lambda: f.reset(),
        lambda: f.getEventIndicators(zbuf, rng.choice([1, 2])) if kind == "me" else f.getOutputDerivatives([1], [1]),
        lambda: f.getContinuousStates(xbuf, rng.choice([1, 2])) if kind == "me" else f.getFMUState(),
        lambda: f.completedIntegratorStep() if kind == "me" else f.enterEventMode(),
    ]
    for k in range(60):
        before = n_msg
        try:
            r = rng.choice(calls)()
            if kind == "cs" and isinstance(r, tuple) and len(r) == 4 and r[2]:
                t = r[3]
        except FMICallException as e:
            if e.status == 3:
                n_err += 1
                if n_msg == before:
                    n_silent += 1
    f.freeInstance()
print("RESULT errors=%d silent=%d" % (n_err, n_silent))
'''


def test_call_sequence_fuzz(built, tmp_path):
    """Random FMI 3.0 call sequences (ME and CS, with and without event mode and early return):
    no crash, and every fmi3Error comes with a log message."""
    script = tmp_path / "fuzz.py"
    script.write_text(_FUZZ)
    p = subprocess.run([sys.executable, str(script), str(fmu3(built, BALL)), str(tmp_path / "u"), "35"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    m = re.search(r"RESULT errors=(\d+) silent=(\d+)", p.stdout)
    assert m, p.stdout[-2000:]
    assert int(m.group(1)) > 50 and int(m.group(2)) == 0
