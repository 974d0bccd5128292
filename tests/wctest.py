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


def build_alone(name: str, tmp) -> Path:
    """The FMU of the fixture ``name``, built from a copy of its file in a folder of its own (rumoca
    reads every .mo file beside the model's) below ``tmp``."""
    from wearcosim.export.build import build_fmu
    d = Path(tmp) / f"src-{name}"
    d.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(fixture_path(name), d / f"{name}.mo")
    return build_fmu(name, path=d / f"{name}.mo", out_dir=Path(tmp) / f"out-{name}").fmu


def simulate(fmu, names, fmi_type: str, stop: float, interval: float, rtol: float):
    """FMPy's ``simulate_fmu`` of ``fmu`` (extracted by :func:`unzipped`): ``names`` at every
    ``interval`` up to ``stop``, at relative tolerance ``rtol``."""
    from fmpy import simulate_fmu
    with unzipped(fmu) as d:
        return simulate_fmu(d, stop_time=stop, output=names, fmi_type=fmi_type,
                            output_interval=interval, relative_tolerance=rtol)


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


def msl_root():
    """The folder holding the Modelica Standard Library's ``Modelica/`` (third-party, never in the
    repository): WEARCOSIM_MSL, then the folders of MODELICAPATH, then ``shared/msl`` beside the
    checkout (the development machines' copy); None when absent."""
    import os
    cands = [os.environ.get("WEARCOSIM_MSL")] + os.environ.get("MODELICAPATH", "").split(os.pathsep) + \
        [str(ROOT.parent / "shared" / "msl")]
    for c in cands:
        if c and (Path(c) / "Modelica" / "package.mo").is_file():
            return Path(c)
    return None


def msl_references():
    """The MSL's reference results (``Modelica/...`` folders of CSV + comparisonSignals.txt):
    WEARCOSIM_MSL_REFERENCES, or ``msl-reference`` beside the MSL; None when absent."""
    import os
    msl = msl_root()
    for c in [os.environ.get("WEARCOSIM_MSL_REFERENCES"), msl and str(msl.parent / "msl-reference")]:
        if c and (Path(c) / "Modelica").is_dir():
            return Path(c)
    return None


MSL_ABSENT = "the Modelica Standard Library 4.0.0 is not on WEARCOSIM_MSL or MODELICAPATH"


def library_classes(package: Path, named_as_file: bool = False) -> dict:
    """{dotted name: (kind, partial, file, text)} of every class of a one-class-per-file
    library folder, from each file's class header (comments stripped); ``named_as_file``: each
    header must declare the class its file is named after."""
    import re
    from wearcosim.export.frontend import _strip_comments
    header = re.compile(r"^(?P<partial>partial\s+)?(?:expandable\s+)?(?:operator\s+)?"
                        r"(?P<kind>model|block|connector|record|function|package|type|class)\s+(?P<name>\w+)", re.M)
    out = {}
    for f in sorted(Path(package).rglob("*.mo")):
        text = f.read_text()
        m = header.search(_strip_comments(text))
        assert m, f"{f}: no class header"
        rel = f.relative_to(Path(package).parent).with_suffix("")
        parts = rel.parts[:-1] if f.name == "package.mo" else rel.parts
        if named_as_file:
            assert m["name"] == parts[-1], f"{f}: declares {m['name']} (one class per file, named as the file)"
        out[".".join(parts)] = (m["kind"], bool(m["partial"]), f, text)
    return out
