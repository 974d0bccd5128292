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


def logging_slave(fmu, unzipdir, instance_name: str = "s", logging_on: bool = True):
    """A Co-Simulation instance (FMPy's low-level FMU2Slave) of ``fmu`` extracted into
    ``unzipdir``, instantiated with a logger that records (category, message) pairs:
    returns (slave, model description, value references by name, logs)."""
    from fmpy import calloc, extract, free, read_model_description
    from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                           fmi2CallbackFunctions, fmi2CallbackLoggerTYPE)
    md = read_model_description(str(fmu))
    d = extract(str(fmu), unzipdir=str(unzipdir))
    logs = []

    def text(b):
        return b.decode() if isinstance(b, bytes) else str(b)

    def logger(component, instanceName, status, category, message):
        logs.append((text(category), text(message)))
    cb = fmi2CallbackFunctions()
    cb.logger = fmi2CallbackLoggerTYPE(logger)
    cb.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    cb.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    s = FMU2Slave(guid=md.guid, unzipDirectory=d, modelIdentifier=md.coSimulation.modelIdentifier,
                  instanceName=instance_name)
    s.instantiate(callbacks=cb, loggingOn=logging_on)
    s._wc_callbacks = cb            # kept alive as long as the instance
    return s, md, {v.name: v.valueReference for v in md.modelVariables}, logs
