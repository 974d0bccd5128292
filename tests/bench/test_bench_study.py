"""The study line of the benchmark (issue 36): the sensitivity study's cases batched against
the filing day's code and the current unbatched path in one run, the profiles compared bit for
bit, the ratio printed against its limit.  No timing is asserted; the filing day's FMU is not
built here (its contender is skipped, its command and history checks are tested apart)."""
import subprocess
import sys

import numpy as np
import pytest


def _git(cwd, *args):
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True)


@pytest.fixture
def fake_checkout(tmp_path):
    """A checkout of one commit holding python/wearcosim and cosim (no fmu, no modelica)."""
    root = tmp_path / "repo"
    (root / "python" / "wearcosim").mkdir(parents=True)
    (root / "python" / "wearcosim" / "__init__.py").write_text("")
    (root / "cosim").mkdir()
    (root / "cosim" / "a.toml").write_text("x = 1\n")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    return root


def test_study_line_runs_both_paths_and_compares_profiles(tmp_path):
    from wearcosim.bench import study
    s = study.study_throughput(n=2, repeats=1, root=tmp_path)        # no history: the filing day skipped
    assert s["identical"] is True and s["cases"] == 2 and s["limit"] == study.STUDY_LIMIT
    assert set(s["cpu"]) == {"batched", "unbatched"} and all(v > 0 for v in s["cpu"].values())
    assert s["peer"] == "unbatched" and s["ratio_filing"] is None
    assert np.isclose(s["ratio"], s["cpu"]["unbatched"] / s["cpu"]["batched"]) and s["ratio"] == s["ratio_unbatched"]
    assert np.isclose(s["ratio_to_limit"], s["ratio"] / study.STUDY_LIMIT)
    assert s["filing"]["commit"] == study.FILING_COMMIT and "not a wearcosim checkout" in s["filing"]["skipped"]
    lines = study.study_lines(s)
    assert any("skipped: " in line for line in lines)
    assert "of the limit" in lines[-1] and "current unbatched" in lines[-1] and ("PASS" in lines[-1] or "MISS" in lines[-1])
    assert "DIFFER" in study.study_lines(dict(s, identical=False))[-1]


def test_study_lines_with_the_filing_day_measured():
    from wearcosim.bench import study
    s = {"cases": 4, "batch": 8, "repeats": 1, "ms_per_case": {"batched": 10.0, "unbatched": 30.0, "filing": 50.0},
         "ratio": 5.0, "peer": "filing", "ratio_filing": 5.0, "ratio_unbatched": 3.0, "ratio_to_limit": 1.25,
         "identical": True, "filing": {"commit": "abc1234", "skipped": None, "build_cpu": 4.0,
                                       "identical_cases": 4, "max_rel_diff": 0.0}}
    lines = study.study_lines(s)
    assert "filing day (abc1234) 5.00x" in lines[-1] and "current unbatched 3.00x" in lines[-1] and "PASS" in lines[-1]
    assert "4/4 cases" in lines[1] and "relative difference" not in lines[1]
    # the filing day's profiles are reported; the bit-for-bit line is batched against unbatched
    lines = study.study_lines(dict(s, filing=dict(s["filing"], identical_cases=3, max_rel_diff=2e-5)))
    assert "3/4 cases" in lines[1] and "2e-05" in lines[1] and "PASS" in lines[-1]
    lines = study.study_lines(dict(s, identical=False))
    assert "unbatched profiles DIFFER" in lines[-1] and "MISS (profiles)" in lines[-1]


def test_history_missing_says_why(tmp_path, fake_checkout):
    from wearcosim.bench import study
    assert "not a wearcosim checkout" in study.history_missing(tmp_path / "nothing", "HEAD")
    assert study.history_missing(fake_checkout, "HEAD") is None
    why = study.history_missing(fake_checkout, "0123456789abcdef0123456789abcdef01234567")
    assert why and "0123456789abcdef" in why and "\n" not in why
    (tmp_path / "plain" / "python" / "wearcosim").mkdir(parents=True)          # a checkout without .git
    assert study.history_missing(tmp_path / "plain", "HEAD")


def test_extract_commit_writes_the_paths_or_says_why(tmp_path, fake_checkout):
    from wearcosim.bench import study
    study.extract_commit(fake_checkout, "HEAD", tmp_path / "out", ("python", "cosim"))
    assert (tmp_path / "out" / "cosim" / "a.toml").read_text() == "x = 1\n"
    assert (tmp_path / "out" / "python" / "wearcosim" / "__init__.py").is_file()
    with pytest.raises(study.FilingDaySkipped, match="git archive"):
        study.extract_commit(fake_checkout, "HEAD", tmp_path / "out2")             # no fmu/ nor modelica/


def test_filing_study_skipped_without_the_commit(tmp_path, fake_checkout):
    from wearcosim.bench import study
    with pytest.raises(study.FilingDaySkipped, match="0123456"):
        study.FilingDayStudy([], tmp_path / "w", "0123456789abcdef0123456789abcdef01234567", fake_checkout)
    assert not (tmp_path / "w").exists()


def test_filing_day_command_runs_the_old_tree_with_this_interpreter(tmp_path):
    from wearcosim.bench import study
    tree = tmp_path / "tree"
    argv, env = study.filing_day_command(tree, tmp_path / "cases.json", tmp_path / "finals.npy")
    assert argv == [sys.executable, "-c", study.FILING_PROGRAM, str(tree / "cosim" / "sensitivity" / "hybrid_dry.toml"),
                    str(tree / "build"), str(tmp_path / "cases.json"), str(tmp_path / "finals.npy")]
    assert env["PYTHONPATH"] == str(tree / "python")
    for key in ("WEARCOSIM_HOME", "WEARCOSIM_BUILD_DIR", "WEARCOSIM_CACHE", "XDG_CACHE_HOME", "TMPDIR"):
        assert env[key].startswith(str(tree)), key
    compile(study.FILING_PROGRAM, "<filing day>", "exec")


def test_compare_profiles_counts_equal_and_gives_the_largest_difference():
    from wearcosim.bench import study
    a = [np.array([1.0, 2.0]), np.array([0.0, 4.0])]
    b = [np.array([1.0, 2.0]), np.array([0.0, 4.0 + 4e-6])]
    same, rel = study.compare_profiles(a, b)
    assert same == 1 and np.isclose(rel, 4e-6 / (4.0 + 4e-6))
    assert study.compare_profiles(a, a) == (2, 0.0) and study.compare_profiles(a, b[:1]) == (0, float("inf"))
    assert study.compare_profiles(a[:1], [np.zeros(3)]) == (0, float("inf"))


def test_study_cases_are_seeded_and_in_range():
    from wearcosim.bench import study
    spec, a = study.study_cases(5)
    _, b = study.study_cases(5)
    assert a == b and len({c["name"] for c in a}) == 5
    for p in spec.parameters:
        table, _, name = p.keys[0].partition(".")
        assert all(p.low <= c[table][name] <= p.high for c in a), p.name


FAKE_SENSITIVITY = '''
class Spec:
    batch = 2
def load_spec(path):
    assert path.endswith("hybrid_dry.toml")
    open(path).close()
    return Spec()
def spec_fmu(spec, build_dir):
    print("built fake.fmu")                      # on stdout, as the old exporter says it
    return b"fmu"
'''

FAKE_RUNNER = '''
import os
import numpy as np
calls = 0
def run_shipped(cases, blob):
    global calls
    calls += 1
    if os.environ.get("FAKE_FAIL_AT") == str(calls):
        raise RuntimeError("the old code broke")
    if os.environ.get("FAKE_HANG_AT") == str(calls):
        import time
        time.sleep(600)
    return [{"name": c["name"], "final": np.full(3, float(c.get("v", 0)))} for c in cases]
'''


@pytest.fixture
def fake_old_code(tmp_path):
    """A checkout whose commit holds a fake filing-day wearcosim (its study runner and
    sensitivity module answer at once), the paths FILING_PATHS and the study file."""
    root = tmp_path / "old"
    studies = root / "python" / "wearcosim" / "studies"
    studies.mkdir(parents=True)
    (root / "python" / "wearcosim" / "__init__.py").write_text("")
    (studies / "__init__.py").write_text("")
    (studies / "sensitivity.py").write_text(FAKE_SENSITIVITY)
    (studies / "runner.py").write_text(FAKE_RUNNER)
    (root / "cosim" / "sensitivity").mkdir(parents=True)
    (root / "cosim" / "sensitivity" / "hybrid_dry.toml").write_text("")
    for d in ("fmu", "modelica"):
        (root / d).mkdir()
        (root / d / "keep").write_text("")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "old")
    return root


def test_filing_study_speaks_with_the_old_code(tmp_path, fake_old_code):
    from wearcosim.bench import study
    cases = [{"name": f"c{i}", "v": i} for i in range(5)]
    old = study.FilingDayStudy(cases, tmp_path / "w", "HEAD", fake_old_code)
    assert old.batch == 2 and old.build_cpu >= 0
    assert (tmp_path / "w" / "tree" / "cosim" / "sensitivity" / "hybrid_dry.toml").is_file()
    assert old.run() >= 0 and old.run() >= 0
    finals = old.close()
    assert [f.tolist() for f in finals] == [[float(i)] * 3 for i in range(5)]


def test_filing_study_says_why_the_old_code_stopped(tmp_path, fake_old_code, monkeypatch):
    from wearcosim.bench import study
    monkeypatch.setenv("FAKE_FAIL_AT", "5")          # the warm-up is call 1, a run of 5 cases 3 calls
    old = study.FilingDayStudy([{"name": f"c{i}", "v": i} for i in range(5)], tmp_path / "w", "HEAD", fake_old_code)
    old.run()
    with pytest.raises(study.FilingDaySkipped, match="stopped .*the old code broke"):
        old.run()


def test_filing_study_ends_a_program_that_hangs(tmp_path, fake_old_code, monkeypatch):
    from wearcosim.bench import study
    monkeypatch.setenv("FAKE_HANG_AT", "2")           # its first timed run never answers
    monkeypatch.setattr(study.FilingDayStudy, "ANSWER_SECONDS", 2.0)
    old = study.FilingDayStudy([{"name": "c0", "v": 0}], tmp_path / "w", "HEAD", fake_old_code)
    with pytest.raises(study.FilingDaySkipped, match="no answer within 2 s"):
        old.run()
    assert old._proc.poll() is not None               # ended, not left running


def test_study_line_against_the_filing_day(tmp_path, fake_old_code, monkeypatch):
    from wearcosim.bench import study
    s = study.study_throughput(n=2, repeats=1, commit="HEAD", root=fake_old_code)
    assert s["peer"] == "filing" and s["filing"]["skipped"] is None and set(s["cpu"]) == {"batched", "unbatched", "filing"}
    assert np.isclose(s["ratio"], s["cpu"]["filing"] / s["cpu"]["batched"]) and s["ratio"] == s["ratio_filing"]
    assert np.isclose(s["ratio_unbatched"], s["cpu"]["unbatched"] / s["cpu"]["batched"])
    assert s["filing"]["identical_cases"] == 0 and s["filing"]["batch"] == 2     # the fake's profiles are zeros
    assert "0/2 cases" in study.study_lines(s)[1]
    monkeypatch.setenv("FAKE_FAIL_AT", "2")          # its first run fails: the others still measured
    s = study.study_throughput(n=2, repeats=1, commit="HEAD", root=fake_old_code)
    assert s["peer"] == "unbatched" and "the old code broke" in s["filing"]["skipped"] and "filing" not in s["cpu"]
