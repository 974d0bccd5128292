"""The command line: bad input gives a message with file:line, a non-zero exit code and no
FMU; check reports validation problems; the OpenModelica backend where omc exists."""
import shutil
import subprocess
import sys
import zipfile

import pytest

from wctest import ROOT, fixture_path


def wearcosim(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "wearcosim.cli", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin:/usr/local/bin"},
                          timeout=300)


@pytest.mark.parametrize("name, needle", [
    ("SyntaxError", "SyntaxError.mo:5"),
    ("UnknownName", "UnknownName.mo:4"),
    ("Unbalanced", "1 equations, 2 unknowns"),
    ("Unsupported", "Unsupported.mo:6"),
    ("Singular", "variables without an equation: b"),
])
def test_bad_models_fail_cleanly(name, needle, tmp_path):
    p = wearcosim("build", "--file", str(fixture_path(name)), name, "--out", str(tmp_path))
    assert p.returncode != 0
    assert needle in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    assert list(tmp_path.iterdir()) == []     # no FMU, no temporary file left behind


def test_build_and_check_one_model(tmp_path):
    p = wearcosim("build", "WearCosim.Examples.Basic.VanDerPol", "--out", str(tmp_path), "--timings")
    assert p.returncode == 0, p.stderr
    # --timings: each stage's wall time, in order (issue 36: where a build's time goes)
    from wearcosim.export.build import STAGES
    line = next(x for x in p.stdout.splitlines() if x.strip().startswith("stages (wall s):"))
    names = [part.rsplit(" ", 1)[0] for part in line.split(":", 1)[1].strip().split(", ")]
    assert names == list(STAGES), line
    fmu = tmp_path / "VanDerPol.fmu"
    assert fmu.exists()
    p = wearcosim("check", str(fmu))
    assert p.returncode == 0 and "OK" in p.stdout
    # a broken archive is reported with a non-zero exit code
    bad = tmp_path / "Broken.fmu"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("modelDescription.xml", "<fmiModelDescription/>")
    p = wearcosim("check", str(bad))
    assert p.returncode != 0 and "problem" in p.stdout


@pytest.mark.skipif(shutil.which("omc") is None, reason="OpenModelica (omc) is not on PATH on this machine")
def test_openmodelica_backend_builds_same_model(tmp_path):
    p = wearcosim("build", "WearCosim.Examples.Basic.VanDerPol", "--backend", "openmodelica", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "VanDerPol.fmu").exists()
