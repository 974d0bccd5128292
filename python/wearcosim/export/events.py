"""Event extraction: relations become event indicators with hysteresis.

A relation ``a op b`` (op in ``< <= > >=``) that is not under ``noEvent``/``smooth``, not in
a function, and whose operands vary in continuous time (time, states, algebraic Reals,
Real inputs) is replaced by a *relation memory* ``m_k`` (0/1) that is frozen between events.
With ``g = a - b`` for ``>``/``>=`` (``g = b - a`` for ``<``/``<=``), the relation is true iff
``g > 0`` (``>= 0``), and its event indicator is::

    z_k = g + h_k   if m_k (currently true)
    z_k = g - h_k   otherwise,          h_k = HYSTERESIS * (1 + |b|), b as written

so the indicator crosses zero only when ``g`` has passed the switching surface by ``h_k``.
At the event the memory is re-evaluated as ``m_k = (g > 0)`` (``>=`` for ``>=``), which is
then guaranteed to flip (the solver stops *after* the crossing of ``z``).  Right after an
event ``|z_k| >= h_k``, so an integrator that stops at roots (CVode) never restarts on an
indicator that is exactly zero -- the failure mode of an indicator without hysteresis, where
``delta > 0`` never switches and a journal falls through its bearing.

Relations whose operands are all parameters, discrete or discrete-valued variables are
evaluated directly: they can change only at events that are already being handled.

``sample(start, interval)`` (MLS 3.7.5: true at ``start + i*interval``, i = 0, 1, ..., during
the first event iteration at those instants only, false during integration) is a time event
generated as a state event on an indicator in ``time`` (the runtime has no time events,
model_api.h G8).  Each distinct (start, interval) gets a hidden counter ``n`` (a discrete
variable, internal to the FMU), the index of the next sampling instant ``b(n) = start +
n*interval``, and the relation ``time > b(n) + tol(n)`` (``tol(k) = SAMPLE_TOL*(1 + |b(k)|)``,
far above the rounding of ``b``).  ``sample()`` is that relation's memory outside the
initialisation; a hidden when-clause on the same condition sets ``n = pre(n) + 1``, so that
in the next pass of the event iteration the relation is false again and sample() has been
true in exactly one pass.  ``n`` starts at the first instant not before the start time
``t0`` (within ``tol``): ``k = max(0, ceil((t0 - start)/interval - 1/2))``, plus one when
``b(k) < t0 - tol(k)``; an instant at ``t0`` itself fires in the initial event iteration:
there sample() is ``b(pre(n)) <= time + tol``.  The relation is false at the start either
way, so the when-conditions' pre values taken at the initialisation (their values without
``initial()``) are false.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from .errors import ExportError

import casadi as ca

from .symbolic import as_sx, _binop

#: scale of the relation hysteresis (see module docstring); 1e-10 m on a penetration of
#: a few micrometres is negligible, 1e-10 m on a bouncing ball's height shifts an impact
#: by ~1e-10/v s.
HYSTERESIS = 1e-10

#: the tolerance of sample()'s instants relative to 1 + |instant| (see module docstring): an
#: instant within it of the start time is the start time's; the event comes that much later
SAMPLE_TOL = 1e-12


@dataclass
class Relation:
    op: str
    a: ca.SX
    b: ca.SX
    g: ca.SX
    m: ca.SX            # memory symbol
    loc: object
    key: str
    scale: ca.SX = None   # the relation's right operand as written (hysteresis scale)

    def value(self) -> ca.SX:
        """The relation evaluated from the current continuous values (event mode)."""
        return (self.g >= 0) if self.op in (">=", "<=") else (self.g > 0)

    def indicator(self) -> ca.SX:
        h = HYSTERESIS * (1 + ca.fabs(self.scale if self.scale is not None else self.b))
        return self.g + ca.if_else(self.m, h, -h)


@dataclass
class Sampler:
    """The state of one ``sample(start, interval)`` (see the module docstring)."""
    name: str           # the hidden counter's name ("$sample0")
    n: ca.SX            # the counter: index of the next sampling instant
    pre: ca.SX          # pre(n)
    start: ca.SX
    interval: ca.SX
    n0: ca.SX           # the counter's value at the start (in time and the parameters)
    cond: ca.SX         # the value of sample(): a when-condition
    relation: Relation
    loc: object


class EventRegistry:
    """Collects event relations while equations are evaluated (the ``EventSink``)."""

    def __init__(self, continuous_syms: ca.SX, init_flag: ca.SX, time: ca.SX | None = None):
        self.cont = continuous_syms
        self.init_flag = init_flag
        self.time = time if time is not None else continuous_syms[0]
        self.relations: list = []
        self._by_key: dict = {}
        self.samplers: list = []
        self._samplers: dict = {}
        self.loc = None

    def relation(self, op: str, a: Any, b: Any, loc: Any) -> Any:
        A, B = as_sx(a), as_sx(b)
        diff = A - B
        if not ca.depends_on(diff, self.cont):
            return _binop(op, a, b)
        return self._relation(op, A, B, loc).m

    def _relation(self, op: str, A: ca.SX, B: ca.SX, loc: Any, scale: ca.SX | None = None) -> Relation:
        if op in (">", ">="):
            g, lhs, rhs = A - B, A, B
        else:
            g, lhs, rhs = B - A, B, A
        key = f"{op in ('>=', '<=')}|{g}"
        r = self._by_key.get(key)
        if r is None:
            k = len(self.relations)
            r = Relation(op if op in (">", ">=") else {"<": ">", "<=": ">="}[op], lhs, rhs, g,
                         ca.SX.sym(f"$rel{k}"), self.loc or loc, key, B if scale is None else scale)
            self.relations.append(r)
            self._by_key[key] = r
        return r

    def sample(self, start: Any, interval: Any, loc: Any) -> ca.SX:
        """The value of ``sample(start, interval)`` (MLS 3.7.5): the condition of its sampler,
        one per distinct (start, interval).  Both must be parameter expressions."""
        from .errors import ExportError
        loc = self.loc or loc
        s, dt = as_sx(start), as_sx(interval)
        if ca.depends_on(ca.vertcat(s, dt), self.cont):
            raise ExportError("sample(start, interval): start and interval must be parameter expressions "
                              "(MLS 3.7.5)", loc, "structure")
        if dt.is_constant() and float(dt) <= 0:
            raise ExportError(f"sample(start, interval): the interval must be positive, is {float(dt):g}",
                              loc, "structure")
        key = f"{s}|{dt}"
        sm = self._samplers.get(key)
        if sm is not None:
            return sm.cond
        k = len(self.samplers)
        name = f"$sample{k}"
        n, pre = ca.SX.sym(name), ca.SX.sym(f"pre({name})")
        t = self.time

        def at(i):
            return s + i * dt

        def tol(i):
            return SAMPLE_TOL * (1 + ca.fabs(at(i)))
        k0 = ca.fmax(0, ca.ceil((t - s) / dt - 0.5))
        n0 = k0 + ca.if_else(at(k0) < t - tol(k0), 1, 0)
        r = self._relation(">", t, at(n) + tol(n), loc, scale=at(n))
        init = self.init_flag
        cond = ca.logic_or(ca.logic_and(r.m, ca.logic_not(init)),
                           ca.logic_and(init, at(pre) <= t + tol(pre)))
        sm = Sampler(name, n, pre, s, dt, n0, cond, r, loc)
        self.samplers.append(sm)
        self._samplers[key] = sm
        return cond

    def initial(self) -> ca.SX:
        return self.init_flag

    def pre(self, name: str, value: Any) -> Any:
        return value


# ----------------------------------------------------------------------------- when-clauses in the source
# rumoca 0.10.2 refuses some invalid when-clauses in its ToDae/Flatten stages without a place
# (a reinit() of one state in two when-equations, a when-equation assigning a state).  These
# are found again in the source, for an error at their lines in the user's terms.

_NAME = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\s*\[[^\]]*\])?"
_WHEN_TOKENS = re.compile(r"\bend\s+when\b|\bend\s+\w+|\belsewhen\b|\bwhen\b|\bthen\b|\belse\b|\bloop\b|;")
_REINIT_AT = re.compile(r"\s*reinit\s*\(\s*(" + _NAME + r")\s*,")
_ASSIGN_AT = re.compile(r"\s*(" + _NAME + r")\s*=(?!=)")


@dataclass
class WhenSite:
    """One reinit() or assignment inside a when-clause of a source file."""
    kind: str           # "reinit" | "assign"
    name: str           # as written (``x``, ``ball.h``, ``q[2]``)
    clause: int         # the when-clause (a when/elsewhen chain) in the file, 1-based
    branch: int         # its branch (0: the when, 1...: the elsewhens)
    loc: Any

    @property
    def base(self) -> str:
        return re.sub(r"\s+", "", self.name).split("[")[0].split(".")[-1]


def when_sites(path: str | Path, text: str | None = None) -> list:
    """The reinit()s and assignments (``v = ...`` at the start of an equation) inside the
    when-clauses of a Modelica file, in textual order.  Comments and strings are blanked
    first; an equation starts after ``then``, ``else``, ``loop`` or ``;``."""
    from .frontend import _strip_comments
    from .ir import Loc
    if text is None:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    s = _strip_comments(text)
    starts = [0] + [m.end() for m in re.finditer(r"\n", s)]

    def loc(off):
        k = bisect.bisect_right(starts, off)
        return Loc(str(path), k, off - starts[k - 1] + 1)

    out, stack, nclauses, pos = [], [], 0, 0
    for m in _WHEN_TOKENS.finditer(s):
        tok = m.group(0)
        if stack and stack[-1][2]:          # an equation of a when-branch's body
            for kind, pat in (("reinit", _REINIT_AT), ("assign", _ASSIGN_AT)):
                mm = pat.match(s, pos, m.start())
                if mm:
                    at = mm.start() + len(mm.group(0)) - len(mm.group(0).lstrip())
                    out.append(WhenSite(kind, mm.group(1), stack[-1][0], stack[-1][1], loc(at)))
                    break
        if re.match(r"end\s+when", tok):
            if stack:
                stack.pop()
        elif tok == "when":
            nclauses += 1
            stack.append([nclauses, 0, False])
        elif tok == "elsewhen" and stack:
            stack[-1][1] += 1
            stack[-1][2] = False
        elif tok == "then" and stack:
            stack[-1][2] = True
        pos = m.end()
    return out


def _is_state(files, base: str) -> bool:
    from .frontend import _strip_comments
    pat = re.compile(r"(?<![\w.])der\s*\(\s*(?:[A-Za-z_]\w*\.)*" + re.escape(base) + r"\s*(?:\[[^\]]*\])?\s*\)")
    for f in files:
        try:
            if pat.search(_strip_comments(Path(f).read_text(encoding="utf-8", errors="replace"))):
                return True
        except OSError:
            pass
    return False


def diagnose_when_refusal(rumoca_text: str, files: "Iterable[str | Path]",
                          prefer: str | Path | None = None) -> "ExportError | None":
    """An :class:`ExportError` at the right lines for rumoca's refusals of invalid when-clauses
    (``rumoca_text``: rumoca's error message; ``files``: the build's source files, ``prefer``
    the model's own), or None when the text is not one of them or the source does not show
    the construct.

    - ``duplicate reinitialization owner definition`` (ToDae) and ``when branch target `x` is
      defined more than once`` (Flatten): reinit() of one variable in two when-equations
      (MLS 8.3.6 allows it only in the branches of one when/elsewhen chain) or twice in one
      branch;
    - ```when assignment`: `x` is not a discrete coordinate`` with ``x`` a state: a state
      changes at an event only through reinit().
    """
    from .errors import ExportError
    files = [Path(f) for f in files]
    if prefer is not None:
        prefer = Path(prefer)
        files = [prefer] + [f for f in files if f != prefer]
    dup = "duplicate reinitialization owner definition" in rumoca_text
    m = re.search(r"when branch target `([^`]+)` is defined more than once", rumoca_text)
    if dup or m:
        want = m.group(1).split("[")[0].split(".")[-1] if m else None
        for group in ([files[0]], files) if files else ():
            sites = [s for f in group for s in _sites(f)
                     if s.kind == "reinit" or (m and s.kind == "assign")]
            if want is not None:
                sites = [s for s in sites if s.base == want]
            by = {}
            for s in sites:
                by.setdefault(s.base, []).append(s)
            for base, ss in by.items():
                for i, a in enumerate(ss):
                    for b in ss[i + 1:]:
                        if (a.loc.file, a.clause) != (b.loc.file, b.clause):
                            return two_when_equations_error(base, a.loc, b.loc)
                        if a.branch == b.branch:
                            what = "re-initialised" if a.kind == b.kind == "reinit" else "assigned"
                            return twice_in_one_branch_error(base, a.loc, b.loc, what)
        return None
    m = re.search(r"`when assignment`: `([^`]+)` is not a discrete coordinate", rumoca_text)
    if m:
        base = m.group(1).split("[")[0].split(".")[-1]
        if not _is_state(files, base):
            return None
        for f in files:
            for s in _sites(f):
                if s.kind == "assign" and s.base == base:
                    return assigns_state_error(m.group(1), s.loc)
    return None


def _sites(f):
    try:
        return when_sites(f)
    except OSError:
        return []


def place(loc: Any) -> str:
    """``File.mo:line`` of a location (``line N`` when it has no file)."""
    f = getattr(loc, "file", "?")
    return f"line {loc.line}" if f in ("", "?") else f"{Path(f).name}:{loc.line}"


def two_when_equations_error(name: str, first: Any, second: Any) -> "ExportError":
    """reinit() of ``name`` in two when-equations (MLS 8.3.6), at the second."""
    from .errors import ExportError
    return ExportError(f"reinit({name}, ...) in two when-equations ({place(first)} and {place(second)}): a variable "
                       f"may be re-initialised in one when-equation only (MLS 8.3.6); put both in the branches of one "
                       f"when/elsewhen chain", second, "structure")


def twice_in_one_branch_error(name: str, first: Any, second: Any, what: str = "re-initialised") -> "ExportError":
    """``name`` re-initialised (or assigned) twice in one branch of a when-clause, at the second."""
    from .errors import ExportError
    return ExportError(f"'{name}' is {what} twice in one branch of a when-clause ({place(first)} and "
                       f"{place(second)}): each variable has one equation per branch", second, "structure")


def assigns_state_error(name: str, loc: Any) -> "ExportError":
    """A when-equation ``x = ...`` of a state ``x`` (a state changes at an event only by reinit)."""
    from .errors import ExportError
    return ExportError(f"when-equation assigns the state '{name}' (it appears under der()): a state changes at an "
                       f"event only by re-initialisation; write reinit({name}, ...) instead of {name} = ...",
                       loc, "structure")
