"""FMU checks: FMPy's validator plus our own structural checks.  Validators return a list
of problems (empty = fine), like FMPy's."""
from __future__ import annotations

import zipfile
from pathlib import Path


def validate(fmu) -> list:
    """Problems found by FMPy's ``validate_fmu`` and by opening the archive safely."""
    problems = []
    fmu = Path(fmu)
    if not fmu.exists():
        return [f"{fmu}: no such file"]
    try:
        with zipfile.ZipFile(fmu) as z:
            names = z.namelist()
            for n in names:
                if n.startswith("/") or ".." in Path(n).parts:
                    problems.append(f"unsafe path in archive: {n}")
            if "modelDescription.xml" not in names:
                problems.append("modelDescription.xml missing")
    except zipfile.BadZipFile as exc:
        return [f"{fmu}: not a zip archive ({exc})"]
    if problems:
        return problems
    from fmpy.validation import validate_fmu
    problems.extend(validate_fmu(str(fmu)))
    return problems


def wear_interface_problems(fmu, prefix: str = "") -> list:
    """Problems with the documented wear interface (see README, "Wear interface")."""
    from .. import wear_interface
    return wear_interface.check(fmu, prefix)
