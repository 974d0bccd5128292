"""The prepared wear update (WearUpdate: update.c) against the numpy functions it replaces, bit
for bit, on random profiles: the smoothed rate, the controller's error arithmetic, the new
profile and the guards' figures, its refusals."""
import numpy as np
import pytest

from wearcosim.wear import update
from wearcosim.wear.extrapolation import _errors
from wearcosim.wear.reconstruction import guard_stats, smooth_periodic, update_profile


def _same(a, b) -> bool:
    """Equal bits (NaN of any payload counts as NaN)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all((a.view(np.int64) == b.view(np.int64)) | (np.isnan(a) & np.isnan(b))))


def _kernel(n, w, periodic):
    k = update.WearUpdate(n, w, periodic)
    if not k._c:
        pytest.skip("no C compiler: WearUpdate runs the numpy functions themselves")
    return k


def _profile(rng, n):
    """Random wear: a smooth bump, noise over decades, exact zeros, a -0.0."""
    x = rng.uniform(0, 1, n) * 10.0 ** rng.uniform(-15, -6, n)
    x += rng.uniform(0, 1e-9) * np.exp(-np.linspace(-3, 3, n) ** 2)
    x[rng.random(n) < 0.2] = 0.0
    if rng.random() < 0.3:
        x[rng.integers(0, n)] = -0.0
    return x


def test_rate_errors_and_profile_equal_numpy_bit_for_bit():
    rng = np.random.default_rng(2026)
    for _ in range(400):
        n = int(rng.integers(3, 120))
        periodic = bool(rng.random() < 0.6)
        w = int(rng.integers(0, (n - 1) // 2 + 1)) if rng.random() < 0.7 else 0
        k = _kernel(n, w, periodic)
        pending, depth = _profile(rng, n), _profile(rng, n) * 1e3
        m = int(rng.integers(1, 20))
        rate = k.rate(pending, m)
        assert _same(rate, smooth_periodic(pending, w, periodic, copy=False) / m)
        before = _profile(rng, n) if rng.random() < 0.95 else np.zeros(n)
        if rng.random() < 0.05:
            rate = np.zeros(n)
        J, rtol, floor = rng.uniform(1, 1e5), rng.uniform(1e-4, 0.5), float(rng.choice([0.1, 0.0, 0.3]))
        with np.errstate(divide="ignore", invalid="ignore"):    # (floor 0: a sector that never wore)
            err, local = k.errors(J, before, rate, rtol, floor)
            ref_err, ref_local = _errors(J, before, rate, rtol, floor)
        assert _same(err, ref_err) and _same(local, ref_local)
        assert _same(k.local_max, np.maximum.reduce(ref_local, initial=0.0))
        factor = float(rng.choice([1.0, 2500.0, rng.uniform(0.5, 1e6)]))
        new, stats = k.profile(depth, pending, factor)
        ref = update_profile(depth, pending, factor, w, periodic)
        assert _same(new, ref)
        assert stats == guard_stats(depth, ref)


def test_profile_guard_figures_of_a_non_finite_or_tied_profile():
    k = _kernel(6, 0, True)
    depth = np.array([1.0, 3.0, 3.0, 0.0, 2.0, 3.0])
    new, stats = k.profile(depth, np.zeros(6), 1.0)        # ties: the first sector of equal values
    assert stats == guard_stats(depth, new) == (-1, 0, 0.0, 1, 3.0)
    new, stats = k.profile(depth, np.array([0, 0, 1e300, 0, 1e300, 0.0]), 1e10)
    assert stats[0] == guard_stats(depth, new)[0] == 2


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -1e-12])
def test_profile_refuses_what_update_profile_refuses(bad):
    k = _kernel(5, 1, False)
    inc = np.full(5, 1e-9)
    inc[2] = bad
    with pytest.raises(ValueError, match="finite and non-negative"):
        k.profile(np.zeros(5), inc, 10.0)
    with pytest.raises(ValueError, match="sectors"):
        k.profile(np.zeros(4), np.zeros(4), 10.0)


def test_without_c_it_is_the_numpy_code(monkeypatch):
    monkeypatch.setenv("WEARCOSIM_NO_CLOOP", "1")
    k = update.WearUpdate(8, 1, True)
    assert not k._c
    x = np.linspace(0, 1e-9, 8)
    assert _same(k.rate(x, 3), smooth_periodic(x, 1, True) / 3)
    new, stats = k.profile(np.ones(8), x, 2.0)
    assert _same(new, update_profile(np.ones(8), x, 2.0, 1, True)) and stats == guard_stats(np.ones(8), new)
