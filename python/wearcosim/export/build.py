"""``wearcosim build``: Modelica model -> FMI 2.0 FMU (ME + CS), pass by pass.

    frontend.load      .mo (rumoca)            -> ir.Model
    dae.build          ir.Model                -> scalar DAE (symbols, residuals, events)
    causalize          scalar DAE              -> BLT blocks, solved symbolically / Newton
    codegen            blocks                  -> CasADi functions -> C + modelDescription.xml
    package            C + runtime             -> binaries/<platform>/<id>.so + sources/ -> .fmu
"""
from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from . import causalize as _causalize
from . import codegen, dae as _dae, events, frontend, ir, package
from .errors import ExportError

from ..resources import build_dir, library_root

DEFAULT_PACKAGE = library_root() / "WearCosim"


@dataclass
class BuildResult:
    model: str
    fmu: Path
    seconds: float
    n_states: int
    n_event_indicators: int
    stats: dict


def model_path(package_dir: Path, model: str) -> Path:
    # resolved first: the package's name is its folder's name, and Path(".").name is "" (a
    # build with --package . looked for Bounce/Ball.mo inside the Bounce folder itself)
    package_dir = Path(package_dir).resolve()
    p = frontend.model_file_for(package_dir, model)
    top = model.split(".")[0]
    if p is None and (package_dir / "package.mo").is_file() and top != frontend.package_name(package_dir):
        # a class of another library (Modelica.Mechanics.Rotational.Examples.First): its package
        # from --library / MODELICAPATH (MLS 13.3.3; a folder name may carry the version)
        lib = frontend.library_packages().get(top)
        if lib is not None and lib.is_dir():
            p = frontend.model_file_for(lib, model)
    if p is None:
        raise frontend.unknown_class_error(model, frontend.package_classes(Path(package_dir)),
                                           f"{package_dir} (one class per file)", None)
    return p


def short_name(model: str) -> str:
    return model.split(".")[-1]


def load(path: Path, model: str) -> ir.Model:
    """``frontend.load``, with rumoca's refusals of invalid when-clauses that the front end
    reports without their place (a reinit() of one state in two when-equations, a state
    assigned in a when-clause) named at their lines (``events.diagnose_when_refusal``, which
    reads rumoca's own message: the cause of the front end's error)."""
    try:
        return frontend.load(path, model)
    except ExportError as exc:
        cause = exc.__cause__ or exc.__context__
        if cause is None or exc.kind not in ("compile", "unsupported", "structure", "error"):
            raise
        src = frontend.sources(Path(path))
        better = events.diagnose_when_refusal(str(cause), src.files, src.path)
        if better is None:
            raise
        raise better from None


def generate(model: str, path: Path, expose_protected: bool = False) -> tuple:
    """The front half of a build, the passes from the Modelica file ``path`` to the generated
    CasADi functions of class ``model``: (the front end's model, the causalized DAE,
    codegen.Generated)."""
    irm = load(path, model)
    c = _causalize.causalize(_dae.build(irm))
    return irm, c, codegen.build_functions(c, expose_protected)


def build_fmu(model: str, package_dir: str | Path = DEFAULT_PACKAGE, out_dir: str | Path | None = None,
              path: str | Path | None = None,
              identifier: str | None = None, keep_dir: str | Path | None = None,
              expose_protected: bool = False) -> BuildResult:
    """Build ``<out_dir>/<ShortName>.fmu`` for class ``model``.  Protected parameters are
    not ScalarVariables of the FMU unless ``expose_protected`` (as in Dymola's default)."""
    t0 = time.perf_counter()
    package_dir = Path(package_dir).resolve()
    path = Path(path) if path else model_path(package_dir, model)
    irm, c, gen = generate(model, path, expose_protected)
    ident = identifier or short_name(model)
    gen.identifier = ident
    exp = irm.experiment
    xml_exp = {}
    if "StartTime" in exp:
        xml_exp["startTime"] = exp["StartTime"]
    if "StopTime" in exp:
        xml_exp["stopTime"] = exp["StopTime"]
    if "Tolerance" in exp:
        xml_exp["tolerance"] = exp["Tolerance"]
    if "Interval" in exp:
        xml_exp["stepSize"] = exp["Interval"]
    with tempfile.TemporaryDirectory(prefix="wearcosim-build-") as tmp:
        tmp = Path(tmp)
        gdir = tmp / "generated"
        codegen.render_c(gen, gdir, exp)
        stage = tmp / "fmu"
        units = package.copy_sources(gdir, stage / "sources")
        xml = codegen.render_xml(gen, xml_exp, irm.description, units, irm.metadata)
        (stage / "modelDescription.xml").write_text(xml)
        # documentation/index.html: the entry point of the FMU's documentation (FMI 2.0, 2.1)
        (stage / "documentation").mkdir()
        (stage / "documentation" / "index.html").write_text(
            codegen.render_documentation(gen, irm.description, irm.documentation, irm.metadata), encoding="utf-8")
        so = stage / "binaries" / package.platform_dir() / (ident + package.shared_ext())
        package.compile_binary(stage / "sources", units, ident, so)
        if keep_dir:
            kd = Path(keep_dir)
            if kd.exists():
                shutil.rmtree(kd)
            shutil.copytree(stage, kd)
        dest = Path(out_dir if out_dir is not None else build_dir()) / f"{ident}.fmu"
        package.write_fmu(stage, dest)
    L = gen.layout
    stats = {"blocks": {k: sum(1 for b in c.blocks if b.kind == k) for k in ("explicit", "linear", "nonlinear")},
             "n_w": len(c.w), "nv": L.NV}
    return BuildResult(model, dest, time.perf_counter() - t0, L.n["X"], L.n["M"], stats)
