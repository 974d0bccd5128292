"""The error estimate of a co-simulation: energy residuals at the power bonds of the connections
(the ECCO idea of Sadjina et al., "Energy conservation and power bonds in co-simulations",
2017), and a defect check of the connections that belong to no bond.

Power bonds
    A *bond* is a pair of connections between two components A and B that carry, in opposite
    directions, an effort and the matching flow: a force [N] A -> B with a velocity [m/s]
    B -> A, or a torque [N.m] A -> B with an angular velocity [rad/s] B -> A.  The pairing
    rule (:func:`bonds`), from the FMUs' units and causalities and the names on A's side
    (the side that computes the effort and reads the flow):

    * the effort's unit has the SI dimension of a force or a torque, and the product of the
      two units is a power (W; ``rad`` is taken as dimensionless);
    * the array indices agree (``fA[1]`` with ``vA[1]``, not ``vA[2]``; ``F1``/``v1``:
      the trailing digits of a scalar name are its index);
    * the *tags* agree, the tag being the name without its index and without its leading
      quantity symbol (one letter and the lowercase letters after it: ``fA`` -> ``A``,
      ``tauJ`` -> ``J``, ``wJ`` -> ``J``, ``vNode`` -> ``Node``, ``F`` -> ``""``), or one of
      the tags is empty (a force element's ``F[1]`` acting at two points pairs with both
      ``vJ[1]`` and ``vB[1]``: the joint applies F on the journal and -F on the bearing).

    So an effort connection has zero, one or more partners; each (effort, flow) pair is a
    bond.  A Real connection between components that is in no bond (a position, an angle, a
    speed without its torque, a force whose velocity is not exchanged) is checked by the
    *defect* below.

Energy residual
    Over a communication step [t, t+dt] the effort side A computes e(t) -> e(t+dt) while it
    holds the flow f_A it was given, and B moves from f(t) to f(t+dt) under the held effort
    e_B (the values actually set as inputs: held, extrapolated or, under Gauss-Seidel, fresh).
    The energies the two sides exchanged, by the trapezoidal rule, differ by

        dE = dt/2 * ((e(t) + e(t+dt)) * f_A - e_B * (f(t) + f(t+dt)))

    which is zero for a consistent coupling (monolithic: both are the integral of e*f) and,
    for inputs held constant, is dt/2 * (e(t+dt) f(t) - e(t) f(t+dt)): the energy the
    coupling creates or destroys in the step.  The energy flowing through the bond in the step
    is dt/2 * (|e(t) f(t)| + |e(t+dt) f(t+dt)|).

    The **estimate** of a bond at time t is the net residual energy so far over the energy
    that has flowed through the *interface* (all bonds between the same two components) so
    far: eps = |sum dE| / sum over the interface's bonds of the flowing energy.  A bond that
    carries a negligible part of the interface's energy cannot raise the estimate by itself
    (the axial force of a spur mesh), and a ratio of sums does not explode where the power
    passes zero.  A divergent coupling creates energy step after step, in the same sense,
    and eps grows to O(1); an accurate one keeps eps of the order of the step times the
    interface's frequency, with alternating signs.  The check starts when the interface has
    carried energy over at least :data:`WARMUP` communication steps (and over
    :data:`WARMUP_FRACTION` of the run's steps), and not before that fraction of the run's
    time (under step-size control the first steps are many and short).

Defect (connections in no bond)
    The extrapolation check: the largest difference between an exchanged value at the start
    or end of a step and the value its receiver held during the step, relative to the range of
    the value so far (max - min over the run, or its magnitude when the range is still zero).  It
    is reported, not used to stop a run: a position held over a step is "off" by v*dt by
    construction, and how much that matters is what the bonds downstream of it measure (the
    force a contact computes from it).  A system with no bond at all is therefore not
    checked, which the table says.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

#: the estimate is checked once an interface has carried energy over this many steps, and over
#: at least this fraction of the run's communication steps
WARMUP = 20
WARMUP_FRACTION = 0.1
#: default tolerance of the energy estimate (fraction of the energy through the interface)
TOLERANCE = 2e-4
#: accepted steps taken into the sums at once (:meth:`Estimator.flush`): numpy on a batch instead
#: of a dozen small operations per step; a run that exceeds its tolerance stops at most this
#: many steps later, its violation reported with its own time
BATCH = 64

_FORCE = (1, 1, -2)
_TORQUE = (1, 2, -2)
_POWER = (1, 2, -3)


def _dims(unit: str):
    """(kg, m, s, A, K, mol, cd) exponents of ``unit`` (rad dropped), its factor; None when
    not understood."""
    from ..export import units
    if not unit or not unit.strip():
        return None
    try:
        d = units.dim(unit.strip())
    except Exception:
        return None
    if d.offset != 0.0:
        return None
    exps = tuple(e for b, e in zip(units.BASE, d.exps) if b != "rad")
    return exps, float(d.factor)


def effort_kind(unit: str) -> Optional[str]:
    """"force" or "torque" for a unit of that dimension, else None."""
    d = _dims(unit)
    if d is None:
        return None
    head = d[0][:3]
    if any(d[0][3:]):
        return None
    return "force" if head == _FORCE else "torque" if head == _TORQUE else None


def is_power(unit_a: str, unit_b: str) -> Optional[float]:
    """The factor to watts of ``unit_a * unit_b`` when the product is a power, else None."""
    a, b = _dims(unit_a), _dims(unit_b)
    if a is None or b is None:
        return None
    prod = tuple(x + y for x, y in zip(a[0], b[0]))
    if prod != _POWER + (0,) * (len(prod) - 3):
        return None
    return a[1] * b[1]


_INDEX = re.compile(r"^(.*?)(\[[^\]]*\]|\d+)?$")
_SYMBOL = re.compile(r"^[A-Za-z][a-z]*")


def split_name(name: str) -> tuple[str, str]:
    """(tag, index) of a variable name for the pairing rule: ``fA[1]`` -> ("A", "[1]"),
    ``tauJ`` -> ("J", ""), ``F1`` -> ("", "1"), ``vNode[2]`` -> ("Node", "[2]")."""
    m = _INDEX.match(name)
    base, index = m.group(1), m.group(2) or ""
    if index.isdigit():
        index = f"[{index}]"
    tag = _SYMBOL.sub("", base, count=1)
    return tag, index


@dataclass
class Bond:
    """An effort connection (``e_src`` -> ``e_dst``) and the flow connection (``f_src`` ->
    ``f_dst``) in the opposite direction; ends are ``(component, variable)``."""
    e_src: tuple
    e_dst: tuple
    f_src: tuple
    f_dst: tuple
    kind: str            # "force" or "torque"
    factor: float        # unit product -> W

    @property
    def effort(self) -> str:
        return f"{self.e_src[0]}.{self.e_src[1]} -> {self.e_dst[0]}.{self.e_dst[1]}"

    @property
    def flow(self) -> str:
        return f"{self.f_src[0]}.{self.f_src[1]} -> {self.f_dst[0]}.{self.f_dst[1]}"

    @property
    def interface(self) -> tuple:
        return tuple(sorted((self.e_src[0], self.e_dst[0])))


def bonds(flows: list, unit_of: "Callable[[str, str], str]") -> tuple[list[Bond], list[tuple]]:
    """The power bonds among ``flows`` ([(source, destination, type)], ends ``(component,
    variable)``, component None for the system) by the rule of the module docstring, and the
    Real component-to-component connections in no bond, as (source, destination).
    ``unit_of(component, variable)`` gives a variable's unit."""
    real = [(s, d) for s, d, typ in flows if typ == "Real" and s[0] is not None and d[0] is not None]
    out, used = [], set()
    for es, ed in real:
        ue = unit_of(*es)
        kind = effort_kind(ue)
        if kind is None:
            continue
        etag, eidx = split_name(es[1])
        for fs, fd in real:
            if fs[0] != ed[0] or fd[0] != es[0]:
                continue                         # not B -> A
            factor = is_power(ue, unit_of(*fs))
            if factor is None:
                continue
            ftag, fidx = split_name(fd[1])
            if fidx != eidx or (etag and ftag and etag != ftag):
                continue
            out.append(Bond(es, ed, fs, fd, kind, factor))
            used.update({(es, ed), (fs, fd)})
    rest = [c for c in real if c not in used]
    return out, rest


@dataclass
class Violation:
    time: float
    connection: str
    value: float
    tolerance: float


@dataclass
class Estimator:
    """Accumulates the energy residuals of the bonds and the defects of the other Real
    connections step by step (:meth:`step`), checks the estimate against ``tolerance``
    (:meth:`check`) and makes the table (:meth:`table`).

    Positions: ``e``/``f`` index the master's table of exchanged values (the source of the
    effort and of the flow), ``eh``/``fh`` the vector of the held inputs (the effort as set
    on B, the flow as set on A); ``rest_y``/``rest_h`` the same for the connections in no
    bond."""
    bonds: list
    e: np.ndarray
    f: np.ndarray
    eh: np.ndarray
    fh: np.ndarray
    rest: list
    rest_y: np.ndarray
    rest_h: np.ndarray
    tolerance: float = TOLERANCE
    warmup: int = WARMUP
    t_live: float = -math.inf        # and not before this time (a share of the run, not of its steps)
    residual: np.ndarray = None      # sum of dE per bond [J]
    spurious: np.ndarray = None      # sum of |dE| per bond [J]
    flowing: np.ndarray = None       # sum of the energy through each bond [J]
    peak: np.ndarray = None          # largest estimate per bond so far (after the warm-up)
    peak_t: np.ndarray = None
    carried: np.ndarray = None       # steps in which each interface carried energy
    defect: np.ndarray = None
    lo: np.ndarray = None
    hi: np.ndarray = None
    first: Optional[Violation] = None
    steps: int = 0
    eps: np.ndarray = None           # the estimate of each bond after the last step
    t: float = math.nan

    def __post_init__(self):
        n = len(self.bonds)
        self.residual, self.spurious, self.flowing = np.zeros(n), np.zeros(n), np.zeros(n)
        self.peak, self.peak_t = np.zeros(n), np.full(n, np.nan)
        faces = sorted({b.interface for b in self.bonds})
        self.face = np.array([faces.index(b.interface) for b in self.bonds], dtype=int)
        self.nfaces = len(faces)
        self.carried = np.zeros(len(faces), dtype=int)
        self.factor = np.array([b.factor for b in self.bonds], dtype=float)
        m = len(self.rest)
        self.defect = np.zeros(m)
        self.lo, self.hi = np.full(m, np.inf), np.full(m, -np.inf)
        self._buf: list = []             # steps not yet taken into the sums (flush)

    def start(self, y: np.ndarray) -> None:
        if len(self.rest):
            self.lo = np.minimum(self.lo, y[self.rest_y])
            self.hi = np.maximum(self.hi, y[self.rest_y])

    def step(self, y: np.ndarray, new: np.ndarray, held: np.ndarray, dt: float, t1: float) -> None:
        """One accepted communication step: ``y``/``new`` the exchanged values at its start
        and end (kept by reference: the master never changes them after), ``held`` the Real
        inputs the components were given for it (copied).  Steps are taken in batches of
        :data:`BATCH` (:meth:`flush`): a violation is found up to that many steps after it
        happened, with its own time."""
        self.steps += 1
        self._buf.append((y, new, held.copy(), dt, t1))
        if len(self._buf) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """The steps taken since the last flush, all at once: the same sums in the same order
        as one step after the other."""
        buf = self._buf
        if not buf:
            return
        self._buf = []
        Y = np.array([b[0] for b in buf])
        N = np.array([b[1] for b in buf])
        H = np.array([b[2] for b in buf])
        dt = np.array([b[3] for b in buf])[:, None]
        t1 = np.array([b[4] for b in buf], dtype=float)
        if len(self.bonds):
            e0, e1, f0, f1 = Y[:, self.e], N[:, self.e], Y[:, self.f], N[:, self.f]
            eB, fA = H[:, self.eh], H[:, self.fh]
            # (the master steps inside np.errstate: a diverging run's overflow is the estimate's
            # business, not a warning's)
            dE = 0.5 * dt * ((e0 + e1) * fA - eB * (f0 + f1)) * self.factor
            flow = 0.5 * dt * (np.abs(e0 * f0) + np.abs(e1 * f1)) * self.factor
            run = (lambda prev, d: np.cumsum(np.vstack([prev, d]), axis=0)[1:])   # sums, step by step
            self.residual = run(self.residual, dE)[-1]
            spurious = run(self.spurious, np.abs(dE))
            flowing = run(self.flowing, flow)
            self.spurious, self.flowing = spurious[-1], flowing[-1]
            if self.nfaces == 1:                     # one interface (two components): no grouping
                carried = run(self.carried, (flow.sum(axis=1) > 0)[:, None])
                tot = flowing.sum(axis=1)[:, None]
                with np.errstate(invalid="ignore", divide="ignore"):
                    eps = np.where(tot > 0, spurious / tot, 0.0)
            else:
                onehot = (self.face[:, None] == np.arange(self.nfaces)[None, :]).astype(float)
                carried = run(self.carried, (flow @ onehot) > 0)
                total = (flowing @ onehot)[:, self.face]
                with np.errstate(invalid="ignore", divide="ignore"):
                    eps = np.where(total > 0, spurious / total, 0.0)
            eps = np.where(np.isfinite(eps), eps, np.inf)
            self.carried = carried[-1].astype(int)
            self.eps, self.t = eps[-1], float(t1[-1])
            live = (carried[:, self.face] >= self.warmup) & (t1 >= self.t_live)[:, None]
            self._check(np.where(live, eps, 0.0), t1)
        if len(self.rest):
            v0, v1, h = Y[:, self.rest_y], N[:, self.rest_y], H[:, self.rest_h]
            lo = np.minimum.accumulate(np.vstack([self.lo, v1]), axis=0)[1:]
            hi = np.maximum.accumulate(np.vstack([self.hi, v1]), axis=0)[1:]
            self.lo, self.hi = lo[-1], hi[-1]
            scale = np.where(hi > lo, hi - lo, np.maximum(np.abs(v1), 1e-300))
            with np.errstate(invalid="ignore", over="ignore"):
                d = np.maximum(np.abs(v1 - h), np.abs(v0 - h)) / scale
            self.defect = np.maximum(self.defect, np.where(np.isfinite(d), d, np.inf).max(axis=0))

    def _check(self, eps: np.ndarray, t1: np.ndarray) -> None:
        """Rows of estimates (one per step, at the times ``t1``): the peaks and the first
        violation."""
        top, at = eps.max(axis=0), eps.argmax(axis=0)
        up = top > self.peak
        if up.any():
            self.peak = np.where(up, top, self.peak)
            self.peak_t = np.where(up, t1[at], self.peak_t)
        if self.first is None:
            over = np.flatnonzero(eps.max(axis=1, initial=0.0) > self.tolerance)
            if over.size:
                s = int(over[0])
                i = int(np.argmax(eps[s]))
                self.first = Violation(float(t1[s]), self.bonds[i].effort, float(eps[s, i]), self.tolerance)

    def finish(self) -> None:
        """The end of the run: the steps not yet taken, then the estimate of every bond that
        carried energy is checked, warm-up or not (a run shorter than the warm-up is checked
        here)."""
        self.flush()
        if len(self.bonds) and self.steps:
            self._check(np.where(self.carried[self.face] > 0, self.eps, 0.0)[None, :], np.array([self.t]))

    def rows(self) -> list[dict]:
        """One row per bond and per connection in no bond: the table of the results."""
        self.flush()
        out = []
        for i, b in enumerate(self.bonds):
            tot = float(np.sum(self.flowing[self.face == self.face[i]]))
            out.append({"connection": b.effort, "partner": b.flow, "check": f"energy ({b.kind})",
                        "residual_J": float(self.residual[i]), "energy_J": float(self.flowing[i]),
                        "interface_energy_J": tot, "estimate": float(self.eps[i]) if self.eps is not None else 0.0,
                        "peak": float(self.peak[i]),
                        "at": float(self.peak_t[i]), "tolerance": self.tolerance,
                        "verdict": "flagged" if self.peak[i] > self.tolerance else "ok"})
        # (the verdict: the largest estimate once checked, "at" its time)
        for j, (s, d) in enumerate(self.rest):
            out.append({"connection": f"{s[0]}.{s[1]} -> {d[0]}.{d[1]}", "partner": "",
                        "check": "defect (no partner; reported only)", "residual_J": math.nan,
                        "energy_J": math.nan, "interface_energy_J": math.nan,
                        "estimate": float(self.defect[j]), "peak": math.nan, "at": math.nan, "tolerance": math.nan,
                        "verdict": "-"})
        return out


def table_csv(rows: list[dict]) -> str:
    """The rows of :meth:`Estimator.rows` as CSV text (header first)."""
    keys = ["connection", "partner", "check", "estimate", "peak", "at", "tolerance", "verdict", "residual_J",
            "energy_J", "interface_energy_J"]
    lines = [",".join(keys)]
    for r in rows:
        cells = []
        for k in keys:
            v = r[k]
            cells.append(f"{v:.6g}" if isinstance(v, float) else str(v))
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def summary(rows: list[dict]) -> str:
    """One phrase on the estimate: the worst bond and its verdict, or that no bond was found;
    and the worst connection of the refinement check when it ran."""
    bonds = [r for r in rows if r["check"].startswith("energy")]
    if not bonds:
        text = f"error estimate: no power bond among the connections ({len(rows)} checked by their defect only)"
    else:
        worst = max(bonds, key=lambda r: r["peak"])
        flagged = sum(r["verdict"] == "flagged" for r in bonds)
        text = (f"error estimate: {len(bonds)} power bond(s), largest energy residual {worst['peak']:.3g} "
                f"({worst['connection']}), tolerance {worst['tolerance']:g}, "
                + (f"{flagged} FLAGGED" if flagged else "all ok"))
    refined = [r for r in rows if r["check"] == "refinement"]
    if refined:
        worst = max(refined, key=lambda r: r["estimate"])
        flagged = sum(r["verdict"] == "flagged" for r in refined)
        text += (f"; refinement: largest error estimate {100 * worst['estimate']:.3g} % of range ({worst['connection']}), "
                 f"tolerance {100 * worst['tolerance']:g} %, " + (f"{flagged} FLAGGED" if flagged else "all ok"))
    return text
