"""Helpers of the model tests: rumoca simulations of the WearCosimChecks wrappers, cached.

The wrappers (``tests/models/mo/WearCosimChecks/package.mo``) bind the top-level input
``wearDepth`` of the library's examples to constant profiles, because ``rumoca``'s simulator
takes no inputs.  ``WearCosim`` is resolved as a second package by passing the library's
parent directory as a source root: ``rumoca.Session(roots=[<repo>/modelica])``
(``MODELICAPATH=<repo>/modelica`` works as well).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
MODELICA = ROOT / "modelica"
CHECKS = Path(__file__).resolve().parent / "mo" / "WearCosimChecks" / "package.mo"

_cache: dict = {}
_session = None


def simulate(model: str, stop: float, dt: float, rtol: float = 1e-9, atol: float = 1e-12):
    """Simulate ``WearCosimChecks.<model>`` with rumoca on [0, stop].

    Returns (t, data) with t strictly increasing (rumoca repeats the time of an event; the
    left limit is dropped) and data a dict of numpy arrays on that grid.
    """
    global _session
    import rumoca
    key = (model, stop, dt, rtol, atol)
    if key not in _cache:
        if _session is None:
            _session = rumoca.Session(roots=[str(MODELICA)])
        m = _session.load(str(CHECKS), model="WearCosimChecks." + model)
        r = m.simulate((0.0, stop), dt=dt, config=rumoca.SimConfig(rtol=rtol, atol=atol)).to_dict()
        t = np.asarray(r["time"], dtype=float)
        keep = np.ones_like(t, dtype=bool)
        keep[:-1] = np.diff(t) > 0          # of two samples at one event time keep the last
        data = {k: np.asarray(v, dtype=float)[keep] for k, v in r["data"].items()}
        _cache[key] = (t[keep], data)
    return _cache[key]


def on_grid(t_ref, t, y):
    """Linear interpolation of (t, y) onto t_ref."""
    return np.interp(t_ref, t, y)



