"""Issue 35: the FMI call-sequence fuzzing of test_fmi_fuzz.py, on the FMI 3.0 face
(fmu/runtime/fmi3_face.c over the version-free core).

Random call sequences -- valid and invalid: calls out of the FMI 3.0 state machine, unknown /
wrongly typed value references, array references (wearDepth[36]) with a wrong nValues, NaN /
Inf values, NULL pointers where the face checks them, FMU state get / set / free /
(corrupted) serialization, fmi3DoStep with early return and event mode, Model Exchange
event / continuous-time mode transitions, fmi3Reset anywhere, fmi3Terminate,
fmi3FreeInstance, the functions the FMU refuses (clocks, configuration mode, ...) -- on the
FMI 3.0 FMUs of the bouncing ball (events), the dry revolute clearance joint (array input
wearDepth[36], outputs F[2]) and VanDerPol.  Each sequence runs in a WORKER CHILD PROCESS
(wc_fmi3_driver.py): a crash (signal) or a hang (no answer within WEARCOSIM_FUZZ_TIMEOUT s)
fails the test with the seed and the sequence.  The properties of every call are Q1..Q9 of
wc_fmi3_driver.py: no crash, no hang, every fmi3Error / fmi3Fatal / fmi3Discard logged, a
refused call changes nothing and the instance stays usable (fmi3Reset and a valid start
succeed after every sequence).

A sequence is a function of its seed (wc_fmi3_driver.gen_sequence): reproduce a failure with

    python -c "import wc_fmi3_driver as D, json; print(json.dumps(D.gen_sequence(
        D.read_info('<extracted fmu>'), <seed>, <calls>)))" > seq.jsonl
    python tests/reliability/wc_fmi3_driver.py <extracted fmu> < seq.jsonl

Budget: WEARCOSIM_FUZZ3_SEQUENCES (default 100) sequences of up to 40 random calls per model
(about 2 300 FMI calls per model besides the state snapshots; the FMI 2.0 suite runs 12
sequences of up to 30 calls on each of its 31 examples), seeds from WEARCOSIM_FUZZ3_SEED
(default 35); the ``slow`` variant runs WEARCOSIM_FUZZ3_SLOW_SEQUENCES (default 5 000) per
model, and its AddressSanitizer + UBSan variant (the FMU's sources rebuilt with
-fsanitize=address,undefined, the worker run with libasan preloaded) a fifth of that.
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import wc_fmi3_driver as D  # noqa: E402

SEQUENCES = int(os.environ.get("WEARCOSIM_FUZZ3_SEQUENCES", "100"))
SLOW_SEQUENCES = int(os.environ.get("WEARCOSIM_FUZZ3_SLOW_SEQUENCES", "5000"))
CALLS = 40
SEED = int(os.environ.get("WEARCOSIM_FUZZ3_SEED", "35"))
SEQ_TIMEOUT = float(os.environ.get("WEARCOSIM_FUZZ_TIMEOUT", "30"))

BALL = "WearCosim.Examples.Basic.BouncingBall"
JOINT = "WearCosim.Components.Joints.RevoluteClearanceDry"
VDP = "WearCosim.Examples.Basic.VanDerPol"
MODELS = [BALL, JOINT, VDP]

STATS = {"sequences": 0, "calls": 0, "crashes": 0, "hangs": 0}
STATUSES: dict = {}
STATES: dict = {}
EVENTS: dict = {}


# ---------------------------------------------------------------------------------
# worker process

class Worker:
    """A wc_fmi3_driver.py child process for one extracted FMU; restarted after a crash."""

    def __init__(self, unzipped: Path, env: dict | None = None):
        self.unzipped = unzipped
        self.env = env
        self.proc = None
        self.errfile = None

    def start(self):
        self.errfile = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "wc_fmi3_driver.py"), str(self.unzipped)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errfile,
            text=True, bufsize=1, env=self.env)
        line = self._readline(60)
        assert line and json.loads(line).get("ready"), f"worker did not start: {self._stderr()}"

    def _readline(self, timeout):
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not r:
            return None
        return self.proc.stdout.readline()

    def _stderr(self):
        self.errfile.seek(0)
        return self.errfile.read().decode(errors="replace")[-2000:]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
        if self.proc:
            self.proc.wait()
            self.proc.stdin.close()
            self.proc.stdout.close()
        if self.errfile:
            self.errfile.close()
        self.proc = self.errfile = None

    def run(self, seq, timeout=SEQ_TIMEOUT):
        """-> the driver's result, or {"crash": ...} / {"hang": ...}."""
        if self.proc is None or self.proc.poll() is not None:
            self.stop()
            self.start()
        try:
            self.proc.stdin.write(json.dumps(seq) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = self._readline(timeout)
        if line is None:                                  # no answer in time: hang
            self.stop()
            STATS["hangs"] += 1
            return {"hang": f"no answer within {timeout:.0f} s"}
        if not line:                                      # EOF: the worker died
            rc = self.proc.wait()
            err = self._stderr()
            self.stop()
            STATS["crashes"] += 1
            what = (f"signal {-rc}" if rc < 0 else
                    f"exit status {rc}: an exception of the driver, not a crash of the FMU")
            return {"crash": f"worker died ({what}); stderr tail: {err}"}
        return json.loads(line)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """{model: extracted FMI 3.0 FMU directory}, each built once (wearcosim build --fmi 3)."""
    from wctest import PACKAGE
    from wearcosim.export.build import build_fmu
    base = tmp_path_factory.mktemp("fuzz3")
    out = {}

    def get(model):
        if model not in out:
            r = build_fmu(model, PACKAGE, base / "build", fmi="3")
            out[model] = D.extract_fmu(r.fmus[3], base / r.fmus[3].stem)
        return out[model]
    return get


@pytest.fixture(scope="module")
def workers(fmus):
    pool = {}

    def get(model):
        if model not in pool:
            pool[model] = Worker(fmus(model))
        return pool[model]
    yield get
    for w in pool.values():
        w.stop()


def model_seed(model: str, k: int) -> int:
    """The seed of the k-th sequence of a model (a different stream per model)."""
    return SEED * 1_000_003 + zlib.crc32(model.encode()) % 100_000 * 10_007 + k


def check(worker, info, model, seed):
    seq = D.gen_sequence(info, seed, CALLS)
    res = worker.run(seq)
    STATS["sequences"] += 1
    STATS["calls"] += len(seq)
    how = (f"seed {seed} of {model} (wc_fmi3_driver.gen_sequence(info, {seed}, {CALLS}); "
           f"replay: wc_fmi3_driver.py {worker.unzipped} < seq.jsonl)\nsequence:\n"
           f"{json.dumps(seq)}")
    if "crash" in res or "hang" in res:
        kind = "CRASH" if "crash" in res else "HANG"
        raise AssertionError(f"{kind}: {res.get('crash') or res.get('hang')}\n{how}")
    for k, n in res.get("events", {}).items():
        EVENTS[k] = EVENTS.get(k, 0) + n
    for name, st, state in res["trace"]:
        if name in ("instantiate", "free"):
            continue
        STATUSES[st] = STATUSES.get(st, 0) + 1
        STATES[state] = STATES.get(state, 0) + 1
    assert res["ok"], ("FMI 3.0 contract violated:\n  " + "\n  ".join(res["problems"]) +
                       f"\ntrace: {res['trace']}\n{how}")
    return res


def _fuzz(model, workers, fmus, n):
    worker, info = workers(model), D.read_info(fmus(model))
    failures = []
    for k in range(n):
        try:
            check(worker, info, model, model_seed(model, k))
        except AssertionError as e:
            failures.append(str(e))
            if len(failures) >= 3:
                break
    assert not failures, f"{len(failures)} failing sequences, the first:\n{failures[0]}"


# ---------------------------------------------------------------------------------
# tests

@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.rsplit(".", 1)[1])
def test_fuzz_fmi3_call_sequences(model, workers, fmus):
    _fuzz(model, workers, fmus, SEQUENCES)


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.rsplit(".", 1)[1])
def test_fuzz_fmi3_call_sequences_long(model, workers, fmus):
    _fuzz(model, workers, fmus, SLOW_SEQUENCES)


def _asan_copy(unzipped: Path, dest: Path) -> Path:
    """A copy of the extracted FMU whose binary is rebuilt from its sources (the files and
    options of sources/buildDescription.xml) with AddressSanitizer and UBSan: memory errors
    that do not crash (a heap overflow, a use after free) and undefined behaviour (an
    out-of-range float-to-int conversion) then abort the worker, which reports a crash."""
    import re
    import shutil
    shutil.copytree(unzipped, dest)
    src = dest / "sources"
    bd = (src / "buildDescription.xml").read_text()
    files = re.findall(r'<SourceFile name="([^"]+)"', bd)
    opts = re.search(r'compilerOptions="([^"]*)"', bd).group(1).split()
    defs = [f"-D{n}={v}" for n, v in
            re.findall(r'<PreprocessorDefinition name="([^"]+)" value="([^"]*)"', bd)]
    so = next((dest / "binaries" / "x86_64-linux").glob("*.so"))
    subprocess.run(["gcc", "-std=c99", "-O1", "-g", "-fPIC", "-shared",
                    "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                    "-fno-omit-frame-pointer", *opts, *defs, "-I.", *files, "-lm", "-o",
                    str(so)], cwd=src, check=True, capture_output=True, timeout=600)
    return dest


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.rsplit(".", 1)[1])
def test_fuzz_fmi3_call_sequences_asan(model, fmus, tmp_path):
    """The fuzz on an AddressSanitizer + UBSan build of the FMU (its own sources):
    WEARCOSIM_FUZZ3_SLOW_SEQUENCES / 5 sequences per model, other seeds than the other tests."""
    import shutil
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not on PATH")
    out = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                         text=True).stdout.strip()
    ubsan = subprocess.run(["gcc", "-print-file-name=libubsan.so"], capture_output=True,
                           text=True).stdout.strip()
    if not (os.path.isabs(out) and os.path.isabs(ubsan)):
        pytest.skip("gcc has no libasan / libubsan")
    unzipped = _asan_copy(fmus(model), tmp_path / "asan")
    env = dict(os.environ, LD_PRELOAD=f"{out}:{ubsan}", ASAN_OPTIONS="detect_leaks=0")
    worker = Worker(unzipped, env)
    info = D.read_info(unzipped)
    try:
        failures = []
        for k in range(SLOW_SEQUENCES // 5):
            try:
                check(worker, info, model, model_seed(model, 10_000_000 + k))
            except AssertionError as e:
                failures.append(str(e))
                break
        assert not failures, failures[0]
    finally:
        worker.stop()


def test_fuzz3_deterministic(workers, fmus):
    """A seed gives the same sequence, and the FMU the same statuses and states for it."""
    info = D.read_info(fmus(BALL))
    seeds = [model_seed(BALL, k) for k in (0, 1, 2, 3)]
    a = [D.gen_sequence(info, s, CALLS) for s in seeds]
    assert a == [D.gen_sequence(info, s, CALLS) for s in seeds]
    assert a[0] != a[1]
    w = workers(BALL)
    r1 = [w.run(seq)["trace"] for seq in a]
    r2 = [w.run(seq)["trace"] for seq in a]
    assert r1 == r2


def test_fuzz3_covers_the_api(fmus):
    """The generator reaches every kind of call and every interface type, and the sequences of
    the default run drive the instances through the FMI 3.0 states (ME and CS, event mode)."""
    info = D.read_info(fmus(JOINT))
    kinds, types = set(), set()
    for k in range(SEQUENCES):
        seq = D.gen_sequence(info, model_seed(JOINT, k), CALLS)
        kinds |= {op[0] for op in seq}
        types |= {(op[1], op[3]) for op in seq if op[0] == "instantiate" and op[2] == "ok"}
    assert set(D.MASKS) <= kinds, set(D.MASKS) - kinds
    assert {(D.ME, False), (D.CS, False), (D.CS, True)} <= {(t, e and t == D.CS)
                                                          for t, e in types}


def test_fuzz3_array_and_misuse_checks(workers, fmus):
    """Hand-written sequences on the joint's array input wearDepth[36]: element-wise set/get
    with one value reference; nValues off by one, a NULL values array, a wrong type, time
    set, an unknown reference: fmi3Error, logged, nothing changed (Q2, Q8), the instance
    usable afterwards (Q9)."""
    info = D.read_info(fmus(JOINT))
    wd = next(v["vr"] for v in info["variables"] if v["name"] == "wearDepth")
    vals = [1e-6 * k for k in range(36)]
    cs = ["instantiate", D.CS, "ok", True, True]
    seq = [cs, ["set", "Float64", [wd], vals, 0, False], ["get", "Float64", [wd], 0, False],
           ["set", "Float64", [wd], vals, -1, False], ["set", "Float64", [wd], vals, 1, False],
           ["set", "Float64", [wd], vals, 0, True], ["get", "Float64", [wd, wd], -36, False],
           ["set", "Int32", [wd], vals, 0, False], ["set", "Float64", [0], [1.0], 0, False],
           ["get", "Float64", [len(info["variables"])], 0, False],
           ["set", "Float64", [wd], ["nan"] * 36, 0, False],
           ["enterInit", False, 0.0, 0.0, True, 0.5], ["exitInit"], ["updateDiscrete", False],
           ["enterStepMode"], ["doStep", "cur", 0.0, 0.01, False], ["dirDeriv", "ok"],
           ["dirDeriv", "badn"], ["outDeriv", "ok"], ["outDeriv", "badn"],
           ["getFMUState", 0], ["serialize", 0, False], ["deserialize", 0, 1, "flip", 100, 7],
           ["deserialize", 0, 1, "none", 0, 0], ["setFMUState", 1], ["reset"]]
    res = workers(JOINT).run(seq)
    assert res.get("ok"), res
    got = [st for name, st, _ in res["trace"][1:]]
    assert got[:9] == [0, 0, 3, 3, 3, 3, 3, 3, 3], got


def test_fuzz3_checker_detects_violations(fmus):
    """The checker itself (in this process): with a wrong allowed-state mask, a silent
    error, or a changed instance on refusal, the runner reports a problem."""
    info = D.read_info(fmus(VDP))
    runner = D.Runner(D.Fmu3(info))
    seq = [["instantiate", D.CS, "ok", False, False], ["enterInit", False, 0.0, 0.0, True, 1.0],
           ["exitInit"], ["terminate"], ["doStep", "cur", 0.0, 0.1, False]]
    assert runner.run(seq)["ok"]
    saved = D.MASKS["terminate"]
    try:
        D.MASKS["terminate"] = (D.EVENT, None)       # pretend stepMode may not terminate
        res = runner.run(seq)
    finally:
        D.MASKS["terminate"] = saved
    assert not res["ok"] and "illegal in state stepMode but returned 0" in res["problems"][0]
    log = runner.fmu._logger
    try:                                             # a logger that loses the messages
        runner.fmu._logger = D.LOGGER(lambda *a: None)
        res = runner.run(seq)
    finally:
        runner.fmu._logger = log
    assert not res["ok"] and "without a log message" in res["problems"][0], res


# found by this fuzzer (2026-12-06): NO_SUCH_TYPE checked the getters' state mask for the setters
# too, so fmi3SetFloat32 & co. with no references returned fmi3OK in terminated/stepDiscarded/error
@pytest.mark.parametrize("typ", D.NO_TYPES)
def test_fuzz3_set_of_absent_type_in_terminated(workers, typ):
    """Found by the fuzzer's masks (seedless, minimal): instantiate CS, initialize, exit,
    terminate, fmi3Set<typ>(instance, NULL, 0, NULL, 0)."""
    seq = [["instantiate", D.CS, "ok", False, False], ["enterInit", False, 0.0, 0.0, True, 1.0],
           ["exitInit"], ["terminate"], ["setNoType", typ, 0]]
    res = workers(VDP).run(seq)
    assert res.get("ok"), res


def test_fuzz3_worker_detects_crash_and_hang(workers):
    """The harness itself: a crash (abort) and a hang of the worker are reported as such and
    the worker restarts for the next sequence."""
    w = workers(VDP)
    n = dict(STATS)
    res = w.run([["instantiate", D.CS, "ok", False, False], ["__selftest_abort"]])
    assert "crash" in res and "signal 6" in res["crash"], res
    res = w.run([["instantiate", D.CS, "ok", False, False], ["__selftest_hang"]], timeout=2)
    assert "hang" in res, res
    res = w.run([["instantiate", D.CS, "ok", False, False],
                 ["enterInit", False, 0.0, 0.0, False, 0.0]])
    assert res.get("ok"), res
    STATS.update(crashes=n["crashes"], hangs=n["hangs"])   # not FMU findings


def test_fuzz3_report_counts():
    """How many sequences / calls were fuzzed (-s or -rA shows it)."""
    print(f"\nFMI 3.0 fuzz: {STATS['sequences']} sequences, {STATS['calls']} calls, "
          f"{STATS['crashes']} crashes, {STATS['hangs']} hangs "
          f"(WEARCOSIM_FUZZ3_SEQUENCES={SEQUENCES} per model, {len(MODELS)} models)\n"
          f"  states after calls: {dict(sorted(STATES.items(), key=str))}\n"
          f"  statuses returned: {dict(sorted(STATUSES.items(), key=str))}\n"
          f"  fmi3DoStep outputs: {EVENTS}")
