"""The refinement check of a co-simulation: the run repeated finer, the two compared per
connection.

A co-simulation's local checks (the coupling error of each step, the energy residual at the
power bonds) bound what one step does wrong; they do not bound what the steps do together --
across a sequence of impacts a small error of each impulse shifts the next impact, and the
signals drift apart while every step looks right.  The refinement check measures the global
error the way one checks an ODE solver's: the same co-simulation again, finer -- half the
communication step; under step-size control also a tenth of the coupling tolerance (the
largest step bounds the steps where the error estimate allows more) -- and the largest difference of every exchanged value between the two on the coarse run's grid,
relative to the value's range in the finer run (the table's ``peak``).  The finer run is the
result; its error is estimated as Richardson's, ``difference / (R - 1)`` with R the error
reduction from the run to its refinement (:data:`REDUCTION`: 2 for a first-order coupling, 4
for a second-order one, 4 under step-size control -- measured 5 to 15; the estimate is
conservative where the runs converge, and large where they do not: two runs of a diverging
co-simulation differ by the signal's range).

A difference above the check's tolerance (default 1 % of the range) stops the run with one
line naming the connection, the difference and the time (:class:`RefinementError`), or, with
``force``, flags the result.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

#: default tolerance of the refinement check: the largest difference of an exchanged value
#: between the run and its refinement, as a fraction of the value's range
TOLERANCE = 0.01


class RefinementError(ValueError):
    """A co-simulation whose refinement check exceeds its tolerance."""

    def __init__(self, system: str, row: dict, how: str):
        super().__init__(f"co-simulation of {system}: connection {row['connection']}: error estimate "
                         f"{100 * row['estimate']:.3g} % of the value's range (the run and its refinement, {how}, "
                         f"differ by {100 * row['peak']:.3g} % at t={row['at']:.6g}), tolerance "
                         f"{100 * row['tolerance']:g} % (use a smaller --step, "
                         f"--algorithm ijcsa, a smaller --coupling-tolerance, or --force to finish flagged)")
        self.system, self.row = system, row


#: the error reduction assumed from the run to its refinement: half the step of a first-order
#: coupling (inputs held) halves the error, of a second-order one (inputs extrapolated)
#: quarters it; under step-size control (half the largest step and a tenth of the coupling
#: tolerance) the error was measured to fall 8 to 15 times (issue 34: the stiff two-mass
#: spring, the gear pair, the hybrid mechanism's first impact), but 5 let the gear pair with
#: backlash at 1e-5 s through 1.4 % off: 4 is assumed
REDUCTION = {"held": 2.0, "extrapolated": 4.0, "controlled": 4.0}


def reduction(step_control: bool, extrapolation: int) -> float:
    """The error reduction assumed between the run and its refinement (:data:`REDUCTION`)."""
    if step_control:
        return REDUCTION["controlled"]
    return REDUCTION["extrapolated"] if extrapolation else REDUCTION["held"]


def refined(step: float, step_control: bool, rtol_coupling: float) -> tuple[dict, str]:
    """The settings of the finer run and their description."""
    if step_control:
        return ({"step_divisor": 2, "rtol_coupling": rtol_coupling / 10},
                f"communication step {step:g} -> {step / 2:g} s, coupling tolerance {rtol_coupling:g} -> "
                f"{rtol_coupling / 10:g}")
    return {"step_divisor": 2}, f"communication step {step:g} -> {step / 2:g} s"


def on_grid(a_time: np.ndarray, b_time: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` (over ``b_time``) at the times ``a_time``: taken where the refined grid holds
    the time exactly (it holds every point of the coarse grid: both are anchored at the start
    time, the refined one dyadically), interpolated linearly elsewhere."""
    values = np.asarray(values)
    if len(b_time) == len(a_time):
        return values
    idx = np.minimum(np.searchsorted(b_time, a_time), len(b_time) - 1)
    exact = b_time[idx] == a_time
    if exact.all():
        return values[idx]
    out = np.interp(a_time, b_time, values.astype(float))
    out[exact] = values[idx[exact]]
    return out


def compare(a_time: np.ndarray, a: dict, b_time: np.ndarray, b: dict, connections: Sequence[tuple[str, str]],
            tolerance: float, factor: float = 2.0) -> list[dict]:
    """One row per connection ``(source, destination)`` (names ``"<component>.<variable>"``;
    the source is the recorded value; a recorded signal that is no connection comes as
    ``(name, "(recorded)")``): the largest difference between run ``a`` and its
    refinement ``b`` on ``a``'s grid over the range of the value in ``b`` (its largest
    magnitude when the range is zero, 1 when that is zero too), and the estimate of ``b``'s
    error, that difference over ``factor - 1`` (``factor``: the error reduction from ``a`` to
    ``b``, :func:`reduction`)."""
    rows = []
    for src, dst in connections:
        x = np.asarray(a[src], dtype=float)
        y = on_grid(a_time, b_time, np.asarray(b[src], dtype=float))
        n = min(len(x), len(y))
        x, y = x[:n], y[:n]
        if n == 0:
            dev, at = 0.0, math.nan
        else:
            ref = np.asarray(b[src], dtype=float)
            span = float(np.ptp(ref)) if len(ref) else 0.0
            if not span > 0:
                span = float(np.max(np.abs(ref))) if len(ref) else 0.0
            if not span > 0:
                span = 1.0
            d = np.abs(x - y)
            if not np.all(np.isfinite(d)):
                k = int(np.argmax(~np.isfinite(d)))
                dev, at = math.inf, float(a_time[k])
            else:
                k = int(np.argmax(d))
                dev, at = float(d[k] / span), float(a_time[k])
        est = dev / (factor - 1.0)
        label = f"{src} (recorded)" if dst == "(recorded)" else f"{src} -> {dst}"
        rows.append({"connection": label, "partner": "", "check": "refinement", "residual_J": math.nan,
                     "energy_J": math.nan, "interface_energy_J": math.nan, "estimate": est, "peak": dev, "at": at,
                     "tolerance": tolerance, "verdict": "flagged" if est > tolerance else "ok"})
    return rows


def first_flagged(rows: list[dict]) -> dict | None:
    """The refinement row with the largest difference above its tolerance, or None."""
    bad = [r for r in rows if r["check"] == "refinement" and r["verdict"] == "flagged"]
    return max(bad, key=lambda r: r["estimate"]) if bad else None


def merge_stats(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The finer run's counters with the coarse run's added under ``"coarse"``."""
    out = dict(b)
    out["coarse"] = {k: v for k, v in a.items() if isinstance(v, (int, float))}
    return out
