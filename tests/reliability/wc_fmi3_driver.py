"""ctypes driver for wearcosim FMI 3.0 FMUs (issue 35): the FMI 3.0 port of wc_fmi_driver.py.

Two uses:

* imported: ``Fmu3`` -- a ctypes binding of one extracted FMI 3.0 FMU (every function of
  fmu/runtime/include/fmi3Functions.h with its FMI 3.0 signature, a collecting
  fmi3LogMessageCallback), and ``gen_sequence(info, seed, ncalls)`` -- the deterministic
  random call sequence of a seed;
* executed as a script: a fuzz WORKER.  It loads one extracted FMU and reads call sequences
  from stdin, one JSON document per line, executes each and answers with one JSON line
  ``{"ok": bool, "ncalls": n, "problems": [...], "trace": [...]}``.  The worker is a child
  process so that a crash (signal) or a hang of the FMU cannot take the test session down;
  the parent (test_fmi3_fuzz.py) detects EOF / a timeout and reports the seed and sequence.
  Replay one sequence:  python wc_fmi3_driver.py <extracted fmu dir> < seq.jsonl

Checked properties of every call (``problems`` lists violations):
  Q1 the return value is a valid fmi3Status (0..4);
  Q2 a call not allowed in the instance's state (the allowed-state masks of
     fmu/runtime/fmi3_face.c, FMI 3.0 sections 3.2 (ME) and 4.2 (CS)), a Model Exchange
     function on a Co-Simulation instance or vice versa, fmi3EnterEventMode on a CS instance
     without eventModeUsed, and the functions the FMU refuses (clocks, configuration mode,
     adjoints, per-element dependencies, types it has no variables of) return fmi3Error, log
     a message and leave the instance unchanged (byte-identical serialized FMU state);
  Q3 every fmi3Error / fmi3Fatal / fmi3Discard comes with a log message;
  Q4 an fmi3Error leaves the instance unchanged unless it moved to the state 'error';
  Q5 a successful call leads to the state the FMI 3.0 state machine prescribes; fmi3Discard
     only from fmi3DoStep, into 'stepDiscarded';
  Q6 deserializing corrupted data (a changed byte, truncation) returns fmi3Error; unmodified
     data of an instance of the same interface type deserializes;
  Q7 fmi3Instantiate* with a wrong token / empty name / NULL arguments /
     requiredIntermediateVariables, and fmi3InstantiateScheduledExecution, return NULL and log;
  Q8 fmi3Get*/fmi3Set* with a value reference not in modelDescription.xml, of another type,
     time or the event indicators on set, or nValues not the elements' number (array
     variables: wearDepth[36]) return fmi3Error and leave the instance unchanged; an unknown
     reference is named in the message;
  Q9 after the sequence, fmi3Reset and a valid start (initialization, one step or one
     integrator step) succeed: a refused call leaves the instance usable;
  Q10 after fmi3SetFMUState (OK) the instance serializes to the state that was set;
  Q11 values set with fmi3Set* (OK) read back with fmi3Get*, element-wise for arrays (the
      get is part of the "set" operation; it may fail, with a message, where the model
      cannot be evaluated with the values set).

The instance's state is read after every call from its FMU state (fmi3GetFMUState +
fmi3SerializeFMUState; RtStateHeader of rt_state.c, the core shared with FMI 2.0).
"""
from __future__ import annotations

import ctypes as C
import json
import math
import random
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

# ---------------------------------------------------------------------------------
# FMI 3.0 types (fmi3PlatformTypes.h)

fmi3Instance = C.c_void_p
fmi3FMUState = C.c_void_p
fmi3VR = C.c_uint32
fmi3Float64 = C.c_double
fmi3Float32 = C.c_float
fmi3Int32 = C.c_int32
fmi3Int64 = C.c_int64
fmi3UInt64 = C.c_uint64
fmi3Boolean = C.c_bool
fmi3Clock = C.c_bool
fmi3Byte = C.c_uint8
fmi3Status = C.c_int
P = C.POINTER
LOGGER = C.CFUNCTYPE(None, C.c_void_p, C.c_int, C.c_char_p, C.c_char_p)
CLOCK_UPDATE = C.CFUNCTYPE(None, C.c_void_p)
LOCK = C.CFUNCTYPE(None)
INTERMEDIATE = C.CFUNCTYPE(None, C.c_void_p, fmi3Float64, fmi3Boolean, fmi3Boolean, fmi3Boolean,
                           fmi3Boolean, P(fmi3Boolean), P(fmi3Float64))

OK, WARNING, DISCARD, ERROR, FATAL = range(5)

# instance states (rt_ctx.h RtState bits), with the FMI 3.0 names of fmi3_face.c
INSTANTIATED, INIT, EVENT, CT, STEP, STEP_IN_PROGRESS, STEP_DISCARDED, \
    STEP_CANCELED, TERMINATED, ERRORSTATE, FATALSTATE = (1 << i for i in range(11))
STATE_NAMES = {INSTANTIATED: "instantiated", INIT: "initializationMode", EVENT: "eventMode",
               CT: "continuousTimeMode", STEP: "stepMode", STEP_IN_PROGRESS: "stepInProgress",
               STEP_DISCARDED: "stepDiscarded", STEP_CANCELED: "stepCanceled",
               TERMINATED: "terminated", ERRORSTATE: "error", FATALSTATE: "fatal"}
ANY = (INSTANTIATED | INIT | EVENT | CT | STEP | STEP_DISCARDED | STEP_CANCELED | TERMINATED |
       ERRORSTATE)
ME, CS = 0, 1                      # RtStateHeader.fmuType (rt_core.h RT_TYPE_*)

# RtStateHeader (rt_state.c): char magic[8]; uint version,totalSize,nv,guidLen;
# int fmuType,state,stopDefined,toleranceDefined,terminateRequested,dirty,csEventPending;
# uint checksum; double time,lastSuccessfulTime,...
HDR = struct.Struct("<8s4I7iI6d")


def parse_header(blob: bytes) -> dict:
    f = HDR.unpack_from(blob, 0)
    return {"magic": f[0], "fmuType": f[5], "state": f[6], "time": f[13]}


# ---------------------------------------------------------------------------------
# allowed-state masks: fmi3_face.c M_* (FMI 3.0, 3.2 and 4.2), and the interface type
# a function needs (None: both)

M_SET = INSTANTIATED | INIT | EVENT | CT | STEP
M_DERIV = INIT | EVENT | CT | TERMINATED | ERRORSTATE
MASKS = {
    "setDebugLogging": (ANY, None), "enterInit": (INSTANTIATED, None),
    "exitInit": (INIT, None), "enterEventMode": (CT | STEP, None),
    "terminate": (EVENT | CT | STEP | STEP_DISCARDED, None), "reset": (ANY, None),
    "get": (ANY, None), "set": (M_SET, None), "getNoType": (ANY, None),
    "setNoType": (M_SET, None), "getBinary": (ANY, None), "setBinary": (M_SET, None),
    "getFMUState": (ANY, None), "setFMUState": (ANY, None), "freeFMUState": (ANY, None),
    "serialize": (ANY, None), "deserialize": (ANY, None),
    "dirDeriv": (ANY & ~INSTANTIATED & ~STEP_CANCELED, None),
    "outDeriv": (STEP | STEP_DISCARDED | TERMINATED | ERRORSTATE, CS),
    "updateDiscrete": (EVENT, None), "enterCT": (EVENT, ME), "completedStep": (CT, ME),
    "setTime": (CT, ME), "meEuler": (CT, ME), "setStates": (CT, ME), "getDerivatives": (M_DERIV, ME),
    "getEventIndicators": (M_DERIV, ME), "getStates": (M_DERIV, ME),
    "getNominals": (INSTANTIATED | M_DERIV, ME), "getNumbers": (ANY, None),
    "enterStepMode": (EVENT, CS), "doStep": (STEP, CS), "refused": (ANY, None),
}
# the functions fmi3_face.c refuses (REFUSED): any state, always fmi3Error
REFUSED = ["fmi3EnterConfigurationMode", "fmi3ExitConfigurationMode", "fmi3GetClock",
           "fmi3SetClock", "fmi3GetIntervalDecimal", "fmi3GetIntervalFraction",
           "fmi3GetShiftDecimal", "fmi3GetShiftFraction", "fmi3SetIntervalDecimal",
           "fmi3SetIntervalFraction", "fmi3SetShiftDecimal", "fmi3SetShiftFraction",
           "fmi3ActivateModelPartition", "fmi3EvaluateDiscreteStates",
           "fmi3GetAdjointDerivative", "fmi3GetNumberOfVariableDependencies",
           "fmi3GetVariableDependencies"]
NO_TYPES = ["Float32", "Int8", "UInt8", "Int16", "UInt16", "UInt32", "UInt64"]
NO_TYPE_C = {"Float32": C.c_float, "Int8": C.c_int8, "UInt8": C.c_uint8, "Int16": C.c_int16,
             "UInt16": C.c_uint16, "UInt32": C.c_uint32, "UInt64": C.c_uint64}
TYPES = ["Float64", "Int32", "Int64", "Boolean", "String"]
TYPE_C = {"Float64": fmi3Float64, "Int32": fmi3Int32, "Int64": fmi3Int64,
          "Boolean": fmi3Boolean, "String": C.c_char_p}
# the variable element type tags of modelDescription.xml a get/set function accepts
TYPE_TAGS = {"Float64": {"Float64"}, "Int32": {"Int32"}, "Int64": {"Enumeration", "Int64"},
             "Boolean": {"Boolean"}, "String": {"String"}}


def _protos():
    vr, sz, inst = P(fmi3VR), C.c_size_t, fmi3Instance
    s, b, f64 = fmi3Status, fmi3Boolean, fmi3Float64
    p = {
        "fmi3GetVersion": (C.c_char_p, []),
        "fmi3SetDebugLogging": (s, [inst, b, sz, P(C.c_char_p)]),
        "fmi3InstantiateModelExchange": (inst, [C.c_char_p, C.c_char_p, C.c_char_p, b, b,
                                                C.c_void_p, LOGGER]),
        "fmi3InstantiateCoSimulation": (inst, [C.c_char_p, C.c_char_p, C.c_char_p, b, b, b, b,
                                               vr, sz, C.c_void_p, LOGGER, INTERMEDIATE]),
        "fmi3InstantiateScheduledExecution": (inst, [C.c_char_p, C.c_char_p, C.c_char_p, b, b,
                                                     C.c_void_p, LOGGER, CLOCK_UPDATE, LOCK,
                                                     LOCK]),
        "fmi3FreeInstance": (None, [inst]),
        "fmi3EnterInitializationMode": (s, [inst, b, f64, f64, b, f64]),
        "fmi3ExitInitializationMode": (s, [inst]),
        "fmi3EnterEventMode": (s, [inst]),
        "fmi3Terminate": (s, [inst]),
        "fmi3Reset": (s, [inst]),
        "fmi3GetBinary": (s, [inst, vr, sz, P(sz), P(C.c_void_p), sz]),
        "fmi3SetBinary": (s, [inst, vr, sz, P(sz), P(C.c_void_p), sz]),
        "fmi3GetClock": (s, [inst, vr, sz, P(fmi3Clock)]),
        "fmi3SetClock": (s, [inst, vr, sz, P(fmi3Clock)]),
        "fmi3GetIntervalDecimal": (s, [inst, vr, sz, P(f64), P(C.c_int)]),
        "fmi3GetIntervalFraction": (s, [inst, vr, sz, P(fmi3UInt64), P(fmi3UInt64),
                                        P(C.c_int)]),
        "fmi3GetShiftDecimal": (s, [inst, vr, sz, P(f64)]),
        "fmi3GetShiftFraction": (s, [inst, vr, sz, P(fmi3UInt64), P(fmi3UInt64)]),
        "fmi3SetIntervalDecimal": (s, [inst, vr, sz, P(f64)]),
        "fmi3SetIntervalFraction": (s, [inst, vr, sz, P(fmi3UInt64), P(fmi3UInt64)]),
        "fmi3SetShiftDecimal": (s, [inst, vr, sz, P(f64)]),
        "fmi3SetShiftFraction": (s, [inst, vr, sz, P(fmi3UInt64), P(fmi3UInt64)]),
        "fmi3ActivateModelPartition": (s, [inst, fmi3VR, f64]),
        "fmi3EvaluateDiscreteStates": (s, [inst]),
        "fmi3EnterConfigurationMode": (s, [inst]),
        "fmi3ExitConfigurationMode": (s, [inst]),
        "fmi3GetAdjointDerivative": (s, [inst, vr, sz, vr, sz, P(f64), sz, P(f64), sz]),
        "fmi3GetNumberOfVariableDependencies": (s, [inst, fmi3VR, P(sz)]),
        "fmi3GetVariableDependencies": (s, [inst, fmi3VR, P(sz), vr, P(sz), P(C.c_int), sz]),
        "fmi3GetFMUState": (s, [inst, P(fmi3FMUState)]),
        "fmi3SetFMUState": (s, [inst, fmi3FMUState]),
        "fmi3FreeFMUState": (s, [inst, P(fmi3FMUState)]),
        "fmi3SerializedFMUStateSize": (s, [inst, fmi3FMUState, P(sz)]),
        "fmi3SerializeFMUState": (s, [inst, fmi3FMUState, P(fmi3Byte), sz]),
        "fmi3DeserializeFMUState": (s, [inst, P(fmi3Byte), sz, P(fmi3FMUState)]),
        "fmi3GetDirectionalDerivative": (s, [inst, vr, sz, vr, sz, P(f64), sz, P(f64), sz]),
        "fmi3GetOutputDerivatives": (s, [inst, vr, sz, P(fmi3Int32), P(f64), sz]),
        "fmi3UpdateDiscreteStates": (s, [inst, P(b), P(b), P(b), P(b), P(b), P(f64)]),
        "fmi3EnterContinuousTimeMode": (s, [inst]),
        "fmi3CompletedIntegratorStep": (s, [inst, b, P(b), P(b)]),
        "fmi3SetTime": (s, [inst, f64]),
        "fmi3SetContinuousStates": (s, [inst, P(f64), sz]),
        "fmi3GetContinuousStateDerivatives": (s, [inst, P(f64), sz]),
        "fmi3GetEventIndicators": (s, [inst, P(f64), sz]),
        "fmi3GetContinuousStates": (s, [inst, P(f64), sz]),
        "fmi3GetNominalsOfContinuousStates": (s, [inst, P(f64), sz]),
        "fmi3GetNumberOfEventIndicators": (s, [inst, P(sz)]),
        "fmi3GetNumberOfContinuousStates": (s, [inst, P(sz)]),
        "fmi3EnterStepMode": (s, [inst]),
        "fmi3DoStep": (s, [inst, f64, f64, b, P(b), P(b), P(b), P(f64)]),
    }
    for t, ct in list(TYPE_C.items()) + list(NO_TYPE_C.items()):
        p["fmi3Get" + t] = (s, [inst, vr, sz, P(ct), sz])
        p["fmi3Set" + t] = (s, [inst, vr, sz, P(ct), sz])
    return p


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
    """What the driver needs of an extracted FMI 3.0 FMU: library, token, variables (value
    reference, type tag, causality, variability, element count), N_X, N_Z."""
    unzipped = Path(unzipped)
    root = ET.parse(unzipped / "modelDescription.xml").getroot()
    assert root.get("fmiVersion") == "3.0", root.get("fmiVersion")
    ident = root.find("CoSimulation").get("modelIdentifier")
    cfg = (unzipped / "sources" / "config.h").read_text()
    nx = int(re.search(r"#define\s+N_X\s+(\d+)", cfg).group(1))
    variables = []
    for v in root.find("ModelVariables"):
        count = 1
        for d in v.findall("Dimension"):
            count *= int(d.get("start"))
        variables.append({"name": v.get("name"), "vr": int(v.get("valueReference")),
                          "type": v.tag, "causality": v.get("causality", "local"),
                          "variability": v.get("variability", "continuous"), "count": count})
    ez = [v for v in variables if v["name"] == "_eventIndicator"]
    nz = ez[0]["count"] if ez else 0
    states = [int(e.get("derivative")) for e in root.find("ModelVariables")
              if e.get("derivative") is not None]
    ms = root.find("ModelStructure")
    outputs = [int(e.get("valueReference")) for e in ms.findall("Output")]
    derivs = [int(e.get("valueReference")) for e in ms.findall("ContinuousStateDerivative")]
    exp = root.find("DefaultExperiment")
    return {"so": str(unzipped / "binaries" / "x86_64-linux" / (ident + ".so")),
            "token": root.get("instantiationToken"), "identifier": ident,
            "nx": nx, "nz": nz, "variables": variables, "states": states,
            "outputs": outputs, "derivs": derivs,
            "stopTime": float(exp.get("stopTime", "1")) if exp is not None else 1.0}


class Fmu3:
    """ctypes binding of one FMI 3.0 FMU shared library plus a collecting logger."""

    def __init__(self, info: dict):
        self.info = info
        self.lib = C.CDLL(info["so"])
        for name, (res, args) in _protos().items():
            f = getattr(self.lib, name)
            f.restype = res
            f.argtypes = args
            setattr(self, name[4:], f)   # self.DoStep, self.GetFloat64, ...
        self.log = []                    # (status, category, message)

        def logger(env, status, category, message):
            self.log.append((status, (category or b"").decode(errors="replace"),
                             (message or b"").decode(errors="replace")))
        self._logger = LOGGER(logger)

    def instantiate(self, kind=CS, name=b"inst", token=None, event_mode=False,
                    early_return=False, logging_on=False, resource=b"file:///tmp/"):
        token = self.info["token"].encode() if token is None else token
        if kind == ME:
            return self.InstantiateModelExchange(name, token, resource, False, logging_on, None,
                                                 self._logger)
        return self.InstantiateCoSimulation(name, token, resource, False, logging_on,
                                            event_mode, early_return, None, 0, None,
                                            self._logger, INTERMEDIATE())


# ---------------------------------------------------------------------------------
# random sequences (deterministic in the seed)

NAN, INF = float("nan"), float("inf")
SPECIAL = [0.0, -0.0, 0.5, 1.0, -1.0, 2.0, 1e-320, 1e308, -1e308, 1e100, NAN, INF, -INF]


def fjson(x):
    """JSON-safe float: nan / inf / -inf as strings."""
    return repr(x) if isinstance(x, float) and not math.isfinite(x) else x


def fnum(x):
    return float(x)


def prefix(info, rng) -> list:
    """A legal opening: instantiate (ME, or CS with random eventModeUsed/earlyReturnAllowed)
    and bring the instance into a random state."""
    stop = info["stopTime"]
    kind = rng.choice([ME, CS])
    emu, era = rng.random() < 0.5, rng.random() < 0.5
    p = [["instantiate", kind, "ok", emu, era]]
    depth = rng.choice(["none", "init", "ready", "running", "running", "terminated"] +
                       (["discarded"] if kind == CS and info["identifier"] == "BouncingBall"
                        else []))
    if depth == "none":
        return p
    # without a stop time a step may go on to the bouncing ball's Zeno point
    p.append(["enterInit", False, 0.0, 0.0, depth != "discarded" and rng.random() < 0.7, stop])
    if depth == "init":
        return p
    p.append(["exitInit"])
    if depth == "ready":
        return p
    if kind == ME:
        p += [["updateDiscrete", False], ["enterCT"], ["setTime", "rel", 0.01 * stop],
              ["completedStep", False]]
    else:
        if emu:
            p += [["updateDiscrete", False], ["enterStepMode"]]
        p += [["doStep", "cur", 0.0, 0.05 * stop, False], ["doStep", "cur", 0.0, 0.05 * stop,
                                                           False]]
    if depth == "terminated":
        p.append(["terminate"])
    elif depth == "discarded":          # fmi3Discard at the Zeno point: 'stepDiscarded'
        p.append(["doStep", "cur", 0.0, 1e300, False])
    return p


def random_op(info, rng) -> list:
    stop = info["stopTime"]
    nvar = len(info["variables"])
    r = rng.random

    def vrs():
        out = []
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
            out.append(rng.choice([rng.randrange(nvar)] * 6 + [nvar, nvar + 1, 2**32 - 1]))
        return out

    def vrs_of(typ):
        ok = [v["vr"] for v in info["variables"] if v["type"] in TYPE_TAGS[typ]
              and v["name"] not in ("time", "_eventIndicator")]
        return [rng.choice(ok) for _ in range(rng.choice([1, 1, 2]))] if ok else []

    def val():
        return fjson(rng.choice(SPECIAL) if r() < 0.4 else rng.uniform(-1e3, 1e3))
    dn = lambda: rng.choice([0, 0, 0, 0, -1, 1, 35])           # nValues off by ...
    null = lambda: r() < 0.1
    steps = [0.0, 1e-9 * stop, 0.01 * stop, 0.1 * stop, 0.3 * stop, -0.1 * stop, NAN, INF]
    if info["identifier"] == "BouncingBall":
        steps += [1e6, 1e300]                     # ends at the Zeno point: fmi3Discard
    ops = [
        lambda: ["instantiate", rng.choice([ME, CS]),
                 rng.choice(["ok", "badtoken", "nulltoken", "emptyname", "nullname",
                             "intermediate", "scheduled"]), r() < 0.5, r() < 0.5],
        lambda: ["free"],
        lambda: ["setDebugLogging", r() < 0.5,
                 rng.sample(["logEvents", "logAll", "logStatusError", "bogus"], rng.randrange(3)),
                 null()],
        lambda: ["enterInit", r() < 0.5, fjson(rng.choice([1e-6, 0.0, -1.0, NAN])),
                 fjson(rng.choice([0.0, 0.0, 1.0, -5.0, NAN, INF])), r() < 0.7,
                 fjson(rng.choice([stop, stop, 0.0, 1e9, NAN, -1.0]))],
        lambda: ["exitInit"], lambda: ["enterEventMode"], lambda: ["terminate"],
        lambda: ["reset"], lambda: ["enterCT"], lambda: ["enterStepMode"],
        lambda: ["updateDiscrete", null()],
        lambda: ["get", rng.choice(TYPES), vrs(), dn(), null()],
        lambda: ["get", "Float64", vrs(), dn(), null()],
        lambda: ["set", rng.choice(TYPES), vrs(), [val() for _ in range(40)], dn(), null()],
        lambda: ["set", "Float64", vrs(), [val() for _ in range(40)], dn(), null()],
        lambda: (lambda t: ["set", t, vrs_of(t), [val() for _ in range(40)], 0, False])(
            rng.choice(["Float64", "Float64", "Int32", "Int64", "Boolean"])),
        lambda: (lambda t: ["get", t, vrs_of(t), 0, False])(rng.choice(TYPES)),
        lambda: ["meEuler", fjson(rng.choice([1e-3, 1e-2, 0.05, 0.2]) * stop)],
        lambda: ["meEuler", fjson(rng.choice([1e-3, 1e-2, 0.05, 0.2]) * stop)],
        lambda: ["getNoType", rng.choice(NO_TYPES), rng.choice([0, 1])],
        # with one reference (always refused); with none see test_fmi3_fuzz.py's xfail
        lambda: ["setNoType", rng.choice(NO_TYPES), 1],
        lambda: [rng.choice(["getBinary", "setBinary"]), rng.choice([0, 1])],
        lambda: ["getFMUState", rng.randrange(3)], lambda: ["setFMUState", rng.randrange(4)],
        lambda: ["freeFMUState", rng.randrange(4)],
        lambda: ["serialize", rng.randrange(3), rng.choice([False, False, True])],
        lambda: ["deserialize", rng.randrange(3), rng.randrange(3),
                 rng.choice(["none", "flip", "flip", "truncate", "extend"]),
                 rng.randrange(8192), rng.randrange(255)],
        lambda: ["dirDeriv", rng.choice(["ok", "ok", "badvr", "badn", "nan"])],
        lambda: ["outDeriv", rng.choice(["ok", "ok", "badvr", "badn", "nullorders"])],
        lambda: ["completedStep", null()],
        lambda: ["setTime", rng.choice(["rel", "rel", "abs"]),
                 fjson(rng.choice([0.0, 1e-3 * stop, 0.1 * stop, -0.1 * stop, NAN, INF]))],
        lambda: ["setStates", rng.choice([0, 0, 0, -1, 1]), [val() for _ in range(4)], null()],
        lambda: [rng.choice(["getDerivatives", "getEventIndicators", "getStates",
                             "getNominals"]), rng.choice([0, 0, 0, -1, 1]), null()],
        lambda: ["getNumbers", rng.choice(["x", "z"]), null()],
        lambda: ["doStep", rng.choice(["cur", "cur", "cur", "rel", "abs"]),
                 fjson(rng.choice([1e-12, -1e-12, 1e-8, -1e-3, 0.5, NAN, INF])),
                 fjson(rng.choice(steps)), r() < 0.5],
        lambda: ["doStep", "cur", 0.0, fjson(rng.choice(steps[1:5])), r() < 0.5],
        lambda: ["doStepNull"],
        lambda: ["refused", rng.choice(REFUSED)],
    ]
    return rng.choice(ops)()


def gen_sequence(info: dict, seed: int, ncalls: int) -> list:
    """The call sequence of a seed: a legal prefix and up to ncalls random calls."""
    rng = random.Random(seed)
    return prefix(info, rng) + [random_op(info, rng) for _ in range(rng.randint(1, ncalls))]


# ---------------------------------------------------------------------------------
# the runner

class Runner:
    """Executes one call sequence against a loaded Fmu3 and checks Q1..Q9."""

    def __init__(self, fmu: Fmu3):
        self.fmu = fmu
        self.info = fmu.info
        self.vars = {v["vr"]: v for v in self.info["variables"]}
        floats = [v for v in self.info["variables"] if v["type"] == "Float64"
                  and v["name"] not in ("time", "_eventIndicator")]
        self.float_vr = floats[-1]["vr"]
        fl = {v["vr"] for v in floats}
        outs = [v for v in self.info["outputs"] if v in fl]
        ins = [v["vr"] for v in floats if v["causality"] == "input"]
        ins = sorted(ins, key=lambda v: -self.vars[v]["count"])   # the array input first
        # directional derivatives: of a state derivative or output (an array where there is
        # one) with respect to a state or an input
        self.unknown_vr = (self.info["derivs"] + outs + [self.float_vr])[0]
        self.known_vr = (self.info["states"] + ins + [floats[0]["vr"]])[0]
        self.out_vr = (outs or [floats[0]["vr"]])[0]

    # -- helpers ------------------------------------------------------------------
    def _snap(self):
        if self.c is None:
            return None
        f = self.fmu
        s = fmi3FMUState()
        st = f.GetFMUState(self.c, C.byref(s))
        if st != OK:
            return None
        try:
            size = C.c_size_t()
            st = f.SerializedFMUStateSize(self.c, s, C.byref(size))
            buf = (fmi3Byte * max(size.value, 1))()
            st2 = f.SerializeFMUState(self.c, s, buf, size.value)
            if st != OK or st2 != OK:
                self.problem(f"snapshot: size/serialize returned {st}/{st2}")
                return None
            return bytes(buf)[: size.value]
        finally:
            f.FreeFMUState(self.c, C.byref(s))

    def problem(self, msg):
        self.problems.append(f"call #{self.k} {self.cur}: {msg}")

    @staticmethod
    def _arr(ctype, values, null=False):
        if null:
            return None
        return (ctype * max(len(values), 1))(*values)

    def _free_instance(self):
        if self.c is not None:
            for s in self.slots.values():
                if s.value:
                    st = self.fmu.FreeFMUState(self.c, C.byref(s))
                    if st != OK:
                        self.problem(f"fmi3FreeFMUState of a slot at cleanup returned {st}")
            self.slots.clear()
            self.fmu.FreeInstance(self.c)
            self.c = None

    # -- main ---------------------------------------------------------------------
    def run(self, seq, recover=True):
        self.c = None
        self.type = None
        self.emu = self.era = False
        self.events = {}
        self.slots = {}
        self.blobs = {}
        self.problems = []
        self.trace = []
        try:
            for self.k, op in enumerate(seq):
                self.cur = op[0]
                self.step(op)
                if len(self.problems) >= 5:
                    break
            self.k, self.cur = len(seq), "recovery"
            if recover and not self.problems and self.c is not None:
                self.recover()
        finally:
            self.cur = "cleanup"
            self._free_instance()
        return {"ok": not self.problems, "ncalls": len(seq), "problems": self.problems,
                "trace": self.trace, "events": self.events}

    def recover(self):
        """Q9: fmi3Reset and a valid start work whatever the sequence did before."""
        seq = [["reset"], ["enterInit", False, 0.0, 0.0, True, self.info["stopTime"]],
               ["exitInit"]]
        if self.type == ME:
            seq += [["updateDiscrete", False], ["enterCT"],
                    ["setTime", "rel", 1e-3 * self.info["stopTime"]], ["completedStep", False],
                    ["get", "Float64", [self.float_vr], 0, False]]
        else:
            if self.emu:
                seq += [["updateDiscrete", False], ["enterStepMode"]]
            seq += [["doStep", "cur", 0.0, 1e-3 * self.info["stopTime"], False],
                    ["get", "Float64", [self.float_vr], 0, False]]
        for op in seq:
            self.cur = "recovery " + op[0]
            n = len(self.trace)
            self.step(op)
            st = self.trace[n][1] if len(self.trace) > n else None
            if st not in (OK, WARNING):
                self.problem(f"the instance is not usable after the sequence: {op} returned "
                             f"{st}: {[m for _, _, m in self.fmu.log[-2:]]}")
                return

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
            return
        before = self._snap()
        if before is None:
            self.problem("fmi3GetFMUState failed (the instance is not alive)")
            return
        state = parse_header(before)["state"]
        mask, only = MASKS["doStep" if name == "doStepNull" else name]
        illegal = not (state & mask) or (only is not None and only != self.type)
        refused = self.always_error(name, args)
        nlog = len(f.log)
        self._slot_blob = None
        st, expect = self.call(name, args, state, before)
        after = self._snap()
        new_state = parse_header(after)["state"] if after else None
        self.trace.append([name, st, STATE_NAMES.get(new_state, new_state)])
        logs = f.log[nlog:]
        logged = any(s >= DISCARD for s, _, _ in logs)
        if not (isinstance(st, int) and 0 <= st <= 4):                       # Q1
            self.problem(f"returned invalid status {st!r}")
            return
        if st >= DISCARD and not logged:                                      # Q3
            self.problem(f"returned {st} without a log message")
        if illegal or refused:                                                # Q2
            why = (f"illegal in state {STATE_NAMES.get(state, state)}" if illegal
                   else f"must be refused ({refused})")
            if st != ERROR:
                self.problem(f"{why} but returned {st} (expected fmi3Error)")
            elif after != before:
                self.problem(f"{why}: refused, but the instance changed "
                             f"({STATE_NAMES.get(state)} -> {STATE_NAMES.get(new_state)})")
            return
        if st == ERROR and after is not None and after != before and new_state != ERRORSTATE:
            self.problem("fmi3Error changed the instance but did not move it to 'error' "
                         f"(state {STATE_NAMES.get(new_state)})")                # Q4
        if st in (OK, WARNING) and expect is not None and new_state != expect:   # Q5
            self.problem(f"returned {st}, state is {STATE_NAMES.get(new_state)}, expected "
                         f"{STATE_NAMES.get(expect)}")
        if st == DISCARD and (name != "doStep" or new_state != STEP_DISCARDED):
            self.problem(f"fmi3Discard from {name}, new state {STATE_NAMES.get(new_state)}")
        if st == FATAL:
            self.problem("fmi3Fatal")
        if name in ("get", "set"):
            self.check_vrs(name, args, st, logs)
        if name == "set" and st == OK:
            self.check_round_trip(args)
        if name == "setFMUState" and st == OK and self._slot_blob is not None:
            if after != self._slot_blob:                                    # Q10
                self.problem("after fmi3SetFMUState the instance's serialized state differs "
                             "from the state set")

    def check_round_trip(self, a):
        """Q11: values set with fmi3Set* (OK) read back element-wise with fmi3Get*."""
        typ, vrs, vals = a[0], a[1], a[2]
        if typ == "String" or not vrs:
            return
        n = self._elements(vrs)
        raw = (vals * (n // len(vals) + 1))[:n]
        ct = TYPE_C[typ]
        out = (ct * n)()
        nlog = len(self.fmu.log)
        st = getattr(self.fmu, "Get" + typ)(self.c, self._arr(fmi3VR, vrs), len(vrs), out, n)
        if st != OK:
            # the get evaluates the model, which may fail for the values set (y = 1e308:
            # "der(y) is not finite", fmi3Error, state 'error'): allowed, with a message
            if not any(s_ >= DISCARD for s_, _, _ in self.fmu.log[nlog:]):
                self.problem(f"fmi3Get{typ} of the references just set returned {st} "
                             "without a log message")
            return
        # a reference repeated: the last set value of each element wins
        want, e = {}, 0
        for v in vrs:
            for k in range(self.vars[v]["count"]):
                want[(v, k)] = raw[e]
                e += 1
        e = 0
        for v in vrs:
            for k in range(self.vars[v]["count"]):
                x, got = fnum(want[(v, k)]), out[e]
                e += 1
                if typ == "Float64":
                    same = (math.isnan(x) and math.isnan(got)) or x == got
                elif typ == "Boolean":
                    same = bool(got) == (bool(x) if not math.isnan(x) else True)
                else:
                    same = got == (int(max(-2**31, min(2**31 - 1, x))) if math.isfinite(x)
                                   else 0)
                if not same:
                    self.problem(f"fmi3Set{typ} of value reference {v} element {k}: set "
                                 f"{x!r}, read back {got!r}")
                    return

    def _elements(self, vrs):
        return sum(self.vars[v]["count"] if v in self.vars else 1 for v in vrs)

    def always_error(self, name, a):
        """Why the call must give fmi3Error whatever the state, or None."""
        if name == "refused":
            return a[0]
        if name == "doStepNull":
            return "NULL output arguments"
        if name in ("getNoType", "setNoType", "getBinary", "setBinary"):
            return "no variables of the type" if a[-1] > 0 else None
        if name == "enterEventMode" and self.type == CS and not self.emu:
            return "eventModeUsed = false"
        if name in ("updateDiscrete", "completedStep", "setDebugLogging") and a[-1]:
            return "NULL pointer argument"
        if name in ("getNumbers",) and a[1]:
            return "NULL pointer argument"
        if name in ("get", "set"):
            return self.bad_refs(name, a)
        if name == "dirDeriv" and a[0] in ("badvr", "badn"):
            return a[0]
        if name == "outDeriv" and a[0] in ("badvr", "badn", "nullorders"):
            return a[0]
        return None

    def bad_refs(self, name, a):
        typ, vrs, dn, null = a[0], a[1], a[-2], a[-1]
        n = self._elements(vrs) + dn
        if n < 0:
            return None          # not called (see call)
        if null and (vrs or n > 0):
            return "NULL pointer argument"
        for v in vrs:
            w = self.vars.get(v)
            if w is None:
                return f"unknown value reference {v}"
            if w["type"] not in TYPE_TAGS[typ]:
                return f"value reference {v} of type {w['type']}"
            if name == "set" and w["name"] in ("time", "_eventIndicator"):
                return f"{w['name']} cannot be set"
        if dn != 0:
            return "nValues is not the elements' number"
        return None

    def check_vrs(self, name, a, st, logs):
        """Q8: an unknown value reference is named in the message."""
        if st != ERROR or a[-1]:
            return
        unknown = [v for v in a[1] if v not in self.vars]
        if not unknown:
            return
        if not any(f"value reference {unknown[0]} " in m for s, _, m in logs if s >= ERROR):
            self.problem(f"{name}: the message does not name the unknown value reference "
                         f"{unknown[0]}: {[m for _, _, m in logs][-1:]}")

    def do_instantiate(self, kind, variant, emu=False, era=False):
        f = self.fmu
        nlog = len(f.log)
        if variant == "ok":
            if self.c is not None:
                return
            c = f.instantiate(kind, event_mode=emu, early_return=era)
            if not c:
                self.problem(f"fmi3Instantiate returned NULL for valid arguments: {f.log[-2:]}")
                return
            self.c, self.type = c, kind
            self.emu, self.era = bool(emu) and kind == CS, bool(era) and kind == CS
            self.trace.append(["instantiate", kind, "instantiated"])
            return
        if variant == "badtoken":
            c = f.instantiate(kind, token=b"{00000000-0000-0000-0000-000000000000}")
        elif variant == "nulltoken":
            c = f.instantiate(kind, token=b"") if kind == ME else \
                f.InstantiateCoSimulation(b"x", None, None, False, False, False, False, None, 0,
                                          None, f._logger, INTERMEDIATE())
        elif variant == "emptyname":
            c = f.instantiate(kind, name=b"")
        elif variant == "nullname":
            c = f.instantiate(kind, name=None)
        elif variant == "intermediate":
            vr = (fmi3VR * 1)(1)
            c = f.InstantiateCoSimulation(b"x", f.info["token"].encode(), None, False, False,
                                          True, True, vr, 1, None, f._logger, INTERMEDIATE())
        else:  # scheduled
            c = f.InstantiateScheduledExecution(b"x", f.info["token"].encode(), None, False,
                                                False, None, f._logger, CLOCK_UPDATE(), LOCK(),
                                                LOCK())
        self.trace.append(["instantiate", variant, bool(c)])
        if c:                                                               # Q7
            self.problem(f"fmi3Instantiate({variant}) returned an instance")
            f.FreeInstance(c)
        if not any(s >= ERROR for s, _, _ in f.log[nlog:]):
            self.problem(f"fmi3Instantiate({variant}) did not log")

    # -- one call -----------------------------------------------------------------
    def call(self, name, a, state, before):
        """Execute one FMI 3.0 call; return (status, expected state on success or None)."""
        f, c = self.fmu, self.c
        nx, nz = self.info["nx"], self.info["nz"]
        same = state
        B = fmi3Boolean
        if name == "setDebugLogging":
            cats = [s.encode() for s in a[1]]
            arr = None if a[2] else (C.c_char_p * max(len(cats), 1))(*cats)
            return f.SetDebugLogging(c, a[0], len(cats) if not a[2] else 1, arr), same
        if name == "enterInit":
            return f.EnterInitializationMode(c, a[0], fnum(a[1]), fnum(a[2]), a[3],
                                             fnum(a[4])), INIT
        if name == "exitInit":
            return f.ExitInitializationMode(c), (EVENT if self.type == ME or self.emu else STEP)
        if name == "enterEventMode":
            return f.EnterEventMode(c), EVENT
        if name == "terminate":
            return f.Terminate(c), TERMINATED
        if name == "reset":
            return f.Reset(c), INSTANTIATED
        if name == "enterCT":
            return f.EnterContinuousTimeMode(c), CT
        if name == "enterStepMode":
            return f.EnterStepMode(c), STEP
        if name == "updateDiscrete":
            if a[0]:
                return f.UpdateDiscreteStates(c, None, None, None, None, None, None), same
            bs = [B() for _ in range(5)]
            t = fmi3Float64()
            return f.UpdateDiscreteStates(c, *[C.byref(x) for x in bs], C.byref(t)), same
        if name in ("get", "set"):
            typ, vrs, dn, null = a[0], a[1], a[-2], a[-1]
            n = self._elements(vrs) + dn
            if n < 0:
                return self._noop(name)
            ct = TYPE_C[typ]
            vra = self._arr(fmi3VR, vrs)
            if name == "get":
                out = None if null else (ct * max(n, 1))()
                return getattr(f, "Get" + typ)(c, vra, len(vrs), out, n), same
            raw = (a[2] * (n // len(a[2]) + 1))[:n]
            if typ == "Float64":
                vals = [fnum(v) for v in raw]
            elif typ == "String":
                vals = [b"s" if isinstance(v, str) else None for v in raw]
            elif typ == "Boolean":
                vals = [bool(fnum(v)) if not math.isnan(fnum(v)) else True for v in raw]
            else:
                vals = [int(max(-2**31, min(2**31 - 1, fnum(v)))) if math.isfinite(fnum(v))
                        else 0 for v in raw]
            return getattr(f, "Set" + typ)(c, vra, len(vrs), self._arr(ct, vals, null), n), same
        if name in ("getNoType", "setNoType"):
            typ, nvr = a
            vra = (fmi3VR * 1)(1)
            arr = (NO_TYPE_C[typ] * 1)()
            fn = getattr(f, ("Get" if name == "getNoType" else "Set") + typ)
            return fn(c, vra, nvr, arr, nvr), same
        if name in ("getBinary", "setBinary"):
            vra = (fmi3VR * 1)(1)
            sizes = (C.c_size_t * 1)(1)
            vals = (C.c_void_p * 1)()
            fn = f.GetBinary if name == "getBinary" else f.SetBinary
            return fn(c, vra, a[0], sizes, vals, a[0]), same
        if name == "refused":
            return self._refused(a[0]), same
        if name == "getFMUState":
            slot = self.slots.setdefault(a[0], fmi3FMUState())
            return f.GetFMUState(c, C.byref(slot)), same
        if name == "setFMUState":
            slot = self.slots.get(a[0])
            if a[0] == 3:
                return f.SetFMUState(c, None), same
            if slot is None or not slot.value:
                junk = C.create_string_buffer(b"WCSFMUS\0" + bytes(200))  # not a state of ours
                self._keep = junk
                return f.SetFMUState(c, C.cast(junk, C.c_void_p)), same
            size = C.c_size_t()
            f.SerializedFMUStateSize(c, slot, C.byref(size))
            buf = (fmi3Byte * max(size.value, 1))()
            f.SerializeFMUState(c, slot, buf, size.value)
            self._slot_blob = bytes(buf)[: size.value]
            return f.SetFMUState(c, slot), parse_header(self._slot_blob)["state"]
        if name == "freeFMUState":
            if a[0] == 3:
                return f.FreeFMUState(c, None), same
            slot = self.slots.pop(a[0], None)
            if slot is None:
                slot = fmi3FMUState()      # *FMUState == NULL: nothing to free (FMI 3.0)
            return f.FreeFMUState(c, C.byref(slot)), same
        if name == "serialize":
            slot = self.slots.get(a[0])
            size = C.c_size_t()
            if slot is None or not slot.value:
                return f.SerializedFMUStateSize(c, None, C.byref(size)), same
            st = f.SerializedFMUStateSize(c, slot, C.byref(size))
            if st != OK:
                return st, same
            small = a[1]
            buf = (fmi3Byte * max(size.value, 1))()
            st = f.SerializeFMUState(c, slot, buf, size.value - 1 if small else size.value)
            if st == OK and not small:
                self.blobs[a[0]] = bytes(buf)[: size.value]
            if small and st != ERROR:
                self.problem(f"fmi3SerializeFMUState into a too small buffer returned {st}")
            return st, same
        if name == "deserialize":
            blob = self.blobs.get(a[0], before)
            mode, pos, xor = a[2], a[3], a[4]
            data = bytearray(blob)
            if mode == "flip":
                data[pos % len(data)] ^= (xor % 255) + 1
            elif mode == "truncate":
                data = data[: pos % len(data)]
            elif mode == "extend":
                data += bytes([xor % 256]) * (1 + pos % 16)
            buf = (fmi3Byte * max(len(data), 1)).from_buffer_copy(bytes(data) or b"\0")
            slot = self.slots.setdefault(a[1], fmi3FMUState())
            nlog = len(f.log)
            st = f.DeserializeFMUState(c, buf, len(data), C.byref(slot))
            if mode in ("flip", "truncate") and st != ERROR:                     # Q6
                self.problem(f"deserializing corrupted data ({mode} at {pos}) returned {st}")
            if mode in ("none", "extend"):
                h = parse_header(blob)
                if h["fmuType"] == self.type and st != OK:
                    self.problem(f"deserializing valid data returned {st}: {f.log[nlog:][-1:]}")
            return st, same
        if name == "dirDeriv":
            unk = [self.unknown_vr] if a[0] != "badvr" else [0]
            kn = [self.known_vr]
            n_unk = self._elements(unk) + (1 if a[0] == "badn" else 0)
            n_kn = self._elements(kn)
            seed = (fmi3Float64 * max(n_kn, 1))(*([NAN if a[0] == "nan" else 1.0] * n_kn))
            sens = (fmi3Float64 * max(n_unk, 1))()
            return f.GetDirectionalDerivative(c, self._arr(fmi3VR, unk), 1,
                                              self._arr(fmi3VR, kn), 1, seed, n_kn, sens,
                                              n_unk), same
        if name == "outDeriv":
            vr = [self.out_vr] if a[0] != "badvr" else [len(self.vars) + 5]
            n = self._elements(vr) + (1 if a[0] == "badn" else 0)
            orders = None if a[0] == "nullorders" else (fmi3Int32 * 1)(1)
            out = (fmi3Float64 * max(n, 1))()
            return f.GetOutputDerivatives(c, self._arr(fmi3VR, vr), 1, orders, out, n), same
        if name == "completedStep":
            if a[0]:
                return f.CompletedIntegratorStep(c, True, None, None), same
            b1, b2 = B(), B()
            return f.CompletedIntegratorStep(c, True, C.byref(b1), C.byref(b2)), same
        if name == "setTime":
            t = fnum(a[1]) + (parse_header(before)["time"] if a[0] == "rel" else 0.0)
            return f.SetTime(c, t), same
        if name == "meEuler":
            # a legal explicit Euler step of the importer: fmi3SetTime, the derivatives, the
            # states, fmi3SetContinuousStates, fmi3CompletedIntegratorStep, and event mode if
            # an event indicator changed sign (the worst status of the calls is returned)
            t = parse_header(before)["time"]
            st = f.SetTime(c, t + fnum(a[0]))
            if st != OK:
                return st, same
            z0 = (fmi3Float64 * max(nz, 1))()
            z1 = (fmi3Float64 * max(nz, 1))()
            x = (fmi3Float64 * max(nx, 1))()
            dx = (fmi3Float64 * max(nx, 1))()
            sts = [f.GetEventIndicators(c, z0, nz), f.GetContinuousStates(c, x, nx),
                   f.GetContinuousStateDerivatives(c, dx, nx)]
            if max(sts) > WARNING:
                return max(sts), None
            for i in range(nx):
                x[i] += fnum(a[0]) * dx[i]
            b1, b2 = B(), B()
            sts += [f.SetContinuousStates(c, x, nx),
                    f.CompletedIntegratorStep(c, True, C.byref(b1), C.byref(b2)),
                    f.GetEventIndicators(c, z1, nz)]
            if max(sts) > WARNING:
                return max(sts), None
            if any((z0[i] > 0) != (z1[i] > 0) for i in range(nz)):
                self.events["meEvents"] = self.events.get("meEvents", 0) + 1
                sts.append(f.EnterEventMode(c))
                return max(sts), EVENT
            return max(sts), same
        if name == "setStates":
            n = max(nx + a[0], 0)
            vals = ([fnum(v) for v in a[1]] * (n + 1))[:n]
            return f.SetContinuousStates(c, self._arr(fmi3Float64, vals, a[2]), n), same
        if name in ("getDerivatives", "getEventIndicators", "getStates", "getNominals"):
            n = max((nz if name == "getEventIndicators" else nx) + a[0], 0)
            out = None if a[1] else (fmi3Float64 * max(n, 1))()
            fn = {"getDerivatives": f.GetContinuousStateDerivatives,
                  "getStates": f.GetContinuousStates,
                  "getEventIndicators": f.GetEventIndicators,
                  "getNominals": f.GetNominalsOfContinuousStates}[name]
            st = fn(c, out, n)
            if st == OK and n != (nz if name == "getEventIndicators" else nx):
                self.problem(f"{name} with the wrong number of values ({n}) returned {st}")
            return st, same
        if name == "getNumbers":
            n = C.c_size_t(12345)
            fn = f.GetNumberOfContinuousStates if a[0] == "x" else f.GetNumberOfEventIndicators
            st = fn(c, None if a[1] else C.byref(n))
            want = nx if a[0] == "x" else nz
            if st == OK and n.value != want:
                self.problem(f"fmi3GetNumberOf... returned {n.value}, the FMU has {want}")
            return st, same
        if name in ("doStep", "doStepNull"):
            t = parse_header(before)["time"]
            if name == "doStepNull":
                return f.DoStep(c, t, 0.01 * self.info["stopTime"], False, None, None, None,
                                None), same
            mode, val, h, noset = a
            cp = t if mode == "cur" else (t + fnum(val) if mode == "rel" else fnum(val))
            ehn, term, early = B(), B(), B()
            last = fmi3Float64()
            st = f.DoStep(c, cp, fnum(h), noset, C.byref(ehn), C.byref(term), C.byref(early),
                          C.byref(last))
            if st in (OK, WARNING):
                ev = self.events
                for k, on in (("earlyReturn", early.value), ("eventHandlingNeeded", ehn.value),
                              ("terminateSimulation", term.value)):
                    ev[k] = ev.get(k, 0) + bool(on)
                if early.value and not min(t, cp) <= last.value <= max(t, cp) + fnum(h):
                    self.problem(f"early return at lastSuccessfulTime {last.value}, outside "
                                 f"the step [{cp}, {cp + fnum(h)}]")
                if ehn.value and not self.emu:
                    self.problem("eventHandlingNeeded without eventModeUsed")
                if early.value and not self.era:
                    self.problem("earlyReturn without earlyReturnAllowed")
            return st, STEP
        raise ValueError(f"unknown op {name}")

    def _noop(self, name):
        """A get/set whose nValues would be negative: called with nothing (OK or state error)."""
        fn = self.fmu.GetFloat64 if name == "get" else self.fmu.SetFloat64
        return fn(self.c, None, 0, None, 0), None

    def _refused(self, fname):
        f, c = self.fmu, self.c
        fn = getattr(f, fname[4:])
        if fname == "fmi3ActivateModelPartition":
            return fn(c, 1, 0.0)
        args = []
        for t in fn.argtypes[1:]:
            args.append(0 if t is C.c_size_t else 1 if t is fmi3VR else None)
        return fn(c, *args)


def main():
    """Worker: argv[1] = extracted FMU directory; JSON sequences on stdin."""
    fmu = Fmu3(read_info(Path(sys.argv[1])))
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
