"""The shrinker on a synthetic disagreement: a predicate standing for "the FMU disagrees" that
holds as long as the counter block counts at least one event in the reference interpreter."""
from wearcosim.export.fuzz.gen import generate
from wearcosim.export.fuzz.interp import simulate
import copy

from wearcosim.export.fuzz.shrink import cleanup, shrink, write_fixture
from wearcosim.export.fuzz.tree import render


def _counts(m):
    cnt = [d.name for b in m.blocks if b.kind == "counter" for d in b.decls if d.name.startswith("cnt")]
    if not cnt:
        return False
    try:
        r = simulate(m)
    except Exception:
        return False
    return r.data[cnt[0]][-1] >= 1


def test_shrinks_a_synthetic_disagreement_to_the_blocks_it_needs(tmp_path):
    m = generate(12)           # bounce, decay, osc_chain, counter, decay, record
    assert _counts(m) and len(m.blocks) >= 5
    small, tried = shrink(m, _counts, budget_s=120)
    assert _counts(small)
    kinds = [b.kind for b in small.blocks]
    assert "counter" in kinds and len(kinds) <= 2, kinds      # the counter and at most its driver
    assert len(render(small).splitlines()) < len(render(m).splitlines()) / 2
    assert not small.records and not small.functions
    p = write_fixture(small, {"verdict": "disagree", "kinds": ["cs-mismatch"]}, simulate(small), tmp_path)
    assert p.read_text() == render(small) and p.with_suffix(".json").exists()


def test_a_predicate_that_raises_or_a_failing_candidate_does_not_stop_the_shrink():
    m = generate(5)

    def flaky(c):
        if len(c.blocks) == len(m.blocks) - 1:
            raise RuntimeError("a candidate the checker cannot handle")
        return False
    small, tried = shrink(m, flaky, budget_s=30)
    assert tried > 0 and render(small) == render(cleanup(copy.deepcopy(m)))   # only what nothing uses is gone
