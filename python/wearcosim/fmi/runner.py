"""One small interface to step a Co-Simulation FMU, with backends.

``FMPyRunner`` (default) drives the FMU through FMPy's low-level ``FMU2Slave``;
``PyFMIRunner`` is optional (PyFMI is not installable everywhere; it is import-guarded).
Every failing FMI call raises :class:`FMIError`, which carries the FMI function name and
the returned status, plus the log lines the FMU emitted just before.  An FMU that cannot be
opened (file, archive, modelDescription.xml, binary, instantiation) raises
:class:`FMUOpenError` (a ``ValueError``; a failing fmi2Instantiate raises
:class:`FMUInstantiateError`, which is both an FMUOpenError and an FMIError), and leaves no
extraction folder behind.

The communication grid is anchored to the start time: step ``k`` ends at ``t0 + k*h``,
never at an accumulated sum of steps.
"""
from __future__ import annotations

import ctypes
import functools
import os
import weakref
import zipfile
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from . import cloop
from .. import cext
from .archive import FMUOpenError, Limits, remove_temp_dir, safe_extract  # noqa: F401  (re-exported)

STATUS = {0: "fmi2OK", 1: "fmi2Warning", 2: "fmi2Discard", 3: "fmi2Error", 4: "fmi2Fatal", 5: "fmi2Pending"}
#: the statuses of FMI 3.0 (no fmi3Pending)
STATUS3 = {0: "fmi3OK", 1: "fmi3Warning", 2: "fmi3Discard", 3: "fmi3Error", 4: "fmi3Fatal"}


class FMIError(RuntimeError):
    """An FMI call that did not return OK/Warning (fmi2OK/fmi2Warning, fmi3OK/fmi3Warning); the
    status is named in the FMI version of the function (``fmi3DoStep returned fmi3Error``)."""

    def __init__(self, function: str, status: int, log: Iterable[str] = ()) -> None:
        self.function = function
        self.status = status
        self.log = list(log)
        last = f": {' / '.join(self.log[-4:])}" if self.log else ""
        names = STATUS3 if function.startswith("fmi3") else STATUS
        super().__init__(f"{function} returned {names.get(status, status)}{last}")

    def __reduce__(self):                 # picklable (worker processes send exceptions back)
        return (type(self), (self.function, self.status, self.log))


class FMUInstantiateError(FMUOpenError, FMIError):
    """fmi2Instantiate failed while opening an FMU (wrong GUID, missing resources, ...): an
    :class:`FMUOpenError` naming the FMU, and an :class:`FMIError` (function, status, log)."""

    def __init__(self, fmu: str | os.PathLike[str], function: str, status: int, log: Iterable[str] = ()) -> None:
        FMIError.__init__(self, function, status, log)
        reason = FMIError.__str__(self)
        FMUOpenError.__init__(self, fmu, reason)

    def __reduce__(self):
        return (type(self), (self.fmu, self.function, self.status, self.log))


def read_md(fmu: str | os.PathLike[str], source: str | os.PathLike[str] | None = None) -> Any:
    """FMPy's ``read_model_description`` (validated against the schema) of ``fmu``, read from
    ``source`` (an extracted folder; default: the archive itself).  Every failure raises
    :class:`FMUOpenError` naming ``fmu``."""
    from fmpy import read_model_description
    fmu = Path(fmu)
    if source is None:
        if not fmu.exists():
            raise FMUOpenError(fmu, "no such file")
        source = fmu
    elif not (Path(source) / "modelDescription.xml").is_file():
        raise FMUOpenError(fmu, "modelDescription.xml missing from the archive")
    try:
        return read_model_description(str(source))
    except FMUOpenError:
        raise
    except (zipfile.BadZipFile, EOFError) as exc:
        raise FMUOpenError(fmu, f"not a zip archive, or a truncated one ({exc})") from None
    except KeyError as exc:
        raise FMUOpenError(fmu, f"modelDescription.xml missing from the archive ({exc.args[0] if exc.args else exc})") from None
    except Exception as exc:
        problems = getattr(exc, "problems", None)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise FMUOpenError(fmu, f"invalid modelDescription.xml: {problems[0]}{more}") from None
        raise FMUOpenError(fmu, f"invalid modelDescription.xml: {type(exc).__name__}: {exc}") from None


def load_binary(fmu: str | os.PathLike[str], unzipped: str | os.PathLike[str], guid: str, model_identifier: str, instance_name: str = "instance",
                kind: str = "CS", fmi: int = 2) -> Any:
    """FMPy's ``FMU2Slave`` (``kind="CS"``) or ``FMU2Model`` (``"ME"``) of the binary
    ``binaries/<platform>/<model_identifier><ext>`` of an extracted FMU (not instantiated);
    with ``fmi=3``: ``FMU3Slave`` / ``FMU3Model`` of ``binaries/<platform tuple>/...`` (FMI 3.0
    names the folders ``x86_64-linux`` etc.).  A missing, non-loadable or incomplete library
    raises :class:`FMUOpenError` (and is unloaded); the working directory is restored (FMPy
    changes to the binary's folder)."""
    from fmpy import platform_tuple, sharedLibraryExtension
    if fmi == 3:
        from fmpy.fmi3 import FMU3Model as FMU2Model, FMU3Slave as FMU2Slave
        platform = platform_tuple
    else:
        from fmpy import platform
        from fmpy.fmi2 import FMU2Model, FMU2Slave
    rel = f"binaries/{platform}/{model_identifier}{sharedLibraryExtension}"
    lib = Path(unzipped) / rel
    if not lib.is_file():
        bins = Path(unzipped) / "binaries"
        have = sorted(p.name for p in bins.iterdir()) if bins.is_dir() else []
        if platform in have:
            there = sorted(q.name for q in (bins / platform).iterdir())[:3]
            where = f" (model identifier {model_identifier!r} does not match the binaries there: {', '.join(there)})"
        else:
            where = f" (binaries for: {', '.join(have)})" if have else " (no binaries)"
        raise FMUOpenError(fmu, f"no binary for this platform: {rel} is missing{where}")
    cls = FMU2Slave if kind == "CS" else FMU2Model
    obj = cls.__new__(cls)
    cwd = os.getcwd()
    try:
        cls.__init__(obj, guid=guid, unzipDirectory=str(unzipped), modelIdentifier=model_identifier,
                     instanceName=instance_name)
    except Exception as exc:
        if getattr(obj, "dll", None) is not None:         # loaded, but a function is missing
            try:
                obj.freeLibrary()
            except Exception:
                pass
        msg = str(exc).replace(str(lib), rel).replace(str(Path(unzipped)), "<extracted>")
        msg = msg.replace(f"Failed to load shared library {rel}. ", "").replace(f"{rel}: ", "")
        what = "cannot load" if getattr(obj, "dll", None) is None else f"incomplete FMI {fmi}.0 library"
        raise FMUOpenError(fmu, f"{what} {rel}: {type(exc).__name__ + ': ' if what != 'cannot load' else ''}{msg}") from None
    finally:
        os.chdir(cwd)
    return obj


def fmi_major(md: Any) -> int:
    """The major FMI version (2 or 3) of a model description (FMPy's ``fmiVersion``: "2.0",
    "3.0", ...); the runners of this module are chosen by it."""
    try:
        return int(str(md.fmiVersion).split(".")[0])
    except ValueError:
        return 0


def fmi_version_of(fmu: str | os.PathLike[str]) -> int:
    """The major FMI version the archive ``fmu`` declares, read from the first kilobytes of its
    modelDescription.xml (a bounded read: the archive is checked properly when it is opened);
    2 when it cannot be told, so that the FMI 2.0 runner reports what is wrong."""
    import re
    try:
        with zipfile.ZipFile(fmu) as z, z.open("modelDescription.xml") as f:
            head = f.read(8192).decode("utf-8", errors="replace")
    except Exception:
        return 2
    m = re.search(r"<fmiModelDescription\b[^>]*?\bfmiVersion\s*=\s*[\"'](\d+)", head)
    return int(m.group(1)) if m else 2


class Runner:
    """Backend interface (one FMU instance, Co-Simulation)."""

    name = "base"

    def __init__(self, fmu: str | os.PathLike[str], instance_name: str = "instance", log_level: int = 1, *,
                 md: Any = None) -> None:
        self.fmu = Path(fmu)
        self.md = md if md is not None else read_md(self.fmu)
        self.vars = {v.name: v for v in self.md.modelVariables}
        self.instance_name = instance_name
        self.log_level = log_level
        self.log = []
        self.n_logged = 0          # lines ever logged (self.log keeps the last 200)
        self.t0 = 0.0
        self.h = None
        self.k = 0

    # -- helpers
    def vr(self, names: Iterable[str]) -> list[int]:
        try:
            return [self.vars[n].valueReference for n in names]
        except KeyError as exc:
            raise KeyError(f"{self.fmu.name} has no variable {exc.args[0]!r}") from None

    def type_of(self, name: str) -> str:
        return self.vars[name].type

    @property
    def time(self) -> float:
        return self.t0 + self.k * self.h if self.h else self.t0

    def has(self, name: str) -> bool:
        return name in self.vars

    def state_names(self) -> list[str]:
        """Names of what an initialisation must be given to continue where the FMU is now:
        the continuous states (ModelStructure/Derivatives) and the Real discrete variables whose
        start value is settable (initial="exact"|"approx")."""
        names = [d.variable.derivative.name for d in self.md.derivatives if d.variable.derivative is not None]
        names += [v.name for v in self.md.modelVariables
                  if v.variability == "discrete" and v.causality == "local" and v.type == "Real"
                  and v.initial in ("exact", "approx") and v.name not in names]
        return names

    def step_record(self, n: int, vrs: Sequence[int], out: np.ndarray | None = None,
                    tout: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Advance ``n`` communication steps and read the Reals ``vrs`` after each: returns
        ``(tout[n], out[n, len(vrs)])`` (filled in place when given).  Backends may batch the
        calls; this default steps one by one."""
        out = np.empty((n, len(vrs))) if out is None else out
        tout = np.empty(n) if tout is None else tout
        for j in range(n):
            self.step(1)
            out[j] = self.get_reals(vrs)
            tout[j] = self.time
        return tout, out

    def save_state(self, slot: Any = None) -> Any:
        """A copy of the FMU's state, written into ``slot`` (a state this runner returned
        before and that is not used any more) when given: the FMU may reuse its memory.
        Returns the state (free it with :meth:`free_state`).  This default frees ``slot`` and
        gets a new state."""
        if slot is not None:
            self.free_state(slot)
        return self.get_state()

    def reinit(self, values: dict[str, Any], tolerance: float | None = None) -> None:
        """Reset + re-initialise at the current grid time with ``values`` (start values, new
        parameters, the states to continue from): the strategy for FMUs whose parameters are
        ``fixed``.  The communication grid t0 + k*h is kept."""
        t = self.time
        self.reset()
        self.set(values)
        self._setup_at(t, tolerance)
        self.initialize()


class FMPyRunner(Runner):
    name = "fmpy"

    #: the FMI major version this runner drives, and its instantiation function
    _MAJOR = 2
    _INSTANTIATE = "fmi2Instantiate"

    def __init__(self, fmu: str | os.PathLike[str], instance_name: str = "instance", log_level: int = 1,
                 limits: Limits | None = None) -> None:
        """Extract ``fmu`` (within ``limits``, see :mod:`wearcosim.fmi.archive`), read its
        modelDescription.xml from the extraction, load the Co-Simulation binary of this
        platform and instantiate it.  Any failure raises :class:`FMUOpenError` (a failing
        instantiation: :class:`FMUInstantiateError`, also an FMIError) and removes the
        extraction folder; so do :meth:`terminate`, garbage collection and interpreter exit."""
        fmu = Path(fmu)
        self.slave = None
        self._vr_arrays: dict[tuple[int, ...], Any] = {}    # value references as C arrays (set_reals)
        self._dir = safe_extract(fmu, limits=limits)       # FMUOpenError: nothing extracted
        self._finalizer = weakref.finalize(self, remove_temp_dir, str(self._dir))
        try:
            Runner.__init__(self, fmu, instance_name, log_level, md=read_md(fmu, self._dir))
            if fmi_major(self.md) != self._MAJOR:
                raise FMUOpenError(fmu, f"an FMI {self.md.fmiVersion} FMU: {type(self).__name__} drives FMI "
                                        f"{self._MAJOR}.0 only (open_fmu picks the runner of the FMU's version)")
            cs = self.md.coSimulation
            if cs is None:
                raise FMUOpenError(fmu, "no Co-Simulation interface in modelDescription.xml "
                                        "(a Model Exchange FMU cannot be stepped by this runner)")
            self._prepare()
            self.slave = load_binary(fmu, self._dir, self.md.guid, cs.modelIdentifier, instance_name, fmi=self._MAJOR)
            n0 = self.n_logged
            try:
                self._instantiate()
            except Exception as exc:
                new = min(self.n_logged - n0, len(self.log))
                log = self.log[len(self.log) - new:] if new else [str(exc)]
                raise FMUInstantiateError(fmu, self._INSTANTIATE, 3, log) from None
        except BaseException:
            self._close()
            raise

    def _prepare(self) -> None:
        """What the version's runner sets up from the description before the binary loads."""

    def _instantiate(self) -> None:
        self._callbacks = self._make_callbacks()
        self.slave.instantiate(callbacks=self._callbacks, loggingOn=True)

    def _logged(self, status: int, message: Any) -> None:
        """The FMU's log callback: a message at or above ``log_level`` is kept (the last 200)."""
        msg = message.decode(errors="replace") if isinstance(message, bytes) else str(message)
        if status >= self.log_level:
            self.log.append(msg)
            self.n_logged += 1
            del self.log[:-200]

    def _close(self):
        """Free the instance (when there is one) and the library, remove the extraction."""
        slave, self.slave = self.slave, None
        try:
            if slave is not None:
                if slave.component is not None:
                    slave.freeInstance()          # fmi2FreeInstance + unload the library
                else:
                    slave.freeLibrary()
        except Exception:
            pass
        finally:
            self._finalizer()

    def _make_callbacks(self):
        from fmpy import calloc, free
        from fmpy.fmi2 import (fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE, fmi2CallbackFunctions,
                               fmi2CallbackLoggerTYPE)

        def logger(component, instance, status, category, message):
            self._logged(status, message)
        cb = fmi2CallbackFunctions()
        cb.logger = fmi2CallbackLoggerTYPE(logger)
        cb.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        cb.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        return cb

    def _error(self, name, status, n0) -> FMIError:
        """FMIError with the log lines the FMU emitted since ``n0`` lines (they name the time
        and the cause), or the last line if it emitted none."""
        new = min(self.n_logged - n0, len(self.log))
        return FMIError(name, status, self.log[len(self.log) - new:] if new else self.log[-1:])

    def _call(self, name, fn):
        from fmpy.fmi1 import FMICallException
        n0 = self.n_logged
        try:
            return fn()
        except FMICallException as exc:
            raise self._error(name, getattr(exc, "status", 3), n0) from None
        except Exception as exc:
            if "Failed to instantiate" in str(exc):
                raise FMIError(name, 3, self.log) from None
            raise

    # -- life cycle
    def setup(self, start_time: float = 0.0, stop_time: float | None = None,
              tolerance: float | None = None, step: float | None = None) -> None:
        self.t0 = float(start_time)
        self.h = step
        self.k = 0
        self._call("fmi2SetupExperiment", lambda: self.slave.setupExperiment(
            tolerance=tolerance, startTime=self.t0, stopTime=stop_time))

    def reset(self) -> None:
        """fmi2Reset: back to the instantiated state (parameters to their start values)."""
        self._call("fmi2Reset", self.slave.reset)

    def _setup_at(self, t, tolerance):
        self._call("fmi2SetupExperiment", lambda: self.slave.setupExperiment(tolerance=tolerance, startTime=t))

    def initialize(self) -> None:
        self._call("fmi2EnterInitializationMode", self.slave.enterInitializationMode)
        self._call("fmi2ExitInitializationMode", self.slave.exitInitializationMode)

    def step(self, n: int = 1) -> None:
        """Advance ``n`` communication steps on the grid t0 + k*h."""
        for _ in range(n):
            t = self.t0 + self.k * self.h
            t1 = self.t0 + (self.k + 1) * self.h
            self._call("fmi2DoStep", lambda: self.slave.doStep(currentCommunicationPoint=t,
                                                             communicationStepSize=t1 - t))
            self.k += 1

    #: run the loop of :meth:`step_record` in C (``cloop.c``) when it can be built; False forces
    #: the ctypes loop (same results, bit for bit; tests compare the two)
    use_cloop = cext.enabled()

    def step_record(self, n: int, vrs: Sequence[int], out: np.ndarray | None = None,
                    tout: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Batched stepping: the FMU's fmi2DoStep/fmi2GetReal are called in a loop written in C
        (``cloop.c``, through the FMU's own function pointers), or, without a C compiler, directly
        through ctypes with preallocated arrays (FMPy's wrappers convert arguments on every call,
        which costs more than a short communication step of the FMU itself).  Errors go through
        the same path as :meth:`step`: FMIError with the log lines of the failing call (of the
        batch, for the C loop)."""
        from fmpy.fmi2 import fmi2Real, fmi2True, fmi2ValueReference
        m = len(vrs)
        out = np.empty((n, m)) if out is None else out
        tout = np.empty(n) if tout is None else tout
        vr = (fmi2ValueReference * m)(*vrs)
        # the raw ctypes functions of the library (FMPy declared their argument types when it
        # loaded it); FMPy's wrappers self.slave.fmi2DoStep/... are bypassed
        do_step, get_real = self.slave.dll.fmi2DoStep, self.slave.dll.fmi2GetReal
        comp = self.slave.component
        loop = cloop.load() if self.use_cloop else None
        if (loop is not None and n > 0 and out.dtype == np.float64 and out.shape == (n, m)
                and out.flags.c_contiguous and tout.dtype == np.float64 and tout.flags.c_contiguous):
            failed_at, which = ctypes.c_long(0), ctypes.c_int(0)
            n0 = self.n_logged
            st = loop(ctypes.cast(do_step, ctypes.c_void_p), ctypes.cast(get_real, ctypes.c_void_p), comp,
                      self.t0, self.h, self.k, n, ctypes.addressof(vr), m, out.ctypes.data, tout.ctypes.data,
                      ctypes.byref(failed_at), ctypes.byref(which))
            if st:
                self.k += failed_at.value + which.value      # a failing fmi2GetReal came after its step
                raise self._error("fmi2GetReal" if which.value else "fmi2DoStep", st, n0)
            self.k += n
            return tout, out
        val = (fmi2Real * m)()
        view = np.ctypeslib.as_array(val)
        t0, h = self.t0, self.h
        for j in range(n):
            k = self.k
            t = t0 + k * h
            t1 = t0 + (k + 1) * h
            n0 = self.n_logged
            st = do_step(comp, t, t1 - t, fmi2True)
            if st > 1:                       # fmi2Discard, fmi2Error, fmi2Fatal
                raise self._error("fmi2DoStep", st, n0)
            self.k = k + 1
            n0 = self.n_logged
            st = get_real(comp, vr, m, val)
            if st > 1:
                raise self._error("fmi2GetReal", st, n0)
            out[j] = view
            tout[j] = t1
        return tout, out

    #: the name of fmi2Terminate / fmi3Terminate in errors (FMPy3Runner's)
    _TERMINATE = "fmi2Terminate"

    def terminate(self) -> None:
        """fmi2Terminate (fmi3Terminate), free the instance, unload the library, remove the
        extraction folder (each also when the one before failed; a second call does nothing)."""
        if self.slave is None:
            self._finalizer()
            return
        try:
            self._call(self._TERMINATE, self.slave.terminate)
        finally:
            slave, self.slave = self.slave, None
            try:
                slave.freeInstance()
            finally:
                self._finalizer()

    # -- values
    def set(self, values: dict[str, Any]) -> None:
        by_type = {}
        for n, v in values.items():
            by_type.setdefault(self.type_of(n), []).append((n, v))
        for typ, items in by_type.items():
            names = [n for n, _ in items]
            vals = [v for _, v in items]
            if typ == "Real":
                self._call("fmi2SetReal", lambda: self.slave.setReal(self.vr(names), [float(v) for v in vals]))
            elif typ == "Integer":
                self._call("fmi2SetInteger", lambda: self.slave.setInteger(self.vr(names), [int(v) for v in vals]))
            elif typ == "Boolean":
                self._call("fmi2SetBoolean", lambda: self.slave.setBoolean(self.vr(names), [bool(v) for v in vals]))
            else:
                raise TypeError(f"cannot set {typ} variable {names}")

    def set_reals(self, vrs: Sequence[int], values: Sequence[float] | np.ndarray) -> None:
        """fmi2SetReal of ``values`` to the value references ``vrs``: one call of the FMU's
        function through ctypes with the value references converted once per list of them
        (the master writes the wear profile this way every update; FMPy's wrapper converts
        both lists on every call)."""
        key = tuple(vrs)
        vr = self._vr_arrays.get(key)
        if vr is None:
            from fmpy.fmi2 import fmi2ValueReference
            vr = self._vr_arrays[key] = (fmi2ValueReference * len(key))(*key)
        val = np.ascontiguousarray(values, dtype=np.float64)
        if val.shape != (len(key),):
            raise ValueError(f"set_reals: {len(key)} value references but {val.size} values")
        n0 = self.n_logged
        st = self._set_real(self.slave.component, vr, len(key), val.ctypes.data)
        if st > 1:                       # fmi2Discard, fmi2Error, fmi2Fatal
            raise self._error("fmi2SetReal", st, n0)

    @functools.cached_property
    def _set_real(self) -> Any:
        """fmi2SetReal of the FMU's library, taking the values as an address."""
        proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
        return proto(ctypes.cast(self.slave.dll.fmi2SetReal, ctypes.c_void_p).value)

    def get_reals(self, vrs: Sequence[int]) -> np.ndarray:
        return np.asarray(self._call("fmi2GetReal", lambda: self.slave.getReal(list(vrs))), dtype=float)

    def get(self, names: Iterable[str]) -> dict[str, Any]:
        out = {}
        for n in names:
            typ = self.type_of(n)
            vr = self.vr([n])
            if typ == "Real":
                out[n] = self._call("fmi2GetReal", lambda: self.slave.getReal(vr))[0]
            elif typ == "Integer":
                out[n] = self._call("fmi2GetInteger", lambda: self.slave.getInteger(vr))[0]
            else:
                out[n] = bool(self._call("fmi2GetBoolean", lambda: self.slave.getBoolean(vr))[0])
        return out

    # -- state
    def get_state(self) -> Any:
        return self._call("fmi2GetFMUstate", self.slave.getFMUState)

    def set_state(self, s: Any) -> None:
        self._call("fmi2SetFMUstate", lambda: self.slave.setFMUState(s))

    def free_state(self, s: Any) -> None:
        self._call("fmi2FreeFMUstate", lambda: self.slave.freeFMUState(s))

    def save_state(self, slot: Any = None) -> Any:
        """fmi2GetFMUstate into ``slot`` when given (the FMI standard lets the FMU reuse a state
        it returned before: no allocation, one copy) or a new state."""
        from fmpy.fmi2 import fmi2FMUstate
        s = fmi2FMUstate() if slot is None else slot
        n0 = self.n_logged
        st = self.slave.dll.fmi2GetFMUstate(self.slave.component, ctypes.byref(s))
        if st > 1:
            raise self._error("fmi2GetFMUstate", st, n0)
        return s

    def serialize_state(self, s: Any) -> bytes:
        return bytes(self._call("fmi2SerializeFMUstate", lambda: self.slave.serializeFMUstate(s)))

    def deserialize_state(self, data: bytes) -> Any:
        return self._call("fmi2DeSerializeFMUstate", lambda: self.slave.deSerializeFMUstate(data))

    def last_successful_time(self) -> float:
        from fmpy.fmi2 import fmi2LastSuccessfulTime
        try:
            return float(self.slave.getRealStatus(fmi2LastSuccessfulTime))
        except Exception:
            return float("nan")


#: the C types of the FMI 3.0 variable types the runner reads and writes
_C3 = {"Float64": ctypes.c_double, "Float32": ctypes.c_float, "Int8": ctypes.c_int8, "UInt8": ctypes.c_uint8,
       "Int16": ctypes.c_int16, "UInt16": ctypes.c_uint16, "Int32": ctypes.c_int32, "UInt32": ctypes.c_uint32,
       "Int64": ctypes.c_int64, "UInt64": ctypes.c_uint64, "Boolean": ctypes.c_bool}
_REAL3 = ("Float64", "Float32")


def element_names(name: str, shape: Sequence[int]) -> list[str]:
    """The FMI 2.0-style names of the elements of the FMI 3.0 array ``name`` of ``shape``, in the
    order of its values (row-major, FMI 3.0 2.2.9): ``x[1]``..``x[n]``; ``a[1,1]``, ``a[1,2]``...
    for more dimensions (Modelica's indices, from 1)."""
    idx = np.indices(tuple(shape)).reshape(len(shape), -1).T + 1
    return [f"{name}[{','.join(map(str, i))}]" for i in idx]


class _Plan:
    """How the runner reads or writes a list of element handles: the distinct array (or scalar)
    value references in first-use order, the number of values of each (whole arrays, as FMI
    3.0 transfers them), and where each requested element sits in the concatenated values."""

    def __init__(self, runner: "FMPy3Runner", handles: Sequence[int]) -> None:
        h = np.asarray(handles, dtype=np.int64)
        if h.size and (h.min() < 0 or h.max() >= len(runner._slot_vr)):
            raise KeyError(f"{runner.fmu.name}: no element handle {int(h.max() if h.max() >= 0 else h.min())}")
        vrs, first = [], {}
        for v in runner._slot_vr[h].tolist():
            if v not in first:
                first[v] = len(vrs)
                vrs.append(v)
        sizes = [runner._size[v] for v in vrs]
        start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if vrs else np.zeros(0, np.int64)
        self.vrs = vrs
        self.types = {runner._type[v] for v in vrs}
        self.c_vrs = (ctypes.c_uint32 * len(vrs))(*vrs)
        self.n_values = int(sum(sizes))
        self.gather = (start[[first[v] for v in runner._slot_vr[h].tolist()]] + runner._slot_off[h]).astype(np.int64)
        #: the requested elements are all elements of their arrays, each once, in order
        self.identity = self.n_values == len(h) and bool(np.all(self.gather == np.arange(len(h))))
        covered = np.zeros(self.n_values, dtype=bool)
        covered[self.gather] = True
        self.complete = bool(covered.all())


class FMPy3Runner(FMPyRunner):
    """The FMPy runner of FMI 3.0 Co-Simulation FMUs (FMPy's ``FMU3Slave``), with the interface
    of :class:`FMPyRunner`, so that the wear master, the studies and the CLI drive FMI 2.0 and
    3.0 FMUs alike.

    FMI 3.0 arrays (``wearDepth`` with ``<Dimension start="36"/>``) are one variable with one
    value reference; the importers address their elements by FMI 2.0-style names
    (``wearDepth[1]``..``wearDepth[36]``).  The runner keeps a table of elements: every scalar
    and every array element has a *handle* (its row in the table: value reference, offset in
    the array); :meth:`vr` returns handles (they are not value references, an element has none
    of its own), and :meth:`get_reals` / :meth:`set_reals` / :meth:`step_record` turn a list of
    handles into whole-array calls (``fmi3GetFloat64`` of the distinct value references, then
    a gather; a write of part of an array reads the array first).  For an FMU without arrays
    the handles are in one-to-one correspondence with the variables.

    The FMU is instantiated without event mode and without early return: it handles its events
    inside ``fmi3DoStep``, as an FMI 2.0 Co-Simulation FMU does.  A step that asks to terminate
    the simulation raises :class:`FMIError` (``fmi3DoStep``, fmi3Discard)."""

    _TERMINATE = "fmi3Terminate"
    _MAJOR = 3
    _INSTANTIATE = "fmi3InstantiateCoSimulation"

    def _prepare(self) -> None:
        self._build_table()
        self._plans: dict[tuple, _Plan] = {}
        self._initialized = False
        self._init_args = (None, 0.0, None)
        self._last_time = float("nan")

    def _instantiate(self) -> None:
        def log_message(env, status, category, message):
            self._logged(status, message)
        self.slave.instantiate(loggingOn=True, logMessage=log_message)

    # -- the element table
    def _build_table(self) -> None:
        """name -> handle for every scalar and every array element; per value reference its
        type and number of values; the arrays' own names -> their element names."""
        vr_, off_ = [], []
        self._handle: dict[str, int] = {}
        self._size: dict[int, int] = {}
        self._type: dict[int, str] = {}
        self._start: dict[int, Any] = {}
        self.arrays: dict[str, list[str]] = {}
        plain = {v.name for v in self.md.modelVariables}
        for v in self.md.modelVariables:
            shape = tuple(v.shape or ())
            n = int(np.prod(shape)) if shape else 1
            if v.valueReference not in self._size:
                self._size[v.valueReference] = n
                self._type[v.valueReference] = v.type
                self._start[v.valueReference] = v.start
            if not shape:
                self._handle[v.name] = len(vr_)
                vr_.append(v.valueReference)
                off_.append(0)
                continue
            names = element_names(v.name, shape)
            self.arrays[v.name] = names
            for i, e in enumerate(names):
                if e in plain:        # a scalar of that name exists (FMI 3.0 allows brackets in names)
                    continue
                self._handle[e] = len(vr_)
                vr_.append(v.valueReference)
                off_.append(i)
                self.vars[e] = v
        self._slot_vr = np.asarray(vr_, dtype=np.int64)
        self._slot_off = np.asarray(off_, dtype=np.int64)

    def _plan(self, handles: Sequence[int]) -> _Plan:
        key = tuple(int(h) for h in handles)
        p = self._plans.get(key)
        if p is None:
            if len(self._plans) > 256:
                self._plans.clear()
            p = self._plans[key] = _Plan(self, key)
        return p

    def vr(self, names: Iterable[str]) -> list[int]:
        """The element handles of ``names`` (scalars, or elements of arrays as ``x[i]``); an
        array's own name is refused (name its elements, :attr:`arrays` lists them)."""
        out = []
        for n in names:
            h = self._handle.get(n)
            if h is None:
                if n in self.arrays:
                    raise KeyError(f"{self.fmu.name}: {n!r} is an array of {len(self.arrays[n])} elements; "
                                   f"name its elements ({self.arrays[n][0]} ...)")
                raise KeyError(f"{self.fmu.name} has no variable {n!r}")
            out.append(h)
        return out

    def state_names(self) -> list[str]:
        """As :meth:`Runner.state_names`, with the elements of array states named one by one."""
        names = []
        for d in self.md.derivatives:
            x = d.variable.derivative
            if x is not None:
                names += self.arrays.get(x.name, [x.name])
        for v in self.md.modelVariables:
            if (v.variability == "discrete" and v.causality == "local" and v.type in _REAL3
                    and v.initial in ("exact", "approx")):
                names += [e for e in self.arrays.get(v.name, [v.name]) if e not in names]
        return names

    # -- typed transfers of whole variables
    def _get_values(self, typ: str, p: _Plan) -> np.ndarray:
        ct = _C3[typ]
        buf = (ct * p.n_values)()
        fn = getattr(self.slave.dll, f"fmi3Get{typ}")
        n0 = self.n_logged
        st = fn(self.slave.component, p.c_vrs, len(p.vrs), buf, p.n_values)
        if st > 1:
            raise self._error(f"fmi3Get{typ}", st, n0)
        return np.ctypeslib.as_array(buf).copy() if p.n_values else np.zeros(0)

    def _set_values(self, typ: str, p: _Plan, values: np.ndarray) -> None:
        ct = _C3[typ]
        buf = (ct * p.n_values)(*values.tolist())
        fn = getattr(self.slave.dll, f"fmi3Set{typ}")
        n0 = self.n_logged
        st = fn(self.slave.component, p.c_vrs, len(p.vrs), buf, p.n_values)
        if st > 1:
            raise self._error(f"fmi3Set{typ}", st, n0)

    def _current(self, typ: str, p: _Plan) -> np.ndarray:
        """The whole arrays of ``p`` as they are now: read from the FMU once it is initialised,
        else their start values (fmi3Get* is not allowed before initialisation)."""
        if self._initialized:
            return self._get_values(typ, p)
        vals = []
        for v in p.vrs:
            start = self._start.get(v)
            words = str(start).split() if start is not None else []
            vals += [float(w) if typ in _REAL3 else (w.lower() in ("true", "1") if typ == "Boolean" else int(w))
                     for w in words] if len(words) == self._size[v] else [0] * self._size[v]
        return np.asarray(vals)

    def _write(self, typ: str, handles: Sequence[int], values: Sequence[Any]) -> None:
        p = self._plan(handles)
        vals = np.asarray(values)
        if p.identity:
            self._set_values(typ, p, vals)
            return
        whole = np.zeros(p.n_values, dtype=vals.dtype) if p.complete else self._current(typ, p).astype(vals.dtype)
        whole[p.gather] = vals
        self._set_values(typ, p, whole)

    def _read(self, typ: str, handles: Sequence[int]) -> np.ndarray:
        p = self._plan(handles)
        vals = self._get_values(typ, p)
        return vals if p.identity else vals[p.gather]

    # -- life cycle
    def setup(self, start_time: float = 0.0, stop_time: float | None = None,
              tolerance: float | None = None, step: float | None = None) -> None:
        """Remember the experiment (FMI 3.0 has no fmi3SetupExperiment: tolerance, start and
        stop time go to fmi3EnterInitializationMode) and start the grid at ``start_time``."""
        self.t0 = float(start_time)
        self.h = step
        self.k = 0
        self._init_args = (tolerance, self.t0, stop_time)

    def _setup_at(self, t, tolerance):
        self._init_args = (tolerance, float(t), None)

    def reset(self) -> None:
        """fmi3Reset: back to the instantiated state (parameters to their start values)."""
        self._call("fmi3Reset", self.slave.reset)
        self._initialized = False

    def initialize(self) -> None:
        tol, start, stop = self._init_args
        self._call("fmi3EnterInitializationMode",
                   lambda: self.slave.enterInitializationMode(tolerance=tol, startTime=start, stopTime=stop))
        self._call("fmi3ExitInitializationMode", self.slave.exitInitializationMode)
        self._initialized = True

    def _do_step(self, t: float, h: float) -> None:
        from fmpy.fmi3 import fmi3Boolean, fmi3Float64
        ev, term, early, last = fmi3Boolean(), fmi3Boolean(), fmi3Boolean(), fmi3Float64()
        n0 = self.n_logged
        st = self.slave.dll.fmi3DoStep(self.slave.component, t, h, True, ctypes.byref(ev), ctypes.byref(term),
                                       ctypes.byref(early), ctypes.byref(last))
        self._last_time = last.value
        if st > 1:
            raise self._error("fmi3DoStep", st, n0)
        if term.value:
            raise self._error("fmi3DoStep", 2, n0)    # the FMU asks to stop: as fmi2Discard in FMI 2.0

    def step(self, n: int = 1) -> None:
        """Advance ``n`` communication steps on the grid t0 + k*h."""
        for _ in range(n):
            t = self.t0 + self.k * self.h
            t1 = self.t0 + (self.k + 1) * self.h
            self._do_step(t, t1 - t)
            self.k += 1

    def step_record(self, n: int, vrs: Sequence[int], out: np.ndarray | None = None,
                    tout: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Batched stepping, as :meth:`FMPyRunner.step_record`: ``vrs`` are element handles of
        Float64 variables; the loop runs in C (``cloop.c``'s ``wc_step_record3``: fmi3DoStep and
        one fmi3GetFloat64 of the distinct value references per step, then the gather), or in
        Python through ctypes without a C compiler (same results, bit for bit)."""
        m = len(vrs)
        out = np.empty((n, m)) if out is None else out
        tout = np.empty(n) if tout is None else tout
        p = self._plan(vrs)
        if p.types - {"Float64"}:
            raise TypeError(f"step_record reads Float64 variables only (got {sorted(p.types)})")
        comp = self.slave.component
        do_step, get = self.slave.dll.fmi3DoStep, self.slave.dll.fmi3GetFloat64
        loop = cloop.load_step3() if self.use_cloop else None
        if (loop is not None and n > 0 and out.dtype == np.float64 and out.shape == (n, m)
                and out.flags.c_contiguous and tout.dtype == np.float64 and tout.flags.c_contiguous):
            buf = np.empty(max(p.n_values, 1))
            gather = np.ascontiguousarray(p.gather, dtype=np.int64)
            failed_at, which, last = ctypes.c_long(0), ctypes.c_int(0), ctypes.c_double(float("nan"))
            n0 = self.n_logged
            st = loop(ctypes.cast(do_step, ctypes.c_void_p), ctypes.cast(get, ctypes.c_void_p), comp,
                      self.t0, self.h, self.k, n, ctypes.addressof(p.c_vrs), len(p.vrs), p.n_values,
                      buf.ctypes.data, gather.ctypes.data, m, out.ctypes.data, tout.ctypes.data,
                      ctypes.byref(failed_at), ctypes.byref(which), ctypes.byref(last))
            self._last_time = last.value
            if st:
                self.k += failed_at.value + (which.value == 1)     # a failing get came after its step
                raise self._error("fmi3GetFloat64" if which.value == 1 else "fmi3DoStep", st, n0)
            self.k += n
            return tout, out
        val = (ctypes.c_double * max(p.n_values, 1))()
        view = np.ctypeslib.as_array(val)[:p.n_values]
        t0, h = self.t0, self.h
        for j in range(n):
            k = self.k
            t = t0 + k * h
            t1 = t0 + (k + 1) * h
            self._do_step(t, t1 - t)
            self.k = k + 1
            n0 = self.n_logged
            st = get(comp, p.c_vrs, len(p.vrs), val, p.n_values)
            if st > 1:
                raise self._error("fmi3GetFloat64", st, n0)
            out[j] = view if p.identity else view[p.gather]
            tout[j] = t1
        return tout, out

    # -- values
    def set(self, values: dict[str, Any]) -> None:
        """Set variables by name (scalars, array elements ``x[i]``, or a whole array by its name
        with a sequence of all its values), one call per FMI type."""
        by_type: dict[str, tuple[list, list]] = {}
        for n, v in values.items():
            if n in self.arrays and n not in self._handle:
                vals = list(np.ravel(v))
                if len(vals) != len(self.arrays[n]):
                    raise ValueError(f"{n} has {len(self.arrays[n])} elements, given {len(vals)} values")
                pairs = list(zip(self.arrays[n], vals))
            else:
                pairs = [(n, v)]
            for e, x in pairs:
                typ = self.type_of(e)
                hs, xs = by_type.setdefault(typ, ([], []))
                hs.append(self.vr([e])[0])
                xs.append(x)
        for typ, (hs, xs) in by_type.items():
            if typ in _REAL3:
                conv = [float(x) for x in xs]
            elif typ == "Boolean":
                conv = [bool(x) for x in xs]
            elif typ in _C3:
                conv = [int(x) for x in xs]
            else:
                raise TypeError(f"cannot set {typ} variables {[n for n in values]}")
            self._write(typ, hs, conv)

    def set_reals(self, vrs: Sequence[int], values: Sequence[float] | np.ndarray) -> None:
        """Set Float64 elements by handle (whole-array calls; see the class docstring)."""
        self._write("Float64", vrs, np.asarray(values, dtype=float))

    def get_reals(self, vrs: Sequence[int]) -> np.ndarray:
        """Float64 elements by handle (one fmi3GetFloat64 of the distinct arrays)."""
        return np.asarray(self._read("Float64", vrs), dtype=float)

    def get(self, names: Iterable[str]) -> dict[str, Any]:
        """Values by name: scalars and elements as Python numbers / bools, an array's own name
        as a list of its values."""
        def py(typ: str, x: Any) -> Any:
            return float(x) if typ in _REAL3 else bool(x) if typ == "Boolean" else int(x)
        out = {}
        for n in names:
            whole = n in self.arrays and n not in self._handle
            typ = self.type_of(self.arrays[n][0] if whole else n)
            if typ not in _C3:
                raise TypeError(f"cannot get {typ} variable {n}")
            if whole:                       # one read of the array, not one per element
                out[n] = [py(typ, x) for x in self._read(typ, self.vr(self.arrays[n]))]
                continue
            out[n] = py(typ, self._read(typ, self.vr([n]))[0])
        return out

    # -- state
    save_state = Runner.save_state

    def get_state(self) -> Any:
        """fmi3GetFMUState: a copy of the FMU's state (the master's checkpoints and rollbacks)."""
        return self._call("fmi3GetFMUState", self.slave.getFMUState)

    def set_state(self, s: Any) -> None:
        """fmi3SetFMUState: continue from the state ``s``."""
        self._call("fmi3SetFMUState", lambda: self.slave.setFMUState(s))

    def free_state(self, s: Any) -> None:
        """fmi3FreeFMUState: release the state ``s``."""
        self._call("fmi3FreeFMUState", lambda: self.slave.freeFMUState(s))

    def serialize_state(self, s: Any) -> bytes:
        """fmi3SerializeFMUState: the state ``s`` as bytes (written into checkpoints)."""
        return bytes(self._call("fmi3SerializeFMUState", lambda: self.slave.serializeFMUState(s)))

    def deserialize_state(self, data: bytes) -> Any:
        """fmi3DeserializeFMUState: a state from bytes of :meth:`serialize_state`."""
        return self._call("fmi3DeserializeFMUState", lambda: self.slave.deserializeFMUState(bytes(data)))

    def last_successful_time(self) -> float:
        """The ``lastSuccessfulTime`` fmi3DoStep reported last (NaN before the first step)."""
        return float(self._last_time)


class PyFMIRunner(Runner):
    """Optional backend through PyFMI.  PyPI serves no current PyFMI (its newest there is 2.5
    from 2018, source only, needing Assimulo and the FMI Library to build); current releases
    come from conda-forge (``conda install -c conda-forge pyfmi``), so there is no pip extra."""
    name = "pyfmi"

    def __init__(self, fmu: str | os.PathLike[str], instance_name: str = "instance", log_level: int = 1,
                 limits: Limits | None = None) -> None:
        try:
            import pyfmi  # type: ignore
        except ImportError:
            raise ImportError("the PyFMI backend needs PyFMI: conda install -c conda-forge pyfmi "
                              "(PyPI has no current PyFMI)") from None
        from .archive import check_archive
        problems = check_archive(fmu, limits)           # PyFMI extracts by itself: check first
        if problems:
            raise FMUOpenError(fmu, problems[0])
        super().__init__(fmu, instance_name, log_level)
        self.model = pyfmi.load_fmu(str(self.fmu), kind="CS")

    def setup(self, start_time: float = 0.0, stop_time: float | None = None,
              tolerance: float | None = None, step: float | None = None) -> None:
        self.t0, self.h, self.k = float(start_time), step, 0
        self.model.setup_experiment(tolerance=tolerance, start_time=self.t0, stop_time=stop_time)

    def reset(self) -> None:
        self.model.reset()

    def _setup_at(self, t, tolerance):
        self.model.setup_experiment(tolerance=tolerance, start_time=t)

    def initialize(self) -> None:
        self.model.enter_initialization_mode()
        self.model.exit_initialization_mode()

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            t = self.t0 + self.k * self.h
            st = self.model.do_step(t, self.t0 + (self.k + 1) * self.h - t, True)
            if st != 0:
                raise FMIError("fmi2DoStep", st)
            self.k += 1

    def set(self, values: dict[str, Any]) -> None:
        for n, v in values.items():
            self.model.set(n, v)

    def get(self, names: Iterable[str]) -> dict[str, Any]:
        return {n: float(np.asarray(self.model.get(n)).ravel()[0]) for n in names}

    def set_reals(self, vrs: Sequence[int], values: Sequence[float] | np.ndarray) -> None:
        self.model.set_real(list(vrs), list(values))

    def get_reals(self, vrs: Sequence[int]) -> np.ndarray:
        return np.asarray(self.model.get_real(list(vrs)), dtype=float)

    def get_state(self) -> Any:
        return self.model.get_fmu_state()

    def set_state(self, s: Any) -> None:
        self.model.set_fmu_state(s)

    def free_state(self, s: Any) -> None:
        self.model.free_fmu_state(s)

    def terminate(self) -> None:
        self.model.terminate()


BACKENDS = {"fmpy": FMPyRunner, "pyfmi": PyFMIRunner}


def open_fmu(fmu: str | os.PathLike[str], backend: str = "fmpy", **kw: Any) -> Runner:
    """An instantiated runner of the Co-Simulation FMU ``fmu`` (backend ``"fmpy"`` or
    ``"pyfmi"``; with ``"fmpy"`` an FMI 3.0 FMU gets :class:`FMPy3Runner`, an FMI 2.0 one
    :class:`FMPyRunner`, with the same interface; keywords: ``instance_name``, ``log_level``, ``limits`` (an
    :class:`~wearcosim.fmi.archive.Limits`)).  An FMU that cannot be opened raises
    :class:`FMUOpenError` (one line, naming the file) and leaves nothing extracted behind;
    call ``terminate()`` when done (it removes the extraction)."""
    try:
        cls = BACKENDS[backend]
    except KeyError:
        raise ValueError(f"unknown FMU backend {backend!r} (known: {', '.join(BACKENDS)})") from None
    if cls is FMPyRunner and fmi_version_of(fmu) == 3:
        cls = FMPy3Runner
    return cls(fmu, **kw)
