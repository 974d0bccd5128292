"""FMU checks: FMPy's validator, our own structural checks, and a smoke test of the binary.
Validators return a list of problems (empty = fine), like FMPy's.

:func:`validate` checks, in order, and stops at the first stage that finds problems:

1. the archive (:func:`wearcosim.fmi.archive.check_archive`): a zip, no unsafe path, no
   symbolic link, member count / declared size / compression ratio within the limits,
   ``modelDescription.xml`` present;
2. ``modelDescription.xml`` (FMPy's ``validate_fmu``: schema, names, model structure);
3. a binary for this platform for every interface declared (CS and/or ME);
4. with ``smoke=True`` (default), :func:`smoke_test`: the FMU is extracted (within the
   limits) into a temporary folder owned by this process and a **subprocess** loads the
   binary, instantiates it (Co-Simulation when it has it, else Model Exchange), sets up the
   experiment, initialises it and takes one step (CS: one fmi2DoStep of 1/100 of the default
   experiment's step size; ME: event iteration, continuous-time mode, fmi2GetDerivatives),
   reads every Real, terminates and frees it.  A failing call, a crash (signal) or no answer
   within ``timeout`` seconds is a problem; the folder is removed in every case.  With
   ``smoke=False`` every member is decompressed instead (sizes, limits, CRCs).
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .archive import FMUOpenError, Limits, check_archive, make_temp_dir, one_line, remove_temp_dir, safe_extract

#: default time bound of the smoke subprocess (generous: a loaded machine, a large FMU)
SMOKE_TIMEOUT = 120.0


def validate(fmu: str | Path, smoke: bool = True, timeout: float = SMOKE_TIMEOUT,
             limits: Limits | None = None) -> list[str]:
    """Problems of the FMU ``fmu`` (one line each; ``[]`` = fine): archive, model description,
    binaries, and with ``smoke`` a run of the binary in a subprocess (see the module
    docstring).  ``limits`` bound the extraction (default: ``Limits.from_env()``)."""
    fmu = Path(fmu)
    if not fmu.exists():
        return [f"{fmu}: no such file"]
    problems = check_archive(fmu, limits)
    if problems:
        return problems
    problems = [one_line(p) for p in fmpy_validation_problems(fmu)]
    if problems:
        return problems
    problems = binary_problems(fmu)
    if problems:
        return problems
    if smoke:
        return smoke_test(fmu, timeout=timeout, limits=limits)
    return check_archive(fmu, limits, read=True)


_INITIAL = re.compile(r"ModelStructure/InitialUnknowns does not contain the expected set of variables\. "
                      r"Expected \{(.*)\} but was \{(.*)\}\.", re.S)


def fmpy_validation_problems(fmu: str | Path) -> list[str]:
    """FMPy's ``validate_fmu`` of ``fmu`` (FMI 2.0 and 3.0), without its one known false positive
    on FMI 3.0 (FMPy 0.3.32): it counts an ``<Alias>`` as a variable of its own, so an alias of
    an output "is missing" from InitialUnknowns, although an alias is only another name of its
    variable (FMI 3.0, 2.4.7.5).  That problem is dropped only when every name it misses is an
    ``<Alias>`` of the description and it names no extra variable; every other problem is kept."""
    import xml.etree.ElementTree as ET
    import zipfile
    from fmpy.validation import validate_fmu
    problems = validate_fmu(str(fmu))
    if not problems:
        return []
    try:
        with zipfile.ZipFile(fmu) as z:
            root = ET.fromstring(z.read("modelDescription.xml"))
    except Exception:
        return list(problems)
    aliases = {a.get("name") for a in root.iter("Alias")}
    out = []
    for p in problems:
        m = _INITIAL.fullmatch(p.strip())
        if m and aliases:
            expected = {x.strip() for x in m.group(1).split(",")}
            found = {x.strip() for x in m.group(2).split(",")}
            missing, extra = expected - found, found - expected
            if missing and not extra and missing <= aliases:
                continue
        out.append(p)
    return out


def binary_problems(fmu: str | Path) -> list[str]:
    """A binary for this platform for each interface the model description declares."""
    import zipfile
    from fmpy import platform, platform_tuple, read_model_description, sharedLibraryExtension
    fmu = Path(fmu)
    try:
        md = read_model_description(str(fmu), validate=False)
        with zipfile.ZipFile(fmu) as z:
            names = set(z.namelist())
    except Exception as exc:
        return [one_line(f"cannot read the FMU: {exc}")]
    if str(md.fmiVersion).startswith("3"):
        platform = platform_tuple                # FMI 3.0 names the folders x86_64-linux, ...
    ifaces = [(k, i) for k, i in (("Co-Simulation", md.coSimulation), ("Model Exchange", md.modelExchange))
              if i is not None]
    if not ifaces:
        return ["modelDescription.xml declares neither Co-Simulation nor Model Exchange"]
    problems = []
    have = sorted({n.split("/")[1] for n in names if n.startswith("binaries/") and n.count("/") >= 2})
    missing = {}
    for kind, iface in ifaces:
        rel = f"binaries/{platform}/{iface.modelIdentifier}{sharedLibraryExtension}"
        if rel not in names:
            missing.setdefault(rel, []).append(kind)
    for rel, kinds in missing.items():
        if platform in have:
            more = f"the FMU has other binaries for {platform}: the model identifier does not match"
        else:
            more = f"binaries for: {', '.join(have)}" if have else "no binaries"
            if any(n.startswith("sources/") for n in names):
                more += "; only sources, which would need compiling"
        problems.append(f"no {' and '.join(kinds)} binary for this platform ({platform}): {rel} missing ({more})")
    return problems


# ------------------------------------------------------------------------------ smoke test

_CHILD = ("import sys; sys.path.insert(0, sys.argv[3]); from wearcosim.fmi.check import _smoke_child; "
          "sys.exit(_smoke_child(sys.argv[1], sys.argv[2]))")


def smoke_test(fmu: str | Path, timeout: float = SMOKE_TIMEOUT, limits: Limits | None = None) -> list[str]:
    """Load, instantiate, initialise and step the FMU once in a subprocess (see the module
    docstring); ``[]`` or one problem.  The extraction is made here, in a temporary folder
    removed in every case (also when the subprocess is killed by the timeout)."""
    fmu = Path(fmu)
    root = make_temp_dir()
    proc = None
    try:
        try:
            unzipped = safe_extract(fmu, root / "fmu", limits)
        except FMUOpenError as exc:
            return [f"cannot extract the FMU: {exc.reason}"]
        report = root / "smoke.jsonl"
        pkg_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_root, env.get("PYTHONPATH", "")) if p)
        with tempfile.TemporaryFile() as out:
            proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(unzipped), str(report), pkg_root],
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd=str(root), env=env,
                                    start_new_session=(os.name == "posix"))
            try:
                rc = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(proc)
                stage = _read_report(report).get("stage", "start-up")
                return [f"smoke test: no answer within {timeout:g} s (during {stage}); killed"]
            out.seek(0, os.SEEK_END)
            out.seek(max(0, out.tell() - 4096))
            tail = [ln for ln in out.read().decode(errors="replace").splitlines() if ln.strip()]
        return _verdict(_read_report(report), rc, tail)
    finally:
        if proc is not None and proc.poll() is None:      # interrupted (KeyboardInterrupt, ...)
            _kill(proc)
        remove_temp_dir(root)


def _kill(proc):
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)   # the child's session: its children too
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError, OSError):
        pass
    proc.wait()


def _read_report(path: Path) -> dict:
    """The child's report: the last 'stage', and 'error'/'ok' when it got that far."""
    rep = {}
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return rep
    for ln in lines:
        try:
            rep.update(json.loads(ln))
        except ValueError:
            pass
    return rep


def _verdict(rep: dict, rc: int, tail) -> list:
    stage = rep.get("stage", "start-up")
    if rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = f"signal {-rc}"
        when = "after it passed (at exit or unloading)" if "ok" in rep else f"during {stage}"
        return [f"smoke test crashed ({sig}) {when}"]
    if "error" in rep:
        return [one_line(f"smoke test failed: {rep['error']}")]
    if rc != 0 or "ok" not in rep:
        last = f": {tail[-1]}" if tail else ""
        return [one_line(f"smoke test exited with status {rc} during {stage}{last}")]
    return []


def _smoke_child(unzipped: str, report: str) -> int:
    """Runs in the subprocess: the smoke test of an extracted FMU, reporting each stage as a
    JSON line appended to ``report`` (unbuffered, so a crash leaves the stage it was in).  The
    stages of its FMI version are :func:`_stages2` / :func:`_stages3`."""
    fd = os.open(report, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def say(**kw):
        os.write(fd, (json.dumps(kw) + "\n").encode())

    log: list[str] = []
    stage = ""
    major = 2

    def at(name: str) -> None:                  # the stage a failure or crash is reported in
        nonlocal stage
        stage = name
        say(stage=stage)

    def keep(status: int, message: Any) -> None:     # the FMU's warnings and errors, the last 6
        if status >= 1:
            msg = message.decode(errors="replace") if isinstance(message, bytes) else str(message)
            log.append(one_line(msg))
            del log[:-6]
    try:
        at("reading modelDescription.xml")
        from fmpy import read_model_description
        from .runner import load_binary
        md = read_model_description(unzipped, validate=False)
        major = 3 if str(md.fmiVersion).startswith("3") else 2
        kind = "CS" if md.coSimulation is not None else "ME"
        iface = md.coSimulation if kind == "CS" else md.modelExchange
        at(f"loading the {kind} binary")
        fmu = load_binary(Path(unzipped).name, unzipped, md.guid, iface.modelIdentifier, "smoke", kind=kind,
                          fmi=major)
        (_stages3 if major == 3 else _stages2)(fmu, md, kind, _smoke_times(md), at, keep)
        say(ok=kind)
        return 0
    except BaseException as exc:            # noqa: BLE001 -- everything is reported
        msg = exc.reason if isinstance(exc, FMUOpenError) else f"{type(exc).__name__}: {exc}"
        if "Failed to instantiate" in str(exc):
            msg = f"fmi{major}Instantiate returned NULL"
        logged = f" (log: {' / '.join(log[-3:])})" if log else ""
        say(error=f"{stage}: {msg}{logged}")
        return 1
    finally:
        os.close(fd)


def _smoke_times(md: Any) -> tuple[float, float]:
    """The smoke test's start time and step: 1 % of the default experiment's step size, else
    1e-3 of its interval, else 1e-3 s."""
    de = md.defaultExperiment
    t0 = float(de.startTime) if de is not None and de.startTime is not None else 0.0
    step = float(de.stepSize) if de is not None and de.stepSize is not None else 0.0
    stop = float(de.stopTime) if de is not None and de.stopTime is not None else 0.0
    return t0, 0.01 * step if step > 0 else 1e-3 * (stop - t0) if stop > t0 else 1e-3


def _stages2(fmu: Any, md: Any, kind: str, times: tuple[float, float], at: Callable[[str], None],
             keep: Callable[[int, Any], None]) -> None:
    """The FMI 2.0 smoke test's calls (``at`` names each stage before it runs): instantiate,
    initialise, one fmi2DoStep (ME: event iteration, continuous-time mode, fmi2GetDerivatives),
    read every Real, terminate, free."""
    from fmpy import calloc, free
    from fmpy.fmi2 import (fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE, fmi2CallbackFunctions,
                           fmi2CallbackLoggerTYPE)
    t0, h = times
    cb = fmi2CallbackFunctions()
    cb.logger = fmi2CallbackLoggerTYPE(lambda component, instance, status, category, message: keep(status, message))
    cb.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    cb.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    at(f"fmi2Instantiate ({kind})")
    fmu.instantiate(callbacks=cb, loggingOn=True)
    at("fmi2SetupExperiment")
    fmu.setupExperiment(startTime=t0)
    at("fmi2EnterInitializationMode")
    fmu.enterInitializationMode()
    at("fmi2ExitInitializationMode")
    fmu.exitInitializationMode()
    if kind == "CS":
        at(f"fmi2DoStep (t={t0:g}, h={h:g})")
        fmu.doStep(currentCommunicationPoint=t0, communicationStepSize=h)
    else:
        _first_derivatives(at, 2, ("NewDiscreteStates", "GetDerivatives"), fmu.newDiscreteStates,
                           fmu.enterContinuousTimeMode, lambda: len(md.derivatives), fmu.getDerivatives)
    reals = [v.valueReference for v in md.modelVariables if v.type == "Real"]
    at(f"fmi2GetReal ({len(reals)} variables)")
    if reals:
        fmu.getReal(reals)
    at("fmi2Terminate")
    fmu.terminate()
    at("fmi2FreeInstance")
    fmu.freeInstance()


def _first_derivatives(at: Callable[[str], None], major: int, names: tuple[str, str], update: Callable[[], Any],
                       enter_ct: Callable[[], Any], count: Callable[[], int], get: Callable[[Any, int], Any]) -> None:
    """A Model Exchange FMU's part of the smoke test (FMI ``major``): the event iteration
    (``update``, at most 100 rounds), continuous-time mode, the derivatives of its ``count()``
    states (``get``); ``names``: the version's names of the update and derivative functions."""
    import ctypes
    at(f"fmi{major}{names[0]}")
    for _ in range(100):
        needed, terminate = update()[:2]
        if not needed or terminate:
            break
    at(f"fmi{major}EnterContinuousTimeMode")
    enter_ct()
    nx = count()
    at(f"fmi{major}{names[1]} (nx={nx})")
    dx = (ctypes.c_double * max(nx, 1))()
    get(dx, nx)


def _stages3(fmu: Any, md: Any, kind: str, times: tuple[float, float], at: Callable[[str], None],
             keep: Callable[[int, Any], None]) -> None:
    """The FMI 3.0 smoke test's calls: instantiate (Co-Simulation when it has it, else Model
    Exchange), initialise, one fmi3DoStep (ME: event iteration, continuous-time mode,
    fmi3GetContinuousStateDerivatives), read every Float64, terminate, free."""
    t0, h = times
    at(f"fmi3Instantiate{'CoSimulation' if kind == 'CS' else 'ModelExchange'}")
    fmu.instantiate(loggingOn=True, logMessage=lambda env, status, category, message: keep(status, message))
    at("fmi3EnterInitializationMode")
    fmu.enterInitializationMode(startTime=t0)
    at("fmi3ExitInitializationMode")
    fmu.exitInitializationMode()
    if kind == "CS":
        at(f"fmi3DoStep (t={t0:g}, h={h:g})")
        fmu.doStep(currentCommunicationPoint=t0, communicationStepSize=h)
    else:
        _first_derivatives(at, 3, ("UpdateDiscreteStates", "GetContinuousStateDerivatives"),
                           fmu.updateDiscreteStates, fmu.enterContinuousTimeMode,
                           fmu.getNumberOfContinuousStates, fmu.getContinuousStateDerivatives)
    floats = [v for v in md.modelVariables if v.type == "Float64"]
    n = sum(int(np.prod(v.shape)) if v.shape else 1 for v in floats)
    at(f"fmi3GetFloat64 ({len(floats)} variables, {n} values)")
    if floats:
        fmu.getFloat64([v.valueReference for v in floats], n)
    at("fmi3Terminate")
    fmu.terminate()
    at("fmi3FreeInstance")
    fmu.freeInstance()


def wear_interface_problems(fmu: str | Path, prefix: str = "") -> list[str]:
    """Problems with the documented wear interface (docs/wear-interface.md)."""
    from .. import wear_interface
    return wear_interface.check(fmu, prefix)
