"""Issue 32, the front end's part: for-equations, errors rumoca gives no place for, and errors
located in the right file of a package.

Each model was written from the Modelica specification for these tests and is checked against
an oracle of its own: a closed form, or the same equations written out in NumPy and integrated
by SciPy.  Every one of them failed on the main of 2026-12-05 (ba24798): rumoca 0.10.2 lists the
points of a for-equation of more than two points as placeholders ``der(x[i]) = 0`` for i >= 3,
which the front end took as the equations; an index past the end of a vector in such a loop
was built silently; ToDae refusals had no line; an error in the second of two files laid out
alike was reported in the first.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from wctest import FIXTURES, fixture_path, unzipped
from wearcosim.export.build import build_fmu
from wearcosim.export.errors import ExportError


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("issue32-forloops")
    return {m: build_fmu(m, path=fixture_path(m), out_dir=out) and out / f"{m}.fmu"
            for m in ("OscChain", "ForIndices")}


def _final(fmu, names, fmi_type, stop=1.0):
    from fmpy import simulate_fmu
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=stop, output=names, fmi_type=fmi_type,
                         relative_tolerance=1e-10, output_interval=stop / 50)
    return np.array([r[n][-1] for n in names])


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_chain_of_twenty_oscillators_matches_the_closed_form(built, fmi_type):
    """x_i(t) = a sin(i pi/(N+1)) cos(sqrt(k) t): every oscillator moves (before: x[i] and v[i]
    of i >= 3 stayed at their start values, their derivatives being the literal 0)."""
    n, a, k, t = 20, 0.1, 4.0, 1.0
    names = [f"x[{i}]" for i in range(1, n + 1)] + [f"v[{i}]" for i in range(1, n + 1)]
    got = _final(built["OscChain"], names, fmi_type)
    shape = np.array([a * math.sin(i * math.pi / (n + 1)) for i in range(1, n + 1)])
    want = np.concatenate([shape * math.cos(math.sqrt(k) * t), -shape * math.sqrt(k) * math.sin(math.sqrt(k) * t)])
    tol = 1e-6 if fmi_type == "CoSimulation" else 2e-4      # ME: FMPy's own CVode settings
    np.testing.assert_allclose(got, want, atol=tol * a)


def _for_indices_rhs(t, y, n=12):
    """ForIndices.mo's equations written out by hand (not through the exporter)."""
    x, v, r, s = y[:n], y[n:2 * n], y[2 * n:3 * n], y[3 * n:]
    dx = v.copy()
    dv = np.empty(n)
    dv[0] = -2 * x[0] + x[1]
    dv[1:-1] = x[:-2] - 2 * x[1:-1] + x[2:]
    dv[-1] = x[-2] - 2 * x[-1]
    w = np.array([s[(i - 1) // 2] for i in range(1, n + 1)])
    dr = np.array([r[n - i] - r[i - 1] + (-r[i - 1] if i > n / 2 else 0.0) for i in range(1, n + 1)])
    ds = np.empty(n)
    for i in range(1, n, 2):
        ds[i - 1] = -i * s[i - 1] / n
        ds[i] = -math.sin(i) * w[i]
    return np.concatenate([dx, dv, dr, ds])


@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_computed_indices_match_the_equations_written_out(built, fmi_type):
    n, a = 12, 0.3
    y0 = np.concatenate([[a * math.sin(i * math.pi / (n + 1)) for i in range(1, n + 1)], np.zeros(n),
                         [i / n for i in range(1, n + 1)], np.ones(n)])
    ref = solve_ivp(_for_indices_rhs, (0, 1), y0, method="DOP853", rtol=1e-12, atol=1e-12).y[:, -1]
    names = [f"{v}[{i}]" for v in "xrs" for i in range(1, n + 1)]
    want = np.concatenate([ref[:n], ref[2 * n:3 * n], ref[3 * n:]])
    got = _final(built["ForIndices"], names, fmi_type)
    tol = 1e-7 if fmi_type == "CoSimulation" else 1e-4
    np.testing.assert_allclose(got, want, atol=tol)


def _error(model, tmp_path, path=None) -> ExportError:
    out = tmp_path / "out"
    with pytest.raises(ExportError) as ei:
        build_fmu(model, path=path or fixture_path(model), out_dir=out)
    assert not out.exists() or list(out.iterdir()) == []
    e = ei.value
    assert "\n" not in str(e)
    assert e.loc is not None and e.loc.line and e.loc.line > 0, str(e)
    return e


def test_index_past_the_end_in_a_for_equation_is_a_build_error_at_its_line(tmp_path):
    """x[i + 1] for i = N: before, the model built and read a wrong element."""
    e = _error("ForShift", tmp_path)
    assert Path(e.loc.file).name == "ForShift.mo" and e.loc.line == 6, str(e)
    assert "subscript 4 out of range 1..3" in e.message


def test_while_loop_in_a_function_is_refused_at_the_loop(tmp_path):
    e = _error("WhileHalve", tmp_path)
    assert (e.loc.line, e.loc.col) == (11, 5), str(e)
    assert e.kind == "unsupported" and "while-loop in function" in e.message and "halvings" in e.message


def test_mod_subscript_in_a_for_equation_is_refused_at_the_subscript(tmp_path):
    e = _error("ModRing", tmp_path)
    assert e.loc.line == 6 and "mod()" in e.message, str(e)


def test_error_in_the_second_of_two_files_laid_out_alike_names_that_file(tmp_path):
    """Twins/A.mo and Twins/B.mo have the same bytes up to B's unsupported delay(): the error
    is B.mo's (it was reported in A.mo, the first file whose bytes fitted rumoca's span)."""
    pkg = FIXTURES / "twins" / "Twins"
    e = _error("Twins.Top", tmp_path, path=pkg / "Top.mo")
    assert Path(e.loc.file).name == "B.mo" and e.loc.line == 7, str(e)


def test_rumoca_refusal_without_a_place_is_located_at_the_class(tmp_path):
    """The last resort: a rumoca error with no place and no known construct names the line of
    the model's class, never line 0."""
    from wearcosim.export import frontend
    f = tmp_path / "Lone.mo"
    f.write_text("// a comment\nmodel Lone\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\nend Lone;\n")
    src = frontend.sources(f)

    class Refusal(Exception):
        pass
    e = frontend._translate_rumoca_error(Refusal("todae failed: Lone failed in ToDae: something new"),
                                         src, "Lone", f.read_text())
    assert e.loc.line == 2 and Path(e.loc.file) == f, str(e)


def test_when_equation_on_an_array_element_is_refused_at_its_line(tmp_path):
    e = _error("WhenElement", tmp_path)
    assert (e.loc.line, e.loc.col) == (7, 5), str(e)
    assert "cnt[1]" in e.message and "scalar discrete" in e.message


def test_reduction_over_a_loop_dependent_range_is_refused_at_its_line(tmp_path):
    """sum(x[j] for j in 1:i) in a for-equation: rumoca refuses it; the error is at line 6 (it
    was at the class's line 1, with rumoca's wording about 'shape proofs')."""
    e = _error("PrefixSum", tmp_path)
    assert e.loc.line == 6 and "reduction" in e.message, str(e)


def test_package_walk_from_dot_ends(tmp_path, monkeypatch):
    """'build --package .' inside a package folder: the walk up to the top package stopped only
    where a parent had no package.mo, and the parent of '.' is '.' (it hung at 100 % CPU)."""
    from wearcosim.export import frontend
    top = tmp_path / "Outer"
    (top / "Inner").mkdir(parents=True)
    (top / "package.mo").write_text("package Outer\nend Outer;\n")
    (top / "Inner" / "package.mo").write_text("within Outer;\npackage Inner\nend Inner;\n")
    (top / "Inner" / "M.mo").write_text("within Outer.Inner;\nmodel M\nend M;\n")
    monkeypatch.chdir(top / "Inner")
    files, root = frontend._package_files(Path("M.mo"))
    assert Path(root).resolve() == top.resolve()
    assert len(files) == 3


def test_call_with_a_wrong_number_of_arguments_is_located_at_the_call(tmp_path):
    """rumoca's Flatten says '2 positional argument(s) for 1 input slot(s)' with no place (found
    by the mutation fuzzer: the error was at the class's line)."""
    e = _error("ArgCount", tmp_path)
    assert e.loc.line == 10 and "twice" in e.message and "input slot" in e.message, str(e)
