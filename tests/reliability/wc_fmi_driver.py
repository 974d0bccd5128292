"""ctypes driver for wearcosim FMI 2.0 FMUs, used by the reliability tests (issue #8).

Two uses:

* imported: ``Fmu`` -- a thin ctypes binding of one extracted FMU (``load_fmu``), used
  in-process by the reset / FMU-state round-trip tests;
* executed as a script: a fuzz WORKER.  It loads one FMU and then reads call sequences
  from stdin, one JSON document per line, executes each one and answers with one JSON
  line ``{"ok": bool, "ncalls": n, "problems": [...], "trace": [...]}``.  The worker is
  a separate process so that a crash (segfault, abort) or a hang of the FMU cannot take
  the test session down; the parent (test_fmi_fuzz.py) detects EOF / a timeout and
  reports the sequence that caused it.

Checked properties of every call (``problems`` lists violations):
  P1 the return value is a valid fmi2Status (0..4);
  P2 a call that is not allowed in the current instance state (allowed-state masks of
     fmu/runtime/fmi2_face.c, which follow the FMI 2.0 state machine), or a Model
     Exchange function called on a Co-Simulation instance and vice versa, returns
     fmi2Error, logs a message and leaves the instance unchanged (byte-identical FMU
     state snapshot);
  P3 every fmi2Error / fmi2Discard is accompanied by a log message (status >= Discard);
  P4 an fmi2Error leaves the instance unchanged, unless it moved to the 'error' state;
  P5 a successful (OK/Warning) call leads to the state the FMI 2.0 state machine
     prescribes; fmi2Discard only comes from fmi2DoStep and leads to 'stepFailed';
  P6 deserializing corrupted data (a changed byte, truncation) returns fmi2Error;
     deserializing unmodified data of an instance of the same type succeeds;
  P7 fmi2Instantiate with a wrong GUID / empty name / unknown type returns NULL and logs.
  P8 fmi2Get*/fmi2Set* (in an allowed state, non-NULL arrays) with a value reference that
     is not a ScalarVariable of modelDescription.xml (internal slots of v such as relation
     memories and pre values, references >= NV) or of another type returns fmi2Error and
     leaves the instance unchanged; the message names the first unknown value reference.

The actual instance state is read after every call from an FMU-state snapshot
(fmi2GetFMUstate + fmi2SerializeFMUstate; header layout RtStateHeader of
rt_state.c), so the snapshot functions themselves are exercised all the time.
"""
from __future__ import annotations

import ctypes as C
import json
import math
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

# ---------------------------------------------------------------------------------
# FMI 2.0 types

fmi2Component = C.c_void_p
fmi2FMUstate = C.c_void_p
fmi2VR = C.c_uint
fmi2Real = C.c_double
fmi2Integer = C.c_int
fmi2Boolean = C.c_int
fmi2Status = C.c_int
LOGGER = C.CFUNCTYPE(None, C.c_void_p, C.c_char_p, C.c_int, C.c_char_p, C.c_char_p)
ALLOC = C.CFUNCTYPE(C.c_void_p, C.c_size_t, C.c_size_t)
FREE = C.CFUNCTYPE(None, C.c_void_p)
STEP_FINISHED = C.CFUNCTYPE(None, C.c_void_p, C.c_int)


class Callbacks(C.Structure):
    _fields_ = [("logger", LOGGER), ("allocateMemory", ALLOC), ("freeMemory", FREE),
                ("stepFinished", STEP_FINISHED), ("componentEnvironment", C.c_void_p)]


class EventInfo(C.Structure):
    _fields_ = [("newDiscreteStatesNeeded", fmi2Boolean), ("terminateSimulation", fmi2Boolean),
                ("nominalsOfContinuousStatesChanged", fmi2Boolean),
                ("valuesOfContinuousStatesChanged", fmi2Boolean),
                ("nextEventTimeDefined", fmi2Boolean), ("nextEventTime", fmi2Real)]


ME, CS = 0, 1
OK, WARNING, DISCARD, ERROR, FATAL, PENDING = range(6)

# instance states (rt_ctx.h RtState bits)
INSTANTIATED, INIT, EVENT, CT, STEP_COMPLETE, STEP_IN_PROGRESS, STEP_FAILED, \
    STEP_CANCELED, TERMINATED, ERRORSTATE, FATALSTATE = (1 << i for i in range(11))
STATE_NAMES = {INSTANTIATED: "instantiated", INIT: "initializationMode", EVENT: "eventMode",
               CT: "continuousTimeMode", STEP_COMPLETE: "stepComplete",
               STEP_IN_PROGRESS: "stepInProgress", STEP_FAILED: "stepFailed",
               STEP_CANCELED: "stepCanceled", TERMINATED: "terminated", ERRORSTATE: "error",
               FATALSTATE: "fatal"}
ANY = (INSTANTIATED | INIT | EVENT | CT | STEP_COMPLETE | STEP_FAILED | STEP_CANCELED |
       TERMINATED | ERRORSTATE)

# RtStateHeader (rt_state.c): char magic[8]; uint version,totalSize,nv,guidLen;
# int fmuType,state,stopDefined,toleranceDefined,terminateRequested,dirty,csEventPending;
# uint checksum; double time,lastSuccessfulTime,tStart,tStop,tolerance,hHint
HDR = struct.Struct("<8s4I7iI6d")   # 8+16+28+4 = 56 -> doubles at 56 (naturally aligned)


def parse_header(blob: bytes) -> dict:
    f = HDR.unpack_from(blob, 0)
    return {"magic": f[0], "version": f[1], "totalSize": f[2], "nv": f[3], "guidLen": f[4],
            "fmuType": f[5], "state": f[6], "terminateRequested": f[9], "time": f[13],
            "lastSuccessfulTime": f[14]}


# ---------------------------------------------------------------------------------
# FMU loading

def extract_fmu(fmu: Path, dest: Path) -> Path:
    dest = Path(dest)
    if not (dest / "modelDescription.xml").exists():
        dest.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(fmu) as z:
            z.extractall(dest)
    return dest


def read_info(unzipped: Path) -> dict:
    """Facts the driver needs: library, GUID, NV, N_X, N_Z, variables."""
    unzipped = Path(unzipped)
    root = ET.parse(unzipped / "modelDescription.xml").getroot()
    ident = root.find("CoSimulation").get("modelIdentifier")
    cfg = (unzipped / "sources" / "config.h").read_text()

    def macro(name):
        m = re.search(r"#define\s+%s\s+(\S+)" % name, cfg)
        return m.group(1)
    variables = []
    for sv in root.find("ModelVariables"):
        t = next(iter(sv))
        variables.append({"name": sv.get("name"), "vr": int(sv.get("valueReference")),
                          "type": t.tag, "causality": sv.get("causality"),
                          "variability": sv.get("variability"),
                          "start": t.get("start"), "min": t.get("min"), "max": t.get("max")})
    nz = int(root.get("numberOfEventIndicators", "0"))
    return {"so": str(unzipped / "binaries" / "linux64" / (ident + ".so")),
            "dd": root.find("CoSimulation").get("providesDirectionalDerivative") == "true",
            "guid": root.get("guid"), "identifier": ident, "nv": int(macro("NV")),
            "nx": int(macro("N_X")), "nz": nz, "variables": variables,
            "stopTime": float(root.find("DefaultExperiment").get("stopTime", "1"))}


_PROTOS = {
    "fmi2Instantiate": (fmi2Component, [C.c_char_p, C.c_int, C.c_char_p, C.c_char_p,
                                        C.POINTER(Callbacks), fmi2Boolean, fmi2Boolean]),
    "fmi2FreeInstance": (None, [fmi2Component]),
    "fmi2SetDebugLogging": (fmi2Status, [fmi2Component, fmi2Boolean, C.c_size_t,
                                         C.POINTER(C.c_char_p)]),
    "fmi2SetupExperiment": (fmi2Status, [fmi2Component, fmi2Boolean, fmi2Real, fmi2Real,
                                         fmi2Boolean, fmi2Real]),
    "fmi2EnterInitializationMode": (fmi2Status, [fmi2Component]),
    "fmi2ExitInitializationMode": (fmi2Status, [fmi2Component]),
    "fmi2Terminate": (fmi2Status, [fmi2Component]),
    "fmi2Reset": (fmi2Status, [fmi2Component]),
    "fmi2GetReal": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t, C.c_void_p]),
    "fmi2GetInteger": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t, C.c_void_p]),
    "fmi2GetBoolean": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t, C.c_void_p]),
    "fmi2GetString": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t, C.c_void_p]),
    "fmi2SetReal": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t, C.c_void_p]),
    "fmi2SetInteger": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t, C.c_void_p]),
    "fmi2SetBoolean": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t, C.c_void_p]),
    "fmi2SetString": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t, C.c_void_p]),
    "fmi2GetFMUstate": (fmi2Status, [fmi2Component, C.POINTER(fmi2FMUstate)]),
    "fmi2SetFMUstate": (fmi2Status, [fmi2Component, fmi2FMUstate]),
    "fmi2FreeFMUstate": (fmi2Status, [fmi2Component, C.POINTER(fmi2FMUstate)]),
    "fmi2SerializedFMUstateSize": (fmi2Status, [fmi2Component, fmi2FMUstate,
                                                C.POINTER(C.c_size_t)]),
    "fmi2SerializeFMUstate": (fmi2Status, [fmi2Component, fmi2FMUstate, C.c_void_p,
                                           C.c_size_t]),
    "fmi2DeSerializeFMUstate": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t,
                                             C.POINTER(fmi2FMUstate)]),
    "fmi2GetDirectionalDerivative": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t,
                                                  C.c_void_p, C.c_size_t, C.c_void_p,
                                                  C.c_void_p]),
    "fmi2EnterEventMode": (fmi2Status, [fmi2Component]),
    "fmi2NewDiscreteStates": (fmi2Status, [fmi2Component, C.POINTER(EventInfo)]),
    "fmi2EnterContinuousTimeMode": (fmi2Status, [fmi2Component]),
    "fmi2CompletedIntegratorStep": (fmi2Status, [fmi2Component, fmi2Boolean,
                                                 C.POINTER(fmi2Boolean),
                                                 C.POINTER(fmi2Boolean)]),
    "fmi2SetTime": (fmi2Status, [fmi2Component, fmi2Real]),
    "fmi2SetContinuousStates": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t]),
    "fmi2GetDerivatives": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t]),
    "fmi2GetEventIndicators": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t]),
    "fmi2GetContinuousStates": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t]),
    "fmi2GetNominalsOfContinuousStates": (fmi2Status, [fmi2Component, C.c_void_p,
                                                       C.c_size_t]),
    "fmi2DoStep": (fmi2Status, [fmi2Component, fmi2Real, fmi2Real, fmi2Boolean]),
    "fmi2CancelStep": (fmi2Status, [fmi2Component]),
    "fmi2SetRealInputDerivatives": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t,
                                                 C.c_void_p, C.c_void_p]),
    "fmi2GetRealOutputDerivatives": (fmi2Status, [fmi2Component, C.c_void_p, C.c_size_t,
                                                  C.c_void_p, C.c_void_p]),
    "fmi2GetStatus": (fmi2Status, [fmi2Component, C.c_int, C.POINTER(fmi2Status)]),
    "fmi2GetRealStatus": (fmi2Status, [fmi2Component, C.c_int, C.POINTER(fmi2Real)]),
    "fmi2GetIntegerStatus": (fmi2Status, [fmi2Component, C.c_int, C.POINTER(fmi2Integer)]),
    "fmi2GetBooleanStatus": (fmi2Status, [fmi2Component, C.c_int, C.POINTER(fmi2Boolean)]),
    "fmi2GetStringStatus": (fmi2Status, [fmi2Component, C.c_int, C.POINTER(C.c_char_p)]),
}


class Fmu:
    """ctypes binding of one FMU shared library plus a collecting logger."""

    def __init__(self, info: dict):
        self.info = info
        self.lib = C.CDLL(info["so"])
        for name, (res, args) in _PROTOS.items():
            f = getattr(self.lib, name)
            f.restype = res
            f.argtypes = args
            setattr(self, name[4:], f)   # self.DoStep, self.GetReal, ...
        self.log = []                    # (status, category, message)

        def logger(env, name, status, category, message):
            self.log.append((status, (category or b"").decode(errors="replace"),
                             (message or b"").decode(errors="replace")))
        self._logger = LOGGER(logger)
        self.callbacks = Callbacks(self._logger, ALLOC(), FREE(), STEP_FINISHED(), None)
        # NULL allocate/free: the runtime then uses calloc/free (canNotUseMemory...=true)

    def instantiate(self, fmu_type=CS, name=b"inst", guid=None, logging_on=False):
        guid = self.info["guid"].encode() if guid is None else guid
        return self.Instantiate(name, fmu_type, guid, b"file:///tmp", C.byref(self.callbacks),
                                0, 1 if logging_on else 0)

    # convenience wrappers for the in-process tests
    def get_real(self, c, vrs):
        n = len(vrs)
        out = (fmi2Real * max(n, 1))()
        st = self.GetReal(c, (fmi2VR * max(n, 1))(*vrs), n, out)
        assert st == OK, (st, self.log[-3:])
        return list(out[:n])

    def snapshot(self, c) -> bytes | None:
        """Serialized FMU state of instance c (None if that failed)."""
        s = fmi2FMUstate()
        if self.GetFMUstate(c, C.byref(s)) != OK:
            return None
        try:
            size = C.c_size_t()
            if self.SerializedFMUstateSize(c, s, C.byref(size)) != OK:
                return None
            buf = C.create_string_buffer(size.value)
            if self.SerializeFMUstate(c, s, buf, size.value) != OK:
                return None
            return buf.raw
        finally:
            self.FreeFMUstate(c, C.byref(s))


def load_fmu(fmu_path: Path, work_dir: Path) -> Fmu:
    return Fmu(read_info(extract_fmu(fmu_path, work_dir)))


# ---------------------------------------------------------------------------------
# allowed-state masks (fmi2_face.c M_*) and type restrictions

M_SET = INSTANTIATED | INIT | EVENT | CT | STEP_COMPLETE
M_DERIV = INIT | EVENT | CT | TERMINATED | ERRORSTATE
M_STATUS = STEP_COMPLETE | STEP_IN_PROGRESS | STEP_FAILED | STEP_CANCELED | TERMINATED | \
    ERRORSTATE
MASKS = {
    "setDebugLogging": (ANY, None), "setupExperiment": (INSTANTIATED, None),
    "enterInit": (INSTANTIATED, None), "exitInit": (INIT, None),
    "terminate": (EVENT | CT | STEP_COMPLETE | STEP_FAILED, None), "reset": (ANY, None),
    "getReal": (ANY, None), "getInteger": (ANY, None), "getBoolean": (ANY, None),
    "getString": (ANY, None),
    "setReal": (M_SET, None), "setInteger": (M_SET, None), "setBoolean": (M_SET, None),
    "setString": (M_SET, None),
    "getFMUstate": (ANY, None), "setFMUstate": (ANY, None), "freeFMUstate": (ANY, None),
    "serialize": (ANY, None), "deserialize": (ANY, None),
    "getDirectionalDerivative": (ANY & ~INSTANTIATED, None),
    "enterEventMode": (EVENT | CT, ME), "newDiscreteStates": (EVENT, ME),
    "enterCT": (EVENT, ME), "completedStep": (CT, ME), "setTime": (EVENT | CT, ME),
    "setStates": (CT, ME), "getDerivatives": (M_DERIV, ME),
    "getEventIndicators": (M_DERIV, ME), "getStates": (M_DERIV, ME),
    "getNominals": (INSTANTIATED | M_DERIV, ME),
    "doStep": (STEP_COMPLETE, CS), "cancelStep": (STEP_IN_PROGRESS, CS),
    "setRealInputDerivatives": (INSTANTIATED | INIT | STEP_COMPLETE, None),
    "getRealOutputDerivatives": (STEP_COMPLETE | STEP_FAILED | STEP_CANCELED | TERMINATED |
                                 ERRORSTATE, None),
    "getStatus": (M_STATUS, CS), "getRealStatus": (M_STATUS, CS),
    "getIntegerStatus": (M_STATUS, CS), "getBooleanStatus": (M_STATUS, CS),
    "getStringStatus": (M_STATUS, CS),
}
# calls that can never succeed on these FMUs (not supported, or vr 0 is never a Real input:
# setRealInputDerivatives); getDirectionalDerivative too where the FMU does not provide it
# (getRealOutputDerivatives of vr 0, a state, succeeds in Co-Simulation)
ALWAYS_ERROR = {"setRealInputDerivatives", "cancelStep", "getIntegerStatus"}




def fnum(x):
    """JSON number or the strings nan / inf / -inf."""
    return float(x) if not isinstance(x, str) else float(x)


def fjson(x):
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)
    return x


class Runner:
    """Executes one call sequence against a loaded Fmu and checks P1..P8."""

    def __init__(self, fmu: Fmu):
        self.fmu = fmu
        self.info = fmu.info
        self.always_error = ALWAYS_ERROR | (set() if self.info.get("dd") else {"getDirectionalDerivative"})

    # -- helpers ------------------------------------------------------------------
    def _snap(self):
        if self.c is None:
            return None
        f = self.fmu
        st = f.GetFMUstate(self.c, C.byref(self.snapstate))
        if st != OK:
            self.problem(f"snapshot: fmi2GetFMUstate returned {st}")
            return None
        size = C.c_size_t()
        st = f.SerializedFMUstateSize(self.c, self.snapstate, C.byref(size))
        buf = C.create_string_buffer(max(size.value, 1))
        st2 = f.SerializeFMUstate(self.c, self.snapstate, buf, size.value)
        if st != OK or st2 != OK:
            self.problem(f"snapshot: size/serialize returned {st}/{st2}")
            return None
        return buf.raw

    def problem(self, msg):
        self.problems.append(f"call #{self.k} {self.cur}: {msg}")

    def _arr(self, ctype, values, null=False):
        if null:
            return None
        n = len(values)
        return (ctype * max(n, 1))(*values)

    def _free_slots(self):
        for s in self.slots.values():
            if s.value:
                st = self.fmu.FreeFMUstate(self.c, C.byref(s))
                if st != OK:
                    self.problem(f"fmi2FreeFMUstate of a slot at cleanup returned {st}")
        self.slots.clear()
        if self.snapstate.value:
            self.fmu.FreeFMUstate(self.c, C.byref(self.snapstate))

    def _free_instance(self):
        if self.c is not None:
            self._free_slots()
            self.fmu.FreeInstance(self.c)
            self.c = None

    # -- main ---------------------------------------------------------------------
    def run(self, seq):
        self.c = None
        self.type = None
        self.slots = {}            # int -> fmi2FMUstate
        self.blobs = {}            # int -> bytes (serialized)
        self.snapstate = fmi2FMUstate()
        self.problems = []
        self.trace = []
        try:
            for self.k, op in enumerate(seq):
                self.cur = op[0]
                self.step(op)
                if len(self.problems) >= 5:
                    break
        finally:
            self.cur = "cleanup"
            self._free_instance()
        return {"ok": not self.problems, "ncalls": len(seq), "problems": self.problems,
                "trace": self.trace}

    def step(self, op):
        f = self.fmu
        name, args = op[0], op[1:]
        if name == "instantiate":
            return self.do_instantiate(*args)
        if name == "__selftest_abort":      # harness self-test only
            import os
            os.abort()
        if name == "__selftest_hang":
            import time
            time.sleep(1e6)
        if name == "free":
            self._free_instance()
            self.trace.append([name, None, None])
            return
        if self.c is None:
            return                      # no instance: nothing to call on
        before = self._snap()
        if before is None:
            return
        state = parse_header(before)["state"]
        mask, only = MASKS[name]
        illegal = not (state & mask) or (only is not None and only != self.type)
        nlog = len(f.log)
        st, expect_state = self.call(name, args, state, before)
        after = self._snap()
        new_state = parse_header(after)["state"] if after else None
        self.trace.append([name, st, STATE_NAMES.get(new_state, new_state)])
        logs = f.log[nlog:]
        logged_err = any(s >= DISCARD for s, _, _ in logs)
        # P1
        if not (isinstance(st, int) and 0 <= st <= 4):
            self.problem(f"returned invalid status {st!r}")
            return
        if illegal or name in self.always_error:
            # P2
            if st != ERROR:
                self.problem(f"{'illegal in state ' + STATE_NAMES[state] if illegal else 'unsupported'}"
                             f" but returned {st} (expected fmi2Error=3)")
            if not logged_err:
                self.problem("rejected without a log message")
            if after != before and not (name in ("reset",)):
                self.problem("rejected call changed the instance")
            return
        if st in (DISCARD, ERROR) and not logged_err:
            self.problem(f"returned {st} without a log message")          # P3
        if st == ERROR and after is not None and after != before and new_state != ERRORSTATE:
            hb, ha = parse_header(before), parse_header(after)
            self.problem("fmi2Error changed the instance but did not move it to state "
                         f"'error' (state {STATE_NAMES.get(new_state)}, time "
                         f"{hb['time']!r} -> {ha['time']!r})")              # P4
        if st in (OK, WARNING) and expect_state is not None and new_state != expect_state:
            self.problem(f"returned {st}, state is {STATE_NAMES.get(new_state)}, expected "
                         f"{STATE_NAMES.get(expect_state)}")              # P5
        if st == DISCARD and (name != "doStep" or new_state != STEP_FAILED):
            self.problem(f"fmi2Discard from {name}, new state {STATE_NAMES.get(new_state)}")
        self.check_vrs(name, args, st, before, after, logs)                 # P8
        if st == PENDING:
            self.problem("fmi2Pending (fmi2DoStep is synchronous)")

    GETSET_TYPE = {"getReal": "Real", "getInteger": "Integer", "getBoolean": "Boolean",
                   "getString": "String", "setReal": "Real", "setInteger": "Integer",
                   "setBoolean": "Boolean", "setString": "String"}

    def check_vrs(self, name, args, st, before, after, logs):
        """P8: unknown (not in modelDescription.xml) or wrongly typed value references are
        refused on get exactly as on set."""
        typ = self.GETSET_TYPE.get(name)
        if typ is None:
            return
        if name.startswith("get"):
            vrs, null = args
        else:
            vrs, vals, null = args
            vrs = vrs[:min(len(vrs), len(vals))]
        if null or not vrs:
            return
        known = {v["vr"]: v["type"] for v in self.info["variables"]}
        bad = next((vr for vr in vrs if known.get(vr) != typ), None)
        if bad is None:
            return
        if st != ERROR:
            self.problem(f"value reference {bad} ({'not in the model description' if bad not in known else known[bad]}) "
                         f"accepted by {name} with status {st}")
        elif after != before:
            self.problem(f"{name} refused value reference {bad} but changed the instance")
        if bad not in known and not any(s >= ERROR and f"value reference {bad} " in m
                                        for s, _, m in logs):
            self.problem(f"{name}: the message does not name the unknown value reference {bad}: "
                         f"{[m for _, _, m in logs][-1:]}")

    def do_instantiate(self, ftype, variant):
        f = self.fmu
        nlog = len(f.log)
        if variant == "ok":
            if self.c is not None:
                return
            c = f.instantiate(ftype)
            if not c:
                self.problem("fmi2Instantiate returned NULL for valid arguments")
                return
            self.c, self.type = c, ftype
            self.trace.append(["instantiate", ftype, "instantiated"])
            return
        if variant == "badguid":
            c = f.instantiate(ftype, guid=b"{00000000-0000-0000-0000-000000000000}")
        elif variant == "emptyname":
            c = f.instantiate(ftype, name=b"")
        elif variant == "nullname":
            c = f.instantiate(ftype, name=None)
        elif variant == "nullguid":
            c = f.Instantiate(b"x", ftype, None, None, C.byref(f.callbacks), 0, 0)
        else:  # badtype
            c = f.instantiate(7)
        self.trace.append(["instantiate", variant, bool(c)])
        if c:
            self.problem(f"fmi2Instantiate({variant}) returned an instance")
            f.FreeInstance(c)
        if not any(s >= ERROR for s, _, _ in f.log[nlog:]):
            self.problem(f"fmi2Instantiate({variant}) did not log")       # P7

    def call(self, name, a, state, before):
        """Execute one FMI call; return (status, expected state on success or None)."""
        f, c = self.fmu, self.c
        nx, nz = self.info["nx"], self.info["nz"]
        same = state
        if name == "setDebugLogging":
            cats = (C.c_char_p * 3)(*[s.encode() for s in a[1]][:3])
            return f.SetDebugLogging(c, a[0], len(a[1][:3]), cats), same
        if name == "setupExperiment":
            return f.SetupExperiment(c, a[0], fnum(a[1]), fnum(a[2]), a[3], fnum(a[4])), same
        if name == "enterInit":
            return f.EnterInitializationMode(c), INIT
        if name == "exitInit":
            return f.ExitInitializationMode(c), (EVENT if self.type == ME else STEP_COMPLETE)
        if name == "terminate":
            return f.Terminate(c), TERMINATED
        if name == "reset":
            return f.Reset(c), INSTANTIATED
        if name in ("getReal", "getInteger", "getBoolean", "getString"):
            vrs, null = a
            ct = {"getReal": fmi2Real, "getInteger": fmi2Integer, "getBoolean": fmi2Boolean,
                  "getString": C.c_char_p}[name]
            out = (ct * max(len(vrs), 1))()
            fn = getattr(f, "Get" + name[3:])
            return fn(c, self._arr(fmi2VR, vrs, null), len(vrs), out), same
        if name in ("setReal", "setInteger", "setBoolean", "setString"):
            vrs, vals, null = a
            n = min(len(vrs), len(vals))
            if name == "setReal":
                arr = self._arr(fmi2Real, [fnum(v) for v in vals[:n]], null)
            elif name == "setString":
                arr = self._arr(C.c_char_p, [b"s"] * n, null)
            else:
                arr = self._arr(fmi2Integer, [int(v) for v in vals[:n]], null)
            fn = getattr(f, "Set" + name[3:])
            return fn(c, self._arr(fmi2VR, vrs[:n]), n, arr), same
        if name == "getFMUstate":
            slot = self.slots.setdefault(a[0], fmi2FMUstate())
            return f.GetFMUstate(c, C.byref(slot)), same
        if name == "setFMUstate":
            slot = self.slots.get(a[0])
            if slot is None or not slot.value:
                # a state of this FMU is required: use a foreign block instead
                junk = C.create_string_buffer(b"WCSFMUS\0" + bytes(200))
                self._keep = junk
                return f.SetFMUstate(c, C.cast(junk, C.c_void_p)), same
            blob = C.string_at(slot.value, len(before))
            return f.SetFMUstate(c, slot), parse_header(blob)["state"]
        if name == "freeFMUstate":
            slot = self.slots.pop(a[0], None)
            if slot is None:
                return f.FreeFMUstate(c, None), same
            return f.FreeFMUstate(c, C.byref(slot)), same
        if name == "serialize":
            slot = self.slots.get(a[0])
            if slot is None or not slot.value:
                size = C.c_size_t()
                return f.SerializedFMUstateSize(c, None, C.byref(size)), same
            size = C.c_size_t()
            st = f.SerializedFMUstateSize(c, slot, C.byref(size))
            if st != OK:
                return st, same
            buf = C.create_string_buffer(size.value)
            small = a[1]
            st = f.SerializeFMUstate(c, slot, buf, size.value - 1 if small else size.value)
            if st == OK and not small:
                self.blobs[a[0]] = buf.raw
            if small and st != ERROR:
                self.problem(f"fmi2SerializeFMUstate into a too small buffer returned {st}")
            return st, same
        if name == "deserialize":
            blob = self.blobs.get(a[0])
            if blob is None:
                blob = before      # the current snapshot is a valid serialized state
            mode, pos, xor = a[2], a[3], a[4]
            data = bytearray(blob)
            if mode == "flip":
                data[pos % len(data)] ^= (xor % 255) + 1
            elif mode == "truncate":
                data = data[: pos % len(data)]
            elif mode == "extend":
                data += bytes([xor % 256]) * (1 + pos % 16)
            buf = C.create_string_buffer(bytes(data), max(len(data), 1))
            slot = self.slots.setdefault(a[1], fmi2FMUstate())
            nlog = len(f.log)
            st = f.DeSerializeFMUstate(c, buf, len(data), C.byref(slot))
            if state & ANY:
                if mode in ("flip", "truncate") and st != ERROR:
                    self.problem(f"deserializing corrupted data ({mode} at {pos}) returned {st}")
                if mode in ("none", "extend"):
                    h = parse_header(blob)
                    if h["fmuType"] == self.type and st != OK:
                        self.problem(f"deserializing valid data returned {st}: "
                                     f"{f.log[nlog:][-1:]}")
                    if h["fmuType"] != self.type and st != ERROR:
                        self.problem(f"deserializing a state of the other FMU type returned {st}")
            return st, same
        if name == "getDirectionalDerivative":
            vr = (fmi2VR * 1)(0)
            d = (fmi2Real * 1)(1.0)
            return f.GetDirectionalDerivative(c, vr, 1, vr, 1, d, d), same
        if name == "setRealInputDerivatives":
            vr = (fmi2VR * 1)(0)
            return f.SetRealInputDerivatives(c, vr, 1, (fmi2Integer * 1)(1),
                                             (fmi2Real * 1)(0.0)), same
        if name == "getRealOutputDerivatives":
            vr = (fmi2VR * 1)(0)
            return f.GetRealOutputDerivatives(c, vr, 1, (fmi2Integer * 1)(1),
                                              (fmi2Real * 1)()), same
        if name == "enterEventMode":
            return f.EnterEventMode(c), EVENT
        if name == "newDiscreteStates":
            ei = EventInfo()
            return f.NewDiscreteStates(c, None if a[0] else C.byref(ei)), same
        if name == "enterCT":
            return f.EnterContinuousTimeMode(c), CT
        if name == "completedStep":
            b1, b2 = fmi2Boolean(), fmi2Boolean()
            if a[0]:
                return f.CompletedIntegratorStep(c, 1, None, None), same
            return f.CompletedIntegratorStep(c, 1, C.byref(b1), C.byref(b2)), same
        if name == "setTime":
            t = fnum(a[1])
            if a[0] == "rel":
                t += parse_header(before)["time"]
            return f.SetTime(c, t), same
        if name == "setStates":
            n = nx + a[0]
            vals = [fnum(v) for v in a[1]][: max(n, 0)]
            vals += [0.0] * (max(n, 0) - len(vals))
            return f.SetContinuousStates(c, self._arr(fmi2Real, vals, a[2]), max(n, 0)), same
        if name in ("getDerivatives", "getEventIndicators", "getStates", "getNominals"):
            n = max((nx if name != "getEventIndicators" else nz) + a[0], 0)
            out = (fmi2Real * max(n, 1))()
            fn = {"getDerivatives": f.GetDerivatives, "getStates": f.GetContinuousStates,
                  "getEventIndicators": f.GetEventIndicators,
                  "getNominals": f.GetNominalsOfContinuousStates}[name]
            return fn(c, None if a[1] else out, n), same
        if name == "doStep":
            mode, val, h = a
            t = parse_header(before)["time"]
            if mode == "cur":
                cp = t
            elif mode == "rel":          # t + val (val may be tiny: within 1e-9 or not)
                cp = t + fnum(val)
            else:
                cp = fnum(val)
            h = fnum(h)
            st = f.DoStep(c, cp, h, 1)
            # OK -> stepComplete; Discard -> stepFailed (checked in step())
            return st, STEP_COMPLETE
        if name == "cancelStep":
            return f.CancelStep(c), same
        if name.startswith("get") and name.endswith("Status"):
            kind, null = a
            out = {"getStatus": fmi2Status, "getRealStatus": fmi2Real,
                   "getIntegerStatus": fmi2Integer, "getBooleanStatus": fmi2Boolean,
                   "getStringStatus": C.c_char_p}[name]()
            fn = getattr(f, "G" + name[1:])
            return fn(c, kind, None if null else C.byref(out)), same
        raise ValueError(f"unknown op {name}")


def main():
    """Worker: argv[1] = extracted FMU directory; JSON sequences on stdin."""
    fmu = Fmu(read_info(Path(sys.argv[1])))
    runner = Runner(fmu)
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        seq = json.loads(line)
        fmu.log.clear()
        res = runner.run(seq)
        out.write(json.dumps(res, default=str) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
