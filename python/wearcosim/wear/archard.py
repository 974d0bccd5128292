"""Archard's wear law on a sector-discretised surface (seed 002 eq. 8-12; docs/physics/wear.md).

    V/s = k F_n / H   ->   dh/ds = k p / H   ->   h_i += k p_i ds_i / H

``k`` dimensionless wear coefficient, ``H`` hardness of the softer (worn) body, ``p_i`` the
contact pressure on sector ``i``, ``ds = |v_slip| dt`` the slip distance.  The pressure of a
Hertz line contact (half-width ``b``, length ``L``) is semi-elliptic,
``p(x) = p0 sqrt(1 - x^2/b^2)``, ``p0 = 2 F_n / (pi b L)``, over ``|x| <= b`` around the
contact point; each sector receives the mean pressure over its arc (exact integral of the
ellipse), so that ``sum_i h_i * A_i`` equals ``k F_n s / H`` to round-off (volume balance).

All functions are pure and vectorised over time samples.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike


def _ellipse_cdf(x, b=None):
    """Integral of sqrt(1 - s^2) from -1 to u = x / b (u clipped to [-1, 1]); total pi/2.
    Given ``b``, the division is done here: ``_ellipse_cdf(x, b) == _ellipse_cdf(x / b)``."""
    u = np.clip(x if b is None else x / b, -1.0, 1.0)
    return 0.5 * (u * np.sqrt(1.0 - u * u) + np.arcsin(u)) + np.pi / 4


@dataclass(frozen=True)
class SectorSurface:
    """A surface cut into ``n`` sectors of equal arc length.

    Circular surfaces (bearing bore, stator): ``radius`` > 0, sector ``i`` (0-based) spans
    angles ``[i, i+1) * 2 pi / n`` and is centred at ``(i + 1/2) * 2 pi / n``; positions are
    angles.  Profile surfaces (a gear flank): ``radius = 0`` and ``extent`` the length of the
    profile, sector ``i`` spans ``[i, i+1) * extent / n``; positions are lengths.
    """
    n: int
    length: float                 # axial length L of the contact (m)
    radius: float = 0.0           # > 0: circular surface
    extent: float = 0.0           # profile length for radius == 0

    @property
    def circular(self) -> bool:
        return self.radius > 0

    @property
    def arc(self) -> float:
        """Arc length of one sector (m)."""
        return (2 * np.pi * self.radius if self.circular else self.extent) / self.n

    @property
    def area(self) -> float:
        return self.arc * self.length

    def centres(self) -> np.ndarray:
        if self.circular:
            return (np.arange(self.n) + 0.5) * 2 * np.pi / self.n
        return (np.arange(self.n) + 0.5) * self.extent / self.n

    def position_to_arc(self, pos: ArrayLike) -> ArrayLike:
        """Arc-length coordinate (m) of a position (angle for circular surfaces)."""
        pos = np.asarray(pos, dtype=float)
        if self.circular:
            return np.mod(pos, 2 * np.pi) * self.radius
        return pos


def _patch_shares(surface: SectorSurface, xc, bb):
    """The sectors a Hertz patch of half-width ``bb`` centred at arc position ``xc`` can touch
    and the part of the ellipse over each: ``(idx, share)``, both (m, offsets), ``share`` the
    integral of sqrt(1 - s^2) over the sector in units of b (sum over a whole patch: pi/2),
    0 for sectors beyond the ends of a profile surface.  A patch wider than the surface is
    unphysical (the force law has left its range): every sector is visited at most once."""
    n, arc = surface.n, surface.arc
    reach = min(int(np.ceil(np.max(bb) / arc)) + 1, n // 2)
    i0 = np.floor(xc / arc).astype(int)
    offs = np.arange(-reach, reach + 1 - (n % 2 == 0 and reach == n // 2))
    i = i0[:, None] + offs[None, :]
    # the ellipse's cdf at each sector boundary (shared by the two sectors beside it)
    edges = np.concatenate([i, i[:, -1:] + 1], axis=1) * arc - xc[:, None]
    share = np.diff(_ellipse_cdf(edges, bb[:, None]), axis=1)
    if surface.circular:
        return np.mod(i, n), share
    return np.clip(i, 0, n - 1), np.where((i >= 0) & (i < n), share, 0.0)


def sector_pressure(surface: SectorSurface, pos: ArrayLike, Fn: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Mean Hertz pressure on every sector for each sample.

    pos, Fn, b: arrays of shape (m,) (contact position, normal force, half-width).
    Returns an (m, n) array of sector-mean pressures (Pa).  Samples with Fn <= 0 or b <= 0
    contribute nothing.
    """
    pos = np.atleast_1d(np.asarray(pos, dtype=float))
    Fn = np.atleast_1d(np.asarray(Fn, dtype=float))
    b = np.atleast_1d(np.asarray(b, dtype=float))
    out = np.zeros((pos.shape[0], surface.n))
    ok = (Fn > 0) & (b > 0) & np.isfinite(Fn) & np.isfinite(b) & np.isfinite(pos)
    if not ok.any():
        return out
    bb = b[ok]
    p0 = 2 * Fn[ok] / (np.pi * bb * surface.length)
    idx, share = _patch_shares(surface, surface.position_to_arc(pos[ok]), bb)
    # force per unit length on a sector: p0 * b * share; its mean pressure: that / arc
    rows = np.broadcast_to(np.nonzero(ok)[0][:, None], idx.shape)
    np.add.at(out, (rows, idx), (p0 * bb)[:, None] * share / surface.arc)
    return out


_C = None
_C_ADD = None          # wc_archard_add (CycleWear)
_C_TRIED = False


def _c_archard():
    """``wc_archard`` of ``archard.c`` (built by :mod:`wearcosim.cext`), or None: no C
    compiler, or ``WEARCOSIM_NO_CLOOP=1`` (the numpy code below, the same results)."""
    global _C, _C_ADD, _C_TRIED
    from .. import cext
    if not cext.enabled():
        return None
    if not _C_TRIED:
        _C_TRIED = True
        import ctypes
        lib = cext.load(Path(__file__).with_name("archard.c"))
        if lib is not None:
            f = lib.wc_archard
            f.restype = ctypes.c_long
            f.argtypes = [ctypes.c_long] + [ctypes.c_void_p] * 5 + [ctypes.c_double, ctypes.c_long] + \
                [ctypes.c_double] * 4 + [ctypes.c_void_p]
            _C = f
            g = lib.wc_archard_add
            g.restype = ctypes.c_long
            g.argtypes = [ctypes.c_void_p]
            _C_ADD = g
    return _C


def archard_depth(surface: SectorSurface, pos: ArrayLike, Fn: ArrayLike, b: ArrayLike, vslip: ArrayLike,
                  dt: ArrayLike, k: float, H: float) -> np.ndarray:
    """Wear depth increment per sector (m) accumulated over the samples.

    ``dt`` is the duration each sample stands for (scalar or array); ``ds = |vslip| dt``.
    The sum over samples of ``k/H * ds * p_i`` (:func:`sector_pressure`), accumulated per
    sector (``bincount``) without forming the samples x sectors matrix: only the samples in
    contact and sliding are visited (the master calls this once per cycle).  With a scalar
    ``dt`` and equally long samples it runs in C (``archard.c``: the same arithmetic in the
    same order, one pass instead of a few dozen array operations).
    """
    if H <= 0:
        raise ValueError("hardness H must be > 0")
    if k < 0:
        raise ValueError("wear coefficient k must be >= 0")
    f = _c_archard() if np.ndim(dt) == 0 else None
    if f is not None:
        # float64 vectors are read in place (a column of the master's buffer: its stride)
        arrs = [a if isinstance(a, np.ndarray) and a.dtype == np.float64 and a.ndim == 1 and a.strides[0] % 8 == 0
                else np.atleast_1d(np.asarray(a, dtype=float)) for a in (pos, Fn, b, vslip)]
        m = arrs[0].shape[0]
        if all(a.ndim == 1 and a.shape[0] == m and a.strides[0] % 8 == 0 for a in arrs):
            out = np.empty(surface.n)
            strides = np.array([a.strides[0] // 8 for a in arrs], dtype=np.int64)
            f(m, *(a.ctypes.data for a in arrs), strides.ctypes.data, float(dt), surface.n, surface.arc,
              surface.radius if surface.circular else 0.0, np.pi * surface.length, k / H, out.ctypes.data)
            return out
    return _archard_depth_numpy(surface, pos, Fn, b, vslip, dt, k, H)


def _archard_depth_numpy(surface: SectorSurface, pos: ArrayLike, Fn: ArrayLike, b: ArrayLike, vslip: ArrayLike,
                         dt: ArrayLike, k: float, H: float) -> np.ndarray:
    """:func:`archard_depth` in numpy (the reference of the C code)."""
    vs = np.atleast_1d(np.asarray(vslip, dtype=float))
    ds = np.abs(vs) * np.broadcast_to(np.asarray(dt, dtype=float), vs.shape)
    pos = np.atleast_1d(np.asarray(pos, dtype=float))
    Fn = np.atleast_1d(np.asarray(Fn, dtype=float))
    b = np.atleast_1d(np.asarray(b, dtype=float))
    ok = (Fn > 0) & (b > 0) & np.isfinite(Fn) & np.isfinite(b) & np.isfinite(pos) & np.isfinite(ds) & (ds > 0)
    if not ok.any():
        return np.zeros(surface.n)
    w = ds[ok] * 2 * Fn[ok] / (np.pi * surface.length)      # ds * p0 * b
    idx, share = _patch_shares(surface, surface.position_to_arc(pos[ok]), b[ok])
    acc = np.bincount(idx.ravel(), weights=(w[:, None] * share).ravel(), minlength=surface.n)
    return (k / H) * acc / surface.arc


class CycleWear:
    """``acc += archard_depth(surface, pos, Fn, b, vslip, dt, k, H)`` for the same sample
    columns every call: the master's cycle buffer, whose columns (float64 views, read in
    place) are refilled each cycle.  The C call's arguments are prepared once, so a call is
    one ctypes call without argument conversions (in numpy without a C compiler; the same
    results as :func:`archard_depth` either way, bit for bit)."""

    def __init__(self, surface: SectorSurface, pos: np.ndarray, Fn: np.ndarray, b: np.ndarray, vslip: np.ndarray,
                 dt: float, k: float, H: float) -> None:
        if H <= 0:
            raise ValueError("hardness H must be > 0")
        if k < 0:
            raise ValueError("wear coefficient k must be >= 0")
        self.surface, self.columns, self.dt, self.k, self.H = surface, (pos, Fn, b, vslip), float(dt), k, H
        self._call = None
        f = _c_archard()
        cols = self.columns
        if f is None or not all(isinstance(a, np.ndarray) and a.dtype == np.float64 and a.ndim == 1
                                and a.shape == cols[0].shape and a.strides[0] % 8 == 0 for a in cols):
            return
        import ctypes

        class Args(ctypes.Structure):     # WcArchard of archard.c
            _fields_ = [("m", ctypes.c_long), ("pos", ctypes.c_void_p), ("Fn", ctypes.c_void_p),
                        ("b", ctypes.c_void_p), ("vslip", ctypes.c_void_p), ("stride", ctypes.c_long * 4),
                        ("dt", ctypes.c_double), ("n", ctypes.c_long), ("arc", ctypes.c_double),
                        ("radius", ctypes.c_double), ("pi_length", ctypes.c_double), ("k_over_h", ctypes.c_double),
                        ("out", ctypes.c_void_p), ("acc", ctypes.c_void_p)]
        self._out = np.empty(surface.n)
        self._args = Args(cols[0].shape[0], *(a.ctypes.data for a in cols), (ctypes.c_long * 4)(*(a.strides[0] // 8 for a in cols)),
                          self.dt, surface.n, surface.arc, surface.radius if surface.circular else 0.0,
                          np.pi * surface.length, k / H, self._out.ctypes.data, None)
        self._ptr = ctypes.addressof(self._args)
        self._acc = None
        self._call = _C_ADD

    def add_to(self, acc: np.ndarray) -> None:
        """``acc += `` the wear depth increment per sector (m) of the samples now in the
        columns; ``acc``: float64, one value per sector, contiguous."""
        if self._call is None:
            acc += archard_depth(self.surface, *self.columns, self.dt, self.k, self.H)
            return
        if acc is not self._acc:
            if not (isinstance(acc, np.ndarray) and acc.dtype == np.float64 and acc.shape == (self.surface.n,)
                    and acc.flags.c_contiguous and acc.flags.writeable):
                raise ValueError(f"the accumulator must be a writeable float64 vector of {self.surface.n} values")
            self._args.acc = acc.ctypes.data
            self._acc = acc          # (kept: its memory must outlive the pointer)
        self._call(self._ptr)


def wear_volume(surface: SectorSurface, h: ArrayLike) -> float:
    """Worn volume (m^3) of a depth profile."""
    return float(np.sum(np.asarray(h)) * surface.area)


def archard_volume(Fn: ArrayLike, vslip: ArrayLike, dt: ArrayLike, k: float, H: float) -> float:
    """Archard's volume k F s / H for the same samples (the balance the profile must meet)."""
    Fn = np.clip(np.asarray(Fn, dtype=float), 0, None)
    return float(k / H * np.sum(Fn * np.abs(vslip) * dt))
