"""The dummy-derivative selection's rank test (wearcosim.export.index._greedy): incremental,
one projection of a column on the accepted ones per sample matrix instead of an SVD of all
the accepted columns per trial, with the same choices as the full SVD test it replaced."""
from __future__ import annotations

import numpy as np
import pytest

from wctest import fixture_path
from wearcosim.export import dae, frontend, index


def _svd_greedy(mats, order, n):
    """The selection as it was: a full SVD of the trial columns of every matrix per trial."""
    def rank(M):
        if M.size == 0:
            return 0
        if not np.all(np.isfinite(M)):
            return -1
        sv = np.linalg.svd(M, compute_uv=False)
        if sv[0] == 0:
            return 0
        return int(np.sum(sv > max(M.shape) * 1e3 * np.finfo(float).eps * sv[0]))

    for use in (mats, mats[-1:]):
        chosen = []
        for c in order:
            trial = chosen + [c]
            if all(rank(M[:, trial]) == len(trial) for M in use):
                chosen = trial
                if len(chosen) == n:
                    return chosen
    return None


def _planted(rng, m, n, deps):
    """An m x n matrix whose columns in ``deps`` are combinations of earlier columns (exactly
    dependent up to rounding), a zero column and one scaled by 1e-5 (small, not dependent);
    the column scales span 1e-9..1e2 (a Jacobian's units: the choices of the two tests differ
    only for a column within about 1e-12 of the matrix's largest, see the next test)."""
    M = rng.standard_normal((m, n)) * rng.choice([1e-2, 1.0, 1e2], size=n)
    for c in deps:
        src = rng.choice(c, size=min(c, 3), replace=False)
        M[:, c] = M[:, src] @ rng.standard_normal(len(src))
    M[:, n - 1] = 0.0
    M[:, n // 2] *= 1e-5
    return M


@pytest.mark.parametrize("seed", range(40))
def test_the_incremental_test_chooses_what_the_svd_chose(seed):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(2, 9)), int(rng.integers(10, 18))
    deps = sorted(set(int(c) for c in rng.integers(1, n, size=4)))
    start = _planted(rng, m, n, deps)
    generic = start + rng.standard_normal((m, n)) * (rng.random() < 0.5)   # sometimes equal
    if seed % 5 == 0:
        start[0, int(rng.integers(0, n))] = np.nan        # a point outside a function's domain
    if seed % 7 == 0:
        start[:, :] = 0.0                                 # singular at the start: the generic one decides
    order = list(rng.permutation(n))
    for mats in ([start, generic], [generic], []):
        assert index._greedy(mats, order, m) == _svd_greedy(mats, order, m), (seed, len(mats))


def test_a_column_at_the_level_of_rounding_noise_is_refused_also_when_tested_first():
    """dg/dz of a derivative whose terms cancel up to rounding (1e-17 where the matrix's
    entries are 1): not a pivot, whatever the order.  The SVD of that column alone took it,
    then refused every column with it, and found no block at all."""
    M = np.array([[1e-17, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert index._greedy([M], [0, 1, 2], 2) == [1, 2]
    assert _svd_greedy([M], [0, 1, 2], 2) is None


def test_a_column_needs_full_rank_in_every_sample_then_in_the_generic_one():
    # the columns 0 and 1 are parallel at the start values, not at the generic point
    start = np.array([[1.0, 2.0, 0.0], [1.0, 2.0, 1.0]])
    generic = np.array([[1.0, 0.0, 0.0], [1.0, 2.0, 1.0]])
    assert index._greedy([start, generic], [0, 1, 2], 2) == [0, 2]
    assert index._greedy([start, generic], [0, 1], 2) == [0, 1]     # second pass: the generic point
    assert index._greedy([start, np.zeros((2, 3))], [0, 1, 2], 2) is None


def test_the_rigid_chain_is_reduced_with_one_residual_per_column_and_no_svd(monkeypatch):
    """Eight masses joined by rods (index 3, 7 constraints differentiated twice): the first
    mass's coordinates are the states; every column of the constraints' Jacobians is tested
    at most once per sample matrix, and no SVD is computed."""
    def no_svd(*a, **k):
        raise AssertionError("an SVD in the dummy-derivative selection")
    monkeypatch.setattr(np.linalg, "svd", no_svd)
    calls = []
    choose = index._choose

    def counted(d, nodes, eqs, g, z, reinit, rank):
        calls.append(len(z))
        return choose(d, nodes, eqs, g, z, reinit, rank)
    monkeypatch.setattr(index, "_choose", counted)
    before = index.RANK_TESTS[0]
    r = index.reduce(dae.build(frontend.load(fixture_path("RigidChain"), "RigidChain"))).reduction
    tests = index.RANK_TESTS[0] - before
    assert r.states == ["s1", "v1"], r
    assert sorted(o for _, o in r.differentiated) == [1] * 15 + [2] * 7
    assert len(r.dummies) == 22
    assert calls and 0 < tests <= 2 * sum(calls), (calls, tests)


def test_a_generic_point_outside_a_functions_domain_is_drawn_again(monkeypatch):
    """The generic point is random: a squared length under sqrt may be drawn negative (MSL's
    LineForceWithTwoMasses, jointUPS.length2_n2_a, once alias elimination had changed the
    draws), and the matrix is NaN there; another draw is taken instead of giving up with 'no
    nonsingular choice'.  Forced here: the first generic draw is the start point negated."""
    draws = []
    point = index._point

    def first_draw_negated(d, syms, generic, draw=0):
        draws.append((generic, draw))
        p = point(d, syms, generic, draw)
        return [-abs(v) - 1.0 for v in p] if generic and draw == 0 else p
    monkeypatch.setattr(index, "_point", first_draw_negated)
    r = index.reduce(dae.build(frontend.load(fixture_path("SqrtPendulum"), "SqrtPendulum"))).reduction
    assert (True, 0) in draws and (True, 1) in draws
    assert sorted(r.states) == ["vx", "x"], r
