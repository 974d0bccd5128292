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


# Caches of other tools the tests call (rumoca keeps parsed files under $XDG_CACHE_HOME/rumoca,
# ~160 MB per library folder; wearcosim.cext its compiled helpers) go to a folder of the run,
# never into the user's ~/.cache; removed at the end of the run.
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
#: entries that are not leftovers: pytest's own tmp_path tree, Dask's scratch folder
TMP_OWNED = ("pytest-of-", "dask-scratch-space")
# FMUs built by the tests carry this machine's binary only: with MinGW-w64 installed, the
# default (auto) would cross-compile win64 too and double every build's compile time;
# tests/export/test_win64.py asks for win64 itself
os.environ.setdefault("WEARCOSIM_PLATFORMS", "host")

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
            _built[key] = build_fmu(model, PACKAGE, fmu_dir, **kw)
        return _built[key].fmu
    return build


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
