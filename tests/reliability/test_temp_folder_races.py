"""FMU extraction folders (``wearcosim.fmi.archive``) between processes that start, die and
fork at once: the situation of a local study's new pool after a worker was killed
(tests/master/test_round3_studies.py), where the two new workers sweep the dead workers'
folders at the same moment.  The interleavings are forced here, not waited for."""
from __future__ import annotations

import gc
import os
import shutil
import tempfile

import pytest

from wearcosim.fmi import archive
from wearcosim.fmi.archive import TEMP_PREFIX

pytestmark = pytest.mark.skipif(archive.fcntl is None or not hasattr(os, "fork"),
                                reason="the folders' locks and fork are POSIX's")


class _OtherSweepFirst:
    """``fcntl`` whose ``flock`` lets another process's sweep win first: that sweep took the
    lock, removed the folder and let the lock go, between this sweep's ``open`` and its
    ``flock`` (a process descheduled there, as on a machine with more processes than cores)."""

    def __init__(self, real, folder):
        self.real, self.folder, self.ino = real, folder, folder.stat().st_ino

    def __getattr__(self, name):
        return getattr(self.real, name)

    def flock(self, fd, op):
        if os.fstat(fd).st_ino == self.ino:
            shutil.rmtree(self.folder, ignore_errors=True)
        return self.real.flock(fd, op)


def test_a_sweep_that_loses_the_race_for_a_stale_folder_goes_on(tmp_path, monkeypatch):
    """The stale folder is gone when this sweep gets its lock: it is passed over (it raised
    FileNotFoundError naming the folder, which failed the new worker's FMU opening)."""
    stale = tmp_path / f"{TEMP_PREFIX}dead"          # nobody holds its lock: a dead process's
    (stale / "binaries").mkdir(parents=True)
    other = tmp_path / f"{TEMP_PREFIX}dead2"
    other.mkdir()
    monkeypatch.setattr(archive, "fcntl", _OtherSweepFirst(archive.fcntl, stale))
    assert archive.sweep_stale(tmp_path) == [str(other)]   # the rest of the sweep is done
    assert sorted(tmp_path.iterdir()) == []


def _in_child(fn) -> int:
    """``fn()`` in a forked child of this process; its exit code (0: ``fn`` returned)."""
    pid = os.fork()
    if pid == 0:                                  # pragma: no cover - the child
        code = 1
        try:
            fn()
            code = 0
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@pytest.fixture
def private_tempdir(tmp_path, monkeypatch):
    """The temporary directory of this test alone (forked children inherit it)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_forked_child_leaves_its_parents_folder(build_example, private_tempdir):
    """A child forked while this process has an FMU open (a local pool's worker) that drops
    the inherited runner runs its finalizer: the parent's folder stays (it was removed under
    the parent's open runner)."""
    from wearcosim.fmi.runner import open_fmu
    held = [open_fmu(build_example("WearCosim.Examples.Basic.BouncingBall"))]
    folder = held[0]._dir

    def drop():
        held.clear()
        gc.collect()
    assert _in_child(drop) == 0
    assert folder.is_dir()
    held[0].setup(0.0, None, None, 1e-3)
    held[0].initialize()
    held[0].terminate()
    assert not folder.exists() and list(private_tempdir.iterdir()) == []


def test_a_dead_processs_folder_is_stale_while_its_forked_child_lives(private_tempdir):
    """A process that forked a child and died without cleaning up (killed) leaves a stale
    folder, swept by the next process, though the child lives on (it had kept the lock)."""
    told_r, told_w = os.pipe()                    # the grandchild, forked, says the folder
    life_r, life_w = os.pipe()                    # the grandchild lives until life_w closes

    def grandchild(folder):
        os.write(told_w, str(folder).encode())
        for fd in (told_r, told_w, life_w):
            os.close(fd)
        os.read(life_r, 1)

    def dying():
        folder = archive.make_temp_dir()
        if os.fork() == 0:                        # pragma: no cover - the grandchild
            try:
                grandchild(folder)
            finally:
                os._exit(0)
    try:
        assert _in_child(dying) == 0
        folder = os.read(told_r, 4096).decode()
        assert os.path.isdir(folder)
        assert archive.sweep_stale(private_tempdir) == [folder]
    finally:
        for fd in (told_r, told_w, life_r, life_w):
            os.close(fd)
