"""Compiled evaluation of user functions with numeric arguments (wearcosim.export.fasteval)
against the interpreter (wearcosim.export.symbolic): the results must be the same objects bit
for bit (types, values, signs of zeros, shapes, dtypes), errors must be the interpreter's, and
both must keep Modelica's value semantics of arrays (copy-on-write done once, never in place
on an array that another variable can see)."""
from __future__ import annotations

import copy
import math
import re
import zlib
from contextlib import contextmanager

import casadi as ca
import numpy as np
import pytest

from wctest import PACKAGE
from wearcosim.export import fasteval, frontend, ir
from wearcosim.export import symbolic as S
from wearcosim.export.errors import ExportError


# ----------------------------------------------------------------------------- helpers
def same(a, b) -> bool:
    """Exact equality: same types, same float bits (sign of zero, nan), same shapes/dtypes."""
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and a.dtype == b.dtype and all(same(x, y) for x, y in zip(a.flat, b.flat)))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a):
            return math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def obj(x):
    """An object array of the given (nested) Python numbers."""
    a = np.asarray(x, dtype=object)
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(*a.shape):
        v = a[idx]
        out[idx] = v.item() if isinstance(v, np.generic) else v
    return out


def _unknown(name, loc):
    raise ExportError(f"unknown variable '{name}'", loc, "name")


def evaluator(model):
    return S.Evaluator(model, _unknown, numeric=True)


@contextmanager
def compiled_evaluation(on: bool):
    old = fasteval.ENABLED
    fasteval.ENABLED = on
    try:
        yield
    finally:
        fasteval.ENABLED = old


def run(model, name, args, fast):
    """('ok', outputs) or ('error', kind, message) of one call, interpreted or compiled."""
    f = model.functions[name]
    with compiled_evaluation(fast):
        try:
            return ("ok", evaluator(model).inline(f, list(args)))
        except ExportError as exc:
            return ("error", exc.kind, exc.message)


def both(model, name, args, expect_compiled=True):
    """Evaluate both ways; assert identical results and untouched arguments; return them."""
    keep = copy.deepcopy(args)
    ref = run(model, name, args, False)
    n0 = dict(fasteval.stats)
    got = run(model, name, args, True)
    assert same(ref, got), (name, args, ref, got)
    assert same(list(args), list(keep)), f"{name} changed its arguments"
    if expect_compiled:
        assert fasteval.unsupported_reason(model, name) is None, fasteval.unsupported_reason(model, name)
        assert fasteval.stats["compiled"] == n0["compiled"] + 1, "the compiled code fell back"
    return ref


# --- hand-built IR
def L(v):
    return ir.Lit(v)


def R(name, *subs):
    return ir.Ref(name, tuple(subs))


def B(op, a, b):
    return ir.Bin(op, a, b)


def C(name, *args, builtin=True):
    return ir.Call(name, tuple(args), builtin)


def U(name, *args):
    return ir.Call(name, tuple(args), False)


def V(name, dims=(), type="Real", binding=None):
    return ir.Var(name, type, tuple(dims), binding=binding)


def A(t, v, *targets):
    if targets:
        return ir.Assign(ir.Ref("_"), v, targets=tuple(targets))
    return ir.Assign(t, v)


def FOR(i, rng, *body):
    return ir.ForStmt(i, rng, tuple(body))


def IF(blocks, other=()):
    return ir.IfStmt(tuple((c, tuple(b)) for c, b in blocks), tuple(other))


def RNG(a, b, step=None):
    return ir.Range(a, step, b)


def fn(name, inputs, outputs, locals_=(), body=()):
    return ir.Function(name, list(inputs), list(outputs), list(locals_), tuple(body))


def model(*functions):
    return ir.Model("M", functions={f.name: f for f in functions})


# ----------------------------------------------------------------------------- the library
LIBRARY_CALLS = {
    "WearCosim.Rotor.Functions.assembleShaft": ("Real a[12, 12]", "1, {0.1, x}, {0.02, 0.02}, {0, 0}, 7800, 2e11, 8e10"),
    "WearCosim.Rotor.Functions.beamGyroscopic": ("Real a[8, 8]", "x, 0.02, 0, 7800, 0.1"),
    "WearCosim.Rotor.Functions.beamMass": ("Real a[8, 8]", "x, 0.02, 0, 7800, 0.1"),
    "WearCosim.Rotor.Functions.beamPattern": ("Real a[8, 8]", "{x, 1, 2, 3, 4, 5, 6, 7, 8, 9}"),
    "WearCosim.Rotor.Functions.beamStiffness": ("Real a[8, 8]", "x, 0.02, 0, 2e11, 0.1"),
    "WearCosim.Rotor.Functions.bearingMatrix": ("Real a[8, 8]", "8, {1, 2}, {x, 1}, {0, 0}, {0, 0}, {1, 1}"),
    "WearCosim.Rotor.Functions.diskMatrix": ("Real a[8, 8]", "1, 8, {2}, {x}, {1}, {1}"),
    "WearCosim.Rotor.Functions.invertMatrix": ("Real a[2, 2]", "[x + 2, 1; 1, 3]"),
    "WearCosim.Rotor.Functions.nodalForces": ("Real a[8]", "8, {2}, {x}, {1}"),
    "WearCosim.Rotor.Functions.shearFactor": ("Real a", "x, 0.02, 0, 2e11, 8e10"),
    "WearCosim.Contact.ambrosioFactor": ("Real a", "x, 0.1, 0.2"),
    "WearCosim.Contact.ambrosioFriction": ("Real a", "0.1, 10, x, 0.1, 0.2"),
    "WearCosim.Contact.floresForce": ("Real a", "1e9, 1.5, 0.8, x, 0.1, 0.2"),
    "WearCosim.Contact.floresStiffness": ("Real a", "2e11, 0.3, 2e11, 0.3, 0.01 + x, 0.009"),
    "WearCosim.Contact.hertzHalfWidth": ("Real a", "x, 0.0101, 0.01, 2e11, 0.3, 2e11, 0.3, 0.02"),
    "WearCosim.Contact.hybridWeight": ("Real a", "x, 1e-4, 1e-5"),
    "WearCosim.Contact.sommerfeldRadial": ("Real a", "0.01, 0.02, 0.01, 1e-4, x, 0.1, 0.9"),
    "WearCosim.Contact.sommerfeldTangential": ("Real a", "0.01, 0.02, 0.01, 1e-4, x, 100, 1, 0.9"),
    "WearCosim.Contact.wearProfile": ("Real a", "{x, 1, 2}, 0.3"),
    "WearCosim.Examples.Basic.Functions.sectorInterp": ("Real a", "{x, 1, 2}, 0.3"),
    "WearCosim.Gears.flankWearDepth": ("Real a", "{x, 1, 2}, 0.1, 1"),
}


def library_functions():
    """Qualified names of every function of modelica/WearCosim (one class per file)."""
    out = set()
    for p in PACKAGE.rglob("*.mo"):
        m = re.search(r"^\s*function\s+(\w+)", p.read_text(), re.M)
        if m and p.stem == m.group(1):
            out.add(".".join(("WearCosim",) + p.relative_to(PACKAGE).with_suffix("").parts))
    return out


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """IR of a model calling every function of the library (their IR is what is tested)."""
    decls, eqs = [], []
    for k, (name, (decl, args)) in enumerate(sorted(LIBRARY_CALLS.items())):
        decls.append("  " + decl.replace(" a", f" a{k}", 1) + ";")
        eqs.append(f"  a{k} = {name}({args});")
    src = ("model FastEvalLibrary\n  Real x(start = 0.5, fixed = true);\n" + "\n".join(decls)
           + "\nequation\n  der(x) = 1;\n" + "\n".join(eqs) + "\nend FastEvalLibrary;\n")
    path = tmp_path_factory.mktemp("fasteval") / "FastEvalLibrary.mo"
    path.write_text(src)
    return frontend.load(path, "FastEvalLibrary")


def test_every_library_function_has_a_check():
    assert library_functions() == set(LIBRARY_CALLS) == set(ARGUMENTS)


def _f(rng, lo, hi):
    return float(rng.uniform(lo, hi))


def _fv(rng, n, lo, hi):
    return obj([float(v) for v in rng.uniform(lo, hi, n)])


def _spd(rng, n):
    m = rng.standard_normal((n, n))
    return obj((m @ m.T + n * np.eye(n)).tolist())


def _shaft(rng):
    n = int(rng.integers(1, 7))
    shear, rot = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    args = [int(rng.integers(1, 4)), _fv(rng, n, 0.01, 0.08), _fv(rng, n, 0.015, 0.03),
            obj([0] * n) if rng.random() < 0.5 else _fv(rng, n, 0.0, 0.01),
            7810, _f(rng, 1e11, 3e11), 81.2e9]
    return args + [shear, rot][:int(rng.integers(0, 3))]


def _nodes(rng, nn, nnode):
    return obj([int(v) for v in rng.integers(1, nn + 1, nnode)])


def _bearings(rng):
    nn = int(rng.integers(2, 6))
    nb = int(rng.integers(1, 4))
    return [4 * nn, _nodes(rng, nn, nb)] + [_fv(rng, nb, -1e7, 1e7) for _ in range(4)]


def _disks(rng):
    nn = int(rng.integers(2, 6))
    nd = int(rng.integers(1, 4))
    return [int(rng.choice([1, 3])), 4 * nn, _nodes(rng, nn, nd)] + [_fv(rng, nd, 0.0, 10.0) for _ in range(3)]


def _forces(rng):
    nn = int(rng.integers(2, 6))
    nf = int(rng.integers(1, 4))
    return [4 * nn, _nodes(rng, nn, nf), _fv(rng, nf, -100, 100), _fv(rng, nf, -100, 100)]


def _element(rng, material):
    return [_f(rng, 0.005, 0.1), _f(rng, 0.015, 0.03), rng.choice([0, 0.005]), material, _f(rng, 0.0, 0.5)]


ARGUMENTS = {
    "WearCosim.Rotor.Functions.assembleShaft": _shaft,
    "WearCosim.Rotor.Functions.beamGyroscopic": lambda r: _element(r, 7850.0),
    "WearCosim.Rotor.Functions.beamMass": lambda r: _element(r, 7850.0) + [bool(r.integers(0, 2))][:int(r.integers(0, 2))],
    "WearCosim.Rotor.Functions.beamPattern": lambda r: [_fv(r, 10, -10, 10)],
    "WearCosim.Rotor.Functions.beamStiffness": lambda r: _element(r, 2.1e11),
    "WearCosim.Rotor.Functions.bearingMatrix": _bearings,
    "WearCosim.Rotor.Functions.diskMatrix": _disks,
    "WearCosim.Rotor.Functions.invertMatrix": lambda r: [_spd(r, int(r.integers(1, 13)))],
    "WearCosim.Rotor.Functions.nodalForces": _forces,
    "WearCosim.Rotor.Functions.shearFactor": lambda r: [_f(r, 0.005, 0.1), 0.02, r.choice([0, 0.01]), 2.1e11, 8.1e10]
    + [bool(r.integers(0, 2))][:int(r.integers(0, 2))],
    "WearCosim.Contact.ambrosioFactor": lambda r: [_f(r, -0.3, 0.3), 0.1, 0.2],
    "WearCosim.Contact.ambrosioFriction": lambda r: [0.1, _f(r, 0, 100), _f(r, -0.3, 0.3), 0.1, 0.2],
    "WearCosim.Contact.floresForce": lambda r: [1e9, r.choice([1.5, 1]), 0.8, _f(r, -1e-4, 1e-4), _f(r, -1, 1), 0.2],
    "WearCosim.Contact.floresStiffness": lambda r: [2e11, 0.3, 2.1e11, 0.29, _f(r, 0.0100001, 0.0102), 0.01]
    + [1e-8][:int(r.integers(0, 2))],
    "WearCosim.Contact.hertzHalfWidth": lambda r: [_f(r, -10, 1000), 0.0101, 0.01, 2e11, 0.3, 2e11, 0.3, 0.02],
    "WearCosim.Contact.hybridWeight": lambda r: [_f(r, 0, 2e-4), 1e-4, 1e-5],
    "WearCosim.Contact.sommerfeldRadial": lambda r: [0.01, 0.02, 0.01, 1e-4, _f(r, 0, 2e-4), _f(r, -1, 1), 0.9],
    "WearCosim.Contact.sommerfeldTangential": lambda r: [0.01, 0.02, 0.01, 1e-4, _f(r, 0, 2e-4), 100, _f(r, -5, 5), 0.9],
    "WearCosim.Contact.wearProfile": lambda r: [_fv(r, int(r.integers(1, 9)), 0, 1e-5), _f(r, -10, 10)],
    "WearCosim.Examples.Basic.Functions.sectorInterp": lambda r: [_fv(r, int(r.integers(1, 9)), 0, 1), _f(r, -10, 10)],
    "WearCosim.Gears.flankWearDepth": lambda r: [_fv(r, int(r.integers(1, 9)), 0, 1e-5), _f(r, -0.1, 1.1), 1.0],
}


@pytest.mark.parametrize("name", sorted(LIBRARY_CALLS))
def test_library_function_is_bit_identical_to_the_interpreter(library, name):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for _ in range(8):
        r = both(library, name, ARGUMENTS[name](rng))
        assert r[0] == "ok", r


def test_library_edge_values(library):
    # ints where Reals are declared stay ints in both; zero-length and one-sector inputs
    both(library, "WearCosim.Contact.wearProfile", [obj([0]), 0])
    both(library, "WearCosim.Contact.wearProfile", [obj([1, 2, 3]), 7])
    both(library, "WearCosim.Gears.flankWearDepth", [obj([1, 2]), 0, 1])
    both(library, "WearCosim.Rotor.Functions.invertMatrix", [obj([[2]])])
    both(library, "WearCosim.Rotor.Functions.invertMatrix", [obj([[4, 1], [1, 3]])])
    both(library, "WearCosim.Contact.floresForce", [1e9, 1.5, 0.8, 0, 0, 0.2])
    # a division by zero: the interpreter's outcome (here: ZeroDivisionError in both)
    with pytest.raises(ZeroDivisionError):
        run(library, "WearCosim.Contact.hybridWeight", [1.0, 1.0, 0], True)


def test_rotor_matrices_and_inverse_as_in_the_model(library):
    """The finite-element rotor's parameter chain: M = assembleShaft + diskMatrix, M^-1."""
    rng = np.random.default_rng(7)
    ne = 12
    le, do, di = _fv(rng, ne, 0.01, 0.05), obj([0.019] * ne), obj([0] * ne)
    m = both(library, "WearCosim.Rotor.Functions.assembleShaft", [1, le, do, di, 7850, 2.17e11, 8.35e10])[1][0]
    d = both(library, "WearCosim.Rotor.Functions.diskMatrix", [1, 4 * (ne + 1), obj([3, 9]), obj([2.6, 2.6]),
                                                             obj([0.0075, 0.0075]), obj([0.0038, 0.0038])])[1][0]
    total = S._elementwise(lambda x, y: S._binop("+", x, y), m, d)
    inv = both(library, "WearCosim.Rotor.Functions.invertMatrix", [total])[1][0]
    np.testing.assert_allclose(np.array(inv, dtype=float) @ np.array(total, dtype=float), np.eye(4 * (ne + 1)),
                               atol=1e-8)


# ----------------------------------------------------------------------------- matmul
def _matmul_loop(a, b):
    """symbolic.matmul's element loop (the reference order)."""
    A2 = a if a.ndim == 2 else a.reshape(1, -1)
    B2 = b if b.ndim == 2 else b.reshape(-1, 1)
    out = np.empty((A2.shape[0], B2.shape[1]), dtype=object)
    for i in range(A2.shape[0]):
        for j in range(B2.shape[1]):
            acc = 0.0
            for k in range(A2.shape[1]):
                acc = S._binop("+", acc, S._binop("*", A2[i, k], B2[k, j]))
            out[i, j] = acc
    return out.reshape(-1) if (a.ndim == 1 or b.ndim == 1) else out


@pytest.mark.parametrize("sa,sb", [((5, 7), (7, 3)), ((4, 6), (6,)), ((6,), (6, 4)), ((3, 0), (0, 2)),
                                   ((1, 1), (1, 1)), ((0, 3), (3, 2))])
def test_numeric_matmul_sums_in_the_loop_order(sa, sb):
    rng = np.random.default_rng(3)

    def rand(shape):
        vals = [float(x) if rng.random() < 0.7 else int(rng.integers(-3, 4)) for x in rng.standard_normal(int(np.prod(shape)))]
        vals = [v * 10.0 ** int(rng.integers(-8, 9)) if isinstance(v, float) else v for v in vals]
        return obj(np.array(vals, dtype=object).reshape(shape))
    for _ in range(5):
        a, b = rand(sa), rand(sb)
        assert same(S.matmul(a, b), _matmul_loop(a, b))
    # with SX elements the element loop (folding, zeros) is kept
    x = ca.SX.sym("x")
    a = obj([[1.0, 0.0], [2.0, 3.0]])
    b = np.array([x, 2.0], dtype=object)
    r = S.matmul(a, b)
    assert str(r[0]) == "x" and str(r[1]) == "((2.*x)+6)"


# ----------------------------------------------------------------------------- constructs (Modelica)
FIXTURE = """
model FastEvalConstructs
  Real x(start = 0, fixed = true);
  Real u;
  Real q;
  Real y[3, 3];
  Real z[3, 3];
  Real w;
equation
  der(x) = 1;
  (u, q) = loops(7, x);
  y = slices({{x, 1, 2}, {3, 4, 5}, {6, 7, 8}});
  w = nested(x);
  z = arrays({x, 2*x, 3});
end FastEvalConstructs;
function loops "for loops with steps, if/elseif/else, integer builtins, a default input"
  input Integer n;
  input Real s = 0.5;
  output Real y;
  output Real count;
algorithm
  y := 0;
  count := 0;
  for i in 1:2:n loop
    for j in n:-1:1 loop
      if j == i then
        y := y + s*i;
      elseif j > i then
        y := y - 1/j;
      else
        y := y*1.5;
      end if;
      count := count + 1;
    end for;
  end for;
  y := y^2 + mod(count, 3) + rem(-count, 4) + div(count, 5) + floor(y) + integer(-y) + 7/2 + 2^3;
end loops;
function sq
  input Real x;
  input Real k = 2*x "default from an earlier input";
  output Real y;
algorithm
  y := x*x + k;
end sq;
function slices "slices on both sides of :=, ranges with step, aliases changed afterwards"
  input Real A[:, :];
  output Real B[size(A, 1), size(A, 2)];
protected
  Real C[size(A, 1), size(A, 2)];
  Real v[size(A, 2)];
algorithm
  B := A;
  C := B;
  B[1, :] := A[2, :] .+ 1;
  B[:, 2] := 2*C[:, 1];
  v := A[3, :];
  v[1:2:3] := {10*k for k in 1:2:3};
  C[2, 2] := -1;
  B[3, 3] := C[2, 2] + A[2, 2] + v[1] + v[2] + v[3];
  B[2, 1:2] := C[1, 2:3] .* v[2:3];
end slices;
function nested "nested calls, default inputs, if-expressions"
  input Real x;
  output Real r;
protected
  Real c[2];
algorithm
  c := {sq(x), sq(x, 1)}*2;
  r := c[1] + c[2] + sq(sq(x)) + (if x > 0.5 then sq(-x) elseif x < -1 then 1 else -2);
end nested;
function arrays "array constructors, comprehensions, matrix products, reductions"
  input Real x[:];
  output Real M[size(x, 1), size(x, 1)];
protected
  Real v[size(x, 1)];
  Real s;
algorithm
  M := {{x[i]*x[j] + (if i == j then 1 else 0) for j in 1:size(x, 1)} for i in 1:size(x, 1)};
  v := M*x;
  s := v*x + sum(M) + max(x) + min(abs(x)) + x*M*x;
  M := transpose(M)*identity(size(x, 1)) + s*M - fill(1.5, size(x, 1), size(x, 1));
  M[1, :] := cat(1, {s}, x[2:size(x, 1)]);
  M[2, :] := {sum({x[j]*j for j in 1:size(x, 1)})*k for k in 1:size(x, 1)};
end arrays;
"""


@pytest.fixture(scope="module")
def constructs(tmp_path_factory):
    path = tmp_path_factory.mktemp("fasteval") / "FastEvalConstructs.mo"
    path.write_text(FIXTURE)
    return frontend.load(path, "FastEvalConstructs")


def test_modelica_constructs(constructs):
    rng = np.random.default_rng(11)
    for n in (0, 1, 2, 5, 7, 8):
        both(constructs, "loops", [n])
        both(constructs, "loops", [n, _f(rng, -2, 2)])
    for x in (0.3, 0.75, -2.0, 0, 3):
        both(constructs, "nested", [x])
        both(constructs, "sq", [x])
    for _ in range(4):
        a = obj(rng.integers(-5, 6, (3, 3)).tolist()) if rng.random() < 0.5 else _fv(rng, 9, -3, 3).reshape(3, 3)
        r = both(constructs, "slices", [a])
        # value semantics: B started as an alias of A and C as an alias of B
        b = r[1][0]
        assert b[2, 2] == -1 + a[1, 1] + 10 + a[2, 1] + 30
        assert b[0, 0] == a[1, 0] + 1 and b[1, 1] == a[0, 2] * 30
    for n in (2, 3, 5):
        both(constructs, "arrays", [_fv(rng, n, -2, 2)])
    both(constructs, "arrays", [obj([1, 2, 3])])


# ----------------------------------------------------------------------------- constructs (IR)
def test_while_break_return():
    f = fn("wb", [V("n", type="Integer")], [V("y"), V("k", type="Integer")], [], [
        A(R("y"), L(0)), A(R("k"), L(0)),
        ir.WhileStmt(B("<", R("k"), R("n")), (
            A(R("k"), B("+", R("k"), L(1))),
            A(R("y"), B("+", R("y"), B("^", R("k"), L(2)))),
            IF([(B(">", R("y"), L(50)), [ir.Break()])]),
        )),
        FOR("i", RNG(L(1), L(10)),
            IF([(B(">", R("i"), R("k")), [ir.Return()])]),
            A(R("y"), B("+", R("y"), L(0.5)))),
        A(R("y"), L(-1.0)),
    ])
    m = model(f)
    for n in range(0, 12):
        r = both(m, "wb", [n])
        y, k = 0, 0
        while k < n:
            k += 1
            y += k ** 2
            if y > 50:
                break
        for i in range(1, 11):
            if i > k:
                break
            y += 0.5
        assert same(r[1], [y, k])


def test_while_loop_limit_and_break_in_for():
    f = fn("lim", [V("n")], [V("y")], [], [
        A(R("y"), L(0)),
        ir.WhileStmt(B(">", R("n"), L(0)), (A(R("y"), B("+", R("y"), L(1))),)),
    ])
    g = fn("brk", [V("n")], [V("y")], [], [
        A(R("y"), L(0)),
        FOR("i", RNG(L(1), R("n")), FOR("j", RNG(L(1), R("n")),
                                        IF([(B(">", R("j"), R("i")), [ir.Break()])]),
                                        A(R("y"), B("+", B("*", R("y"), L(10)), R("j"))))),
    ])
    m = model(f, g)
    r = run(m, "lim", [1], True)
    assert r[0] == "error" and "did not terminate" in r[2]
    assert same(r, run(m, "lim", [1], False))
    both(m, "lim", [0])
    for n in (0, 1, 3, 4):
        both(m, "brk", [n])


def test_multiple_outputs_and_tuple_assignment():
    two = fn("two", [V("x")], [V("a"), V("b"), V("c", (2,))], [], [
        A(R("a"), B("*", R("x"), L(2))),
        A(R("b"), B("+", R("x"), L(1))),
        A(R("c"), ir.Arr((R("a"), R("b")))),
    ])
    caller = fn("caller", [V("x")], [V("r", (3,)), V("s")], [V("a"), V("v", (3,))], [
        A(R("r"), C("zeros", L(3))),
        A(R("v"), C("ones", L(3))),
        A(None, U("two", R("x")), R("a"), None, R("v", RNG(L(2), L(3)))),
        A(None, U("two", R("a")), R("r", L(1)), R("s")),
        A(R("r", RNG(L(2), L(3))), R("v", RNG(L(2), L(3)))),
        A(None, U("two", R("s")), R("a")),
        A(R("r", L(3)), B("+", R("r", L(3)), R("a"))),
    ])
    m = model(two, caller)
    for x in (0.25, -3, 2):
        r = both(m, "caller", [x])
        a = 2 * x
        assert same(r[1][0], obj([2 * a, a, x + 1 + 2 * (a + 1)]))
        assert r[1][1] == a + 1
    both(m, "two", [1.5])


def _aliasing_model():
    ident = fn("ident", [V("z", (-1,))], [V("w", (-1,))], [], [A(R("w"), R("z"))])
    f = fn("alias", [V("a", (-1,))], [V("b", (-1,)), V("c", (-1,)), V("d", (-1,)), V("e", (-1,)), V("s")],
           [V("v", (-1,))], [
        A(R("b"), R("a")),                      # B := A
        A(R("b", L(1)), L(100)),                # must not change A
        A(R("c"), R("b")),
        A(R("c", L(2)), L(200)),                # must not change B
        A(R("d"), U("ident", R("c"))),          # a function returning its input
        A(R("d", L(3)), L(300)),                # must not change C
        A(R("v"), R("b", RNG(L(1), L(2)))),     # a slice (a numpy view)
        A(R("b", L(1)), L(-1)),                 # must not change V
        A(R("s"), L(0)),
        FOR("x", R("b"),                        # loop over an array changed in the loop
            A(R("b", L(2)), B("+", R("b", L(2)), R("x"))),
            A(R("s"), B("+", R("s"), R("x")))),
        A(R("e"), ir.If(((B(">", R("s"), L(0)), R("v")),), R("a"))),   # if-expression aliases
        A(R("e", L(1)), B("+", R("e", L(1)), R("v", L(1)))),
        ir.WhileStmt(B("<", R("s"), L(1000)), (
            A(R("d"), R("c")),
            A(R("d", L(1)), B("+", R("d", L(1)), L(1))),
            A(R("c", L(1)), B("+", R("d", L(1)), L(1))),
            A(R("s"), B("*", R("s"), L(2))),
        )),
    ])
    return model(ident, f)


@pytest.mark.parametrize("fast", [False, True])
def test_array_value_semantics(fast):
    m = _aliasing_model()
    a = obj([1.0, 2.0, 3.0, 4.0])
    st, (b, c, d, e, s) = run(m, "alias", [a], fast)
    assert st == "ok"
    assert same(a, obj([1.0, 2.0, 3.0, 4.0]))
    # b: [100, 2, 3, 4] -> view v = [100, 2]; b[1] = -1; loop over the values [-1, 2, 3, 4]
    assert same(b, obj([-1, 2.0 + (-1 + 2.0 + 3.0 + 4.0), 3.0, 4.0]))
    # e: alias of v = [100, 2.0], then e[1] + v[1]; s: 8 doubled up to 1024 (7 times)
    assert same(e, obj([200, 2.0]))
    assert same(s, 1024)           # loop values are _numeric: 2.0 -> 2
    # c: [100, 200, 3, 4] (d's 300 never reached c); each pass d := c, d[1] + 1, c[1] = d[1] + 1
    assert same(c, obj([114, 200, 3.0, 4.0]))
    assert same(d, obj([113, 200, 3.0, 4.0]))
    if fast:
        both(m, "alias", [a])


def test_interpreter_copies_a_shared_array_once():
    class Counting(np.ndarray):
        copies = 0

        def copy(self, *a, **k):
            Counting.copies += 1
            return super().copy(*a, **k)
    f = fn("fill2", [V("a", (-1, -1))], [V("b", (-1, -1))], [], [
        A(R("b"), R("a")),
        FOR("i", RNG(L(1), C("size", R("a"), L(1))), FOR("j", RNG(L(1), C("size", R("a"), L(2))),
            A(R("b", R("i"), R("j")), B("+", R("b", R("i"), R("j")), B("*", R("i"), R("j")))))),
    ])
    a = obj(np.zeros((6, 5)).tolist()).view(Counting)
    with compiled_evaluation(False):
        out = evaluator(model(f)).inline(f, [a])[0]
    assert Counting.copies == 1
    assert same(np.asarray(out), obj([[float(i * j) for j in range(1, 6)] for i in range(1, 7)]))
    assert all(x == 0.0 for x in a.flat)


def test_interpreter_aliasing_with_symbolic_values():
    """The interpreter's copy-on-write with SX values (no compiled path)."""
    f = fn("sym", [V("x"), V("a", (-1,))], [V("y", (-1,)), V("z", (-1,))], [V("b", (-1,)), V("c", (-1,))], [
        A(R("b"), R("a")),
        A(R("b", L(1)), R("x")),
        A(R("c"), R("b")),
        A(R("c", L(2)), B("*", L(2), R("x"))),
        IF([(B(">", R("x"), L(0)), [A(R("b", L(2)), L(5.0)), A(R("c", L(1)), L(6.0))])],
           [A(R("b", L(3)), L(7.0))]),
        A(R("y"), ir.Arr((R("a", L(1)), R("a", L(2)), R("a", L(3)), R("b", L(1)), R("b", L(2)), R("b", L(3))))),
        A(R("z"), R("c")),
    ])
    x = ca.SX.sym("x")
    a = obj([1.0, 2.0, 3.0])
    y, z = evaluator(model(f)).inline(f, [x, a])
    assert same(a, obj([1.0, 2.0, 3.0]))
    fy = ca.Function("fy", [x], [ca.vertcat(*y), ca.vertcat(*z)])
    for xv, by, bz in ((1.0, [1, 2, 3, 1, 5, 3], [6, 2, 3]), (-1.0, [1, 2, 3, -1, 2, 7], [-1, -2, 3])):
        vy, vz = fy(xv)
        assert np.array(vy).ravel().tolist() == by and np.array(vz).ravel().tolist() == bz


def test_ranges_comprehensions_and_if_expression_guards():
    f = fn("rc", [V("n", type="Integer"), V("v", (-1,))], [V("a", (-1,)), V("m", (-1, -1)), V("t")], [], [
        A(R("a"), RNG(L(1.0), R("n"), L(0.5))),
        A(R("m"), ir.Compr(B("+", B("*", L(10), R("i")), R("j")),
                           (("i", RNG(L(1), R("n"))), ("j", RNG(L(1), L(2)))))),
        A(R("t"), L(0)),
        FOR("i", RNG(L(1), C("size", R("v"), L(1))),
            # v[i - 1] only evaluated when i > 1 (the interpreter evaluates the 'else' first)
            A(R("t"), B("+", R("t"), ir.If(((B(">", R("i"), L(1)), R("v", B("-", R("i"), L(1)))),), L(0))))),
        FOR("k", RNG(R("n"), L(1), L(-2)), A(R("t"), B("-", R("t"), R("k")))),
        FOR("k", ir.Arr((L(2.0), L(0.5), L(3))), A(R("t"), B("+", R("t"), B("/", R("k"), L(4))))),
    ])
    m = model(f)
    for n in (0, 1, 2, 5):
        both(m, "rc", [n, obj([1.5, 2, 4.25])])
    both(m, "rc", [3, obj([])])


def test_runtime_errors_are_the_interpreters():
    f = fn("oob", [V("v", (-1,)), V("i", type="Integer")], [V("y")], [], [
        A(R("y"), B("+", R("v", R("i")), L(1))),
    ])
    g = fn("oobw", [V("v", (-1,)), V("i", type="Integer")], [V("w", (-1,))], [], [
        A(R("w"), R("v")),
        A(R("w", R("i")), L(7.5)),
    ])
    m = model(f, g)
    n0 = fasteval.stats["fallback"]
    r = run(m, "oob", [obj([1.0, 2.0]), 3], True)
    assert r == ("error", "structure", "subscript 3 out of range 1..2")
    assert same(r, run(m, "oob", [obj([1.0, 2.0]), 3], False))
    assert same(run(m, "oob", [obj([1.0, 2.0]), 0], True), run(m, "oob", [obj([1.0, 2.0]), 0], False))
    assert fasteval.stats["fallback"] == n0 + 2
    both(m, "oob", [obj([1.0, 2.0]), 2])
    # subscripted assignment: the interpreter's numpy indexing (0 is the last element)
    both(m, "oobw", [obj([1.0, 2.0]), 0])
    with pytest.raises(IndexError):
        run(m, "oobw", [obj([1.0, 2.0]), 3], True)


def test_untranslatable_functions_are_interpreted():
    rec = fn("fact", [V("n", type="Integer")], [V("y")], [], [
        IF([(B(">", R("n"), L(1)), [A(R("y"), B("*", R("n"), U("fact", B("-", R("n"), L(1)))))])],
           [A(R("y"), L(1))]),
    ])
    tm = fn("usestime", [V("x")], [V("y")], [], [A(R("y"), B("+", R("x"), R("time")))])
    caller = fn("callsrec", [V("x")], [V("y")], [], [A(R("y"), B("+", R("x"), U("fact", L(4))))])
    m = model(rec, tm, caller)
    assert "recursive" in fasteval.unsupported_reason(m, "fact")
    assert "time" in fasteval.unsupported_reason(m, "usestime")
    assert "fact" in fasteval.unsupported_reason(m, "callsrec")
    assert both(m, "fact", [5], expect_compiled=False) == ("ok", [120])
    assert both(m, "callsrec", [0.5], expect_compiled=False) == ("ok", [24.5])
    assert both(m, "usestime", [0.5], expect_compiled=False)[0] == "error"


def test_integer_and_boolean_semantics():
    f = fn("ints", [V("i", type="Integer"), V("b", type="Boolean", binding=L(True))],
           [V("x"), V("k", type="Integer"), V("c", type="Boolean"), V("v", (3,))], [], [
        A(R("x"), B("/", R("i"), L(2))),
        A(R("k"), B("^", R("i"), L(3))),
        A(R("k"), B("+", R("k"), C("div", R("k"), L(-4)))),
        A(R("c"), B("and", R("b"), B("<>", R("i"), L(3)))),
        A(R("c"), B("or", R("c"), ir.Un("not", R("b")))),
        A(R("v", L(2)), R("i")),
        A(R("v", L(3)), B("*", R("i"), L(1.0))),
        A(R("x"), B("+", R("x"), B("^", L(2), L(-1)))),
        A(R("x"), B("+", R("x"), C("sign", ir.Un("-", R("x"))))),
    ])
    m = model(f)
    for i in (-3, 0, 3, 7):
        both(m, "ints", [i])
        both(m, "ints", [i, False])
    r = run(m, "ints", [7], True)
    assert same(r[1][:3], [3.0, 343 - 85, True])
    assert same(r[1][3], obj([0.0, 7, 7.0]))


def test_non_numeric_arguments_use_the_interpreter():
    f = fn("lin", [V("x"), V("a", (-1,))], [V("y")], [], [
        A(R("y"), B("*", R("a"), ir.Arr((R("x"), L(2.0))))),
    ])
    m = model(f)
    x = ca.SX.sym("x")
    n0 = dict(fasteval.stats)
    y = evaluator(m).inline(f, [x, obj([3.0, 0.0])])[0]
    assert str(y) == "(3*x)"
    assert fasteval.stats == n0


@pytest.mark.parametrize("fast", [False, True])
def test_outputs_that_share_an_array(fast):
    """Two outputs of a call may be one array (b := a in the callee); changing one of them in
    the caller must leave the other alone, and a callee's changed copy comes back unshared."""
    pair = fn("pair", [V("x")], [V("a", (-1,)), V("b", (-1,))], [], [
        A(R("a"), C("fill", R("x"), L(3))),
        A(R("a", L(1)), L(0.0)),
        A(R("b"), R("a")),
    ])
    one = fn("one", [V("x")], [V("a", (-1,))], [], [
        A(R("a"), C("fill", R("x"), L(2))),
        A(R("a", L(2)), B("*", R("x"), L(2))),
    ])
    caller = fn("caller", [V("x")], [V("p", (-1,)), V("q", (-1,)), V("r", (-1,)), V("s", (-1,))], [], [
        A(None, U("pair", R("x")), R("p"), R("q")),
        A(R("p", L(2)), L(5.0)),
        A(R("r"), U("one", R("x"))),
        A(R("s"), R("r")),
        A(R("r", L(1)), L(-1.0)),
    ])
    m = model(pair, one, caller)
    st, (p, q, r, s) = run(m, "caller", [2.5], fast)
    assert st == "ok"
    assert same(p, obj([0.0, 5.0, 2.5])) and same(q, obj([0.0, 2.5, 2.5]))
    assert same(r, obj([-1.0, 5.0])) and same(s, obj([2.5, 5.0]))
    if fast:
        both(m, "caller", [2.5])
    # the interpreter with a symbolic argument: the same sharing rules
    x = ca.SX.sym("x")
    with compiled_evaluation(False):
        p, q, r, s = evaluator(m).inline(caller, [x])
    assert [str(v) for v in (*p, *q, *r, *s)] == ["0.0", "5.0", "x", "0.0", "x", "x", "-1.0", "(2.*x)", "x", "(2.*x)"]


def _hats_periodic(h, theta):
    """Reference: the sum of the sectors' hat functions at the periodic distance (the profile's
    definition, written independently of the library's O(1) form)."""
    n = len(h)
    if n == 1:
        return float(h[0])   # one sector: uniform
    u = (theta * n / (2 * math.pi)) % n
    d = np.abs(u - (np.arange(n) + 0.5))
    d = np.minimum(d, n - d)
    return float(np.sum(np.maximum(0.0, 1.0 - d) * np.asarray(h)))


def _hats_clamped(h, s, length):
    n = len(h)
    ds = length / n
    x = min(max(s, ds / 2), length - ds / 2)
    c = (np.arange(n) + 0.5) * ds
    return float(np.sum(np.maximum(0.0, 1.0 - np.abs(x - c) / ds) * np.asarray(h)))


def test_wear_profiles_equal_the_sum_of_hats(library):
    """The library's profiles (one interpolation between the two centres around the position) on
    random profiles and positions, sector centres and boundaries, whole turns and the wrap point,
    against the sum of hat functions they are defined by."""
    rng = np.random.default_rng(20261204)
    for trial in range(300):
        n = int(rng.integers(1, 50))
        h = rng.uniform(0, 1e-5, n)
        k = int(rng.integers(0, n))
        th = [rng.uniform(-40, 40), 2 * math.pi * (k + 0.5) / n, 2 * math.pi * k / n,
              -2 * math.pi * k / n, 2 * math.pi * int(rng.integers(-5, 5)), math.nextafter(0.0, -1.0), -1e-17]
        for t in th:
            y = both(library, "WearCosim.Contact.wearProfile", [obj(list(h)), t])[1][0]
            assert y == pytest.approx(_hats_periodic(h, t), rel=1e-12, abs=1e-12 * h.max()), (n, t)
        L = float(rng.uniform(0.001, 0.05))
        for s in (rng.uniform(-0.2, 1.2) * L, L * (k + 0.5) / n, L * k / n, 0.0, L, L / (2 * n)):
            y = both(library, "WearCosim.Gears.flankWearDepth", [obj(list(h)), s, L])[1][0]
            assert y == pytest.approx(_hats_clamped(h, s, L), rel=1e-12, abs=1e-12 * h.max()), (n, s, L)
