"""The benchmark's figures for issue 36: the acceptance is the default method's (auto), auto is
compared with the fastest fixed method, every contender is also run with its own defaults,
and the CVODES peer runs compiled C (the interpreted run beside it).  No timing is asserted."""
import numpy as np

from wearcosim.bench import protocol as P


def _o(group, cpu, rtol=1e-6, reached=True, nfev=100, default=None):
    return {"group": group, "ladder": [], "rtol": rtol if reached else None, "error": 5e-5 if reached else None,
            "nfev": nfev, "cpu": [cpu], "wall": [cpu], "cpu_best": cpu if reached else None,
            "wall_best": cpu if reached else None, "reached": reached, "failed": "", "default": default}


def _res(**contenders):
    return {"case": "rotor", "label": "x", "target": 1e-4, "n_out": 10, "repeats": 1, "rungs": [1e-4, 1e-5],
            "reference": {"solver": "s", "rtol": 1e-11, "cpu": 1.0, "nfev": 1, "fmu_rodas4_1e-11_distance": 1e-9},
            "contenders": contenders}


def test_the_acceptance_is_auto_even_where_a_fixed_method_is_faster():
    from wearcosim.bench.suite import best_fixed, cs_key, ratios, report
    d = {"info": "rtol 1e-9", "error": 1e-9, "nfev": 5, "cpu": [0.004], "wall": [0.004], "failed": "",
         "cpu_best": 0.004, "wall_best": 0.004}
    res = _res(**{"CS FMU 0 (auto)": _o("ours", 0.0026, default=d), "CS FMU 3 (Adams)": _o("ours", 0.0020),
                  "CS FMU 1 (Dormand-Prince 5)": _o("ours", 0.0030), "CS FMU 2 (implicit)": _o("ours", 1.0, reached=False),
                  "SciPy LSODA": _o("peer", 0.26, default=dict(d, error=0.07, info="solve_ivp's"))})
    assert cs_key(res) == "CS FMU 0 (auto)" and best_fixed(res) == "CS FMU 3 (Adams)"
    r = ratios(res)
    tgt, val, note = r["auto / fastest fixed method (CPU)"]
    assert tgt == 1.2 and abs(val - 1.3) < 1e-12 and "CS FMU 3 (Adams)" in note
    assert abs(r["SciPy LSODA"][1] - 100.0) < 1e-9            # against auto, not against Adams
    text = "\n".join(report([res]))
    assert "CS FMU 0 (auto) [default]" in text and "the default method" in text
    line = next(x for x in text.splitlines() if "auto / fastest fixed method" in x)
    assert "MISS" in line and "target <= 1.2" in line
    assert "with their defaults" in text
    assert "misses" in next(x for x in text.splitlines() if "SciPy LSODA" in x and "solve_ivp" in x)
    # without auto (--methods 1,3): the fastest method run, and the auto line says so
    res2 = _res(**{k: v for k, v in res["contenders"].items() if not k.startswith("CS FMU 0")})
    assert cs_key(res2) == "CS FMU 3 (Adams)" and ratios(res2)["auto / fastest fixed method (CPU)"][1] is None


def test_defaults_are_scored_and_timed_beside_the_ladder():
    grid = np.linspace(0.1, 1.0, 10)
    ref = grid[None, :]
    calls = []

    def run(rtol, count):
        calls.append(("rung", rtol))
        return P.Run(grid, ref + rtol)

    def default(count):
        calls.append(("default", count))
        return P.Run(grid, ref + 1e-2)                         # misses the target: still reported
    c = P.Contender("x", run, default=default, default_info="its own")
    out = P.measure([c], [1e-3, 1e-5, 1e-6], grid, ref, 1e-4, repeats=3, say=lambda m: None)["x"]
    assert out.rtol == 1e-5 and len(out.cpu) == 3
    d = out.as_dict()["default"]
    assert d["info"] == "its own" and abs(d["error"] - 1e-2 / np.ptp(ref)) < 1e-12 and len(d["cpu"]) == 3 and d["cpu_best"] >= 0
    assert calls.count(("default", True)) == 1 and calls.count(("default", False)) == 6     # 3 timed, each after an untimed one


def test_compiled_cvodes_peer_agrees_with_the_interpreted_one():
    from wearcosim.bench.peers_casadi import CFLAGS, CvodesPeer, JitFolder, functions_of
    import os
    assert CFLAGS == ("-O2", "-std=c99", "-ffp-contract=off")
    gen = functions_of("WearCosim.Examples.Basic.BouncingBall")
    runs = {}
    jit = JitFolder()
    try:
        for compiled in (False, True):
            p = CvodesPeer(gen, ("h", "v"), 2.0, 100, 1e-8, "adams", compiled=compiled, jit=jit if compiled else None)
            runs[compiled] = (p.simulate(), p.stats.events)
        assert os.listdir(os.path.join(jit.path, "objects"))   # compiled objects, cached by content
    finally:
        jit.cleanup()
    (tg0, y0), ev0 = runs[False]
    (tg1, y1), ev1 = runs[True]
    assert ev0 == ev1 == 6 and np.array_equal(tg0, tg1)
    assert np.max(np.abs(y1 - y0)) <= 1e-9 * np.max(np.abs(y0))
    assert not os.path.exists(jit.path)
