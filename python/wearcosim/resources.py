"""Where wearcosim's non-Python parts are, and where its outputs go by default.

The Modelica library (``modelica/``), the C runtime (``fmu/runtime``), the code templates
(``fmu/templates``) and the container sources (``fmu/container``) are read from the
installed package (``wearcosim/_data/``, copied into the wheel by ``setup.py``) or, in a
checkout or an editable install, from the repository.  Outputs go below the current folder
by default (``./results``, ``./fmu/build``), or below ``$WEARCOSIM_HOME`` when it is set --
never into the installation.
"""
from __future__ import annotations

import os
from pathlib import Path

_PKG = Path(__file__).resolve().parent
_DATA = _PKG / "_data"
_CHECKOUT = _PKG.parents[1]


def data_root() -> Path:
    """The folder holding ``modelica/`` and ``fmu/``: the wheel's data, else the checkout."""
    return _DATA if (_DATA / "modelica").is_dir() else _CHECKOUT


def installed() -> bool:
    """True when running from an installed wheel (not a checkout)."""
    return data_root() == _DATA


def library_root() -> Path:
    """Folder of the bundled Modelica libraries (``WearCosim`` is in it)."""
    return data_root() / "modelica"


def fmu_sources() -> Path:
    """Folder with ``runtime/``, ``templates/`` and ``container/`` (the C the FMUs are built from)."""
    return data_root() / "fmu"


def home() -> Path:
    """Base of the default output folders: ``$WEARCOSIM_HOME`` or the current folder."""
    return Path(os.environ.get("WEARCOSIM_HOME") or ".")


def results_dir() -> Path:
    return home() / "results"


def build_dir() -> Path:
    """Folder of FMUs built on demand (a scenario naming a model, ``wearcosim build`` without
    ``--out``): ``$WEARCOSIM_BUILD_DIR`` (what ``--build-dir`` sets, so worker processes see it
    too), else ``fmu/build`` below :func:`home`."""
    return Path(os.environ.get("WEARCOSIM_BUILD_DIR") or home() / "fmu" / "build")
