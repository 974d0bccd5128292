"""The result of a co-simulation of several FMUs, whichever master ran it (the project's
Co-Simulation master in :mod:`wearcosim.system.cosim`, libcosim in :mod:`wearcosim.fmi.libcosim`).
It lives on this floor so that both can return it without the FMI layer importing the systems
layer above it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np


@dataclass
class CosimResult:
    """What :func:`wearcosim.system.cosim.run_cosim` (or libcosim) returns.  ``time``: the macro grid (t0, t0 + h, ..., stop);
    ``values``: name -> array over ``time``; ``steps``: the accepted communication step sizes
    in order; ``stats``: counters; ``terminated``: ``(component, time)`` when a component
    ended the run (fmi2Terminated), else None (``time`` then ends at the last grid point
    reached)."""
    time: np.ndarray
    values: dict
    steps: np.ndarray
    stats: dict
    algorithm: str
    step: float
    terminated: Optional[tuple] = None
    settings: dict = field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.values[name]
        except KeyError:
            raise KeyError(f"{name!r} was not recorded (recorded: {', '.join(self.values)})") from None

    @property
    def names(self) -> list:
        return list(self.values)


