"""Reliability, round 3 (issue 33): studies survive a lost worker.  A study of 20 cheap cases
(the PressedJournal FMU, a checkpoint after every wear update) on 2 local processes and on a
2-worker Dask cluster; one worker is killed by PID in the middle of a case, after the case's
first checkpoint (known from the case's files, not from timing); the study completes with
results bit-identical to an undisturbed run and names the case it ran again."""
import json
import os
import signal
import threading
import time

import numpy as np
import pytest

from wearcosim.master import store

N_CASES = 20
#: a case's worker is killed once the case's checkpoint is of this cycle or later (of 24)
KILL_AT = 8


def _cases(folder, fmu, n=N_CASES):
    """``n`` scenario files, one force each (distinct profiles), a few dozen short cycles."""
    import tomli_w
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        d = {"name": f"c{i:02d}", "fmu": {"path": str(fmu)}, "start": {"F": 100.0 + 10.0 * i, "kw": 1e2},
             "wear": {"k": 1e-4, "hardness": 1.2e9, "cycles": 24, "omega": 50.0, "update_cycles": 1,
                      "extrapolation": 10.0},
             "run": {"steps_per_cycle": 40, "tolerance": 1e-8, "record": ["Fn"]}}
        p = folder / f"c{i:02d}.toml"
        p.write_text(tomli_w.dumps(d))
        out.append(p)
    return out


@pytest.fixture(scope="module")
def study_cases(pressed_fmu, tmp_path_factory):
    """The 20 scenarios and their undisturbed results (run in this process, one by one)."""
    from wearcosim.studies.runner import run_all
    base = tmp_path_factory.mktemp("study20")
    cases = _cases(base / "cases", pressed_fmu)
    ref = run_all(cases, base / "ref", workers=1)
    assert ref.retried == []
    return cases, {os.path.basename(p): store.read_results(p) for p in ref}


class Killer(threading.Thread):
    """Kills, by PID, the worker process running one of ``names`` (tried in order) once that
    case's checkpoint is of cycle :data:`KILL_AT` or later, before the case ends.  The worker
    is stopped (SIGSTOP) before it is judged, so what is seen holds when SIGKILL lands: the
    case's lock names the process, its checkpoint is far enough and its results do not exist
    (the process is inside the case).  A case that ended before it could be caught is passed
    over for the next."""

    def __init__(self, out, names):
        super().__init__(daemon=True)
        self.out, self.names = out, names
        self.killed = None              # (case, pid)
        self.stop = threading.Event()

    def _holder(self, name):
        try:
            return int(json.loads((self.out / f".{name}.lock").read_text())["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @staticmethod
    def _cycle(ckpt):
        try:
            return store.load_checkpoint(ckpt)[1]["cycle"]
        except (OSError, store.CheckpointError):
            return -1

    def run(self):
        for name in self.names:
            ckpt, res = self.out / f"{name}.ckpt", self.out / f"{name}.h5"
            while not self.stop.is_set() and not res.exists():
                pid = self._holder(name) if ckpt.exists() else None
                if pid is None:
                    time.sleep(0.0005)
                    continue
                try:
                    os.kill(pid, signal.SIGSTOP)
                except ProcessLookupError:
                    continue
                if self._holder(name) == pid and self._cycle(ckpt) >= KILL_AT and not res.exists():
                    os.kill(pid, signal.SIGKILL)
                    self.killed = (name, pid)
                    return
                os.kill(pid, signal.SIGCONT)           # between two files: look again
                time.sleep(0.0005)
            if self.stop.is_set():
                return


def _check(got, ref, out, killed):
    """Bit-identical results, the killed case said, nothing but the results left."""
    assert killed is not None, "no case could be caught running"
    assert killed[0] in got.retried, (killed, got.retried)
    assert got.resumed_from[killed[0]] >= KILL_AT  # from the checkpoint the dead worker left
    assert len(got) == N_CASES
    for p in got:
        meta, s, w = store.read_results(p)
        rm, rs, rw = ref[os.path.basename(p)]
        assert meta["completed"]
        for k in ("final", "depth", "cycles", "simulated_cycles"):
            assert np.array_equal(w[k], rw[k]), (p, k)
        for k in rs:
            assert np.array_equal(s[k], rs[k]), (p, k)
    assert sorted(x.name for x in out.iterdir()) == sorted(f"c{i:02d}.h5" for i in range(N_CASES))
    print(f"killed the worker (pid {killed[1]}) of case {killed[0]}; {got.summary()}")


def _kill_during(run, out, first=4):
    """``run()`` with a :class:`Killer` of the cases from number ``first`` on."""
    killer = Killer(out, [f"c{i:02d}" for i in range(first, N_CASES)])
    killer.start()
    try:
        got = run()
    finally:
        killer.stop.set()
        killer.join()
    return got, killer.killed


def test_local_study_survives_a_killed_worker(study_cases, tmp_path, capsys):
    """The local pool breaks when its process dies (its other process is ended with it): the
    unfinished cases go to a new pool and continue from their own checkpoints."""
    from wearcosim.studies.runner import run_all
    cases, ref = study_cases
    out = tmp_path / "out"
    got, killed = _kill_during(lambda: run_all(cases, out, workers=2, checkpoint_seconds=0.0), out)
    _check(got, ref, out, killed)
    err = capsys.readouterr().err
    assert "a worker process was lost" in err
    print(got.summary())


def test_dask_study_survives_a_killed_worker(study_cases, tmp_path):
    """Dask re-runs the lost worker's case on the other worker; it continues from the
    checkpoint the dead worker left (the study's own: accepted by the owner check)."""
    pytest.importorskip("distributed", reason="dask[distributed] is a test extra")
    from distributed import Client, LocalCluster
    from wearcosim.studies.runner import run_all
    cases, ref = study_cases
    out = tmp_path / "out"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            got, killed = _kill_during(lambda: run_all(cases, out, scheduler=client, checkpoint_seconds=0.0), out)
    _check(got, ref, out, killed)
    assert got.retried == [killed[0]]              # the other worker's cases were not disturbed
