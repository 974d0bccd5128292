"""Archard wear on sectors: pressure distribution, volume balance, analytic depth."""
import numpy as np
import pytest

from wearcosim.wear.archard import (SectorSurface, archard_depth, archard_volume, sector_pressure,
                                    wear_volume)


def test_sector_pressures_carry_the_whole_force():
    s = SectorSurface(n=72, length=0.02, radius=0.0105)
    rng = np.random.default_rng(1)
    pos = rng.uniform(-10, 10, 200)
    Fn = rng.uniform(0, 500, 200)
    b = rng.uniform(1e-6, 2e-3, 200)        # up to ~2.3 sectors wide
    p = sector_pressure(s, pos, Fn, b)
    # sum of p_i * A_i equals F for every sample (exact ellipse integral)
    np.testing.assert_allclose(p.sum(axis=1) * s.area, Fn, rtol=1e-12)


def test_pressure_is_semi_elliptic_and_centred():
    s = SectorSurface(n=3600, length=0.01, radius=0.01)   # fine sectors resolve the ellipse
    F, b = 100.0, 1e-4
    th = s.centres()[1800]
    p = sector_pressure(s, [th], [F], [b])[0]
    p0 = 2 * F / (np.pi * b * s.length)
    assert p.max() == pytest.approx(p0, rel=2e-3)
    assert np.argmax(p) == 1800
    x = (s.centres() - th) * s.radius
    inside = np.abs(x) < 0.8 * b
    np.testing.assert_allclose(p[inside], p0 * np.sqrt(1 - (x[inside] / b) ** 2), rtol=0.05)
    assert np.all(p[np.abs(x) > b + s.arc] == 0)


def test_wrap_around_is_periodic():
    s = SectorSurface(n=36, length=0.02, radius=0.01)
    a = sector_pressure(s, [1e-4], [10.0], [5e-4])[0]
    b_ = sector_pressure(s, [2 * np.pi + 1e-4], [10.0], [5e-4])[0]
    np.testing.assert_allclose(a, b_)
    assert a[0] > 0 and a[-1] > 0           # the patch straddles sector 0 / sector n-1


def test_volume_balance_and_analytic_depth():
    """Journal pressed by a constant force, sliding at constant speed: after time t the depth of
    each sector is k * pbar_i * v * t / H and the volume is k F v t / H."""
    s = SectorSurface(n=36, length=0.02, radius=0.0105)
    k, H = 1e-4, 1.2e9
    F, b, v, T = 300.0, 8e-4, 0.5, 2.0
    nsteps = 1000
    dt = T / nsteps
    th = np.full(nsteps, 1.0)
    h = archard_depth(s, th, np.full(nsteps, F), np.full(nsteps, b), np.full(nsteps, v), dt, k, H)
    pbar = sector_pressure(s, [1.0], [F], [b])[0]
    np.testing.assert_allclose(h, k * pbar * v * T / H, rtol=1e-12)
    assert wear_volume(s, h) == pytest.approx(archard_volume(np.full(nsteps, F), np.full(nsteps, v), dt, k, H), rel=1e-12)


def test_profile_surface_drops_pressure_outside():
    s = SectorSurface(n=10, length=0.005, extent=0.01)
    p = sector_pressure(s, [0.0], [10.0], [1e-3])[0]   # half the patch hangs off the profile start
    assert p.sum() * s.area == pytest.approx(5.0, rel=1e-12)


def test_bad_material_constants():
    s = SectorSurface(n=4, length=1.0, radius=1.0)
    with pytest.raises(ValueError):
        archard_depth(s, [0], [1], [1e-3], [1], 1.0, 1e-4, 0.0)


def test_archard_depth_in_c_agrees_with_numpy_on_random_surfaces():
    """archard.c (used when a C compiler is there, as on this machine) against the numpy code
    it replaces: random circular and profile surfaces, random samples with some not counted
    (negative force, NaN, zero width, infinite slip), patches from a fraction of a sector to
    wider than half the surface.  numpy's arcsin and the C library's asin differ in the last
    bit for some arguments: agreement to 1e-13 of the largest increment."""
    from wearcosim.wear import archard
    if archard._c_archard() is None:
        pytest.skip("no C compiler: archard_depth runs in numpy only")
    rng = np.random.default_rng(20261206)
    for _ in range(200):
        n = int(rng.integers(3, 80))
        circ = bool(rng.random() < 0.6)
        S = archard.SectorSurface(n=n, length=rng.uniform(1e-3, 0.1), radius=rng.uniform(1e-3, 0.05) if circ else 0.0,
                                  extent=0.0 if circ else rng.uniform(1e-3, 0.05))
        m = int(rng.integers(0, 400))
        pos = rng.uniform(-20, 20, m) if circ else rng.uniform(-0.01, S.extent + 0.01, m)
        Fn = rng.normal(100, 200, m)
        b = np.abs(rng.normal(0, S.arc * rng.uniform(0.1, 30), m))
        vs = rng.normal(0, 1, m)
        if m > 3:
            Fn[0], b[1], vs[2] = np.nan, 0.0, np.inf
        dt = rng.uniform(1e-6, 1e-3)
        c = archard.archard_depth(S, pos, Fn, b, vs, dt, 1e-4, 1e9)
        ref = archard._archard_depth_numpy(S, pos, Fn, b, vs, dt, 1e-4, 1e9)
        # the master passes the columns of its cycle buffer (strided views), read in place
        buf = np.column_stack([np.zeros(m), pos, Fn, b, vs])
        assert np.array_equal(archard.archard_depth(S, buf[:, 1], buf[:, 2], buf[:, 3], buf[:, 4], dt, 1e-4, 1e9), c)
        assert c.shape == ref.shape == (n,)
        np.testing.assert_allclose(c, ref, rtol=0, atol=1e-13 * max(float(np.max(np.abs(ref))), 1e-300))
        assert np.array_equal(c == 0, ref == 0)
