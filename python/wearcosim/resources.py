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


# ------------------------------------------------------------------ packaged scenarios

def examples_root() -> Path:
    """Folder of the scenarios that come with the package (``cosim/`` of the checkout, or
    ``wearcosim/_data/cosim`` of the wheel)."""
    return data_root() / "cosim"


def _is_scenario(path: Path) -> bool:
    """A scenario file (an ``[fmu]`` or ``[system]`` table), not a study file."""
    import tomllib
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(data.get("fmu"), dict) or isinstance(data.get("system"), dict)


def examples() -> list[str]:
    """Names of the packaged scenarios, sorted: their paths below :func:`examples_root`
    without ``.toml``, with ``/`` between folders (``"demo_hybrid_dry_32pi"``,
    ``"seed/speed_4pi"``, ``"seed/tilted/speed_4pi"``).  Study files (``sensitivity/``) are
    not scenarios and are left out."""
    root = examples_root()
    if not root.is_dir():
        return []
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.toml") if _is_scenario(p))


def example_path(name: str) -> Path:
    """The file of the packaged scenario ``name`` (one of :func:`examples`; ``.toml`` may be
    given; a bare file stem will do when only one scenario has it).  An unknown name raises
    :class:`wearcosim.master.scenario.ScenarioError` with the close matches."""
    import difflib

    from .master.scenario import ScenarioError
    known = examples()
    key = str(name).replace("\\", "/").removesuffix(".toml")
    if key not in known:
        by_stem = [k for k in known if k.rsplit("/", 1)[-1] == key]
        if len(by_stem) == 1:
            key = by_stem[0]
        elif by_stem:
            raise ScenarioError(f"packaged scenario {name!r} is ambiguous: {', '.join(by_stem)}")
        else:
            close = difflib.get_close_matches(key, known, n=3, cutoff=0.5)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            raise ScenarioError(f"no packaged scenario {name!r}{hint} (wearcosim examples lists them: "
                                f"{', '.join(known[:6])}{', ...' if len(known) > 6 else ''})")
    return examples_root() / f"{key}.toml"
