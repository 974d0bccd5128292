"""The study line of the benchmark (issue 36): the sensitivity study's cases batched against
unbatched in one run, the same profiles bit for bit on both paths, the ratio printed against
its limit.  No timing is asserted."""
import numpy as np


def test_study_line_runs_both_paths_and_compares_profiles():
    from wearcosim.bench import study
    s = study.study_throughput(n=2, repeats=1)
    assert s["identical"] is True and s["cases"] == 2 and s["limit"] == study.STUDY_LIMIT
    assert set(s["cpu"]) == {"batched", "unbatched"} and all(v > 0 for v in s["cpu"].values())
    assert np.isclose(s["ratio"], s["cpu"]["unbatched"] / s["cpu"]["batched"])
    assert np.isclose(s["ratio_to_limit"], s["ratio"] / study.STUDY_LIMIT)
    lines = study.study_lines(s)
    assert "of the limit" in lines[1] and ("PASS" in lines[1] or "MISS" in lines[1])
    assert "DIFFER" in study.study_lines(dict(s, identical=False))[1]


def test_study_cases_are_seeded_and_in_range():
    from wearcosim.bench import study
    spec, a = study.study_cases(5)
    _, b = study.study_cases(5)
    assert a == b and len({c["name"] for c in a}) == 5
    for p in spec.parameters:
        table, _, name = p.keys[0].partition(".")
        assert all(p.low <= c[table][name] <= p.high for c in a), p.name
