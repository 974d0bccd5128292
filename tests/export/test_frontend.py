"""Front end: rumoca's flat IR -> our IR, and rumoca's diagnostics -> file:line errors."""
import json
import os
from pathlib import Path

import pytest

from wctest import fixture_path
from wearcosim.export import frontend, ir
from wearcosim.export.errors import ExportError

SNAP = Path(__file__).parent / "snapshots"


def ir_summary(m: ir.Model) -> dict:
    """A stable, readable digest of the IR used as a snapshot (catches schema changes of
    an upgraded rumoca: the flat IR carries no version)."""
    return {
        "variables": {n: [v.type, list(v.dims), v.variability, v.causality, v.fixed, v.unit, v.description,
                          repr(v.binding)] for n, v in m.variables.items()},
        "equations": [repr(e.residual) for e in m.equations],
        "initial_equations": [repr(e.residual) for e in m.initial_equations],
        "whens": [[(repr(c), [(w.kind, repr(w.target), repr(w.value)) for w in eqs]) for c, eqs in wc.branches]
                  for wc in m.whens],
        "functions": sorted(m.functions),
    }


@pytest.mark.parametrize("name", ["Simple", "Events", "Functions"])
def test_ir_snapshot(name):
    m = frontend.load(fixture_path(name), name)
    got = ir_summary(m)
    snap = SNAP / f"{name}.json"
    if os.environ.get("WEARCOSIM_UPDATE_SNAPSHOTS") == "1":   # after a deliberate rumoca upgrade
        snap.parent.mkdir(exist_ok=True)
        snap.write_text(json.dumps(got, indent=1, sort_keys=True))
    assert snap.exists(), f"missing IR snapshot {snap} (regenerate with WEARCOSIM_UPDATE_SNAPSHOTS=1)"
    assert json.loads(json.dumps(got, sort_keys=True)) == json.loads(snap.read_text())


def test_ir_translation_content():
    m = frontend.load(fixture_path("Simple"), "Simple")
    v = m.variables
    assert v["k"].variability == "parameter" and v["k"].description == "decay rate"
    assert isinstance(v["k"].min, ir.Lit) and v["k"].min.value == 0
    assert v["y"].dims == (3,) and v["s"].causality == "output"
    assert v["n"].type == "Integer"
    assert v["x"].fixed is True
    # for-equation unrolled into 3 scalar equations + der + sum
    assert len(m.equations) == 5
    assert all(e.loc.line > 0 for e in m.equations)


@pytest.mark.parametrize("name, kind, line, text", [
    ("SyntaxError", "syntax", 5, "unexpected"),
    ("UnknownName", "name", 4, "kk"),
    ("Unbalanced", "balance", None, "1 equations, 2 unknowns"),
    ("Unsupported", "unsupported", 6, "delay"),
])
def test_bad_input_errors_name_file_and_line(name, kind, line, text):
    from wearcosim.export import dae
    path = fixture_path(name)
    with pytest.raises(ExportError) as ei:
        dae.build(frontend.load(path, name))
    e = ei.value
    assert e.kind == kind
    assert text in str(e)
    assert e.loc is not None and Path(e.loc.file).name == path.name
    if line is not None:
        assert e.loc.line == line


def test_list_models_finds_examples():
    from wctest import PACKAGE
    models = frontend.list_models(PACKAGE, "WearCosim.Examples")
    assert "WearCosim.Examples.Basic.BouncingBall" in models
    assert not any(m.endswith("sectorInterp") for m in models)
