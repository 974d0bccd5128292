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
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import casadi as ca

from .symbolic import as_sx, _binop

#: scale of the relation hysteresis (see module docstring); 1e-10 m on a penetration of
#: a few micrometres is negligible, 1e-10 m on a bouncing ball's height shifts an impact
#: by ~1e-10/v s.
HYSTERESIS = 1e-10


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


class EventRegistry:
    """Collects event relations while equations are evaluated (the ``EventSink``)."""

    def __init__(self, continuous_syms: ca.SX, init_flag: ca.SX):
        self.cont = continuous_syms
        self.init_flag = init_flag
        self.relations: list = []
        self._by_key: dict = {}
        self.loc = None

    def relation(self, op: str, a: Any, b: Any, loc: Any) -> Any:
        A, B = as_sx(a), as_sx(b)
        diff = A - B
        if not ca.depends_on(diff, self.cont):
            return _binop(op, a, b)
        if op in (">", ">="):
            g, lhs, rhs = A - B, A, B
        else:
            g, lhs, rhs = B - A, B, A
        key = f"{op in ('>=', '<=')}|{g}"
        r = self._by_key.get(key)
        if r is None:
            k = len(self.relations)
            r = Relation(op if op in (">", ">=") else {"<": ">", "<=": ">="}[op], lhs, rhs, g,
                         ca.SX.sym(f"$rel{k}"), self.loc or loc, key, B)
            self.relations.append(r)
            self._by_key[key] = r
        return r.m

    def initial(self) -> ca.SX:
        return self.init_flag

    def pre(self, name: str, value: Any) -> Any:
        return value
