"""A fixed-seed slice of the differential fuzzer: 6 generated models through the exporter + FMPy
(CS and ME), the reference interpreter and rumoca; 15 broken variants through the command line.
The long run is ``python -m wearcosim.export.fuzz --seed S --count N --jobs J --mutants`` (and the
slow test below)."""
import collections

import pytest

from wearcosim.export.fuzz.__main__ import main, run_models, run_mutants, summarize

SEEDS = list(range(6))


def test_models_agree_with_the_reference(tmp_path):
    res = run_models(SEEDS, 2, tmp_path, log=lambda s: None, timeout=300)
    assert [r["seed"] for r in res] == SEEDS
    c = collections.Counter(r["verdict"] for r in res)
    bad = [(r["seed"], r.get("signature"), r.get("details")) for r in res if r["verdict"] == "disagree"]
    assert not bad, bad
    assert c["agree"] + c["known-defect"] + c["rumoca-bug"] >= 5, c


def test_broken_variants_get_one_located_error(tmp_path):
    mut = run_mutants(SEEDS[:5], 3, 2, tmp_path, log=lambda s: None, timeout=600)
    assert len(mut) == 15
    # an error at the class line (rumoca's refusal without a span) is a failure too since the
    # front end locates those (issue 32: frontend._diagnose_spanless)
    bad = [(m["seed"], m["kind"], m["failures"], m["error"]) for m in mut if m["failures"]]
    assert not bad, bad


def test_summary_counts_and_exit_status():
    res = [{"seed": 1, "verdict": "agree", "times": {"build": 1.0}, "wall": 2.0},
           {"seed": 2, "verdict": "disagree", "signature": "cs-mismatch: decay", "kinds": ["cs-mismatch"],
            "details": {}, "times": {}, "wall": 2.0}]
    text, unexplained = summarize(res, [], 60.0, 2)
    assert "models: 2" in text and "disagree: 1" in text and unexplained == 1
    text, unexplained = summarize(res[:1], [], 60.0, 2)
    assert unexplained == 0


@pytest.mark.slow
def test_long_run(tmp_path):
    rc = main(["--seed", "1000", "--count", "300", "--jobs", "2", "--mutants", "--mutant-models", "100",
               "--out", str(tmp_path), "--shrink", "2"])
    assert rc == 0, (tmp_path / "results.jsonl").read_text()[-3000:]


def test_known_defect_only_when_its_variables_disagree():
    from wearcosim.export.fuzz.gen import generate
    from wearcosim.export.fuzz.run import documented, known_defect
    m = next(generate(s) for s in range(100) if any(b.kind == "hysteresis" for b in generate(s).blocks))
    hb = next(b for b in m.blocks if b.kind == "hysteresis")
    nch = next(d.name for d in hb.decls if d.name.startswith("nch"))     # when change(b): always
    zh = next(d.name for d in hb.decls if d.name.startswith("zh"))
    res = {"verdict": "disagree", "kinds": ["cs-mismatch"], "details": {"cs_mismatch": [(nch, 1.0, 0.5, 0, 1)]}}
    assert "edge()/change()" in known_defect(m, res)
    res["details"]["cs_mismatch"].append((zh, 1.0, 0.5, 0, 1))
    assert known_defect(m, res) is None
    assert documented("while-loop in function 'f': the Modelica front end (rumoca 0.10.2) does not support "
                      "while-loops; write a for-loop") is not None
    assert documented("while evaluating the start values") is None
