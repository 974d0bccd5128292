"""Contact laws of WearCosim.Contact and Joints.RevoluteClearance against closed forms
(SPEC section 1), evaluated by rumoca through the wrappers of WearCosimChecks.

Tolerances: the laws are explicit algebraic expressions, so the Modelica values and the
closed forms written independently here in numpy must agree to round-off (rtol 1e-9, i.e.
far below any modelling difference such as a wrong factor or sign, which would be O(1)).
"""
import math

import numpy as np
import pytest

from rumoca_sim import simulate

PI = math.pi


@pytest.fixture(scope="module")
def laws():
    return simulate("LawChecks", 1.0, 1e-4)


def test_flores_stiffness_slider_crank_joint(laws):
    """K = 4/(3 pi (s_i + s_j)) sqrt(R_i R_j / (R_i - R_j)), R = 10.5/10 mm, steel (SPEC 1.1)."""
    _, d = laws
    sigma = (1 - 0.3**2) / (PI * 207e9)
    k_ref = 4 / (3 * PI * 2 * sigma) * math.sqrt(0.0105 * 0.01 / 0.0005)
    assert d["K_sc"][0] == pytest.approx(k_ref, rel=1e-12)
    # the figure quoted in the issue, 6.95e10 N/m^1.5, to its 3 significant digits
    assert d["K_sc"][0] == pytest.approx(6.95e10, rel=1e-3)


def test_ambrosio_friction_three_regimes(laws):
    """F_t = -mu c_d F_n sign(v_t); c_d = 0 / linear / 1 below v0 / between / above v1 (SPEC 1.2)."""
    _, d = laws
    vt, ft = d["vt"], d["FtAmb"]
    mu, fn, v0, v1 = 0.1, 100.0, 1e-4, 1e-2
    cd = np.clip((np.abs(vt) - v0) / (v1 - v0), 0, 1)
    ref = -mu * cd * fn * np.sign(vt)
    np.testing.assert_allclose(ft, ref, rtol=1e-9, atol=1e-9 * mu * fn)
    slow, mid, fast = np.abs(vt) < v0, (np.abs(vt) > 2 * v0) & (np.abs(vt) < 0.9 * v1), np.abs(vt) > v1
    assert slow.sum() > 0 and mid.sum() > 10 and fast.sum() > 10      # all three regimes sampled
    assert np.all(ft[slow] == 0)                                       # stiction band: no force
    assert np.all(np.abs(ft[mid]) < mu * fn) and np.all(np.abs(ft[mid]) > 0)
    np.testing.assert_allclose(np.abs(ft[fast]), mu * fn, rtol=1e-12)  # full Coulomb
    assert np.all(ft[vt > v0] < 0) and np.all(ft[vt < -v0] > 0)        # opposes the slip
    # continuous: no jump larger than the ramp slope allows between samples
    assert np.max(np.abs(np.diff(ft))) <= mu * fn / (v1 - v0) * np.max(np.abs(np.diff(vt))) * (1 + 1e-6)


def test_sommerfeld_load_at_90_degrees():
    """Journal at constant eps spinning at w: W = 12 pi mu w R^3 L eps/[c^2 (2+eps^2) sqrt(1-eps^2)],
    perpendicular to the line of centres (attitude 90 deg, ahead in the sense of rotation),
    no radial component (SPEC 1.3). Evaluated through the full lubricated joint model."""
    _, d = simulate("SommerfeldSpin", 0.01, 1e-3)
    eps, c, w, mu, R, L = 0.6, 0.2e-3, 100.0, 0.4, 0.01, 0.04
    w_ref = 12 * PI * mu * w * R**3 * L * eps / (c**2 * (2 + eps**2) * math.sqrt(1 - eps**2))
    assert d["W"][0] == pytest.approx(w_ref, rel=1e-12)
    assert d["Ftg"][-1] == pytest.approx(w_ref, rel=1e-9)     # along +t: 90 deg ahead for w > 0
    assert abs(d["Fr"][-1]) < 1e-9 * w_ref                     # no radial component
    assert d["joint.Fn"][-1] == 0 and d["joint.delta"][-1] < 0  # pure film, no solid contact


def test_sommerfeld_half_frequency_whirl():
    """Line of centres whirling at w/2: the wedge term (w - 2 gammaDot) vanishes (classical
    half-frequency whirl) - checks the whirl-rate sign and frame."""
    _, d = simulate("SommerfeldHalfWhirl", 0.01, 1e-3)
    assert np.max(np.abs(d["Ftg"])) < 1e-9 * d["W"][0]
    assert np.max(np.abs(d["Fr"])) < 1e-9 * d["W"][0]


def test_hybrid_force_continuous(laws):
    """Flores hybrid model (SPEC 1.4): continuous at e = c and e = c + e0; pure film below c,
    pure dry contact above c + e0."""
    _, d = laws
    for lo, hi in (("FhybCm", "FhybCp"), ("FhybEm", "FhybEp")):
        # a relative step of 1e-12 in e changes a continuous force by ~1e-12 of its scale
        assert abs(d[lo][0] - d[hi][0]) < 1e-8 * abs(d[lo][0])
    e, c, e0 = d["eSweep"], 0.25e-3, 0.05 * 0.25e-3
    f, fsq, fdry = d["Fhyb"], d["Fsq"], d["Fdry"]
    below, above = e < c, e > c + e0
    np.testing.assert_allclose(f[below], fsq[below], rtol=1e-12)
    np.testing.assert_allclose(f[above], -fdry[above], rtol=1e-12)
    band = ~below & ~above
    w = (e[band] - c) / e0
    np.testing.assert_allclose(f[band], (1 - w) * fsq[band] - w * fdry[band], rtol=1e-9)
    # no jump anywhere on the sweep: successive differences stay of the order of the largest
    # smooth variation (the film force alone varies by ~2 % per sample at the cap)
    df = np.abs(np.diff(f))
    assert np.max(df) < 0.05 * np.max(np.abs(f))


def test_wear_profile_interpolation(laws):
    """Wear profile h(theta): equals the sector values at the sector centres, linear between
    them, continuous, 2 pi periodic (SPEC 1 / section 4 sector convention)."""
    _, d = laws
    th, h_int, h_shift = d["thetaSweep"], d["hInt"], d["hInt2pi"]
    n = 12
    i = np.arange(1, n + 1)      # the profile of WearCosimChecks.LawChecks.h
    h = 1e-6 * (1 + 0.5 * np.cos(2 * PI * (i - 0.5) / n - 1)) + np.where(i == 3, 3e-6, 0.0)
    centres = (np.arange(n) + 0.5) * 2 * PI / n
    ref = np.interp(np.mod(th, 2 * PI), np.concatenate(([centres[-1] - 2 * PI], centres, [centres[0] + 2 * PI])),
                    np.concatenate(([h[-1]], h, [h[0]])))
    np.testing.assert_allclose(h_int, ref, rtol=0, atol=1e-12 * h.max())
    np.testing.assert_allclose(h_shift, h_int, rtol=0, atol=1e-12 * h.max())    # periodic
    slope = np.max(np.abs(np.diff(np.append(h, h[0])))) / (2 * PI / n)
    assert np.max(np.abs(np.diff(h_int))) <= slope * np.max(np.diff(th)) * (1 + 1e-6)   # continuous
    np.testing.assert_allclose(d["hOne"], 2e-6, rtol=1e-12)                   # one sector: constant


def test_hertz_half_width(laws):
    """b = sqrt(4 F R_eq/(pi L E_eq)), R_eq = R_j R_b/(R_b - R_j) (SPEC 1.5) at F = 1 kN."""
    _, d = laws
    e_eq = 1 / (2 * (1 - 0.3**2) / 207e9)
    r_eq = 0.01 * 0.0105 / 0.0005
    assert d["bHertz"][0] == pytest.approx(math.sqrt(4 * 1000 * r_eq / (PI * 0.04 * e_eq)), rel=1e-12)


def test_worn_bearing_static_contact():
    """Journal pressed statically into a worn bearing: delta = e - (c + h(theta)) and
    Fn = K(R_b + h(theta)) delta^1.5 (no damping at zero velocity)."""
    _, d = simulate("WornStaticContact", 0.01, 1e-3)
    assert d["joint.delta"][-1] == pytest.approx(5e-6, rel=1e-9)
    assert d["joint.Fn"][-1] == pytest.approx(d["FnRef"][-1], rel=1e-9)
    assert d["joint.inContact"][-1] == 1
