"""The fuzzer's shrunk disagreements, kept as regression fixtures (``regressions/<Model>.mo`` and
``.json``: what the reference interpreter computed at the communication points).  Each is built
with the exporter and simulated with FMPy in CS and ME; the result must match the reference.  A
fixture of a defect known and being fixed carries its reason (``xfail`` in the JSON): the test
is then xfail (not strict)."""
import json
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent / "regressions"
FIXTURES = sorted(HERE.glob("*.json")) if HERE.exists() else []


def _param(p):
    info = json.loads(p.read_text())
    marks = [pytest.mark.xfail(strict=False, reason=info["xfail"])] if info.get("xfail") else []
    return pytest.param(p, id=p.stem, marks=marks)


@pytest.mark.skipif(not FIXTURES, reason="no regression fixtures")
@pytest.mark.parametrize("path", [_param(p) for p in FIXTURES])
def test_fixture_matches_the_reference(path, tmp_path):
    from fmpy import extract, read_model_description

    from wearcosim.export.build import build_fmu
    from wearcosim.export.fuzz.run import ATOL, RTOL, compare, fmu_simulate, on_grid
    info = json.loads(path.read_text())
    mo = tmp_path / f"{info['model']}.mo"
    mo.write_text(path.with_suffix(".mo").read_text())
    r = build_fmu(info["model"], tmp_path, tmp_path / "out", path=mo)
    d = tmp_path / "fmu"
    extract(str(r.fmu), unzipdir=str(d))
    ref = info.get("reference")
    if ref is None:
        return                      # the defect was a build failure; the reference could not run
    grid = np.asarray(ref["t"])
    want = {k: np.asarray(v, dtype=float) for k, v in ref["values"].items()}
    have = {v.name for v in read_model_description(str(d)).modelVariables}
    names = [n for n in want if n in have]
    assert names == list(want), f"variables missing in the FMU: {sorted(set(want) - set(names))}"
    for ft in ("CoSimulation", "ModelExchange"):
        t, got = fmu_simulate(d, names, info["stop"], info["dt"], ft)
        if len(t) != len(grid) or np.max(np.abs(t - grid)) > 1e-9:
            got = {n: on_grid(grid, t, y) for n, y in got.items()}
        bad = compare(grid, want, got, ref["events"], info["dt"], RTOL[ft], ATOL[ft])
        assert not bad, f"{ft}: {bad[:5]}"
