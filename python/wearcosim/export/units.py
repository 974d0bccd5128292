"""Unit strings: the Modelica unit grammar (MLS chapter 19, "Unit Expressions"), which FMI 2.0
uses for its ``unit`` and ``displayUnit`` attributes, and the unit algebra the exporter needs.

Grammar (a unit string has no white space and no comments)::

    unit-expression  = unit-numerator [ "/" unit-denominator ]
    unit-numerator   = "1" | unit-factors | "(" unit-expression ")"
    unit-denominator = unit-factor | "(" unit-expression ")"
    unit-factors     = unit-factor [ "." unit-factors ]
    unit-factor      = unit-operand [ unit-exponent ]
    unit-exponent    = [ "+" | "-" ] UNSIGNED-INTEGER
    unit-operand     = unit-symbol | unit-prefix unit-symbol
    unit-symbol      = letter or "_", repeated

An operand is read as a unit symbol first and only if that fails as a prefix and a symbol
("m" is metre, "mm" millimetre, "T" tesla); an exponent applies to the prefixed symbol
("mm2" = 1e-6 m2).  The empty string means "no unit".

Exponents are integers here.  The current MLS draft also writes rational exponents
(``m(3/2)``), but FMI 2.0's ``<BaseUnit>`` holds integer exponents only, so such a unit has
no FMI 2.0 definition: the exporter refuses it, with the advice to leave the unit out and
name the quantity instead (WearCosim's Hertz stiffness, N/m^1.5, is declared that way).

Every symbol must be one the exporter can express in SI base units (the SI base and
derived units, the non-SI units MLS 19.1 requires, and a few common ones such as ``bar``
and ``rpm``): an FMU's ``<UnitDefinitions>`` give each unit's ``<BaseUnit>`` exponents
(kg, m, s, A, K, mol, cd, rad), factor and offset, so that importers can convert values.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Optional, Tuple

#: the base units of FMI 2.0's <BaseUnit> element, in its attribute order
BASE = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")


class UnitError(ValueError):
    """A unit string that does not follow the grammar, or a symbol the exporter does not
    know.  ``str()`` is a one-line reason (without the unit's location)."""


@dataclass(frozen=True)
class Dim:
    """A unit in SI base units: ``value_in_base = factor * value + offset``; ``exps`` are the
    exponents of :data:`BASE`.  ``offset`` is nonzero for absolute temperature scales only."""
    exps: Tuple[int, ...]
    factor: float = 1.0
    offset: float = 0.0

    def __mul__(self, o: "Dim") -> "Dim":
        return Dim(tuple(a + b for a, b in zip(self.exps, o.exps)), self.factor * o.factor)

    def __pow__(self, n: int) -> "Dim":
        return Dim(tuple(a * n for a in self.exps), self.factor ** n)

    def same_dimension(self, o: "Dim") -> bool:
        return self.exps == o.exps


def _d(factor=1.0, offset=0.0, **exps) -> Dim:
    return Dim(tuple(exps.get(b, 0) for b in BASE), factor, offset)


#: unit symbols the exporter knows, in SI base units (MLS 19.1: the SI base and derived
#: units, min, h, d, l, L, eV, deg, debye; plus common non-SI units)
SYMBOLS = {
    # SI base units (the kilogram is a symbol of its own; "g" takes the prefixes)
    "kg": _d(kg=1), "g": _d(1e-3, kg=1), "m": _d(m=1), "s": _d(s=1), "A": _d(A=1),
    "K": _d(K=1), "mol": _d(mol=1), "cd": _d(cd=1),
    # SI derived units with special names
    "rad": _d(rad=1), "sr": _d(rad=2), "Hz": _d(s=-1), "N": _d(kg=1, m=1, s=-2),
    "Pa": _d(kg=1, m=-1, s=-2), "J": _d(kg=1, m=2, s=-2), "W": _d(kg=1, m=2, s=-3),
    "C": _d(s=1, A=1), "V": _d(kg=1, m=2, s=-3, A=-1), "F": _d(kg=-1, m=-2, s=4, A=2),
    "Ohm": _d(kg=1, m=2, s=-3, A=-2), "S": _d(kg=-1, m=-2, s=3, A=2),
    "Wb": _d(kg=1, m=2, s=-2, A=-1), "T": _d(kg=1, s=-2, A=-1), "H": _d(kg=1, m=2, s=-2, A=-2),
    "degC": _d(1.0, 273.15, K=1), "lm": _d(cd=1, rad=2), "lx": _d(cd=1, rad=2, m=-2),
    "Bq": _d(s=-1), "Gy": _d(m=2, s=-2), "Sv": _d(m=2, s=-2), "kat": _d(mol=1, s=-1),
    # non-SI units MLS 19.1 requires
    "min": _d(60.0, s=1), "h": _d(3600.0, s=1), "d": _d(86400.0, s=1),
    "l": _d(1e-3, m=3), "L": _d(1e-3, m=3), "eV": _d(1.602176634e-19, kg=1, m=2, s=-2),
    "deg": _d(math.pi / 180, rad=1), "debye": _d(1e-21 / 299792458, s=1, A=1, m=1),
    # other common units (Modelica.Units.NonSI and display units)
    "degF": _d(5 / 9, 273.15 - 32 * 5 / 9, K=1), "degRk": _d(5 / 9, K=1),
    "bar": _d(1e5, kg=1, m=-1, s=-2), "rev": _d(2 * math.pi, rad=1),
    "rpm": _d(2 * math.pi / 60, rad=1, s=-1), "t": _d(1e3, kg=1),
    # the decibel: a logarithmic level, dimensionless (FMI base unit "1"); MSL's filters give
    # their pass-band ripple in it (Blocks.Continuous.Filter A_ripple).  No linear conversion
    # to or from it exists: it stands alone (LOGARITHMIC) and is no display unit of another
    "dB": _d(),
}

#: logarithmic level units: dimensionless, but never part of a product or a linear conversion
LOGARITHMIC = {"dB"}

PREFIXES = {
    "Q": 1e30, "R": 1e27, "Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9,
    "M": 1e6, "k": 1e3, "h": 1e2, "da": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "u": 1e-6,
    "n": 1e-9, "p": 1e-12, "f": 1e-15, "a": 1e-18, "z": 1e-21, "y": 1e-24, "r": 1e-27, "q": 1e-30,
}

ONE = _d()
#: symbols that take no prefix (the kilogram is prefixed as "g"; SI: no prefixes on the
#: accepted non-SI units of time and angle; temperature scales with an offset)
NO_PREFIX = {"kg", "min", "h", "d", "deg", "rev", "rpm", "degC", "degF", "degRk", "dB"}

# ----------------------------------------------------------------------------- parsing
# A parsed unit is a tuple of factors (operand, exponent), numerator and denominator
# folded into signed exponents; () is the dimensionless "1".
Factors = Tuple[Tuple[str, int], ...]

_TOKEN = re.compile(r"[A-Za-z_]+|[0-9]+|[./()+-]|.", re.S)


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _TOKEN.findall(text)
        self.i = 0

    def peek(self) -> Optional[str]:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> str:
        t = self.peek()
        self.i += 1
        return t

    def fail(self, why: str):
        raise UnitError(f"'{self.text}' is not a Modelica unit string: {why}")

    def expect(self, t: str):
        if self.peek() != t:
            got = self.peek()
            self.fail(f"expected '{t}' " + (f"at '{got}'" if got is not None else "at the end"))
        self.take()

    def expression(self) -> Factors:
        num = self.numerator()
        if self.peek() == "/":
            self.take()
            den = self.denominator()
            num = num + tuple((o, -e) for o, e in den)
        return num

    def numerator(self) -> Factors:
        t = self.peek()
        if t == "1":
            self.take()
            return ()
        if t == "(":
            self.take()
            f = self.expression()
            self.expect(")")
            return f
        return self.factors()

    def denominator(self) -> Factors:
        if self.peek() == "(":
            self.take()
            f = self.expression()
            self.expect(")")
            return f
        return (self.factor(),)

    def factors(self) -> Factors:
        out = [self.factor()]
        while self.peek() == ".":
            self.take()
            out.append(self.factor())
        return tuple(out)

    def factor(self) -> Tuple[str, int]:
        t = self.peek()
        if t is None:
            self.fail("a unit symbol is missing at the end")
        if not re.fullmatch(r"[A-Za-z_]+", t):
            if t.isdigit():
                self.fail(f"a number ('{t}') where a unit symbol is expected (write '1' alone, or "
                          f"exponents after a symbol: 'm2', 's-1')")
            self.fail(f"'{t}' where a unit symbol is expected")
        self.take()
        sign = 1
        if self.peek() in ("+", "-"):
            sign = -1 if self.take() == "-" else 1
            if self.peek() is None or not self.peek().isdigit():
                self.fail(f"an exponent sign after '{t}' without digits")
        exp = 1
        if self.peek() is not None and self.peek().isdigit():
            exp = sign * int(self.take())
            if self.peek() == "." and self.i + 1 < len(self.toks) and self.toks[self.i + 1].isdigit():
                self.fail(f"the exponent of '{t}' is not an integer (unit exponents are integers: "
                          f"'{t}2', '{t}-1'; a unit with a fractional power has no FMI 2.0 "
                          f"definition: leave the unit out and give the quantity)")
        if self.peek() == "(":
            raise UnitError(f"'{self.text}': a rational exponent after '{t}' has no FMI 2.0 unit "
                            f"definition (<BaseUnit> exponents are integers): leave the unit out "
                            f"and give the quantity")
        return (t, exp)


def parse(text: str) -> Factors:
    """The factors of unit string ``text`` (raises :class:`UnitError`); ``""`` and ``"1"``
    give ``()``.  Every symbol must be known (:func:`operand`)."""
    if text == "":
        return ()
    if re.search(r"\s", text):
        raise UnitError(f"'{text}' is not a Modelica unit string: it contains white space")
    p = _Parser(text)
    f = p.expression()
    if p.peek() is not None:
        rest = "".join(p.toks[p.i:])
        if p.peek() == "/":
            p.fail(f"a second '/' ('{rest}'): write the divisor in parentheses, 'a/(b.c)'")
        p.fail(f"unexpected '{rest}'")
    for op, _ in f:
        operand(op, text)
    return f


def operand(op: str, text: str = None) -> Dim:
    """The SI value of one unit operand: a known symbol, else a prefix and a known symbol."""
    if op in SYMBOLS:
        return SYMBOLS[op]
    for n in (2, 1):
        pre, sym = op[:n], op[n:]
        if pre in PREFIXES and sym in SYMBOLS and sym not in NO_PREFIX:
            d = SYMBOLS[sym]
            return Dim(d.exps, PREFIXES[pre] * d.factor)
    hint = ""
    for k in range(1, len(op)):
        a, b = op[:k], op[k:]
        if _known(a) and _known(b):
            hint = f"; a product is written with '.': '{a}.{b}'"
            break
    raise UnitError(f"unknown unit symbol '{op}'" + (f" in '{text}'" if text and text != op else "")
                    + hint + " (the exporter knows the SI units with their prefixes, min, h, d, l, L, eV, "
                      "deg, debye, degF, degRk, bar, rev, rpm, t, dB)")


def _known(op: str) -> bool:
    try:
        operand(op)
        return True
    except UnitError:
        return False


@functools.lru_cache(maxsize=1024)
def dim(text: str) -> Dim:
    """``text`` in SI base units; an offset (degC, degF) counts only for a unit that is that
    one symbol alone (``degC/s`` is a rate, without offset)."""
    f = parse(text)
    if len(f) == 1 and f[0][1] == 1:
        return operand(f[0][0])
    for op, _ in f:
        if op in LOGARITHMIC:
            raise UnitError(f"'{op}' is a logarithmic level: it is a unit only on its own, not in '{text}'")
    out = ONE
    for op, e in f:
        d = operand(op)
        out = out * Dim(d.exps, d.factor) ** e
    return out


def check(text: str) -> None:
    """Raise :class:`UnitError` unless ``text`` is a valid unit string the exporter knows."""
    dim(text)


# ----------------------------------------------------------------------------- algebra
def render(f: Factors) -> str:
    """A unit string of factors: positive exponents first (in order), then ``/`` and the
    negative ones (in parentheses when more than one); ``"1"`` for no factor."""
    def one(op, e):
        return op if e == 1 else f"{op}{e}"
    num = [one(o, e) for o, e in f if e > 0]
    den = [one(o, -e) for o, e in f if e < 0]
    s = ".".join(num) if num else "1"
    if len(den) == 1:
        s += "/" + den[0]
    elif den:
        s += "/(" + ".".join(den) + ")"
    return s


def times(f: Factors, op: str, e: int) -> Factors:
    """``f`` multiplied by ``op`` to the power ``e``: the exponent of an existing ``op``
    factor changes (dropped at 0), else the factor is appended."""
    out, done = [], False
    for o, x in f:
        if o == op and not done:
            done = True
            if x + e:
                out.append((o, x + e))
        else:
            out.append((o, x))
    if not done:
        out.append((op, e))
    return tuple(out)


def derivative(text: str) -> str:
    """Unit of ``der(x)`` for ``x`` in unit ``text``: ``text`` divided by ``s``
    (``m`` -> ``m/s``, ``rad/s`` -> ``rad/s2``, ``N.m.s/rad`` -> ``N.m/rad``, ``1`` ->
    ``1/s``); ``""`` (no unit) stays ``""``."""
    if text == "":
        return ""
    return render(times(parse(text), "s", -1))


def display_conversion(unit: str, display: str) -> Tuple[float, float]:
    """(factor, offset) of FMI 2.0's ``<DisplayUnit>``: ``display_value = factor * value +
    offset`` for a value in ``unit`` (raises UnitError if their dimensions differ)."""
    u, d = dim(unit), dim(display)
    if (unit.strip() in LOGARITHMIC) != (display.strip() in LOGARITHMIC):
        raise UnitError(f"display unit '{display}' of '{unit}': a logarithmic level has no linear conversion")
    if not u.same_dimension(d):
        raise UnitError(f"display unit '{display}' is not a unit of the same quantity as '{unit}'")
    return u.factor / d.factor, (u.offset - d.offset) / d.factor


def base_unit_attrs(text: str) -> str:
    """Attributes of the ``<BaseUnit>`` element of unit ``text`` (exponents that are not 0,
    factor and offset when not 1 and 0)."""
    d = dim(text)
    a = [f'{b}="{e}"' for b, e in zip(BASE, d.exps) if e]
    if d.factor != 1.0:
        a.append(f'factor="{d.factor!r}"')
    if d.offset != 0.0:
        a.append(f'offset="{d.offset!r}"')
    return " ".join(a)
