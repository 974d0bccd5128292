"""Issue 32, errors at the right file and line: rumoca 0.10.2 refuses some broken models in its
ToDae stage with ``expression shape mismatch`` and no place, and the exporter printed the line
of ``model X`` (found by the mutation fuzzer: wrong-dimension and type-error mutants).

Each model of ``fixtures/lines32`` is a small broken model as a user would write it; the
command line must print exactly one line ``error: <File>.mo:<line>[:col]: ...`` at the
offending declaration or equation, exit with status 1, write no FMU and print no traceback.
Every one of them was reported at the class line (or, in a package, at the model's head) on
6afe800.  The search behind it (``frontend._diagnose_spanless``) serves rumoca's other ToDae
refusals without a place as well (``expression type mismatch``, ``unsupported Flat semantic
owner``).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wctest import FIXTURES, ROOT
from wearcosim.export import frontend

LINES32 = FIXTURES / "lines32"


def _cli_error(path: Path, model: str, tmp_path: Path) -> tuple:
    """``wearcosim build --file path model``: (file name, line, message) of its one error line."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "out"
    env = {"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin:/usr/local/bin", "TMPDIR": str(tmp)}
    p = subprocess.run([sys.executable, "-m", "wearcosim.cli", "build", "--file", str(path), model,
                        "--out", str(out)], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr + p.stdout, p.stderr
    errs = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert len(errs) == 1 and p.stderr.count("\n") == 1, p.stderr
    m = re.match(r"error: (\S+\.mo):(\d+)(?::(\d+))?: ", errs[0])
    assert m, errs[0]
    assert not out.exists() or not any(out.rglob("*.fmu")), list(out.rglob("*"))
    left = [f for f in tmp.iterdir() if f.name.startswith("wearcosim-")]
    assert left == [], left                                      # no temporary copy left behind
    return Path(m.group(1)).name, int(m.group(2)), errs[0]


@pytest.mark.parametrize("model, line, words", [
    # T[N](start = fill(300.0, N - 1)): the declaration, naming the start modifier
    ("RodStartShort", 5, ["'start = fill(300.0, N - 1)'", "'T'", "T[N]"]),
    # count = pre(count) + 0.5 in a when-clause, count an Integer
    ("CounterHalfStep", 8, ["'count' is an Integer", "'pre(count) + 0.5'"]),
    # parameter Real k[3] = {1.0, 2.0} "gains": the binding, without its description
    ("GainsTooFew", 2, ["binding '{1.0, 2.0}'", "'k'", "k[3]"]),
    # target[1:2] = {0.1, 0.2, 0.3}
    ("SliceSizes", 6, ["target[1:2] = {0.1, 0.2, 0.3}"]),
    # reinit(v, {..., 0.0}) of a 3-vector
    ("ReinitSize", 10, ["reinit(v, {-e*pre(v[1]), 0.0})"]),
    # gear = pre(gear) + 0.5 in a when/elsewhen chain: removing the equation is an error of its
    # own (the branches must assign the same variables), gear = pre(gear) instead compiles; the
    # function's statements are not it (removing r := 1.0 leaves another refusal)
    ("GearSelector", 18, ["'gear' is an Integer", "'pre(gear) + 0.5'"]),
])
def test_shape_mismatch_is_reported_at_its_statement(model, line, words, tmp_path):
    name, got, err = _cli_error(LINES32 / f"{model}.mo", model, tmp_path)
    assert (name, got) == (f"{model}.mo", line), err
    assert "type error" in err and "shape mismatch" in err, err
    for w in words:
        assert w in err, (w, err)


@pytest.mark.parametrize("model, line, words", [
    # Q = if on then ... with on a Boolean[2]: 'expression type mismatch: expected Boolean, found Boolean'
    ("HeaterVectorCondition", 9, ["type error", "Q = if on then 2*P else 0.0", "expression type mismatch"]),
    # sum over 1:n with n = 0 (valid Modelica, refused by rumoca): 'unsupported Flat semantic owner'
    ("BusNoLoads", 7, ["unsupported error", "total = sum(P[i] for i in 1:n)", "empty array"]),
])
def test_other_refusals_without_a_place_are_reported_at_their_statement(model, line, words, tmp_path):
    """rumoca's other ToDae refusals without a span go through the same search, with rumoca's
    own words and the statement."""
    name, got, err = _cli_error(LINES32 / f"{model}.mo", model, tmp_path)
    assert (name, got) == (f"{model}.mo", line), err
    for w in words:
        assert w in err, (w, err)


def test_two_mismatches_at_once_are_reported_at_one_of_them(tmp_path):
    """z[3](start = {0.1, 0.3}) and der(z) = transpose(A)*z with A 2x2: no single statement's
    removal lets the model compile; the search removes them one after the other and reports one
    of the two -- not der(v) = -9.81, whose removal only trades the refusal for another (the
    reinit of v, no longer a state; that one was reported by 8ebbdd2)."""
    name, line, err = _cli_error(LINES32 / "BallAndRotor.mo", "BallAndRotor", tmp_path)
    assert name == "BallAndRotor.mo" and line in (5, 12), err
    assert "der(z) = transpose(A)*z" in err or "'start = {0.1, 0.3}'" in err, err


def test_unbalanced_model_with_a_start_vector_too_short_is_reported_at_the_declaration(tmp_path):
    """x[N + 1](start = fill(0.1, N)) and equations for x[1:N]: rumoca says 'unbalanced' (no
    place); the balance check of the partial class then meets the start vector's shape mismatch
    (no place either), which is the first thing to fix: the declaration's line."""
    name, line, err = _cli_error(LINES32 / "ChainOneMore.mo", "ChainOneMore", tmp_path)
    assert (name, line) == ("ChainOneMore.mo", 5), err
    assert "'start = fill(0.1, N)'" in err and "x[N + 1]" in err, err


@pytest.mark.parametrize("model, file, line", [
    ("Cooling32.Plate", "Plate.mo", 5),           # the model's own declaration
    ("Cooling32.Stack", "Layer.mo", 5),           # the declaration in the component's file
])
def test_shape_mismatch_in_a_package_is_reported_in_its_file(model, file, line, tmp_path):
    """In a package the statement is looked for in a temporary copy made of links (the package's
    files are never written), the model's file first, then the files of the classes it uses."""
    pkg = LINES32 / "Cooling32"
    before = {f.name: f.read_bytes() for f in pkg.iterdir()}
    name, got, err = _cli_error(pkg / f"{model.split('.')[-1]}.mo", model, tmp_path)
    assert (name, got) == (file, line), err
    assert "shape of T[" in err, err
    assert {f.name: f.read_bytes() for f in pkg.iterdir()} == before


def test_statements_of_a_model_text():
    """The splitter behind the search: declarations keep their section, the heads of when/for/if
    and the class's keywords are not statements, comments and strings do not split."""
    text = ('model M "a; b"\n  Real x[2](start = {1, 2}); // c; d\n  Integer n;\nequation\n'
            '  for i in 1:2 loop\n    der(x[i]) = -x[i];\n  end for;\n'
            '  when x[1] < 0.5 then\n    n = pre(n) + 1;\n  elsewhen x[2] < 0.1 then\n    n = 0;\n  end when;\n'
            '  if n > 2 then\n    assert(false, "x;");\n  else\n    assert(true, "y");\n  end if;\nend M;\n')
    got = [(st.decl, text[st.start:st.end]) for st in frontend._statements(text)]
    assert got == [(True, "Real x[2](start = {1, 2})"), (True, "Integer n"), (False, "der(x[i]) = -x[i]"),
                   (False, "n = pre(n) + 1"), (False, "n = 0"), (False, 'assert(false, "x;")'),
                   (False, 'assert(true, "y")')], got

