"""Geometry reconstruction: accumulated wear -> the new worn profile the FMU receives.

``update_profile(h, dh, N, w)`` returns ``h + N * S_w(dh)`` where ``N`` is the cycle
extrapolation factor (each simulated cycle stands for N real ones, as in the wear
literature: real wear needs 1e5..1e7 cycles) and ``S_w`` an optional moving average over
``2w + 1`` sectors (``w = 0``: none): around a closed surface (bearing, stator) periodic,
along an open profile (gear flank) cut at its ends.  Smoothing conserves the worn volume
(exactly on a closed surface, nearly on a profile) and damps sector-to-sector noise of a
short sampled cycle; it is off by default because it also flattens genuine wear peaks.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike


def all_finite(x: np.ndarray) -> bool:
    """Whether every value of the float array ``x`` is finite: a finite sum says it in one
    pass; only a sum that is not (a non-finite value, or finite values overflowing) needs the
    element-wise test."""
    return math.isfinite(np.add.reduce(x)) or bool(np.all(np.isfinite(x)))


def smooth_periodic(x: ArrayLike, w: int, periodic: bool = True, copy: bool = True) -> np.ndarray:
    """Moving average over ``2w + 1`` sectors: around a closed surface (``periodic``), or
    along an open profile (a gear flank), where the window is cut at the ends and each sector
    is the mean of the sectors it covers there (root and tip are never averaged together).
    The periodic average conserves the sum exactly; the open one nearly (the end sectors
    weigh a little more).  No smoothing (``w <= 0``) returns a copy of ``x``, or with
    ``copy=False`` ``x`` itself (as a float array)."""
    x = np.asarray(x, dtype=float)
    if w <= 0:
        return x.copy() if copy else x
    n = x.size
    if 2 * w + 1 > n:
        raise ValueError(f"smoothing window of {2 * w + 1} sectors exceeds the {n} sectors")
    if periodic:
        acc = np.zeros_like(x)
        for s in range(-w, w + 1):
            acc += np.roll(x, s)
        return acc / (2 * w + 1)
    c = np.concatenate([[0.0], np.cumsum(x)])
    lo = np.clip(np.arange(n) - w, 0, n)
    hi = np.clip(np.arange(n) + w + 1, 0, n)
    return (c[hi] - c[lo]) / (hi - lo)


def update_profile(depth: ArrayLike, increment: ArrayLike, extrapolation: float = 1.0, smoothing: int = 0,
                   periodic: bool = True) -> np.ndarray:
    """The new profile ``depth + extrapolation * S_w(increment)`` (m; see the module's
    docstring); a new array.  ``ValueError`` when the shapes differ or the increment is not
    finite and non-negative."""
    depth = np.asarray(depth, dtype=float)
    inc = np.asarray(increment, dtype=float)
    if depth.shape != inc.shape:
        raise ValueError(f"profile has {depth.size} sectors, increment {inc.size}")
    # (NaN fails the non-negative minimum)
    if inc.size and not (np.minimum.reduce(inc) >= 0 and all_finite(inc)):
        raise ValueError("wear increment must be finite and non-negative")
    return depth + extrapolation * smooth_periodic(inc, smoothing, periodic, copy=False)


def guard_stats(old: np.ndarray, new: np.ndarray) -> tuple[int, int, float, int, float]:
    """What the master's guards look at when the profile ``old`` becomes ``new`` (float
    arrays of equal shape): ``(bad, i, change, j, deepest)``, ``bad`` the first sector whose
    new depth is not finite (-1: none; then the other figures are not defined), ``i`` the
    sector of the largest change ``|new - old|`` and that change, ``j`` the deepest sector of
    ``new`` and its depth (the first one of equal values)."""
    if not all_finite(new):
        return int(np.flatnonzero(~np.isfinite(new))[0]), -1, math.nan, -1, math.nan
    d = np.subtract(new, old)
    np.abs(d, out=d)
    i = int(d.argmax())
    j = int(new.argmax())
    return -1, i, float(d[i]), j, float(new[j])
