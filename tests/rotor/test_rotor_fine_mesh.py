"""The finite-element rotor with four times the example's element count (TwoDiskRub24: 24
Timoshenko elements, 100 degrees of freedom, 205 states) against ROSS 2.3.0 on the same mesh:
the first four critical speeds to 1e-6 (relative).

Both sides solve the same discrete model (same element matrices), so they agree to the
precision of the eigen-solutions: ours from central differences of the Model-Exchange
derivatives (exact for a linear model up to rounding), ROSS's from ARPACK inside a Newton
iteration on the speed (rtol 1e-8: 6e-11 from rtol 1e-10, at a sixth of the cost).  The model file is one of the benchmark's workloads
(python/wearcosim/bench/models), written as a user would: a wrapper that only changes the mesh.
"""
from pathlib import Path

import numpy as np
import pytest

from wearcosim.export.build import build_fmu
from wearcosim.studies import rotor as R

MODELS = Path(R.__file__).resolve().parents[1] / "bench" / "models"
NO_CONTACT = {"c": 0.01}


@pytest.fixture(scope="module")
def fmu24(tmp_path_factory):
    src = MODELS / "TwoDiskRub24.mo"
    return build_fmu("TwoDiskRub24", src.parent, tmp_path_factory.mktemp("fine"), path=src).fmu


def test_four_times_the_elements_matches_ross_critical_speeds(fmu24):
    p = dict(R.TWO_DISK, n_el=24, le=0.025, disk_nodes=(8, 16), bearing_nodes=(0, 24))
    ross = R.ross_rotor(p)
    # 8 modes hold the first four whirl pairs: their speeds equal 16 modes' to 4e-10, at a third
    # of the cost (9 s against 28 s CPU)
    ref = np.asarray(ross.run_critical_speed(num_modes=8, rtol=1e-8).wd())[:4]
    # the state matrix is affine in the spin speed (only the gyroscopic term Omega*M^-1*G*v
    # carries it): two linearisations of the FMU give A(Omega) = A0 + Omega*(A1 - A0) exactly
    lin0 = R.fmu_linearise(fmu24, {**NO_CONTACT, "rotor.Omega0": 0.0})
    lin1 = R.fmu_linearise(fmu24, {**NO_CONTACT, "rotor.Omega0": 1000.0})
    G = (lin1.A - lin0.A) / 1000.0
    lin500 = R.fmu_linearise(fmu24, {**NO_CONTACT, "rotor.Omega0": 500.0})
    np.testing.assert_allclose(lin500.A, lin0.A + 500.0 * G, rtol=0, atol=1e-6 * np.abs(lin0.A).max())

    def whirl_at(W):
        return R.whirl_eigs(R.Linearisation(lin0.A + W * G, lin0.states)).imag
    ours = R.critical_speeds(whirl_at, 4, tol=1e-12)
    assert 250 < ref[0] < 270 and ref[3] > 900            # the same rotor as the 6-element example
    np.testing.assert_allclose(ours, ref, rtol=1e-6)
    # the finer mesh moves the critical speeds, the first one least (a converging mesh)
    coarse = np.asarray(R.ross_rotor().run_critical_speed(num_modes=12, rtol=1e-8).wd())[:4]
    assert abs(ref[0] / coarse[0] - 1) < 1e-3 and np.all(np.abs(ref / coarse - 1) < 0.05)
