"""Second build backend: the same ``.mo`` files through OpenModelica (OMPython).

Used by ``wearcosim build --backend openmodelica`` (or ``auto`` when ``omc`` is on PATH).
It asks for an FMI 2.0 FMU with both interfaces and CVODE as the Co-Simulation solver.
OpenModelica exports parameters as ``variability="fixed"``: that is why the wear profile
of every WearCosim component is an *input*.

The session is OMPython 4.1's ``OMCSessionLocal`` (omc started locally, talked to over
ZeroMQ; ``OMCSessionZMQ`` is deprecated there); OMPython 4.0 and 3.x, which have no
``OMCSessionLocal``, get their ``OMCSessionZMQ``.  ``omc`` must be on PATH (or found through
``OPENMODELICAHOME``, as OMPython does).
"""
from __future__ import annotations

import shutil
from pathlib import Path

from .errors import ExportError


def available() -> bool:
    return shutil.which("omc") is not None


def _session():
    """An omc session of the installed OMPython: (session, close)."""
    try:
        import OMPython  # type: ignore
    except ImportError:
        raise ExportError("OpenModelica backend needs OMPython: pip install 'wearcosim[openmodelica]'",
                          None, "io") from None
    local = getattr(OMPython, "OMCSessionLocal", None)
    omc = local() if local is not None else OMPython.OMCSessionZMQ()

    def close():
        try:
            omc.sendExpression("quit()")
        except Exception:
            pass
    return omc, close


def _ask(omc, expr: str):
    """One expression; OMPython 4.1 raises on an omc error (3.x/4.0 return it), both become an
    ExportError naming the expression and omc's message."""
    try:
        return omc.sendExpression(expr)
    except Exception as exc:          # OMPython's session exceptions carry omc's error string
        raise ExportError(f"omc: {expr.split('(')[0]} failed: {' '.join(str(exc).split())}", None, "compile") from None


def build_fmu(model: str, package_dir: Path, out_dir: Path) -> Path:
    if not available():
        raise ExportError("OpenModelica backend requested but 'omc' is not on PATH", None, "io")
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    omc, close = _session()
    try:
        pkg = Path(package_dir).resolve() / "package.mo"
        if not _ask(omc, f'loadFile("{pkg.as_posix()}")'):
            raise ExportError(f"omc could not load {pkg}: {_ask(omc, 'getErrorString()')}", None, "compile")
        _ask(omc, f'cd("{out_dir.as_posix()}")')
        _ask(omc, 'setCommandLineOptions("--fmiFlags=s:cvode")')
        short = model.split(".")[-1]
        res = _ask(omc, f'buildModelFMU({model}, version="2.0", fmuType="me_cs", fileNamePrefix="{short}")')
        if not res:
            raise ExportError(f"omc buildModelFMU failed: {_ask(omc, 'getErrorString()')}", None, "compile")
        return Path(res)
    finally:
        close()
