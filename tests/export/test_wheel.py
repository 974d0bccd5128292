"""A non-editable install works outside the checkout: the wheel built from the tracked files
carries the Modelica library, the C runtime, the templates and the scenarios
(``wearcosim/_data``); installed into a fresh virtual environment and run from an empty
folder, it builds an FMU from the packaged library and runs a 2-cycle wear scenario through
the Python API, writing only below that folder."""
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from wctest import ROOT

SCRIPT = r"""
import sys
from pathlib import Path
import wearcosim as wc
from wearcosim import resources
here = Path.cwd().resolve()
assert Path(wc.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()), wc.__file__
assert resources.installed() and resources.library_root().is_relative_to(Path(sys.prefix).resolve())
fmu = wc.build("WearCosim.Examples.HybridMechanism.DrySpeed32pi", out="fmus")
assert fmu.is_relative_to(here), fmu
sc = wc.Scenario.load(resources.data_root() / "cosim" / "demo_hybrid_dry_32pi.toml")
sc = sc.replace(name="wheel", fmu={"path": str(fmu)}, wear={"cycles": 2}, run={"steps_per_cycle": 200})
res = wc.run(sc)                      # default output folder: ./results
assert res.path.resolve() == here / "results" / "wheel.h5", res.path
assert res.final.max() > 0 and res.real_cycles == 5000
print("ok", res)
"""


def _tracked(dest):
    """The repository's tracked files copied to ``dest`` (what a clean clone holds)."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in files.decode().split("\0"):
        if rel and (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_wheel_installs_and_builds_outside_the_checkout(tmp_path):
    src, dist, work = tmp_path / "src", tmp_path / "dist", tmp_path / "work"
    _tracked(src)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WEARCOSIM_HOME", "WEARCOSIM_BUILD_DIR")}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(dist), str(src)], check=True, env=env, capture_output=True)
    (wheel,) = dist.glob("wearcosim-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for must in ("wearcosim/_data/modelica/WearCosim/package.mo", "wearcosim/_data/fmu/runtime/fmi2_face.c",
                 "wearcosim/_data/fmu/templates/model.c.in", "wearcosim/_data/fmu/container/container.h",
                 "wearcosim/_data/cosim/demo_hybrid_dry_32pi.toml",
                 # the master's C helpers (wearcosim.cext compiles them on first use)
                 "wearcosim/fmi/cloop.c", "wearcosim/wear/archard.c"):
        assert must in names, must
    # a fresh environment; the heavy dependencies (CasADi, rumoca, FMPy, ...) come from this
    # interpreter's site-packages, wearcosim itself only from the wheel
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    # "--system-site-packages" reaches the base interpreter's packages, not this one's: when the
    # suite itself runs in a virtual environment (make test's .venv) on a machine whose system
    # Python has none of the dependencies, they are in this environment only.  Its
    # site-packages folders go on the new environment's path after its own (a .pth file: plain
    # path entries, so this environment's editable wearcosim, a .pth of its own, is not added)
    import site
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    (Path(purelib) / "_wctest_parent.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], check=True, env=env,
                   capture_output=True)
    work.mkdir()
    p = subprocess.run([str(py), "-c", SCRIPT], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "ok Results" in p.stdout
    made = {q.relative_to(work).parts[0] for q in work.rglob("*")}
    assert made <= {"fmus", "results"}, made
