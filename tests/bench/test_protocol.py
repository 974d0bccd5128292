"""The benchmark's protocol (``wearcosim.bench.protocol``) and its command line: what is scored,
which runs are made and in which order.  No timing is asserted.

* scoring is on the communication grid only: an extra sample at an impact (a kink) does not
  change the score, a grid point reported twice counts with its last value, a missing grid
  point is an error;
* every contender climbs the same ladder from the loosest rung and stops at the first that
  reaches the target; one that never reaches it is reported and not timed; the timed ones run
  the same number of repeats, round-robin, the order rotating from repeat to repeat;
* the CVODES peer (CasADi on the exporter's functions, events by restarting at crossings)
  agrees with the CS FMU on small models with events (a reinit, a captured impact velocity);
* ``python -m wearcosim.bench --quick`` on a tiny configuration prints the table and the
  acceptance lines and writes the JSON.
"""
import json

import numpy as np
import pytest

from wearcosim.bench import protocol as P


def _kinked(t):
    """A signal with an impact-like kink at t = 0.35 (between grid points)."""
    return np.where(t < 0.35, t, 0.35 - 4.0 * (t - 0.35))


def test_extra_sample_at_a_kink_does_not_change_the_score():
    grid = np.linspace(0.1, 1.0, 10)
    ref = _kinked(grid)[None, :]
    exact = P.grid_error(grid, ref, grid, ref)
    assert exact == 0.0
    # the same contender with an extra (exact) sample at the kink, as FMPy and rumoca add at events
    t = np.sort(np.append(grid, 0.35))
    y = _kinked(t)[None, :]
    assert P.grid_error(t, y, grid, ref) == 0.0
    # what the old scoring did: the reference interpolated linearly across the kink -> a false error
    false = np.max(np.abs(y[0] - np.interp(t, grid, ref[0]))) / np.ptp(ref)
    assert false > 0.04
    # an error at a grid point is seen
    y2 = y.copy()
    y2[0, np.searchsorted(t, 0.5)] += 0.01
    assert P.grid_error(t, y2, grid, ref) == pytest.approx(0.01 / np.ptp(ref))


def test_grid_point_reported_twice_counts_with_its_last_value_and_missing_points_fail():
    grid = np.array([0.1, 0.2, 0.3])
    t = np.array([0.1, 0.2, 0.2, 0.3])              # an event exactly at 0.2: before, after
    y = np.array([[1.0, 5.0, 2.0, 3.0]])
    assert np.array_equal(P.on_grid(t, y, grid), [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="no sample at grid point"):
        P.on_grid(np.array([0.1, 0.3]), np.array([[1.0, 3.0]]), grid)


def test_order_is_round_robin_rotating():
    names = ["a", "b", "c"]
    assert [P.order(names, r) for r in range(4)] == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]]
    assert P.order([], 3) == []


def test_same_ladder_and_repeats_for_every_contender_interleaved():
    grid = np.linspace(0.1, 1.0, 10)
    ref = np.sin(grid)[None, :]
    calls = []

    def contender(name, reach, group="peer"):
        """error 10 x rtol, shifted so that the contender reaches 1e-4 at rung ``reach``
        (None: never)"""
        def run(rtol, count):
            calls.append((name, rtol, count))
            err = 0.0 if reach is not None and rtol <= reach else 1e-3
            return P.Run(grid, ref + err * np.ptp(ref), nfev=7 if count else None)
        return P.Contender(name, run, group=group)
    rungs = [1e-4, 1e-5, 1e-6, 1e-7]
    cs = [contender("ours", 1e-5, "ours"), contender("peer1", 1e-7), contender("never", None), contender("peer2", 1e-4)]
    out = P.measure(cs, rungs, grid, ref, 1e-4, repeats=3, say=lambda m: None)
    # the ladder: in order from the loosest, until the first rung that reaches the target and
    # the next one that confirms it (the last rung needs no confirmation)
    ladder = [c for c in calls if c[2]]
    assert [r for n, r, _ in ladder if n == "ours"] == [1e-4, 1e-5, 1e-6]
    assert [r for n, r, _ in ladder if n == "peer1"] == rungs
    assert [r for n, r, _ in ladder if n == "never"] == rungs
    assert [r for n, r, _ in ladder if n == "peer2"] == [1e-4, 1e-5]
    assert out["ours"].rtol == 1e-5 and out["peer1"].rtol == 1e-7 and out["peer2"].rtol == 1e-4
    assert out["ours"].nfev == 7 and out["ours"].error == 0.0
    # never reaching: reported, not timed
    assert not out["never"].reached and out["never"].cpu == [] and out["never"].cpu_best is None
    # timed: the same repeats for each, at its own rung, round-robin rotated, without counting,
    # each right after an untimed run of the same job (warm caches)
    timed = [c for c in calls if not c[2]]
    order = ["ours", "peer1", "peer2", "peer1", "peer2", "ours", "peer2", "ours", "peer1"]
    assert [n for n, _, _ in timed] == [n for n in order for _ in range(2)]
    assert all(r == out[n].rtol for n, r, _ in timed)
    for n in ("ours", "peer1", "peer2"):
        o = out[n]
        assert len(o.cpu) == len(o.wall) == 3 and o.cpu_best == min(o.cpu)
    d = out["peer1"].as_dict()
    assert d["reached"] and d["rtol"] == 1e-7 and len(d["ladder"]) == 4


def test_a_rung_reached_by_luck_is_not_the_contenders():
    """The error passes at 1e-4 by luck, fails at 1e-5, passes at 1e-6 and 1e-7: the rung is
    1e-6, the loosest one the next rung confirms; its error and counters are that rung's."""
    grid = np.linspace(0.1, 1.0, 10)
    ref = np.sin(grid)[None, :]
    errs = {1e-4: 0.0, 1e-5: 1e-3, 1e-6: 5e-5, 1e-7: 0.0}

    def run(rtol, count):
        return P.Run(grid, ref + errs[rtol] * np.ptp(ref), nfev=int(round(-np.log10(rtol))))
    out = P.measure([P.Contender("lucky", run)], sorted(errs, reverse=True), grid, ref, 1e-4, repeats=1,
                    say=lambda m: None)
    o = out["lucky"]
    assert o.rtol == 1e-6 and o.error == pytest.approx(5e-5) and o.nfev == 6
    assert [x["rtol"] for x in o.ladder] == [1e-4, 1e-5, 1e-6, 1e-7]


def test_a_failing_rung_is_reported_and_the_ladder_goes_on():
    grid = np.linspace(0.1, 1.0, 10)
    ref = np.cos(grid)[None, :]

    def run(rtol, count):
        if rtol > 1e-5:
            raise RuntimeError("step size too small\nmore")
        return P.Run(grid, ref)
    out = P.measure([P.Contender("x", run)], [1e-4, 1e-5], grid, ref, 1e-4, repeats=1, say=lambda m: None)
    o = out["x"]
    assert o.ladder[0]["failed"] == "RuntimeError: step size too small" and o.rtol == 1e-5 and o.failed == ""


@pytest.mark.parametrize("model, stop, signals, bound", [
    # measured: 1.7e-9 (BDF), 1.5e-9 (Adams)
    ("WearCosim.Examples.Basic.BouncingBall", 2.0, ("h", "v"), 1e-7),
    # measured: 1.1e-6 (BDF), 1.9e-7 (Adams) on the contact force F
    ("WearCosim.Examples.Basic.ContactOscillator", 1.0, ("x", "F", "vImpact"), 1e-5),
])
def test_cvodes_peer_agrees_with_the_cs_fmu(build_example, model, stop, signals, bound):
    from wearcosim.bench.peers_casadi import CvodesPeer, functions_of
    from wearcosim.fmi.runner import open_fmu
    n = 200
    r = open_fmu(build_example(model), log_level=0)
    try:
        r.setup(0.0, stop, 1e-10, stop / n)
        r.set({"solver.method": 2})
        r.initialize()
        t, y = r.step_record(n, r.vr(list(signals)))
    finally:
        r.terminate()
    gen = functions_of(model)
    for method in ("bdf", "adams"):
        p = CvodesPeer(gen, signals, stop, n, 1e-10, method)
        tg, Y = p.simulate()
        assert np.allclose(tg[1:], t)
        err = max(np.max(np.abs(Y[i, 1:] - y[:, i])) / np.ptp(y[:, i]) for i in range(len(signals)))
        assert err < bound, (method, err)
        assert p.stats.events == 6 and p.stats.nfev > 0 and p.stats.calls > 0


def test_solver_methods_read_from_the_model_description():
    from types import SimpleNamespace as NS

    from wearcosim.bench.suite import solver_methods
    v = NS(name="solver.method", min="0", max="3",
           description="Co-Simulation solver: 0 = auto, 1 = Dormand-Prince 5(4) (explicit), 2 = implicit (L-stable, "
                       "uses the Jacobian), 3 = variable-order Adams")
    md = NS(modelVariables=[NS(name="x", min=None, max=None, description=""), v])
    assert solver_methods(md) == {0: "auto", 1: "Dormand-Prince 5", 2: "implicit", 3: "variable-order Adams"}
    assert solver_methods(NS(modelVariables=[])) == {}


def test_quick_mode_output_on_a_tiny_configuration(tmp_path, monkeypatch, capsys):
    from wearcosim.bench import suite
    monkeypatch.setattr(suite, "BUILD_DIR", tmp_path / "fmus")
    out = tmp_path / "bench_quick.json"
    rc = suite.main(["--quick", "--stop", "0.01", "--points", "80", "--repeats", "2", "--methods", "0,1,9",
                     "--peers", "SciPy LSODA,CVODES Adams", "--ladder", "1e-5,1e-7,1e-9", "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "Simulation speed at equal accuracy" in text and "set-up" in text and "excluded for all" in text
    assert "hybrid mechanism" in text and "reference: SciPy LSODA" in text
    for name in ("CS FMU 0 (auto)", "CS FMU 1 (Dormand-Prince 5)", "CVODES Adams", "SciPy LSODA"):
        assert name in text
    for line in ("CS FMU vs SciPy LSODA", "CS FMU vs CVODES (best of BDF, Adams)", "CS FMU vs rumoca.simulate",
                 "RHS evaluations (ours / fewest peer)"):
        row = next(x for x in text.splitlines() if line in x)
        assert "target" in row and any(v in row for v in ("PASS", "MISS", "n/a"))
    assert "rumoca" in next(x for x in text.splitlines() if "vs rumoca" in x) and \
        "n/a" in next(x for x in text.splitlines() if "vs rumoca" in x)
    res = json.loads(out.read_text())
    assert res["quick"] is True and res["machine"]["cpus"] >= 1
    (case,) = res["simulation"]
    assert case["case"] == "hybrid" and case["repeats"] == 2 and case["rungs"] == [1e-5, 1e-7, 1e-9]
    assert set(case["methods"]) == {"0", "1"}                 # 9 is not offered: skipped
    for name, o in case["contenders"].items():
        assert [x["rtol"] for x in o["ladder"]] == case["rungs"][:len(o["ladder"])]
        assert len(o["cpu"]) == (2 if o["reached"] else 0)
    assert "wear_loop" not in res and "build" not in res


def test_bad_input_is_one_error_line(capsys):
    from wearcosim.bench import suite
    assert suite.main(["--repeats", "0", "--skip", "wear", "build", "sweep"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --repeats must be at least 1"]


def test_a_failing_timed_run_is_reported_and_the_others_go_on():
    grid = np.linspace(0.1, 1.0, 10)
    ref = np.cos(grid)[None, :]
    calls = []

    def flaky(rtol, count):
        calls.append(("flaky", count))
        if not count:
            raise RuntimeError("lost the licence")
        return P.Run(grid, ref)

    def steady(rtol, count):
        calls.append(("steady", count))
        return P.Run(grid, ref)
    out = P.measure([P.Contender("flaky", flaky), P.Contender("steady", steady)], [1e-4], grid, ref, 1e-4,
                    repeats=3, say=lambda m: None)
    assert out["flaky"].reached and out["flaky"].cpu == [] and "lost the licence" in out["flaky"].failed
    assert len(out["steady"].cpu) == 3 and calls.count(("flaky", False)) == 1
