"""Second build backend: the same ``.mo`` files through OpenModelica (OMPython).

Used by ``wearcosim build --backend openmodelica`` (or ``auto`` when ``omc`` is on PATH).
It asks for an FMI 2.0 FMU with both interfaces and CVODE as the Co-Simulation solver.
OpenModelica exports parameters as ``variability="fixed"``: that is why the wear profile
of every WearCosim component is an *input*.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from .errors import ExportError


def available() -> bool:
    return shutil.which("omc") is not None


def build_fmu(model: str, package_dir: Path, out_dir: Path) -> Path:
    if not available():
        raise ExportError("OpenModelica backend requested but 'omc' is not on PATH", None, "io")
    try:
        from OMPython import OMCSessionZMQ  # type: ignore
    except ImportError:
        raise ExportError("OpenModelica backend needs OMPython: pip install 'wearcosim[openmodelica]'",
                          None, "io") from None
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    omc = OMCSessionZMQ()
    try:
        pkg = Path(package_dir).resolve() / "package.mo"
        if not omc.sendExpression(f'loadFile("{pkg.as_posix()}")'):
            raise ExportError(f"omc could not load {pkg}: {omc.sendExpression('getErrorString()')}", None, "compile")
        omc.sendExpression(f'cd("{out_dir.as_posix()}")')
        omc.sendExpression('setCommandLineOptions("--fmiFlags=s:cvode")')
        short = model.split(".")[-1]
        res = omc.sendExpression(f'buildModelFMU({model}, version="2.0", fmuType="me_cs", fileNamePrefix="{short}")')
        if not res:
            raise ExportError(f"omc buildModelFMU failed: {omc.sendExpression('getErrorString()')}", None, "compile")
        return Path(res)
    finally:
        try:
            omc.sendExpression("quit()")
        except Exception:
            pass
