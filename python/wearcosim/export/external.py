"""External C functions of the Modelica Standard Library that the exporter evaluates itself.

MSL calls a few functions of its C libraries (ModelicaExternalC, ModelicaStandardTables) from
models that are otherwise plain equations: the time tables of ``Modelica.Blocks.Sources`` and the
String utilities their parameters use (``Modelica.Utilities.Strings.isEmpty`` of a file name).
The exporter links none of those libraries.  A function listed here is recognised by the C
name of its ``external`` clause -- the libraries' interface, the same across MSL 4.x -- and
evaluated when the model is built: the tables as expressions of their parameters and time
(:mod:`wearcosim.export.tables`), the String functions on Strings known at build time (String
parameters are not tunable in the FMU).  Any other external C function is refused at its line.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import tables

if TYPE_CHECKING:
    from .symbolic import Evaluator


def _string(ev, v, name: str) -> str:
    if not isinstance(v, str):
        ev.fail(f"{name} needs a String known when the FMU is built")
    return v


def _int(ev, v, name: str) -> int:
    n = ev.num(v)
    if n is None:
        ev.fail(f"{name} needs an Integer known when the FMU is built")
    return int(n)


def _length(ev, vals):
    """``ModelicaStrings_length(string)``: its number of characters."""
    return len(_string(ev, vals[0], "Modelica.Utilities.Strings.length"))


def _skip_white_space(ev, vals):
    """``ModelicaStrings_skipWhiteSpace(string, startIndex)``: the index (1-based) of the first
    character at or after ``startIndex`` that is not white space; length + 1 if there is none."""
    s = _string(ev, vals[0], "Modelica.Utilities.Strings.Advanced.skipWhiteSpace")
    i = _int(ev, vals[1], "Modelica.Utilities.Strings.Advanced.skipWhiteSpace") if len(vals) > 1 else 1
    i = max(i, 1)
    while i <= len(s) and s[i - 1] in " \t\n\r\f\v":
        i += 1
    return i


def _substring(ev, vals):
    """``ModelicaStrings_substring(string, startIndex, endIndex)``."""
    s = _string(ev, vals[0], "Modelica.Utilities.Strings.substring")
    i = _int(ev, vals[1], "Modelica.Utilities.Strings.substring")
    j = _int(ev, vals[2], "Modelica.Utilities.Strings.substring")
    if not (1 <= i <= max(len(s), 1) and i - 1 <= j <= len(s)):
        ev.fail(f"Modelica.Utilities.Strings.substring: indices {i}..{j} outside a String of {len(s)} characters")
    return s[i - 1:j]


def _compare(ev, vals):
    """``ModelicaStrings_compare(string1, string2, caseSensitive)``: the ordinal of
    Modelica.Utilities.Types.Compare (Less 1, Equal 2, Greater 3)."""
    a = _string(ev, vals[0], "Modelica.Utilities.Strings.compare")
    b = _string(ev, vals[1], "Modelica.Utilities.Strings.compare")
    case = ev.num(vals[2]) if len(vals) > 2 else True
    if case is None:
        ev.fail("Modelica.Utilities.Strings.compare needs caseSensitive known when the FMU is built")
    if not case:
        a, b = a.lower(), b.lower()
    return 1 if a < b else 2 if a == b else 3


#: the String functions: C function name -> implementation ``f(evaluator, argument values)``
_STRINGS = {
    "ModelicaStrings_length": _length,
    "ModelicaStrings_skipWhiteSpace": _skip_white_space,
    "ModelicaStrings_substring": _substring,
    "ModelicaStrings_compare": _compare,
}

#: the C function names the exporter evaluates itself
FUNCTIONS = frozenset(_STRINGS) | frozenset(tables.FUNCTIONS)


def call(ev: "Evaluator", name: str, vals: list) -> Any:
    """The value of the external C function ``name`` (one of :data:`FUNCTIONS`)."""
    if name in tables.FUNCTIONS:
        return tables.call(ev, name, vals)
    return _STRINGS[name](ev, vals)
