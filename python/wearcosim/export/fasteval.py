"""Compiled evaluation of user functions whose arguments are all numeric.

Build-time values of parameters (``annotation(Evaluate=true)``, structural parameters) often call
Modelica functions with numbers only: the finite-element rotor assembles and inverts its
matrices that way.  The interpreter in :mod:`wearcosim.export.symbolic` walks the IR node by
node for every scalar operation; this module translates a function's algorithm once into
Python source, ``compile()``s it and caches it per model, and :meth:`Evaluator.inline
<wearcosim.export.symbolic.Evaluator.inline>` runs it whenever all arguments are plain numbers
or arrays of plain numbers.

Same results, bit for bit
-------------------------
The compiled code is the interpreter's evaluation with the dispatch taken out, not a
re-implementation of Modelica's semantics: it computes on the same Python objects (Python
numbers, numpy *object* arrays built by the interpreter's own helpers), applies the same Python
operators to the same operands in the same order, and delegates everything that is not a scalar
operation to the interpreter's value-level code (``Evaluator.index``, ``binary``, ``unary``,
``builtin``, ``_stack``, ``matmul``, ...).  Integers stay integers, ``x^2`` is ``x ** 2`` as in
``_binop``, matrix products sum in ``matmul``'s order.  What is compiled away is bookkeeping:

* expressions whose value is statically a number (literals, scalar variables, loop indices,
  fully subscripted array elements, arithmetic of those) become plain Python expressions;
* element subscripts become numpy indexing with the interpreter's checks (lower bound checked
  unless the subscript is provably an integer >= 1; numpy raises above the size);
* copy-on-write: every array variable has an ownership flag.  A subscripted assignment copies
  the array first unless the flag says that only this variable refers to it; a statement whose
  value may share a variable's array (``B := A``, a slice, an argument of a call whose result
  is stored, an if-expression branch) clears that variable's flag first.  Arrays are never
  changed in place while another variable can see them, which is the interpreter's value
  semantics without its copy per scalar assignment.

Static facts are kept true at run time by cheap checks where they are not provable (a scalar
variable never holds an array; an array variable holds a number or an array of at most its
declared number of dimensions; array elements are numbers).

Falling back
------------
A construct the translator does not handle raises :class:`Unsupported` at translation: the
function (and every function calling it) is then always evaluated by the interpreter.  At run
time, any exception inside the compiled code (a subscript out of range, a division by zero, a
check that fails, a value the interpreter would treat differently) makes :func:`call` return
``None`` and the interpreter evaluates the call from scratch -- so the user sees the
interpreter's result or its error message with its location, never one of this module.
"""
from __future__ import annotations

import itertools
import math
import re
import weakref
from typing import Any, Optional

import numpy as np

from . import ir
from . import symbolic as S

#: switch for tests and debugging: False -> every call is interpreted
ENABLED = True

#: counters: calls answered by compiled code, calls that fell back at run time, functions
#: found untranslatable
stats = {"compiled": 0, "fallback": 0, "unsupported": 0}


class Unsupported(Exception):
    """A construct the translator does not handle: the interpreter evaluates the function."""


class _Bad(Exception):
    """A run-time situation where the compiled code could differ from the interpreter."""


# ============================================================================ run-time helpers
_nd = np.ndarray
_MISSING = object()
_COLON = slice(None)
_WHILE = range(100000)          # the interpreter's iteration limit of while loops

# the interpreter's value-level methods (index, binary, unary, builtin) on a bare evaluator:
# they use nothing but ``num`` (no structural hook: values here are numbers) and ``fail``
_EV = S.Evaluator.__new__(S.Evaluator)
_EV.structural_hook = None
_EV.loc = ir.Loc()
_EV.model = None
_EV._owned = {}


def _bad():
    raise _Bad()


def _ck(i):
    """0-based position of a read subscript, with the interpreter's lower-bound check."""
    if i >= 1:
        return i - 1
    raise _Bad()


def _pw(a, b):
    """``_binop('^')`` of two numbers when it is ``a ** b`` (else the interpreter decides)."""
    r = a ** b
    if isinstance(r, complex):
        raise _Bad()
    return r


def _and(a, b):
    return b if a else False


def _or(a, b):
    return True if a else b


def _cond(c):
    """Truth of a condition that is not statically a number (an array: interpreter)."""
    n = S._numeric(c)
    if n is None:
        raise _Bad()
    return n


def _chk_s(v):
    """Value assigned to a scalar variable: never an array."""
    if isinstance(v, (_nd, tuple)):
        raise _Bad()
    return v


def _chk_nd(v, k):
    """Value assigned to a k-dimensional array variable: a number or at most k dimensions."""
    if isinstance(v, tuple) or (isinstance(v, _nd) and v.ndim > k):
        raise _Bad()
    return v


def _num_arr(v):
    """Result of an operation that may leave the numbers (``^``): numbers only."""
    if isinstance(v, _nd):
        if v.dtype == object and not all(map(S.is_num, v.flat)):
            raise _Bad()
    elif not S.is_num(v):
        raise _Bad()
    return v


def _index(base, subs):
    return _EV.index(base, subs)


def _setel(base, idx, val):
    """Element assignment of a value that is not statically a number."""
    if isinstance(val, (_nd, tuple)):
        raise _Bad()
    base[idx] = val


def _setidx(base, val, subs):
    """The interpreter's subscripted assignment (numeric subscripts), in place on ``base``."""
    idx = []
    for s in subs:
        if isinstance(s, slice):
            idx.append(s)
        elif isinstance(s, _nd):
            idx.append([int(S._numeric(x)) - 1 for x in s.reshape(-1)])
        else:
            idx.append(int(S._numeric(s)) - 1)
    idx = tuple(idx)
    if isinstance(val, tuple) or (isinstance(val, _nd) and not isinstance(base[idx], _nd)):
        raise _Bad()      # an array into one element: stored as an object by numpy
    base[idx] = val


def _bin(op, a, b):
    r = _EV.binary(op, a, b)
    if op in ("^", ".^"):
        _num_arr(r)
    return r


def _ung(op, a):
    return _EV.unary(op, a)


def _bi(name, vals):
    return _EV.builtin(name, vals)


def _size2(a, k):
    return int(S.shape(a)[int(_EV.num(k)) - 1])


def _structural(v):
    n = S._numeric(v)
    if n is None:
        raise _Bad()
    return n


def _range_vals(a, s, b):
    """The values of ``a:s:b`` as ``Evaluator._e_Range`` computes them."""
    a, s, b = _structural(a), _structural(s), _structural(b)
    n = int(math.floor((b - a) / s + 1e-12)) + 1 if s != 0 else 0
    vals = [a + k * s for k in range(max(n, 0))]
    if all(float(v).is_integer() for v in vals) and \
            all(isinstance(x, (int, np.integer)) or float(x).is_integer() for x in (a, s)):
        vals = [int(v) for v in vals]
    return vals


def _range_arr(a, s, b):
    vals = _range_vals(a, s, b)
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return out


def _rng_for(a, s, b):
    """Loop values of a range (for loops, comprehensions): ``_e_Range`` then ``num`` of each."""
    a, s, b = _structural(a), _structural(s), _structural(b)
    if type(a) is int and type(s) is int:
        # integer start and step: the values are the ints a + k*s (the common case, no list)
        n = int(math.floor((b - a) / s + 1e-12)) + 1 if s != 0 else 0
        return range(a, a + n * s, s) if n > 0 else ()
    return [_structural(v) for v in _range_vals(a, s, b)]


def _forvals(r):
    """Loop values of an array expression (for loops, comprehensions)."""
    vals = [S._numeric(v) for v in np.asarray(r, dtype=object).reshape(-1)]
    if any(v is None for v in vals):
        raise _Bad()
    return vals


def _row(vals):
    return np.concatenate([S._as_matrix_col(v) for v in vals], axis=1)


def _col(vals):
    return np.concatenate([S._as_matrix_row(v) for v in vals], axis=0)


def _zinit(dims):
    z = np.empty(dims, dtype=object)
    z[...] = 0.0
    return z


_HELPERS = {
    "_nd": _nd, "_MISSING": _MISSING, "_COLON": _COLON, "_WHILE": _WHILE, "_Bad": _Bad,
    "_bad": _bad, "_ck": _ck, "_pw": _pw, "_and": _and, "_or": _or, "_cond": _cond,
    "_chk_s": _chk_s, "_chk_nd": _chk_nd, "_index": _index, "_setel": _setel,
    "_setidx": _setidx, "_bin": _bin, "_ung": _ung, "_bi": _bi, "_size2": _size2,
    "_range_arr": _range_arr, "_rng_for": _rng_for, "_forvals": _forvals, "_row": _row,
    "_col": _col, "_zinit": _zinit, "_stack": S._stack, "_un": S._un, "_floor": math.floor,
    "_trunc": math.trunc, "_atan2": math.atan2,
}
# scalar math of ``symbolic._UNARY`` (numbers only; the interpreter's ValueError/OverflowError
# path -- nan/inf through CasADi -- is left to the interpreter: an exception falls back)
_MATH = {name: f"_m_{name}" for name in S._UNARY}
for _name, (_fn, _) in S._UNARY.items():
    _HELPERS[f"_m_{_name}"] = _fn
_INT_RESULT = ("floor", "ceil", "integer", "sign")

_PASS_THROUGH = {"noEvent": -1, "smooth": -1}
#: homotopy(): the interpreter's (symbolic.Evaluator.homotopy: a value of the homotopy
#: parameter in the initial() flag, not a number)
_NOT_HERE = {"der", "pre", "edge", "change", "initial", "terminal", "sample", "delay", "reinit",
             "homotopy"}
#: builtins evaluated by ``Evaluator.builtin`` whose result is always a number
_SCALAR_BUILTINS = {"sum", "product", "ndims", "scalar"}
_BUILTINS = {"atan2", "min", "max", "mod", "rem", "div", "sum", "product", "size", "ndims",
             "fill", "zeros", "ones", "identity", "diagonal", "transpose", "cross", "skew",
             "outerProduct", "linspace", "vector", "scalar", "matrix", "cat", "semiLinear"}


# ============================================================================ translation
class _Var:
    """A name in scope: a function variable or a loop/comprehension index.

    m1: for a for-loop index that is an int >= 1, the Python name of ``index - 1`` (computed
    once per iteration when a subscript uses it); used: it was used."""
    __slots__ = ("name", "py", "nd", "kind", "lb", "flag", "m1", "used")

    def __init__(self, name, py, nd, kind, lb=None, flag=None, m1=None):
        self.name, self.py, self.nd, self.kind, self.lb, self.flag = name, py, nd, kind, lb, flag
        self.m1, self.used = m1, False


class _X:
    """A translated expression and what is statically known about its value.

    scalar: it is a number (never an array or tuple)
    nd:     upper bound of its number of dimensions (None: unknown)
    fresh:  an array nobody else refers to (or a number)
    alias:  function variables whose array it may share (all of it or a view)
    lb:     it is a Python int >= lb (None: not known)
    """
    __slots__ = ("code", "scalar", "nd", "fresh", "alias", "lb", "index")

    def __init__(self, code, scalar=False, nd=None, fresh=True, alias=frozenset(), lb=None, index=None):
        self.code, self.scalar, self.nd, self.fresh, self.alias, self.lb = \
            code, scalar, (0 if scalar else nd), fresh, frozenset(alias), lb
        self.index = index          # the loop index _Var if the expression is just its name


def _maxnd(xs):
    nds = [x.nd for x in xs]
    return None if any(n is None for n in nds) else max(nds, default=0)


def _union(xs):
    out = set()
    for x in xs:
        out |= x.alias
    return out


def _ident(name):
    return re.sub(r"\W", "_", name)


class _Translator:
    def __init__(self, table, f: ir.Function):
        self.table = table
        self.f = f
        self.lines = []
        self.ns = {}
        self.count = itertools.count()
        self.vars = {}
        self.loops = 0

    # ------------------------------------------------------------------ output
    def emit(self, ind, line):
        self.lines.append("    " * ind + line)

    def block(self, stmts, sc, ind):
        n = len(self.lines)
        for s in stmts:
            self.stmt(s, sc, ind)
        if len(self.lines) == n:
            self.emit(ind, "pass")

    def const(self, value):
        name = f"_k{next(self.count)}"
        self.ns[name] = value
        return name

    def tmp(self):
        return f"_t{next(self.count)}"

    # ------------------------------------------------------------------ function
    def function(self):
        f = self.f
        for v in list(f.inputs) + list(f.outputs) + list(f.locals):
            if v.name in self.vars:
                raise Unsupported(f"duplicate variable {v.name}")
            k = next(self.count)
            nd = len(v.dims)
            self.vars[v.name] = _Var(v.name, f"v{k}_{_ident(v.name)}", nd, "var",
                                     flag=f"o{k}" if nd else None)
        params = []
        seen_default = False
        for v in f.inputs:
            py = self.vars[v.name].py
            if v.binding is not None:
                seen_default = True
            params.append(f"{py}=_MISSING" if seen_default else py)
        self.emit(0, f"def _fn({', '.join(params)}):")
        # inputs: the invariants of their declarations (values from any caller)
        for v in f.inputs:
            var = self.vars[v.name]
            if var.nd:
                self.emit(1, f"if isinstance({var.py}, (_nd, tuple)) and (isinstance({var.py}, tuple) "
                             f"or {var.py}.ndim > {var.nd}): _bad()")
                self.emit(1, f"{var.flag} = False")
            else:
                self.emit(1, f"if isinstance({var.py}, (_nd, tuple)): _bad()")
        # defaults of missing inputs, in order, from earlier inputs
        sc = {}
        for v in f.inputs:
            var = self.vars[v.name]
            if v.binding is not None:
                x = self.ex(v.binding, sc)
                self.emit(1, f"if {var.py} is _MISSING:")
                self.revoke(x.alias, 2)
                self.emit(2, f"{var.py} = {self.checked(var, x)}")
                if var.nd:
                    self.emit(2, f"{var.flag} = {x.fresh}")
            sc[v.name] = var
        # outputs and locals, in order (bindings see the inputs and the earlier ones)
        for v in list(f.outputs) + list(f.locals):
            var = self.vars[v.name]
            if v.binding is not None:
                x = self.ex(v.binding, sc)
                self.revoke(x.alias, 1)
                self.emit(1, f"{var.py} = {self.checked(var, x)}")
                fresh = x.fresh
            elif v.dims and all(d >= 0 for d in v.dims):
                self.emit(1, f"{var.py} = _zinit({tuple(v.dims)!r})")
                fresh = True
            else:
                self.emit(1, f"{var.py} = 0.0")
                fresh = True
            if var.nd:
                self.emit(1, f"{var.flag} = {fresh}")
            sc[v.name] = var
        self.block(f.body, sc, 1)
        self.emit(1, self.ret())
        return "\n".join(self.lines) + "\n"

    def ret(self):
        outs = [self.vars[o.name].py for o in self.f.outputs]
        if len(outs) == 1:
            return f"return {outs[0]}"
        return f"return ({', '.join(outs)})"

    def checked(self, var, x):
        """Code assigning ``x`` to ``var`` with the run-time check its declaration needs."""
        if var.nd == 0:
            return x.code if x.scalar else f"_chk_s({x.code})"
        if x.nd is not None and x.nd <= var.nd:
            return x.code
        return f"_chk_nd({x.code}, {var.nd})"

    def revoke(self, names, ind):
        for n in sorted(names):
            var = self.vars.get(n)
            if var is not None and var.flag:
                self.emit(ind, f"{var.flag} = False")

    # ------------------------------------------------------------------ statements
    def stmt(self, s, sc, ind):
        m = getattr(self, "_s_" + type(s).__name__, None)
        if m is None:
            raise Unsupported(f"statement {type(s).__name__}")
        m(s, sc, ind)

    def target(self, t: ir.Ref, sc):
        var = sc.get(t.name)
        if var is None or var.kind != "var" or self.vars.get(t.name) is not var:
            raise Unsupported(f"assignment to '{t.name}', not a variable of the function")
        return var

    def _s_Assign(self, s, sc, ind):
        if s.targets:
            self.tuple_assign(s, sc, ind)
            return
        var = self.target(s.target, sc)
        x = self.ex(s.value, sc)
        self.revoke(x.alias, ind)
        self.store(var, s.target, x, sc, ind)

    def store(self, var, t: ir.Ref, x: _X, sc, ind):
        if not t.subs:
            self.emit(ind, f"{var.py} = {self.checked(var, x)}")
            if var.nd:
                self.emit(ind, f"{var.flag} = {x.fresh}")
            return
        if not var.nd:
            # subscripted assignment to a scalar: the interpreter's error
            raise Unsupported(f"subscripted assignment to scalar '{t.name}'")
        subs = [self.sub(e, sc) for e in t.subs]
        self.emit(ind, f"if not {var.flag}:")
        self.emit(ind + 1, f"{var.py} = {var.py}.copy()")
        self.emit(ind + 1, f"{var.flag} = True")
        if len(subs) == var.nd and all(isinstance(z, _X) and z.scalar for z in subs):
            # the interpreter's int(...) - 1 without a range check (numpy raises above)
            idx = ", ".join(self.pos(z, check=False) for z in subs)
            if x.scalar:
                self.emit(ind, f"{var.py}[{idx}] = {x.code}")
            else:
                self.emit(ind, f"_setel({var.py}, ({idx},), {x.code})")
            return
        self.emit(ind, f"_setidx({var.py}, {x.code}, [{', '.join(self.subcode(z) for z in subs)}])")

    def tuple_assign(self, s, sc, ind):
        call = s.value
        if not isinstance(call, ir.Call) or call.builtin:
            raise Unsupported("tuple assignment from something else than a function call")
        code, callee, args = self.user_call(call, sc)
        self.revoke(_union(args), ind)
        r = self.tmp()
        n = len(callee.outputs)
        self.emit(ind, f"{r} = {code}" if n != 1 else f"{r} = ({code},)")
        for k, t in enumerate(s.targets):
            if k >= n:
                break                        # zip(targets, outputs)
            if t is None:
                continue
            var = self.target(t, sc)
            o = callee.outputs[k]
            nd = len(o.dims)
            self.store(var, t, _X(f"{r}[{k}]", scalar=(nd == 0), nd=nd, fresh=False), sc, ind)

    def _s_ForStmt(self, s, sc, ind):
        if s.index in sc:
            raise Unsupported(f"for-loop index '{s.index}' hides another name")
        code, lb = self.loop_range(s.range, sc)
        k = next(self.count)
        py = f"i{k}_{_ident(s.index)}"
        self.emit(ind, f"for {py} in {code}:")
        sc2 = dict(sc)
        var = sc2[s.index] = _Var(s.index, py, 0, "index", lb=lb,
                                  m1=f"m{k}_{_ident(s.index)}" if lb is not None and lb >= 1 else None)
        at = len(self.lines)
        self.loops += 1
        self.block(s.body, sc2, ind + 1)
        self.loops -= 1
        if var.used:
            self.lines.insert(at, "    " * (ind + 1) + f"{var.m1} = {py} - 1")

    def loop_range(self, rng, sc):
        """Code of the loop values of ``rng`` and the lower bound of the index."""
        if isinstance(rng, ir.Range):
            a = self.ex(rng.start, sc)
            st = self.ex(rng.step, sc) if rng.step is not None else _X("1", scalar=True, lb=1)
            b = self.ex(rng.stop, sc)
            lb = None
            if a.lb is not None and (rng.step is None or (isinstance(rng.step, ir.Lit)
                                                          and type(rng.step.value) is int
                                                          and rng.step.value > 0)):
                lb = a.lb
            return f"_rng_for({a.code}, {st.code}, {b.code})", lb
        return f"_forvals({self.ex(rng, sc).code})", None

    def _s_WhileStmt(self, s, sc, ind):
        self.emit(ind, "for _w in _WHILE:")
        c = self.ex(s.cond, sc)
        self.emit(ind + 1, f"if not {self.condcode(c)}:")
        self.emit(ind + 2, "break")
        self.loops += 1
        self.block(s.body, sc, ind + 1)
        self.loops -= 1
        self.emit(ind, "else:")
        self.emit(ind + 1, "_bad()")           # the interpreter's 'did not terminate'

    def _s_IfStmt(self, s, sc, ind):
        for k, (c, body) in enumerate(s.blocks):
            cx = self.ex(c, sc)
            self.emit(ind, f"{'if' if k == 0 else 'elif'} {self.condcode(cx)}:")
            self.block(body, sc, ind + 1)
        if s.other:
            self.emit(ind, "else:")
            self.block(s.other, sc, ind + 1)

    def _s_Break(self, s, sc, ind):
        if not self.loops:
            raise Unsupported("break outside a loop")
        self.emit(ind, "break")

    def _s_Return(self, s, sc, ind):
        self.emit(ind, self.ret())

    def _s_AssertStmt(self, s, sc, ind):
        pass                                   # not checked by the interpreter either

    @staticmethod
    def condcode(x):
        return x.code if x.scalar else f"_cond({x.code})"

    # ------------------------------------------------------------------ expressions
    def ex(self, e, sc) -> _X:
        m = getattr(self, "_x_" + type(e).__name__, None)
        if m is None:
            raise Unsupported(f"expression {type(e).__name__}")
        return m(e, sc)

    def sub(self, e, sc):
        return None if isinstance(e, ir.Colon) else self.ex(e, sc)

    @staticmethod
    def pos(z, check):
        """0-based position code of a scalar subscript (reads check the lower bound)."""
        if z.index is not None:
            z.index.used = True
            return z.index.m1
        if not check or (z.lb is not None and z.lb >= 1):
            return f"{z.code} - 1"
        return f"_ck({z.code})"

    @staticmethod
    def subcode(z):
        return "_COLON" if z is None else z.code

    def _x_Lit(self, e, sc):
        v = e.value
        if type(v) is bool:
            return _X(repr(v), scalar=True)
        if type(v) is int:
            return _X(repr(v) if v >= 0 else f"({v!r})", scalar=True, lb=v)
        if type(v) is float and math.isfinite(v):
            return _X(repr(v) if math.copysign(1.0, v) > 0 else f"({v!r})", scalar=True)
        if S.is_num(v):
            return _X(self.const(v), scalar=True)
        raise Unsupported(f"literal {v!r}")

    def _x_Colon(self, e, sc):
        raise Unsupported("':' outside a subscript")

    def _x_Ref(self, e, sc):
        if e.name == "time":
            raise Unsupported("'time' in a function")
        var = sc.get(e.name)
        if var is None:
            raise Unsupported(f"reference to '{e.name}', not a variable of the function")
        if not e.subs:
            if var.nd == 0:
                return _X(var.py, scalar=True, lb=var.lb, index=var if var.m1 else None)
            return _X(var.py, nd=var.nd, fresh=False, alias={var.name})
        subs = [self.sub(s, sc) for s in e.subs]
        if var.nd and len(subs) == var.nd and all(z is not None and z.scalar for z in subs):
            idx = ", ".join(self.pos(z, check=True) for z in subs)
            return _X(f"{var.py}[{idx}]", scalar=True)
        return _X(f"_index({var.py}, [{', '.join(self.subcode(z) for z in subs)}])",
                  nd=var.nd, fresh=False, alias={var.name} if var.nd else ())

    def _x_Bin(self, e, sc):
        op = e.op
        a = self.ex(e.a, sc)
        b = self.ex(e.b, sc)
        if a.scalar and b.scalar:
            lb = None
            if op in ("+", ".+"):
                code = f"({a.code} + {b.code})"
                if a.lb is not None and b.lb is not None:
                    lb = a.lb + b.lb
            elif op in ("-", ".-"):
                code = f"({a.code} - {b.code})"
                if a.lb is not None and isinstance(e.b, ir.Lit) and type(e.b.value) is int:
                    lb = a.lb - e.b.value
            elif op in ("*", ".*"):
                code = f"({a.code} * {b.code})"
                if a.lb is not None and b.lb is not None and a.lb >= 0 and b.lb >= 0:
                    lb = a.lb * b.lb
            elif op in ("/", "./"):
                code = f"({a.code} / {b.code})"
            elif op in ("^", ".^"):
                code = f"_pw({a.code}, {b.code})"
            elif op in ("<", "<=", ">", ">=", "=="):
                code = f"({a.code} {op} {b.code})"
            elif op == "<>":
                code = f"({a.code} != {b.code})"
            elif op == "and":
                code = f"_and({a.code}, {b.code})"
            elif op == "or":
                code = f"_or({a.code}, {b.code})"
            else:
                raise Unsupported(f"operator {op}")
            return _X(code, scalar=True, lb=lb)
        return _X(f"_bin({op!r}, {a.code}, {b.code})", nd=_maxnd([a, b]))

    def _x_Un(self, e, sc):
        a = self.ex(e.a, sc)
        if a.scalar:
            if e.op == "-":
                return _X(f"(-{a.code})", scalar=True)
            if e.op == "not":
                return _X(f"(not {a.code})", scalar=True)
            raise Unsupported(f"unary operator {e.op}")
        return _X(f"_ung({e.op!r}, {a.code})", nd=a.nd)

    def _x_If(self, e, sc):
        # the interpreter: value of 'else' first, then the conditions from the last branch to
        # the first, each branch's value only when its condition holds
        t = self.tmp()
        other = self.ex(e.other, sc)
        parts = [f"({t} := {other.code})"]
        xs = [other]
        for c, v in reversed(e.branches):
            cx = self.ex(c, sc)
            vx = self.ex(v, sc)
            parts.append(f"({t} := ({vx.code} if {self.condcode(cx)} else {t}))")
            xs.append(vx)
        lbs = [x.lb for x in xs]
        return _X(f"({', '.join(parts)})[-1]", scalar=all(x.scalar for x in xs), nd=_maxnd(xs),
                  fresh=all(x.fresh for x in xs), alias=_union(xs),
                  lb=None if any(v is None for v in lbs) else min(lbs))

    def _x_Arr(self, e, sc):
        xs = [self.ex(x, sc) for x in e.elems]
        codes = ", ".join(x.code for x in xs)
        if e.kind == "array":
            nd = _maxnd(xs)
            return _X(f"_stack([{codes}])", nd=None if nd is None else nd + 1)
        if e.kind == "row":
            return _X(f"_row([{codes}])", nd=2 if _maxnd(xs) is not None and _maxnd(xs) <= 2 else None)
        if e.kind == "col":
            return _X(f"_col([{codes}])", nd=2 if _maxnd(xs) is not None and _maxnd(xs) <= 2 else None)
        raise Unsupported(f"array constructor of kind {e.kind}")

    def _x_Range(self, e, sc):
        a = self.ex(e.start, sc)
        st = self.ex(e.step, sc) if e.step is not None else _X("1", scalar=True)
        b = self.ex(e.stop, sc)
        return _X(f"_range_arr({a.code}, {st.code}, {b.code})", nd=1)

    def _x_Compr(self, e, sc):
        sc2 = dict(sc)
        heads = []
        for name, rng in e.indices:
            code, lb = self.loop_range(rng, sc2)
            py = f"c{next(self.count)}_{_ident(name)}"
            heads.append((py, code))
            sc2[name] = _Var(name, py, 0, "index", lb=lb)
        body = self.ex(e.expr, sc2)
        code = body.code
        for py, rcode in reversed(heads):
            code = f"_stack([{code} for {py} in {rcode}])"
        return _X(code, nd=None if body.nd is None else body.nd + len(heads))

    def _x_Call(self, e, sc):
        if not e.builtin:
            code, callee, args = self.user_call(e, sc)
            if len(callee.outputs) != 1:
                raise Unsupported(f"call of {e.name} ({len(callee.outputs)} outputs) in an expression")
            nd = len(callee.outputs[0].dims)
            return _X(code, scalar=(nd == 0), nd=nd, fresh=False, alias=_union(args))
        name = e.name
        if name in _PASS_THROUGH:
            if not e.args:
                raise Unsupported(f"{name}() without arguments")
            return self.ex(e.args[_PASS_THROUGH[name]], sc)
        if name in _NOT_HERE:
            raise Unsupported(f"{name}() in a function")
        if name == "$index":
            base = self.ex(e.args[0], sc)
            subs = [self.sub(a, sc) for a in e.args[1:]]
            return _X(f"_index({base.code}, [{', '.join(self.subcode(z) for z in subs)}])",
                      nd=base.nd, fresh=False, alias=base.alias)
        xs = [self.ex(a, sc) for a in e.args]
        codes = [x.code for x in xs]
        if name in _MATH:
            if len(xs) != 1:
                raise Unsupported(f"{name}() with {len(xs)} arguments")
            if xs[0].scalar:
                code = f"{_MATH[name]}({codes[0]})"
                if name in _INT_RESULT:
                    code = f"int({code})"
                return _X(code, scalar=True)
            return _X(f"_un({name!r}, {codes[0]})", nd=xs[0].nd)
        if name not in _BUILTINS:
            raise Unsupported(f"built-in function {name}()")
        allscalar = all(x.scalar for x in xs)
        if name == "atan2" and len(xs) == 2 and allscalar:
            return _X(f"_atan2({codes[0]}, {codes[1]})", scalar=True)
        if name in ("min", "max") and len(xs) == 2 and allscalar:
            return _X(f"{name}({codes[0]}, {codes[1]})", scalar=True)
        if name in ("mod", "rem") and len(xs) == 2 and allscalar:
            # mod(a, b) = _binop('-', a, _binop('*', _un('floor', a / b), b)); rem with
            # div_trunc; a and b evaluated once, in this order
            ta, tb = self.tmp(), self.tmp()
            rnd = "_floor" if name == "mod" else "_trunc"
            return _X(f"(({ta} := {codes[0]}) - (int({rnd}(({ta} / ({tb} := {codes[1]})))) * {tb}))",
                      scalar=True)
        if name == "div" and len(xs) == 2 and allscalar:
            return _X(f"int(_trunc(({codes[0]} / {codes[1]})))", scalar=True)
        if name == "size" and len(xs) == 2:
            return _X(f"_size2({codes[0]}, {codes[1]})", scalar=True, lb=0)
        if name == "size" and len(xs) != 1:
            raise Unsupported(f"size() with {len(xs)} arguments")
        code = f"_bi({name!r}, [{', '.join(codes)}])"
        if name in _SCALAR_BUILTINS or (name in ("min", "max") and len(xs) == 1):
            return _X(code, scalar=True)
        if name == "matrix":
            return _X(code, nd=2, fresh=False, alias=_union(xs))
        nd = None
        if name in ("zeros", "ones"):
            nd = len(xs)
        elif name == "fill" and xs and xs[0].nd is not None:
            nd = len(xs) - 1 + xs[0].nd
        elif name in ("identity", "diagonal", "skew", "outerProduct"):
            nd = 2
        elif name in ("size", "cross", "linspace", "vector"):
            nd = 1
        elif name in ("transpose",):
            nd = xs[0].nd if xs else None
        elif name in ("atan2", "min", "max", "mod", "rem", "div", "semiLinear", "cat"):
            nd = _maxnd(xs[1:] if name == "cat" else xs)
        return _X(code, nd=nd)

    def user_call(self, e: ir.Call, sc):
        callee = self.table.model.functions.get(e.name)
        if callee is None:
            raise Unsupported(f"unknown function {e.name}")
        if len(e.args) > len(callee.inputs):
            raise Unsupported(f"too many arguments to {e.name}")
        for v in callee.inputs[len(e.args):]:
            if v.binding is None:
                raise Unsupported(f"missing argument '{v.name}' in call of {e.name}")
        fn = self.table.compiled(callee)
        if fn is None:
            raise Unsupported(f"calls {e.name}, which is not compiled ({self.table.reason(e.name)})")
        name = f"_F{next(self.count)}"
        self.ns[name] = fn
        args = [self.ex(a, sc) for a in e.args]
        return f"{name}({', '.join(a.code for a in args)})", callee, args


# ============================================================================ cache and entry
class _Table:
    """Compiled functions of one model (functions are looked up in ``model.functions``)."""

    def __init__(self, model):
        self._model = weakref.ref(model)      # no strong reference: the table dies with it
        self.cache = {}        # name -> (ir.Function, fn or None, source or reason)
        self.busy = set()

    @property
    def model(self):
        return self._model()

    def reason(self, name):
        ent = self.cache.get(name)
        if ent is None:
            return "recursive" if name in self.busy else "not translated"
        return None if ent[1] is not None else ent[2]

    def compiled(self, f: ir.Function):
        """The compiled ``f`` (a Python function of the inputs), or None."""
        ent = self.cache.get(f.name)
        if ent is not None and ent[0] is f:
            return ent[1]
        if f.name in self.busy:
            return None                  # recursion: left to the interpreter
        self.busy.add(f.name)
        try:
            tr = _Translator(self, f)
            src = tr.function()
            code = compile(src, f"<compiled Modelica function {f.name}>", "exec")
        except (Unsupported, SyntaxError, RecursionError) as exc:
            self.cache[f.name] = (f, None, f"{type(exc).__name__}: {exc}")
            stats["unsupported"] += 1
            return None
        finally:
            self.busy.discard(f.name)
        ns = dict(_HELPERS)
        ns.update(tr.ns)
        exec(code, ns)
        fn = ns["_fn"]
        self.cache[f.name] = (f, fn, src)
        return fn


_TABLES: dict = {}      # id(model) -> _Table, dropped when the model is garbage-collected


def _table(model) -> _Table:
    tab = _TABLES.get(id(model))
    if tab is None or tab.model is not model:
        tab = _TABLES[id(model)] = _Table(model)
        weakref.finalize(model, _TABLES.pop, id(model), None)
    return tab


def call(model: ir.Model, f: ir.Function, args: list[Any]) -> Optional[list[Any]]:
    """Outputs of ``f(*args)`` (a list, as ``Evaluator.inline`` returns them) from compiled
    code, or None: not translatable, or it failed at run time (the interpreter then runs).
    ``args`` are numbers or arrays of numbers; the number of arguments was checked."""
    if not ENABLED:
        return None
    fn = _table(model).compiled(f)
    if fn is None:
        return None
    try:
        r = fn(*args)
        outs = [r] if len(f.outputs) == 1 else list(r)
        if not S._all_numeric(outs):
            raise _Bad()
    except Exception:
        stats["fallback"] += 1
        return None
    stats["compiled"] += 1
    return outs


def source(model: ir.Model, name: str) -> Optional[str]:
    """Generated source of function ``name`` (None if not compiled), for tests and debugging."""
    f = model.functions[name]
    tab = _table(model)
    if tab.compiled(f) is None:
        return None
    return tab.cache[name][2]


def unsupported_reason(model: ir.Model, name: str) -> Optional[str]:
    """Why function ``name`` is not compiled (None if it is)."""
    f = model.functions[name]
    tab = _table(model)
    return None if tab.compiled(f) is not None else tab.cache[name][2]
