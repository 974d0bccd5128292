"""The arithmetic of one wear update of the master, prepared once per run.

At every wear update the master smooths the window's wear into a rate, judges the last jump
from it (:func:`wearcosim.wear.extrapolation._errors`), builds the new profile
(:func:`.reconstruction.update_profile`) and checks it (:func:`.reconstruction.guard_stats`):
in numpy some forty calls on arrays of a few dozen sectors, whose per-call cost is what the
update costs.  :class:`WearUpdate` does each step in one C call (``update.c``, built by
:mod:`wearcosim.cext`) on a workspace prepared once: the arrays are copied in and out, no
pointer is taken per call.  Without a C compiler (or with ``WEARCOSIM_NO_CLOOP=1``) it runs the
numpy functions themselves.  The results are the same either way, bit for bit
(tests/wear/test_wear_update.py).
"""
from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from .extrapolation import _errors
from .reconstruction import guard_stats, smooth_periodic, update_profile

_SRC = Path(__file__).with_name("update.c")
#: the rows of the workspace (each n + 1 values; update.c's WcUpdate points at them)
_ROWS = ("pending", "s", "rate", "before", "after", "local", "depth", "next", "work")


class _Args(ctypes.Structure):       # WcUpdate of update.c
    _fields_ = ([("n", ctypes.c_long), ("w", ctypes.c_long), ("periodic", ctypes.c_long)]
                + [(r, ctypes.c_void_p) for r in _ROWS]
                + [(k, ctypes.c_double) for k in ("m", "jump", "rtol", "floor", "factor")]
                + [("out", ctypes.c_double * 6)])


def _functions() -> tuple | None:
    """(wc_rate, wc_errors, wc_profile) of ``update.c``, or None (no C helper)."""
    from .. import cext
    lib = cext.library(_SRC)
    if lib is None:
        return None
    fs = (lib.wc_rate, lib.wc_errors, lib.wc_profile)
    if fs[0].argtypes is None:          # first use in this process (cext.library keeps lib)
        for f in fs:
            f.argtypes = [ctypes.c_void_p]
        fs[0].restype = fs[1].restype = None
        fs[2].restype = ctypes.c_long
    return fs


class WearUpdate:
    """The wear update's arithmetic on ``n`` sectors with the scenario's smoothing
    (``smoothing`` sectors each side, around a closed surface if ``periodic``)."""

    def __init__(self, n: int, smoothing: int = 0, periodic: bool = True) -> None:
        self.n, self.smoothing, self.periodic = int(n), int(smoothing), bool(periodic)
        #: the largest local error of the last :meth:`errors` (initial 0)
        self.local_max = 0.0
        fs = _functions()
        self._c = fs is not None
        if not self._c:
            return
        self._rate_c, self._errors_c, self._profile_c = fs
        self._ws = np.zeros((len(_ROWS), self.n + 1))
        rows = {r: self._ws[k] for k, r in enumerate(_ROWS)}
        self._in = {r: rows[r][:self.n] for r in _ROWS}
        self._args = _Args(self.n, self.smoothing, int(self.periodic),
                           *(rows[r].ctypes.data for r in _ROWS), 1.0, 0.0, 0.0, 0.0, 0.0)
        self._ptr = ctypes.addressof(self._args)
        self._out = self._args.out

    def rate(self, pending: np.ndarray, m: int) -> np.ndarray:
        """``smooth_periodic(pending, smoothing, periodic) / m``: the window's wear rate per
        simulated cycle (a new array)."""
        if not self._c:
            return smooth_periodic(pending, self.smoothing, self.periodic, copy=False) / m
        self._in["pending"][:] = pending
        self._args.m = m
        self._rate_c(self._ptr)
        return self._in["rate"].copy()

    def errors(self, jump: float, before: np.ndarray, after: np.ndarray, rtol: float,
               floor: float) -> tuple[float, np.ndarray]:
        """``_errors(jump, before, after, rtol, floor)``: (the normalised error of the jump,
        its local error per sector); :attr:`local_max` is then the largest local error."""
        if not self._c:
            err, local = _errors(jump, before, after, rtol, floor)
            self.local_max = float(np.maximum.reduce(local, initial=0.0))
            return err, local
        self._in["before"][:] = before
        self._in["after"][:] = after
        a = self._args
        a.jump, a.rtol, a.floor = jump, rtol, floor
        self._errors_c(self._ptr)
        self.local_max = self._out[1]
        return self._out[0], self._in["local"].copy()

    def profile(self, depth: np.ndarray, pending: np.ndarray,
                factor: float) -> tuple[np.ndarray, tuple[int, int, float, int, float]]:
        """(``update_profile(depth, pending, factor, smoothing, periodic)``, the
        :func:`guard_stats` of the change from ``depth`` to it); ``ValueError`` as
        :func:`update_profile` raises it."""
        if not self._c:
            new = update_profile(depth, pending, factor, self.smoothing, self.periodic)
            return new, guard_stats(depth, new)
        if np.shape(depth) != (self.n,) or np.shape(pending) != (self.n,):
            raise ValueError(f"profile has {np.size(depth)} sectors, increment {np.size(pending)}")
        self._in["pending"][:] = pending
        self._in["depth"][:] = depth
        self._args.factor = factor
        if self._profile_c(self._ptr) < 0:
            raise ValueError("wear increment must be finite and non-negative")
        o = self._out
        return self._in["next"].copy(), (int(o[0]), int(o[1]), o[2], int(o[3]), o[4])
