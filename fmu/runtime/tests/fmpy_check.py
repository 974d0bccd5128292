#!/usr/bin/env python3
"""FMPy cross-check of the wearcosim FMI 2.0 runtime (fmu/runtime/).

Builds the hand-written bouncing-ball test model (tests/models/bball) into a real
.fmu (modelDescription.xml written here, for this test only), then simulates it with
FMPy as Model Exchange (CVode) and as Co-Simulation (embedded solvers, both methods),
and compares the impact times with the analytic ones.  Also checks that a model that
calls terminate() ends a CS simulation cleanly, and that FMPy's own modelDescription
validation accepts the FMU.

Usage:  python3 fmpy_check.py [--keep DIR]
Prints PASS/FAIL lines and "RESULT passed=N failed=M"; exit code 1 on failure.
The lead can wrap each check in a pytest test (see run_checks()).
"""
import math
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNTIME = os.path.dirname(HERE)
MODEL_DIR = os.path.join(HERE, "models", "bball")
GUID = "{8c4e810f-3df3-4a00-8276-176fa3c9f000}"

MODEL_DESCRIPTION = """<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="bball" guid="{guid}"
  generationTool="wearcosim runtime tests" numberOfEventIndicators="2">
  <ModelExchange modelIdentifier="bball" canGetAndSetFMUstate="true"
    canSerializeFMUstate="true" providesDirectionalDerivative="false"/>
  <CoSimulation modelIdentifier="bball" canHandleVariableCommunicationStepSize="true"
    canGetAndSetFMUstate="true" canSerializeFMUstate="true" canInterpolateInputs="true"
    maxOutputDerivativeOrder="1" providesDirectionalDerivative="false"/>
  <LogCategories>
    <Category name="logEvents"/>
    <Category name="logStatusWarning"/>
    <Category name="logStatusDiscard"/>
    <Category name="logStatusError"/>
    <Category name="logAll"/>
  </LogCategories>
  <DefaultExperiment startTime="0" stopTime="2.45" tolerance="1e-8"/>
  <ModelVariables>
    <ScalarVariable name="h" valueReference="0" causality="local" variability="continuous" initial="exact"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="v" valueReference="1" causality="local" variability="continuous" initial="exact"><Real start="0"/></ScalarVariable>
    <ScalarVariable name="der(h)" valueReference="2" causality="local" variability="continuous"><Real derivative="1"/></ScalarVariable>
    <ScalarVariable name="der(v)" valueReference="3" causality="local" variability="continuous"><Real derivative="2"/></ScalarVariable>
    <ScalarVariable name="g" valueReference="4" causality="parameter" variability="fixed" initial="exact"><Real start="9.81" min="0"/></ScalarVariable>
    <ScalarVariable name="e" valueReference="5" causality="parameter" variability="tunable" initial="exact"><Real start="0.7" min="0" max="1"/></ScalarVariable>
    <ScalarVariable name="tTerm" valueReference="6" causality="parameter" variability="tunable" initial="exact"><Real start="1e9"/></ScalarVariable>
    <ScalarVariable name="solver.method" valueReference="7" causality="parameter" variability="tunable" initial="exact"><Integer start="0" min="0" max="3"/></ScalarVariable>
    <ScalarVariable name="solver.rtol" valueReference="8" causality="parameter" variability="tunable" initial="exact"><Real start="0" min="0" max="1"/></ScalarVariable>
    <ScalarVariable name="solver.atol" valueReference="9" causality="parameter" variability="tunable" initial="exact"><Real start="0" min="0"/></ScalarVariable>
    <ScalarVariable name="solver.hmax" valueReference="10" causality="parameter" variability="tunable" initial="exact"><Real start="0" min="0"/></ScalarVariable>
    <ScalarVariable name="floor" valueReference="11" causality="input" variability="continuous"><Real start="0" min="-10" max="10"/></ScalarVariable>
    <ScalarVariable name="hAbove" valueReference="12" causality="output" variability="continuous" initial="calculated"><Real/></ScalarVariable>
    <ScalarVariable name="count" valueReference="13" causality="local" variability="discrete" initial="exact"><Integer start="0"/></ScalarVariable>
    <ScalarVariable name="tImpact" valueReference="14" causality="local" variability="discrete" initial="exact"><Real start="0"/></ScalarVariable>
    <ScalarVariable name="solver.maxSteps" valueReference="25" causality="parameter" variability="tunable" initial="exact"><Integer start="1000000" min="1" max="2147483647"/></ScalarVariable>
    <ScalarVariable name="solver.maxStepTime" valueReference="26" causality="parameter" variability="tunable" initial="exact"><Real start="0" min="0"/></ScalarVariable>
  </ModelVariables>
  <ModelStructure>
    <Outputs><Unknown index="13"/></Outputs>
    <Derivatives><Unknown index="3"/><Unknown index="4"/></Derivatives>
    <InitialUnknowns><Unknown index="3"/><Unknown index="4"/><Unknown index="13"/></InitialUnknowns>
  </ModelStructure>
</fmiModelDescription>
"""


def exact_impacts(t_end, h0=1.0, e=0.7, g=9.81):
    t1 = math.sqrt(2 * h0 / g)
    v1 = g * t1
    out, t, ek = [t1], t1, 1.0
    while True:
        ek *= e
        t += 2 * ek * v1 / g
        if t >= t_end:
            return [x for x in out if x < t_end]
        out.append(t)


def build_fmu(workdir):
    """Compile the bball test model with the runtime and zip it into bball.fmu."""
    root = os.path.join(workdir, "bball_fmu")
    bindir = os.path.join(root, "binaries", "linux64")
    os.makedirs(bindir, exist_ok=True)
    # the core and the FMI 2.0 face (an FMU carries one face; fmi3_face.c needs a generated table)
    sources = sorted(os.path.join(RUNTIME, f) for f in os.listdir(RUNTIME)
                     if f.endswith(".c") and f != "fmi3_face.c")
    cmd = ["gcc", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror",
           "-I", RUNTIME, "-I", os.path.join(RUNTIME, "include"), "-I", MODEL_DIR,
           os.path.join(MODEL_DIR, "model.c")] + sources + ["-lm", "-o",
                                                            os.path.join(bindir, "bball.so")]
    subprocess.run(cmd, check=True)
    with open(os.path.join(root, "modelDescription.xml"), "w") as f:
        f.write(MODEL_DESCRIPTION.format(guid=GUID))
    fmu = os.path.join(workdir, "bball.fmu")
    with zipfile.ZipFile(fmu, "w") as z:
        for d, _, files in os.walk(root):
            for name in files:
                p = os.path.join(d, name)
                z.write(p, os.path.relpath(p, root))
    return fmu


def impacts_from_result(res):
    """impact times = tImpact values at the rows where count increases"""
    out, last = [], 0
    for row in res:
        if row["count"] != last:
            out.append(float(row["tImpact"]))
            last = row["count"]
    return out


def run_checks(fmu):
    """yield (name, ok, details)"""
    import fmpy
    problems = fmpy.validation.validate_fmu(fmu) if hasattr(fmpy, "validation") else []
    yield "fmpy_validate_fmu", not problems, "; ".join(map(str, problems))[:300]
    # simulate from an extraction in the work folder (removed by main()): simulate_fmu of a
    # .fmu extracts it to a temp folder of its own, which it leaves behind when it raises
    unzipped = os.path.join(os.path.dirname(os.path.abspath(fmu)), "unzipped")
    with zipfile.ZipFile(fmu) as z:
        z.extractall(unzipped)
    fmu = unzipped

    t_end = 2.45
    ex = exact_impacts(t_end)

    # Model Exchange, CVode
    res = fmpy.simulate_fmu(fmu, fmi_type="ModelExchange", solver="CVode", stop_time=t_end,
                            relative_tolerance=1e-10, output_interval=1e-3,
                            record_events=True, output=["h", "v", "count", "tImpact"])
    imp = impacts_from_result(res)
    err = max((abs(a - b) for a, b in zip(imp, ex)), default=float("inf"))
    yield ("fmpy_me_cvode_impacts", len(imp) == len(ex) and err < 1e-6,
           "%d impacts (exact %d), max |dt| = %.2e s" % (len(imp), len(ex), err))

    # Co-Simulation, the embedded methods
    for method, tag in ((1, "dopri5"), (2, "rodas4"), (3, "adams")):
        res = fmpy.simulate_fmu(fmu, fmi_type="CoSimulation", stop_time=t_end,
                                output_interval=0.01,
                                start_values={"solver.method": method, "solver.rtol": 1e-8},
                                output=["h", "count", "tImpact"])
        imp = impacts_from_result(res)
        err = max((abs(a - b) for a, b in zip(imp, ex)), default=float("inf"))
        ok = len(imp) == len(ex) and err < 1e-8 and abs(res["time"][-1] - t_end) < 1e-9
        yield ("fmpy_cs_%s_impacts" % tag, ok,
               "%d impacts (exact %d), max |dt| = %.2e s, %d rows" % (len(imp), len(ex), err,
                                                                    len(res)))

    # input derivatives: the floor rises as a ramp, floor(t) = a t, on a coarse grid (0.1 s),
    # driven through FMPy's FMU2Slave (simulate_fmu's set_input_derivatives of FMPy 0.3.32
    # sizes its derivative buffer for 9 inputs: a ValueError with one); with the slope set at
    # every point the first impact is where the ball meets the ramp inside the step
    # (1 - g t^2/2 = a t); held over each step, it is late
    from fmpy import read_model_description
    from fmpy.fmi2 import FMU2Slave
    a, g = 0.8, 9.81
    t1 = (-a + math.sqrt(a * a + 2 * g)) / g
    md = read_model_description(fmu)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    errs = []
    for deriv in (True, False):
        sl = FMU2Slave(guid=md.guid, unzipDirectory=fmu, modelIdentifier="bball", instanceName="ramp")
        sl.instantiate()
        sl.setupExperiment(tolerance=1e-10, startTime=0.0)
        sl.enterInitializationMode()
        sl.exitInitializationMode()
        t = 0.0
        for k in range(5):
            sl.setReal([vr["floor"]], [a * t])
            if deriv:
                sl.setRealInputDerivatives([vr["floor"]], [1], [a])
            sl.doStep(t, 0.1)
            t = (k + 1) * 0.1
            if sl.getInteger([vr["count"]])[0] >= 1:
                break
        errs.append(abs(sl.getReal([vr["tImpact"]])[0] - t1))
        sl.terminate()
        sl.freeInstance()
    yield ("fmpy_cs_input_derivatives", errs[0] < 1e-8 and errs[1] > 1e-3,
           "first impact |dt| = %.2e s with derivatives, %.2e s held" % tuple(errs))

    # terminate() in CS: FMPy stops at the termination time without error
    res = fmpy.simulate_fmu(fmu, fmi_type="CoSimulation", stop_time=t_end,
                            output_interval=0.01, start_values={"tTerm": 1.234},
                            output=["h", "count"])
    yield ("fmpy_cs_terminate", abs(res["time"][-1] - 1.234) < 1e-9,
           "last time %.12g (expected 1.234)" % res["time"][-1])

    # out-of-range start value is refused with an exception, not a crash
    try:
        fmpy.simulate_fmu(fmu, fmi_type="CoSimulation", stop_time=0.1,
                          start_values={"e": 1.5})
        yield "fmpy_out_of_range_start", False, "no error raised"
    except Exception as exc:  # FMICallException
        yield "fmpy_out_of_range_start", True, type(exc).__name__


def main():
    keep = None
    if len(sys.argv) > 2 and sys.argv[1] == "--keep":
        keep = sys.argv[2]
    try:
        import fmpy  # noqa: F401
    except ImportError:
        print("SKIP fmpy not installed")
        print("RESULT passed=0 failed=0")
        return 0
    work = keep or tempfile.mkdtemp(prefix="wcs_fmpy_")
    os.makedirs(work, exist_ok=True)
    npass = nfail = 0
    try:
        fmu = build_fmu(work)
        for name, ok, details in run_checks(fmu):
            print("%s %s %s" % ("PASS" if ok else "FAIL", name, details))
            if ok:
                npass += 1
            else:
                nfail += 1
    except Exception as exc:  # build or simulation crashed
        print("FAIL fmpy_check exception: %r" % (exc,))
        nfail += 1
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    print("RESULT passed=%d failed=%d" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
