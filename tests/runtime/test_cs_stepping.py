"""Co-Simulation stepping of the generated FMUs: the runner's C loop against its ctypes loop,
and solver steps that reach past communication points (fmu/runtime/rt_cs.c,
cs_integrate) against the master's grid."""
from __future__ import annotations

import numpy as np
import pytest

from wearcosim.fmi import cloop
from wearcosim.fmi.runner import FMPyRunner, open_fmu

HYBRID = "WearCosim.Examples.HybridMechanism.DrySpeed32pi"
STOP = 0.125          # two cycles at 32 pi rad/s: 39 contact events


def _run(fmu, n, rtol, names=("ex", "ey"), cloop_on=True, method=None):
    r = open_fmu(fmu)
    r.use_cloop = cloop_on
    try:
        r.setup(0.0, STOP, rtol, STOP / n)
        if method is not None:
            r.set({"solver.method": method})
        r.initialize()
        return r.step_record(n, r.vr(list(names)))
    finally:
        r.terminate()


@pytest.fixture(scope="module")
def hybrid(build_example):
    return build_example(HYBRID)


def test_c_loop_is_bit_identical_to_the_ctypes_loop(hybrid):
    assert cloop.load() is not None, "gcc is on this machine: the C loop must build"
    r = open_fmu(hybrid)
    r.setup(0.0, STOP, 1e-6, STOP)
    r.initialize()
    r.terminate()
    assert isinstance(r, FMPyRunner)       # the backend whose step_record is batched
    t1, y1 = _run(hybrid, 500, 1e-8, cloop_on=True)
    t2, y2 = _run(hybrid, 500, 1e-8, cloop_on=False)
    assert t1.tobytes() == t2.tobytes() and y1.tobytes() == y2.tobytes()
    assert np.all(np.diff(t1) > 0) and t1[-1] == STOP


def test_c_loop_reports_the_failing_step(tmp_path):
    """A failure inside the C loop is an FMIError naming fmi2DoStep and the time, and the
    runner's step counter stands at the failed step (as with the ctypes loop)."""
    from wctest import ROOT
    from wearcosim.export.build import build_fmu
    from wearcosim.fmi.runner import FMIError
    fix = ROOT / "tests" / "master" / "fixtures" / "pressed"
    fmu = build_fmu("PressedJournal", fix, tmp_path, path=fix / "PressedJournal.mo").fmu
    for on in (True, False):
        r = open_fmu(fmu)
        r.use_cloop = on
        try:
            r.set({"tFail": 0.5})
            r.setup(0.0, None, 1e-8, 0.01)
            r.initialize()
            with pytest.raises(FMIError) as ei:
                r.step_record(100, r.vr(["Fn"]))
            assert ei.value.function == "fmi2DoStep" and ei.value.status == 2
            assert r.k == 50, (on, r.k)          # steps 0..49 done, step 50 (0.5 -> 0.51) failed
            assert any("0.5" in line for line in ei.value.log)
        finally:
            try:
                r.terminate()           # allowed in stepFailed; frees and removes the extraction
            except FMIError:
                pass


def test_values_between_solver_steps_are_as_accurate_as_at_step_ends(hybrid):
    """With steps reaching past communication points, the values on a fine grid come from the
    dense output.  On 2000 points (16 per solver step on average: steps are ~45 us, the grid
    62.5 us) the orbit agrees with a tight reference (RODAS4, rtol 1e-11) as well as on a grid
    of 25 points, where almost every value is a step end: both within 1e-4 of the orbit's range
    at rtol 1e-8 (the error of 39 located impacts; the benchmark's accuracy target)."""
    t_ref, y_ref = _run(hybrid, 2000, 1e-11, method=2)
    scale = np.ptp(y_ref, axis=0)
    for n in (25, 2000):
        t, y = _run(hybrid, n, 1e-8)
        idx = np.searchsorted(t_ref, t)
        assert np.allclose(t_ref[idx], t, rtol=0, atol=1e-15)
        err = np.max(np.abs(y - y_ref[idx]) / scale)
        assert err < 1e-4, (n, err)
