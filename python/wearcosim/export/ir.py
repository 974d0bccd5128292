"""The exporter's own intermediate representation of a flattened Modelica model.

This is the only model representation the passes after the front end see; rumoca's JSON
never leaks past :mod:`wearcosim.export.frontend`.  Everything is plain, immutable-ish
dataclasses so that passes stay pure (IR in, new object out) and tests can build IR by hand.

Expressions
-----------
``Lit(value)``                     literal (float, int or bool)
``Ref(name, subs)``                variable reference; ``name`` is the flat dotted name
                                   ("joint.wearDepth"), ``subs`` a tuple of subscript exprs
                                   (``Colon()`` for ``:``)
``Bin(op, a, b)``                  op in ``+ - * / ^ .* ./ .^ < <= > >= == <> and or``
``Un(op, a)``                      op in ``- not``
``If(branches, other)``            if-expression; branches = ((cond, value), ...)
``Call(name, args, builtin)``      builtin (``der pre edge change initial noEvent smooth
                                   sin ... fill zeros size ...``) or user function
``Arr(elems, kind)``               array constructor; kind "array" (``{...}``), "row"
                                   (``[a, b]``), "col" (``[a; b]``)
``Range(start, step, stop)``       ``a:b`` / ``a:s:b``
``Compr(expr, indices)``           ``{expr for i in r1, j in r2}``

Source locations are ``Loc(file, line, col)`` (``line`` 0 when unknown, ``col`` 0 when not
given: equations carry lines, diagnostics lines and columns).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional, Tuple, Union


@dataclass(frozen=True)
class Loc:
    file: str = "?"
    line: int = 0
    col: int = 0          # 1-based column where known (diagnostics), else 0

    def __str__(self) -> str:
        if not self.line:
            return self.file
        return f"{self.file}:{self.line}:{self.col}" if self.col else f"{self.file}:{self.line}"


# ----------------------------------------------------------------------------- expressions
class Expr:
    __slots__ = ()


@dataclass(frozen=True)
class Lit(Expr):
    value: Union[float, int, bool, str]


@dataclass(frozen=True)
class Colon(Expr):
    pass


@dataclass(frozen=True)
class Ref(Expr):
    name: str
    subs: Tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Bin(Expr):
    op: str
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Un(Expr):
    op: str
    a: Expr


@dataclass(frozen=True)
class If(Expr):
    branches: Tuple[Tuple[Expr, Expr], ...]
    other: Expr


@dataclass(frozen=True)
class Call(Expr):
    name: str
    args: Tuple[Expr, ...]
    builtin: bool = True


@dataclass(frozen=True)
class Arr(Expr):
    elems: Tuple[Expr, ...]
    kind: str = "array"


@dataclass(frozen=True)
class Range(Expr):
    start: Expr
    step: Optional[Expr]
    stop: Expr


@dataclass(frozen=True)
class Compr(Expr):
    """Array comprehension ``{expr for i in range, j in range2}``."""
    expr: Expr
    indices: Tuple[Tuple[str, Expr], ...]


# ----------------------------------------------------------------------------- statements
class Stmt:
    __slots__ = ()


@dataclass(frozen=True)
class Assign(Stmt):
    target: Ref            # may be a tuple-output call target when ``targets`` is used
    value: Expr
    loc: Loc = Loc()
    targets: Tuple[Optional[Ref], ...] = ()   # (a, b) := f(x); None for an output left out: (, b) := f(x)
    # a call statement without outputs, f(x); (MLS 11.2.1.1), is Assign(Ref("_"), f(x), targets=(None,))


@dataclass(frozen=True)
class IfStmt(Stmt):
    blocks: Tuple[Tuple[Expr, Tuple[Stmt, ...]], ...]
    other: Tuple[Stmt, ...]
    loc: Loc = Loc()


@dataclass(frozen=True)
class ForStmt(Stmt):
    index: str
    range: Expr
    body: Tuple[Stmt, ...]
    loc: Loc = Loc()


@dataclass(frozen=True)
class WhileStmt(Stmt):
    cond: Expr
    body: Tuple[Stmt, ...]
    loc: Loc = Loc()


@dataclass(frozen=True)
class Break(Stmt):
    loc: Loc = Loc()


@dataclass(frozen=True)
class Return(Stmt):
    loc: Loc = Loc()


@dataclass(frozen=True)
class WhenStmt(Stmt):
    """``when c1 then ... elsewhen c2 then ... end when`` in a model's algorithm (MLS 11.2.7);
    the front end turns it into a when-clause (frontend._algorithm_whens), no pass sees it."""
    blocks: Tuple[Tuple[Expr, Tuple[Stmt, ...]], ...]
    loc: Loc = Loc()


@dataclass(frozen=True)
class AssertStmt(Stmt):
    cond: Expr
    message: str
    level: str = "error"
    loc: Loc = Loc()


# ----------------------------------------------------------------------------- declarations
@dataclass
class Var:
    """One (possibly array) variable of the flat model."""
    name: str
    type: str = "Real"                  # Real | Integer | Boolean
    dims: Tuple[int, ...] = ()
    variability: str = "continuous"     # constant | parameter | discrete | continuous
    causality: str = "local"            # local | input | output
    start: Optional[Expr] = None
    binding: Optional[Expr] = None
    fixed: Optional[bool] = None
    min: Optional[Expr] = None
    max: Optional[Expr] = None
    nominal: Optional[Expr] = None
    unit: str = ""
    quantity: str = ""                  # quantity attribute (from the declared type, e.g. "Angle")
    display_unit: str = ""              # displayUnit attribute
    description: str = ""
    final: bool = False
    protected: bool = False
    evaluate: bool = False              # annotation(Evaluate=true) (rumoca also sets it on final parameters)
    keep: bool = False                  # annotation(Evaluate=false): an Integer/Boolean parameter stays tunable
    state_select: str = "default"       # stateSelect: never | avoid | default | prefer | always
    loc: Loc = Loc()


@dataclass
class Equation:
    """Residual form ``lhs - rhs = 0`` of one (possibly array) equation."""
    residual: Expr
    loc: Loc = Loc()


@dataclass
class WhenEq:
    """One equation inside a when-clause."""
    kind: str                      # "assign" | "reinit" | "terminate" | "assert"
    target: Optional[Ref] = None
    value: Optional[Expr] = None
    message: str = ""
    loc: Loc = Loc()


@dataclass
class WhenClause:
    """``when c1 then ... elsewhen c2 then ... end when`` as ordered branches."""
    branches: list  # list of (condition Expr, [WhenEq])
    loc: Loc = Loc()


@dataclass
class AssertEq:
    cond: Expr
    message: str
    level: str = "error"
    loc: Loc = Loc()


@dataclass
class Function:
    name: str
    inputs: list          # list of Var (dims may contain -1 for ':')
    outputs: list
    locals: list
    body: Tuple[Stmt, ...]
    loc: Loc = Loc()


@dataclass
class Model:
    name: str
    description: str = ""
    variables: dict = field(default_factory=dict)      # name -> Var (ordered)
    strings: dict = field(default_factory=dict)        # name -> Var: String parameters and constants
    equations: list = field(default_factory=list)      # [Equation]
    initial_equations: list = field(default_factory=list)
    algorithms: list = field(default_factory=list)     # [tuple of Stmt] (model algorithms)
    initial_algorithms: list = field(default_factory=list)
    whens: list = field(default_factory=list)          # [WhenClause]
    asserts: list = field(default_factory=list)        # [AssertEq]
    functions: dict = field(default_factory=dict)      # name -> Function
    experiment: dict = field(default_factory=dict)     # StartTime, StopTime, Interval, Tolerance
    metadata: dict = field(default_factory=dict)       # author, version, copyright, license (library annotations)
    documentation: dict = field(default_factory=dict)  # Documentation(info=..., revisions=...) of the model
    loc: Loc = Loc()


def walk(e: Expr) -> Iterator[Expr]:
    """Yield ``e`` and all its sub-expressions (pre-order)."""
    yield e
    if isinstance(e, Ref):
        for s in e.subs:
            yield from walk(s)
    elif isinstance(e, Bin):
        yield from walk(e.a)
        yield from walk(e.b)
    elif isinstance(e, Un):
        yield from walk(e.a)
    elif isinstance(e, If):
        for c, v in e.branches:
            yield from walk(c)
            yield from walk(v)
        yield from walk(e.other)
    elif isinstance(e, (Call, Arr)):
        for a in (e.args if isinstance(e, Call) else e.elems):
            yield from walk(a)
    elif isinstance(e, Compr):
        yield from walk(e.expr)
        for _, r in e.indices:
            yield from walk(r)
    elif isinstance(e, Range):
        yield from walk(e.start)
        if e.step is not None:
            yield from walk(e.step)
        yield from walk(e.stop)
