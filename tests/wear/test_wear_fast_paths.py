"""The wear loop's fast paths against the code they replace, bit for bit: the prepared Archard
accumulation (CycleWear), the controller's shared error arithmetic, the profile update's
validation."""
import numpy as np
import pytest

from wearcosim.wear import archard
from wearcosim.wear.extrapolation import _errors, local_error, normalised_error
from wearcosim.wear.reconstruction import smooth_periodic, update_profile


def _surface(rng):
    n = int(rng.integers(3, 80))
    circ = bool(rng.random() < 0.6)
    return archard.SectorSurface(n=n, length=rng.uniform(1e-3, 0.1), radius=rng.uniform(1e-3, 0.05) if circ else 0.0,
                                 extent=0.0 if circ else rng.uniform(1e-3, 0.05))


def test_cycle_wear_adds_what_archard_depth_gives():
    """CycleWear.add_to(acc) == acc + archard_depth(...) for the columns of a buffer refilled
    between calls (random surfaces, samples not counted, patches narrow and wide)."""
    rng = np.random.default_rng(36)
    for _ in range(150):
        S = _surface(rng)
        m = int(rng.integers(1, 300))
        buf = np.empty((m, 6))
        cw = archard.CycleWear(S, buf[:, 1], buf[:, 2], buf[:, 3], buf[:, 4], 1e-4, 1e-4, 1e9)
        acc = np.zeros(S.n)
        ref = np.zeros(S.n)
        for _ in range(3):                      # the same columns, new samples each time
            buf[:, 1] = rng.uniform(-20, 20, m) if S.circular else rng.uniform(-0.01, S.extent + 0.01, m)
            buf[:, 2] = rng.normal(100, 200, m)
            buf[:, 3] = np.abs(rng.normal(0, S.arc * rng.uniform(0.01, 30), m))
            buf[:, 4] = rng.normal(0, 1, m)
            if m > 3:
                buf[0, 2], buf[1, 3], buf[2, 4] = np.nan, 0.0, np.inf
            ref = ref + archard.archard_depth(S, buf[:, 1], buf[:, 2], buf[:, 3], buf[:, 4], 1e-4, 1e-4, 1e9)
            cw.add_to(acc)
            assert np.array_equal(acc, ref)


def test_cycle_wear_refuses_a_foreign_accumulator():
    S = archard.SectorSurface(n=8, length=0.01, radius=0.01)
    buf = np.zeros((10, 4))
    cw = archard.CycleWear(S, buf[:, 0], buf[:, 1], buf[:, 2], buf[:, 3], 1e-4, 1e-4, 1e9)
    if cw._call is None:
        pytest.skip("no C compiler: CycleWear runs archard_depth")
    with pytest.raises(ValueError, match="8 values"):
        cw.add_to(np.zeros(7))
    with pytest.raises(ValueError):
        cw.add_to(np.zeros(16)[::2])
    with pytest.raises(ValueError, match="hardness"):
        archard.CycleWear(S, buf[:, 0], buf[:, 1], buf[:, 2], buf[:, 3], 1e-4, 1e-4, 0.0)


def test_shared_error_arithmetic_equals_the_public_functions():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 50))
        before, after = rng.uniform(0, 1e-9, n), rng.uniform(0, 1e-9, n)
        if rng.random() < 0.2:
            before[rng.integers(0, n)] = 0.0
        if rng.random() < 0.05:
            before[:], after[:] = 0.0, 0.0
        J, rtol, floor = rng.uniform(1, 1e4), rng.uniform(1e-4, 0.5), rng.choice([0.1, 0.0, 0.3])
        with np.errstate(divide="ignore", invalid="ignore"):     # (floor 0 and a sector that never wore)
            err, local = _errors(J, before, after, rtol, floor)
            ref = normalised_error(before, after, rtol, floor)
        assert err == ref or (np.isnan(err) and np.isnan(ref))
        assert np.array_equal(local, local_error(J, before, after))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -1e-12])
def test_update_profile_refuses_what_it_refused(bad):
    inc = np.full(5, 1e-9)
    inc[2] = bad
    with pytest.raises(ValueError, match="finite and non-negative"):
        update_profile(np.zeros(5), inc, 10.0)


def test_update_profile_values_unchanged():
    rng = np.random.default_rng(3)
    h, inc = rng.uniform(0, 1e-6, 12), rng.uniform(0, 1e-9, 12)
    assert np.array_equal(update_profile(h, inc, 2500.0), h + 2500.0 * inc.copy())
    assert np.array_equal(update_profile(h, inc, 7.0, 2), h + 7.0 * smooth_periodic(inc, 2))
    big = np.full(3, 1e308)                   # a sum that overflows, values that do not
    with np.errstate(over="ignore"):
        assert np.array_equal(update_profile(np.zeros(3), big, 1.0), big)
    assert update_profile(np.zeros(0), np.zeros(0)).shape == (0,)
