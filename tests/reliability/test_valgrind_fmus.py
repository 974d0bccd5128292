"""Issue #8 part 3 (CI size): scripts/valgrind_fmus.sh -- valgrind memcheck over
instantiate -> setup -> initialize -> doStep -> (FMU state, reset) -> terminate -> free
cycles of two example FMUs, driven by the C driver scripts/fmu_cycle_driver.c.
The full run (10000 cycles) is `scripts/valgrind_fmus.sh 10000`."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from wctest import ROOT

CYCLES = int(os.environ.get("WEARCOSIM_VG_CYCLES", "200"))
MODELS = ["WearCosim.Examples.Basic.BouncingBall",
          "WearCosim.Examples.HybridMechanism.DrySpeed32pi"]


@pytest.mark.skipif(shutil.which("valgrind") is None,
                    reason="valgrind is not on PATH (memcheck test is CI-optional)")
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not on PATH")
def test_valgrind_fmu_lifecycle_cycles(build_example, tmp_path):
    fmus = [str(build_example(m)) for m in MODELS]
    env = dict(os.environ, WEARCOSIM_VG_FMUS=" ".join(fmus))
    p = subprocess.run(["bash", str(ROOT / "scripts" / "valgrind_fmus.sh"), str(CYCLES),
                        str(tmp_path)], env=env, capture_output=True, text=True,
                       timeout=300)
    print(p.stdout)
    assert p.returncode == 0, f"valgrind_fmus.sh failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    # every FMU ran all its cycles and valgrind reported no error at all
    assert p.stdout.count(f"{CYCLES} cycles OK") == len(MODELS), p.stdout
    assert len(re.findall(r"ERROR SUMMARY: 0 errors", p.stdout)) == len(MODELS), p.stdout
    for log in tmp_path.glob("valgrind-*.log"):
        text = log.read_text()
        assert "All heap blocks were freed" in text or \
            re.search(r"definitely lost: 0 bytes", text), f"{log.name}:\n{text[-3000:]}"
