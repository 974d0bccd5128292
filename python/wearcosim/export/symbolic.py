"""Symbolic evaluation: IR expressions -> CasADi SX scalars (scalarisation of arrays).

Arrays are numpy object arrays of ``casadi.SX`` scalars (or Python numbers, which keeps
structural quantities -- sizes, ranges, subscripts -- numeric).  Modelica's operator rules
are applied by operand shape (``*``: scalar*array elementwise, vector*vector = dot,
matrix*vector and matrix*matrix = matrix product).

User functions are inlined by symbolic execution of their algorithm: ``for`` loops with
structural ranges are unrolled, ``if`` statements on symbolic conditions evaluate both
branches and merge every assigned variable with ``if_else``, ``while`` loops must have a
structurally evaluable condition (rumoca 0.10.2 itself rejects while loops whose trip count
it cannot prove), dynamic subscripts become an indexed load (:func:`gather`) or a select chain.  Following the Modelica
specification (relations in functions do not generate events), everything inside a
function body is evaluated in ``noEvent`` mode.

Event-generating relations (outside ``noEvent``/``smooth``/functions, with an operand that
varies in continuous time) are handed to an :class:`EventSink` which replaces them by a
relation-memory symbol: between events the relation is frozen; see ``events.py``.

Arrays have value semantics: a subscripted assignment copies the variable's array the first
time only (``Evaluator._owned``: copies nobody else can see are changed in place afterwards).
A call whose arguments are all numbers (build-time parameter values) runs the function compiled
to Python by :mod:`fasteval`, which gives the same results bit for bit, and falls back to this
interpreter whenever it cannot.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, NoReturn, Optional, Sequence, Union

#: A Modelica value while evaluating: a Python number, a ``casadi.SX`` expression, or a NumPy
#: object array of those (Modelica arrays); tuples for multiple function outputs.
Val = Any

import casadi as ca
import numpy as np

from . import ir
from .errors import ExportError


def is_num(x: Val) -> bool:
    return isinstance(x, (int, float, bool, np.integer, np.floating, np.bool_))


def to_num(x: Val) -> Union[int, float, bool, None]:
    """A Python number if ``x`` is (or folds to) a numeric constant, else None."""
    if is_num(x):
        return x
    if isinstance(x, ca.SX) and x.is_constant():
        return float(x)
    return None


def as_sx(x: Val) -> ca.SX:
    if isinstance(x, ca.SX):
        return x
    return ca.SX(float(x))


def _elementwise(f, *args):
    arrs = [a for a in args if isinstance(a, np.ndarray)]
    if not arrs:
        return f(*args)
    shape = np.broadcast_shapes(*[a.shape for a in arrs])
    out = np.empty(shape, dtype=object)
    bargs = [np.broadcast_to(a, shape) if isinstance(a, np.ndarray) else a for a in args]
    for idx in np.ndindex(*shape):
        out[idx] = f(*[b[idx] if isinstance(b, np.ndarray) else b for b in bargs])
    return out


def _fold(x):
    """Numbers stay numbers; constant SX fold to float."""
    if isinstance(x, ca.SX) and x.is_constant():
        return float(x)
    return x


def if_else(c: Val, a: Val, b: Val) -> Val:
    cn = to_num(c)
    if cn is not None:
        return a if cn else b
    return _elementwise(lambda cc, aa, bb: _fold(ca.if_else(as_sx(cc), as_sx(aa), as_sx(bb))) if to_num(cc) is None
                        else (aa if to_num(cc) else bb), c, a, b)


_UNARY = {
    "sin": (math.sin, ca.sin), "cos": (math.cos, ca.cos), "tan": (math.tan, ca.tan),
    "asin": (math.asin, ca.asin), "acos": (math.acos, ca.acos), "atan": (math.atan, ca.atan),
    "sinh": (math.sinh, ca.sinh), "cosh": (math.cosh, ca.cosh), "tanh": (math.tanh, ca.tanh),
    "exp": (math.exp, ca.exp), "log": (math.log, ca.log), "log10": (math.log10, lambda x: ca.log(x) / math.log(10)),
    "sqrt": (math.sqrt, ca.sqrt), "abs": (abs, ca.fabs),
    "sign": (lambda x: (x > 0) - (x < 0), ca.sign),
    "floor": (math.floor, ca.floor), "ceil": (math.ceil, ca.ceil),
    "integer": (math.floor, ca.floor),
}


def _un(name, x):
    fn, fs = _UNARY[name]

    def one(v):
        n = to_num(v)
        if n is not None:
            try:
                r = fn(n)
                return int(r) if name in ("floor", "ceil", "integer", "sign") else r
            except (ValueError, OverflowError):
                return _fold(fs(ca.SX(n)))
        return fs(v)
    return _elementwise(one, x)


def _binop(op, a, b):
    """Scalar binary operation with numeric folding."""
    if isinstance(a, str) or isinstance(b, str):
        return _string_op(op, a, b)
    na, nb = to_num(a), to_num(b)
    both = na is not None and nb is not None
    if op == "+":
        return na + nb if both else a + b
    if op == "-":
        return na - nb if both else a - b
    if op == "*":
        if both:
            return na * nb
        if na == 0 or nb == 0:
            return 0.0
        return a * b
    if op == "/":
        if both and nb != 0:
            return na / nb
        return a / b
    if op == "^":
        if both:
            try:
                return na ** nb
            except (ZeroDivisionError, OverflowError):
                pass
        if nb is not None and float(nb).is_integer():
            k = int(nb)
            if k == 2:
                return a * a
            if k == 1:
                return a
            if k == 0:
                return 1.0
        return ca.power(as_sx(a), as_sx(b))
    if op in ("<", "<=", ">", ">=", "==", "<>"):
        if both:
            return {"<": na < nb, "<=": na <= nb, ">": na > nb, ">=": na >= nb, "==": na == nb, "<>": na != nb}[op]
        A, B = as_sx(a), as_sx(b)
        return {"<": A < B, "<=": A <= B, ">": A > B, ">=": A >= B, "==": A == B, "<>": A != B}[op]
    if op == "and":
        if na is not None:
            return b if na else False
        if nb is not None:
            return a if nb else False
        return ca.logic_and(as_sx(a), as_sx(b))
    if op == "or":
        if na is not None:
            return True if na else b
        if nb is not None:
            return True if nb else a
        return ca.logic_or(as_sx(a), as_sx(b))
    raise ValueError(op)


def _string_op(op, a, b):
    """``a op b`` of two Strings (known when the model is built): concatenation and the
    relations (lexicographic, MLS 3.5)."""
    if not (isinstance(a, str) and isinstance(b, str)):
        raise ValueError(f"operator '{op}' between a String and a non-String")
    if op == "+":
        return a + b
    if op in ("<", "<=", ">", ">=", "==", "<>"):
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "<>": a != b}[op]
    raise ValueError(f"operator '{op}' on Strings")


#: iterations a while-loop whose condition varies with time is followed (Evaluator.exec_while)
MAX_SYMBOLIC_ITERATIONS = 200

#: dynamic subscripts of vectors at least this long become one indexed load (:func:`gather`,
#: through ``Evaluator.gather_hook``); shorter ones a select chain, whose two operations per
#: element are cheaper than the call
GATHER_MIN = 4
_GATHERS: dict = {}


def _gather_function(n: int) -> ca.Function:
    """``(k, a[n]) -> a[k]`` (k 0-based) as a CasADi function kept as one call node inside SX
    expressions (``never_inline``): the generated C is a bounds-checked load, NaN outside
    0..n-1."""
    f = _GATHERS.get(n)
    if f is None:
        k = ca.MX.sym("k")
        a = ca.MX.sym("a", n)
        f = ca.Function(f"wc_gather{n}", [k, a], [a[k]], {"never_inline": True})
        _GATHERS[n] = f
    return f


def select_chain(idx: Val, elems: Sequence[Val]) -> Val:
    """``elems[idx]`` for a symbolic 1-based ``idx`` as if_else over the elements: O(n)
    operations, differentiated as written.  An index outside 1..n gives NaN, as the indexed load
    does (:func:`gather`): Modelica makes an out-of-range subscript an error, and a NaN fails the
    evaluation instead of reading a plausible 0.  CasADi's SX if_else is not short-circuit but
    selects by ``c ? a : 0`` terms, so the NaN of a branch not taken does not leak into the
    value (nor into the derivative, which is 0 for the constant)."""
    acc = math.nan
    for k, e in enumerate(elems):
        acc = if_else(_binop("==", idx, k + 1), e, acc)
    return acc


def gather_index(idx: Val, n: int) -> ca.SX:
    """The 0-based element a 1-based Integer subscript ``idx`` of an n-vector selects, rounded to
    the nearest integer (an Integer expression is integral; rounding keeps a value that arithmetic
    left a few ulps off an integer from truncating to the wrong element), -1 (no element) outside
    1..n or for a NaN (the C conversion of those to int would be undefined)."""
    idx = as_sx(idx)
    k0 = idx - 1 if _integral(idx) else ca.floor(idx - 0.5)
    return ca.if_else(ca.logic_and(k0 >= 0, k0 <= n - 1), k0, -1)


_INTEGRAL_OPS = {ca.OP_FLOOR, ca.OP_CEIL, ca.OP_ADD, ca.OP_SUB, ca.OP_MUL, ca.OP_NEG, ca.OP_IF_ELSE_ZERO,
                 ca.OP_LT, ca.OP_LE, ca.OP_EQ, ca.OP_NE, ca.OP_NOT, ca.OP_AND, ca.OP_OR}


def _integral(x: ca.SX, depth: int = 8) -> bool:
    """True if the scalar expression ``x`` is an integer whenever it is finite, by its form:
    integer constants, floor/ceil, relations, and sums, differences, products and selections of
    such (a subscript computed that way needs no rounding)."""
    if x.is_constant():
        v = float(x)
        return math.isfinite(v) and v == int(v)
    if depth == 0 or x.is_symbolic() or x.op() not in _INTEGRAL_OPS:
        return False
    if x.op() in (ca.OP_FLOOR, ca.OP_CEIL, ca.OP_LT, ca.OP_LE, ca.OP_EQ, ca.OP_NE, ca.OP_NOT, ca.OP_AND, ca.OP_OR):
        return True
    if x.op() == ca.OP_IF_ELSE_ZERO:
        return _integral(x.dep(1), depth - 1)
    return all(_integral(x.dep(i), depth - 1) for i in range(x.n_dep()))


def gather(k0: Val, vec: ca.SX) -> ca.SX:
    """``vec[k0]`` (``k0`` from :func:`gather_index`) as one call node: O(1) at run time, where a
    select chain costs O(n) operations in every evaluation (the wear profiles index dozens of
    sectors in each right-hand side).  No element (k0 = -1) gives NaN: Modelica makes an
    out-of-range subscript an error, and a NaN makes the model evaluation fail (the solver rejects
    the step and reports it) instead of going on with a wrong element.

    CasADi differentiates a call node through the callee's derivative functions, with the nominal
    inputs and outputs among their inputs, even when every seed is zero, so an expression that is
    differentiated again and again (the passes' Jacobians of solutions that contain Jacobians)
    doubles the callee's inputs each time.  The passes therefore see a placeholder symbol
    (``Dae.gathers``) and the code generator puts the call in last, before the one derivative it
    takes."""
    vec = as_sx(vec)
    return _gather_function(int(vec.numel()))(as_sx(k0), vec)


def mod(a: Val, b: Val) -> Val:
    return _binop("-", a, _binop("*", _un("floor", _binop("/", a, b)), b))


def div_trunc(a: Val, b: Val) -> Val:
    q = _binop("/", a, b)
    n = to_num(q)
    if n is not None:
        return int(math.trunc(n))
    return ca.sign(q) * ca.floor(ca.fabs(q))


def shape(x: Val) -> tuple[int, ...]:
    return x.shape if isinstance(x, np.ndarray) else ()


def arr(x: Val) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    out = np.empty((), dtype=object)
    out[()] = x
    return out


def matmul(a: Val, b: Val) -> Val:
    """Modelica ``*`` by operand shape."""
    sa, sb = shape(a), shape(b)
    if not sa or not sb:
        return _elementwise(lambda x, y: _binop("*", x, y), a, b)
    if len(sa) == 1 and len(sb) == 1:
        if sa != sb:
            raise ValueError(f"vector*vector size mismatch {sa} vs {sb}")
        acc = 0.0
        for x, y in zip(a, b):
            acc = _binop("+", acc, _binop("*", x, y))
        return acc
    A = a if len(sa) == 2 else a.reshape(1, -1)
    B = b if len(sb) == 2 else b.reshape(-1, 1)
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"matrix product size mismatch {sa} * {sb}")
    if _plain_object(A) and _plain_object(B):
        out = _matmul_plain(A, B)
    else:
        out = np.empty((A.shape[0], B.shape[1]), dtype=object)
        for i in range(A.shape[0]):
            for j in range(B.shape[1]):
                acc = 0.0
                for k in range(A.shape[1]):
                    acc = _binop("+", acc, _binop("*", A[i, k], B[k, j]))
                out[i, j] = acc
    if len(sa) == 1:
        return out.reshape(-1)
    if len(sb) == 1:
        return out.reshape(-1)
    return out


_PLAIN = (float, int)


def _plain_object(a) -> bool:
    """An object array whose elements are all Python ``float``/``int`` (not bool, not numpy
    scalars, not SX): the elements ``matmul`` may multiply and add with the array machinery."""
    return a.dtype == object and all(type(x) in _PLAIN for x in a.flat)


def _matmul_plain(A, B):
    """``A*B`` of two 2-D object arrays of Python numbers, in exactly the loop's order:
    element (i, j) is ``((0.0 + A[i,0]*B[0,j]) + A[i,1]*B[1,j]) + ...`` -- the object ufuncs
    call the same Python ``*`` and ``+`` on the same operands (what ``_binop`` does for two
    numbers), vectorised over (i, j) instead of one ``_binop`` call per product."""
    m, K = A.shape
    n = B.shape[1]
    out = np.empty((m, n), dtype=object)
    out[...] = 0.0
    if m == 0 or n == 0:
        return out
    for k in range(K):
        out = out + np.multiply.outer(A[:, k], B[k, :])
    return out


class EventSink:
    """Receives event-generating relations; default: no events (plain comparison)."""

    def relation(self, op: str, a: Val, b: Val, loc: Any) -> object:
        return _binop(op, a, b)

    def initial(self) -> Val:
        return False

    def pre(self, name: str, value: Val) -> Val:
        return value


class Break_(Exception):
    pass


class Return_(Exception):
    pass


@dataclass
class Scope:
    """Name resolution for the evaluator: model variables or function locals."""
    lookup: Callable[[str], object]
    locals: dict = field(default_factory=dict)


class Evaluator:
    """Evaluates IR expressions to numbers / SX / object arrays."""

    def __init__(self, model: ir.Model, resolve: Callable[[str, ir.Loc], object],
                 events: Optional[EventSink] = None, der: Optional[Callable] = None,
                 pre: Optional[Callable] = None, time: Val = None, numeric: bool = False) -> None:
        self.model = model
        self.resolve = resolve            # name -> value (array/scalar) of a model variable
        self.events = events or EventSink()
        self.der = der
        self.pre = pre
        self.time = time
        self.numeric = numeric
        self.noevent = 0
        self.structural_hook = None
        # dynamic subscript of a vector of GATHER_MIN or more elements -> the placeholder symbol
        # of its indexed load (dae.build); None: a select chain
        self.gather_hook: Optional[Callable[[np.ndarray, Val], ca.SX]] = None
        self.loc = model.loc
        self._fdepth = 0
        # copy-on-write of arrays in function/algorithm environments: a subscripted
        # assignment copies the variable's array once, registers the copy here as owned
        # (only that environment slot refers to it) and then assigns in place while it stays
        # owned.  Any read that yields the array (whole or a slice, a numpy view) revokes it.
        # id -> array: holding the array keeps its id from being recycled.
        self._owned: dict = {}

    # ------------------------------------------------------------------ helpers
    def fail(self, msg: str, kind: str = "unsupported") -> NoReturn:
        raise ExportError(msg, self.loc, kind)

    def num(self, v: Val) -> Union[int, float, bool, None]:
        """Numeric value of ``v`` if it is structural (folds structural parameters)."""
        n = _numeric(v)
        if n is None and self.structural_hook is not None and isinstance(v, ca.SX):
            n = self.structural_hook(v)
        return n

    def structural(self, e: ir.Expr, what: str, env: Optional[dict] = None) -> Union[int, float, bool]:
        v = self.eval(e, env)
        n = self.num(v)
        if n is None:
            self.fail(f"{what} must be a structural (parameter/constant) expression", "structure")
        return n

    # ------------------------------------------------------------------ expressions
    def eval(self, e: ir.Expr, env: Optional[dict] = None) -> Val:
        m = getattr(self, "_e_" + type(e).__name__)
        return m(e, env)

    def _e_Lit(self, e, env):
        if isinstance(e.value, str):
            return e.value
        return e.value

    def _e_Colon(self, e, env):
        return slice(None)

    def _e_Ref(self, e, env):
        if e.name == "time":
            if self.time is None:
                self.fail("'time' is not available here", "structure")
            return self.time
        if env is not None and e.name in env:
            base = env[e.name]
            if self._owned and isinstance(base, np.ndarray):
                # the array (or a view of it) may now be held elsewhere: no longer exclusive
                out = self.index(base, [self.eval(s, env) for s in e.subs]) if e.subs else base
                if isinstance(out, np.ndarray):
                    self._owned.pop(id(base), None)
                return out
        else:
            base = self.resolve(e.name, self.loc)
        if not e.subs:
            return base
        return self.index(base, [self.eval(s, env) for s in e.subs])

    def index(self, base: Val, subs: Sequence[Val]) -> Val:
        if not isinstance(base, np.ndarray):
            self.fail("subscript on a scalar", "type")
        if len(subs) > base.ndim:
            self.fail(f"too many subscripts ({len(subs)}) for an array of {base.ndim} dimensions", "type")
        static = []
        dyn = None
        for k, s in enumerate(subs):
            if isinstance(s, slice):
                static.append(s)
            elif isinstance(s, np.ndarray):
                idx = [self.num(x) for x in s.reshape(-1)]
                if any(i is None for i in idx):
                    self.fail("array subscript must be structural", "structure")
                static.append([int(i) - 1 for i in idx])
            else:
                n = self.num(s)
                if n is None:
                    if dyn is not None:
                        self.fail("only one dynamic (time-varying) subscript per array access is supported",
                                  "unsupported")
                    if base.ndim != 1:
                        return self._index_dynamic_axis(base, subs, k, s)
                    dyn = s
                    static.append(slice(None))
                else:
                    i = int(n)
                    if not 1 <= i <= base.shape[k]:
                        self.fail(f"subscript {i} out of range 1..{base.shape[k]}", "structure")
                    static.append(i - 1)
        if dyn is not None:
            if base.shape[0] >= GATHER_MIN and self.gather_hook is not None:
                return self.gather_hook(base, dyn)
            return select_chain(dyn, base)
        out = base
        # numpy fancy indexing with lists: apply one axis at a time
        sel = []
        for s in static:
            sel.append(s)
        res = base[tuple(np.ix_(*[np.arange(base.shape[k])[s] if not isinstance(s, int) else [s]
                                  for k, s in enumerate(sel)]))] if any(isinstance(s, list) for s in sel) else base[tuple(sel)]
        if any(isinstance(s, list) for s in sel):
            # drop the axes that were scalar subscripts
            squeeze = tuple(k for k, s in enumerate(sel) if isinstance(s, int))
            res = res.reshape([d for k, d in enumerate(res.shape) if k not in squeeze])
        out = res
        if isinstance(out, np.ndarray) and out.ndim == 0:
            return out[()]
        return out

    def _index_dynamic_axis(self, base: np.ndarray, subs: Sequence[Val], k: int, dyn: Val) -> Val:
        """``base[subs]`` of an array of two or more dimensions whose subscript ``k`` is dynamic
        (MSL's Sources.TimeTable: ``table[next, columns]``): the static subscripts first, then
        for every element left a selection along axis ``k`` (one load or select chain each)."""
        for j, s in enumerate(subs):
            if j != k and not isinstance(s, (slice, np.ndarray)) and self.num(s) is None:
                self.fail("only one dynamic (time-varying) subscript per array access is supported", "unsupported")
        res = self.index(base, [slice(None) if j == k else s for j, s in enumerate(subs)])
        # the dynamic axis' position once the scalar subscripts before it have dropped theirs
        p = sum(1 for j in range(k) if j < len(subs) and not isinstance(subs[j], (slice, np.ndarray)))
        r = np.moveaxis(np.asarray(res, dtype=object), p, 0)
        if r.ndim == 1:
            return self.index(r, [dyn])
        out = np.empty(r.shape[1:], dtype=object)
        for idx in np.ndindex(*r.shape[1:]):
            out[idx] = self.index(np.ascontiguousarray(r[(slice(None),) + idx]), [dyn])
        return out

    def _e_Un(self, e, env):
        return self.unary(e.op, self.eval(e.a, env))

    def unary(self, op: str, a: Val) -> Val:
        """``op a`` of a value."""
        if op == "-":
            return _elementwise(lambda x: -x if is_num(x) else _fold(-x), a)
        if op == "not":
            return _elementwise(lambda x: (not x) if is_num(x) else ca.logic_not(x), a)
        self.fail(f"unary operator {op}")

    def _e_Bin(self, e, env):
        op = e.op
        if op in ("<", "<=", ">", ">=") and not self.noevent:
            a = self.eval(e.a, env)
            b = self.eval(e.b, env)
            if shape(a) or shape(b):
                self.fail("relations on arrays are not supported")
            if to_num(a) is not None and to_num(b) is not None:
                return _binop(op, to_num(a), to_num(b))
            old = self.loc
            return self.events.relation(op, a, b, self.loc)
        a = self.eval(e.a, env)
        if op in ("and", "or") and not shape(a) and to_num(a) is not None and bool(to_num(a)) == (op == "or"):
            # decided by its left operand, the right one is not evaluated (a search loop's
            # 'i < n and x[i + 1] <= t' reads x[n + 1] otherwise)
            return op == "or"
        b = self.eval(e.b, env)
        return self.binary(op, a, b)

    def binary(self, op: str, a: Val, b: Val) -> Val:
        """``a op b`` of two values (no event generation: relations are plain comparisons)."""
        try:
            if op == "*":
                return matmul(a, b)
            if op in (".*", "./", ".+", ".-", ".^"):
                return _elementwise(lambda x, y: _binop(op[1:], x, y), a, b)
            if op == "/" and shape(b):
                self.fail("division by an array")
            if op == "^" and shape(a):
                n = _numeric(b)
                if n is None or not float(n).is_integer() or len(shape(a)) != 2:
                    self.fail("matrix power needs a square matrix and an integer exponent")
                r = np.eye(shape(a)[0], dtype=object)
                for _ in range(int(n)):
                    r = matmul(r, a)
                return r
            if op in ("+", "-") and shape(a) != shape(b) and shape(a) and shape(b):
                self.fail(f"size mismatch in '{op}': {shape(a)} vs {shape(b)}", "type")
            return _elementwise(lambda x, y: _binop(op, x, y), a, b)
        except ValueError as exc:
            self.fail(str(exc), "type")

    def _e_If(self, e, env):
        out = self.eval(e.other, env)
        for c, v in reversed(e.branches):
            cv = self.eval(c, env)
            n = to_num(cv)
            if n is not None:
                out = self.eval(v, env) if n else out
                continue
            val = self.eval(v, env)
            if not (_arithmetic(val) and _arithmetic(out)):
                # a String (or an external object) is chosen when the model is built
                n = self.num(cv)
                if n is None:
                    self.fail("an if-expression of Strings needs a condition known when the FMU is built", "structure")
                out = val if n else out
            else:
                out = if_else(cv, val, out)
        return out

    def _e_Arr(self, e, env):
        vals = [self.eval(x, env) for x in e.elems]
        if e.kind == "tuple":
            return tuple(vals)
        if e.kind == "array":
            return _stack(vals)
        if e.kind == "row":
            mats = [_as_matrix_col(v) for v in vals]
            return np.concatenate(mats, axis=1)
        if e.kind == "col":
            mats = [_as_matrix_row(v) for v in vals]
            return np.concatenate(mats, axis=0)
        self.fail(f"array kind {e.kind}")

    def _e_Range(self, e, env):
        a = self.structural(e.start, "range start", env)
        s = self.structural(e.step, "range step", env) if e.step is not None else 1
        b = self.structural(e.stop, "range end", env)
        n = int(math.floor((b - a) / s + 1e-12)) + 1 if s != 0 else 0
        vals = [a + k * s for k in range(max(n, 0))]
        if all(float(v).is_integer() for v in vals) and all(isinstance(x, (int, np.integer)) or float(x).is_integer() for x in (a, s)):
            vals = [int(v) for v in vals]
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out

    def _e_Compr(self, e, env):
        def rec(k, scope):
            name, rng = e.indices[k]
            vals = [self.num(x) for x in np.asarray(self.eval(rng, scope), dtype=object).reshape(-1)]
            if any(v is None for v in vals):
                self.fail("array comprehension range must be structural", "structure")
            out = []
            for v in vals:
                sc = dict(scope)
                sc[name] = v
                out.append(self.eval(e.expr, sc) if k == len(e.indices) - 1 else rec(k + 1, sc))
            return _stack(out)
        return rec(0, dict(env or {}))

    def _e_Call(self, e, env):
        if not e.builtin:
            return self.call_function(e, env)
        name = e.name
        args = e.args
        if name in ("noEvent", "smooth"):
            self.noevent += 1
            try:
                return self.eval(args[-1], env)
            finally:
                self.noevent -= 1
        if name == "der":
            if self.der is None:
                self.fail("der() is not allowed here")
            return self.der(args[0], env)
        if name == "pre":
            if self.pre is None:
                self.fail("pre() is not allowed here")
            return self.pre(args[0], env)
        if name == "edge":
            b = self.eval(args[0], env)
            p = self.pre(args[0], env) if self.pre else b
            return _elementwise(lambda x, y: _binop("and", x, _not(y)), b, p)
        if name == "change":
            b = self.eval(args[0], env)
            p = self.pre(args[0], env) if self.pre else b
            return _elementwise(lambda x, y: _binop("<>", x, y), b, p)
        if name == "initial":
            return self.events.initial()
        if name == "terminal":
            return False
        if name == "$index":
            base = self.eval(args[0], env)
            return self.index(base, [self.eval(a, env) for a in args[1:]])
        if name == "homotopy":
            return self.homotopy(args, env)
        if name == "$output":      # output k (0-based) of a call: a when-statement's (a, b) := f(x)
            outs = self.eval_outputs(args[1], env)
            k = int(args[0].value)
            return outs[k] if isinstance(outs, tuple) else outs
        vals = [self.eval(a, env) for a in args]
        return self.builtin(name, vals)

    def homotopy(self, args: Sequence[Any], env: Optional[dict]) -> Val:
        """``homotopy(actual, simplified)`` (MLS 3.7.4.4).  The homotopy parameter lambda
        (1: actual) travels in the initial() flag INIT of the generated functions: INIT = 2 -
        lambda while the runtime follows the initialisation's path (1 < INIT <= 2, only with
        HAS_HOMOTOPY: rt_newton.c "Homotopy"), 0 or 1 everywhere else.  The value is
        ``actual + (simplified - actual) (INIT - 1)`` for INIT > 1 and exactly ``actual``
        otherwise, so simulation and every other evaluation see ``actual`` alone.  Without an
        event sink of the model (a function evaluated on its own) it is ``actual``."""
        a = self.eval(args[0], env)
        init = self.events.initial() if len(args) > 1 else None
        if not isinstance(init, ca.SX):
            return a
        s = self.eval(args[1], env)

        def blend(x, y):
            if is_num(x) and is_num(y) and x == y:
                return x
            mu = init - 1
            return _fold(ca.if_else(init > 1, as_sx(x) + (as_sx(y) - as_sx(x)) * mu, as_sx(x)))
        self.events.has_homotopy = True
        return _elementwise(blend, a, s)

    def builtin(self, name: str, vals: list[Val]) -> Val:
        """Built-in function ``name`` applied to the argument values ``vals`` (those that
        need no special evaluation of their arguments: not der/pre/noEvent/...)."""
        if name in _UNARY:
            return _un(name, vals[0])
        if name == "atan2":
            return _elementwise(lambda y, x: math.atan2(y, x) if is_num(y) and is_num(x) else ca.atan2(as_sx(y), as_sx(x)), *vals)
        if name in ("min", "max"):
            if len(vals) == 1:
                flat = list(np.asarray(vals[0], dtype=object).reshape(-1))
                acc = flat[0]
                for x in flat[1:]:
                    acc = _minmax(name, acc, x)
                return acc
            return _elementwise(lambda x, y: _minmax(name, x, y), vals[0], vals[1])
        if name == "mod":
            return _elementwise(mod, vals[0], vals[1])
        if name == "rem":
            return _elementwise(lambda x, y: _binop("-", x, _binop("*", div_trunc(x, y), y)), vals[0], vals[1])
        if name == "div":
            return _elementwise(div_trunc, vals[0], vals[1])
        if name == "sum":
            acc = 0.0
            for x in np.asarray(vals[0], dtype=object).reshape(-1):
                acc = _binop("+", acc, x)
            return acc
        if name == "product":
            acc = 1.0
            for x in np.asarray(vals[0], dtype=object).reshape(-1):
                acc = _binop("*", acc, x)
            return acc
        if name == "size":
            a = vals[0]
            if len(vals) == 1:
                out = np.empty(len(shape(a)), dtype=object)
                out[:] = list(shape(a))
                return out
            return int(shape(a)[int(self.num(vals[1])) - 1])
        if name == "ndims":
            return len(shape(vals[0]))
        if name in ("fill", "zeros", "ones"):
            if name == "fill":
                v, dims = vals[0], vals[1:]
            else:
                v, dims = (0.0 if name == "zeros" else 1.0), vals
            dims = [int(self.num(d)) for d in dims]
            out = np.empty(tuple(dims) + shape(v), dtype=object)
            for idx in np.ndindex(*dims):
                out[idx] = v
            return out
        if name == "identity":
            n = int(_numeric(vals[0]))
            out = np.empty((n, n), dtype=object)
            for i in range(n):
                for j in range(n):
                    out[i, j] = 1.0 if i == j else 0.0
            return out
        if name == "diagonal":
            v = vals[0]
            n = len(v)
            out = np.empty((n, n), dtype=object)
            out[:] = 0.0
            for i in range(n):
                out[i, i] = v[i]
            return out
        if name == "transpose":
            return np.asarray(vals[0], dtype=object).T.copy()
        if name == "cross":
            a, b = vals
            return _stack([_binop("-", _binop("*", a[1], b[2]), _binop("*", a[2], b[1])),
                           _binop("-", _binop("*", a[2], b[0]), _binop("*", a[0], b[2])),
                           _binop("-", _binop("*", a[0], b[1]), _binop("*", a[1], b[0]))])
        if name == "skew":
            x = vals[0]
            z = 0.0
            return np.array([[z, _binop("-", 0, x[2]), x[1]], [x[2], z, _binop("-", 0, x[0])],
                             [_binop("-", 0, x[1]), x[0], z]], dtype=object)
        if name == "outerProduct":
            a, b = vals
            out = np.empty((len(a), len(b)), dtype=object)
            for i in range(len(a)):
                for j in range(len(b)):
                    out[i, j] = _binop("*", a[i], b[j])
            return out
        if name == "linspace":
            x1, x2, n = vals
            n = int(_numeric(n))
            return _stack([_binop("+", x1, _binop("*", _binop("-", x2, x1), k / (n - 1))) for k in range(n)])
        if name == "vector":
            return np.asarray(vals[0], dtype=object).reshape(-1).copy()
        if name == "scalar":
            return np.asarray(vals[0], dtype=object).reshape(-1)[0]
        if name == "matrix":
            a = vals[0]
            if not shape(a):
                return np.array([[a]], dtype=object)
            return a.reshape(a.shape[0], -1) if a.ndim >= 2 else a.reshape(-1, 1)
        if name == "cat":
            k = int(_numeric(vals[0])) - 1
            return np.concatenate([np.asarray(v, dtype=object) for v in vals[1:]], axis=k)
        if name == "semiLinear":
            x, kp, kn = vals
            return if_else(_binop(">=", x, 0), _binop("*", kp, x), _binop("*", kn, x))
        if name in ("sample", "delay", "reinit"):
            self.fail(f"{name}() is not supported here")
        if name == "String":
            return self.string_of(vals)
        if name == "$unsupported_external":       # frontend.UNSUPPORTED_EXTERNAL
            self.fail(f"external function '{vals[0]}' is not supported")
        from . import external
        if name in external.FUNCTIONS:   # MSL's external C functions the exporter evaluates itself
            return external.call(self, name, vals)
        self.fail(f"built-in function {name}() is not supported")

    def string_of(self, vals: list) -> str:
        """``String(x, minimumLength, leftJustified, significantDigits)`` or ``String(x,
        format)`` (MLS 3.7.5) of a value known when the FMU is built (Strings are: messages,
        String parameters)."""
        x = vals[0]
        if isinstance(x, str):
            return x
        n = self.num(x)
        if n is None:
            self.fail("String() of a value not known when the FMU is built")
        if len(vals) == 2:
            fmt = vals[1]
            if not isinstance(fmt, str):
                self.fail("the format of String() must be a String")
            try:
                return ("%" + fmt) % n
            except (TypeError, ValueError):
                self.fail(f"format \"{fmt}\" of String() does not suit the value {n}")
        width, left, digits = (self.num(v) for v in vals[1:4])
        if isinstance(x, (bool, np.bool_)) or (isinstance(n, bool)):
            text = "true" if n else "false"
        elif isinstance(n, int) and not isinstance(x, float):
            text = str(n)
        else:
            text = "%.*g" % (int(digits if digits is not None else 6), float(n))
        width = int(width or 0)
        return text.ljust(width) if (left is None or left) else text.rjust(width)

    # ------------------------------------------------------------------ functions
    def call_function(self, e: ir.Call, env: Optional[dict], all_outputs: bool = False) -> Val:
        """The value of a call of a user function: its first output (MLS 12.4.3: a call in an
        expression is the value of the first output), or with ``all_outputs`` the tuple of its
        outputs (the right-hand side of ``(a, b) = f(...)``)."""
        f = self.model.functions.get(e.name)
        if f is None:
            self.fail(f"unknown function {e.name}", "name")
        args = [self.eval(a, env) for a in e.args]
        outs = self.inline(f, args)
        if not all_outputs:
            return outs[0]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def eval_outputs(self, e: ir.Expr, env: Optional[dict] = None) -> Val:
        """``e`` on the right of a tuple assignment: all outputs of a user function's call."""
        if isinstance(e, ir.Call) and not e.builtin:
            return self.call_function(e, env, all_outputs=True)
        return self.eval(e, env)

    def inline(self, f: ir.Function, args: Sequence[Val]) -> Val:
        if self._fdepth > 50:
            self.fail(f"recursion too deep in function {f.name}")
        if len(args) > len(f.inputs):
            self.fail(f"too many arguments to {f.name}", "type")
        fenv = {}
        for k, v in enumerate(f.inputs):
            if k < len(args):
                fenv[v.name] = args[k]
            elif v.binding is not None:
                fenv[v.name] = None  # filled below (defaults may use earlier inputs)
            else:
                self.fail(f"missing argument '{v.name}' in call of {f.name}", "type")
        if _all_numeric(args):
            # compiled numeric evaluation (fasteval); None: not translatable or it failed at
            # run time, then the interpreter below gives the result or the error
            from . import fasteval
            outs = fasteval.call(self.model, f, args)
            if outs is not None:
                return outs
        outermost = self._fdepth == 0
        saved = (self.noevent, self.loc)
        self.noevent += 1
        self._fdepth += 1
        try:
            for v in f.inputs:
                if fenv.get(v.name) is None:
                    fenv[v.name] = self.eval(v.binding, fenv)
            for v in list(f.outputs) + list(f.locals):
                if v.binding is not None:
                    fenv[v.name] = self.eval(v.binding, fenv)
                elif v.dims and all(d >= 0 for d in v.dims):
                    z = np.empty(v.dims, dtype=object)
                    z[...] = 0.0
                    fenv[v.name] = z
                else:
                    fenv[v.name] = 0.0
            try:
                self.exec_block(f.body, fenv)
            except Return_:
                pass
        finally:
            self.noevent, self.loc = saved
            self._fdepth -= 1
            if outermost:
                # the results go to the caller's world, which reads them without revoking
                self._owned.clear()
        return [fenv[o.name] for o in f.outputs]

    def exec_block(self, stmts: Sequence[ir.Stmt], env: dict) -> None:
        for s in stmts:
            self.exec(s, env)

    def exec(self, s: ir.Stmt, env: dict) -> None:
        if getattr(s, "loc", None) is not None and s.loc.line:
            self.loc = s.loc
        if isinstance(s, ir.Assign):
            val = self.eval_outputs(s.value, env) if s.targets else self.eval(s.value, env)
            if s.targets:
                if not isinstance(val, tuple):
                    val = (val,)
                for t, v in zip(s.targets, val):
                    if t is not None:
                        self.assign(t, v, env)
                return
            self.assign(s.target, val, env)
        elif isinstance(s, ir.ForStmt):
            rng = self.eval(s.range, env)
            vals = list(np.asarray(rng, dtype=object).reshape(-1))
            vals = [self.num(v) for v in vals]
            if any(v is None for v in vals):
                self.fail("for-loop range must be structural")
            had = s.index in env
            old = env.get(s.index)
            try:
                for v in vals:
                    env[s.index] = v
                    try:
                        self.exec_block(s.body, env)
                    except Break_:
                        break
            finally:
                if had:
                    env[s.index] = old
                else:
                    env.pop(s.index, None)
        elif isinstance(s, ir.WhileStmt):
            self.exec_while(s, env)
        elif isinstance(s, ir.IfStmt):
            self.exec_if(list(s.blocks), s.other, env)
        elif isinstance(s, ir.Break):
            raise Break_()
        elif isinstance(s, ir.Return):
            raise Return_()
        elif isinstance(s, ir.AssertStmt):
            pass  # asserts inside functions are not checked at run time (documented)
        else:
            self.fail(f"statement {type(s).__name__}")

    def exec_while(self, s: ir.WhileStmt, env: dict) -> None:
        """A while-loop (MLS 11.2.5).  While its condition is a number, the loop runs as written.
        Where it depends on time-varying values (MSL's Sources.TimeTable searches its interval,
        ``while next < nrow and t >= table[next, 1] loop next := next + 1``), every iteration is
        a possible exit: the loop goes on along the path on which the condition held, with its
        counter a number, until the condition is false as a number (the counter reached its
        bound), and each variable is then the value at the exit taken, chosen by the conditions
        (an if-chain of the exits, first exit first)."""
        exits: list = []              # (guard: the loop ends here, a snapshot of the variables)
        alive: Val = True
        for _ in range(100000):
            c = self.eval(s.cond, env)
            n = self.num(c)
            if n is not None and not n:
                break
            if n is None:
                if len(exits) >= MAX_SYMBOLIC_ITERATIONS:
                    self.loc = s.loc if s.loc.line else self.loc
                    self.fail(f"while-loop whose condition varies with time: still running after "
                              f"{MAX_SYMBOLIC_ITERATIONS} iterations along the path on which it holds "
                              f"(its counter does not reach a bound known when the FMU is built)")
                exits.append((_binop("and", alive, _not(c)), self._snapshot(env)))
                alive = _binop("and", alive, c)
            try:
                self.exec_block(s.body, env)
            except Break_:
                if exits:
                    self.fail("break in a while-loop whose condition varies with time is not supported")
                return
        else:
            self.fail("while loop did not terminate in 100000 iterations")
        if not exits:
            return
        for name in list(env):
            v = env[name]
            for guard, snap in reversed(exits):
                w = snap.get(name, v)
                if w is v or (is_num(w) and is_num(v) and w == v):
                    continue
                v = if_else(guard, w, v)
            env[name] = v
        self._owned.clear()

    def _snapshot(self, env: dict) -> dict:
        """The variables of ``env`` as they are now (arrays copied; the environment's arrays are
        no longer its own, so that a later assignment copies them first)."""
        self._owned.clear()
        return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in env.items()}

    def exec_if(self, blocks: Sequence[tuple[ir.Expr, Sequence[ir.Stmt]]], other: Sequence[ir.Stmt], env: dict) -> None:
        if not blocks:
            self.exec_block(other, env)
            return
        cond, body = blocks[0]
        c = self.eval(cond, env)
        n = _numeric(c)
        if n is not None:
            if n:
                self.exec_block(body, env)
            else:
                self.exec_if(blocks[1:], other, env)
            return
        # both branches start from the same arrays: none of them is exclusive any more
        self._owned.clear()
        env_t = dict(env)
        env_f = dict(env)
        try:
            self.exec_block(body, env_t)
            self.exec_if(blocks[1:], other, env_f)
        except (Break_, Return_):
            self.fail("break/return under a time-varying condition is not supported")
        self._owned.clear()
        for k in set(env_t) | set(env_f):
            if k not in env_t or k not in env_f:
                continue
            a, b = env_t[k], env_f[k]
            if a is b:
                env[k] = a
            else:
                env[k] = if_else(c, a, b)

    def assign(self, t: ir.Ref, val: Val, env: dict) -> None:
        if t.name not in env:
            self.fail(f"assignment to unknown variable '{t.name}'", "name")
        if not t.subs:
            env[t.name] = val
            return
        base = env[t.name]
        if not isinstance(base, np.ndarray):
            self.fail(f"subscripted assignment to scalar '{t.name}'", "type")
        subs = [self.eval(s, env) for s in t.subs]
        if id(base) not in self._owned:
            # possibly shared (an input, an alias, a view, a value read elsewhere): copy once
            base = base.copy()
            self._owned[id(base)] = base
        if len(subs) == 1 and _numeric(subs[0]) is None and not isinstance(subs[0], (slice, np.ndarray)):
            for k in range(base.shape[0]):
                base[k] = if_else(_binop("==", subs[0], k + 1), val, base[k])
            env[t.name] = base
            return
        idx = []
        for s in subs:
            if isinstance(s, slice):
                idx.append(s)
            elif isinstance(s, np.ndarray):
                idx.append([int(_numeric(x)) - 1 for x in s.reshape(-1)])
            else:
                idx.append(int(_numeric(s)) - 1)
        base[tuple(idx)] = val
        env[t.name] = base


def _arithmetic(x) -> bool:
    """A number, an SX or an array of them: what if_else can choose between (not a String or
    an external object)."""
    return is_num(x) or isinstance(x, (ca.SX, np.ndarray))


def _not(x):
    return (not x) if is_num(x) else ca.logic_not(as_sx(x))


def _minmax(name, x, y):
    nx, ny = to_num(x), to_num(y)
    if nx is not None and ny is not None:
        return min(nx, ny) if name == "min" else max(nx, ny)
    return (ca.fmin if name == "min" else ca.fmax)(as_sx(x), as_sx(y))


def _all_numeric(args) -> bool:
    """Every argument is a plain number or an array of plain numbers (no SX, no tuples)."""
    for a in args:
        if isinstance(a, np.ndarray):
            if a.dtype == object:
                if not all(map(is_num, a.flat)):
                    return False
            elif a.dtype.kind not in "biuf":
                return False
        elif not is_num(a):
            return False
    return True


def _numeric(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    n = to_num(v)
    if n is None:
        return None
    return int(n) if isinstance(n, float) and n.is_integer() and abs(n) < 2**53 else n


def _stack(vals):
    if not vals:
        return np.empty(0, dtype=object)
    shapes = {shape(v) for v in vals}
    if len(shapes) != 1:
        raise ExportError(f"array constructor with elements of different sizes {sorted(shapes)}", None, "type")
    s = shapes.pop()
    out = np.empty((len(vals),) + s, dtype=object)
    for k, v in enumerate(vals):
        out[k] = v
    return out


def _as_matrix_col(v):
    s = shape(v)
    if not s:
        return np.array([[v]], dtype=object)
    if len(s) == 1:
        return np.asarray(v, dtype=object).reshape(-1, 1)
    return v


def _as_matrix_row(v):
    s = shape(v)
    if not s:
        return np.array([[v]], dtype=object)
    if len(s) == 1:
        return np.asarray(v, dtype=object).reshape(1, -1)
    return v
