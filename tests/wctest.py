"""Paths and helpers shared by the test modules (imported as ``wctest``; conftest modules
are not imported by name because tests/ has several of them)."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "export" / "fixtures"
PACKAGE = ROOT / "modelica" / "WearCosim"


def fixture_path(name: str) -> Path:
    files = list(FIXTURES.glob(f"*/{name}.mo"))
    assert len(files) == 1, files
    return files[0]
