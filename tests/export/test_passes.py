"""Middle-end passes on tiny fixtures: scalarisation, balance, BLT, block solving, events,
functions.  Results are checked numerically by evaluating the generated CasADi functions."""
import math

import casadi as ca
import numpy as np
import pytest

from wctest import fixture_path
from wearcosim.export import causalize, codegen, dae, frontend
from wearcosim.export.errors import ExportError
from wearcosim.export.events import HYSTERESIS


def compile_fixture(name):
    m = frontend.load(fixture_path(name), name)
    d = dae.build(m)
    c = causalize.causalize(d)
    g = codegen.build_functions(c)
    return d, c, g


def start_vector(g):
    v = np.zeros(g.layout.NV)
    for k, s in enumerate(g.layout.slots):
        n = codegen.to_num(s.start) if s.start is not None else None
        if n is not None:
            v[k] = float(n)
    return v


def slot(g, name):
    return next(k for k, s in enumerate(g.layout.slots) if s.name == name)


def evaluate(g, v, t=0.0):
    """Run params -> eval like the runtime does (no Newton: fixtures without loops)."""
    L = g.layout
    v = v.copy()
    if L.n["P_CALC"]:
        o = L.off["P"] + L.n["P_INDEP"]
        v[o:o + L.n["P_CALC"]] = np.array(g.functions["params"](v, t, 0)).ravel()
    out = np.array(g.functions["eval"](v, t, 0)).ravel()
    nx, ny = L.n["X"], L.n["Y"]
    v[L.off["DX"]:L.off["DX"] + nx] = out[:nx]
    v[L.off["Y"]:L.off["Y"] + ny] = out[nx:nx + ny]
    return v


def test_scalarisation_and_structural_parameters():
    d, c, g = compile_fixture("Simple")
    kinds = {n: s.kind for n, s in d.scalars.items()}
    assert kinds["n"] == "const"            # Integer parameter: structural
    assert kinds["k"] == "param" and kinds["k2"] == "calc"
    assert [kinds[f"y[{i}]"] for i in (1, 2, 3)] == ["alg"] * 3
    v = evaluate(g, start_vector(g))
    x, k = 1.0, 2.0
    assert v[slot(g, "der(x)")] == pytest.approx(-k * x)
    assert v[slot(g, "s")] == pytest.approx((1 + 2 + 3) * x + 2 * k)
    # min attribute reaches the variable table
    assert g.layout.slots[slot(g, "k")].min == 0


def test_balance_check_names_the_offending_variables():
    with pytest.raises(ExportError) as ei:
        compile_fixture("Singular")
    msg = str(ei.value)
    assert ei.value.kind == "balance"
    assert "variables without an equation: b" in msg
    assert "2*a" in msg.replace(".", "").replace("(", "").replace(")", "") or "2.*a" in msg
    assert ei.value.loc.line == 6


def test_blt_order_and_block_kinds():
    d, c, g = compile_fixture("Blt")
    order = [b.vars for b in c.blocks]
    pos = {v: i for i, b in enumerate(order) for v in b}
    assert pos["a"] < pos["b"] < pos["c"] < pos["der(x)"]
    kinds = {tuple(sorted(b.vars)): b.kind for b in c.blocks}
    assert kinds[("p", "q")] == "linear"
    assert kinds[("r", "s")] == "nonlinear"
    assert kinds[("a",)] == "explicit"
    # linear block solved symbolically: p + 2q = x, 3p - q = 1 at x = 1 -> p = 3/7, q = 2/7
    L = g.layout
    v = start_vector(g)
    # Newton unknowns r, s: supply the exact solution, residuals must vanish there
    w0 = L.off["W"]
    # s = r/2, r + r^3/8 = 3 -> solve numerically
    r = float(np.real([z for z in np.roots([1 / 8, 0, 1, -3]) if abs(z.imag) < 1e-12][0]))
    names = [s.name for s in L.slots[w0:w0 + L.n["W"]]]
    v[w0 + names.index("$w.r")] = r
    v[w0 + names.index("$w.s")] = r / 2
    res = np.array(g.functions["nlres"](v, 0, 0)).ravel()
    assert np.max(np.abs(res)) < 1e-12
    J = np.array(g.functions["nljac"](v, 0, 0))
    assert J.shape == (2, 2) and abs(np.linalg.det(J)) > 0.1
    out = evaluate(g, v)
    assert out[slot(g, "p")] == pytest.approx(3 / 7)
    assert out[slot(g, "q")] == pytest.approx(2 / 7)
    assert out[slot(g, "der(x)")] == pytest.approx(-2 * (3 * 1 + 1))
    assert not g.has_jac  # nonlinear loop -> runtime differences the Jacobian


def test_event_extraction_and_hysteresis():
    d, c, g = compile_fixture("Events")
    rels = d.events.relations
    # x > 0.5 (if), x < 0 (Boolean b), x < 0.1 (when); noEvent and parameter-only excluded
    assert len(rels) == 3
    L = g.layout
    assert L.n["M"] == 3 and L.n["C"] == 1
    v = start_vector(g)
    v[slot(g, "x")] = 0.7
    zc = g.functions["zc"]
    # memories all false: z = g - h
    z = np.array(zc(v, 0, 0)).ravel()
    gx = {0: 0.7 - 0.5, 1: -0.7, 2: 0.1 - 0.7}
    for k in range(3):
        h = HYSTERESIS * (1 + abs(float(rels[k].scale)))
        assert z[k] == pytest.approx(gx[k] - h, abs=1e-15)
    # relation values from the continuous state
    m = np.array(g.functions["rel"](v, 0, 0)).ravel()
    assert list(m) == [1.0, 0.0, 0.0]
    # with memory true, the indicator is shifted the other way (hysteresis)
    v[L.off["M"]] = 1.0
    z = np.array(zc(v, 0, 0)).ravel()
    assert z[0] == pytest.approx(0.2 + HYSTERESIS * 1.5, abs=1e-15)
    # the if-expression uses the frozen memory, not the current value
    v[slot(g, "x")] = 0.4          # relation x > 0.5 is now false, memory still says true
    out = evaluate(g, v)
    assert out[slot(g, "y")] == 1.0
    assert out[slot(g, "z")] == 1.0   # noEvent: evaluated directly (0.4 > 0.25)
    assert out[slot(g, "w")] == 3.0   # parameter relation p > 0.5


def test_when_clause_fires_on_rising_edge_only():
    d, c, g = compile_fixture("Events")
    L = g.layout
    v = start_vector(g)
    k_slot = slot(g, "k")
    c0 = L.off["C"]
    fire = g.functions["fire"]
    nd = L.n["D"] - L.n["DALG"]
    # condition true, pre false -> fires: k = pre(k) + 1
    v[c0] = 1.0
    v[L.off["CPRE"]] = 0.0
    v[L.off["DPRE"] + (k_slot - L.off["D"])] = 4.0
    out = np.array(fire(v, 0, 0)).ravel()
    kk = [s.name for s in L.slots[L.off["D"] + L.n["DALG"]:L.off["D"] + L.n["D"]]].index("k")
    assert out[kk] == 5.0
    # condition true but already true before -> no firing, k keeps its value
    v[L.off["CPRE"]] = 1.0
    v[k_slot] = 7.0
    out = np.array(fire(v, 0, 0)).ravel()
    assert out[kk] == 7.0


def test_user_functions_inlined():
    d, c, g = compile_fixture("Functions")
    v = evaluate(g, start_vector(g))
    x = 0.5
    # pick: s*n = 2 -> i = 3 -> h[3] = 0.3
    assert v[slot(g, "der(x)")] == pytest.approx(-x + 0.3)
    assert v[slot(g, "a")] == pytest.approx(math.cos(x))
    assert v[slot(g, "th")] == pytest.approx(math.atan2(2 * math.sin(x), math.cos(x)))
    # no events from relations inside functions
    assert not d.events.relations
    # generated Jacobian matches finite differences
    L = g.layout
    J = np.array(g.functions["jac"](v, 0, 0))
    xs = slot(g, "x")
    e = 1e-7
    v2 = v.copy(); v2[xs] += e
    fd = (np.array(g.functions["eval"](v2, 0, 0)).ravel()[0] - np.array(g.functions["eval"](v, 0, 0)).ravel()[0]) / e
    assert J[0, 0] == pytest.approx(fd, rel=1e-5)


def test_linear_matrix_block_of_reference_model():
    from wctest import PACKAGE
    m = frontend.load(PACKAGE / "Examples" / "Basic" / "MassSpringMatrix.mo", "WearCosim.Examples.Basic.MassSpringMatrix")
    d = dae.build(m)
    c = causalize.causalize(d)
    g = codegen.build_functions(c)
    assert any(b.kind == "linear" and len(b.vars) == 2 for b in c.blocks)
    v = evaluate(g, start_vector(g))
    M = np.array([[2, 0.5], [0.5, 1]]); K = np.array([[40, -10], [-10, 20]])
    q = np.array([v[slot(g, "q[1]")], v[slot(g, "q[2]")]])
    q[:] = [0.1, -0.2]
    v[slot(g, "q[1]")], v[slot(g, "q[2]")] = q
    v = evaluate(g, v)
    acc = np.linalg.solve(M, -K @ q)
    assert v[slot(g, "der(v[1])")] == pytest.approx(acc[0])
    assert v[slot(g, "der(v[2])")] == pytest.approx(acc[1])


def test_index_reduction_of_der_of_algebraic_variables():
    """der(y) with y = x^2 and der(p) with p = f(time): the constraints are differentiated
    symbolically and y, p become algebraic (dummy states)."""
    d, c, g = compile_fixture("DerAlg")
    kinds = {n: s.kind for n, s in d.scalars.items()}
    assert kinds["x"] == "state" and kinds["y"] == "alg" and kinds["p"] == "alg"
    assert g.layout.n["X"] == 1
    v = start_vector(g)
    for t in (0.0, 0.7):
        v[slot(g, "x")] = 0.8
        out = evaluate(g, v, t)
        assert out[slot(g, "z")] == pytest.approx(-2 * 0.8 ** 2)
        assert out[slot(g, "vp")] == pytest.approx(0.3 * math.cos(3 * t))
        assert out[slot(g, "y")] == pytest.approx(0.64)


def test_evaluate_annotation_folds_parameters_with_folded_dependencies():
    d, c, g = compile_fixture("EvaluateFold")
    kinds = {n: s.kind for n, s in d.scalars.items()}
    assert kinds["a"] == "const" and kinds["m[1,1]"] == "const" and kinds["m[1,2]"] == "const"
    assert kinds["b"] == "param" and kinds["c"] == "calc" and kinds["e"] == "calc"
    assert [d.scalars[f"m[{i},{j}]"].value for i in (1, 2) for j in (1, 2)] == [2, 0, 0, 8]
    v = start_vector(g)
    v[slot(g, "x[2]")] = 5.0
    v = evaluate(g, v)
    a, b = 2.0, 3.0
    assert v[slot(g, "der(x[1])")] == pytest.approx(-a * 1.0 * a * b - b)
    assert v[slot(g, "der(x[2])")] == pytest.approx(-4 * a * 5.0 * a * b)
    # exported as constants, the tunable ones stay settable
    var = {s.name: s.variability for s in g.layout.slots if s.name in ("a", "m[1,2]", "b")}
    assert var["a"] == var["m[1,2]"] == "constant" and var["b"] != "constant"


def test_dynamic_subscript_is_one_load_with_the_select_chains_derivatives():
    """v[integer(s)] of a parameter vector and of a vector of states (length >= GATHER_MIN: an
    indexed load, symbolic.gather) and of a short one (select chain): values, the generated
    Jacobian against finite differences (d b/d x[k] = 1 for the selected k only), NaN for an
    index outside the vector."""
    d, c, g = compile_fixture("DynIndex")
    assert len(d.gathers) == 2          # h[...] and x[...]; g[3] is a select chain
    v = start_vector(g)
    v = evaluate(g, v)
    assert v[slot(g, "a")] == 2.0 and v[slot(g, "c")] == 20.0
    assert v[slot(g, "b")] == pytest.approx(0.2)
    L = g.layout
    J = np.array(g.functions["jac"](v, 0, 0))
    nx = L.n["X"]
    xs = [slot(g, f"x[{i}]") for i in range(1, 7)]
    e = 1e-7
    f0 = np.array(g.functions["eval"](v, 0, 0)).ravel()[:nx]
    for j in range(nx):
        v2 = v.copy()
        v2[L.off["X"] + j] += e
        fd = (np.array(g.functions["eval"](v2, 0, 0)).ravel()[:nx] - f0) / e
        assert J[:, j] == pytest.approx(fd, rel=1e-5, abs=1e-6), j
    # the column of x[2] (the selected element) carries -x_i on every row
    col = xs[1] - L.off["X"]
    rows = [xs[i] - L.off["X"] for i in range(6)]
    assert J[rows[0], col] == pytest.approx(-0.1)
    # outside 1..6: NaN (an error of the model evaluation), not some element
    v3 = v.copy()
    v3[slot(g, "s")] = 7.5
    out = evaluate(g, v3)
    assert math.isnan(out[slot(g, "a")])


def test_dynamic_subscript_code_does_not_grow_with_the_vector():
    d, c, g = compile_fixture("Long")
    assert d.gathers
    f = g.functions["eval"]
    ops = [f.instruction_id(k) for k in range(f.n_instructions())]
    # (the load's vector is a slice of the input: the generated code passes a pointer to it)
    work = [o for o in ops if o not in (ca.OP_INPUT, ca.OP_OUTPUT, ca.OP_CONST)]
    assert len(work) < 60, len(work)
    v = evaluate(g, start_vector(g))
    assert v[slot(g, "y")] == pytest.approx(0.0 + 1 / 399)


def test_gather_index_rounds_and_refuses_outside():
    from wearcosim.export.symbolic import gather, gather_index
    k = ca.SX.sym("k")
    vec = ca.SX(np.arange(10.0) * 10)
    f = ca.Function("f", [k], [gather(gather_index(k, 10), vec)])
    assert float(f(1)) == 0.0 and float(f(10)) == 90.0
    assert float(f(3 - 1e-12)) == 20.0 and float(f(3 + 1e-12)) == 20.0
    for bad in (0, 11, -3, float("nan"), 1e300, -float("inf")):
        assert math.isnan(float(f(bad))), bad
