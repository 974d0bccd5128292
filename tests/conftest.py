"""Shared pytest fixtures: paths, FMUs built once per session, and a private temp folder
that every test must leave as it found it."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# Object files of the tests' builds, shared by the whole run (pytest-xdist's workers inherit the
# variable; the object cache of wearcosim.export.package, keyed by content): the runtime's
# solvers are compiled once per number of states instead of once per build.  Made before TMPDIR
# is set (it is not a test's leftover) and removed at the end of the run.
_OBJ_CACHE = None
if "WEARCOSIM_BUILD_CACHE" not in os.environ and "PYTEST_XDIST_WORKER" not in os.environ:
    _OBJ_CACHE = tempfile.mkdtemp(prefix="wctest-objcache-")
    os.environ["WEARCOSIM_BUILD_CACHE"] = _OBJ_CACHE
    # the FMUs of build_example, shared by the workers of this run (never by two runs: the
    # sources may change between them)
    os.environ["WCTEST_RUN_FMUS"] = os.path.join(_OBJ_CACHE, "test-fmus")


# Caches of other tools the tests call (rumoca keeps parsed files under $XDG_CACHE_HOME/rumoca,
# ~160 MB per library folder) go to a folder of the run, never into the user's ~/.cache; removed
# at the end of the run.  (wearcosim.cext keeps its compiled helpers beside the package's files,
# python/wearcosim/_cext of this checkout, or in $WEARCOSIM_CACHE.)
_XDG = None
if "PYTEST_XDIST_WORKER" not in os.environ:
    _XDG = tempfile.mkdtemp(prefix="wctest-xdg-")
    os.environ["XDG_CACHE_HOME"] = _XDG


def pytest_unconfigure(config):
    for folder in (_OBJ_CACHE, _XDG):
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


# The suite's own temp folder (inherited by subprocesses through TMPDIR): no other process on
# the machine writes there, so what a test leaves behind can be seen (checked after each test).
TMP = tempfile.mkdtemp(prefix="wctest-tmp-")
os.environ["TMPDIR"] = TMP
tempfile.tempdir = TMP
#: entries that are not leftovers: pytest's own tmp_path tree, Dask's scratch folder, the folder
#: of rumoca's cache that a process building without the build cache keeps until its exit
#: (wearcosim.export.frontend.XDG_PROCESS_PREFIX; tests/export/test_frontend_sessions.py checks
#: that it goes then)
TMP_OWNED = ("pytest-of-", "dask-scratch-space", "wearcosim-rumoca-process-")
# FMUs built by the tests carry this machine's binary only: with MinGW-w64 installed, the
# default (auto) would cross-compile win64 too and double every build's compile time;
# tests/export/test_win64.py asks for win64 itself
os.environ.setdefault("WEARCOSIM_PLATFORMS", "host")
# One thread per BLAS/OpenMP pool in the run's processes (pytest-xdist's workers inherit it):
# the suite runs a worker per core already, and OpenBLAS's threads on top of them only wait for
# each other (ROSS's tests: 31.1 -> 27.9 s of CPU)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "models"))

from wctest import PACKAGE  # noqa: E402


@pytest.fixture(scope="session")
def fmu_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fmus")


_built = {}


@pytest.fixture(scope="session")
def build_example(fmu_dir):
    """build_example("WearCosim.Examples.Basic.BouncingBall") -> Path of the FMU (cached)."""
    from wearcosim.export.build import build_fmu

    def build(model: str, **kw):
        key = (model, tuple(sorted(kw.items())))
        if key not in _built:
            _built[key] = _shared_build(model, kw, fmu_dir)
        return _built[key]
    return build


def _shared_build(model: str, kw: dict, fmu_dir: Path) -> Path:
    """build_fmu(model, **kw)'s FMU, built once per run for all the workers: the first worker
    to need it builds it and renames it into the run's folder (WCTEST_RUN_FMUS); the others take
    it from there (a worker that finds none builds its own; two that race both build, and the
    rename is atomic)."""
    import hashlib

    from wearcosim.export.build import build_fmu
    shared = os.environ.get("WCTEST_RUN_FMUS")
    if not shared:
        return build_fmu(model, PACKAGE, fmu_dir, **kw).fmu
    h = hashlib.sha256(repr((model, sorted(kw.items()))).encode()).hexdigest()[:20]
    done = Path(shared) / h
    if done.is_dir():
        (fmu,) = done.glob("*.fmu")
        return fmu
    res = build_fmu(model, PACKAGE, fmu_dir, **kw)
    Path(shared).mkdir(parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(prefix=f".{h}.", dir=shared))
    try:
        shutil.copy2(res.fmu, part / res.fmu.name)
        os.rename(part, done)
    except OSError:                     # another worker was first: its copy is as good
        shutil.rmtree(part, ignore_errors=True)
    return res.fmu


def _tmp_entries() -> set:
    return {n for n in os.listdir(TMP) if not n.startswith(TMP_OWNED)}


@pytest.fixture(autouse=True)
def no_temp_leftovers():
    """No test (failing cases included) may leave a temp folder or file behind."""
    before = _tmp_entries()
    yield
    left = sorted(_tmp_entries() - before)
    assert not left, f"left behind in the temp folder {TMP}: {left}"


def _reset_fmpy_logger():
    """FMPy's variadic logger proxy (``fmpy.logging``) keeps ONE process-wide callback:
    ``simulate_fmu(logger=f)`` leaves it pointing at f's ctypes callback, which is freed when
    ``simulate_fmu`` returns, and the next FMU logging through FMPy's default callbacks (any
    error message) calls freed memory (a segfault that kills the whole run).  Point it at a
    callback that lives as long as the session, around every test."""
    from ctypes import byref

    from fmpy.fmi2 import fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, printLogMessage
    from fmpy.logging import addLoggerProxy
    global _PRINT
    if _PRINT is None:
        _PRINT = fmi2CallbackLoggerTYPE(printLogMessage)
    cb = fmi2CallbackFunctions()
    cb.logger = _PRINT
    addLoggerProxy(byref(cb))


_PRINT = None


@pytest.fixture(autouse=True)
def fmpy_logger_proxy():
    _reset_fmpy_logger()
    yield
    _reset_fmpy_logger()


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(TMP, ignore_errors=True)


#: the test files that took longest (``--durations``, 2026-12-06), run first: with pytest-xdist's
#: ``--dist loadfile`` a file runs whole on one worker, and a long file left for the end keeps
#: one worker busy while the other has nothing to do
HEAVY_FIRST = (
    "tests/bench/test_msl_slice.py",
    "tests/library/test_interop_msl.py",
    "tests/runtime/test_runtime_c.py",
    "tests/rotor/test_rotor_fine_mesh.py",
    "tests/bench/test_peers.py",
    "tests/system/test_composed_examples.py",
    "tests/bench/test_msl_ladder.py",
    "tests/master/test_round3_studies.py",
    "tests/export/test_tables38.py",
    "tests/export/test_scale.py",
    "tests/docs/test_typing.py",
    "tests/rotor/test_rotor_ross.py",
    "tests/system/test_components_gears_rotor.py",
    "tests/export/test_wheel.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {f: i for i, f in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
