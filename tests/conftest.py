"""Shared pytest fixtures: paths, and FMUs built once per session."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "models"))

from wctest import PACKAGE  # noqa: E402


@pytest.fixture(scope="session")
def fmu_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fmus")


_built = {}


@pytest.fixture(scope="session")
def build_example(fmu_dir):
    """build_example("WearCosim.Examples.Basic.BouncingBall") -> Path of the FMU (cached)."""
    from wearcosim.export.build import build_fmu

    def build(model: str, **kw):
        key = (model, tuple(sorted(kw.items())))
        if key not in _built:
            _built[key] = build_fmu(model, PACKAGE, fmu_dir, **kw)
        return _built[key].fmu
    return build
