"""A small reference interpreter of the fuzzer's models, written from the Modelica specification
(3.5/3.6, chapters 3, 8, 10, 11, 12) with NumPy/SciPy, independent of the exporter's passes.

* Parameters are evaluated in declaration order; arrays, for-equations, comprehensions and the
  array built-ins are expanded to scalar equations (spec. 8.3.3, 10.4).  A constant subscript
  outside its dimension is an error (:class:`ModelError`).
* The continuous part is sorted by a matching and the strongly connected components of the
  equations (BLT); a one-equation block explicit in its unknown is assigned, every other block is
  solved by Newton's method (finite-difference Jacobian, warm-started).
* Relations outside functions and ``noEvent`` generate events (spec. 3.7.1, 8.5): between events
  each keeps the value of the last event; ``solve_ivp``'s event functions locate the crossings
  (DOP853, rtol 1e-10, atol 1e-12 by default).
* At an event (spec. 8.6): the left limit is ``pre``; the discrete equations are solved together
  with the continuous ones (a when-clause's variable keeps ``pre(v)`` unless the clause's
  condition became true in this iteration; of ``when``/``elsewhen`` the first branch whose
  condition became true is active); ``reinit`` sets the state; iterate until nothing changes.
* Initialization: states with ``fixed = true`` take their start, the others are solved from the
  initial equations (``scipy.optimize.root``); ``when initial()`` clauses fire, other
  when-clauses do not.

The result is sampled at the communication points ``0, dt, ..., stop``.
"""
from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import tree as A


class ModelError(Exception):
    """The model is not valid Modelica (as far as the interpreter checks) or not simulable."""


class OracleError(Exception):
    """The interpreter could not simulate a valid model (its own limitation)."""


# ----------------------------------------------------------------------------- scalar code
@dataclass(frozen=True)
class S:
    code: str
    deps: frozenset = frozenset()     # indices into V the value depends on (this instant)
    cont: bool = False                # depends on time or a continuous-time variable
    ref: int | None = None            # the expression is exactly V[ref]
    const: bool = True                # no V, PRE, t, C in it: eval() gives its value


def _c(v) -> S:
    if isinstance(v, (bool, np.bool_)):
        return S("True" if v else "False")
    # negative literals in parentheses: "-0.9 ** 2" is -(0.9 ** 2) in Python
    if isinstance(v, (int, np.integer)):
        return S(str(int(v)) if v >= 0 else f"({int(v)})")
    v = float(v)
    return S(repr(v) if not (v < 0 or math.copysign(1.0, v) < 0) else f"({v!r})")


def _join(code, *xs, cont=None) -> S:
    deps = frozenset().union(*[x.deps for x in xs]) if xs else frozenset()
    return S(code, deps, any(x.cont for x in xs) if cont is None else cont, None, all(x.const for x in xs))


def _mod(a, b):
    return a - math.floor(a / b) * b


def _div(a, b):
    q = a / b
    return float(math.trunc(q)) if isinstance(q, float) else math.trunc(q)


def _sign(a):
    return 1.0 if a > 0 else (-1.0 if a < 0 else 0.0)


def _checked_index(k, n, what):
    k = int(k)
    if not 1 <= k <= n:
        raise ModelError(f"index {k} of {what} outside 1..{n}")
    return k - 1


NAMESPACE = {"math": math, "_mod": _mod, "_div": _div, "_sign": _sign, "_ix": _checked_index}

_MATH1 = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "log", "sqrt", "log10"}


# ----------------------------------------------------------------------------- variables
@dataclass
class Var:
    name: str                # base name
    type: str
    dims: tuple              # ints
    kind: str = "alg"        # state / alg / discrete
    slots: np.ndarray | None = None    # object array of V indices (shape dims or ())
    dslots: np.ndarray | None = None   # derivative slots of a state
    start: np.ndarray | None = None
    fixed: np.ndarray | None = None


@dataclass
class Clause:
    branches: list           # [(cond S, [(k, S)], [(k, S)])]
    init_only: list = field(default_factory=list)   # per branch: the condition contains initial()


class _Ctx:
    """The mutable state relations and initial() read while the generated code runs."""

    def __init__(self, n: int):
        self.SW = np.zeros(n, dtype=bool)
        self.SWnew = np.zeros(n, dtype=bool)
        self.mode = "cont"       # cont | event | init
        self.init = False
        self.h = 5e-11

    def rel(self, k: int, g: float, strict: bool) -> bool:
        if self.mode == "cont":
            return self.SW[k]
        if self.mode == "init":
            v = (g > 0) if strict else (g >= 0)
        else:
            v = (g >= -self.h) if self.SW[k] else (g > self.h)
        self.SWnew[k] = v
        return v


class Interp:
    def __init__(self, m: A.Model, rtol: float = 1e-10, atol: float = 1e-12, time_limit: float = 120.0):
        self.m = m
        self.rtol, self.atol = rtol, atol
        self.time_limit = time_limit
        self.params: dict = {}
        self.vars: dict[str, Var] = {}
        self.nV = 0
        self.names: list = []          # V index -> scalar name
        self.rels: list = []           # (g S, strict, exact)
        self.funcs: dict = {}
        self.records = {r.name: r for r in m.records}
        self.ns0 = dict(NAMESPACE)
        self._setup()

    # ------------------------------------------------------------------ parameters
    def _peval(self, e, what):
        v = self.sc(e, {})
        return self._value(v, what)

    def _value(self, v, what):
        if isinstance(v, dict):
            return {k: self._value(x, what) for k, x in v.items()}
        if isinstance(v, np.ndarray):
            return np.vectorize(lambda s: self._value(s, what), otypes=[object])(v)
        if not v.const:
            raise ModelError(f"{what}: not a parameter expression ({v.code})")
        return eval(v.code, self.ns0)

    def _setup(self):
        m = self.m
        for f in m.functions:
            self._compile_function(f)
        for d in m.params:
            if d.type in self.records:
                rec = self.records[d.type]
                vals = {}
                src = dict(d.fields)
                if isinstance(d.binding, A.RecCon):
                    src.update(dict(d.binding.fields))
                for _, fn in rec.fields:
                    if fn not in src:
                        raise ModelError(f"record field {d.name}.{fn} has no value")
                    vals[fn] = self._peval(src[fn], f"{d.name}.{fn}")
                self.params[d.name] = vals
                continue
            if d.binding is None:
                raise ModelError(f"parameter {d.name} has no value")
            v = self._peval(d.binding, d.name)
            dims = tuple(int(self._peval(x, d.name)) for x in d.dims)
            if dims:
                v = np.asarray(v, dtype=object)
                if v.shape != dims:
                    raise ModelError(f"parameter {d.name}: value of shape {v.shape}, declared {dims}")
                v = v.astype(float) if d.type == "Real" else v
            elif d.type == "Integer":
                if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                    raise ModelError(f"Integer parameter {d.name} = {v!r}")
                v = int(v)
            elif d.type == "Real":
                v = float(v)
            self.params[d.name] = v
        # classify the variables
        decls = [d for b in m.blocks for d in b.decls]
        states, discrete = set(), set()
        for e in m.equations():
            self._classify(e, states, discrete, False)
        for d in decls:
            if d.name in self.vars or d.name in self.params:
                raise ModelError(f"{d.name} declared twice")
            if d.prefix in ("parameter", "constant"):
                raise ModelError("parameters belong in Model.params")
            dims = tuple(int(self._peval(x, d.name)) for x in d.dims)
            if any(n < 0 for n in dims):
                raise ModelError(f"{d.name}: negative dimension")
            kind = "state" if d.name in states else ("discrete" if d.name in discrete else "alg")
            if d.name in states and d.name in discrete:
                raise ModelError(f"{d.name} is a state and assigned in a when-clause")
            if kind == "state" and d.type != "Real":
                raise ModelError(f"der() of non-Real {d.name}")
            self.vars[d.name] = Var(d.name, d.type, dims, kind)
        # slots: states, derivatives, algebraic, discrete
        order = [v for v in self.vars.values() if v.kind == "state"]
        for v in order:
            v.slots = self._alloc(v, v.name)
        self.X = np.array([k for v in order for k in v.slots.flat], dtype=int)
        for v in order:
            v.dslots = self._alloc(v, f"der({v.name})", names=False)
        self.DX = np.array([k for v in order for k in v.dslots.flat], dtype=int)
        for v in self.vars.values():
            if v.kind == "alg":
                v.slots = self._alloc(v, v.name)
        for v in self.vars.values():
            if v.kind == "discrete":
                v.slots = self._alloc(v, v.name)
        self.D = np.array([k for v in self.vars.values() if v.kind == "discrete" for k in v.slots.flat], dtype=int)
        self.W = np.array([k for v in self.vars.values() if v.kind == "alg" for k in v.slots.flat], dtype=int)
        self.cont_slot = np.zeros(self.nV, dtype=bool)
        for v in self.vars.values():
            if v.kind in ("state", "alg") and v.type == "Real":
                self.cont_slot[list(v.slots.flat)] = True
                if v.dslots is not None:
                    self.cont_slot[list(v.dslots.flat)] = True
        # start values and fixed
        for d in decls:
            v = self.vars[d.name]
            shape = v.dims
            st = np.zeros(shape, dtype=float) if shape else np.array(0.0)
            fx = np.zeros(shape, dtype=bool) if shape else np.array(v.kind == "discrete")
            if v.kind == "discrete":
                fx[...] = True
            for key, e in d.mods.items():
                each = key.startswith("each ")
                k = key.split()[-1]
                val = self._peval(e, f"{d.name}.{k}")
                if k == "start":
                    if shape and not each:
                        val = np.asarray(val, dtype=object)
                        if val.shape != shape:
                            raise ModelError(f"{d.name}: start of shape {val.shape}, declared {shape}")
                    st[...] = np.asarray(val, dtype=float) if not isinstance(val, bool) else float(val)
                elif k == "fixed":
                    if shape and not each:
                        val = np.asarray(val, dtype=object)
                        if val.shape != shape:
                            raise ModelError(f"{d.name}: fixed of shape {val.shape}, declared {shape}")
                    fx[...] = np.asarray(val, dtype=bool)
            v.start, v.fixed = st, fx
        # equations
        self.eqs = []            # (lhs S, rhs S)
        self.clauses = []
        for e in m.equations():
            self._equation(e, {}, self.eqs, self.clauses)
        self.ieqs = []
        for e in m.initial_equations():
            self._equation(e, {}, self.ieqs, None)
        self._build()

    def _alloc(self, v: Var, label, names=True):
        n = int(np.prod(v.dims)) if v.dims else 1
        ks = np.arange(self.nV, self.nV + n, dtype=object)
        self.nV += n
        if v.dims:
            ks = ks.reshape(v.dims)
            for idx in np.ndindex(*v.dims):
                self.names.append(f"{label}[{','.join(str(i + 1) for i in idx)}]")
        else:
            ks = np.array(ks[0], dtype=object)
            self.names.append(label)
        return ks

    def _classify(self, e, states, discrete, inwhen):
        if isinstance(e, (A.Eq, A.Reinit)):
            if inwhen and isinstance(e, A.Eq):
                for x in (e.lhs if isinstance(e.lhs, tuple) else (e.lhs,)):
                    if isinstance(x, A.Ref):
                        discrete.add(x.name)
            for x in A.equation_exprs(e):
                for n in A.walk(x):
                    if isinstance(n, A.Call) and n.f == "der" and isinstance(n.args[0], A.Ref):
                        states.add(n.args[0].name)
        elif isinstance(e, A.ForEq):
            for b in e.body:
                self._classify(b, states, discrete, inwhen)
        elif isinstance(e, A.IfEq):
            for b in e.then + e.els:
                self._classify(b, states, discrete, inwhen)
        elif isinstance(e, A.When):
            for c, body in e.branches:
                for b in body:
                    self._classify(b, states, discrete, True)

    # ------------------------------------------------------------------ expressions
    def _param_s(self, v):
        if isinstance(v, dict):
            return {k: self._param_s(x) for k, x in v.items()}
        if isinstance(v, np.ndarray):
            return np.vectorize(_c, otypes=[object])(v)
        return _c(v)

    def _lookup(self, name, env):
        if name in env:
            return _c(env[name])
        if name == "time":
            return S("t", frozenset(), True, None, False)
        base, _, fld = name.partition(".")
        if base in self.params:
            v = self.params[base]
            if fld:
                if not isinstance(v, dict) or fld not in v:
                    raise ModelError(f"unknown name {name}")
                v = v[fld]
            return self._param_s(v)
        if name in self.vars:
            v = self.vars[name]
            f = np.vectorize(lambda k: S(f"V[{k}]", frozenset([k]), bool(self.cont_slot[k]), k, False),
                             otypes=[object])
            r = f(v.slots)
            return r if v.dims else r[()]
        raise ModelError(f"unknown name {name}")

    def _index(self, val, idx, env, name):
        if not isinstance(val, np.ndarray):
            raise ModelError(f"subscript of the scalar {name}")
        if len(idx) > val.ndim:
            raise ModelError(f"{len(idx)} subscripts of the {val.ndim}-dimensional {name}")
        ks = []
        for d, i in enumerate(idx):
            s = self.sc(i, env)
            if isinstance(s, np.ndarray) or not s.const:
                raise ModelError(f"non-constant subscript of {name}")
            k = eval(s.code, self.ns0)
            if isinstance(k, bool) or not float(k).is_integer():
                raise ModelError(f"subscript {k!r} of {name} is not an Integer")
            k = int(k)
            if not 1 <= k <= val.shape[d]:
                raise ModelError(f"subscript {k} of {name} outside 1..{val.shape[d]}")
            ks.append(k - 1)
        r = val[tuple(ks)]
        return r if isinstance(r, np.ndarray) and r.ndim else (r[()] if isinstance(r, np.ndarray) else r)

    def sc(self, e: Any, env: dict, noev: bool = False) -> S:
        """The scalar code of an expression: S, or an object array of S, or a dict (record)."""
        if isinstance(e, A.Num):
            return _c(e.v)
        if isinstance(e, A.Ref):
            v = self._lookup(e.name, env)
            return self._index(v, e.idx, env, e.name) if e.idx else v
        if isinstance(e, A.Arr):
            items = [self.sc(x, env, noev) for x in e.items]
            return _stack(items)
        if isinstance(e, A.Mat):
            return _stack([_stack([self.sc(x, env, noev) for x in r]) for r in e.rows])
        if isinstance(e, A.Compr):
            lo, hi = (self._int(x, env) for x in (e.lo, e.hi))
            return _stack([self.sc(e.body, {**env, e.var: i}, noev) for i in range(lo, hi + 1)], empty=True)
        if isinstance(e, A.RecCon):
            return {n: self.sc(v, env, noev) for n, v in e.fields}
        if isinstance(e, A.IfExp):
            c = self.sc(e.c, env, noev)
            a, b = self.sc(e.a, env, noev), self.sc(e.b, env, noev)
            return _elementwise(lambda x, y: _join(f"({x.code} if {c.code} else {y.code})", c, x, y), a, b)
        if isinstance(e, A.Op):
            return self._op(e, env, noev)
        if isinstance(e, A.Call):
            return self._call(e, env, noev)
        raise ModelError(f"unknown expression {e!r}")

    def _int(self, e, env):
        s = self.sc(e, env)
        if isinstance(s, np.ndarray) or not s.const:
            raise ModelError("non-constant range")
        v = eval(s.code, self.ns0)
        if isinstance(v, float) and not v.is_integer():
            raise ModelError(f"range bound {v} not an Integer")
        return int(v)

    def _op(self, e, env, noev):
        op = e.op
        xs = [self.sc(a, env, noev) for a in e.args]
        if op == "neg":
            return _elementwise(lambda a: _join(f"(-{a.code})", a), xs[0])
        if op == "not":
            return _join(f"(not {xs[0].code})", xs[0])
        a, b = xs
        if op in ("and", "or"):
            return _join(f"({a.code} {op} {b.code})", a, b)
        if op in ("<", "<=", ">", ">="):
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                raise ModelError("relation of arrays")
            g = f"({a.code}) - ({b.code})" if op[0] == ">" else f"({b.code}) - ({a.code})"
            gs = _join(g, a, b)
            if noev or not gs.cont:
                return _join(f"({a.code} {op} {b.code})", a, b)
            k = len(self.rels)
            self.rels.append((gs, len(op) == 1))
            return _join(f"C.rel({k}, {g}, {len(op) == 1})", a, b, cont=False)
        if op in ("==", "<>"):
            return _join(f"({a.code} {'==' if op == '==' else '!='} {b.code})", a, b)
        if op in ("+", "-"):
            if isinstance(a, np.ndarray) != isinstance(b, np.ndarray):
                raise ModelError(f"{op} of an array and a scalar")
            if isinstance(a, np.ndarray) and a.shape != b.shape:
                raise ModelError(f"{op} of arrays of shapes {a.shape} and {b.shape}")
            return _elementwise(lambda x, y: _join(f"({x.code} {op} {y.code})", x, y), a, b)
        if op == "*":
            if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
                return _matmul(a, b)
            return _elementwise(lambda x, y: _join(f"({x.code} * {y.code})", x, y), a, b)
        if op == "/":
            if isinstance(b, np.ndarray):
                raise ModelError("division by an array")
            return _elementwise(lambda x, y: _join(f"({x.code} / {y.code})", x, y), a, b)
        if op == "^":
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                raise ModelError("^ of arrays")
            return _join(f"({a.code} ** {b.code})", a, b)
        raise ModelError(f"operator {op}")

    def _call(self, e, env, noev):
        f = e.f
        if f == "der":
            r = e.args[0]
            if not isinstance(r, A.Ref) or r.name not in self.vars or self.vars[r.name].kind != "state":
                raise ModelError(f"der() of {A.expr(r)}")
            v = self.vars[r.name]
            arr = np.vectorize(lambda k: S(f"V[{k}]", frozenset([k]), True, k, False), otypes=[object])(v.dslots)
            arr = arr if v.dims else arr[()]
            return self._index(arr, r.idx, env, r.name) if r.idx else arr
        if f in ("pre", "edge", "change"):
            r = e.args[0]
            if not isinstance(r, A.Ref) or r.name not in self.vars:
                raise ModelError(f"{f}() of {A.expr(r)}")
            cur = self.sc(r, env)

            def one(s):
                k = s.ref
                if f == "pre":
                    return S(f"PRE[{k}]", frozenset(), False, None, False)
                if f == "edge":
                    return S(f"(bool(V[{k}]) and not bool(PRE[{k}]))", frozenset([k]), False, None, False)
                return S(f"(V[{k}] != PRE[{k}])", frozenset([k]), False, None, False)
            return _elementwise(one, cur)
        if f == "initial":
            return S("C.init", frozenset(), False, None, False)
        if f == "noEvent":
            return self.sc(e.args[0], env, True)
        if f == "smooth":
            return self.sc(e.args[1], env, noev)
        args = [self.sc(a, env, noev) for a in e.args]
        if f in self.funcs:
            fn = self.funcs[f]
            flat = [_pycode(a) for a in args]
            code = f"F_{f}({', '.join(c for c, _ in flat)})[{e.out}]"
            deps = [x for _, xs in flat for x in xs]
            return _join(code, *deps) if deps else S(code)
        if f in _MATH1:
            return _elementwise(lambda a: _join(f"math.{f}({a.code})", a), args[0])
        if f in ("abs",):
            return _elementwise(lambda a: _join(f"abs({a.code})", a), args[0])
        if f == "sign":
            return _join(f"_sign({args[0].code})", args[0])
        if f == "atan2":
            return _join(f"math.atan2({args[0].code}, {args[1].code})", *args)
        if f in ("min", "max"):
            if len(args) == 1:
                xs = list(np.asarray(args[0]).flat)
                return _join(f"{f}({', '.join(x.code for x in xs)})", *xs) if len(xs) > 1 else xs[0]
            return _join(f"{f}({args[0].code}, {args[1].code})", *args)
        if f in ("mod", "rem", "div"):
            fn = {"mod": "_mod", "rem": "math.fmod", "div": "_div"}[f]
            return _join(f"{fn}({args[0].code}, {args[1].code})", *args)
        if f in ("floor", "ceil"):
            return _join(f"float(math.{f}({args[0].code}))", args[0])
        if f == "integer":
            return _join(f"math.floor({args[0].code})", args[0])
        if f in ("sum", "product"):
            xs = list(np.asarray(args[0]).flat)
            if not xs:
                return _c(0.0 if f == "sum" else 1.0)
            return _join("(" + (" + " if f == "sum" else " * ").join(x.code for x in xs) + ")", *xs)
        if f == "size":
            a = args[0]
            if not isinstance(a, np.ndarray):
                raise ModelError("size() of a scalar")
            return _c(a.shape[self._int(e.args[1], env) - 1])
        if f in ("fill", "zeros", "ones"):
            if f == "fill":
                v, dims = args[0], [self._int(x, env) for x in e.args[1:]]
            else:
                v, dims = _c(0.0 if f == "zeros" else 1.0), [self._int(x, env) for x in e.args]
            out = np.empty(dims, dtype=object)
            for i in np.ndindex(*dims):
                out[i] = v
            return out
        if f == "identity":
            n = self._int(e.args[0], env)
            out = np.empty((n, n), dtype=object)
            for i in np.ndindex(n, n):
                out[i] = _c(1.0 if i[0] == i[1] else 0.0)
            return out
        if f == "diagonal":
            v = args[0]
            n = v.shape[0]
            out = np.empty((n, n), dtype=object)
            for i in np.ndindex(n, n):
                out[i] = v[i[0]] if i[0] == i[1] else _c(0.0)
            return out
        if f == "transpose":
            return args[0].T.copy()
        if f == "cross":
            a, b = args
            if a.shape != (3,) or b.shape != (3,):
                raise ModelError("cross() of non-3-vectors")

            def m(i, j, k, l):
                return _join(f"({a[i].code} * {b[j].code} - {a[k].code} * {b[l].code})", a[i], b[j], a[k], b[l])
            return _stack([m(1, 2, 2, 1), m(2, 0, 0, 2), m(0, 1, 1, 0)])
        if f == "skew":
            a = args[0]
            z = _c(0.0)

            def neg(x):
                return _join(f"(-{x.code})", x)
            return _stack([_stack([z, neg(a[2]), a[1]]), _stack([a[2], z, neg(a[0])]), _stack([neg(a[1]), a[0], z])])
        if f == "linspace":
            a, b = args[0], args[1]
            n = self._int(e.args[2], env)
            if n < 2:
                raise ModelError("linspace with n < 2")
            return _stack([_join(f"({a.code} + ({b.code} - {a.code}) * {i} / {n - 1})", a, b) for i in range(n)])
        if f == "cat":
            k = self._int(e.args[0], env)
            parts = [np.asarray(x, dtype=object) for x in args[1:]]
            return np.concatenate(parts, axis=k - 1)
        if f == "scalar":
            return list(np.asarray(args[0]).flat)[0]
        raise ModelError(f"unknown function {f}")

    # ------------------------------------------------------------------ equations
    def _equation(self, e, env, out, clauses):
        if isinstance(e, A.Eq):
            if isinstance(e.lhs, tuple):
                call = e.rhs
                if not isinstance(call, A.Call) or call.f not in self.funcs:
                    raise ModelError("a tuple left-hand side needs a function call")
                nout = len(self.funcs[call.f].outputs)
                if len(e.lhs) > nout:
                    raise ModelError(f"{len(e.lhs)} results of {call.f}, which has {nout} outputs")
                for j, l in enumerate(e.lhs):
                    out.append((self.sc(l, env), self.sc(A.Call(call.f, call.args, j), env)))
                return
            lhs, rhs = self.sc(e.lhs, env), self.sc(e.rhs, env)
            la, ra = isinstance(lhs, np.ndarray), isinstance(rhs, np.ndarray)
            if la != ra or (la and lhs.shape != rhs.shape):
                raise ModelError(f"equation of shapes {getattr(lhs, 'shape', ())} and {getattr(rhs, 'shape', ())}")
            if la:
                out.extend(zip(lhs.flat, rhs.flat))
            else:
                out.append((lhs, rhs))
        elif isinstance(e, A.ForEq):
            lo, hi = self._int(e.lo, env), self._int(e.hi, env)
            step = 1 if e.step is None else self._int(e.step, env)
            for i in range(lo, hi + 1, step) if step > 0 else range(lo, hi - 1, step):
                for b in e.body:
                    self._equation(b, {**env, e.var: i}, out, clauses)
        elif isinstance(e, A.IfEq):
            c = self.sc(e.cond, env)
            t, f = [], []
            for b in e.then:
                self._equation(b, env, t, clauses)
            for b in e.els:
                self._equation(b, env, f, clauses)
            if len(t) != len(f):
                raise ModelError("if-equation branches with different numbers of equations")
            for (l1, r1), (l2, r2) in zip(t, f):
                if l1.code != l2.code:
                    raise ModelError("if-equation branches define different variables (not in the interpreter)")
                out.append((l1, _join(f"({r1.code} if {c.code} else {r2.code})", c, r1, r2)))
        elif isinstance(e, A.When):
            if clauses is None:
                raise ModelError("when-equation in an initial equation section")
            branches, inits = [], []
            for cond, body in e.branches:
                c = self.sc(cond, env)
                if isinstance(c, np.ndarray):
                    raise ModelError("vector when-conditions are not in the interpreter")
                assigns, reinits = [], []
                for b in body:
                    if isinstance(b, A.Reinit):
                        x = self.sc(b.var, env)
                        if not isinstance(x, S) or x.ref is None or x.ref not in set(self.X):
                            raise ModelError(f"reinit of {A.expr(b.var)}, not a state")
                        reinits.append((x.ref, self.sc(b.value, env)))
                    elif isinstance(b, A.Eq) and isinstance(b.lhs, A.Ref):
                        x, v = self.sc(b.lhs, env), self.sc(b.rhs, env)
                        if isinstance(x, np.ndarray):
                            assigns.extend((xx.ref, vv) for xx, vv in zip(x.flat, np.asarray(v).flat))
                        else:
                            assigns.append((x.ref, v))
                    else:
                        raise ModelError("only v = expr and reinit in when-clauses (interpreter)")
                branches.append((c, assigns, reinits))
                inits.append(any(isinstance(n, A.Call) and n.f == "initial" for n in A.walk(cond)))
            sets = [sorted(k for k, _ in a) for _, a, _ in branches]
            if any(s != sets[0] for s in sets):
                raise ModelError("when/elsewhen branches assign different variables")
            clauses.append(Clause(branches, inits))
        elif isinstance(e, A.Reinit):
            raise ModelError("reinit outside a when-clause")
        else:
            raise ModelError(f"unknown equation {e!r}")

    # ------------------------------------------------------------------ functions
    def _compile_function(self, f: A.Function):
        lines = [f"def F_{f.name}({', '.join('l_' + n for _, n, _ in f.inputs)}):"]
        for t, n in f.outputs + f.protected:
            lines.append(f"    l_{n} = {'0' if t in ('Integer',) else ('False' if t == 'Boolean' else '0.0')}")
        for s in f.body:
            lines += self._stmt(s, "    ", f)
        lines.append(f"    return ({''.join('l_' + n + ', ' for _, n in f.outputs)})")
        src = "\n".join(lines)
        exec(compile(src, f"<function {f.name}>", "exec"), self.ns0)
        self.funcs[f.name] = f
        self.fsrc = getattr(self, "fsrc", []) + [src]

    def _stmt(self, s, ind, f):
        if isinstance(s, A.Assign):
            if isinstance(s.target, tuple):
                tg = ", ".join(self._fexpr(t, f) for t in s.target)
                return [f"{ind}{tg}, *_ = {self._fexpr(s.value, f, whole=True)}"]
            return [f"{ind}{self._fexpr(s.target, f)} = {self._fexpr(s.value, f)}"]
        if isinstance(s, A.ForSt):
            step = "1" if s.step is None else self._fexpr(s.step, f)
            hi = f"int({self._fexpr(s.hi, f)}) + (1 if {step} > 0 else -1)"
            out = [f"{ind}for l_{s.var} in range(int({self._fexpr(s.lo, f)}), {hi}, int({step})):"]
            for b in s.body:
                out += self._stmt(b, ind + "    ", f)
            return out + [f"{ind}    pass"]
        if isinstance(s, A.WhileSt):
            out = [f"{ind}_n = 0", f"{ind}while {self._fexpr(s.cond, f)}:",
                   f"{ind}    _n += 1", f"{ind}    if _n > 100000: raise RuntimeError('while loop does not end')"]
            for b in s.body:
                out += self._stmt(b, ind + "    ", f)
            return out
        if isinstance(s, A.IfSt):
            out = []
            for k, (c, body) in enumerate(s.branches):
                out.append(f"{ind}{'if' if k == 0 else 'elif'} {self._fexpr(c, f)}:")
                for b in body:
                    out += self._stmt(b, ind + "    ", f)
                out.append(f"{ind}    pass")
            if s.els:
                out.append(f"{ind}else:")
                for b in s.els:
                    out += self._stmt(b, ind + "    ", f)
                out.append(f"{ind}    pass")
            return out
        raise ModelError(f"statement {s!r}")

    def _fexpr(self, e, f, whole=False):
        """Python code of an expression inside a function (locals l_*, no events)."""
        if isinstance(e, A.Num):
            return _c(e.v).code
        if isinstance(e, A.Ref):
            base, _, fld = e.name.partition(".")
            code = f"l_{base}" + (f"[{fld!r}]" if fld else "")
            for i in e.idx:
                code += f"[int({self._fexpr(i, f)}) - 1]"
            return code
        if isinstance(e, A.Op):
            xs = [self._fexpr(a, f) for a in e.args]
            if e.op == "neg":
                return f"(-{xs[0]})"
            if e.op == "not":
                return f"(not {xs[0]})"
            op = {"^": "**", "<>": "!="}.get(e.op, e.op)
            return f"({xs[0]} {op} {xs[1]})"
        if isinstance(e, A.IfExp):
            return f"({self._fexpr(e.a, f)} if {self._fexpr(e.c, f)} else {self._fexpr(e.b, f)})"
        if isinstance(e, A.Call):
            xs = [self._fexpr(a, f) for a in e.args]
            g = e.f
            if g in self.funcs:
                return f"F_{g}({', '.join(xs)})" + ("" if whole else f"[{e.out}]")
            if g in _MATH1:
                return f"math.{g}({xs[0]})"
            if g == "size":
                return f"len({xs[0]})"
            if g in ("noEvent", "smooth"):
                return xs[-1]
            m = {"abs": "abs", "sign": "_sign", "atan2": "math.atan2", "min": "min", "max": "max", "mod": "_mod",
                 "rem": "math.fmod", "div": "_div", "integer": "math.floor", "sum": "sum"}
            if g in m:
                return f"{m[g]}({', '.join(xs)})"
            if g in ("floor", "ceil"):
                return f"float(math.{g}({xs[0]}))"
            raise ModelError(f"function {g} inside a function (interpreter)")
        if isinstance(e, A.Arr):
            return "[" + ", ".join(self._fexpr(x, f) for x in e.items) + "]"
        raise ModelError(f"expression {e!r} inside a function (interpreter)")

    # ------------------------------------------------------------------ sorting
    def _build(self):
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching
        unknowns = list(self.DX) + list(self.W)
        col = {k: j for j, k in enumerate(unknowns)}
        neq = len(self.eqs)
        if neq != len(unknowns):
            raise ModelError(f"unbalanced: {neq} equations, {len(unknowns)} unknowns")
        rows, cols = [], []
        inc = []
        for i, (l, r) in enumerate(self.eqs):
            ks = sorted({col[k] for k in (l.deps | r.deps) if k in col})
            inc.append(ks)
            rows += [i] * len(ks)
            cols += ks
        if neq == 0:
            self.blocks = []
        else:
            M = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(neq, neq))
            match = maximum_bipartite_matching(M, perm_type="column")   # row i -> column
            if (match < 0).any():
                raise ModelError("structurally singular: no matching of equations and unknowns")
            eq_of = {int(match[i]): i for i in range(neq)}
            er, ec = [], []
            for i in range(neq):
                for j in inc[i]:
                    if j != match[i]:
                        er.append(i)
                        ec.append(eq_of[j])          # i needs the equation computing j
            G = csr_matrix((np.ones(len(er)), (er, ec)), shape=(neq, neq))
            ncomp, lab = connected_components(G, directed=True, connection="strong")
            comps = [[] for _ in range(ncomp)]
            for i in range(neq):
                comps[lab[i]].append(i)
            # topological order of the components (dependencies first)
            deps = [set() for _ in range(ncomp)]
            for a, b in zip(er, ec):
                if lab[a] != lab[b]:
                    deps[lab[a]].add(lab[b])
            order, state = [], [0] * ncomp

            def visit(c):
                stack = [(c, iter(deps[c]))]
                state[c] = 1
                while stack:
                    n, it = stack[-1]
                    nxt = next((d for d in it if state[d] == 0), None)
                    if nxt is None:
                        stack.pop()
                        state[n] = 2
                        order.append(n)
                    else:
                        state[nxt] = 1
                        stack.append((nxt, iter(deps[nxt])))
            for c in range(ncomp):
                if state[c] == 0:
                    visit(c)
            self.blocks = [(comps[c], [unknowns[match[i]] for i in comps[c]]) for c in order]
        lines = ["def _eval(V, PRE, t, C):"]
        self.newton = []
        for eqs, ks in self.blocks:
            if len(eqs) == 1:
                l, r = self.eqs[eqs[0]]
                k = ks[0]
                if l.ref == k and k not in r.deps:
                    lines.append(f"    V[{k}] = {r.code}")
                    continue
                if r.ref == k and k not in l.deps:
                    lines.append(f"    V[{k}] = {l.code}")
                    continue
            j = len(self.newton)
            res = [f"def _res{j}(z, V, PRE, t, C):"]
            res += [f"    V[{k}] = z[{i}]" for i, k in enumerate(ks)]
            res.append("    return [" + ", ".join(f"({self.eqs[i][0].code}) - ({self.eqs[i][1].code})" for i in eqs) + "]")
            self.newton.append(("\n".join(res), ks))
            lines.append(f"    _newton(_res{j}, {[int(k) for k in ks]}, V, PRE, t, C)")
        lines.append("    return None")
        ns = dict(self.ns0)
        ns["_newton"] = _newton
        for src, _ in self.newton:
            exec(compile(src, "<newton>", "exec"), ns)
        self.src = "\n".join(lines)
        exec(compile(self.src, "<model>", "exec"), ns)
        self._eval = ns["_eval"]
        self.ns = ns
        ev = [i for i, (g, _) in enumerate(self.rels)]
        self.ev_rel = ev
        gsrc = "def _g(V, PRE, t, C):\n    return [" + ", ".join(self.rels[i][0].code for i in ev) + "]"
        exec(compile(gsrc, "<g>", "exec"), ns)
        self._g = ns["_g"]

        def lam(s):
            return eval(compile(f"lambda V, PRE, t, C: {s.code}", "<expr>", "eval"), ns)
        self.cl = [Clause([(lam(c), [(k, lam(v)) for k, v in a], [(k, lam(v)) for k, v in r]) for c, a, r in cl.branches],
                          cl.init_only) for cl in self.clauses]
        self.ires = [lam(_join(f"({l.code}) - ({r.code})", l, r)) for l, r in self.ieqs]

    # ------------------------------------------------------------------ simulation
    def _conds(self, V, PRE, t, C):
        return [[bool(c(V, PRE, t, C)) for c, _, _ in cl.branches] for cl in self.cl]

    def _discrete_solve(self, V, PRE, t, C, condpre, initial=False):
        """One event iteration: continuous and discrete equations with pre fixed; returns
        (conditions, reinits)."""
        reinits = []
        for _ in range(100):
            self._eval(V, PRE, t, C)
            conds = self._conds(V, PRE, t, C)
            newD = {int(k): PRE[k] for k in self.D}
            reinits = []
            for cl, cs, cps in zip(self.cl, conds, condpre):
                for b, (c, assigns, rs), cp, io in zip(range(len(cs)), cl.branches, cps, cl.init_only):
                    fire = cs[b] and not cp
                    if initial and not io:
                        fire = False
                    if fire:
                        for k, v in assigns:
                            newD[k] = float(v(V, PRE, t, C))
                        reinits += [(k, float(v(V, PRE, t, C))) for k, v in rs]
                        break
            changed = False
            for k, v in newD.items():
                if V[k] != v:
                    V[k] = v
                    changed = True
            if not changed:
                return conds, reinits
        raise OracleError("the discrete equations do not settle within an event iteration")

    def simulate(self) -> Result:
        from scipy.integrate import solve_ivp
        from scipy.optimize import root
        t_wall = _time.perf_counter()
        m = self.m
        stop, dt = float(m.stop), float(m.dt)
        grid = np.linspace(0.0, stop, int(round(stop / dt)) + 1)
        V = np.zeros(self.nV)
        C = _Ctx(len(self.rels))
        for v in self.vars.values():
            V[list(v.slots.flat)] = np.asarray(v.start, dtype=float).flat
        PRE = V.copy()
        # ---- initialization
        C.mode, C.init = "init", True
        free = [k for v in self.vars.values() if v.kind == "state"
                for k, fx in zip(v.slots.flat, np.asarray(v.fixed).flat) if not fx]
        if len(self.ires) != len(free):
            raise ModelError(f"{len(self.ires)} initial equations for {len(free)} states with fixed = false")
        if free:
            def resid(z):
                V[free] = z
                PRE[:] = V
                self._eval(V, PRE, 0.0, C)
                return [r(V, PRE, 0.0, C) for r in self.ires]
            sol = root(resid, V[free].copy(), method="hybr", options={"xtol": 1e-13})
            # (hybr may report no progress once at round-off: the residual decides)
            if max(abs(np.asarray(resid(sol.x)))) > 1e-8:
                raise OracleError(f"initial equations not solved: {sol.message}")
            V[free] = sol.x
        PRE[:] = V
        self._eval(V, PRE, 0.0, C)
        PRE[:] = V
        condpre = [[False] * len(cl.branches) for cl in self.cl]
        for _ in range(50):
            conds, reinits = self._discrete_solve(V, PRE, 0.0, C, condpre, initial=True)
            if not reinits and np.array_equal(V[self.D], PRE[self.D]):
                break
            for k, v in reinits:
                V[k] = v
            PRE[:] = V
            condpre = conds
        C.SW[:] = C.SWnew
        C.init = False
        C.mode = "cont"
        self._eval(V, PRE, 0.0, C)
        PRE[:] = V
        condpre = self._conds(V, PRE, 0.0, C)
        # ---- integration
        segments, events = [], []
        t0 = 0.0
        nX = len(self.X)
        cache = {}

        def full(t, y):
            key = (t, y.tobytes())
            if key not in cache:
                if len(cache) > 64:
                    cache.clear()
                if _time.perf_counter() - t_wall > self.time_limit:
                    raise OracleError("the interpreter's time limit")
                V[self.X] = y
                self._eval(V, PRE, t, C)
                cache[key] = (V[self.DX].copy(), np.asarray(self._g(V, PRE, t, C), dtype=float))
            return cache[key]

        def rhs(t, y):
            return full(t, y)[0]

        nev = 0
        while t0 < stop - 1e-12:
            evs = []
            for j, i in enumerate(self.ev_rel):
                sw = bool(C.SW[i])

                def ev(t, y, j=j, sw=sw):
                    g = full(t, y)[1][j]
                    return g + 2 * C.h if sw else g - 2 * C.h
                ev.terminal = True
                ev.direction = -1 if sw else 1
                evs.append(ev)
            y0 = V[self.X].copy()
            D0, SW0 = V[self.D].copy(), C.SW.copy()
            if nX == 0:
                # nothing to integrate: step on the grid, looking for crossings on a fine grid
                y0 = np.zeros(1)
                Xs = self.X

                def rhs0(t, y):
                    full(t, V[Xs])
                    return np.zeros(1)
                fun, ev_wrap = rhs0, [_wrap0(e, V, Xs) for e in evs]
            else:
                fun, ev_wrap = rhs, evs
            cache.clear()
            sol = solve_ivp(fun, (t0, stop), y0, method="DOP853", rtol=self.rtol, atol=self.atol,
                            events=ev_wrap or None, dense_output=True, max_step=(stop / 50))
            if sol.status < 0:
                raise OracleError(f"solve_ivp: {sol.message}")
            t1 = float(sol.t[-1])
            segments.append((t0, t1, sol.sol, D0, SW0, nX))
            if sol.status == 1:
                nev += 1
                if nev > 2000:
                    raise OracleError("more than 2000 events")
                y = sol.y[:, -1] if nX else V[self.X]
                V[self.X] = y
                # left limit
                C.mode = "cont"
                self._eval(V, PRE, t1, C)
                PRE[:] = V
                C.mode = "event"
                C.SWnew[:] = C.SW
                for _ in range(50):
                    conds, reinits = self._discrete_solve(V, PRE, t1, C, condpre)
                    for k, v in reinits:
                        V[k] = v
                    if not reinits and np.array_equal(V, PRE, equal_nan=True) is False:
                        pass
                    changed = bool(reinits) or not np.array_equal(V[self.D], PRE[self.D]) or conds != condpre
                    PRE[:] = V
                    condpre = conds
                    if not changed:
                        break
                else:
                    raise OracleError("event iteration does not converge")
                C.SW[:] = C.SWnew
                C.mode = "cont"
                self._eval(V, PRE, t1, C)
                PRE[:] = V
                condpre = self._conds(V, PRE, t1, C)
                events.append(t1)
            t0 = t1
        # ---- sampling
        out = np.full((len(grid), self.nV), np.nan)
        for gi, t in enumerate(grid):
            seg = None
            for s in segments:
                if s[0] <= t <= s[1] + 1e-12:
                    seg = s
            if seg is None:
                seg = segments[-1] if segments else None
            if seg is not None:
                t0s, t1s, f, D0, SW0, n = seg
                if n:
                    V[self.X] = f(min(max(t, t0s), t1s))
                V[self.D] = D0
                C.SW[:] = SW0
            C.mode = "cont"
            PRE[:] = V
            self._eval(V, PRE, t, C)
            out[gi] = V
        keep = [i for i, n in enumerate(self.names) if not n.startswith("der(")]
        return Result(grid, {self.names[i]: out[:, i] for i in keep}, events,
                      {self.names[i]: self._vtype(self.names[i]) for i in keep})

    def _vtype(self, name):
        v = self.vars[name.split("[")[0]]
        return v.type if v.kind != "discrete" or v.type != "Real" else "discrete Real"


def _wrap0(ev, V, Xs):
    def w(t, y):
        return ev(t, V[Xs])
    w.terminal, w.direction = True, ev.direction
    return w


@dataclass
class Result:
    t: np.ndarray
    data: dict
    events: list
    types: dict


def _newton(res, ks, V, PRE, t, C):
    z = V[ks].astype(float)
    r = np.asarray(res(z, V, PRE, t, C), dtype=float)
    for _ in range(60):
        nr = np.max(np.abs(r))
        if nr < 1e-14 * (1 + np.max(np.abs(z))):
            break
        n = len(z)
        J = np.empty((n, n))
        for j in range(n):
            h = 1e-7 * (1 + abs(z[j]))
            zz = z.copy()
            zz[j] += h
            J[:, j] = (np.asarray(res(zz, V, PRE, t, C), dtype=float) - r) / h
        try:
            dz = np.linalg.solve(J, -r)
        except np.linalg.LinAlgError:
            raise OracleError("singular Jacobian in an algebraic loop") from None
        lam = 1.0
        for _ in range(30):
            zn = z + lam * dz
            rn = np.asarray(res(zn, V, PRE, t, C), dtype=float)
            if np.max(np.abs(rn)) < nr or lam < 1e-6:
                break
            lam /= 2
        z, r = zn, rn
        if np.max(np.abs(lam * dz)) < 1e-15 * (1 + np.max(np.abs(z))):
            break
    if np.max(np.abs(r)) > 1e-9 * (1 + np.max(np.abs(z))):
        raise OracleError("Newton's method did not converge in an algebraic loop")
    res(z, V, PRE, t, C)


def _stack(items, empty=False):
    if not items:
        return np.empty((0,), dtype=object)
    if any(isinstance(x, np.ndarray) for x in items):
        shapes = {x.shape if isinstance(x, np.ndarray) else () for x in items}
        if len(shapes) != 1:
            raise ModelError("array constructor of different shapes")
        out = np.empty((len(items),) + items[0].shape, dtype=object)
        for i, x in enumerate(items):
            out[i] = x
        return out
    out = np.empty(len(items), dtype=object)
    for i, x in enumerate(items):
        out[i] = x
    return out


def _elementwise(f, *xs):
    arrs = [x for x in xs if isinstance(x, np.ndarray)]
    if not arrs:
        return f(*xs)
    shape = arrs[0].shape
    if any(a.shape != shape for a in arrs):
        raise ModelError(f"arrays of shapes {[a.shape for a in arrs]}")
    out = np.empty(shape, dtype=object)
    for i in np.ndindex(*shape):
        out[i] = f(*[x[i] if isinstance(x, np.ndarray) else x for x in xs])
    return out


def _matmul(a, b):
    def dot(u, v):
        if len(u) != len(v):
            raise ModelError("matrix product of mismatched sizes")
        if len(u) == 0:
            return _c(0.0)
        return _join("(" + " + ".join(f"{x.code} * {y.code}" for x, y in zip(u, v)) + ")", *u, *v)
    if a.ndim == 1 and b.ndim == 1:
        return dot(list(a), list(b))
    if a.ndim == 2 and b.ndim == 1:
        return _stack([dot(list(a[i]), list(b)) for i in range(a.shape[0])])
    if a.ndim == 1 and b.ndim == 2:
        return _stack([dot(list(a), list(b[:, j])) for j in range(b.shape[1])])
    out = np.empty((a.shape[0], b.shape[1]), dtype=object)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = dot(list(a[i]), list(b[:, j]))
    return out


def _pycode(a):
    """(code, [S]) of a function argument: a scalar, a list for an array, a dict for a record."""
    if isinstance(a, dict):
        parts = {k: _pycode(v) for k, v in a.items()}
        return "{" + ", ".join(f"{k!r}: {c}" for k, (c, _) in parts.items()) + "}", [s for _, ss in parts.values() for s in ss]
    if isinstance(a, np.ndarray):
        parts = [_pycode(x) for x in a]
        return "[" + ", ".join(c for c, _ in parts) + "]", [s for _, ss in parts for s in ss]
    return a.code, [a]


def simulate(m: A.Model, **kw: Any) -> Result:
    return Interp(m, **kw).simulate()
