"""``wearcosim system pack --container / --interface`` (issue 34, point 4) from the command line,
and the interface form run by our own co-simulation master (its system inputs take their
system-level bindings)."""
from __future__ import annotations

import zipfile

import numpy as np

from wearcosim import cli
from wearcosim.system import examples


def test_pack_interface_then_run_it_with_the_cosimulation_master(tmp_path, capsys):
    system = examples.ensure_fmus(examples.system_of("cardona_case1"), log=lambda *a: None)
    ssd = examples.SYSTEMS / "cardona_case1.ssd"
    assert system.components and ssd.exists()
    out = tmp_path / "c1.ssp"
    assert cli.main(["system", "pack", str(ssd), "--interface", "-o", str(out)]) == 0
    assert "interface as system connectors" in capsys.readouterr().out
    with zipfile.ZipFile(out) as z:
        text = z.read("SystemStructure.ssd").decode()
    assert 'kind="input"' in text and 'name="mesh.F"' in text
    folder = tmp_path / "run"
    rc = cli.main(["system", "run", str(out), "--master", "cosim", "--step", "1e-4", "--stop", "0.002",
                   "--check", "energy", "--out", str(folder)])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    d = np.genfromtxt(folder / "c1.csv", delimiter=",", names=True)
    assert len(d) == 21 and np.all(np.isfinite(d["meshF"]))


def test_pack_container_one_component(tmp_path, capsys):
    out = tmp_path / "c1c.ssp"
    assert cli.main(["system", "pack", str(examples.SYSTEMS / "cardona_case1.ssd"), "--container",
                     "-o", str(out)]) == 0
    assert "the strongly coupled container" in capsys.readouterr().out
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
    assert sum(n.endswith(".fmu") for n in names) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c1c.ssp"]      # nothing else written
