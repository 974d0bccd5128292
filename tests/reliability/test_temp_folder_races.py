"""FMU extraction folders (``wearcosim.fmi.archive``) between processes that start, die and
fork at once: the situation of a local study's new pool after a worker was killed
(tests/master/test_round3_studies.py), where the two new workers sweep the dead workers'
folders at the same moment.  The interleavings are forced here, not waited for."""
from __future__ import annotations

import os
import shutil

from wearcosim.fmi import archive
from wearcosim.fmi.archive import TEMP_PREFIX


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
