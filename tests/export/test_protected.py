"""Protected parameters are not ScalarVariables of the FMU (Dymola's default, MLS 4.1: a protected
element cannot be accessed from outside the class), unless ``--expose-protected``: the evaluated
ones are folded into the code and get no slot at all, the others keep an internal slot whose value
is still computed at initialisation and still follows the public parameters it depends on.  The
results are the same either way; the 33-element rotor's model description shrinks from 112 000
to 37 000 variables (benchmark: ``python -m wearcosim.bench.scale --rotors``)."""
import math
import textwrap
import xml.etree.ElementTree as ET
import zipfile

import fmpy
import pytest

from wearcosim.cli import main as cli_main
from wearcosim.export.build import build_fmu

MODEL = """
model Shielded "A decay whose rate comes from protected parameters"
  parameter Real k = 2 "Public rate factor";
  parameter Real m[3] = {1, 2, 3} annotation(Evaluate = true);
  output Real y;
  Real x(start = 1, fixed = true);
protected
  parameter Real kk = 2*k "Tunable through k: keeps an internal slot";
  final parameter Real msum = sum(m) annotation(Evaluate = true);
  parameter Real table[2, 2] = [1, 0; 0, 1] annotation(Evaluate = true);
  Real helper "Protected algebraic: stays visible (only parameters are hidden)";
equation
  helper = kk*x;
  der(x) = -helper*table[1, 1]/msum;
  y = x;
end Shielded;
"""


def _names(fmu):
    with zipfile.ZipFile(fmu) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    return {sv.get("name") for sv in root.iter("ScalarVariable")}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    d = tmp_path_factory.mktemp("protected")
    src = d / "Shielded.mo"
    src.write_text(textwrap.dedent(MODEL))
    hidden = build_fmu("Shielded", d, d / "hidden", path=src).fmu
    shown = build_fmu("Shielded", d, d / "shown", path=src, expose_protected=True).fmu
    return hidden, shown


def test_protected_parameters_hidden_by_default(fmus):
    hidden, shown = fmus
    h, s = _names(hidden), _names(shown)
    assert {"kk", "msum", "table[1,1]", "table[2,2]"} <= s
    assert not ({"kk", "msum"} | {n for n in h if n.startswith("table[")}) & h
    assert {"k", "m[1]", "y", "x", "helper"} <= h


@pytest.mark.parametrize("k", [2.0, 0.5])
def test_same_results_and_internal_slot_follows_public_parameter(fmus, k):
    hidden, shown = fmus
    runs = [fmpy.simulate_fmu(str(f), stop_time=1.0, output_interval=0.25, output=["y"], start_values={"k": k},
                              relative_tolerance=1e-8) for f in (hidden, shown)]
    assert list(runs[0]["y"]) == list(runs[1]["y"])
    assert runs[0]["y"][-1] == pytest.approx(math.exp(-2 * k / 6), rel=1e-6)


def test_protected_parameter_cannot_be_set(fmus, tmp_path):
    hidden, _ = fmus
    d = fmpy.extract(str(hidden), unzipdir=str(tmp_path / "x"))
    with pytest.raises(Exception, match="kk"):
        fmpy.simulate_fmu(d, stop_time=0.1, start_values={"kk": 3.0})


def test_cli_option(tmp_path, capsys):
    src = tmp_path / "Shielded.mo"
    src.write_text(textwrap.dedent(MODEL))
    assert cli_main(["build", "--file", str(src), "Shielded", "--out", str(tmp_path / "o"), "--expose-protected"]) == 0
    assert "kk" in _names(tmp_path / "o" / "Shielded.fmu")
