"""The time tables of the Modelica Standard Library, evaluated by the exporter itself.

MSL's ``Modelica.Blocks.Sources.CombiTimeTable`` (and the blocks built on it: ``BooleanTable``,
``IntegerTable`` ...) keeps its table in an *external object* created by the C library
ModelicaStandardTables and reads it through external C functions.  The exporter does not link
that library.  It knows what those functions compute for a table given in the model (not read
from a file) and writes it as an expression of the table's parameters and of time: the table
stays a tunable parameter of the FMU, and the generated code is plain arithmetic.

The functions are recognised by the *C function names* of their ``external`` clauses (the
library's interface, the same in every MSL 4.x release), never by the Modelica names:

===============================================  ==========================================
``ModelicaStandardTables_CombiTimeTable_init2``  the external object: a :class:`TimeTable`
``..._CombiTimeTable_getValue``                  the value of output ``icol`` at a time
``..._CombiTimeTable_nextTimeEvent``             the next time event after a time
``..._CombiTimeTable_minimumTime`` / ``maximumTime``   the first / last abscissa
``..._CombiTimeTable_close``                     the destructor (nothing to do)
===============================================  ==========================================

What is computed (MSL's documentation of ``CombiTimeTable``; the time ``t`` is the block's scaled
time, ``startTime`` and ``shiftTime`` arrive scaled too):

* before ``startTime`` the table's value is 0 (the block adds its ``offset``);
* the table is read at ``s = t - shiftTime``; ``table[:, 1]`` are the abscissae ``a_k``
  (monotonically increasing; two equal ones make a jump), ``table[:, columns[icol]]`` the values;
* ``LinearSegments``: linear interpolation between the rows; ``ConstantSegments``: the value of
  the last row whose abscissa ``s`` has reached;
* outside ``[a_1, a_n]``: ``HoldLastPoint`` holds the first/last value, ``LastTwoPoints``
  continues the first/last segment (constant segments hold), ``Periodic`` repeats
  ``[a_1, a_n)`` with the period ``a_n - a_1``;
* time events: at every abscissa (``Always``; constant segments always), at the jumps only
  (``AtDiscontinuities``) or none; ``startTime`` is one too.  With none left the next event is
  ``DBL_MAX``, as in the C library (the block compares it with ``Modelica.Constants.inf``);
* at an abscissa where the value jumps, the value left of it is returned until the event there has
  been handled (the block's ``nextTimeEvent`` has moved past it), the value right of it after.

Smooth interpolations (Akima, Fritsch-Butland, Steffen, modified Akima), ``NoExtrapolation``,
tables read from files and the 1-D/2-D tables (``CombiTable1D``/``2D``) are refused at the
model's line with what is not supported.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import casadi as ca
import numpy as np

from .symbolic import _binop, _minmax, _un, if_else, mod, to_num

if TYPE_CHECKING:
    from .symbolic import Evaluator

#: the C library's "no further event" (``DBL_MAX``)
NO_EVENT = sys.float_info.max

# ordinals (1-based) of MSL's Modelica.Blocks.Types enumerations
LINEAR, AKIMA, CONSTANT, FRITSCH_BUTLAND, STEFFEN, MODIFIED_AKIMA = 1, 2, 3, 4, 5, 6
HOLD, LAST_TWO, PERIODIC, NO_EXTRAPOLATION = 1, 2, 3, 4
ALWAYS, AT_DISCONTINUITIES, NO_TIME_EVENTS = 1, 2, 3
_SMOOTHNESS = {1: "LinearSegments", 2: "ContinuousDerivative", 3: "ConstantSegments",
               4: "MonotoneContinuousDerivative1", 5: "MonotoneContinuousDerivative2",
               6: "ModifiedContinuousDerivative"}


@dataclass(frozen=True)
class TimeTable:
    """A CombiTimeTable's external object: its table (abscissae ``a``, value matrix ``y`` with
    one column per output) and settings; numbers or CasADi expressions of the parameters."""
    a: tuple
    y: tuple            # y[k][j]: row k, output j
    smoothness: int
    extrapolation: int
    start: Any
    shift: Any
    events: int

    def __repr__(self) -> str:       # in error messages
        return f"<CombiTimeTable {len(self.a)}x{len(self.y[0]) if self.y else 0}>"


class TableError(Exception):
    """A table the exporter cannot evaluate (the evaluator reports it at the model's line)."""


def _int(ev: "Evaluator", v: Any, what: str) -> int:
    n = ev.num(v)
    if n is None:
        raise TableError(f"{what} of a CombiTimeTable must be known when the FMU is built")
    return int(n)


def _str(v) -> str:
    return v if isinstance(v, str) else ""


def init(ev: "Evaluator", vals: list) -> TimeTable:
    """``ModelicaStandardTables_CombiTimeTable_init2(fileName, tableName, table, nRow, nColumn,
    startTime, columns, nCols, smoothness, extrapolation, shiftTime, timeEvents, verbose)``."""
    if len(vals) < 12:
        raise TableError("ModelicaStandardTables_CombiTimeTable_init2 with too few arguments")
    file_name, table_name, table = vals[0], vals[1], vals[2]
    if _str(file_name) not in ("NoName", "") or _str(table_name) not in ("NoName", ""):
        raise TableError(f"a CombiTimeTable read from a file or a named table "
                         f"(fileName = \"{_str(file_name)}\", tableName = \"{_str(table_name)}\") is not "
                         f"supported; give the table as the matrix parameter 'table'")
    table = np.asarray(table, dtype=object)
    if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] < 1:
        raise TableError(f"the table of a CombiTimeTable must be a non-empty matrix (it is {table.shape})")
    columns = [_int(ev, c, "columns") for c in np.asarray(vals[6], dtype=object).reshape(-1)]
    for c in columns:
        if not 1 <= c <= table.shape[1]:
            raise TableError(f"column {c} of a CombiTimeTable is outside its table of {table.shape[1]} columns")
    smooth = _int(ev, vals[8], "smoothness")
    if smooth not in (LINEAR, CONSTANT):
        raise TableError(f"smoothness {_SMOOTHNESS.get(smooth, smooth)} of a CombiTimeTable is not supported "
                         f"(LinearSegments and ConstantSegments are)")
    extra = _int(ev, vals[9], "extrapolation")
    if extra not in (HOLD, LAST_TWO, PERIODIC):
        raise TableError("extrapolation NoExtrapolation of a CombiTimeTable is not supported "
                         "(HoldLastPoint, LastTwoPoints and Periodic are)")
    events = _int(ev, vals[11], "timeEvents")
    n = table.shape[0]
    a = tuple(table[k, 0] for k in range(n))
    y = tuple(tuple(table[k, c - 1] for c in columns) for k in range(n))
    if extra == PERIODIC and n < 2:
        raise TableError("a periodic CombiTimeTable needs at least two rows")
    return TimeTable(a, y, smooth, extra, vals[5], vals[10], events)


def _past(s, a, nxt):
    """``s`` has passed the abscissa ``a``: beyond it, or on it once the event there has been
    handled (the block's next event time ``nxt``, in table time, lies beyond ``a``)."""
    if nxt is None:
        return _binop(">=", s, a)
    return _binop("or", _binop(">", s, a), _binop("and", _binop(">=", s, a), _binop(">", nxt, a)))


def _segment(s, a0, a1, y0, y1):
    """The line through (a0, y0) and (a1, y1) at ``s``; y0 where a1 = a0 (a jump)."""
    da = _binop("-", a1, a0)
    n = to_num(da)
    if n is not None and n == 0:
        return y0
    width = da if n is not None else if_else(_binop(">", da, 0), da, 1.0)
    return _binop("+", y0, _binop("*", _binop("-", s, a0), _binop("/", _binop("-", y1, y0), width)))


def _interpolate(tab: TimeTable, j: int, s, nxt):
    """Value of output ``j`` (0-based) at table time ``s``."""
    a, n = tab.a, len(tab.a)
    col = [tab.y[k][j] for k in range(n)]
    if n == 1:
        return col[0]
    if tab.extrapolation == PERIODIC:
        period = _binop("-", a[-1], a[0])
        s = _binop("+", a[0], mod(_binop("-", s, a[0]), period))
        nxt = None
    if tab.smoothness == CONSTANT:
        v = col[0]
        for k in range(1, n):
            v = if_else(_past(s, a[k], nxt), col[k], v)
        return v
    seg = [_segment(s, a[k], a[k + 1], col[k], col[k + 1]) for k in range(n - 1)]
    v = seg[0] if tab.extrapolation == LAST_TWO else if_else(_past(s, a[0], nxt), seg[0], col[0])
    for k in range(1, n - 1):
        v = if_else(_past(s, a[k], nxt), seg[k], v)
    if tab.extrapolation != LAST_TWO:
        # from the last abscissa on: its value (the last segment's end, or the right value of a
        # jump that ends the table)
        v = if_else(_past(s, a[-1], nxt), col[-1], v)
    return v


def _before_start(tab: TimeTable, t):
    st = to_num(tab.start)
    if st is not None and st <= -1e59:      # startTime = -Modelica.Constants.inf
        return False
    return _binop("<", t, tab.start)


def value(ev: "Evaluator", vals: list) -> Any:
    """``ModelicaStandardTables_CombiTimeTable_getValue(tableID, icol, t, nextTimeEvent,
    preNextTimeEvent)``."""
    tab, icol, t = vals[0], vals[1], vals[2]
    if not isinstance(tab, TimeTable):
        raise TableError("the first argument of a CombiTimeTable function is not its table object")
    j = _int(ev, icol, "the output index") - 1
    if not 0 <= j < len(tab.y[0]):
        raise TableError(f"output {j + 1} of a CombiTimeTable with {len(tab.y[0])} outputs")
    nxt = vals[3] if len(vals) > 3 else None
    s = _binop("-", t, tab.shift)
    v = _interpolate(tab, j, s, None if nxt is None else _binop("-", nxt, tab.shift))
    before = _before_start(tab, t)
    return v if before is False else if_else(before, 0.0, v)


def next_event(ev: "Evaluator", vals: list) -> Any:
    """``ModelicaStandardTables_CombiTimeTable_nextTimeEvent(tableID, t)``."""
    tab, t = vals[0], vals[1]
    if not isinstance(tab, TimeTable):
        raise TableError("the first argument of a CombiTimeTable function is not its table object")
    out: Any = NO_EVENT
    if tab.events != NO_TIME_EVENTS and len(tab.a) > 1:
        a, n = tab.a, len(tab.a)
        if tab.events == ALWAYS or tab.smoothness == CONSTANT:
            points = list(range(n))
        else:
            points = []
            for k in range(n - 1):
                eq = to_num(_binop("==", a[k], a[k + 1]))
                if eq is None:
                    eq = ev.num(_binop("==", a[k], a[k + 1]))
                if eq:
                    points.append(k)
        if tab.extrapolation == PERIODIC:
            period = _binop("-", a[-1], a[0])
            for k in [k for k in points if k < n - 1]:     # a_n is a_1 of the next period
                b = _binop("+", a[k], tab.shift)
                # the first repetition of a_k after t
                reps = _binop("+", _un("floor", _binop("/", _binop("-", t, b), period)), 1.0)
                out = _minmax("min", out, _binop("+", b, _binop("*", period, reps)))
        else:
            for k in points:
                b = _binop("+", a[k], tab.shift)
                out = _minmax("min", out, if_else(_binop(">", b, t), b, NO_EVENT))
    before = _before_start(tab, t)
    if before is not False:
        out = if_else(before, _minmax("min", out, tab.start), out)
    return out


def minimum_time(ev: "Evaluator", vals: list) -> Any:
    return vals[0].a[0]


def maximum_time(ev: "Evaluator", vals: list) -> Any:
    return vals[0].a[-1]


def close(ev: "Evaluator", vals: list) -> Any:
    return 0.0


#: C function name -> implementation ``f(evaluator, argument values)``
FUNCTIONS = {
    "ModelicaStandardTables_CombiTimeTable_init2": init,
    "ModelicaStandardTables_CombiTimeTable_getValue": value,
    "ModelicaStandardTables_CombiTimeTable_nextTimeEvent": next_event,
    "ModelicaStandardTables_CombiTimeTable_minimumTime": minimum_time,
    "ModelicaStandardTables_CombiTimeTable_maximumTime": maximum_time,
    "ModelicaStandardTables_CombiTimeTable_close": close,
}


def call(ev: "Evaluator", name: str, vals: list) -> Any:
    """The value of the table function ``name`` (a key of :data:`FUNCTIONS`)."""
    try:
        out = FUNCTIONS[name](ev, vals)
    except TableError as exc:
        ev.fail(str(exc))
    if isinstance(out, ca.SX) and out.is_constant():
        return float(out)
    return out
