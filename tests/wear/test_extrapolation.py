"""The adaptive extrapolation controller on wear-rate laws with closed-form solutions (no FMU):
the error it reaches against the exact profile, the caps, the taking back of rejected jumps,
and its state through a checkpoint."""
import math

import numpy as np
import pytest

from wearcosim.wear.extrapolation import AdaptiveExtrapolation, integrate, normalised_error

N = 1e5
A = np.array([1.0, 0.5, 0.12, 0.0])       # one sector that never wears


def conforming(h0, a):
    """dh/dn = a / (1 + h/h0): the rate falls as the surfaces conform (pressure spreads);
    exact h(n) = h0 (sqrt(1 + 2 a n / h0) - 1)."""
    return (lambda h: a / (1 + h / h0)), (lambda n: h0 * (np.sqrt(1 + 2 * a * n / h0) - 1))


def growing(k, a):
    """dh_i/dn = a_i (1 + k sum h): the force grows with the worn volume; exact
    sum h = (exp(k A n) - 1)/k, h_i = a_i / A * sum h."""
    tot = a.sum()
    return (lambda h: a * (1 + k * h.sum())), (lambda n: a / tot * (np.exp(k * tot * n) - 1) / k)


@pytest.mark.parametrize("rtol", [0.1, 0.03, 0.01, 0.001])
def test_conforming_wear_is_within_about_the_tolerance(rtol):
    a = A * 3e-12
    rate, exact = conforming(2e-8, a)
    h, evals, ctl = integrate(rate, np.zeros(4), N, rtol=rtol)
    ex = exact(N)
    big = ex > 0.1 * ex.max()
    err = np.max(np.abs(h[big] / ex[big] - 1))
    assert err <= rtol, (err, evals)
    assert h[3] == 0.0 and ctl.done == N
    # fewer rate evaluations for a looser tolerance, and far fewer than cycles
    assert evals < 3 / rtol
    # the reported estimate is of the size of the true error (not 100x off either way)
    est = ctl.bound.max() / h.max()
    assert err / 10 < est < 10 * err


@pytest.mark.parametrize("growth", [1.0, 3.0])
def test_growing_wear_stays_within_a_few_tolerances(growth):
    """Errors made early grow with the solution (exp(growth)): the global error is a small
    multiple of rtol, not rtol itself (stated in the module's documentation)."""
    a = A * 3e-12
    k = growth / (a.sum() * N)
    rate, exact = growing(k, a)
    for rtol in (0.03, 0.01, 0.001):
        h, evals, ctl = integrate(rate, np.zeros(4), N, rtol=rtol)
        ex = exact(N)
        err = abs(h[0] / ex[0] - 1)
        assert err <= (1 + growth) * rtol, (rtol, err)


def test_constant_rate_doubles_the_factor_up_to_the_end():
    a = A * 1e-12
    h, evals, ctl = integrate(lambda h: a, np.zeros(4), N, rtol=0.01)
    np.testing.assert_allclose(h, a * N, rtol=1e-12)
    # jumps of 1, 2, 4, ... real cycles (17 to reach 1e5, the last one cut), one evaluation before
    assert ctl.rejected == 0 and evals == math.ceil(math.log2(N + 1)) + 1
    assert ctl.bound.max() == 0.0


def test_change_and_factor_caps_hold():
    a = A * 1e-9
    seen = []

    def rate(h):
        seen.append(h.copy())
        return a
    h, evals, ctl = integrate(rate, np.zeros(4), N, rtol=0.01, max_change=2e-6, max_factor=500)
    steps = np.diff(np.array(seen), axis=0).max(axis=1)
    assert steps.max() <= 2e-6 * (1 + 1e-12)
    np.testing.assert_allclose(h, a * N, rtol=1e-12)
    h, evals, ctl = integrate(lambda h: a, np.zeros(4), N, rtol=0.01, max_factor=500)
    assert evals >= N / 500


def test_a_rejected_jump_is_taken_back_and_redone_smaller():
    """A rate that jumps after 1000 real cycles (contact begins): the first long jump across
    it is rejected, redone smaller, and the result is still within the tolerance."""
    a = A * 1e-12
    rate = lambda h: a * (1 + 4 * (h[0] > 1000 * a[0]))             # noqa: E731
    h, evals, ctl = integrate(rate, np.zeros(4), 1e4, rtol=0.01, first=1.0)
    assert ctl.rejected >= 1
    # exact: 1000 cycles at a, then 9000 at 5a
    ex = a * 1000 + 5 * a * 9000
    assert abs(h[0] / ex[0] - 1) < 0.01


def test_rate_noise_drives_the_factor_down_not_up():
    """Cycle-to-cycle scatter of 20 % at a 1 % tolerance: no jump of the noisy rate passes
    the criterion, the factor falls to 1 (no extrapolation) instead of amplifying the noise."""
    rng = np.random.default_rng(3)
    a = A * 1e-12
    h, evals, ctl = integrate(lambda h: a * (1 + 0.2 * rng.standard_normal()), np.zeros(4), 300, rtol=0.01,
                              first=20.0)
    assert ctl.factor == 1.0 and evals > 200


def test_normalised_error_scales_sector_by_sector_with_a_floor():
    before = np.array([1.0, 0.1, 0.0])
    assert normalised_error(before, before, 0.01) == 0.0
    assert normalised_error(np.zeros(3), np.zeros(3), 0.01) == 0.0
    # 1 % change of the peak sector: err = 0.01 / (2 rtol (1 + 0.1 * 1.01)), the peak of both windows
    assert normalised_error(before, before * [1.01, 1, 1], 0.01) == pytest.approx(0.01 / (0.02 * 1.101))
    # a sector that starts to wear is judged against 10 % of the peak
    assert normalised_error(before, before + [0, 0, 0.05], 0.01) == pytest.approx(0.05 / (2 * 0.01 * 0.1))


def test_state_round_trip_continues_identically():
    a = A * 3e-12
    rate, _ = conforming(2e-8, a)
    ref = AdaptiveExtrapolation(N, rtol=0.01)
    h_ref, _, _ = integrate(rate, np.zeros(4), N, ctl=ref)
    # stop after a few jumps, carry the state over, go on
    ctl = AdaptiveExtrapolation(N, rtol=0.01)
    h = np.zeros(4)
    r = rate(h)
    for _ in range(5):
        J = ctl.jump(r)
        h = h + J * r
        r = rate(h)
        assert ctl.judge(r).accept
    scal, arr = ctl.state()
    twin = AdaptiveExtrapolation(N, rtol=0.01)
    twin.restore(scal, arr)
    assert twin.factor == ctl.factor and twin.done == ctl.done and np.array_equal(twin.bound, ctl.bound)
    before = h.copy()
    J = twin.jump(r)
    h = before + J * r
    while True:
        r2 = rate(h)
        j = twin.judge(r2)
        if not j.accept:
            h = before + twin.redo() * twin.last_rate
            continue
        if twin.finished:
            break
        before, r = h.copy(), r2
        h = before + twin.jump(r) * r
    assert np.array_equal(h, h_ref)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="real_cycles"):
        AdaptiveExtrapolation(0.5)
    with pytest.raises(ValueError, match="rtol"):
        AdaptiveExtrapolation(10, rtol=1.5)
