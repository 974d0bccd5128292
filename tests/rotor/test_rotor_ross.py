"""Finite-element rotor (WearCosim.Rotor.FiniteElementRotor, two-disk example) against ROSS 2.3.0
without contact: whirl frequencies at three speeds and the first four critical speeds (2 %), and the
unbalance response amplitude at three speeds (5 %).

The Modelica model is the thing tested: its eigenvalues come from finite differences of the
Model-Exchange FMU's derivatives, its unbalance response from Co-Simulation runs to steady state.
The element matrices are the same as ROSS's (Timoshenko, Cowper shear, consistent mass, rotary
inertia, gyroscopic), so the agreement is to round-off (measured 1e-11 on frequencies, 1e-5 on
amplitudes, the latter limited by the decay of the start transient); the tolerances are the issue's.
"""
import numpy as np
import pytest

from wearcosim.studies import rotor as R

MODEL = "WearCosim.Examples.Rotor.TwoDiskRub"
NO_CONTACT = {"c": 0.01}          # 10 mm clearance: the orbit never reaches the stator


@pytest.fixture(scope="module")
def fmu(build_example):
    return build_example(MODEL)


@pytest.fixture(scope="module")
def ross():
    return R.ross_rotor()


@pytest.mark.parametrize("speed", [0.0, 300.0, 600.0])
def test_whirl_frequencies_match_ross(fmu, ross, speed):
    ours = R.whirl_eigs(R.fmu_linearise(fmu, {**NO_CONTACT, "rotor.Omega0": speed}))[:4]
    ref = R.ross_lateral_eigs(ross, speed)[:4]
    # backward/forward pairs of the first two bending modes, split by the gyroscopic effect
    assert ref.imag[0] < ref.imag[1] < ref.imag[2] < ref.imag[3]
    np.testing.assert_allclose(ours.imag, ref.imag, rtol=0.02)
    np.testing.assert_allclose(ours.real, ref.real, rtol=0.02)   # damping (Rayleigh + bearings) too


def test_critical_speeds_match_ross(fmu, ross):
    res = ross.run_critical_speed(num_modes=12, rtol=1e-8)
    ref = np.asarray(res.wd())[:4]     # CriticalSpeedResults.wd(frequency_units="rad/s")
    ours = R.critical_speeds(
        lambda W: R.whirl_eigs(R.fmu_linearise(fmu, {**NO_CONTACT, "rotor.Omega0": W})).imag, 4)
    assert 250 < ref[0] < 270 and ref[3] > 900            # the rotor we meant to build
    np.testing.assert_allclose(ours, ref, rtol=0.02)


def test_unbalance_response_matches_ross(fmu, ross):
    speeds = [150.0, 262.0, 400.0]         # below, at and above the first critical speed
    X, Y = R.ross_unbalance(ross, speeds, node=2, magnitude=1e-4)
    for W, xr, yr in zip(speeds, X, Y):
        res = R.simulate(fmu, 2.0, {**NO_CONTACT, "rotor.Omega0": W, "solver.method": 1},
                         output_interval=2.5e-4, rtol=1e-8, outputs=["x", "y"])
        ax = R.harmonic_amplitude(res["time"], res["x"], W, 1.5)
        ay = R.harmonic_amplitude(res["time"], res["y"], W, 1.5)
        assert abs(ax) == pytest.approx(abs(xr), rel=0.05), W
        assert abs(ay) == pytest.approx(abs(yr), rel=0.05), W
        # anisotropic supports (kyy > kxx): the orbit is elliptic, not circular
        assert abs(abs(xr) / abs(yr) - 1) > 0.01
