"""Issue #8 part 1 (determinism): fmi2Reset + re-initialisation 1000 times gives
bit-identical trajectories, and get/set/free FMU state and (de)serialization round trips
give bit-identical trajectories.  In-process (ctypes, wc_fmi_driver.Fmu)."""
from __future__ import annotations

import ctypes as C
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import wc_fmi_driver as D  # noqa: E402

RESET_CYCLES = int(os.environ.get("WEARCOSIM_RESET_CYCLES", "1000"))
BB = "WearCosim.Examples.Basic.BouncingBall"
MODELS = [BB, "WearCosim.Examples.Basic.VanDerPol",
          "WearCosim.Examples.Basic.ContactOscillator",
          "WearCosim.Examples.SliderCrank.SliderCrankDry",
          "WearCosim.Examples.HybridMechanism.DrySpeed32pi"]


@pytest.fixture(scope="module")
def load(build_example, tmp_path_factory):
    base = tmp_path_factory.mktemp("state")
    cache = {}

    def get(model):
        if model not in cache:
            fmu = build_example(model)
            cache[model] = D.load_fmu(fmu, base / fmu.stem)
        return cache[model]
    return get


def real_vrs(f):
    return [v["vr"] for v in f.info["variables"] if v["type"] == "Real"]


def int_vrs(f):
    return [v["vr"] for v in f.info["variables"] if v["type"] == "Integer"]


def ok(f, st):
    assert st == D.OK, (st, f.log[-3:])


def init_cs(f, c):
    ok(f, f.SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0))
    ok(f, f.EnterInitializationMode(c))
    ok(f, f.ExitInitializationMode(c))


def outputs(f, c):
    r = f.get_real(c, real_vrs(f))
    iv = int_vrs(f)
    out = (D.fmi2Integer * max(len(iv), 1))()
    ok(f, f.GetInteger(c, (D.fmi2VR * max(len(iv), 1))(*iv), len(iv), out))
    return r + list(out[:len(iv)])


def set_method(f, c, method):
    """solver.method = method (before initialisation)."""
    vr = next(v["vr"] for v in f.info["variables"] if v["name"] == "solver.method")
    ok(f, f.SetInteger(c, (D.fmi2VR * 1)(vr), 1, (D.fmi2Integer * 1)(method)))


def run_cs(f, c, k0, k1, h):
    """doStep k0*h .. k1*h on the grid, outputs after every step."""
    traj = []
    for k in range(k0, k1):
        ok(f, f.DoStep(c, k * h, h, 1))
        traj.append(outputs(f, c))
    return traj


def bits(traj):
    """bit pattern of a trajectory (so that -0.0 != 0.0 and NaN == NaN compare right)."""
    import struct
    return [tuple(struct.pack("<d", float(x)) for x in row) for row in traj]


def test_reset_1000_times_identical(load):
    f = load(BB)
    h = f.info["stopTime"] / 15
    e_vr = next(v["vr"] for v in f.info["variables"] if v["name"] == "e")
    m_vr = next(v["vr"] for v in f.info["variables"] if v["name"] == "solver.method")
    c = f.instantiate(D.CS)
    try:
        init_cs(f, c)
        ref = bits(run_cs(f, c, 0, 15, h))
        # a fresh instance gives the same trajectory
        c2 = f.instantiate(D.CS, name=b"fresh")
        init_cs(f, c2)
        assert bits(run_cs(f, c2, 0, 15, h)) == ref
        f.FreeInstance(c2)
        for i in range(RESET_CYCLES):
            ok(f, f.Reset(c))
            if i % 2:
                # dirty the instance before the next reset: other parameters, other
                # solver, a different trajectory that reset must forget
                ok(f, f.SetReal(c, (D.fmi2VR * 1)(e_vr), 1, (D.fmi2Real * 1)(0.5)))
                ok(f, f.SetInteger(c, (D.fmi2VR * 1)(m_vr), 1, (D.fmi2Integer * 1)(1)))
                init_cs(f, c)
                other = bits(run_cs(f, c, 0, 4, h))
                assert other != ref[:4]
                if i % 4 == 1:
                    ok(f, f.Terminate(c))
                continue
            init_cs(f, c)
            assert bits(run_cs(f, c, 0, 15, h)) == ref, f"cycle {i}: trajectory differs"
    finally:
        f.FreeInstance(c)
    print(f"\nreset cycles: {RESET_CYCLES} ({RESET_CYCLES // 2} compared bit-for-bit)")


def _state_roundtrip(f, fresh_instance_too=True, method=None):
    h = f.info["stopTime"] / 20
    c = f.instantiate(D.CS)
    states = []
    try:
        if method is not None:
            set_method(f, c, method)
        init_cs(f, c)
        run_cs(f, c, 0, 5, h)
        s = D.fmi2FMUstate()
        ok(f, f.GetFMUstate(c, C.byref(s)))
        states.append(s)
        a = bits(run_cs(f, c, 5, 15, h))               # continued without restore
        ok(f, f.SetFMUstate(c, s))
        b = bits(run_cs(f, c, 5, 15, h))               # restored
        ok(f, f.SetFMUstate(c, s))
        b2 = bits(run_cs(f, c, 5, 15, h))              # restored again
        assert b == b2, "restoring the same FMU state twice gives different trajectories"
        # serialize -> deserialize -> set
        size = C.c_size_t()
        ok(f, f.SerializedFMUstateSize(c, s, C.byref(size)))
        buf = C.create_string_buffer(size.value)
        ok(f, f.SerializeFMUstate(c, s, buf, size.value))
        blob = buf.raw
        s2 = D.fmi2FMUstate()
        ok(f, f.DeSerializeFMUstate(c, blob, len(blob), C.byref(s2)))
        states.append(s2)
        ok(f, f.SetFMUstate(c, s2))
        assert bits(run_cs(f, c, 5, 15, h)) == b, "deserialized state differs"
        # GetFMUstate into an existing state object (overwrite) and free
        ok(f, f.GetFMUstate(c, C.byref(s2)))
        ok(f, f.FreeFMUstate(c, C.byref(s2)))
        assert not s2.value
        states.remove(s2)
        # the serialized state in ANOTHER instance
        if fresh_instance_too:
            c2 = f.instantiate(D.CS, name=b"other")
            try:
                s3 = D.fmi2FMUstate()     # (its solver.method comes with the state's v)
                ok(f, f.DeSerializeFMUstate(c2, blob, len(blob), C.byref(s3)))
                ok(f, f.SetFMUstate(c2, s3))
                ok(f, f.FreeFMUstate(c2, C.byref(s3)))
                assert bits(run_cs(f, c2, 5, 15, h)) == b, "state in a new instance differs"
            finally:
                f.FreeInstance(c2)
        return a, b
    finally:
        for s in states:
            f.FreeFMUstate(c, C.byref(s))
        f.FreeInstance(c)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.rsplit(".", 1)[1])
def test_fmu_state_roundtrip_identical(load, model):
    """restore / restore again / deserialize / other instance: bit-identical."""
    _state_roundtrip(load(model))


# KI-2 (found here, fixed): the FMU state now carries the CS solver's controller history
# (err_old, h_last, first_step, last_rejected); f(t, x) and the Jacobian are recomputed
# deterministically, so "save, continue" and "save, restore, continue" are bit-identical.


@pytest.mark.parametrize("model", MODELS,
                         ids=lambda m: m.rsplit(".", 1)[1])
def test_fmu_state_restore_equals_uninterrupted_run(load, model):
    a, b = _state_roundtrip(load(model), fresh_instance_too=False)
    assert a == b, "save+continue and save+restore+continue differ"


ADAMS_MODELS = [m for m in MODELS if not m.endswith("VanDerPol")]   # (non-stiff ones)


@pytest.mark.parametrize("model", ADAMS_MODELS, ids=lambda m: m.rsplit(".", 1)[1])
def test_fmu_state_adams_history_bit_identical(load, model):
    """solver.method = 3 (Adams): its multistep history (order, Nordsieck array, counters)
    is part of the FMU state, so restore / deserialize / other instance / uninterrupted run
    all continue bit for bit."""
    a, b = _state_roundtrip(load(model), method=3)
    assert a == b, "save+continue and save+restore+continue differ (Adams)"


def _run_saving(f, method, n, h, save_at):
    """A CS run of n grid steps with solver.method = method; an FMU state taken (and freed)
    before the steps in save_at.  Returns the outputs' bits after every step."""
    c = f.instantiate(D.CS)
    try:
        set_method(f, c, method)
        init_cs(f, c)
        traj = []
        for k in range(n):
            if k in save_at:
                s = D.fmi2FMUstate()
                ok(f, f.GetFMUstate(c, C.byref(s)))
                ok(f, f.FreeFMUstate(c, C.byref(s)))
            traj += run_cs(f, c, k, k + 1, h)
        return bits(traj)
    finally:
        f.FreeInstance(c)


# every model with every method, but the explicit Adams method on the stiff Van der Pol
# oscillator (as ADAMS_MODELS below)
SAVE_CASES = [(m, k) for m in MODELS for k in (0, 1, 2, 3) if not (k == 3 and m.endswith("VanDerPol"))]


@pytest.mark.parametrize("model,method", SAVE_CASES, ids=[f"{m.rsplit('.', 1)[1]}-{k}" for m, k in SAVE_CASES])
def test_taking_an_fmu_state_changes_nothing(load, model, method):
    """fmi2GetFMUstate in the middle of a run, at every communication point or at a few, does
    not change the run: bit-identical to the run that never takes one, with every solver
    method.  (A solver step reaches up to 16 communication points ahead; the state carries
    that step as it is instead of cutting it at the point, as before version 7 of the state,
    when a master saving every step, for a rollback, got another trajectory and one solver
    step per communication step.)"""
    f = load(model)
    n = 60
    h = f.info["stopTime"] / n
    ref = _run_saving(f, method, n, h, set())
    assert _run_saving(f, method, n, h, set(range(n))) == ref, "a state at every point changed the run"
    assert _run_saving(f, method, n, h, {7, 8, 31}) == ref, "a state at a few points changed the run"


def test_me_state_roundtrip_identical(load):
    """Model Exchange: explicit Euler with event handling, FMU state in CT mode."""
    f = load(BB)
    nx, nz = f.info["nx"], f.info["nz"]
    c = f.instantiate(D.ME)
    try:
        ok(f, f.SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0))
        ok(f, f.EnterInitializationMode(c))
        ok(f, f.ExitInitializationMode(c))
        ei = D.EventInfo()

        def event_iteration():
            ei.newDiscreteStatesNeeded = 1
            while ei.newDiscreteStatesNeeded:
                ok(f, f.NewDiscreteStates(c, C.byref(ei)))
            ok(f, f.EnterContinuousTimeMode(c))

        def euler(t, n, dt=1e-3):
            x, dx = (D.fmi2Real * nx)(), (D.fmi2Real * nx)()
            z0, z1 = (D.fmi2Real * nz)(), (D.fmi2Real * nz)()
            rec = []
            ok(f, f.GetEventIndicators(c, z0, nz))
            for _ in range(n):
                ok(f, f.GetContinuousStates(c, x, nx))
                ok(f, f.GetDerivatives(c, dx, nx))
                t += dt
                ok(f, f.SetTime(c, t))
                ok(f, f.SetContinuousStates(c, (D.fmi2Real * nx)(
                    *[x[i] + dt * dx[i] for i in range(nx)]), nx))
                ok(f, f.GetEventIndicators(c, z1, nz))
                b1, b2 = D.fmi2Boolean(), D.fmi2Boolean()
                ok(f, f.CompletedIntegratorStep(c, 1, C.byref(b1), C.byref(b2)))
                if any((z0[i] > 0) != (z1[i] > 0) for i in range(nz)):
                    ok(f, f.EnterEventMode(c))
                    event_iteration()
                    ok(f, f.GetEventIndicators(c, z1, nz))
                z0[:] = z1[:]
                rec.append(outputs(f, c) + [t])
            return bits(rec), t

        event_iteration()
        _, t1 = euler(0.0, 400)
        s = D.fmi2FMUstate()
        ok(f, f.GetFMUstate(c, C.byref(s)))
        a, _ = euler(t1, 1200)                 # includes impacts
        ok(f, f.SetFMUstate(c, s))
        b, _ = euler(t1, 1200)
        assert a == b
        size = C.c_size_t()
        ok(f, f.SerializedFMUstateSize(c, s, C.byref(size)))
        buf = C.create_string_buffer(size.value)
        ok(f, f.SerializeFMUstate(c, s, buf, size.value))
        ok(f, f.FreeFMUstate(c, C.byref(s)))
        s2 = D.fmi2FMUstate()
        ok(f, f.DeSerializeFMUstate(c, buf.raw, size.value, C.byref(s2)))
        ok(f, f.SetFMUstate(c, s2))
        ok(f, f.FreeFMUstate(c, C.byref(s2)))
        assert euler(t1, 1200)[0] == a
    finally:
        f.FreeInstance(c)


def test_rejected_dostep_leaves_the_time_unchanged(load):
    """Regression test of KI-1 (found by the fuzzer, fixed): fmi2DoStep rejected because the
    step goes beyond the stop time returns fmi2Error and leaves the instance unchanged (it used
    to snap the FMU time to currentCommunicationPoint before the stop-time check)."""
    f = load(BB)
    c = f.instantiate(D.CS)
    try:
        ok(f, f.SetupExperiment(c, 0, 0.0, 0.0, 1, 3.0))
        ok(f, f.EnterInitializationMode(c))
        ok(f, f.ExitInitializationMode(c))
        before = f.snapshot(c)
        assert f.DoStep(c, 1e-12, 5.0, 1) == D.ERROR
        assert f.snapshot(c) == before
    finally:
        f.FreeInstance(c)


# ----------------------------------------------------------------------------- hostile states
CHECKSUM_AT = 52          # RtStateHeader: magic[8], 4 uint, 7 int -> the uint checksum


def state_checksum(blob: bytes) -> int:
    """The FMU state's checksum (rt_state.c, state_checksum), written from its comment:
    FNV-1a over the block's 64-bit words with the checksum field taken as 0, word k into lane
    k mod 4, the lanes combined and the result folded to 32 bits."""
    P, M = 1099511628211, (1 << 64) - 1
    data = bytearray(blob)
    data[CHECKSUM_AT:CHECKSUM_AT + 4] = bytes(4)
    data += bytes(-len(data) % 8)
    lanes = [14695981039346656037 ^ i for i in range(4)]
    for k in range(len(data) // 8):
        lanes[k & 3] = ((lanes[k & 3] ^ int.from_bytes(data[8 * k:8 * k + 8], "little")) * P) & M
    x = (((((lanes[0] ^ lanes[1]) * P) & M) ^ lanes[2]) * P) & M
    x = ((x ^ lanes[3]) * P) & M
    return (x ^ (x >> 32)) & 0xFFFFFFFF


def _serialized_mid_run(f, c, k, h):
    run_cs(f, c, 0, k, h)
    s = D.fmi2FMUstate()
    ok(f, f.GetFMUstate(c, C.byref(s)))
    size = C.c_size_t()
    ok(f, f.SerializedFMUstateSize(c, s, C.byref(size)))
    buf = C.create_string_buffer(size.value)
    ok(f, f.SerializeFMUstate(c, s, buf, size.value))
    ok(f, f.FreeFMUstate(c, C.byref(s)))
    return buf.raw


@pytest.mark.parametrize("method", [0, 1, 3])
@pytest.mark.parametrize("model", [BB, "WearCosim.Examples.SliderCrank.SliderCrankDry"],
                         ids=lambda m: m.rsplit(".", 1)[1])
def test_hostile_running_solver_in_a_state(load, model, method):
    """Serialized states whose running-solver record (version 8: the last 4 + 2 n_z + 36 +
    59 n_x doubles of the block, for a model without hooks) was changed, the checksum made
    right again, so that only the runtime's own checks stand between the bytes and the
    solver: NaN, infinities, huge, negative and off-by-a-bit values in the flags, times,
    counters, orders, indices and arrays.  Deserializing and restoring succeed (the block is
    well formed); every fmi2DoStep after it returns a status (the record is either taken or
    refused for a restart) and the process survives.  The checksum written here from the
    comment in rt_state.c matches the FMU's own."""
    import random
    import struct
    f = load(model)
    nx, nz = f.info["nx"], f.info["nz"]
    n = 40
    h = f.info["stopTime"] / n
    c = f.instantiate(D.CS)
    try:
        set_method(f, c, method)
        init_cs(f, c)
        blob = _serialized_mid_run(f, c, 11, h)
        assert struct.unpack_from("<I", blob, CHECKSUM_AT)[0] == state_checksum(blob)
        live = (4 + 2 * nz + 36 + 59 * nx) * 8
        start = len(blob) - live
        assert struct.unpack_from("<d", blob, start)[0] == 1.0     # a running solver was saved
        rng = random.Random(20261204 + method)
        bad = [float("nan"), float("inf"), -float("inf"), 1e308, -1.0, 0.0, 13.0, -5.0, 0.5, 2.0, 1e-300]
        hdr = list(range(4 + 2 * nz, 4 + 2 * nz + 34))           # the solver's header fields
        for trial in range(60):
            data = bytearray(blob)
            picks = rng.sample(hdr, 2) if trial % 2 == 0 else \
                [rng.randrange(live // 8) for _ in range(3)]
            for i in picks:
                old = struct.unpack_from("<d", data, start + 8 * i)[0]
                new = rng.choice(bad + [old + 1.0, old * (1 + 1e-3), -old])
                struct.pack_into("<d", data, start + 8 * i, new)
            struct.pack_into("<I", data, CHECKSUM_AT, state_checksum(bytes(data)))
            buf = C.create_string_buffer(bytes(data), len(data))
            s = D.fmi2FMUstate()
            ok(f, f.DeSerializeFMUstate(c, buf, len(data), C.byref(s)))
            ok(f, f.SetFMUstate(c, s))
            ok(f, f.FreeFMUstate(c, C.byref(s)))
            for k in range(11, 11 + 8):
                st = f.DoStep(c, k * h, h, 1)
                assert st in (D.OK, 1, 2, 3), (trial, picks, st)    # OK, Warning, Discard, Error
                if st != D.OK:
                    break
    finally:
        f.FreeInstance(c)
