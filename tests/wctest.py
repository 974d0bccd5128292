"""Paths and helpers shared by the test modules (imported as ``wctest``; conftest modules
are not imported by name because tests/ has several of them)."""
from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "export" / "fixtures"
PACKAGE = ROOT / "modelica" / "WearCosim"


def fixture_path(name: str) -> Path:
    files = list(FIXTURES.glob(f"*/{name}.mo"))
    assert len(files) == 1, files
    return files[0]


@contextmanager
def unzipped(fmu):
    """The FMU extracted into a temp folder that is removed afterwards, also when the block
    fails (FMPy's ``simulate_fmu`` of a file leaves its extraction behind when it raises;
    given this folder instead, nothing is left)."""
    d = tempfile.mkdtemp(prefix="wctest-fmu-")
    try:
        from fmpy import extract
        extract(str(fmu), unzipdir=d)
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)
