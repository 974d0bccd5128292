"""The benchmark's SciPy peers solve the same equations as the library's FMUs: otherwise the
speed ratios of ``python -m wearcosim.bench`` would compare different problems.

Orbit error = max |x - x_fmu| / range(x_fmu) over (ex, ey) on 2000 points, FMU at rtol 1e-11
(RODAS4), peer with LSODA at rtol 1e-9.  Measured: hybrid 1.1e-6, slider-crank 5.4e-5 (its
impacts amplify event-time differences: the dry slider-crank is chaotic).  Bounds: 10x / 4x
the measured values."""
import numpy as np
import pytest

from wearcosim.bench_scipy import HybridDry, SliderCrankDry


@pytest.mark.parametrize("model, peer, stop, bound", [
    ("WearCosim.Examples.HybridMechanism.DrySpeed32pi", HybridDry, 0.125, 1e-5),
    ("WearCosim.Examples.SliderCrank.SliderCrankDry", SliderCrankDry, 0.024, 2e-4),
])
def test_scipy_peer_matches_the_fmu(build_example, model, peer, stop, bound):
    from fmpy import simulate_fmu
    fmu = build_example(model)
    ref = simulate_fmu(str(fmu), stop_time=stop, output_interval=stop / 2000, relative_tolerance=1e-11,
                       output=["ex", "ey"], start_values={"solver.method": 2})
    t, ex, ey, nfev = peer().simulate(stop, ref["time"], rtol=1e-9, method="LSODA")
    assert np.array_equal(t, ref["time"]) and nfev > 0
    err = max(np.max(np.abs(ex - ref["ex"])) / np.ptp(ref["ex"]), np.max(np.abs(ey - ref["ey"])) / np.ptp(ref["ey"]))
    assert err < bound, err
