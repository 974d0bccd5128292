"""Sweeps beyond one machine: the study runner on a Dask cluster (a distributed.LocalCluster
with 2 worker processes stands in for a remote scheduler) gives results identical to the
local-process run."""
import numpy as np
import pytest

from wctest import ROOT
from wearcosim.master.store import read_results

distributed = pytest.importorskip("distributed", reason="dask[distributed] is a test extra")


def _scenarios(tmp_path):
    import tomli_w
    from wearcosim.master.scenario import load
    out = []
    for n in ("speed_16pi", "speed_32pi", "clearance_015"):
        d = dict(load(ROOT / "cosim" / "seed" / f"{n}.toml").raw)
        d["wear"] = dict(d["wear"], cycles=3)
        d["run"] = dict(d["run"], steps_per_cycle=300)
        p = tmp_path / f"{n}.toml"
        p.write_text(tomli_w.dumps(d))
        out.append(p)
    return out


def test_dask_cluster_sweep_equals_local(tmp_path):
    from distributed import Client, LocalCluster
    from wearcosim.studies.runner import run_all
    sc = _scenarios(tmp_path)
    local = run_all(sc, tmp_path / "local", workers=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            remote = run_all(sc, tmp_path / "dask", scheduler=client)
    for a, b in zip(sorted(local), sorted(remote)):
        wa, wb = read_results(a)[2], read_results(b)[2]
        assert np.array_equal(wa["final"], wb["final"]) and np.array_equal(wa["depth"], wb["depth"])
