"""Constructs of valid Modelica that rumoca 0.10.2's DAE stage (ToDae) refuses, met in the MSL
(issue 38).  The front end compiles such a model once more from a view of its sources in which the
functions and bindings it uses are written in equivalent forms rumoca accepts
(frontend._rewrites; the files themselves are never changed).  Each fixture of
fixtures/rumoca_refused is written from the Modelica specification; the values of its functions
are compared with the same functions written independently in Python."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from wearcosim.export import frontend, symbolic
from wearcosim.export.errors import ExportError

HERE = Path(__file__).parent / "fixtures" / "rumoca_refused"
MSL38 = Path(__file__).parent / "fixtures" / "msl38"


def _path(name):
    return HERE / f"{name}.mo" if (HERE / f"{name}.mo").exists() else MSL38 / f"{name}.mo"


def _load(name, model=None):
    return frontend.load(_path(name), model or name)


def _call(m, fn, *args):
    ev = symbolic.Evaluator(m, resolve=lambda n, loc: None, numeric=True)
    args = [np.array(a, dtype=object) if isinstance(a, (list, tuple)) else a for a in args]
    out = ev.inline(m.functions[fn], args)
    return out[0] if len(out) == 1 else tuple(out)


def _refused_before(name, model=None):
    """rumoca itself refuses the fixture as it is (the reproduction still reproduces)."""
    import rumoca
    p = _path(name)
    with pytest.raises(rumoca.RumocaError) as info:
        rumoca.Session(roots=[]).loads(p.read_text(), model=model or name, filename=f"/nonexistent/{p.name}")
    return str(info.value)


# --------------------------------------------------------------------------- return/break in loops
def _first_true(b):
    return next((i + 1 for i, x in enumerate(b) if x), 0)


def _pair_sum(a, t):
    code = -1
    for i in range(1, len(a) + 1):
        for j in range(i + 1, len(a) + 1):
            if a[i - 1] + a[j - 1] > t:
                return 100*i + j
            code -= 1
        code -= 1000
    return code*2


def _sum_until(a, t):
    s, n = 0.0, 0
    for x in a:
        s += x
        n += 1
        if x > t:
            break
        s += 0.5
    return s*10, n


def test_return_and_break_inside_loops_are_brought_in():
    """MLS 11.2.4/11.2.8 (MSL's BooleanVectors.firstTrueIndex: RealNetwork1, BooleanNetwork1,
    IntegerNetwork1): a return one and two loops deep with statements after it on every level,
    a break with a statement after it in the loop; every Boolean vector of length 0 to 4, and
    tables against thresholds between and beyond their sums."""
    assert "nested return" in _refused_before("EarlyExit")
    m = _load("EarlyExit")
    for n in range(5):
        for b in itertools.product([False, True], repeat=n):
            assert _call(m, "firstTrue", list(b)) == _first_true(b), b
    rng = np.random.default_rng(38)
    for _ in range(40):
        a = list(rng.integers(-3, 6, size=int(rng.integers(1, 6))).astype(float))
        for t in (-10.0, 0.5, 2.5, 4.5, 100.0):
            assert _call(m, "pairSum", a, t) == _pair_sum(a, t), (a, t)
            s, n = _call(m, "sumUntil", a, t)
            assert (s, n) == pytest.approx(_sum_until(a, t)), (a, t)


def test_the_flags_of_the_rewrite_keep_the_lines_of_the_statements():
    """The rewritten view keeps the file's line count; the statements keep their lines (an error
    or a span of the rewritten function points at the original's line)."""
    m = _load("EarlyExit")
    text = (HERE / "EarlyExit.mo").read_text().splitlines()
    lines = {}

    def walk(body):
        for s in body:
            if getattr(s, "loc", None) and s.loc.line:
                lines.setdefault(s.loc.line, s)
            for sub in ("body", "other"):
                walk(getattr(s, sub, ()) or ())
            for _, b in getattr(s, "blocks", ()) or ():
                walk(b)
    walk(m.functions["pairSum"].body)
    assert "code := 100*i + j;" in text[lines[max(k for k in lines if "100*i" in text[k - 1])] .loc.line - 1]
    for line, s in lines.items():
        assert Path(s.loc.file).name == "EarlyExit.mo"


def test_the_rewritten_first_true_index_follows_time_in_an_fmu(tmp_path):
    """k = firstTrue({time > 0.7, time > 0.3, time > 0.5}): 0, then 2 from 0.3 on, then 1 from 0.7
    (the flags are time-varying: the evaluator's if-then-else of both branches)."""
    from fmpy import simulate_fmu
    from wctest import unzipped
    from wearcosim.export.build import build_fmu
    fmu = build_fmu("EarlyExit", path=HERE / "EarlyExit.mo", out_dir=tmp_path).fmu
    with unzipped(fmu) as d:
        r = simulate_fmu(d, stop_time=1.0, output_interval=0.05, output=["k", "p1", "p2", "s1", "s2"])
    for t, k in zip(r["time"], r["k"]):
        if abs(t - 0.3) > 0.03 and abs(t - 0.7) > 0.03:
            assert k == _first_true([t > 0.7, t > 0.3, t > 0.5]), t
    a = [1.0, 3.0, 2.0, 5.0]
    assert r["p1"][-1] == _pair_sum(a, 4.5) and r["p2"][-1] == _pair_sum(a, 100)
    assert r["s1"][-1] == pytest.approx(_sum_until(a, 2.5)[0]) and r["s2"][-1] == pytest.approx(_sum_until(a, 10)[0])


# --------------------------------------------------------------------------- while inside if
def _interp(x, y, xi, i_last=1):
    nx = len(x)
    if nx == 1:
        return y[0], 1
    i = min(max(i_last, 1), nx - 1)
    if xi >= x[i - 1]:
        while i < nx and xi >= x[i - 1]:
            i += 1
        i -= 1
    x1, x2 = x[i - 1], x[i]
    return y[i - 1] + (y[i] - y[i - 1])*(xi - x1)/(x2 - x1), i


def test_a_while_loop_inside_an_if_statement_is_brought_in():
    """MLS 11.2.5 (MSL's Math.Vectors.interpolate: CoupledClutches, Friction, OneWayClutch, ...):
    the parameters bound to it (a function of two outputs, see below) and its values on a one-row
    and a three-row table against the same search written in Python."""
    assert "missing function value definition" in _refused_before("SearchInIf")
    m = _load("SearchInIf")
    x, y = [0.0, 1.0, 2.0], [1.0, 3.0, 4.0]
    for xi in (-1.0, 0.0, 0.25, 0.999, 1.0, 1.5, 2.0, 3.5):
        for i_last in (1, 2, 5):
            assert _call(m, "interp", x, y, xi, i_last) == pytest.approx(_interp(x, y, xi, i_last)), (xi, i_last)
        assert _call(m, "interp", [0.0], [0.5], xi)[0] == 0.5
    assert m.functions["interp_wearcosim_first"].outputs[0].name == "yi"
    assert _call(m, "interp_wearcosim_first", x, y, 1.5) == pytest.approx(3.5)


# --------------------------------------------------------------------------- a parameter bound to a tuple
def test_a_parameter_bound_to_a_function_of_two_outputs_is_brought_in():
    """MLS 12.4.3 (MSL's Rotational.Components.LossyGear: eta_mf1_0 = Vectors.interpolate(...):
    LossyGearDemo1-3, HeatLosses): the binding calls a one-output wrapper of the function's first
    output, written beside it; the parameter's value is the first output's."""
    assert "cannot be evaluated" in _refused_before("TupleParam")
    m = _load("TupleParam")
    b = m.variables["eta"].binding
    assert b.name == "TupleParam.lookup_wearcosim_first" or b.name.endswith("lookup_wearcosim_first"), b
    assert _call(m, b.name, [0.0, 1.0], [0.5, 0.7]) == 0.5
    assert _call(m, "lookup", [0.0, 1.0], [0.5, 0.7]) == (0.5, 1)


# --------------------------------------------------------------------------- what stays refused
def test_a_while_loop_counting_down_stays_refused_and_is_named_at_its_line():
    """rumoca 0.10.2 accepts a while-loop only when it counts a variable up by one to a bound
    (measured: 'i := i - 1', 'i := i + (-1)' and a bound that is not structural are all refused);
    no rewrite makes a count-down loop one in general, so the model is refused, at the loop."""
    assert "without a checked DAE owner" in _refused_before("CountDown")
    with pytest.raises(ExportError) as info:
        _load("CountDown")
    err = info.value
    assert (Path(err.loc.file).name, err.loc.line, err.loc.col) == ("CountDown.mo", 14, 5), str(err)
    assert err.message.startswith("while-loop in function 'lastBelow'") and err.kind == "unsupported", str(err)
    assert "counting a variable up by one to a bound" in err.message


def test_an_array_sized_by_a_function_of_parameters_stays_refused_and_is_named_at_its_line():
    """MSL's RealFFT (Blocks Rectifier6pulseFFT, Rectifier12pulseFFT): buf[ns] with ns computed
    by a function; rumoca 0.10.2 does not evaluate the dimension and refuses the model in its
    type check, before any flat model exists to rewrite.  Named at the declaration."""
    assert "unevaluable array dimensions" in _refused_before("FunctionDimension")
    with pytest.raises(ExportError) as info:
        _load("FunctionDimension")
    err = info.value
    assert (Path(err.loc.file).name, err.loc.line) == ("FunctionDimension.mo", 10), str(err)
    assert "unevaluable array dimensions for 'buf'" in err.message


# --------------------------------------------------------------------------- class-local functions of one name
def test_class_local_functions_of_one_name_are_brought_in_renamed():
    """MSL's protected 'position' of Rotational.Sources.Move and AngleToTorqueAdaptor's Move_w
    (Rotational GenerationOfFMUs: 'function shape proof: q_qd: axis 1 requires extent 2 but the
    call site proves 3'): rumoca keys class-local functions by their short name; the second is
    renamed in the view, with its uses in its class, and each model calls its own."""
    m = frontend.load(MSL38 / "SameName.mo", "SameName.Both")
    assert set(m.functions) == {"position", "position_wearcosim_2"}
    assert _call(m, "position", [3.0, 4.0]) == 3.0
    assert _call(m, "position_wearcosim_2", [5.0, 6.0, 7.0]) == 5.0
    calls = {eq.residual.a.name: eq.residual.b.name for eq in m.equations
             if getattr(eq.residual.b, "builtin", True) is False}
    assert calls == {"a.y": "position", "b.y": "position_wearcosim_2"}, calls


# --------------------------------------------------------------------------- extends of a nested class
def test_a_model_extending_its_own_encapsulated_nested_class_is_brought_in():
    """MSL's Translational.Components.MassWithStopAndFriction extends its encapsulated
    PartialFrictionWithStop (Translational Friction, HeatLosses; rumoca's resolver: 'reference to
    non-constant variable ... from a lexically nested class'): the class is moved beside its owner
    in the view (an encapsulated class means the same anywhere, MLS 5.3.2) and the modifier of the
    extends still applies: s starts at 1, der(s) = 1 until the limit."""
    m = frontend.load(MSL38 / "NestedBase.mo", "NestedBase")
    assert set(m.variables) == {"s", "limited", "k"}
    assert m.variables["s"].start is not None and float(m.variables["s"].start.value) == 1.0
    assert m.variables["k"].binding.value == 2
    assert len(m.equations) == 2
