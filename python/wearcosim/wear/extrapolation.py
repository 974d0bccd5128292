"""Cycle extrapolation: how many real cycles one simulated wear cycle stands for.

Real wear takes 10^5..10^7 load cycles; simulating each one is rarely affordable.  The master
measures the wear rate ``r`` (depth per real cycle and sector) over a window of ``m``
simulated cycles at the current profile ``H``, then jumps ``J`` real cycles::

    H_{u} = H_{u-1} + J_u r_u            (forward Euler in the cycle count n: dH/dn = r(H))

and measures the next rate at the new profile.  With a *fixed* factor N (each simulated
cycle stands for N real ones) ``J = N m`` throughout.  The *adaptive* mode chooses ``J`` from
an error criterion:

* **Error estimate.**  The rate measured after a jump, ``r_{u+1}``, is the slope at its end;
  the trapezoidal (Heun) step ``J/2 (r_u + r_{u+1})`` differs from the Euler step actually
  taken by ``E_u = J_u/2 |r_{u+1} - r_u|`` per sector, the classical embedded estimate of the
  jump's local error.  It costs no extra simulated cycle: the next window measures
  ``r_{u+1}`` anyway (after the last jump one check window is simulated).
* **Criterion (error per unit step).**  A jump is accepted when
  ``max_i E_i / (J rtol s_i) <= 1`` with ``s_i = |r_u,i| + floor * max_j |r_j|``: the
  error of each jump is at most ``rtol`` times the wear that jump added (sector by sector,
  with a floor of ``floor`` = 10 % of the peak rate for sectors that barely wear), so the
  errors of all jumps add up to about ``rtol`` times the final depth, however many jumps
  it takes.
* **Step control.**  ``err`` is proportional to ``J`` (the rate changes linearly over a
  short jump), so the next factor is ``N * clip(safety / err, shrink, growth)`` (safety
  0.9, at most x2, at least x0.2 per jump).  A rejected jump is taken back (the master
  restores the FMU state and the profile from before it) and redone with the smaller
  factor; at the smallest factor (one real cycle per simulated cycle: no extrapolation)
  a jump is always accepted.
* **Hard caps.**  A jump changes the profile by at most ``max_change`` metres (the master
  passes half of its guard ``limits.update_per_clearance x c``, so the controller never
  trips the guard), the factor stays below ``max_factor``, and the last jump ends exactly
  at ``real_cycles``.

The sum of the accepted jumps' ``E`` per sector is a bound-like estimate of the profile's
accumulated error (errors propagated through later jumps are not tracked: for wear, whose
rate changes slowly with the profile, they stay of the same order); the master writes it,
with the factor history, to the results (``/extrapolation``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from typing import Any, Callable


@dataclass
class Judgement:
    accept: bool
    error: float           # the normalised error (<= 1: within the tolerance)
    local: np.ndarray      # E per sector (m)
    factor: float          # the factor of the judged jump


def _errors(jump: float, before: np.ndarray, after: np.ndarray, rtol: float, floor: float) -> tuple[float, np.ndarray]:
    """(:func:`normalised_error`, :func:`local_error`) of float64 arrays, from one pass of
    shared arithmetic (the master judges a jump at every wear update; the two public
    functions are its thin wrappers)."""
    d = np.subtract(after, before)
    np.abs(d, out=d)                                    # |r_after - r_before|
    local = (0.5 * jump) * d
    ab = np.abs(before)
    peak = max(float(np.maximum.reduce(ab, initial=0.0)), float(np.maximum.reduce(np.abs(after), initial=0.0)))
    if peak == 0.0:
        return 0.0, local
    ab += floor * peak                                  # s
    return float(np.maximum.reduce(d / ((2.0 * rtol) * ab))), local


def local_error(jump: float, before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """``E = J/2 |r_after - r_before|`` per sector: the jump's embedded error estimate."""
    return _errors(jump, np.asarray(before, float), np.asarray(after, float), 1.0, 0.1)[1]


def normalised_error(before: np.ndarray, after: np.ndarray, rtol: float, floor: float = 0.1) -> float:
    """``max_i |r_after - r_before|_i / (2 rtol s_i)``, ``s_i = |r_before,i| + floor * peak``
    (peak: the largest rate of both windows); 0 when neither window wears anything."""
    return _errors(1.0, np.asarray(before, float), np.asarray(after, float), rtol, floor)[0]


@dataclass
class AdaptiveExtrapolation:
    """The adaptive controller (see the module's docstring).  ``jump(rate, m)`` gives the real
    cycles of the next jump from the rate measured over ``m`` simulated cycles;
    ``judge(rate)`` judges the last jump from the rate measured after it.  ``state()`` /
    ``from_state()`` carry it through a checkpoint."""
    real_cycles: float
    rtol: float = 0.01
    first: float = 1.0                   # factor of the first jump
    max_factor: float = math.inf
    max_change: float = math.inf         # metres per jump
    min_factor: float = 1.0
    growth: float = 2.0
    shrink: float = 0.2
    safety: float = 0.9
    floor: float = 0.1
    # state
    done: float = 0.0                    # real cycles of the jumps taken so far
    factor: float = field(default=math.nan)  # factor of the next jump
    last_rate: np.ndarray = None         # the rate the last jump was taken with
    last_jump: float = 0.0               # its real cycles
    last_m: int = 1                      # its window (simulated cycles)
    bound: np.ndarray = None             # sum of the accepted jumps' local errors (m)
    accepted: int = 0
    rejected: int = 0

    def __post_init__(self):
        if not self.real_cycles >= 1:
            raise ValueError(f"real_cycles must be >= 1, got {self.real_cycles!r}")
        if not 0 < self.rtol < 1:
            raise ValueError(f"rtol must be in (0, 1), got {self.rtol!r}")
        if math.isnan(self.factor):
            self.factor = max(self.min_factor, min(self.first, self.max_factor))

    @property
    def pending(self) -> bool:
        """A jump was taken and not judged yet."""
        return self.last_rate is not None

    @property
    def finished(self) -> bool:
        return self.done >= self.real_cycles

    def jump(self, rate: np.ndarray, m: int = 1) -> float:
        """Real cycles of the jump to take now with ``rate`` (per real cycle, per sector),
        measured over ``m`` simulated cycles."""
        rate = np.asarray(rate, float)
        f = min(self.factor, self.max_factor)
        if math.isfinite(self.max_change):
            peak = float(np.max(np.abs(rate), initial=0.0))
            if peak > 0:
                f = min(f, self.max_change / (m * peak))
        f = max(f, self.min_factor)
        J = min(f * m, self.real_cycles - self.done)
        self.last_rate, self.last_jump, self.last_m = rate.copy(), J, m
        if self.bound is None:
            self.bound = np.zeros_like(rate)
        self.done += J
        return J

    def judge(self, rate: np.ndarray,
              errors: Callable[[float, np.ndarray, np.ndarray, float, float], tuple[float, np.ndarray]] = _errors
              ) -> Judgement:
        """Judge the last jump from the rate measured after it; on acceptance the next
        jump's factor is set, on rejection the jump is taken back (``done`` decreases) and
        the factor to redo it with is set (the caller restores the profile and the FMU).
        ``errors``: what computes :func:`_errors` (the master's prepared one: the same bits)."""
        rate = np.asarray(rate, float)
        J, m, before = self.last_jump, self.last_m, self.last_rate
        f_used = J / m
        err, local = errors(J, before, rate, self.rtol, self.floor)
        fac = self.growth if err == 0.0 else min(self.growth, max(self.shrink, self.safety / err))
        if err <= 1.0 or f_used <= self.min_factor * (1 + 1e-12):
            self.accepted += 1
            self.bound = self.bound + local
            self.factor = max(self.min_factor, min(self.max_factor, f_used * fac))
            self.last_rate = None
            return Judgement(True, err, local, f_used)
        self.rejected += 1
        self.done -= J
        self.factor = max(self.min_factor, f_used * fac)
        return Judgement(False, err, local, f_used)

    def redo(self) -> float:
        """After a rejection: the real cycles of the same jump redone with the smaller factor
        (from the rate it was taken with)."""
        return self.jump(self.last_rate, self.last_m)

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> tuple[dict, dict]:
        """(scalars, arrays) of the controller's state."""
        scal = {"done": self.done, "factor": self.factor, "last_jump": self.last_jump, "last_m": self.last_m,
                "accepted": self.accepted, "rejected": self.rejected, "pending": self.pending,
                "has_bound": self.bound is not None}
        arr = {}
        if self.pending:
            arr["ctl_last_rate"] = self.last_rate
        if self.bound is not None:
            arr["ctl_bound"] = self.bound
        return scal, arr

    def restore(self, scal: dict[str, Any], arr: dict[str, np.ndarray]) -> None:
        """Take up the state saved by :meth:`state` (a checkpoint's scalars and arrays)."""
        self.done, self.factor = float(scal["done"]), float(scal["factor"])
        self.last_jump, self.last_m = float(scal["last_jump"]), int(scal["last_m"])
        self.accepted, self.rejected = int(scal["accepted"]), int(scal["rejected"])
        self.last_rate = np.array(arr["ctl_last_rate"], float) if scal["pending"] else None
        self.bound = np.array(arr["ctl_bound"], float) if scal["has_bound"] else None


def integrate(rate_fn: Callable[[np.ndarray], np.ndarray], h0: np.ndarray, real_cycles: float,
              ctl: AdaptiveExtrapolation | None = None,
              **kw: Any) -> tuple[np.ndarray, int, AdaptiveExtrapolation]:
    """Drive the controller on a rate law ``rate_fn(h) -> dh/dn`` (no FMU): the final profile,
    the number of rate evaluations (the simulated windows) and the controller.  The master
    runs the same sequence with FMU cycles as the rate evaluations; this is its model for
    tests and studies of the controller."""
    ctl = ctl or AdaptiveExtrapolation(real_cycles, **kw)
    h = np.asarray(h0, float).copy()
    r = np.asarray(rate_fn(h), float)
    evals = 1
    before = h.copy()
    J = ctl.jump(r)
    h = before + J * r
    while True:
        r_new = np.asarray(rate_fn(h), float)
        evals += 1
        j = ctl.judge(r_new)
        if not j.accept:
            J = ctl.redo()
            h = before + J * ctl.last_rate
            continue
        if ctl.finished:
            return h, evals, ctl
        before, r = h.copy(), r_new
        J = ctl.jump(r)
        h = before + J * r
