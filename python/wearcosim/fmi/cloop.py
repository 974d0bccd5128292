"""The runner's communication-step loop in C (``cloop.c``), compiled on first use.

``load()`` returns the ctypes function ``wc_step_record`` or ``None`` when it cannot be built
(no C compiler, read-only cache): callers then keep their Python loop, which gives identical
results.  Built and cached by :mod:`wearcosim.cext`.
"""
from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

from .. import cext

SRC = Path(__file__).with_name("cloop.c")
_lib = None
_tried = False
_phi = None
_save = None
_advance = None
_step3 = None


def load() -> ctypes.CDLL | None:
    """ctypes ``wc_step_record`` or None (built once per process, then cached on disk)."""
    global _lib, _tried
    if _tried:
        return _lib
    _tried = True
    try:
        lib = cext.load(SRC)
        if lib is None:
            return None
        f = lib.wc_step_record
        f.restype = ctypes.c_int
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double, ctypes.c_double,
                      ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                      ctypes.c_void_p, ctypes.POINTER(ctypes.c_long), ctypes.POINTER(ctypes.c_int)]
        _lib = f
        global _phi
        g = lib.wc_phi
        g.restype = ctypes.c_int
        g.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_long, ctypes.c_int, ctypes.c_double,
                      ctypes.c_double, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                      ctypes.c_void_p, ctypes.POINTER(ctypes.c_long)]
        _phi = g
        global _save
        v = lib.wc_save
        v.restype = ctypes.c_int
        v.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.POINTER(ctypes.c_long)]
        _save = v
        global _advance
        a = lib.wc_advance
        a.restype = ctypes.c_int
        a.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p,
                      ctypes.c_double, ctypes.c_double, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                      ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        _advance = a
        global _step3
        f3 = lib.wc_step_record3
        f3.restype = ctypes.c_int
        f3.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double, ctypes.c_double,
                       ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.POINTER(ctypes.c_long), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double)]
        _step3 = f3
    except (OSError, subprocess.SubprocessError, AttributeError):
        _lib = None
    return _lib


class Unit(ctypes.Structure):
    """One unit of :func:`load_phi`'s ``wc_phi`` (``cloop.c``): the FMU instance, its function
    pointers, its saved state, its Real inputs and outputs as value references and indices of
    the master's exchange table."""
    _fields_ = [("comp", ctypes.c_void_p), ("set_state", ctypes.c_void_p), ("set_real", ctypes.c_void_p),
                ("set_der", ctypes.c_void_p), ("do_step", ctypes.c_void_p), ("get_real", ctypes.c_void_p),
                ("state", ctypes.c_void_p), ("interp", ctypes.c_int), ("feedthrough", ctypes.c_int),
                ("n_in", ctypes.c_long), ("n_out", ctypes.c_long), ("held_off", ctypes.c_long),
                ("in_vr", ctypes.c_void_p), ("in_src", ctypes.c_void_p), ("out_vr", ctypes.c_void_p),
                ("out_dst", ctypes.c_void_p), ("scratch", ctypes.c_void_p), ("out_buf", ctypes.c_void_p),
                ("ones", ctypes.c_void_p), ("twos", ctypes.c_void_p), ("given", ctypes.c_int),
                ("order2", ctypes.c_int), ("get_state", ctypes.c_void_p), ("get_int", ctypes.c_void_p),
                ("get_bool", ctypes.c_void_p), ("n_dreal", ctypes.c_long), ("n_dint", ctypes.c_long),
                ("n_dbool", ctypes.c_long), ("dreal_vr", ctypes.c_void_p), ("dint_vr", ctypes.c_void_p),
                ("dbool_vr", ctypes.c_void_p), ("dreal_buf", ctypes.c_void_p), ("dint_buf", ctypes.c_void_p),
                ("dbool_buf", ctypes.c_void_p)]


def load_phi() -> "ctypes._CFuncPtr | None":
    """ctypes ``wc_phi`` (the implicit coupling step's evaluation, ``cloop.c``) or None."""
    load()
    return _phi


class Newton(ctypes.Structure):
    """The Newton iteration of :func:`load_advance`'s ``wc_advance`` (``cloop.c``): its
    constants, the unknowns' indices, the Jacobian and scratch buffers, and its counters."""
    _fields_ = [("n", ctypes.c_long), ("k", ctypes.c_long), ("zi", ctypes.c_void_p), ("max_iter", ctypes.c_long),
                ("kappa", ctypes.c_double), ("slow", ctypes.c_double), ("jac_range", ctypes.c_double),
                ("scale", ctypes.c_void_p), ("jac", ctypes.c_void_p), ("jac_ok", ctypes.c_int),
                ("jac_dt", ctypes.c_double), ("work", ctypes.c_void_p), ("z_fail", ctypes.c_void_p),
                ("evaluations", ctypes.c_long), ("restores", ctypes.c_long), ("iterations", ctypes.c_long),
                ("jacobians", ctypes.c_long), ("fd_evaluations", ctypes.c_long), ("stalled", ctypes.c_long),
                ("not_converged", ctypes.c_long), ("residual", ctypes.c_double), ("worst", ctypes.c_long),
                ("failed", ctypes.c_long), ("status", ctypes.c_int), ("n_hist", ctypes.c_long),
                ("hist_t", ctypes.c_double * 4), ("hist_y", ctypes.c_void_p * 4), ("order", ctypes.c_int),
                ("rtol", ctypes.c_double), ("runmax", ctypes.c_void_p), ("atol", ctypes.c_void_p),
                ("err", ctypes.c_double), ("t1", ctypes.c_double)]


def load_advance() -> "ctypes._CFuncPtr | None":
    """ctypes ``wc_advance`` (the implicit coupling step's Newton iteration, ``cloop.c``) or None."""
    load()
    return _advance


def load_save() -> "ctypes._CFuncPtr | None":
    """ctypes ``wc_save`` (fmi2GetFMUstate of every unit, ``cloop.c``) or None."""
    load()
    return _save


def load_step3() -> "ctypes._CFuncPtr | None":
    """ctypes ``wc_step_record3`` (the runner's loop for FMI 3.0 Co-Simulation FMUs:
    fmi3DoStep, fmi3GetFloat64 and the gather of array elements, ``cloop.c``) or None."""
    load()
    return _step3
