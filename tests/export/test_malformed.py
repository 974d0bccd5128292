"""A corpus of broken Modelica models: every one is rejected with an ExportError that names
the file (and the line where the problem is known), the CLI exits non-zero without a
traceback, and no FMU (nor a temporary file) is left behind."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from wctest import ROOT
from wearcosim.export.errors import ExportError

OK_HEAD = "model M\n  Real x(start = 1, fixed = true);\n"

# name -> (source, expected kind or None, line or None)
CORPUS = {
    "missing_semicolon": ("model M\n  Real x;\nequation\n  der(x) = -x\nend M;\n", "syntax", 5),
    "wrong_end_name": ("model M\n  Real x;\nequation\n  der(x) = -x;\nend N;\n", "syntax", None),
    "missing_end": ("model M\n  Real x;\nequation\n  der(x) = -x;\n", "syntax", None),
    "unbalanced_paren": ("model M\n  Real x;\nequation\n  der(x) = -(x;\nend M;\n", "syntax", 4),
    "bad_token": ("model M\n  Real x;\nequation\n  der(x) = -x $ 2;\nend M;\n", "syntax", 4),
    "unterminated_string": ('model M "doc\n  Real x;\nequation\n  der(x) = -x;\nend M;\n', "syntax", None),
    "missing_then": ("model M\n  Real x;\nequation\n  der(x) = if x > 0 -x else x;\nend M;\n", "syntax", 4),
    "if_without_end": ("model M\n  Real x;\nequation\n  if x > 0 then\n    der(x) = -x;\n  else\n    der(x) = x;\nend M;\n", "syntax", None),
    "double_equals": ("model M\n  Real x;\nequation\n  der(x) == -x;\nend M;\n", "syntax", 4),
    "keyword_as_name": ("model M\n  Real end;\nequation\nend M;\n", "syntax", None),
    "misspelled_section": ("model M\n  Real x;\nequaton\n  der(x) = -x;\nend M;\n", "syntax", None),
    "unknown_variable": (OK_HEAD + "equation\n  der(x) = -k*x;\nend M;\n", "name", 4),
    "unknown_function": (OK_HEAD + "equation\n  der(x) = -foo(x);\nend M;\n", "name", 4),
    "unknown_type": ("model M\n  Lenght x(start = 1, fixed = true);\nequation\n  der(x) = -x;\nend M;\n", "name", 2),
    "unknown_in_binding": ("model M\n  parameter Real a = b;\n" + "  Real x(start = 1, fixed = true);\nequation\n  der(x) = -a*x;\nend M;\n", "name", 2),
    "unknown_in_when": (OK_HEAD + "  discrete Real y(start = 0, fixed = true);\nequation\n  der(x) = -x;\n  when x < 0.5 then\n    y = zz;\n  end when;\nend M;\n", "name", 7),
    "too_few_equations": (OK_HEAD + "  Real y;\nequation\n  der(x) = -x;\nend M;\n", "balance", 3),
    "too_many_equations": (OK_HEAD + "equation\n  der(x) = -x;\n  x = 1;\nend M;\n", "balance", 5),
    "structurally_singular": ("model M\n  Real a;\n  Real b;\nequation\n  a = 1;\n  2*a = 3;\nend M;\n", "balance", 6),
    "bool_arith": (OK_HEAD + "  Boolean b;\nequation\n  b = x > 0;\n  der(x) = -b;\nend M;\n", None, 6),
    "real_condition": (OK_HEAD + "equation\n  der(x) = if x then -x else x;\nend M;\n", None, 4),
    "string_var": (OK_HEAD + '  String s = "a";\nequation\n  der(x) = -x;\nend M;\n', None, None),
    "delay_call": (OK_HEAD + "  Real y;\nequation\n  der(x) = -x;\n  y = delay(x, 0.1);\nend M;\n", "unsupported", 6),
    "sample_negative_interval": (OK_HEAD + "  discrete Real y(start = 0, fixed = true);\nequation\n  der(x) = -x;\n  when sample(0, -0.1) then\n    y = x;\n  end when;\nend M;\n", "unsupported", 6),
    "sample_one_argument": (OK_HEAD + "  discrete Real y(start = 0, fixed = true);\nequation\n  der(x) = -x;\n  when sample(0) then\n    y = x;\n  end when;\nend M;\n", "unsupported", 6),
    "section_keyword_then_unknown_name": (OK_HEAD + "initial equation\n  x = 1;\nequation\n  yq = 2;\n  der(x) = -x;\nend M;\n", "name", 6),
    "external_function": (OK_HEAD + "equation\n  der(x) = -f(x);\nend M;\nfunction f\n  input Real u;\n  output Real y;\nexternal \"C\" y = cf(u);\nend f;\n", None, None),
    "while_data_dependent": (OK_HEAD + "equation\n  der(x) = -g(x);\nend M;\nfunction g\n  input Real u;\n  output Real y;\nalgorithm\n  y := u;\n  while y > 1 loop\n    y := y/2;\n  end while;\nend g;\n", None, None),
    "der_of_integer": ("model M\n  Integer k(start = 1);\nequation\n  der(k) = 1;\nend M;\n", "type", 4),
    "der_of_parameter_expr": ("model M\n  parameter Real p = 1;\n  Real y;\nequation\n  y = der(p*time*time) + 0*y;\nend M;\n", "unsupported", 5),
    "der_of_parameter": ("model M\n  parameter Real p = 1;\nequation\n  der(p) = -p;\nend M;\n", "structure", 4),
    "der_of_parameter_balanced": (OK_HEAD + "  parameter Real p = 1;\nequation\n  der(x) = -der(p)*x;\nend M;\n", "structure", 5),
    "reinit_non_state": (OK_HEAD + "  Real y;\nequation\n  der(x) = -x;\n  y = 2*x;\n  when x < 0.5 then\n    reinit(y, 1);\n  end when;\nend M;\n", "structure", 8),
    "size_mismatch": ("model M\n  Real x[2](each start = 1, each fixed = true);\nequation\n  der(x) = {1, 2, 3};\nend M;\n", "type", 4),
    "subscript_out_of_range": ("model M\n  Real x[2](each start = 1, each fixed = true);\n  Real y;\nequation\n  der(x) = -x;\n  y = x[3];\nend M;\n", None, 6),
    "cyclic_parameters": ("model M\n  parameter Real a = b + 1;\n  parameter Real b = a + 1;\n" + "  Real x(start = 1, fixed = true);\nequation\n  der(x) = -a*x;\nend M;\n", "structure", 2),
    "initial_equation_without_unknown": ("model M\n  Real x;\n  Real z(start = 1, fixed = true);\ninitial equation\n  z^3 = 3;\nequation\n  der(x) = -x;\n  der(z) = -z;\nend M;\n", "balance", 5),
    "empty_file": ("// nothing here yet\n", "syntax", 1),
    "function_output_unassigned": (OK_HEAD + "equation\n  der(x) = -f(x);\nend M;\nfunction f\n  input Real u;\n  output Real y;\nprotected\n  Real r;\nalgorithm\n  r := u;\nend f;\n", "structure", 8),
    "partial_model": ("partial model M\n  Real x;\nequation\n  der(x) = -x;\nend M;\n", "structure", 1),
}


def _write(tmp_path, name, src):
    d = tmp_path / name
    d.mkdir()
    p = d / "M.mo"
    p.write_text(textwrap.dedent(src))
    return p


def test_corpus_size():
    assert len(CORPUS) >= 30


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_broken_model_is_rejected_with_location(name, tmp_path):
    from wearcosim.export.build import build_fmu
    src, kind, line = CORPUS[name]
    p = _write(tmp_path, name, src)
    out = tmp_path / "out"
    with pytest.raises(ExportError) as ei:
        build_fmu("M", p.parent, out, path=p)
    e = ei.value
    assert e.loc is not None and Path(e.loc.file).name == "M.mo", (name, str(e))
    assert "\n" not in str(e), (name, str(e))     # one line: the CLI prints `error: <message>`
    if kind:
        assert e.kind == kind, (name, e.kind, str(e))
    if line:
        assert e.loc.line == line, (name, str(e))
    assert not out.exists() or list(out.iterdir()) == []


@pytest.mark.parametrize("name", ["missing_semicolon", "unknown_variable", "external_function", "too_few_equations"])
def test_cli_exit_code_and_no_traceback(name, tmp_path):
    src, _, _ = CORPUS[name]
    p = _write(tmp_path, name, src)
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "wearcosim.cli", "build", "--file", str(p), "M", "--out", str(out)],
                       capture_output=True, text=True, timeout=120,
                       env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"})
    assert r.returncode != 0
    assert "M.mo" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not out.exists() or list(out.iterdir()) == []
