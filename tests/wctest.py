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


def built_once(tmp_path_factory, folder: Path, models, name: str) -> dict:
    """{model: FMU} of the single-file fixture models ``folder/<model>.mo``, built once per
    session into the session's base temp folder ``<name>/`` (shared by every module that asks
    for the same name)."""
    from wearcosim.export.build import build_fmu
    out = tmp_path_factory.getbasetemp() / name
    out.mkdir(exist_ok=True)
    built = {}
    for m in models:
        f = out / f"{m}.fmu"
        if not f.exists():
            build_fmu(m, path=Path(folder) / f"{m}.mo", out_dir=out)
        built[m] = f
    return built
