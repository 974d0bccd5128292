"""The fuzzer's own model tree (dataclasses) and its rendering to Modelica text.

The generator builds a :class:`Model`, the reference interpreter reads the same tree, and the
shrinker edits it; only :func:`render` turns it into the ``.mo`` text the exporter and rumoca
read.  Nothing here imports the exporter.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

# ----------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Num:
    v: Any                      # int, float or bool


@dataclass(frozen=True)
class Ref:
    name: str                   # a variable, parameter, loop index, 'time', or 'r.a' (record field)
    idx: tuple = ()             # subscripts (expressions)


@dataclass(frozen=True)
class Op:
    op: str                     # + - * / ^ neg and or not < <= > >= == <>
    args: tuple


@dataclass(frozen=True)
class Call:
    f: str                      # builtin, der/pre/edge/change/initial/noEvent, or a user function
    args: tuple
    out: int = 0                # which output of a user function (expression context: the first)


@dataclass(frozen=True)
class IfExp:
    c: Any
    a: Any
    b: Any


@dataclass(frozen=True)
class Arr:
    items: tuple                # {a, b, c}


@dataclass(frozen=True)
class Mat:
    rows: tuple                 # [a, b; c, d]


@dataclass(frozen=True)
class Compr:
    body: Any
    var: str
    lo: Any
    hi: Any                     # {body for var in lo:hi}


@dataclass(frozen=True)
class RecCon:
    rec: str                    # R(a = 1, b = 2)
    fields: tuple               # ((name, expr), ...)


# ----------------------------------------------------------------------------- equations


@dataclass
class Eq:
    lhs: Any                    # expression, or a tuple of Refs for (a, b) = f(...)
    rhs: Any


@dataclass
class ForEq:
    var: str
    lo: Any
    hi: Any
    body: list
    step: Any = None


@dataclass
class IfEq:
    cond: Any
    then: list
    els: list


@dataclass
class Reinit:
    var: Ref
    value: Any


@dataclass
class When:
    branches: list              # [(cond, [Eq | Reinit, ...]), ...]: when / elsewhen ...


# ----------------------------------------------------------------------------- statements


@dataclass
class Assign:
    target: Any                 # Ref or tuple of Refs
    value: Any


@dataclass
class ForSt:
    var: str
    lo: Any
    hi: Any
    body: list
    step: Any = None


@dataclass
class WhileSt:
    cond: Any
    body: list


@dataclass
class IfSt:
    branches: list              # [(cond, [stmts]), ...]
    els: list


# ----------------------------------------------------------------------------- declarations


@dataclass
class Decl:
    type: str                   # Real, Integer, Boolean or a record name
    name: str
    dims: tuple = ()
    prefix: str = ""            # '', 'parameter', 'constant', 'discrete'
    binding: Any = None         # = expr
    mods: dict = field(default_factory=dict)     # start/fixed/...: expr; 'each start' keys allowed
    fields: dict = field(default_factory=dict)   # record field modifiers: name -> expr
    comment: str = ""


@dataclass
class Record:
    name: str
    fields: list                # [(type, name)]


@dataclass
class Function:
    name: str
    inputs: list                # [(type, name, dims)]  dims: () or (':',)
    outputs: list               # [(type, name)]
    protected: list             # [(type, name)]
    body: list


@dataclass
class Block:
    """A group of declarations and equations the shrinker may drop as a whole."""
    kind: str
    decls: list = field(default_factory=list)
    eqs: list = field(default_factory=list)
    init: list = field(default_factory=list)


@dataclass
class Model:
    name: str
    records: list = field(default_factory=list)
    functions: list = field(default_factory=list)
    params: list = field(default_factory=list)      # Decl of parameters and constants (global)
    blocks: list = field(default_factory=list)
    stop: float = 2.0
    dt: float = 0.02
    seed: int | None = None

    def decls(self) -> list:
        return list(self.params) + [d for b in self.blocks for d in b.decls]

    def equations(self) -> list:
        return [e for b in self.blocks for e in b.eqs]

    def initial_equations(self) -> list:
        return [e for b in self.blocks for e in b.init]


# ----------------------------------------------------------------------------- rendering
_PREC = {"or": 1, "and": 2, "not": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "==": 4, "<>": 4,
         "+": 5, "-": 5, "*": 6, "/": 6, "neg": 7, "^": 8}


def num(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    s = repr(float(v))
    return s


def expr(e: Any, prec: int = 0) -> str:
    if isinstance(e, Num):
        s = num(e.v)
        return f"({s})" if s.startswith("-") and prec > 0 else s
    if isinstance(e, Ref):
        if e.idx:
            return f"{e.name}[{', '.join(expr(i) for i in e.idx)}]"
        return e.name
    if isinstance(e, Op):
        p = _PREC[e.op]
        if e.op == "neg":
            s = "-" + expr(e.args[0], p + 1)
        elif e.op == "not":
            s = "not " + expr(e.args[0], p + 1)
        else:
            a, b = e.args
            # left-associative; ^ is not associative in Modelica: parenthesise both sides
            lp = p + 1 if e.op == "^" else p
            s = f"{expr(a, lp)} {e.op} {expr(b, p + 1)}"
        return f"({s})" if p < prec or (e.op == "neg" and prec >= 5) else s
    if isinstance(e, Call):
        return f"{e.f}({', '.join(expr(a) for a in e.args)})"
    if isinstance(e, IfExp):
        s = f"if {expr(e.c)} then {expr(e.a)} else {expr(e.b)}"
        return f"({s})" if prec > 0 else s
    if isinstance(e, Arr):
        return "{" + ", ".join(expr(a) for a in e.items) + "}"
    if isinstance(e, Mat):
        return "[" + "; ".join(", ".join(expr(a) for a in r) for r in e.rows) + "]"
    if isinstance(e, Compr):
        return "{" + f"{expr(e.body)} for {e.var} in {expr(e.lo)}:{expr(e.hi)}" + "}"
    if isinstance(e, RecCon):
        return f"{e.rec}(" + ", ".join(f"{n} = {expr(v)}" for n, v in e.fields) + ")"
    raise TypeError(f"not an expression: {e!r}")


def _range(lo, hi, step) -> str:
    return f"{expr(lo)}:{expr(step)}:{expr(hi)}" if step is not None else f"{expr(lo)}:{expr(hi)}"


def _lhs(l) -> str:
    if isinstance(l, tuple):
        return "(" + ", ".join(expr(x) for x in l) + ")"
    return expr(l)


def equation(e: Any, ind: str) -> list[str]:
    if isinstance(e, Eq):
        return [f"{ind}{_lhs(e.lhs)} = {expr(e.rhs)};"]
    if isinstance(e, Reinit):
        return [f"{ind}reinit({expr(e.var)}, {expr(e.value)});"]
    if isinstance(e, ForEq):
        out = [f"{ind}for {e.var} in {_range(e.lo, e.hi, e.step)} loop"]
        for b in e.body:
            out += equation(b, ind + "  ")
        return out + [f"{ind}end for;"]
    if isinstance(e, IfEq):
        out = [f"{ind}if {expr(e.cond)} then"]
        for b in e.then:
            out += equation(b, ind + "  ")
        out.append(f"{ind}else")
        for b in e.els:
            out += equation(b, ind + "  ")
        return out + [f"{ind}end if;"]
    if isinstance(e, When):
        out = []
        for k, (c, body) in enumerate(e.branches):
            out.append(f"{ind}{'when' if k == 0 else 'elsewhen'} {expr(c)} then")
            for b in body:
                out += equation(b, ind + "  ")
        return out + [f"{ind}end when;"]
    raise TypeError(f"not an equation: {e!r}")


def statement(s: Any, ind: str) -> list[str]:
    if isinstance(s, Assign):
        return [f"{ind}{_lhs(s.target)} := {expr(s.value)};"]
    if isinstance(s, ForSt):
        out = [f"{ind}for {s.var} in {_range(s.lo, s.hi, s.step)} loop"]
        for b in s.body:
            out += statement(b, ind + "  ")
        return out + [f"{ind}end for;"]
    if isinstance(s, WhileSt):
        out = [f"{ind}while {expr(s.cond)} loop"]
        for b in s.body:
            out += statement(b, ind + "  ")
        return out + [f"{ind}end while;"]
    if isinstance(s, IfSt):
        out = []
        for k, (c, body) in enumerate(s.branches):
            out.append(f"{ind}{'if' if k == 0 else 'elseif'} {expr(c)} then")
            for b in body:
                out += statement(b, ind + "  ")
        if s.els:
            out.append(f"{ind}else")
            for b in s.els:
                out += statement(b, ind + "  ")
        return out + [f"{ind}end if;"]
    raise TypeError(f"not a statement: {s!r}")


def decl(d: Decl) -> str:
    dims = f"[{', '.join(expr(x) for x in d.dims)}]" if d.dims else ""
    mods = []
    for k, v in d.fields.items():
        mods.append(f"{k} = {expr(v)}")
    for k, v in d.mods.items():
        mods.append(f"{k} = {expr(v)}")
    m = f"({', '.join(mods)})" if mods else ""
    b = f" = {expr(d.binding)}" if d.binding is not None else ""
    pre = f"{d.prefix} " if d.prefix else ""
    c = f' "{d.comment}"' if d.comment else ""
    return f"  {pre}{d.type} {d.name}{dims}{m}{b}{c};"


def function(f: Function) -> list[str]:
    out = [f"  function {f.name}"]
    for t, n, dims in f.inputs:
        out.append(f"    input {t} {n}{'[' + ', '.join(dims) + ']' if dims else ''};")
    for t, n in f.outputs:
        out.append(f"    output {t} {n};")
    if f.protected:
        out.append("  protected")
        for t, n in f.protected:
            out.append(f"    {t} {n};")
    out.append("  algorithm")
    for s in f.body:
        out += statement(s, "    ")
    out.append(f"  end {f.name};")
    return out


def render(m: Model) -> str:
    out = [f"model {m.name} \"generated by wearcosim.export.fuzz (seed {m.seed})\""]
    for r in m.records:
        out.append(f"  record {r.name}")
        out += [f"    {t} {n};" for t, n in r.fields]
        out.append(f"  end {r.name};")
    for f in m.functions:
        out += function(f)
    for d in m.params:
        out.append(decl(d))
    for b in m.blocks:
        for d in b.decls:
            out.append(decl(d))
    init = m.initial_equations()
    if init:
        out.append("initial equation")
        for e in init:
            out += equation(e, "  ")
    out.append("equation")
    for e in m.equations():
        out += equation(e, "  ")
    out.append(f"  annotation(experiment(StopTime = {num(float(m.stop))}, Interval = {num(float(m.dt))}));")
    out.append(f"end {m.name};")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- traversal
def children(e: Any) -> Iterator:
    if isinstance(e, Ref):
        yield from e.idx
    elif isinstance(e, Op):
        yield from e.args
    elif isinstance(e, Call):
        yield from e.args
    elif isinstance(e, IfExp):
        yield from (e.c, e.a, e.b)
    elif isinstance(e, Arr):
        yield from e.items
    elif isinstance(e, Mat):
        for r in e.rows:
            yield from r
    elif isinstance(e, Compr):
        yield from (e.body, e.lo, e.hi)
    elif isinstance(e, RecCon):
        for _, v in e.fields:
            yield v


def walk(e: Any) -> Iterator:
    yield e
    for c in children(e):
        yield from walk(c)


def rebuild(e: Any, f: Callable[[Any], Any]) -> Any:
    """Bottom-up map: f(node with rebuilt children) -> node."""
    if isinstance(e, Ref):
        e = replace(e, idx=tuple(rebuild(i, f) for i in e.idx)) if e.idx else e
    elif isinstance(e, Op):
        e = replace(e, args=tuple(rebuild(a, f) for a in e.args))
    elif isinstance(e, Call):
        e = replace(e, args=tuple(rebuild(a, f) for a in e.args))
    elif isinstance(e, IfExp):
        e = IfExp(rebuild(e.c, f), rebuild(e.a, f), rebuild(e.b, f))
    elif isinstance(e, Arr):
        e = Arr(tuple(rebuild(a, f) for a in e.items))
    elif isinstance(e, Mat):
        e = Mat(tuple(tuple(rebuild(a, f) for a in r) for r in e.rows))
    elif isinstance(e, Compr):
        e = Compr(rebuild(e.body, f), e.var, rebuild(e.lo, f), rebuild(e.hi, f))
    elif isinstance(e, RecCon):
        e = RecCon(e.rec, tuple((n, rebuild(v, f)) for n, v in e.fields))
    return f(e)


def map_equation(eq: Any, f: Callable[[Any], Any]) -> Any:
    """The equation with every expression in it mapped by ``rebuild(., f)`` (a new object)."""
    if isinstance(eq, Eq):
        lhs = tuple(rebuild(x, f) for x in eq.lhs) if isinstance(eq.lhs, tuple) else rebuild(eq.lhs, f)
        return Eq(lhs, rebuild(eq.rhs, f))
    if isinstance(eq, Reinit):
        return Reinit(eq.var, rebuild(eq.value, f))
    if isinstance(eq, ForEq):
        return ForEq(eq.var, rebuild(eq.lo, f), rebuild(eq.hi, f), [map_equation(b, f) for b in eq.body],
                     None if eq.step is None else rebuild(eq.step, f))
    if isinstance(eq, IfEq):
        return IfEq(rebuild(eq.cond, f), [map_equation(b, f) for b in eq.then], [map_equation(b, f) for b in eq.els])
    if isinstance(eq, When):
        return When([(rebuild(c, f), [map_equation(b, f) for b in body]) for c, body in eq.branches])
    raise TypeError(eq)


def equation_exprs(eq: Any) -> Iterator:
    if isinstance(eq, Eq):
        yield from (eq.lhs if isinstance(eq.lhs, tuple) else (eq.lhs,))
        yield eq.rhs
    elif isinstance(eq, Reinit):
        yield eq.var
        yield eq.value
    elif isinstance(eq, ForEq):
        yield eq.lo
        yield eq.hi
        for b in eq.body:
            yield from equation_exprs(b)
    elif isinstance(eq, IfEq):
        yield eq.cond
        for b in eq.then + eq.els:
            yield from equation_exprs(b)
    elif isinstance(eq, When):
        for c, body in eq.branches:
            yield c
            for b in body:
                yield from equation_exprs(b)


def names_used(m: Model) -> set:
    """Every name referenced by the model's equations and declarations (record fields by base name)."""
    out = set()
    exprs = [x for e in m.equations() + m.initial_equations() for x in equation_exprs(e)]
    for d in m.decls():
        exprs += [v for v in d.mods.values()] + [v for v in d.fields.values()] + list(d.dims)
        if d.binding is not None:
            exprs.append(d.binding)
    for x in exprs:
        for n in walk(x):
            if isinstance(n, Ref):
                out.add(n.name.split(".")[0])
            elif isinstance(n, Call):
                out.add(n.f)
    return out
